"""The oracle's source layout: the C parts are all compiled, each says what it owns, and the Python
modules import each other without a cycle."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ORACLE = Path(__file__).resolve().parent.parent / "machiavelli_env" / "oracle"


def _relative_imports(path: Path, known: set[str]) -> set[str]:
    deps: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [node.module.split(".")[0]] if node.module else [a.name for a in node.names]
            deps |= {n for n in names if n in known}
    return deps


def test_oracle_python_modules_import_without_a_cycle() -> None:
    modules = {p.stem: p for p in ORACLE.glob("*.py")}
    graph = {name: _relative_imports(path, set(modules)) for name, path in modules.items()}
    done: set[str] = set()

    def visit(name: str, stack: tuple[str, ...]) -> None:
        assert name not in stack, f"import cycle: {' -> '.join(stack + (name,))}"
        if name in done:
            return
        for dep in sorted(graph[name]):
            visit(dep, stack + (name,))
        done.add(name)

    for name in sorted(graph):
        visit(name, ())
    assert "api" not in graph["dp"] and "api" not in graph["result"]


def test_every_c_part_is_included_once_and_has_a_header() -> None:
    included = re.findall(r'^#include "csrc/([^"]+)"', (ORACLE / "_dp.c").read_text(), flags=re.M)
    parts = sorted(p.name for p in (ORACLE / "csrc").iterdir() if p.suffix in (".c", ".h"))
    assert sorted(included) == parts
    assert len(included) == len(set(included))
    for name in parts:
        head = (ORACLE / "csrc" / name).read_text().splitlines()[0]
        assert head.startswith(f"/* {name}: "), f"{name} does not open with a header saying what it owns"
