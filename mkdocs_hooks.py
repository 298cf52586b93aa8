"""MkDocs hooks for the documentation site (``mkdocs.yml``; ``mkdocs build --strict``).

- ``BENCHMARK.md`` and ``CHANGELOG.md`` stay at the repository root (the benchmark script rewrites
  the first; the second is where packagers look) and become the site's ``benchmark.md`` and
  ``changelog.md``.
- Links are written for GitHub, relative to the file that holds them: a link to a page of the site
  becomes a link to that page, ``README.md`` the home page; a link to a file the site does not hold
  (a script, a config, a folder) becomes its text.
- The API reference reads the sources as installed: ``agents/`` and ``training/`` are the
  subpackages ``machiavelli_env.agents`` and ``machiavelli_env.training`` (pyproject's
  ``package-dir``), so ``build/docs-api/machiavelli_env`` holds copies of the sources laid out that way.
"""

from __future__ import annotations

import posixpath
import re
import shutil
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent
ROOT_PAGES = {"BENCHMARK.md": "benchmark.md", "CHANGELOG.md": "changelog.md"}  # root file -> page
HOME = "index.md"  # README.md's place in the site
API_STAGE = ROOT / "build" / "docs-api"
SUBPACKAGES = {"agents": ROOT / "agents", "training": ROOT / "training"}

_LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(```|~~~)")


def _stage_api_sources() -> None:
    """Copies of the Python sources laid out as installed (griffe resolves links, so copies)."""
    pkg = API_STAGE / "machiavelli_env"
    if API_STAGE.exists():
        shutil.rmtree(API_STAGE)
    keep_py = shutil.ignore_patterns("__pycache__", "*.so", "*.c", "*.h", "csrc", "checkpoints")
    shutil.copytree(ROOT / "machiavelli_env", pkg, ignore=keep_py)
    for name, path in SUBPACKAGES.items():
        shutil.copytree(path, pkg / name, ignore=keep_py)


def on_startup(command, dirty):
    """Stage before any plugin reads its config: mkdocstrings resolves ``paths`` when it starts, and
    a path that does not exist yet is dropped (the module would then be read from the checkout)."""
    _stage_api_sources()


def on_config(config):
    _stage_api_sources()  # again, for each rebuild of ``mkdocs serve``
    return config


_OUTSIDE_IMAGES: dict[Path, str] = {}  # an image outside docs/ that a page shows -> its place in the site


def on_files(files, config):
    docs_dir = Path(config["docs_dir"]).resolve()
    for src, page in ROOT_PAGES.items():
        files.append(File.generated(config, page, abs_src_path=str(ROOT / src)))
    _OUTSIDE_IMAGES.clear()
    sources = [(ROOT / src, ROOT) for src in ROOT_PAGES]
    sources += [(p, p.parent) for p in docs_dir.rglob("*.md")]
    for md, base in sources:
        for bang, _, target in _LINK.findall(md.read_text(encoding="utf-8")):
            path = (base / target.partition("#")[0]).resolve()
            if bang and "://" not in target and not path.is_relative_to(docs_dir) and path.is_file() \
                    and path.is_relative_to(ROOT) and path not in _OUTSIDE_IMAGES:
                uri = "assets/repo/" + path.relative_to(ROOT).as_posix()
                _OUTSIDE_IMAGES[path] = uri
                files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def _source_dir(page, docs_dir: Path) -> Path:
    """The folder the page's Markdown file lives in, which its relative links start from."""
    if page.file.src_uri in ROOT_PAGES.values():
        return ROOT
    return (docs_dir / page.file.src_uri).parent


def _site_target(target: Path, docs_dir: Path) -> str | None:
    """The docs-relative path of the page or asset that ``target`` (an absolute path) is, if the site holds it."""
    rel = target.relative_to(ROOT).as_posix() if target.is_relative_to(ROOT) else None
    if rel == "README.md":
        return HOME
    if rel in ROOT_PAGES:
        return ROOT_PAGES[rel]
    if target in _OUTSIDE_IMAGES:
        return _OUTSIDE_IMAGES[target]
    if target.is_relative_to(docs_dir) and target.is_file():
        return target.relative_to(docs_dir).as_posix()
    return None


def _rewrite(markdown: str, page, docs_dir: Path) -> str:
    src_dir = _source_dir(page, docs_dir)
    page_dir = posixpath.dirname(page.file.src_uri)

    def fix(m: re.Match) -> str:
        bang, text, target = m.groups()
        if "://" in target or target.startswith(("#", "mailto:")):
            return m.group(0)
        path, _, anchor = target.partition("#")
        resolved = (src_dir / path).resolve()
        site = _site_target(resolved, docs_dir)
        if site is None:
            return m.group(0) if bang else text  # a file outside the site: the text alone
        new = posixpath.relpath(site, page_dir or ".") + (f"#{anchor}" if anchor else "")
        return f"{bang}[{text}]({new})"

    out, in_fence = [], False
    for line in markdown.split("\n"):
        if _FENCE.match(line.lstrip()):
            in_fence = not in_fence
        out.append(line if in_fence else _LINK.sub(fix, line))
    return "\n".join(out)


def on_page_markdown(markdown, page, config, files):
    return _rewrite(markdown, page, Path(config["docs_dir"]).resolve())


_ROLE = re.compile(r":(?:func|meth|class|mod|attr|data|exc|obj):(?=<code>)")


def on_page_content(html, page, config, files):
    """Docstrings name objects in reST roles (``:func:`x` ``): the code alone, without the role."""
    return _ROLE.sub("", html)
