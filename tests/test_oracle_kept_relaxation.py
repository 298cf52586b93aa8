"""Feasibility questions keep the per-suit relaxation across queries: the answers must not depend on
what was asked before (a warm cache, a cold one, another order)."""

from __future__ import annotations

import numpy as np
import pytest
from game_positions import crowded_positions

from machiavelli_env.oracle import _dp
from machiavelli_env.oracle import api as oracle


def _answers(positions, reverse: bool, cold: bool) -> list[list]:
    """Per position, the oracle's answer (counts and melds) to the branch questions "some play holding
    card c" (lo = table + c, hi = table + hand, no weights) for each card type c of the hand: a
    witness, which depends on the order the search meets solutions in, and so on every bound."""
    order = range(len(positions) - 1, -1, -1) if reverse else range(len(positions))
    answers: dict[int, list] = {}
    for i in order:
        table, hand, rules = positions[i]
        out = []
        for c in np.flatnonzero(hand):
            if cold:
                _dp.clear_caches()
            lo = table.copy()
            lo[c] += 1
            res = oracle.solve(lo, table + hand, np.zeros_like(hand), rules)
            out.append(None if res is None else (res.counts.tobytes(), res.melds))
        answers[i] = out
    return [answers[i] for i in range(len(positions))]


@pytest.mark.parametrize("preset", ["classic_jokers", "jokers2", "classic"])
def test_feasibility_answers_do_not_depend_on_earlier_queries(preset: str) -> None:
    positions = crowded_positions(preset, games=10, seed=7100)
    assert len(positions) >= 8
    cold = _answers(positions, reverse=False, cold=True)
    assert _answers(positions, reverse=False, cold=False) == cold
    assert _answers(positions, reverse=True, cold=False) == cold
    assert any(a is not None for per in cold for a in per)
    assert any(a is None for per in cold for a in per)
