"""The documentation site (``mkdocs.yml``, ``docs/``): its layout, and the built site in a browser.

Without MkDocs: every page of ``docs/`` is in the navigation; user pages stay short (about 15,000
characters of prose at most; the tables a script writes between markers do not count) and carry
no dated sections, which belong to the "Engineering notes" section;
the Getting started page shows the README's commands and example; the changelog keeps its form;
the version is written once.

With the ``docs`` extra: ``mkdocs build --strict`` builds the site (a broken link or an unresolved
reference fails it), and headless Chromium (driven as in ``tests/test_replay_html.py``) opens it
over HTTP, types ``legal_plays`` into the search box, follows the API entry the search finds and
reads its parameters. The browser test is skipped when MkDocs is not installed; under CI
(``.ci/run`` installs the extra and Chromium) nothing is skipped. ``MACHIAVELLI_SCREENSHOTS=DIR``
keeps the screenshots.
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from cdp import Page, require_chromium

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
USER_PAGE_LIMIT = 15_000  # characters of Markdown, outside the blocks a script writes
_GENERATED_BLOCK = re.compile(r"(?s)<!-- (\w+):begin -->.*?<!-- \1:end -->")
NOTES_SECTION = "Engineering notes"
GENERATED_SECTION = "API reference"  # pages of ::: directives; their text comes from the docstrings
ROOT_PAGES = {"benchmark.md": ROOT / "BENCHMARK.md", "changelog.md": ROOT / "CHANGELOG.md"}  # mkdocs_hooks.py


def _nav() -> list[tuple[str, str]]:
    """``(top-level section, page path)`` for every page of mkdocs.yml's navigation."""
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    out: list[tuple[str, str]] = []

    def walk(items, section):
        for item in items:
            if isinstance(item, str):
                out.append((section, item))
                continue
            ((title, value),) = item.items()
            if isinstance(value, list):
                walk(value, section or title)
            else:
                out.append((section or title, value))

    walk(config["nav"], None)
    return out


def _source(page: str) -> Path:
    return ROOT_PAGES.get(page, DOCS / page)


def test_every_page_is_in_the_navigation():
    nav = [p for _, p in _nav()]
    assert len(nav) == len(set(nav)), "a page is in the navigation twice"
    for page in nav:
        assert _source(page).is_file(), f"mkdocs.yml names {page}, which does not exist"
    on_disk = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert not on_disk - set(nav), f"pages outside the navigation: {sorted(on_disk - set(nav))}"


def test_user_pages_are_short_and_undated():
    dated = re.compile(r"(?m)^#{1,4} .*\b20\d\d-\d\d-\d\d")
    users = [p for section, p in _nav() if section not in (NOTES_SECTION, GENERATED_SECTION)]
    assert {"index.md", "ENV.md", "ORACLE.md", "TRAINING.md", "benchmark.md"} <= set(users)
    for page in users:
        text = _source(page).read_text(encoding="utf-8")
        prose = _GENERATED_BLOCK.sub("", text)  # a script's tables (BENCHMARK.md's results) are data, not prose
        assert len(prose) <= USER_PAGE_LIMIT, f"{page}: {len(prose)} characters; split it or move notes out"
        m = dated.search(text) if page != "changelog.md" else None  # versions carry their dates
        assert not m, f"{page}: a dated section ({m.group(0)!r}) belongs in the engineering notes"
        assert "Engineering notes\"\n" not in text, f"{page} is marked as a note but is a user page"


def test_notes_are_one_section_apart():
    nav = _nav()
    notes = [p for section, p in nav if section == NOTES_SECTION]
    assert {"RESULTS.md", "ORACLE_BENCHMARK.md", "notes/index.md", "notes/training-runs.md",
            "notes/development-log-0.1.0.md"} <= set(notes)
    for section, page in nav:
        if page.startswith("notes/"):
            assert section == NOTES_SECTION, f"{page} is a note outside the {NOTES_SECTION} section"
    for page in notes:
        if page != "notes/index.md":
            head = _source(page).read_text(encoding="utf-8")[:600]
            assert '!!! note "Engineering notes"' in head, f"{page} does not say it is an engineering note"


def _python_block(text: str) -> str:
    return text.split("```python\n", 1)[1].split("```", 1)[0]


def test_getting_started_follows_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    example = _python_block(readme.split("\n## Example\n", 1)[1])
    assert _python_block(index) == example
    for command in ('pip install torch==2.13.0 && pip install -e ".[train]" && machiavelli train',
                    'pip install -e ".[dev]" && python -m pytest'):
        assert command in readme and command in index
    for picture in ("images/table.png", "images/replay.png"):
        assert f"(docs/{picture})" in readme and f"({picture})" in index


