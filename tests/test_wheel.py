"""Packaging end to end: the sdist alone builds the wheel, and the wheel works in a fresh venv.

A copy of the checkout (tracked and untracked, not ignored, files) is packed with ``python -m build
--sdist``; the sdist is unpacked on its own and ``python -m build --wheel`` builds the wheel from it,
so a C source, header, preset or checkpoint missing from the sdist fails the build or the checks
below. The wheel is installed into a new virtual environment (its dependencies from the package
index), and there, from a folder outside the checkout, ``machiavelli solve``, a short
``machiavelli eval`` and an AEC episode run. Both builds use pip's isolated build environment (the
build backend from the package index), as a user's ``pip install`` does.

Marked ``packaging`` (a few minutes, deselected by default): ``.ci/run`` runs
``python -m pytest -m packaging``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from pathlib import Path

import pytest
from checkout import copy_project

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.packaging


def _run(cmd: list[str], cwd: Path, timeout: int = 900, env: dict | None = None) -> str:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n" \
                                 f"{proc.stderr[-4000:]}"
    return proc.stdout


def _pyproject_version() -> str:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import re

        text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
        return re.search(r'(?m)^version = "([^"]+)"', text).group(1)
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict:
    pytest.importorskip("build", reason="python -m build needs the 'build' package (dev extra)")
    base = tmp_path_factory.mktemp("wheel")
    checkout = base / "checkout"
    copy_project(checkout)
    _run([sys.executable, "-m", "build", "--sdist", "--outdir", str(base / "sdist"), str(checkout)], cwd=base)
    (sdist,) = (base / "sdist").glob("*.tar.gz")
    unpacked = base / "unpacked"
    with tarfile.open(sdist) as tar:
        tar.extractall(unpacked, filter="data") if sys.version_info >= (3, 12) else tar.extractall(unpacked)
    (src,) = unpacked.iterdir()
    _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(base / "wheel"), str(src)], cwd=base)
    (wheel,) = (base / "wheel").glob("*.whl")
    return {"base": base, "sdist": sdist, "src": src, "wheel": wheel}


def test_the_sdist_holds_every_source_the_build_needs(built):
    src: Path = built["src"]
    names = {p.relative_to(src).as_posix() for p in src.rglob("*") if p.is_file()}
    needed = [p.relative_to(ROOT).as_posix() for p in (ROOT / "machiavelli_env").rglob("*.[ch]")]
    needed += [p.relative_to(ROOT).as_posix() for p in (ROOT / "configs" / "rules").glob("*.yaml")]
    needed += [p.relative_to(ROOT).as_posix() for p in (ROOT / "configs" / "train").glob("*.yaml")]
    needed += [p.relative_to(ROOT).as_posix() for p in (ROOT / "agents" / "checkpoints").glob("*.*")]
    assert any(n.endswith(".h") for n in needed) and any(n.endswith("common.h") for n in needed)
    missing = sorted(set(needed) - names)
    assert not missing, f"the sdist lacks {missing} (MANIFEST.in)"
    assert "CHANGELOG.md" in names and "README.md" in names


def test_the_wheel_holds_the_extensions_and_data(built):
    with zipfile.ZipFile(built["wheel"]) as z:
        names = z.namelist()
    assert any(n.startswith("machiavelli_env/oracle/_dp.") and n.endswith((".so", ".pyd")) for n in names)
    assert any(n.startswith("machiavelli_env/_obs.") and n.endswith((".so", ".pyd")) for n in names)
    presets = [n for n in names if n.startswith("machiavelli_env/presets/") and n.endswith(".yaml")]
    assert len(presets) == len(list((ROOT / "configs" / "rules").glob("*.yaml")))
    assert any(n.startswith("machiavelli_env/agents/checkpoints/") and n.endswith(".safetensors") for n in names)
    assert not any(n.endswith((".c", ".h")) for n in names), "C sources belong in the sdist, not the wheel"
    assert built["wheel"].name.startswith(f"machiavelli_env-{_pyproject_version()}-")


EPISODE = textwrap.dedent("""
    import json, sys
    import numpy as np
    from importlib.metadata import version
    import machiavelli_env

    env = machiavelli_env.env(rules="classic", players=3)
    env.reset(seed=0)
    steps, totals = 0, dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        plays = env.unwrapped.legal_plays(agent, limit=8)
        env.step(plays[0] if plays else np.zeros(53, dtype=np.int64))
        steps += 1
    print(json.dumps({"file": machiavelli_env.__file__, "version": machiavelli_env.__version__,
                      "dist": version("machiavelli-env"), "steps": steps,
                      "rewards": sorted(totals.values())}))
""")


def test_the_wheel_works_in_a_fresh_venv(built):
    base: Path = built["base"]
    venv = base / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], cwd=base)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    py = bindir / "python"
    _run([str(py), "-m", "pip", "install", "-q", str(built["wheel"])], cwd=base)
    work = base / "elsewhere"  # not the checkout: the installed package is what imports
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    machiavelli = str(bindir / "machiavelli")

    out = _run([machiavelli, "--version"], cwd=work, env=env)
    assert out.strip() == f"machiavelli-env {_pyproject_version()}"

    out = _run([machiavelli, "solve", "--table", "KH KC KD", "--hand", "AC 9S KS", "--json"], cwd=work, env=env)
    answer = json.loads(out)
    assert answer["play"] == ["KS"] and sorted(answer["melds"][0]) == ["KC", "KD", "KH", "KS"], answer

    out = _run([machiavelli, "eval", "--agents", "greedy,random", "--games", "2", "--seed", "1", "--json"],
               cwd=work, env=env, timeout=300)
    result = json.loads(out)
    assert result["games"] == 2 and [a["name"] for a in result["agents"]] == ["greedy", "random"]
    assert sum(a["wins"] for a in result["agents"]) + sum(a["draws"] for a in result["agents"]) / 2 == 2

    out = _run([str(py), "-c", EPISODE], cwd=work, env=env, timeout=300)
    ep = json.loads(out.strip().splitlines()[-1])
    assert ep["file"].startswith(str(venv)), ep["file"]
    assert ep["version"] == ep["dist"] == _pyproject_version()
    assert ep["steps"] > 0 and sum(ep["rewards"]) == pytest.approx(0.0) and max(ep["rewards"]) == 1.0
