"""Test helper: the graph of a package's relative imports (lazy ones inside functions included) and a
check that it has no cycle. Used by tests/test_oracle_layout.py and tests/test_agents_layout.py."""

from __future__ import annotations

import ast
from pathlib import Path


def package_graph(package: Path, subpackages: tuple[str, ...] = ()) -> dict[str, set[str]]:
    """Each module of ``package`` (those of ``subpackages`` as ``SUB.NAME``) and the modules of the
    package it imports relatively, at the top or inside functions."""
    files = {p.stem: p for p in package.glob("*.py")}
    for sub in subpackages:
        files |= {f"{sub}.{p.stem}": p for p in (package / sub).glob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        pkg = name.rpartition(".")[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                parts = pkg.split(".") if pkg else []
                parent = parts[: max(0, len(parts) - node.level + 1)]
                mod = ".".join([p for p in parent if p] + ([node.module] if node.module else []))
                for cand in [mod, *(f"{mod}.{a.name}".lstrip(".") for a in node.names)]:
                    if cand in files:
                        deps.add(cand)
        graph[name] = deps - {name}
    return graph


def assert_acyclic(graph: dict[str, set[str]]) -> None:
    """Fail with the cycle's path when some module imports itself through others."""
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
