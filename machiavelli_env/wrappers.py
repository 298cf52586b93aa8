"""Wrappers: candidate-play actions (AEC) and a single-agent Gymnasium environment.

* :class:`CandidatePlays` turns the MultiDiscrete card-count action into ``Discrete(limit + 1)``:
  0 draws, ``i`` plays the ``i``-th of :func:`machiavelli_env.legal.legal_plays` (``limit`` of
  them at most, most cards first). The observation gains the candidates' cards and a flat mask:
  ``{"observation": (869,), "candidates": float32 (limit, 53) (counts / copies, zero rows
  padding), "action_mask": int8 (limit + 1,)}``. Still an AEC environment (masked-PPO ready).
  With ``flatten=True`` the candidates are folded into the observation vector,
  ``{"observation": float32 (869 + limit * 53,), "action_mask": int8 (limit + 1,)}``, for
  libraries that pass only ``obs["observation"]`` to the network (Tianshou's ``PettingZooEnv``,
  RLlib's action-masking module, which wants the key ``observation_key="observations"``).
  ``invalid_action="draw"`` turns an index that names no
  candidate into a draw (the first candidate when drawing is not allowed) instead of a
  ``ValueError``.
* :class:`SingleAgentEnv` is a ``gymnasium.Env`` with one learning seat; the other seats are
  played by the bots ``"random"`` and ``"greedy"`` (:mod:`machiavelli_env.bots`: the same players
  as the agents of those names in ``machiavelli eval``), or by policies
  ``callable(observation, legal_plays) -> action`` (an action vector, or an int indexing
  ``[draw] + legal_plays``, or ``None`` to draw). With ``candidates=limit`` its action
  space is ``Discrete(limit + 1)`` as above, otherwise the MultiDiscrete card counts with a flat
  ``MultiBinary(sum(nvec))`` mask; :meth:`SingleAgentEnv.action_masks` serves sb3-contrib's
  MaskablePPO. Because Gymnasium samplers ignore masks, an action outside the mask is coerced
  (an index without a candidate becomes a draw, or the first candidate when drawing is not
  allowed; counts are clipped to what may be named) unless ``strict=True``, which raises.
  ``numeric_info=True`` gives infos of numbers only (event and result as codes of
  :data:`machiavelli_env.observation.EVENT_NAMES` / ``RESULT_NAMES``). It can be built from one
  config mapping, ``SingleAgentEnv({"candidates": 64, "players": 3, "opponents": "greedy"})``
  (RLlib calls ``cls(env_config)``; see :meth:`SingleAgentEnv.from_config`), and is registered
  with Gymnasium as ``Machiavelli-v1`` (card counts) and ``MachiavelliCandidates-v1``
  (``candidates=64``).
* Both take a ``budget`` (:class:`CandidatePlays`) / ``list_budget`` (:class:`SingleAgentEnv`, a
  :class:`machiavelli_env.legal.ListBudget` or a mapping of its fields): the candidate lists are
  then bounded in the oracle's work, so no position costs more than about a list's budget; the
  default lists exactly (:func:`machiavelli_env.legal.legal_plays`). In :class:`SingleAgentEnv`
  that bounds the learner's lists and those given to callable opponents; the bots keep their rule.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from . import bots, game, legal, observation
from .cards import NUM_TYPES
from .render import render_text
from .render_image import render_rgb, show_human
from .rules import Rules

Policy = Callable[[dict[str, Any], list[np.ndarray]], Any]

__all__ = ["ENV_KEYS", "CandidatePlays", "GreedyPolicy", "RandomPolicy", "SingleAgentEnv", "candidate_observation",
           "candidate_tensor"]


def candidate_tensor(plays: Sequence[np.ndarray], rules: Rules, limit: int) -> np.ndarray:
    """``(limit, 53)`` float32: each candidate's counts divided by the copies in the pack."""
    out = np.zeros((limit, NUM_TYPES), dtype=np.float32)
    n = min(len(plays), limit)
    if n:
        np.multiply(np.array(plays[:n]), _inverse_pack(rules), out=out[:n], casting="same_kind")
    return out


_INVERSE_PACK: dict[tuple[int, int], np.ndarray] = {}


def _inverse_pack(rules: Rules) -> np.ndarray:
    """``1 / copies`` of each card type in the pack (float64, read-only), by the pack's size."""
    key = (rules.decks, rules.jokers)
    norm = _INVERSE_PACK.get(key)
    if norm is None:
        norm = 1.0 / np.maximum(game.pack_counts(rules), 1)
        norm.setflags(write=False)
        _INVERSE_PACK[key] = norm
    return norm


