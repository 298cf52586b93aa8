"""The agent interface: a :class:`Turn` (observation and legal plays) in, an action vector out.

Every baseline (random, greedy, patient, PPO, a human) implements :class:`Agent`. A turn carries
only what the moving player may know: its observation (see :mod:`machiavelli_env.observation`),
its own hand, public counts, and the legal plays computed by the shared oracle. Legal plays are
computed lazily, so an agent that needs only the oracle's best play never pays for the list.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from machiavelli_env import game, legal, observation
from machiavelli_env.cards import NUM_TYPES
from machiavelli_env.rules import Rules

DRAW = np.zeros(NUM_TYPES, dtype=np.int64)
Melds = tuple[tuple[int, ...], ...]


class _MeldsOnRead:
    """The descriptor of :attr:`Turn.melds`: set to the melds, or to a zero-argument callable that
    makes them, which then runs on the first read (arranging a crowded table is an oracle query,
    and most agents never look at the arrangement)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = f"_{name}_stored"

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return ()  # the dataclass default
        value = obj.__dict__[self.slot]
        if callable(value):
            value = obj.__dict__[self.slot] = value()
        return value

    def __set__(self, obj: Any, value: Melds | Callable[[], Melds]) -> None:
        obj.__dict__[self.slot] = value


@dataclass
class Turn:
    """One decision point of one player, with public information and the player's own hand only.

    ``observation`` is the env's dict (``"observation"`` float32 vector, ``"action_mask"``);
    ``hand`` the player's count vector; ``hand_sizes`` the card counts of every player in seat
    order starting with this player; ``draw_allowed`` whether the all-zeros action is allowed;
    ``melds`` the table's arrangement (given as the melds, or as a zero-argument callable that
    makes them on the first read); ``list_budget`` bounds :attr:`legal_plays`
    (:class:`machiavelli_env.legal.ListBudget`; ``None``: exact lists).
    """

    rules: Rules
    seat: int
    observation: dict[str, Any]
    hand: np.ndarray
    hand_sizes: tuple[int, ...]
    stock_size: int
    draw_allowed: bool
    table: np.ndarray = field(default_factory=lambda: DRAW.copy())
    melds: Melds = _MeldsOnRead()  # type: ignore[assignment]
    opened: bool = True
    limit: int = 32
    list_budget: legal.ListBudget | None = None
    _legal: Callable[[int, legal.ListBudget | None], list[np.ndarray]] | None = field(default=None, repr=False)
    _best: Callable[..., np.ndarray] | None = field(default=None, repr=False)  # (objective[, search_work])
    _check: Callable[[np.ndarray], bool] | None = field(default=None, repr=False)
    _sample: Callable[[np.random.Generator], game.State] | None = field(default=None, repr=False)
    _legal_cache: dict[int, list[np.ndarray]] = field(default_factory=dict, repr=False)

    @property
    def legal_plays(self) -> list[np.ndarray]:
        """Distinct legal plays (count vectors), most cards first, then most points (``limit`` of them)."""
        return self.legal_plays_up_to(self.limit)

    def legal_plays_up_to(self, limit: int) -> list[np.ndarray]:
        """Legal plays with another ``limit`` (see :func:`machiavelli_env.legal.legal_plays`).

        A list bounded by ``list_budget`` that comes out empty while drawing is not allowed (under
        ``must_play_if_able`` a play exists, and the budget gave up before finding one) becomes the
        oracle's max-cards play (one exact question), or the exact list when that play is empty (a
        play of help cards only), so that an agent reading it always has a legal action."""
        if limit not in self._legal_cache:
            plays = self._legal(limit, self.list_budget) if self._legal is not None else []
            if not plays and self.list_budget is not None and not self.draw_allowed and self._legal is not None:
                best = self._best("cards") if self._best is not None else DRAW
                plays = [best] if best.any() else self._legal(limit, None)
            self._legal_cache[limit] = plays
        return self._legal_cache[limit]

    def bound_lists(self, budget: legal.ListBudget) -> None:
        """List legal plays within ``budget`` from now on (lists made before are dropped)."""
        self.list_budget = budget
        self._legal_cache.clear()

    def default_lists(self, budget: legal.ListBudget | None) -> None:
        """:meth:`bound_lists` with ``budget`` unless this turn already has a budget (or ``budget`` is
        ``None``): an agent's own list preference, which a caller's choice overrides."""
        if budget is not None and self.list_budget is None:
            self.bound_lists(budget)

    def best_play(self, objective: str = "cards", search_work: int | None = None) -> np.ndarray:
        """The oracle's optimal play for ``objective`` (``cards`` or ``points``); zeros when none.

        ``search_work`` bounds the exact search, past which the integer programme answers (exact
        too; :func:`machiavelli_env.legal.best_play`); ``None``: the oracle's own schedule."""
        if self._best is None:
            plays = self.legal_plays
            return plays[0].copy() if plays else DRAW.copy()
        return self._best(objective, search_work)

    def is_legal(self, play: np.ndarray) -> bool:
        """Whether a play (a count vector of cards held) can be laid down now (exact oracle check)."""
        if self._check is None:
            return any(np.array_equal(play, q) for q in self.legal_plays_up_to(10**6))
        return self._check(np.asarray(play, dtype=np.int64))

    def sample_world(self, rng: np.random.Generator) -> game.State:
        """A full engine state consistent with what this player knows, for determinized search.

        The player's hand, the table, the help pile and every public fact are kept; the unseen cards
        (opponents' unrevealed cards and the stock) are dealt at random from ``rng``
        (:func:`machiavelli_env.game.resample_hidden`). The true hidden cards are never exposed.
        Raises ``ValueError`` for a turn not built by :func:`turn_from_state`.
        """
        if self._sample is None:
            raise ValueError("this turn was not built from an engine state (turn_from_state); it cannot sample worlds")
        return self._sample(rng)


