"""The source layout: the oracle's C parts are all compiled and each says what it owns, and the
Python modules of the oracle and of training import each other without a cycle (lazy imports
inside functions included)."""

from __future__ import annotations

import ast
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


def _functions(path: Path) -> list[ast.FunctionDef]:
    return [n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.FunctionDef)]


def test_no_function_of_the_oracle_takes_more_than_six_parameters() -> None:
    """Questions travel as a Question and a Budget, not as argument lists; only the keyword options
    (after ``*``) of public functions may add to the count."""
    over = []
    for path in sorted(ORACLE.glob("*.py")):
        for fn in _functions(path):
            positional = [a.arg for a in fn.args.posonlyargs + fn.args.args if a.arg not in ("self", "cls")]
            public_keywords = not fn.name.startswith("_")
            n = len(positional) + (0 if public_keywords else len(fn.args.kwonlyargs))
            if n > 6:
                over.append(f"{path.name}:{fn.lineno} {fn.name} ({n})")
    assert not over


def test_every_python_module_of_the_oracle_opens_with_what_it_owns() -> None:
    for path in sorted(ORACLE.glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        assert doc and len(doc.split()) >= 8, f"{path.name} does not open with a docstring saying what it owns"


def test_the_pipeline_schedules_end_with_a_stage_that_always_settles() -> None:
    """Each schedule's last stage answers whatever reaches it (HiGHS, the per-card questions, or the
    capped question's giving up), so a question never falls off the end."""
    from machiavelli_env.oracle import pipeline

    last = {stages[-1] for stages in pipeline.SCHEDULES.values()}
    assert last <= {pipeline.highs, pipeline.by_card_each, pipeline.gave_up}
    kinds = {kind for kind, _ in pipeline.SCHEDULES}
    modes = {mode for _, mode in pipeline.SCHEDULES}
    assert kinds == {"box", "best", "by_card"} and modes == {"exact", "capped", "bounded"}
