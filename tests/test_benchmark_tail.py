"""benchmarks/tail.py and benchmarks/oracle_dump.py: smoke tests of the scripts (figures are not checked,
only that every part runs and reports what it says)."""

from __future__ import annotations

import json

import pytest


@pytest.fixture(scope="module")
def tail(load_benchmark):
    return load_benchmark("tail")


def test_tail_reports_percentiles_greedy_ratios_and_verdicts(tail, tmp_path, capsys):
    out_json, slow = tmp_path / "tail.json", tmp_path / "slow.jsonl"
    argv = ["--games", "1", "--greedy-games", "1", "--configs", "classic,jokers2,stress_wrap_2jokers",
            "--json", str(out_json), "--slow", str(slow), "--keep", "2"]
    assert tail.main(argv) == 0
    text = capsys.readouterr().out
    assert "| classic | 2 | 1 |" in text and "| stress_wrap_2jokers |" in text
    assert any(line.startswith(("PASS presets", "FAIL presets")) for line in text.splitlines())
    assert any(line.startswith(("PASS stress", "FAIL stress")) for line in text.splitlines())
    data = json.loads(out_json.read_text())
    rows = {r["config"]: r for r in data["rows"]}
    assert set(rows) == {"classic", "jokers2", "stress_wrap_2jokers"}
    for r in rows.values():
        assert r["moves"] > 0 and r["p50_ms"] <= r["p99_ms"] <= r["p999_ms"] <= r["max_ms"]
    assert rows["stress_wrap_2jokers"]["stress"] and not rows["classic"]["stress"]
    for r in rows.values():  # each kind that moved, with its own percentiles; together every move
        by_agent = r["by_agent"]
        assert set(by_agent) <= set(r["kinds"]) and sum(a["moves"] for a in by_agent.values()) == r["moves"]
        assert max(a["max_ms"] for a in by_agent.values()) == pytest.approx(r["max_ms"])
    assert "By agent, p99 / max ms a move:" in text
    assert data["greedy"]["classic"]["ratio_to_classic"] == pytest.approx(1.0)
    assert set(data["greedy"]) == {"classic", "classic_jokers", "spanish_comodines", "jokers2"}
    assert data["peak_rss_mb"] > 0
    lines = [json.loads(line) for line in slow.read_text().splitlines()]
    assert 1 <= len(lines) <= 6 and all({"config", "ms", "agent", "state"} <= set(d) for d in lines)


def test_tail_seats_every_kind_in_every_seat(tail):
    rules = tail.config_rules("classic")
    kinds = ["random", "greedy", "hoarder"] + (["ppo"] if tail.ppo_available(rules.players) else [])
    seats = {(g + i) % len(kinds) for g in range(len(kinds)) for i in range(rules.players)}
    assert seats == set(range(len(kinds)))


def test_tail_rejects_an_unknown_config(tail, capsys):
    with pytest.raises(SystemExit) as exc:
        tail.main(["--configs", "no_such_preset"])
    assert exc.value.code == 2
    assert "unknown config" in capsys.readouterr().err


def test_oracle_dump_is_the_same_twice(tmp_path, capsys, load_benchmark):
    dump = load_benchmark("oracle_dump")
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert dump.main(["--cases", "5", "--games", "0", "--out", str(a)]) == 0
    assert dump.main(["--cases", "5", "--games", "0", "--out", str(b)]) == 0
    assert a.read_bytes() == b.read_bytes() and len(a.read_text().splitlines()) == 5
    assert capsys.readouterr().out.count("positions 5") == 2


def test_tail_bounds_the_agents_lists_when_asked(tail, capsys):
    argv = ["--games", "1", "--greedy-games", "0", "--configs", "jokers2", "--list-budget", '{"nodes": 20}']
    assert tail.main(argv) == 0
    text = capsys.readouterr().out
    assert "every list bounded by ListBudget(nodes=20," in text and "| jokers2 | 2 | 1 |" in text
    assert tail.main(["--games", "1", "--greedy-games", "0", "--configs", "jokers2", "--exact-lists"]) == 0
    assert "random and ppo on exact lists" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        tail.main(["--games", "1", "--list-budget", '{"node": 20}'])
    assert "--list-budget" in capsys.readouterr().err


def test_list_budget_benchmark_reports_both_lists(tmp_path, capsys, load_benchmark):
    bench = load_benchmark("list_budget")
    out_json = tmp_path / "lb.json"
    assert bench.main(["--games", "1", "--configs", "classic,jokers2", "--budget", '{"nodes": 20}',
                       "--json", str(out_json)]) == 0
    text = capsys.readouterr().out
    assert "| classic | random |" in text and "| jokers2 |" in text
    rows = json.loads(out_json.read_text())["speed"]
    assert {r["config"] for r in rows} == {"classic", "jokers2"}
    for r in rows:
        assert r["positions"] > 0 and 0.0 <= r["max_size_kept"] <= 1.0 and 0.0 <= r["same"] <= 1.0
        assert r["plays"][1] <= 32
    with pytest.raises(SystemExit):
        bench.main(["--configs", "nowhere"])


def test_tail_greedy_presets_play_their_own_deals(tail):
    # classic_jokers and spanish_comodines have the same rules: on shared seeds they would play the
    # same games, move for move, and the second would meet the first's positions in the caches
    out = tail.greedy_interleaved(2, 42)
    assert out["classic_jokers"]["moves"] != out["spanish_comodines"]["moves"]
    assert all(g["moves"] > 0 for g in out.values())