def turn_from_state(
    state: game.State, player: int | None = None, *, limit: int = 32, list_budget: legal.ListBudget | None = None
) -> Turn:
    """The :class:`Turn` of ``player`` (default: the player to move) in an engine state; its legal
    plays are bounded by ``list_budget`` (:class:`machiavelli_env.legal.ListBudget`) when given."""
    p = state.current if player is None else player
    n = state.rules.players
    order = [(p + k) % n for k in range(n)]
    return Turn(
        rules=state.rules,
        seat=p,
        observation=observation.observe(state, p),
        hand=state.hands[p].copy(),
        hand_sizes=tuple(int(state.hands[q].sum()) for q in order),
        stock_size=int(state.stock.size),
        draw_allowed=game.draw_allowed(state, p),
        table=state.table.copy(),
        melds=lambda: state.melds,  # arranged only if an agent reads it
        opened=bool(state.opened[p]),
        limit=limit,
        list_budget=list_budget,
        _legal=lambda k, budget: game.legal_plays(state, p, k, budget),
        _best=lambda objective, work=None: game.best_play(state, p, objective, work),
        _check=lambda play: _is_legal(state, p, play),
        _sample=lambda rng: game.resample_hidden(state, p, rng),
    )


def _is_legal(state: game.State, player: int, play: np.ndarray) -> bool:
    # check_play notes a legal answer, so the engine's step that follows asks the oracle nothing
    help_ = state.help if game.help_usable(state, player) else None
    legal_, _ = legal.check_play(state.table, state.hands[player], play, state.rules,
                                 opened=bool(state.opened[player]), help=help_)
    return legal_


#: The legal-play lists of the faster variants ``random[exact_lists=0]`` and ``ppo[exact_lists=0]`` on
#: a turn that sets none (``Turn.list_budget`` ``None``): bounded by the default
#: :class:`~machiavelli_env.legal.ListBudget`, so that no decision waits on an exact list of a crowded
#: joker table (docs/LEGAL_PLAYS.md, "Bounded lists"). ``random`` and ``ppo`` list exactly.
PLAY_LIST_BUDGET = legal.ListBudget()


class Agent(ABC):
    """A player: :meth:`act` maps a :class:`Turn` to an action vector (53 counts; zeros = draw)."""

    name: str = "agent"

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 - optional hook
        """Start a new game; stochastic agents reseed here."""

    @abstractmethod
    def act(self, turn: Turn) -> np.ndarray:
        """The action for this turn: a legal play, or zeros to draw (when ``turn.draw_allowed``)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class WithListBudget(Agent):
    """Another agent, playing with its turns' legal-play lists bounded by a
    :class:`~machiavelli_env.legal.ListBudget` (for measuring what bounded lists cost a policy)."""

    def __init__(self, agent: Agent, budget: legal.ListBudget):
        if not isinstance(budget, legal.ListBudget):
            raise TypeError(f"budget must be a legal.ListBudget, got {type(budget).__name__}")
        self.agent = agent
        self.budget = budget
        self.name = f"{agent.name}+budget"

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)

    def act(self, turn: Turn) -> np.ndarray:
        turn.bound_lists(self.budget)
        return self.agent.act(turn)


def fallback_action(turn: Turn) -> np.ndarray:
    """Draw when allowed, else the first legal play (``must_play_if_able`` forbids drawing)."""
    if turn.draw_allowed:
        return DRAW.copy()
    plays = turn.legal_plays
    return plays[0].copy() if plays else DRAW.copy()
