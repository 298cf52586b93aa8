"""The public oracle: repack, best_play, opening plays and playable cards.

Everything reduces to one bounded question, answered by the exact dynamic programme in
:mod:`machiavelli_env.oracle.dp`: choose counts ``lo <= x <= hi`` (per card type) maximising
``sum(weights * (x - lo))`` such that the multiset ``x`` partitions into valid melds
(optionally: with at least one group, or worth at least N opening points).
``repack`` is ``lo = hi = table + play``; ``best_play`` is ``lo = table, hi = table + hand``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..cards import CARD_TYPES, NUM_TYPES, as_counts
from ..rules import Rules

Counts = Sequence[int] | np.ndarray
OBJECTIVES = ("cards", "points")


@dataclass(frozen=True)
class Play:
    """An optimal play: the cards taken from the hand, its objective value and the new table."""

    counts: np.ndarray  # (53,) int64, the cards played from hand
    value: int
    melds: list[list[int]] = field(default_factory=list)  # arrangement of table + play

    @property
    def cards(self) -> list[int]:
        """The played card types, sorted."""
        return [c for c in range(NUM_TYPES) for _ in range(int(self.counts[c]))]

    @property
    def size(self) -> int:
        """Number of cards played."""
        return int(self.counts.sum())


class OracleError(ValueError):
    """Bad input to the oracle (wrong shapes, negative counts, more copies than the pack holds)."""


def objective_weights(objective: str, rules: Rules) -> np.ndarray:
    """Per-card-type weights of an objective: ``cards`` (1 each) or ``points`` (hand points)."""
    if objective == "cards":
        return np.ones(NUM_TYPES, dtype=np.int64)
    if objective == "points":
        return np.array([rules.card_points(c) for c in range(NUM_TYPES)], dtype=np.int64)
    raise OracleError(f"unknown objective {objective!r}; use 'cards' or 'points'")


def _check(counts: Counts, name: str, rules: Rules) -> np.ndarray:
    try:
        arr = as_counts(counts, name)
    except ValueError as exc:
        raise OracleError(str(exc)) from None
    return arr


def _check_pack(total: np.ndarray, rules: Rules, what: str) -> None:
    limits = np.array([rules.copies(c) for c in range(NUM_TYPES)])
    over = np.flatnonzero(total > limits)
    if over.size:
        names = ", ".join(f"{CARD_TYPES[c]} x{int(total[c])}" for c in over)
        raise OracleError(
            f"{what} hold more copies than the pack has ({rules.decks} decks, {rules.jokers} jokers): {names}"
        )


def solve(
    lo: Counts,
    hi: Counts,
    weights: Counts,
    rules: Rules,
    *,
    need_group: bool = False,
    min_open_points: int = 0,
) -> Play | None:
    """Best ``x`` with ``lo <= x <= hi`` that partitions into valid melds; ``None`` if none exists.

    ``Play.counts`` is ``x - lo`` and ``Play.value`` is ``weights @ (x - lo)``. ``need_group``
    asks for an arrangement holding at least one group; ``min_open_points`` for melds worth at
    least that many opening points (A = 1, J/Q/K = 10, a joker worth the card it stands for).
    """
    from . import dp

    lo_a = _check(lo, "lo", rules)
    hi_a = _check(hi, "hi", rules)
    if (lo_a > hi_a).any():
        bad = ", ".join(CARD_TYPES[c] for c in np.flatnonzero(lo_a > hi_a))
        raise OracleError(f"lower bounds exceed upper bounds for {bad}")
    _check_pack(hi_a, rules, "the cards")
    w = np.asarray(weights, dtype=np.int64)
    if w.shape != (NUM_TYPES,) or (w < 0).any():
        raise OracleError("weights must be 53 non-negative integers")
    return dp.solve_bounds(lo_a, hi_a, w, rules, need_group=need_group, min_open_points=min_open_points)


def repack(table: Counts, play: Counts, rules: Rules) -> list[list[int]] | None:
    """An arrangement of ``table + play`` into valid melds, or ``None`` if there is none."""
    total = _check(table, "table", rules) + _check(play, "play", rules)
    res = solve(total, total, np.zeros(NUM_TYPES, dtype=np.int64), rules)
    return None if res is None else res.melds


def best_play(table: Counts, hand: Counts, rules: Rules, objective: str = "cards") -> Play:
    """An optimal play from ``hand`` onto ``table`` (value 0 and no cards when nothing can be played).

    Raises :class:`OracleError` when the table itself cannot be arranged into valid melds.
    """
    t = _check(table, "table", rules)
    h = _check(hand, "hand", rules)
    res = solve(t, t + h, objective_weights(objective, rules), rules)
    if res is None:
        raise OracleError("the table cannot be arranged into valid melds")
    return res


def best_play_containing(table: Counts, hand: Counts, card: int, rules: Rules, objective: str = "cards") -> Play | None:
    """An optimal play that holds at least one copy of ``card`` from the hand, or ``None``."""
    t = _check(table, "table", rules)
    h = _check(hand, "hand", rules)
    if h[card] == 0:
        return None
    lo = t.copy()
    lo[card] += 1
    res = solve(lo, t + h, objective_weights(objective, rules), rules)
    if res is None:
        return None
    counts = res.counts.copy()
    counts[card] += 1
    w = objective_weights(objective, rules)
    return Play(counts, int(w @ counts), res.melds)


def opening_play(hand: Counts, rules: Rules, objective: str = "cards") -> Play | None:
    """The best first lay-down from the hand alone (table untouched) meeting ``rules.opening``.

    ``None`` when no such play exists (with ``opening: none``, when no meld can be formed).
    """
    h = _check(hand, "hand", rules)
    zero = np.zeros(NUM_TYPES, dtype=np.int64)
    res = solve(
        zero, h, objective_weights(objective, rules), rules,
        need_group=rules.opening == "group", min_open_points=rules.opening_points,
    )
    if res is None or res.size == 0:
        return None
    return res


def playable_cards(table: Counts, hand: Counts, rules: Rules) -> np.ndarray:
    """Boolean (53,) mask: hand card types that take part in at least one legal play."""
    t = _check(table, "table", rules)
    h = _check(hand, "hand", rules)
    out = np.zeros(NUM_TYPES, dtype=bool)
    best = best_play(t, h, rules)
    out |= best.counts > 0
    for c in np.flatnonzero((h > 0) & ~out):
        res = best_play_containing(t, h, int(c), rules)
        if res is not None:
            out |= res.counts > 0
    return out
