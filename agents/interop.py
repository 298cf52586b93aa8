"""Any library's candidate-index policy as an arena :class:`~machiavelli_env.agents.base.Agent`.

A policy trained through :class:`machiavelli_env.wrappers.CandidatePlays` or
``SingleAgentEnv(candidates=limit)`` (SB3, Tianshou, TorchRL, RLlib, CleanRL) maps that
observation to an index (0 draws, ``i`` plays the ``i``-th candidate). :class:`CandidateAgent`
wraps such a function so it plays in :func:`machiavelli_env.agents.arena.evaluate` beside the
project's bots, and :func:`win_rate` is the seat-rotated win rate against one of them::

    agent = CandidateAgent(lambda obs: int(model.predict(obs, action_masks=obs["action_mask"])[0]),
                           limit=64)
    print(win_rate(agent, rules, "random", games=200, seed=1))

The other way round, :class:`AgentOpponent` seats any agent of the registry in
``SingleAgentEnv``, as the same player it is in ``machiavelli eval``::

    env = SingleAgentEnv("classic", candidates=32, opponents=AgentOpponent("hoarder"))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from machiavelli_env import game
from machiavelli_env.rules import Rules
from machiavelli_env.wrappers import candidate_observation

from .arena import evaluate, wilson_interval
from .base import DRAW, Agent, Turn, turn_from_state
from .registry import make_agent

__all__ = ["AgentOpponent", "CandidateAgent", "win_rate"]


class AgentOpponent:
    """An agent (or an agent name for :func:`~agents.registry.make_agent`) as an opponent of
    :class:`machiavelli_env.wrappers.SingleAgentEnv`: ``play(state, seat)`` hands the agent its
    own :class:`~agents.base.Turn` of the state (its hand and public information only), and
    ``reseed(seed)`` starts its next game as the env's reset does."""

    def __init__(self, agent: Agent | str, rules: Rules | None = None):
        self.agent = make_agent(agent, rules) if isinstance(agent, str) else agent
        if not isinstance(self.agent, Agent):
            raise TypeError(f"AgentOpponent needs an Agent or an agent name, got {agent!r}")

    def play(self, state: game.State, seat: int) -> np.ndarray:
        return np.asarray(self.agent.act(turn_from_state(state, seat)), dtype=np.int64)

    def reseed(self, seed: int) -> None:
        self.agent.reset(seed)

    def __repr__(self) -> str:
        return f"AgentOpponent({self.agent.name!r})"


class CandidateAgent(Agent):
    """``fn(observation) -> index`` as an agent; the observation is ``CandidatePlays``'s for this turn.

    ``limit``, ``flatten`` and ``observation_key`` must match the wrapper the policy was trained on.
    An index the mask does not allow raises ``ValueError`` (a policy should mask its choice).
    """

    def __init__(self, fn: Callable[[dict[str, np.ndarray]], Any], limit: int = 64, *, flatten: bool = False,
                 observation_key: str = "observation", name: str = "policy"):
        if not callable(fn):
            raise TypeError(f"fn must be callable, got {fn!r}")
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be a positive integer, got {limit!r}")
        self.fn, self.limit, self.flatten, self.observation_key = fn, limit, flatten, observation_key
        self.name = name

    def observe(self, turn: Turn) -> tuple[dict[str, np.ndarray], list[np.ndarray]]:
        """The wrapper's observation of ``turn`` and its candidate plays."""
        plays = turn.legal_plays_up_to(self.limit)
        obs = candidate_observation(turn.observation["observation"], plays, turn.rules, self.limit,
                                    turn.draw_allowed, flatten=self.flatten, observation_key=self.observation_key)
        if not obs["action_mask"].any():  # nothing allowed cannot happen in a live turn; keep the draw open
            obs["action_mask"][0] = 1
        return obs, plays

    def act(self, turn: Turn) -> np.ndarray:
        obs, plays = self.observe(turn)
        try:
            idx = int(np.asarray(self.fn(obs)).reshape(-1)[0])
        except (TypeError, ValueError, IndexError):
            raise ValueError(f"{self.name}: the policy must return one integer index") from None
        if not 0 <= idx <= self.limit or not obs["action_mask"][idx]:
            raise ValueError(f"{self.name}: index {idx} is not allowed (mask {obs['action_mask'].tolist()})")
        return DRAW.copy() if idx == 0 else plays[idx - 1].copy()


def win_rate(agent: Agent, rules: Rules, opponent: str = "random", games: int = 100, seed: int = 0) -> dict[str, Any]:
    """Seat-rotated games of ``agent`` against ``opponent`` bots in every other seat.

    ``{"opponent", "games", "wins", "win_rate", "ci95"}`` (95% Wilson interval); deterministic for a
    deterministic agent and a given seed.
    """
    others = [make_agent(opponent, rules, seed=seed + i) for i in range(1, rules.players)]
    limit = agent.limit if isinstance(agent, CandidateAgent) else 32
    res = evaluate([agent, *others], rules, games, seed, limit=limit)
    a = res["agents"][0]
    lo, hi = wilson_interval(a["wins"], res["games"])
    return {"opponent": opponent, "games": res["games"], "wins": a["wins"], "win_rate": a["wins"] / res["games"],
            "ci95": [round(lo, 4), round(hi, 4)]}
