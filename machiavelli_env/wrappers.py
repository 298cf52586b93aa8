"""Wrappers: candidate-play actions (AEC) and a single-agent Gymnasium environment.

* :class:`CandidatePlays` turns the MultiDiscrete card-count action into ``Discrete(limit + 1)``:
  0 draws, ``i`` plays the ``i``-th of :func:`machiavelli_env.legal.legal_plays` (``limit`` of
  them at most, most cards first). The observation gains the candidates' cards and a flat mask:
  ``{"observation": (869,), "candidates": float32 (limit, 53) (counts / copies, zero rows
  padding), "action_mask": int8 (limit + 1,)}``. Still an AEC environment (masked-PPO ready).
* :class:`SingleAgentEnv` is a ``gymnasium.Env`` with one learning seat; the other seats are
  played by policies ``callable(observation, legal_plays) -> action`` (an action vector, or an int
  indexing ``[draw] + legal_plays``, or ``None`` to draw). With ``candidates=limit`` its action
  space is ``Discrete(limit + 1)`` as above, otherwise the MultiDiscrete card counts with a flat
  ``MultiBinary(sum(nvec))`` mask; :meth:`SingleAgentEnv.action_masks` serves sb3-contrib's
  MaskablePPO. Because Gymnasium samplers ignore masks, an action outside the mask is coerced
  (an index without a candidate becomes a draw, or the first candidate when drawing is not
  allowed; counts are clipped to what may be named) unless ``strict=True``, which raises.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from . import game, observation
from .cards import NUM_TYPES
from .render import render_text
from .rules import Rules

Policy = Callable[[dict[str, Any], list[np.ndarray]], Any]

__all__ = ["CandidatePlays", "GreedyPolicy", "RandomPolicy", "SingleAgentEnv", "candidate_tensor"]


def candidate_tensor(plays: Sequence[np.ndarray], rules: Rules, limit: int) -> np.ndarray:
    """``(limit, 53)`` float32: each candidate's counts divided by the copies in the pack."""
    out = np.zeros((limit, NUM_TYPES), dtype=np.float32)
    norm = 1.0 / np.maximum(game.pack_counts(rules), 1)
    for i, x in enumerate(plays[:limit]):
        out[i] = x * norm
    return out


def _candidate_space(limit: int) -> spaces.Dict:
    return spaces.Dict({
        "observation": observation.vector_space(),
        "candidates": spaces.Box(0.0, 1.0, (limit, NUM_TYPES), dtype=np.float32),
        "action_mask": spaces.Box(0, 1, (limit + 1,), dtype=np.int8),
    })


def _draw_allowed(obs_vector: np.ndarray) -> bool:
    return bool(obs_vector[observation.OFF_DRAW_ALLOWED] > 0.5)


class CandidatePlays(BaseWrapper):
    """``Discrete(limit + 1)`` actions over the legal plays (0 = draw); see the module docstring.

    For the agent to move the mask allows the draw (unless ``must_play_if_able`` forbids it) and
    every listed candidate; for the other agents, and once the game is over, it is all zeros.
    """

    def __init__(self, env: AECEnv, limit: int = 64):
        super().__init__(env)
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        self.limit = int(limit)
        agents = self.env.unwrapped.possible_agents
        self._obs_spaces = {a: _candidate_space(self.limit) for a in agents}
        self._act_spaces = {a: spaces.Discrete(self.limit + 1) for a in agents}
        self._cache: tuple[Any, str, list[np.ndarray]] = (None, "", [])

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_spaces[agent]

    def candidates(self, agent: str | None = None) -> list[np.ndarray]:
        """The current candidate plays of ``agent`` (default: the agent to move)."""
        base = self.env.unwrapped
        agent = base.agent_selection if agent is None else agent
        state = base.game_state
        if self._cache[0] is state and self._cache[1] == agent:
            return self._cache[2]
        plays = base.legal_plays(agent, limit=self.limit)
        self._cache = (state, agent, plays)
        return plays

    def observe(self, agent: str) -> dict[str, Any]:
        raw = self.env.observe(agent)
        base = self.env.unwrapped
        mask = np.zeros(self.limit + 1, dtype=np.int8)
        state = base.game_state
        if agent == base.agent_selection and not state.done:
            plays = self.candidates(agent)
            mask[0] = _draw_allowed(raw["observation"])
            mask[1:1 + len(plays)] = 1
        else:
            plays = []
        return {"observation": raw["observation"], "candidates": candidate_tensor(plays, base.rules, self.limit),
                "action_mask": mask}

    def decode(self, action: Any, agent: str | None = None) -> np.ndarray:
        """The card-count vector of a candidate index (``ValueError`` when it names no candidate)."""
        try:
            idx = int(np.asarray(action).item())
        except (TypeError, ValueError):
            raise ValueError(f"action must be an integer index 0..{self.limit}, got {action!r}") from None
        if idx == 0:
            return np.zeros(NUM_TYPES, dtype=np.int64)
        plays = self.candidates(agent)
        if not 1 <= idx <= len(plays):
            raise ValueError(f"action {idx} names no candidate play ({len(plays)} candidates; 0 draws)")
        return plays[idx - 1].copy()

    def step(self, action: Any) -> None:
        base = self.env.unwrapped
        agent = base.agent_selection
        if base.terminations.get(agent) or base.truncations.get(agent):
            self.env.step(action)
            return
        self.env.step(self.decode(action, agent))


