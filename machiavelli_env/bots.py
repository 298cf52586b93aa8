"""The two reference bots, ``random`` and ``greedy``, as one rule each.

Every place that names them plays these rules: the agents ``random`` and ``greedy``
(:mod:`agents.heuristic`, what ``machiavelli eval``, ``league``, ``win_rate`` and BENCHMARK.md
use) and the opponents ``"random"`` and ``"greedy"`` of :class:`machiavelli_env.wrappers.SingleAgentEnv`
(``gymnasium.make("MachiavelliCandidates-v1", opponents=...)``).

* ``random``: uniform over the first :data:`RANDOM_LIMIT` exact legal plays (most cards first, then
  most points; :func:`machiavelli_env.legal.legal_plays`) and drawing, when drawing is allowed;
  drawing is the last option.
* ``greedy``: the oracle's play of the most cards (ties: most points); when there is none, draws,
  or (drawing not allowed) plays the first legal play.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from . import game
from .cards import NUM_TYPES

#: The number of legal plays ``random`` chooses among (with drawing), whatever the caller lists.
RANDOM_LIMIT = 32


def _draw() -> np.ndarray:
    return np.zeros(NUM_TYPES, dtype=np.int64)


def random_choice(plays: Sequence[np.ndarray], draw_allowed: bool, rng: np.random.Generator) -> np.ndarray:
    """``random``'s rule: one of ``plays`` or drawing (when allowed), uniformly, from one draw of ``rng``."""
    options = len(plays) + (1 if draw_allowed else 0)
    if options == 0:
        return _draw()
    k = int(rng.integers(options))
    return np.array(plays[k], dtype=np.int64) if k < len(plays) else _draw()


def greedy_choice(
    best: np.ndarray, draw_allowed: bool, legal_plays: Callable[[], Sequence[np.ndarray]]
) -> np.ndarray:
    """``greedy``'s rule: ``best`` (the oracle's max-cards play) when it plays a card, else drawing,
    else the first of ``legal_plays()`` (listed only then)."""
    if np.asarray(best).any():
        return np.array(best, dtype=np.int64)
    plays = [] if draw_allowed else legal_plays()
    return np.array(plays[0], dtype=np.int64) if plays else _draw()


def random_play(state: game.State, seat: int, rng: np.random.Generator) -> np.ndarray:
    """``random``'s action for ``seat`` in an engine state."""
    plays = game.legal_plays(state, seat, RANDOM_LIMIT)
    return random_choice(plays, game.draw_allowed(state, seat), rng)


def greedy_play(state: game.State, seat: int) -> np.ndarray:
    """``greedy``'s action for ``seat`` in an engine state."""
    return greedy_choice(game.best_play(state, seat, "cards"), game.draw_allowed(state, seat),
                         lambda: game.legal_plays(state, seat, RANDOM_LIMIT))
