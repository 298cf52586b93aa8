"""The project's text speaks to users: no file numbers or narrates its own development history
(work periods, lettered runs, "the main job until ..."); the README stays a short front door whose
commands and example work."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

TEXT_SUFFIXES = {".md", ".py", ".yaml", ".yml", ".toml", ".txt", ".c", ".h", ".cfg", ".ini", ".rst", ".sh"}
TEXT_NAMES = {"run", "Makefile"}  # .ci/run
SKIP_DIRS = {".git", "node_modules", "__pycache__", "build", "dist", "runs", ".pytest_cache", ".ruff_cache",
             ".hypothesis", "data", "site"}  # site: the built documentation (mkdocs build)

# Each pattern: what it catches. Case-insensitive unless it starts with (?-i).
HISTORY_PATTERNS = {
    r"\bsessions?[ -]\d+": "a numbered work period (session 11, session-4, sessions 7-10)",
    r"\b(?:this|that|our|the previous|the next|the last|a later|an earlier) session\b": "a work period",
    r"\bsession's\b": "a work period",
    r"(?-i:\b[Rr]uns? [A-H]\b(?!-?[A-Za-z0-9]))": "a lettered run of our own (run G, runs F and G)",
    r"\bstretch(?:es)? \d+|\bstretch of (?:work|development)\b": "a numbered stretch of work",
    r"\bmain job\b": "our name for a run (the main job until ...)",
    r"\bsprint \d+": "a numbered sprint",
}
_COMPILED = []
for pat, why in HISTORY_PATTERNS.items():
    flags = 0 if pat.startswith("(?-i:") else re.IGNORECASE
    _COMPILED.append((re.compile(pat, flags), why))


def project_text_files() -> list[Path]:
    """Every text file of the project (sources, docs, configs, CI), without virtual envs and build outputs."""
    out = []
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".venv")
                       and not d.startswith(".bench") and not d.endswith(".egg-info")]
        for name in filenames:
            p = Path(dirpath) / name
            if p.suffix in TEXT_SUFFIXES or name in TEXT_NAMES:
                out.append(p)
    return sorted(out)


def history_mentions(text: str) -> list[tuple[int, str, str]]:
    """``(line number, matched text, what it is)`` for every mention of our own development history."""
    found = []
    for i, line in enumerate(text.splitlines(), 1):
        for rx, why in _COMPILED:
            for m in rx.finditer(line):
                found.append((i, m.group(0), why))
    return found


def test_the_scan_covers_the_project():
    files = {p.relative_to(ROOT).as_posix() for p in project_text_files()}
    for must in ("README.md", "CHANGELOG.md", "BENCHMARK.md", "docs/TRAINING.md", "docs/ORACLE_BENCHMARK.md",
                 "configs/train/default.yaml", "machiavelli_env/env.py", "agents/replay.py", "mkdocs.yml",
                 "docs/index.md", "docs/notes/training-runs.md", "docs/notes/development-log-0.1.0.md"):
        assert must in files


@pytest.mark.parametrize("text, hits", [
    ("figures of session 11 (docs)", 1),
    ("the shipped one until session-7; sessions 7-10", 2),
    ("docs/ORACLE_BENCHMARK.md, run G.", 1),
    ("In the seven full runs since run F's changes", 1),
    ("runs F and G", 1),
    ("the main job until 60 updates", 1),
    ("on this session's machine", 2),
    ("a 14-card run A-2-...-K-A is valid", 0),
    ("Run a function over many seeds", 0),
    ("a match (session) to 100 penalty points; a session is played to 200", 0),
    ("the 2026-11-30 evening run, commit aaa84fe", 0),
])
def test_the_patterns(text, hits):
    assert len(history_mentions(text)) == hits


def test_no_file_narrates_its_own_development_history():
    me = Path(__file__).resolve()
    problems = []
    for p in project_text_files():
        if p.resolve() == me:
            continue
        try:
            text = p.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for line, match, why in history_mentions(text):
            problems.append(f"{p.relative_to(ROOT)}:{line}: {match!r} ({why})")
    assert not problems, ("files must speak to users, not number our work; say the date, commit or version "
                          "instead:\n" + "\n".join(problems))


# ---------------------------------------------------------------------------------------------- README
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_is_a_short_front_door():
    assert len(README) < 12_000, f"README.md has {len(README)} characters; move details to docs/"


def test_readme_quick_start_commands():
    assert 'pip install torch==2.13.0 && pip install -e ".[train]" && machiavelli train' in README
    assert 'pip install -e ".[dev]" && python -m pytest' in README


def test_readme_links_and_images_exist():
    for target in re.findall(r"\]\(([^)#\s]+)\)", README):
        if "://" in target:
            continue
        assert (ROOT / target).exists(), f"README.md links to {target}, which does not exist"


def test_readme_has_a_delimited_speed_section():
    assert "\n## Speed\n" in README
    body = README.split("\n## Speed\n", 1)[1].split("\n## ", 1)[0]
    assert "<!-- speed:begin -->" in body and "<!-- speed:end -->" in body
    assert "|---|" in body  # a table


def test_readme_example_runs():
    block = README.split("\n## Example\n", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert len(block.strip().splitlines()) <= 12
    scope: dict = {}
    exec(compile(block, "README.md example", "exec"), scope)
    frame = scope["frame"]
    assert frame.shape == (720, 1280, 3) and frame.dtype.name == "uint8"
