"""Python side of the exact dynamic programme (the C extension ``_dp``).

``solve_bounds`` and ``best_by_card`` are the entry points used by
:mod:`machiavelli_env.oracle.api`; they take count vectors already known to be valid (53
non-negative integers within the pack). Per-suit transitions are cached inside the extension
across calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..rules import Rules
from . import _dp  # type: ignore[attr-defined]

if TYPE_CHECKING:
    from .api import Play

ACE_CODES = {"low": 0, "high": 1, "low_or_high": 2, "both_ends": 3, "wrap": 4}

_PARAMS: dict[int, tuple[Rules, tuple[int, int, int, int]]] = {}


def rules_params(rules: Rules) -> tuple[int, int, int, int]:
    """(ace code, max jokers per meld, decks, jokers) of a rules value, as the extension takes them."""
    hit = _PARAMS.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    params = (ACE_CODES[rules.ace], rules.max_jokers_per_meld, rules.decks, rules.jokers)
    if len(_PARAMS) > 256:
        _PARAMS.clear()
    _PARAMS[id(rules)] = (rules, params)
    return params


def raw_solve(lo: np.ndarray, hi: np.ndarray, weights: np.ndarray, rules: Rules, need_group: bool, min_open: int):
    """The extension's answer: ``None``, ``(value, counts, melds)`` with ``counts`` = ``x - lo`` as
    53 int64 in a bytearray, or an int error code (1: lo > hi, 2: more copies than the pack, 3: a
    negative count or weight)."""
    ace, mjpm, decks, jokers = rules_params(rules)
    return _dp.solve(lo, hi, weights, ace, mjpm, int(need_group), int(min_open), decks, jokers)


def raw_best(table: np.ndarray, hand: np.ndarray, weights: np.ndarray, rules: Rules):
    """``raw_solve`` with ``lo = table`` and ``hi = table + hand`` (the sum taken in the extension)."""
    ace, mjpm, decks, jokers = rules_params(rules)
    return _dp.best(table, hand, weights, ace, mjpm, decks, jokers)


def raw_by_card(
    lo: np.ndarray, hi: np.ndarray, weights: np.ndarray, rules: Rules, need_group: bool, min_open: int, melds: bool
):
    """The extension's best-play-per-card answer: ``None`` (nothing feasible), an int error code,
    or ``{card: (value, counts, melds or None)}`` (counts as in :func:`raw_solve`)."""
    ace, mjpm, decks, jokers = rules_params(rules)
    return _dp.by_card(lo, hi, weights, ace, mjpm, int(need_group), int(min_open), decks, jokers, int(melds))


def solve_bounds(
    lo: np.ndarray,
    hi: np.ndarray,
    weights: np.ndarray,
    rules: Rules,
    *,
    need_group: bool = False,
    min_open_points: int = 0,
) -> Play | None:
    """Best ``x`` in ``[lo, hi]`` partitioning into valid melds (see ``api.solve``); ``None`` if none."""
    from .api import Play, _raise_code

    res = raw_solve(lo, hi, weights, rules, need_group, min_open_points)
    if res is None:
        return None
    if isinstance(res, int):
        _raise_code(res, lo, hi, weights, rules)
    value, counts, melds = res
    return Play(np.frombuffer(counts, dtype=np.int64), value, melds)


def stats() -> dict[str, int]:
    """Sizes of the last search (``last_states`` forward entries, ``last_nodes`` depth-first nodes,
    ``last_method`` 1 forward / 2 depth-first) and of the transition cache."""
    return dict(_dp.stats())
