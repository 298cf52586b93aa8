"""Python side of the exact dynamic programme (the C extension ``_dp``).

``solve_bounds`` is the single entry point used by :mod:`machiavelli_env.oracle.api`; it takes
validated count vectors. Per-suit transitions are cached inside the extension across calls.
"""

from __future__ import annotations

import numpy as np

from ..rules import Rules
from . import _dp  # type: ignore[attr-defined]

ACE_CODES = {"low": 0, "high": 1, "low_or_high": 2, "both_ends": 3, "wrap": 4}


def solve_bounds(
    lo: np.ndarray,
    hi: np.ndarray,
    weights: np.ndarray,
    rules: Rules,
    *,
    need_group: bool = False,
    min_open_points: int = 0,
):
    """Best ``x`` in ``[lo, hi]`` partitioning into valid melds (see ``api.solve``); ``None`` if none."""
    from .api import Play

    hi_eff = hi if rules.jokers else _without_jokers(hi)
    if lo[52] > hi_eff[52]:
        return None
    res = _dp.solve(
        lo.astype(np.uint8).tobytes(),
        hi_eff.astype(np.uint8).tobytes(),
        weights.astype(np.int32).tobytes(),
        ACE_CODES[rules.ace],
        rules.max_jokers_per_meld,
        int(need_group),
        int(min(min_open_points, 127)),
    )
    if res is None:
        return None
    value, x_bytes, melds = res
    x = np.frombuffer(x_bytes, dtype=np.uint8).astype(np.int64)
    return Play(x - lo, int(value), melds)


def _without_jokers(hi: np.ndarray) -> np.ndarray:
    out = hi.copy()
    out[52] = 0
    return out


def stats() -> dict[str, int]:
    """Sizes of the last DP (``last_states``) and of the transition cache."""
    return dict(_dp.stats())
