"""The exact table-repacking oracle: the public functions of :mod:`machiavelli_env.oracle.api`.

Its modules, each opening with what it owns, from the bottom up: ``result`` (the answer type and
errors), ``question`` (what is asked, and its budget), ``dp`` (each call into the C extension),
``lp`` (the LP relaxation), ``ilp`` (the integer programme), ``pipeline`` (the stages that answer a
question, in order) and ``api`` (the public functions).
"""

from .api import (
    OBJECTIVES,
    OracleError,
    Play,
    WorkLimitReached,
    best_play,
    best_play_containing,
    best_play_then_ilp,
    best_play_within,
    best_plays_by_card,
    best_plays_by_card_within,
    feasible_within,
    objective_weights,
    opening_play,
    playable_cards,
    repack,
    search_work,
    solve,
    solve_then_ilp,
    solve_within,
)

__all__ = [
    "OBJECTIVES",
    "OracleError",
    "Play",
    "WorkLimitReached",
    "best_play",
    "best_play_containing",
    "best_play_then_ilp",
    "best_play_within",
    "best_plays_by_card",
    "best_plays_by_card_within",
    "feasible_within",
    "objective_weights",
    "opening_play",
    "playable_cards",
    "repack",
    "search_work",
    "solve",
    "solve_then_ilp",
    "solve_within",
]
