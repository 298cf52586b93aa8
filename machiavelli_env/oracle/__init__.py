"""The exact table-repacking oracle (see :mod:`machiavelli_env.oracle.api`)."""

from .api import (
    OBJECTIVES,
    OracleError,
    Play,
    WorkLimitReached,
    best_play,
    best_play_containing,
    best_plays_by_card,
    best_plays_by_card_within,
    feasible_within,
    objective_weights,
    opening_play,
    playable_cards,
    repack,
    search_work,
    solve,
    solve_within,
)

__all__ = [
    "OBJECTIVES",
    "OracleError",
    "Play",
    "WorkLimitReached",
    "best_play",
    "best_play_containing",
    "best_plays_by_card",
    "best_plays_by_card_within",
    "feasible_within",
    "objective_weights",
    "opening_play",
    "playable_cards",
    "repack",
    "search_work",
    "solve",
    "solve_within",
]
