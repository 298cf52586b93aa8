"""The layout of agents/: its modules (the web package's included) import each other without a
cycle, lazy imports inside functions included, and only the web package imports the web package."""

from __future__ import annotations

from pathlib import Path

from import_graph import assert_acyclic, package_graph

ROOT = Path(__file__).resolve().parent.parent


def test_agents_modules_import_without_a_cycle():
    graph = package_graph(ROOT / "agents", subpackages=("web",))
    assert "gamerecords" in graph["replay_html"] and "replay" not in graph["replay_html"]
    assert "tableview" in graph["replay_html"] and "tableview" in graph["web.games"]
    assert_acyclic(graph)
    assert not any(d.startswith("web") for n, deps in graph.items() if not n.startswith("web") for d in deps)
