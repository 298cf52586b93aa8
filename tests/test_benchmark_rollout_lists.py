"""benchmarks/rollout_lists.py: the exact lists of a PPO rollout by cost (a smoke test of the script,
and its accounting)."""

from __future__ import annotations

import json

import numpy as np
import pytest


@pytest.fixture(scope="module")
def rl(load_benchmark):
    return load_benchmark("rollout_lists")


def _call(rl, ms: float, hand_cards: int = 3, plays: int = 1, limit: int = 32):
    from machiavelli_env.rules import Rules

    hand = np.zeros(53, dtype=np.int64)
    hand[:hand_cards] = 1
    return rl.ListCall(np.zeros(53, dtype=np.int64), hand, Rules.load("classic"), True, limit, None, None, ms, plays)


def test_slowest_takes_the_ceiling_of_the_fraction_slowest_first(rl):
    calls = [_call(rl, ms) for ms in (1.0, 5.0, 2.0, 9.0, 3.0)]
    assert [c.ms for c in rl.slowest(calls, 0.1)] == [9.0]
    assert [c.ms for c in rl.slowest(calls, 0.4)] == [9.0, 5.0]
    assert [c.ms for c in rl.slowest(calls, 1.0)] == [9.0, 5.0, 3.0, 2.0, 1.0]


def test_summary_gives_the_slowest_lists_share_and_splits_top_from_the_others(rl):
    calls = [_call(rl, 1.0) for _ in range(18)] + [_call(rl, 41.0, hand_cards=30, plays=32) for _ in range(2)]
    s = rl.summarize(calls, 0.1)
    assert s["lists"] == 20 and s["total_ms"] == pytest.approx(100.0)
    assert s["share_top_10pct"] == pytest.approx(0.82) and s["share_top_1pct"] == pytest.approx(0.41)
    assert s["max_ms"] == 41.0
    assert s["top"]["lists"] == 2 and s["top"]["hand_cards"] == 30 and s["top"]["full"] == 1.0
    assert s["others"]["lists"] == 18 and s["others"]["mean_ms"] == pytest.approx(1.0) and s["others"]["full"] == 0.0


def test_compare_methods_finds_the_same_values_and_restores_the_schedule(rl):
    from machiavelli_env import game
    from machiavelli_env.oracle import _dp
    from machiavelli_env.rules import Rules

    rules = Rules.load("classic")
    before = _dp.set_params()["force"]
    calls = []
    for seed in (1, 2):
        s = game.new_game(rules, seed)
        calls.append(rl.ListCall(s.table.copy(), s.hands[0].copy(), rules, True, 32, None, None, 1.0, 0))
    res = rl.compare_methods(calls)
    assert _dp.set_params()["force"] == before
    assert res["positions"] == 2 and res["same_values"] == 2  # both are exact: the same values
    assert 0 <= res["per_card_plays_differing"] <= res["per_card_plays"]
    assert res["schedule_ms"] > 0 and res["forward_forced_ms"] > 0


def test_a_bad_argument_is_refused(rl, capsys):
    for args, message in ((["--top", "0"], "--top must be in (0, 1]"), (["--updates", "0"], "--updates must be >= 1"),
                          (["--methods", "-1"], "--methods must be >= 0")):
        with pytest.raises(SystemExit) as exc:
            rl.main(args)
        assert exc.value.code == 2
        assert message in capsys.readouterr().err


def test_a_short_run_records_replays_and_compares(rl, tmp_path, capsys):
    pytest.importorskip("torch")
    pytest.importorskip("yaml")
    pytest.importorskip("tensorboard")
    from machiavelli_env import legal
    from machiavelli_env.oracle import api

    original = legal.legal_plays_counts, legal._query, api.best_counts_by_card
    out = tmp_path / "lists.json"
    assert rl.main(["--updates", "1", "--top", "0.05", "--methods", "2", "--json", str(out)]) == 0
    assert (legal.legal_plays_counts, legal._query, api.best_counts_by_card) == original
    report = json.loads(out.read_text())
    s = report["rollout"]
    assert s["lists"] > 0 and 0 < s["share_top_1pct"] <= s["share_top_10pct"] <= 1
    assert s["top"]["lists"] + s["others"]["lists"] == s["lists"]
    r = report["replay"]
    assert 0 < r["lists"] <= s["top"]["lists"]
    assert sum(r["parts_ms"].values()) == pytest.approx(r["list_ms"])
    assert sum(r["per_card_methods"].values()) == r["lists"]
    m = report["methods"]
    assert m["positions"] == min(2, r["lists"]) and m["same_values"] == m["positions"]
    printed = capsys.readouterr().out
    assert "exact lists" in printed and "the extension's own" in printed and "forward graph forced" in printed