def test_changelog_keeps_a_changelog():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"(?m)^## (.+)$", text)
    assert versions[0] == "[Unreleased]", "the first section is [Unreleased]"
    released = versions[1:]
    assert released and all(re.fullmatch(r"\[\d+\.\d+\.\d+\] - \d{4}-\d\d-\d\d", v) for v in released), released
    numbers = [tuple(map(int, re.match(r"\[(\d+)\.(\d+)\.(\d+)\]", v).groups())) for v in released]
    assert numbers == sorted(numbers, reverse=True) and len(set(numbers)) == len(numbers)
    kinds = set(re.findall(r"(?m)^### (.+)$", text))
    assert kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, kinds
    body = text.split("\n## [", 1)[1]
    for line in body.splitlines():  # one line per change: no wrapped bullets
        assert not line.startswith("  "), f"a change spans lines: {line!r}"
    first = text.split("\n## [0.1.0]", 1)[1].split("\n## [", 1)[0]
    assert len(first.strip().splitlines()) <= 80
    unreleased = text.split("## [Unreleased]", 1)[1].split("\n## [", 1)[0]
    for change in ("depth-first pass in the oracle's extension", "`benchmarks/list_digest.py`",
                   "`benchmarks/train_speed.py`", "`machiavelli_env.training.workers`"):
        assert change in unreleased, change


def test_the_version_is_written_once():
    from importlib.metadata import version

    import machiavelli_env

    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    written = re.search(r'(?m)^version = "([^"]+)"', pyproject).group(1)
    assert machiavelli_env.__version__ == version("machiavelli-env") == written
    init = (ROOT / "machiavelli_env" / "__init__.py").read_text(encoding="utf-8")
    assert written not in init


# ---------------------------------------------------------------------------------------------- the site
def _docs_tools_missing() -> str | None:
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        try:
            if importlib.util.find_spec(module) is None:
                return module
        except ModuleNotFoundError:
            return module
    return None


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    missing = _docs_tools_missing()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing} is not installed; .ci/run installs the docs extra")
        pytest.skip(f"{missing} not installed (pip install -e '.[docs]')")
    out = tmp_path_factory.mktemp("site")
    shutil.rmtree(ROOT / "build" / "docs-api", ignore_errors=True)  # as on a fresh clone: the hooks stage it
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(ROOT / "mkdocs.yml"), "--site-dir", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    warnings = [line for line in proc.stderr.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert not warnings, warnings
    return out


def test_the_site_builds_with_every_page(site):
    for page, _ in _nav_html():
        assert (site / page).is_file(), page
    api = (site / "api" / "machiavelli_env.html").read_text(encoding="utf-8")
    assert 'id="machiavelli_env.env.raw_env.legal_plays"' in api
    changelog = (site / "changelog.html").read_text(encoding="utf-8")
    assert 'href="notes/development-log-0.1.0.html"' in changelog  # a root file's link, rewritten for the site


def _nav_html() -> list[tuple[str, str]]:
    return [(p[:-3] + ".html", s) for s, p in _nav()]


def test_search_finds_legal_plays_and_its_api_entry_lists_the_parameters(site, tmp_path):
    browser = require_chromium()
    shots = Path(os.environ.get("MACHIAVELLI_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    page = Page(browser, base + "index.html", tmp_path / "profile", ready="document.readyState === 'complete'")
    try:
        assert page.eval("document.querySelector('h1').firstChild.textContent.trim()") == "machiavelli-env"
        assert page.eval("[...document.images].every(i => i.complete && i.naturalWidth > 0)")
        page.screenshot(shots / "docs_home.png")

        page.eval("document.querySelector('label.md-search__icon, label[for=__search]').click()")
        page.eval("document.querySelector('input.md-search__input').focus()")
        page.type_text("legal_plays")
        hrefs = page.wait_for("""(() => {
            const links = [...document.querySelectorAll('.md-search-result__item a.md-search-result__link')];
            const hrefs = links.map(a => a.href);
            return hrefs.some(h => h.includes('raw_env.legal_plays')) ? hrefs : null; })()""")
        page.screenshot(shots / "docs_search.png")
        target = next(h for h in hrefs if h.endswith("#machiavelli_env.env.raw_env.legal_plays"))
        assert target.startswith(base + "api/machiavelli_env.html")

        page.goto(target)
        entry = page.wait_for("""(() => {
            const h = document.getElementById('machiavelli_env.env.raw_env.legal_plays');
            if (!h) return null;
            const obj = h.closest('.doc-object');
            return {
              signature: obj.querySelector('.doc-signature').textContent,
              sections: [...obj.querySelectorAll('.doc-section-title')].map(e => e.textContent.trim()),
              params: [...obj.querySelectorAll('tr.doc-section-item td:first-child code')]
                .map(e => e.textContent.trim()),
              visible: h.getBoundingClientRect().top < innerHeight,
            }; })()""")
        page.screenshot(shots / "docs_api_legal_plays.png")
    finally:
        page.close()
        server.shutdown()
        server.server_close()
    signature = r"legal_plays\(\s*agent: str \| None = None,\s*limit: int = 64,\s*budget: ListBudget \| None = None"
    assert re.search(signature, entry["signature"]), entry["signature"]
    assert "Parameters:" in entry["sections"] and entry["params"][:3] == ["agent", "limit", "budget"], entry
    assert entry["visible"]
    for name in ("docs_home.png", "docs_search.png", "docs_api_legal_plays.png"):
        png = (shots / name).read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000, name