def candidate_observation(
    obs_vector: np.ndarray, plays: Sequence[np.ndarray], rules: Rules, limit: int, draw_allowed: bool, *,
    flatten: bool = False, observation_key: str = "observation",
) -> dict[str, np.ndarray]:
    """The :class:`CandidatePlays` observation of a player to move, from its observation vector and candidates."""
    mask = np.zeros(limit + 1, dtype=np.int8)
    mask[0] = draw_allowed
    mask[1:1 + min(len(plays), limit)] = 1
    cands = candidate_tensor(plays, rules, limit)
    if flatten:
        return {observation_key: np.concatenate([obs_vector, cands.ravel()]), "action_mask": mask}
    return {observation_key: obs_vector, "candidates": cands, "action_mask": mask}


def _candidate_space(limit: int, flatten: bool = False, observation_key: str = "observation") -> spaces.Dict:
    if flatten:
        return spaces.Dict({
            observation_key: spaces.Box(0.0, 1.0, (observation.OBS_SIZE + limit * NUM_TYPES,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (limit + 1,), dtype=np.int8),
        })
    return spaces.Dict({
        observation_key: observation.vector_space(),
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

    def __init__(self, env: AECEnv, limit: int = 64, *, flatten: bool = False, invalid_action: str = "raise",
                 observation_key: str = "observation", budget: legal.ListBudget | None = None):
        super().__init__(env)
        if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
            raise ValueError(f"limit must be an integer of at least 1, got {limit!r}")
        if budget is not None and not isinstance(budget, legal.ListBudget):
            raise TypeError(f"budget must be a legal.ListBudget or None, got {type(budget).__name__}")
        self.budget = budget
        if invalid_action not in ("raise", "draw"):
            raise ValueError(f"invalid_action must be 'raise' or 'draw', got {invalid_action!r}")
        self.limit = int(limit)
        self.flatten = bool(flatten)
        self.invalid_action = invalid_action
        if observation_key in ("candidates", "action_mask") or not isinstance(observation_key, str):
            raise ValueError(f"observation_key must be a string other than 'candidates' and 'action_mask', "
                             f"got {observation_key!r}")
        self.observation_key = observation_key
        self._base = self.env.unwrapped  # the raw env (wrappers never replace it)
        # the raw env's observation vector can be read without its card-count mask when nothing
        # between this wrapper and the raw env changes observations (env()'s order enforcing)
        self._plain = env is self._base or (getattr(type(env), "_keeps_observations", False) and env.env is self._base)
        agents = self._base.possible_agents
        self._obs_spaces = {a: _candidate_space(self.limit, self.flatten, observation_key) for a in agents}
        self._act_spaces = {a: spaces.Discrete(self.limit + 1) for a in agents}
        self._cache: tuple[Any, str, list[np.ndarray]] = (None, "", [])

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_spaces[agent]

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The wrapped env's ``last()`` with this wrapper's observation (the parent's answer, read
        without a layer of attribute forwarding per field)."""
        res = self.env.last(observe=False)
        if not observe:
            return res
        return (self.observe(self._base.agent_selection), *res[1:])

    def candidates(self, agent: str | None = None) -> list[np.ndarray]:
        """The current candidate plays of ``agent`` (default: the agent to move)."""
        base = self._base
        agent = base.agent_selection if agent is None else agent
        state = base.game_state
        if self._cache[0] is state and self._cache[1] == agent:
            return self._cache[2]
        plays = base.legal_plays(agent, limit=self.limit, budget=self.budget)
        self._cache = (state, agent, plays)
        return plays

    def observe(self, agent: str) -> dict[str, Any]:
        base = self._base
        if self._plain and (self.env is base or self.env._has_reset):
            vector = base.observation_vector(agent)
        else:
            vector = self.env.observe(agent)["observation"]
        state = base.game_state
        if agent == base.agent_selection and not state.done:
            plays, draw = self.candidates(agent), _draw_allowed(vector)
        else:
            plays, draw = [], False
        return candidate_observation(vector, plays, base.rules, self.limit, draw, flatten=self.flatten,
                                     observation_key=self.observation_key)

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
        base = self._base
        agent = base.agent_selection
        if base.terminations.get(agent) or base.truncations.get(agent):
            self.env.step(action)
            return
        try:
            vec = self.decode(action, agent)
        except ValueError:
            if self.invalid_action == "raise":
                raise
            vec = self._substitute(agent)
        self.env.step(vec)

    def _substitute(self, agent: str) -> np.ndarray:
        """A draw when allowed, else the first candidate (``invalid_action="draw"``)."""
        base = self._base
        if base._draw_allowed(base._index(agent)):
            return np.zeros(NUM_TYPES, dtype=np.int64)
        return self.candidates(agent)[0].copy()


# ---------------------------------------------------------------------------------------------- policies
class RandomPolicy:
    """The ``random`` bot (:func:`machiavelli_env.bots.random_play`), the player that ``machiavelli
    eval`` and ``agents.interop.win_rate`` call ``random``.

    As an opponent of :class:`SingleAgentEnv` it lists its own plays (:meth:`play`); called as a
    policy ``(obs, legal_plays)`` it applies the same rule to the plays it is given (the first
    :data:`~machiavelli_env.bots.RANDOM_LIMIT` of them)."""

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def play(self, state: game.State, seat: int) -> np.ndarray:
        return bots.random_play(state, seat, self.rng)

    def __call__(self, obs: dict[str, Any], legal_plays: list[np.ndarray]) -> Any:
        return bots.random_choice(list(legal_plays)[:bots.RANDOM_LIMIT], _draw_allowed(obs["observation"]), self.rng)


class GreedyPolicy:
    """The ``greedy`` bot (:func:`machiavelli_env.bots.greedy_play`): the oracle's max-cards play, else
    a draw. As an opponent of :class:`SingleAgentEnv` it asks the oracle (:meth:`play`); called as
    a policy ``(obs, legal_plays)`` it takes the first of the plays (the most cards), else draws."""

    def play(self, state: game.State, seat: int) -> np.ndarray:
        return bots.greedy_play(state, seat)

    def __call__(self, obs: dict[str, Any], legal_plays: list[np.ndarray]) -> Any:
        return legal_plays[0] if legal_plays else None


# ---------------------------------------------------------------------------------------------- single agent
class SingleAgentEnv(gymnasium.Env):
    """One learning seat against policy opponents, as a ``gymnasium.Env`` (see the module docstring).

    ``opponents``: one policy per other seat (in seat order), or a single policy for all, or the
    names ``"random"`` / ``"greedy"`` (:class:`RandomPolicy` / :class:`GreedyPolicy`, the bots that
    ``machiavelli eval`` and ``agents.interop.win_rate`` call by those names); default
    :class:`RandomPolicy` (reseeded from the environment's seed on every reset, as is any policy
    with a ``reseed(int)`` method). An opponent with a method ``play(state, seat) -> action vector``
    decides from the engine state (the bots, and any registry agent through
    :class:`agents.interop.AgentOpponent`, which shows the agent only its own view);
    ``opponent_limit`` is the length of the lists given to callable opponents. A mapping as the
    first argument that names any of these parameters is a whole config (:meth:`from_config`).
    Rewards are the learner's engine rewards summed over its move and the opponents' moves that
    follow. If a deal ends before the learner moves, reset re-deals.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        rules: str | Rules | dict | None = "classic",
        learner: str = "player_0",
        opponents: Policy | Sequence[Policy] | None = None,
        candidates: int | None = None,
        render_mode: str | None = None,
        strict: bool = False,
        opponent_limit: int = 64,
        numeric_info: bool = False,
        list_budget: legal.ListBudget | Mapping[str, int] | None = None,
        **rule_overrides: Any,
    ):
        if isinstance(rules, Mapping) and not isinstance(rules, Rules) and set(rules) & set(ENV_KEYS):
            if learner != "player_0" or opponents is not None or candidates is not None or render_mode is not None \
                    or strict or opponent_limit != 64 or numeric_info or list_budget is not None or rule_overrides:
                raise TypeError("pass either one config mapping or keyword arguments, not both")
            self.__init__(**_split_config(rules))  # type: ignore[misc]
            return
        unknown = sorted(set(rule_overrides) - {f.name for f in dataclasses.fields(Rules)})
        if unknown:  # a TypeError, as Python's own, so that callers probing optional arguments can tell
            raise TypeError(f"SingleAgentEnv got an unexpected keyword argument {unknown[0]!r} (neither a parameter, "
                            f"{', '.join(ENV_KEYS)}, nor a rules field)")
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
        elif callable(opponents) or isinstance(opponents, str) or _plays_states(opponents):
            pols = [_named_policy(opponents) for _ in others]
        else:
            pols = [_named_policy(p) for p in opponents]
            if len(pols) != len(others):
                raise ValueError(f"expected {len(others)} opponent policies, got {len(pols)}")
        self.opponents = dict(zip(others, pols, strict=True))
        self.candidates = candidates
        self.strict = strict
        self.opponent_limit = opponent_limit
        if not isinstance(numeric_info, bool):
            raise TypeError(f"numeric_info must be True or False, got {numeric_info!r}")
        self.numeric_info = numeric_info
        if isinstance(list_budget, Mapping):  # a config's mapping of ListBudget fields
            list_budget = legal.ListBudget.from_mapping(list_budget)
        if list_budget is not None and not isinstance(list_budget, legal.ListBudget):
            raise TypeError(f"list_budget must be a legal.ListBudget, a mapping of its fields or None, "
                            f"got {type(list_budget).__name__}")
        self.list_budget = list_budget
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
        self._render_prev: tuple[game.State, np.ndarray] | None = None  # the last move, for render()

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> SingleAgentEnv:
        """An environment from one mapping: the constructor's parameters (:data:`ENV_KEYS`) by name,
        ``rules`` the rules spec (default ``"classic"``), every other key a rules field override.
        ``SingleAgentEnv.from_config({"candidates": 64, "players": 3})`` is
        ``SingleAgentEnv("classic", candidates=64, players=3)``; an empty mapping is the defaults."""
        if not isinstance(config, Mapping):
            raise TypeError(f"config must be a mapping, got {type(config).__name__}")
        return cls(**_split_config(config))

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        for pol in self.opponents.values():
            if hasattr(pol, "reseed"):
                pol.reseed(int(self.np_random.integers(0, 2**63 - 1)))
        for _ in range(100):
            self.state = game.new_game(self.rules, int(self.np_random.integers(0, 2**63 - 1)))
            self._render_prev = None
            self._advance()
            if not self.state.done:
                break
        return self._observe(), self._info()

    def step(self, action: Any):
        s = self._require()
        if s.done:
            raise RuntimeError("the episode is over; call reset()")
        vec = self._decode(action)
        self._render_prev = (s, vec)
        self.state = game.step(s, vec)
        reward = float(self.state.rewards[self.seat])
        reward += self._advance()
        s = self.state
        obs = self._observe()
        if self.render_mode == "human":
            self.render()
        return obs, reward, bool(s.done and not s.truncated), bool(s.truncated), self._info()

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: the text; ``"rgb_array"``: an (H, W, 3) uint8 picture with the learner's hand
        face up; ``"human"``: that picture in a window when pygame and a display are there, else the text."""
        if self.state is None or self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return render_text(self.state, color=True)
        prev, action = self._render_prev or (None, None)
        if self.render_mode == "rgb_array":
            return render_rgb(self.state, prev, action, viewer=self.seat)
        if not show_human(self.state, prev, action):
            print(render_text(self.state, color=True))
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
        return game.legal_plays(s, self.seat, self.candidates or 64, self.list_budget)

    def _advance(self) -> float:
        """Let the opponents move until the learner is to move or the game is over."""
        reward = 0.0
        s = self._require()
        while not s.done and s.current != self.seat:
            q = s.current
            policy = self.opponents[q]
            if _plays_states(policy):  # the bots (and agents.interop.AgentOpponent) decide from the state
                act = np.asarray(policy.play(s, q), dtype=np.int64)
            else:
                obs = observation.observe(s, q)
                plays = game.legal_plays(s, q, self.opponent_limit, self.list_budget)
                act = _policy_action(policy(obs, plays), plays)
            self._render_prev = (s, act)
            s = game.step(s, act)
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
        if self.numeric_info:
            return {"event": observation.event_code(s.event), "turn": s.turn,
                    "result": observation.RESULT_CODES[s.result]}
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


#: The parameters of :class:`SingleAgentEnv` a config mapping may name (every other key is a rules field).
ENV_KEYS = ("rules", "learner", "opponents", "candidates", "render_mode", "strict", "opponent_limit", "numeric_info",
            "list_budget")
_POLICIES: dict[str, Callable[[], Policy]] = {"random": RandomPolicy, "greedy": GreedyPolicy}


def _split_config(config: Mapping[str, Any]) -> dict[str, Any]:
    kwargs = {k: v for k, v in config.items() if k in ENV_KEYS}
    kwargs.setdefault("rules", "classic")
    kwargs.update({k: v for k, v in config.items() if k not in ENV_KEYS})
    return kwargs


def _plays_states(policy: Any) -> bool:
    """Whether an opponent decides from the engine state: it has ``play(state, seat) -> action vector``."""
    return callable(getattr(policy, "play", None))


def _named_policy(policy: Any) -> Policy:
    if isinstance(policy, str):
        if policy not in _POLICIES:
            raise ValueError(f"unknown opponent {policy!r} (names: {', '.join(_POLICIES)}; any agent by name: "
                             f"agents.interop.AgentOpponent; or pass a callable)")
        return _POLICIES[policy]()
    if not callable(policy) and not _plays_states(policy):
        raise TypeError(f"an opponent must be a callable policy, an object with play(state, seat), or a name, "
                        f"got {policy!r}")
    return policy


def _policy_action(action: Any, plays: list[np.ndarray]) -> np.ndarray:
    """Normalise a policy's output (vector, index into ``[draw] + plays``, or ``None``) to a vector."""
    if action is None:
        return np.zeros(NUM_TYPES, dtype=np.int64)
    if isinstance(action, (int, np.integer)):
        return np.zeros(NUM_TYPES, dtype=np.int64) if action == 0 else np.asarray(plays[int(action) - 1])
    return np.asarray(action)
