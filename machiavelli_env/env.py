"""The PettingZoo AEC environment ``machiavelli_v0``: a thin wrapper over :mod:`machiavelli_env.game`.

``env(rules="classic", render_mode=None, **rule_overrides)`` returns ``raw_env`` wrapped in
PettingZoo's ``OrderEnforcingWrapper`` (a subclass whose ``last()`` asks ``raw_env`` directly,
same answers); rule fields may be overridden, e.g.
``env(players=4, jokers=4)``. Agents are ``player_0 .. player_{n-1}``.

* Action: ``MultiDiscrete(copies + 1)`` over the 53 card types (joker last): how many copies of
  each to lay down. All zeros draws (passes on an empty stock). An infeasible play is a failed
  play (rules); a malformed action raises ``ValueError`` and changes nothing. There is no
  TerminateIllegal / AssertOutOfBounds wrapper: illegality is part of the rules.
* Observation: ``{"observation": float32 (869,), "action_mask": tuple of 53 int8 arrays}``, see
  :mod:`machiavelli_env.observation`. The mask allows counts ``0..held`` for the agent to move;
  for the other agents (and once the game is over) it allows only 0.
* Rewards, match play and truncation: see :mod:`machiavelli_env.game` (zero-sum; on truncation
  every agent is truncated with reward 0).
* Seeding: ``reset(seed=s)`` deals exactly ``game.new_game(rules, s)`` and seeds the stream of
  later unseeded resets; the rules configuration is kept across resets.
* ``legal_plays(agent, limit)`` (most cards first, then most points; a documented subset past
  ``limit``), ``best_play(agent, objective)`` and the inspection methods (``hand``,
  ``table_melds``, ``stock_size``, ``state``, ``clone_state`` / ``restore_state``,
  ``resample_hidden``) are on ``env.unwrapped``.

Adapters for libraries with other conventions (defaults unchanged; ``env(..., mask="flat",
numeric_info=True, invalid_action="draw")``):

* ``mask="flat"``: ``action_mask`` is one int8 vector of length ``sum(nvec)`` (the 53 blocks
  concatenated, space ``MultiBinary(sum(nvec))``) instead of the tuple -- TorchRL, RLlib, Tianshou.
* ``numeric_info=True``: ``infos[agent]["event"]`` is an int code
  (:data:`machiavelli_env.observation.EVENT_NAMES` names them) -- libraries that turn every
  info value into a tensor (TorchRL).
* ``invalid_action="draw"``: an action the engine would reject (wrong shape, a count the mask
  does not allow) draws instead of raising -- for unmasked samplers and libraries' pre-checks
  (PettingZoo's ``state_test``, RLlib's env check). When drawing is not allowed
  (``must_play_if_able``) the substitute is the first of ``legal_plays``. Plays the mask allows
  but the table cannot take are failed plays, as always.

The full reference (every index of the observation, the subset rule, help cards, matches,
rewards, wrappers) is ``docs/ENV.md``.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import game, legal, observation
from .cards import card_name, format_cards
from .render import render_text
from .render_image import close_window, render_rgb, show_human
from .rules import Rules

__all__ = ["env", "raw_env"]


MASKS = ("tuple", "flat")
INVALID_ACTIONS = ("raise", "draw")


def env(
    rules: str | Rules | dict | None = "classic",
    render_mode: str | None = None,
    *,
    mask: str = "tuple",
    numeric_info: bool = False,
    invalid_action: str = "raise",
    **rule_overrides: Any,
) -> AECEnv:
    """The wrapped AEC environment (``OrderEnforcingWrapper(raw_env(...))``); options in the module docstring."""
    e = raw_env(rules=rules, render_mode=render_mode, mask=mask, numeric_info=numeric_info,
                invalid_action=invalid_action, **rule_overrides)
    return _OrderEnforcing(e)


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` whose ``last()`` asks the wrapped environment directly.

    The inherited ``last()`` reads five attributes through two layers of ``__getattr__`` (about 5 µs
    a call, every step of every loop); this gives the same answer and, before ``reset()``, the same
    ``AttributeError``. Everything else is the parent's.
    """

    #: observations pass through unchanged (``CandidatePlays`` may read the raw env's vector directly)
    _keeps_observations = True

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def __str__(self) -> str:
        return str(self.env)


