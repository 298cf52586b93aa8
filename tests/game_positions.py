"""Test helper: (table, hand) positions from seeded games of the greedy bot against another bot."""

from __future__ import annotations

import numpy as np
from machiavelli_env.agents.base import turn_from_state
from machiavelli_env.agents.registry import make_agent

from machiavelli_env import game
from machiavelli_env.rules import Rules


def crowded_positions(
    preset: str, games: int, *, seed: int, other: str = "random[exact_lists=0]", every: int = 1, min_table: int = 30
) -> list[tuple[np.ndarray, np.ndarray, Rules]]:
    """(table, hand, rules) of every `every`-th turn of `games` games (deal seeds `seed`, `seed` + 1,
    ...) of greedy in seat 0 against `other` elsewhere, once the table holds at least `min_table`
    cards and the hand at least 8: the greedy seat fills the table, random on bounded lists draws
    often and hoarder keeps its cards, so these are crowded tables and big hands."""
    rules = Rules.load(preset)
    agents = [make_agent("greedy" if i == 0 else other, rules, seed=i) for i in range(rules.players)]
    out = []
    for g in range(games):
        state = game.new_game(rules, seed + g)
        n = 0
        while not state.done:
            turn = turn_from_state(state, state.current)
            if n % every == 0 and state.table.sum() >= min_table and turn.hand.sum() >= 8:
                out.append((state.table.copy(), turn.hand.copy(), rules))
            state = game.step(state, np.asarray(agents[state.current].act(turn), dtype=np.int64))
            n += 1
    return out


def big_hand_positions(
    preset: str, games: int, *, seed: int, extra: int = 10, every: int = 4, min_table: int = 12
) -> list[tuple[np.ndarray, np.ndarray, Rules]]:
    """:func:`crowded_positions` (against random) with ``extra`` more unseen cards dealt into each
    hand (seeded): the big hands of a policy that keeps its cards, whose legal-play lists are full."""
    rng = np.random.default_rng(seed)
    out = []
    for table, hand, rules in crowded_positions(preset, games, seed=seed, every=every, min_table=min_table):
        unseen = np.array([rules.copies(c) for c in range(len(hand))], dtype=np.int64) - table - hand
        pool = np.repeat(np.arange(len(hand)), np.maximum(unseen, 0))
        drawn = rng.choice(pool, size=min(extra, len(pool)), replace=False)
        out.append((table, hand + np.bincount(drawn, minlength=len(hand)), rules))
    return out