# ---------------------------------------------------------------------------------------------- policies
class RandomPolicy:
    """Uniformly random among the draw (when allowed) and the given legal plays."""

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: dict[str, Any], legal_plays: list[np.ndarray]) -> Any:
        options = ([None] if _draw_allowed(obs["observation"]) else []) + list(legal_plays)
        if not options:
            return None
        return options[int(self.rng.integers(len(options)))]


class GreedyPolicy:
    """Plays the first legal play (the most cards), else draws."""

    def __call__(self, obs: dict[str, Any], legal_plays: list[np.ndarray]) -> Any:
        return legal_plays[0] if legal_plays else None


# ---------------------------------------------------------------------------------------------- single agent
class SingleAgentEnv(gymnasium.Env):
    """One learning seat against policy opponents, as a ``gymnasium.Env`` (see the module docstring).

    ``opponents``: one policy per other seat (in seat order), or a single policy for all; default
    :class:`RandomPolicy` (reseeded from the environment's seed on every reset, as is any policy
    with a ``reseed(int)`` method). Rewards are the learner's engine rewards summed over its move
    and the opponents' moves that follow. If a deal ends before the learner moves, reset re-deals.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        rules: str | Rules | dict | None = "classic",
        learner: str = "player_0",
        opponents: Policy | Sequence[Policy] | None = None,
        candidates: int | None = None,
        render_mode: str | None = None,
        strict: bool = False,
        opponent_limit: int = 64,
        **rule_overrides: Any,
    ):
        self.rules = Rules.load(rules, **rule_overrides)
        n = self.rules.players
        agents = [f"player_{i}" for i in range(n)]
        if learner not in agents:
            raise ValueError(f"unknown learner {learner!r}; agents are {', '.join(agents)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None")
        self.learner = learner
        self.seat = agents.index(learner)
        others = [q for q in range(n) if q != self.seat]
        if opponents is None:
            pols: list[Policy] = [RandomPolicy() for _ in others]
        elif callable(opponents):
            pols = [opponents] * len(others)
        else:
            pols = list(opponents)
            if len(pols) != len(others):
                raise ValueError(f"expected {len(others)} opponent policies, got {len(pols)}")
        self.opponents = dict(zip(others, pols, strict=True))
        self.candidates = candidates
        self.strict = strict
        self.opponent_limit = opponent_limit
        self.render_mode = render_mode
        self.nvec = observation.action_nvec(self.rules)
        if candidates is not None:
            if candidates < 1:
                raise ValueError(f"candidates must be at least 1, got {candidates}")
            self.action_space = spaces.Discrete(candidates + 1)
            self.observation_space = _candidate_space(candidates)
        else:
            self.action_space = observation.action_space(self.rules)
            self.observation_space = spaces.Dict({
                "observation": observation.vector_space(),
                "action_mask": spaces.MultiBinary(int(self.nvec.sum())),
            })
        self.state: game.State | None = None
        self._plays: list[np.ndarray] = []

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        for pol in self.opponents.values():
            if hasattr(pol, "reseed"):
                pol.reseed(int(self.np_random.integers(0, 2**63 - 1)))
        for _ in range(100):
            self.state = game.new_game(self.rules, int(self.np_random.integers(0, 2**63 - 1)))
            self._advance()
            if not self.state.done:
                break
        return self._observe(), self._info()

    def step(self, action: Any):
        s = self._require()
        if s.done:
            raise RuntimeError("the episode is over; call reset()")
        vec = self._decode(action)
        self.state = game.step(s, vec)
        reward = float(self.state.rewards[self.seat])
        reward += self._advance()
        s = self.state
        obs = self._observe()
        if self.render_mode == "human":
            self.render()
        return obs, reward, bool(s.done and not s.truncated), bool(s.truncated), self._info()

    def render(self) -> str | None:
        if self.state is None or self.render_mode is None:
            return None
        text = render_text(self.state, color=True)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the valid actions (for sb3-contrib MaskablePPO)."""
        return self._mask().astype(bool)

    # ------------------------------------------------------------------ helpers
    def _require(self) -> game.State:
        if self.state is None:
            raise RuntimeError("call reset() first")
        return self.state

    def legal_plays(self) -> list[np.ndarray]:
        """The learner's current candidate plays (legal plays, ``candidates`` or 64 at most)."""
        s = self._require()
        if s.done or s.current != self.seat:
            return []
        return game.legal_plays(s, self.seat, self.candidates or 64)

    def _advance(self) -> float:
        """Let the opponents move until the learner is to move or the game is over."""
        reward = 0.0
        s = self._require()
        while not s.done and s.current != self.seat:
            q = s.current
            obs = observation.observe(s, q)
            plays = game.legal_plays(s, q, self.opponent_limit)
            s = game.step(s, _policy_action(self.opponents[q](obs, plays), plays))
            reward += float(s.rewards[self.seat])
        self.state = s
        self._plays = self.legal_plays() if self.candidates is not None else []
        return reward

    def _draw_ok(self) -> bool:
        s = self._require()
        return s.done or game.draw_allowed(s, self.seat)

    def _mask(self) -> np.ndarray:
        s = self._require()
        if self.candidates is not None:
            mask = np.zeros(self.candidates + 1, dtype=np.int8)
            mask[0] = 1 if s.done else int(self._draw_ok())
            mask[1:1 + len(self._plays)] = 1
            if not mask.any():
                mask[0] = 1
            return mask
        allowed = game.allowed_counts(s, self.seat) if not s.done else np.zeros(NUM_TYPES, dtype=np.int64)
        return np.concatenate([(np.arange(int(k)) <= allowed[i]).astype(np.int8) for i, k in enumerate(self.nvec)])

    def _observe(self) -> dict[str, Any]:
        s = self._require()
        vec = observation.observation_vector(s, self.seat)
        if self.candidates is not None:
            return {"observation": vec, "candidates": candidate_tensor(self._plays, self.rules, self.candidates),
                    "action_mask": self._mask()}
        return {"observation": vec, "action_mask": self._mask()}

    def _info(self) -> dict[str, Any]:
        s = self._require()
        return {"event": s.event, "turn": s.turn, "result": s.result}

    def _decode(self, action: Any) -> np.ndarray:
        s = self._require()
        if self.candidates is not None:
            try:
                idx = int(np.asarray(action).item())
            except (TypeError, ValueError):
                raise ValueError(f"action must be an integer index 0..{self.candidates}, got {action!r}") from None
            mask = self._mask()
            if 0 <= idx < mask.size and mask[idx]:
                return np.zeros(NUM_TYPES, dtype=np.int64) if idx == 0 else self._plays[idx - 1].copy()
            if self.strict:
                raise ValueError(f"action {idx} is not allowed now (mask {mask.tolist()})")
            return np.zeros(NUM_TYPES, dtype=np.int64) if mask[0] else self._plays[0].copy()
        arr = np.asarray(action)
        if self.strict:
            game.check_action(s, arr)
            return arr.astype(np.int64)
        if arr.shape != (NUM_TYPES,):
            raise ValueError(f"action must have shape ({NUM_TYPES},), got {arr.shape}")
        vec = np.clip(np.rint(arr).astype(np.int64), 0, game.allowed_counts(s, self.seat))
        if not vec.any() and not self._draw_ok():
            vec = game.legal_plays(s, self.seat, 1)[0]
        return vec


def _policy_action(action: Any, plays: list[np.ndarray]) -> np.ndarray:
    """Normalise a policy's output (vector, index into ``[draw] + plays``, or ``None``) to a vector."""
    if action is None:
        return np.zeros(NUM_TYPES, dtype=np.int64)
    if isinstance(action, (int, np.integer)):
        return np.zeros(NUM_TYPES, dtype=np.int64) if action == 0 else np.asarray(plays[int(action) - 1])
    return np.asarray(action)