class raw_env(AECEnv, EzPickle):
    """Machiavelli as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {
        "name": "machiavelli_v0",
        "is_parallelizable": False,
        "render_modes": ["ansi", "human", "rgb_array"],
        "render_fps": 1,
    }

    def __init__(
        self,
        rules: str | Rules | dict | None = "classic",
        render_mode: str | None = None,
        *,
        mask: str = "tuple",
        numeric_info: bool = False,
        invalid_action: str = "raise",
        **rule_overrides: Any,
    ):
        EzPickle.__init__(self, rules, render_mode, mask=mask, numeric_info=numeric_info,
                          invalid_action=invalid_action, **rule_overrides)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if mask not in MASKS:
            raise ValueError(f"mask must be one of {', '.join(map(repr, MASKS))}, got {mask!r}")
        if invalid_action not in INVALID_ACTIONS:
            raise ValueError(f"invalid_action must be one of {', '.join(map(repr, INVALID_ACTIONS))}, "
                             f"got {invalid_action!r}")
        if not isinstance(numeric_info, bool):
            raise TypeError(f"numeric_info must be True or False, got {numeric_info!r}")
        self.mask, self.numeric_info, self.invalid_action = mask, numeric_info, invalid_action
        self.rules: Rules = Rules.load(rules, **rule_overrides)
        self.render_mode = render_mode
        n = self.rules.players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._agent_index = {a: i for i, a in enumerate(self.possible_agents)}
        self.agents = []
        self.action_spaces = {a: observation.action_space(self.rules) for a in self.possible_agents}
        if mask == "flat":
            obs_space = gymnasium.spaces.Dict({"observation": observation.vector_space(),
                                               "action_mask": observation.flat_mask_space(self.rules)})
            self.observation_spaces = {a: obs_space for a in self.possible_agents}
        else:
            self.observation_spaces = {a: observation.observation_space(self.rules) for a in self.possible_agents}
        self.state_space = observation.state_space()
        self._seed_rng = np.random.default_rng()
        self._state: game.State | None = None
        self._draw_cache: tuple[game.State | None, int, bool] = (None, -1, True)

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ core API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game (``options={"state": State}`` starts from a given engine state).

        A given state is checked first (:func:`game.validate_state`); a bad one raises
        ``ValueError`` naming the problem and changes nothing, the seed stream included.
        """
        start = (options or {}).get("state")
        if start is not None:
            self._check_state(start)
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
            game_seed = int(seed) if isinstance(seed, (int, np.integer)) and seed >= 0 else self._new_seed()
        else:
            game_seed = self._new_seed()
        if start is not None:
            self._set_state(start)
        else:
            self._set_state(game.new_game(self.rules, game_seed))

    def _new_seed(self) -> int:
        return int(self._seed_rng.integers(0, 2**63 - 1))

    def _check_state(self, state: game.State) -> None:
        """Raise unless ``state`` is a valid state under this env's rules (TypeError / ValueError); changes nothing."""
        if not isinstance(state, game.State):
            raise TypeError(f"expected a game.State, got {type(state).__name__}")
        if state.rules.to_dict() | {"name": ""} != self.rules.to_dict() | {"name": ""}:
            raise ValueError("the state was made under different rules than this environment")
        game.validate_state(state, skip_checked=True)  # states made by the engine are checked once

    def _set_state(self, state: game.State) -> None:
        self._check_state(state)
        self._state = state
        self._render_prev: tuple[game.State, Any] | None = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._sync()

    def _sync(self) -> None:
        s = self._state
        assert s is not None
        rewards, index, event = s.rewards.tolist(), self._agent_index, s.event
        if self.numeric_info:
            event = observation.event_code(event)
        for a in self.agents:
            self.rewards[a] = rewards[index[a]]
            self.infos[a] = {"event": event}
        if s.done:
            flags = self.truncations if s.truncated else self.terminations
            for a in self.agents:
                flags[a] = True
        self.agent_selection = self.possible_agents[s.current]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            new = game.step(self._state, action)  # raises ValueError (nothing changed) on a bad action
        except ValueError:
            if self.invalid_action == "raise":
                raise
            new = game.step(self._state, self._substitute())
        self._cumulative_rewards[agent] = 0.0
        self._render_prev = (self._state, action)  # the last move, for render()
        self._state = new
        self._sync()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _substitute(self) -> np.ndarray:
        """The action taken for a rejected one under ``invalid_action="draw"``: a draw, else the first legal play."""
        s = self._require_state()
        if self._draw_allowed(s.current):
            return np.zeros(len(s.table), dtype=np.int64)
        return game.legal_plays(s, s.current, 1)[0]

    def observe(self, agent: str) -> dict[str, Any]:
        s = self._require_state()
        p = self._index(agent)
        if self.mask == "flat":
            if p == s.current and not s.done:
                mask = observation.flat_action_mask(s, p)
            else:
                mask = observation.no_flat_action_mask(self.rules)
        elif p == s.current and not s.done:
            mask = observation.action_mask(s, p)
        else:
            mask = observation.no_action_mask(self.rules)
        return {"observation": self.observation_vector(agent), "action_mask": mask}

    def observation_vector(self, agent: str) -> np.ndarray:
        """The float32 observation vector of ``agent`` (``observe(agent)["observation"]``, without the mask)."""
        s = self._require_state()
        p = self._index(agent)
        draw_allowed = True if not self.rules.must_play_if_able else self._draw_allowed(p)
        return observation.observation_vector(s, p, draw_allowed=draw_allowed)

    def _draw_allowed(self, p: int) -> bool:
        s = self._require_state()
        if not self.rules.must_play_if_able or s.done:
            return True
        cached_state, cached_p, value = self._draw_cache
        if cached_state is s and cached_p == p:
            return value
        value = game.draw_allowed(s, p)
        self._draw_cache = (s, p, value)
        return value

    def state(self) -> np.ndarray:
        """The full state as a float32 vector for centralised critics (:func:`observation.state_vector`)."""
        return observation.state_vector(self._require_state())

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: the text; ``"rgb_array"``: an (H, W, 3) uint8 picture (Pillow); ``"human"``: the
        picture in a window when pygame and a display are there, else the text printed."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self._state is None:
            return None
        if self.render_mode == "ansi":
            return render_text(self._state, color=True)
        prev, action = self._render_prev or (None, None)
        if self.render_mode == "rgb_array":
            return render_rgb(self._state, prev, action)
        if not show_human(self._state, prev, action):
            print(render_text(self._state, color=True))
        return None

    def close(self) -> None:
        if self.render_mode == "human":
            close_window()

    # ------------------------------------------------------------------ inspection and search
    def _require_state(self) -> game.State:
        if self._state is None:
            raise RuntimeError("call reset() first")
        return self._state

    def _index(self, agent: str | int | None) -> int:
        if type(agent) is str and agent in self._agent_index:
            return self._agent_index[agent]
        if agent is None:
            return self._require_state().current
        if isinstance(agent, (int, np.integer)) and 0 <= agent < self.rules.players:
            return int(agent)
        try:
            return self.possible_agents.index(agent)  # type: ignore[arg-type]
        except ValueError:
            raise ValueError(f"unknown agent {agent!r}; agents are {', '.join(self.possible_agents)}") from None

    @property
    def game_state(self) -> game.State:
        """The current engine state (immutable)."""
        return self._require_state()

    def legal_plays(
        self, agent: str | None = None, limit: int = 64, budget: legal.ListBudget | None = None
    ) -> list[np.ndarray]:
        """Distinct legal plays of ``agent`` (default: the agent to move) as action vectors.

        Most cards first, then most points; see :func:`machiavelli_env.legal.legal_plays` for the
        subset kept when there are more than ``limit``.

        Args:
            agent: the player whose plays are listed (``"player_k"``); ``None``: the agent to move.
            limit: the most plays returned; with at most ``limit`` legal plays, all of them.
            budget: bounds the list's cost in the oracle's work count (:class:`machiavelli_env.legal.ListBudget`);
                ``None``: the exact list.

        Returns:
            Count vectors over the 53 card types (int64, shape ``(53,)``), each a legal play.
        """
        return game.legal_plays(self._require_state(), self._index(agent), limit, budget)

    def best_play(self, agent: str | None = None, objective: str = "cards") -> np.ndarray:
        """The oracle's optimal play (``"cards"`` or ``"points"``) as an action vector; zeros when none."""
        return game.best_play(self._require_state(), self._index(agent), objective)

    def hand(self, agent: str | None = None) -> list[str]:
        """Card names of an agent's hand, sorted by suit and rank."""
        return game.hand_names(self._require_state(), self._index(agent))

    def table_melds(self) -> list[list[str]]:
        """The table's melds as lists of card names."""
        return [format_cards(m).split() for m in self._require_state().melds]

    def help_cards(self) -> list[str]:
        """The face-up help pile."""
        s = self._require_state()
        return [card_name(c) for c in np.repeat(np.arange(len(s.help)), s.help)]

    def stock_size(self) -> int:
        """Cards left in the stock."""
        return int(self._require_state().stock.size)

    def clone_state(self) -> game.State:
        """A copy of the full engine state (restore it with :meth:`restore_state`)."""
        return game.clone(self._require_state())

    def restore_state(self, state: game.State) -> None:
        """Continue from a state obtained from :meth:`clone_state` (or built with the engine).

        The state is checked first; a bad one raises ``ValueError`` naming the problem and the
        env keeps its current state.
        """
        self._set_state(state)

    def resample_hidden(self, agent: str, rng: np.random.Generator | int | None = None) -> game.State:
        """A full state consistent with what ``agent`` has observed (see :func:`game.resample_hidden`)."""
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        return game.resample_hidden(self._require_state(), self._index(agent), gen)


class _CallableModule(types.ModuleType):
    """This module, callable as :func:`env`.

    The package exposes the function ``machiavelli_env.env`` lazily; importing this module
    directly (``from machiavelli_env.env import raw_env``) makes Python bind the package attribute
    ``env`` to the module instead, so calling the module keeps ``machiavelli_env.env(...)`` working.
    """

    def __call__(self, *args: Any, **kwargs: Any) -> AECEnv:
        return env(*args, **kwargs)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # pickled by name, as modules are (cloudpickle, which Ray uses to ship an env factory that
        # reads `machiavelli_env.env`, matches plain modules only by their exact type)
        return importlib.import_module, (self.__name__,)


sys.modules[__name__].__class__ = _CallableModule
