"""benchmarks/time_split.py: where a rollout's, a greedy step's and a CandidatePlays move's time goes
(a smoke test of the script, and its clock's accounting)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest


@pytest.fixture(scope="module")
def split(load_benchmark):
    return load_benchmark("time_split")


def test_clock_counts_nested_calls_once_in_own_time_and_restores_the_functions(split):
    ns = SimpleNamespace()
    ns.inner = lambda: sum(range(20_000))
    ns.outer = lambda: [ns.inner() for _ in range(3)]
    original_inner, original_outer = ns.inner, ns.outer
    clock = split.Clock()
    with clock.wrapping({"outer": (ns, "outer"), "inner": (ns, "inner")}):
        ns.outer()
        ns.inner()
    assert ns.inner is original_inner and ns.outer is original_outer
    assert clock.calls == {"outer": 1, "inner": 4}
    assert clock.own["inner"] == clock.ns["inner"]  # it wraps nothing
    assert clock.own["outer"] < clock.ns["outer"]
    nested = clock.ns["outer"] - clock.own["outer"]  # the three inner calls made inside outer
    assert 0 < nested < clock.ns["inner"]  # the fourth inner call was made outside it


def test_clock_restores_the_functions_after_an_error(split):
    ns = SimpleNamespace(f=lambda: 1)
    original = ns.f
    clock = split.Clock()
    with pytest.raises(AttributeError), clock.wrapping({"f": (ns, "f"), "missing": (ns, "no_such_function")}):
        pass
    assert ns.f is original
    with pytest.raises(RuntimeError), clock.wrapping({"f": (ns, "f")}):
        assert ns.f is not original
        raise RuntimeError("inside")
    assert ns.f is original


def test_ceiling_is_amdahls_law(split):
    assert split._ceiling(0.0) == 1.0
    assert split._ceiling(0.75) == pytest.approx(4.0)
    assert split._ceiling(1.0) == float("inf")


def test_greedy_and_candidate_parts_split_the_time_they_measure(split, tmp_path, capsys):
    from machiavelli_env import legal

    original = legal.legal_plays_counts, legal.best_play_counts
    out = tmp_path / "split.json"
    assert split.main(["--updates", "0", "--greedy-games", "2", "--moves", "150", "--json", str(out)]) == 0
    assert (legal.legal_plays_counts, legal.best_play_counts) == original
    report = json.loads(out.read_text())
    assert "rollout" not in report
    greedy, cands = report["greedy"], report["candidates"]
    assert greedy["steps"] > 0 and 0 < greedy["best_play_share"] < 1
    rest_ms = greedy["rest_us_per_step"] * greedy["steps"] / 1e3
    assert greedy["best_play_ms"] + rest_ms == pytest.approx(greedy["total_ms"])
    assert cands["preset"] == "classic" and cands["moves"] >= 150
    assert 0 < cands["lists_share"] < 1 and cands["ceiling_free_lists"] > 1
    printed = capsys.readouterr().out
    assert "greedy self-play" in printed and "CandidatePlays random play, classic" in printed


def test_rollout_part_splits_collect_and_reads_the_update_time(split, tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("yaml")
    pytest.importorskip("tensorboard")
    res = split.split_rollout(1, tmp_path)
    assert res["updates"] == 1 and res["learner_steps"] == 512
    parts = res["parts_ms"]
    assert set(parts) == {"lists", "best plays", "network", "engine step", "rest"}
    assert sum(parts.values()) == pytest.approx(res["collect_ms"])
    assert all(v > 0 for k, v in parts.items() if k != "rest")
    assert res["calls"]["network"] > 0 and res["calls"]["lists"] > 0
    assert 0 < res["lists_share"] < 1 and res["update_s"] > 0
    assert res["rollout_ceiling_free_lists"] == pytest.approx(1 / (1 - res["lists_share"]))
    assert 1 < res["run_ceiling_free_lists"] < res["run_ceiling_free_rollouts"]


def test_a_negative_count_is_refused(split, capsys):
    with pytest.raises(SystemExit) as exc:
        split.main(["--moves", "-1"])
    assert exc.value.code == 2
    assert "--moves must be >= 0" in capsys.readouterr().err
