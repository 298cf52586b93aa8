"""The sweep direction of a question (``solve(..., sweep=)``): searching from the king down is as exact
as from the ace up (the same feasibility and value, a valid arrangement within the bounds), and
``legal_plays``, whose branch questions sweep down, lists the same plays either way."""

from __future__ import annotations

import numpy as np
import pytest
from game_positions import crowded_positions

from machiavelli_env import legal
from machiavelli_env.melds import is_valid_meld
from machiavelli_env.oracle import OracleError
from machiavelli_env.oracle import api as oracle
from machiavelli_env.rules import Rules


def _assert_valid(res: oracle.Play, lo: np.ndarray, hi: np.ndarray, rules: Rules) -> None:
    x = lo + res.counts
    assert np.all(res.counts >= 0) and np.all(x <= hi)
    placed = np.zeros_like(x)
    for meld in res.melds:
        assert is_valid_meld(meld, rules)
        np.add.at(placed, meld, 1)
    assert np.array_equal(placed, x)


@pytest.mark.parametrize("preset", ["classic_jokers", "jokers2", "classic", "ace_wrap"])
def test_sweeping_down_gives_the_same_feasibility_and_value(preset: str) -> None:
    positions = crowded_positions(preset, games=6, seed=8300)
    assert len(positions) >= 8
    asked = feasible = 0
    for table, hand, rules in positions[::3]:
        cards = oracle.objective_weights("cards", rules)
        for c in np.flatnonzero(hand):
            lo = table.copy()
            lo[c] += 1
            hi = table + hand
            for weights in (np.zeros_like(hand), cards):
                up = oracle.solve(lo, hi, weights, rules)
                down = oracle.solve(lo, hi, weights, rules, sweep="down")
                assert (up is None) == (down is None)
                asked += 1
                if up is not None:
                    feasible += 1
                    assert down.value == up.value
                    _assert_valid(down, lo, hi, rules)
    assert asked >= 40 and 0 < feasible < asked


def test_sweep_is_ignored_with_opening_points() -> None:
    rules = Rules.load("classic").replace(opening="points:30")
    hand = np.zeros(53, dtype=np.int64)
    for c in (9, 10, 11, 12, 22, 35, 48, 0, 13, 26):  # 10-K of spades, the other kings, four aces
        hand[c] += 1
    zero = np.zeros(53, dtype=np.int64)
    w = oracle.objective_weights("cards", rules)
    up = oracle.solve(zero, hand, w, rules, min_open_points=30)
    down = oracle.solve(zero, hand, w, rules, min_open_points=30, sweep="down")
    assert up is not None and down == up


def test_an_unknown_sweep_is_a_clear_error() -> None:
    rules = Rules.load("classic")
    zero = np.zeros(53, dtype=np.int64)
    with pytest.raises(OracleError, match="sweep must be 'up' or 'down'"):
        oracle.solve(zero, zero, zero, rules, sweep="sideways")


@pytest.mark.parametrize("preset", ["classic_jokers", "jokers2"])
def test_legal_plays_are_the_same_with_branch_questions_swept_up(preset: str, monkeypatch) -> None:
    # the biggest hands: where the list is cut at the limit, the enumeration's order decides it.
    # The lists of the extension's pass (the default) against the Python pass with every branch
    # question swept from the ace up instead of the king down
    positions = crowded_positions(preset, games=4, seed=8300, other="hoarder", min_table=12)
    positions = sorted(positions, key=lambda p: -int(p[1].sum()))[:8]
    legal.clear_caches()
    down = [legal.legal_plays(t, h, r, limit=32) for t, h, r in positions]
    real, swept = oracle.feasible, []

    def swept_up(*args, **kw):
        swept.append(kw.pop("sweep", "up"))
        return real(*args, **kw)

    monkeypatch.setattr(oracle, "feasible", swept_up)
    monkeypatch.setattr(legal, "_C_ENUMERATION", False)
    legal.clear_caches()
    up = [legal.legal_plays(t, h, r, limit=32) for t, h, r in positions]
    legal.clear_caches()
    assert "down" in swept
    assert [[p.tolist() for p in ps] for ps in down] == [[p.tolist() for p in ps] for ps in up]
    assert sum(len(ps) == 32 for ps in down) >= 4
