"""Namespace hygiene: installing the project adds no top-level name to site-packages but its own.

The project is built from a copy of this checkout (tracked and untracked, not ignored, files) and
installed with ``pip install --no-deps --target DIR``, as into a fresh site-packages; then every
top-level entry of DIR is checked, and the installed subpackages are imported from DIR.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from checkout import copy_project

ALLOWED = {"machiavelli_env", "bin"}  # bin: the console script `machiavelli` (pip --target puts it there)


def _setuptools_ok() -> bool:
    try:
        import setuptools
    except ImportError:
        return False
    return int(setuptools.__version__.split(".")[0]) >= 70


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("pkg")
    src, target = base / "src", base / "site"
    copy_project(src)
    # the build backend from this environment when it is recent enough (no download), else pip's isolated build
    isolation = ["--no-build-isolation"] if _setuptools_ok() else []
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", *isolation, "--target", str(target), str(src)],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return target


def test_site_packages_gains_only_the_project(installed: Path):
    names = sorted(p.name for p in installed.iterdir())
    strays = [n for n in names
              if n not in ALLOWED and not (n.startswith("machiavelli_env-") and n.endswith(".dist-info"))]
    assert not strays, f"top-level names other than the project's: {strays} (all: {names})"
    top_level = (next(installed.glob("machiavelli_env-*.dist-info")) / "top_level.txt")
    if top_level.is_file():
        assert top_level.read_text().split() == ["machiavelli_env"]


def test_installed_subpackages_import_from_the_namespace(installed: Path):
    pkg = installed / "machiavelli_env"
    for sub in ("agents", "training", "presets", "training/configs"):
        assert (pkg / sub).is_dir(), sub
    assert list((pkg / "presets").glob("*.yaml")) and list((pkg / "training" / "configs").glob("*.yaml"))
    code = (
        "import importlib.util, machiavelli_env, machiavelli_env.agents.arena as arena; "
        "assert machiavelli_env.__file__.startswith(sys.argv[1]), machiavelli_env.__file__; "
        "assert arena.__file__.startswith(sys.argv[1]); "
        "assert importlib.util.find_spec('machiavelli_env.training.config') is not None; "
        "print(importlib.util.find_spec('agents'), importlib.util.find_spec('training'))"
    )
    proc = subprocess.run([sys.executable, "-c", "import sys; " + code, str(installed)], capture_output=True,
                          text=True, cwd=installed.parent, env={"PYTHONPATH": str(installed), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["None", "None"]
