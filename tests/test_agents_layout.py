"""The layout of agents/: its modules (the web package's included) import each other without a
cycle, lazy imports inside functions included, and only the web package imports the web package.
Mirrors the oracle and training check in tests/test_oracle_layout.py."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _agent_graph() -> dict[str, set[str]]:
    """agents/ modules (web/ ones as ``web.NAME``) and the package modules each imports, lazily or not."""
    base = ROOT / "agents"
    files = {p.stem: p for p in base.glob("*.py")} | {f"web.{p.stem}": p for p in (base / "web").glob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        pkg = name.rpartition(".")[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                parent = pkg.split(".")[: max(0, len(pkg.split(".")) - node.level + 1)] if pkg else []
                mod = ".".join([p for p in parent if p] + ([node.module] if node.module else []))
                for cand in [mod, *(f"{mod}.{a.name}".lstrip(".") for a in node.names)]:
                    if cand in files:
                        deps.add(cand)
        graph[name] = deps - {name}
    return graph


def test_agents_modules_import_without_a_cycle():
    graph = _agent_graph()
    assert "gamerecords" in graph["replay_html"] and "replay" not in graph["replay_html"]
    assert "tableview" in graph["replay_html"] and "tableview" in graph["web.games"]
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
    assert not any(d.startswith("web") for n, deps in graph.items() if not n.startswith("web") for d in deps)
