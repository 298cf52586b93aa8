"""The exact table-repacking oracle (see :mod:`machiavelli_env.oracle.api`)."""

from .api import (
    OBJECTIVES,
    OracleError,
    Play,
    best_play,
    best_play_containing,
    best_plays_by_card,
    objective_weights,
    opening_play,
    playable_cards,
    repack,
    solve,
)

__all__ = [
    "OBJECTIVES",
    "OracleError",
    "Play",
    "best_play",
    "best_play_containing",
    "best_plays_by_card",
    "objective_weights",
    "opening_play",
    "playable_cards",
    "repack",
    "solve",
]
