"""The source layout: the oracle's C parts are all compiled and each says what it owns, and the
Python modules of the oracle and of training import each other without a cycle (lazy imports
inside functions included)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from import_graph import assert_acyclic, package_graph

ROOT = Path(__file__).resolve().parent.parent
ORACLE = ROOT / "machiavelli_env" / "oracle"


@pytest.mark.parametrize("package", [ORACLE, ROOT / "training"], ids=["oracle", "training"])
def test_python_modules_import_without_a_cycle(package: Path) -> None:
    assert_acyclic(package_graph(package))


def test_the_oracle_api_sits_above_the_search_and_training_workers_above_rollouts() -> None:
    oracle, training = package_graph(ORACLE), package_graph(ROOT / "training")
    assert "api" not in oracle["dp"] and "api" not in oracle["result"]
    assert "ray_rollouts" in training["workers"] and "rollout" in training["ray_rollouts"]


def test_every_c_part_is_included_once_and_has_a_header() -> None:
    included = re.findall(r'^#include "csrc/([^"]+)"', (ORACLE / "_dp.c").read_text(), flags=re.M)
    parts = sorted(p.name for p in (ORACLE / "csrc").iterdir() if p.suffix in (".c", ".h"))
    assert sorted(included) == parts
    assert len(included) == len(set(included))
    for name in parts:
        head = (ORACLE / "csrc" / name).read_text().splitlines()[0]
        assert head.startswith(f"/* {name}: "), f"{name} does not open with a header saying what it owns"
