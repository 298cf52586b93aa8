"""Feasibility questions keep the per-suit relaxation across queries: the answers must not depend on
what was asked before (a warm cache, a cold one, another order)."""

from __future__ import annotations

import numpy as np
import pytest
from machiavelli_env.agents.base import turn_from_state
from machiavelli_env.agents.registry import make_agent

from machiavelli_env import game
from machiavelli_env.oracle import _dp
from machiavelli_env.oracle import api as oracle
from machiavelli_env.rules import Rules


def _positions(preset: str, games: int, every: int) -> list[tuple[np.ndarray, np.ndarray, Rules]]:
    """(table, hand) of every `every`-th turn of seeded greedy-against-random games with a crowded
    table and a big hand (the greedy seat fills the table, the random one mostly draws): where the
    depth-first search and its relaxation answer."""
    rules = Rules.load(preset)
    agents = [make_agent("greedy" if i == 0 else "random", rules, seed=i) for i in range(rules.players)]
    out = []
    for g in range(games):
        state = game.new_game(rules, 7100 + g)
        n = 0
        while not state.done:
            turn = turn_from_state(state, state.current)
            if n % every == 0 and state.table.sum() >= 30 and turn.hand.sum() >= 8:
                out.append((state.table.copy(), turn.hand.copy(), rules))
            state = game.step(state, np.asarray(agents[state.current].act(turn), dtype=np.int64))
            n += 1
    return out


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
    positions = _positions(preset, games=10, every=1)
    assert len(positions) >= 8
    cold = _answers(positions, reverse=False, cold=True)
    assert _answers(positions, reverse=False, cold=False) == cold
    assert _answers(positions, reverse=True, cold=False) == cold
    assert any(a is not None for per in cold for a in per)
    assert any(a is None for per in cold for a in per)
