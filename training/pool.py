"""The opponent pool of self-play training and its sampling schedule.

Every training game seats the learner in a random seat; each other seat draws its own opponent,
independently, when the game is dealt:

1. with probability ``self_play(u)`` a **policy** opponent, else a **heuristic bot** drawn by the
   weights of ``pool.heuristics`` (e.g. ``{random: 1, greedy: 1}``);
2. a policy opponent is the **latest** policy (the learner's current weights, sampling its moves)
   with probability ``pool.latest``, else a **snapshot** drawn uniformly from the past snapshots
   (one is taken every ``pool.snapshot_every`` updates; the ``pool.max_snapshots`` most recent are
   kept). Before the first snapshot exists, "snapshot" falls back to the latest policy.

``self_play(u)`` rises linearly from ``pool.self_play[0]`` at the first update to
``pool.self_play[1]`` at the last, so training starts against the bots and mixes in self-play as
the policy improves. Bots never leave the pool, which keeps the policy from forgetting how to beat
them (the usual failure of pure self-play).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

LATEST = "latest"
SNAPSHOT = "snapshot:"


def self_play_prob(schedule: Sequence[float], update: int, updates: int) -> float:
    """Probability that an opponent seat is a policy at ``update`` (0-based) of ``updates``."""
    start, end = float(schedule[0]), float(schedule[1])
    frac = update / max(updates - 1, 1)
    return start + (end - start) * min(max(frac, 0.0), 1.0)


def sample_opponent(
    rng: np.random.Generator,
    heuristics: Mapping[str, float],
    p_policy: float,
    latest: float,
    snapshots: Sequence[int],
) -> str:
    """One opponent key: a bot name, ``"latest"``, or ``"snapshot:ID"`` (see the module docstring)."""
    if rng.random() < p_policy:
        if not snapshots or rng.random() < latest:
            return LATEST
        return f"{SNAPSHOT}{int(snapshots[int(rng.integers(len(snapshots)))])}"
    names = sorted(heuristics)
    w = np.array([float(heuristics[n]) for n in names])
    return names[int(rng.choice(len(names), p=w / w.sum()))]


def kind_of(key: str) -> str:
    """The opponent's kind for statistics: the bot name, ``latest`` or ``snapshot``."""
    return "snapshot" if key.startswith(SNAPSHOT) else key
