"""Test helper: the project's own files in this checkout (tracked, or new and not ignored), for the
packaging tests (tests/test_packaging.py, tests/test_wheel.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def project_files() -> list[str]:
    """Paths relative to the checkout's root; skips the test outside a git checkout."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                             capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: cannot tell the project's files from build outputs")
    return [f for f in out.decode().split("\0") if f and (ROOT / f).is_file()]


def copy_project(dest: Path) -> None:
    """Copy the project's own files (:func:`project_files`) into ``dest``, as a clean clone has them."""
    for f in project_files():
        target = dest / f
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, target)
