"""The pure game engine: an immutable :class:`State` and ``step(state, action) -> State``.

No environment framework is imported here (as in pgx and OpenSpiel, the environments wrap this).
A state holds everything, including the shuffled stock and the seed of later deals, so
:func:`step` needs no random number generator and a game is a deterministic function of its seed
and actions. States are immutable (their arrays are read-only); :func:`step` returns a new one.

Turn (RULES.md). The player to move names a multiset of cards (a count vector of length 53;
:func:`step` also accepts a card string such as ``"9S QD QS"``):

* **all zeros** -- draw: one card (two under ``always_draw`` before the player's first meld);
  with an empty stock this is a pass. Under ``must_play_if_able`` drawing while a legal play
  exists is not allowed and raises :class:`ActionError` (see :func:`legal.has_play`).
* **a play** -- if the table plus the play repacks into valid melds (:func:`legal.arrange_play`:
  opening requirement, help cards in groups), the cards go to the table; a player who empties the
  hand wins at once. Under ``always_draw`` a player who has laid down draws one card after every
  turn (also after a play, not after a winning one). Otherwise it is a **failed play**: the
  table is unchanged, the cards are revealed (tracked in ``State.known`` until played) and the
  player draws ``failed_play_penalty`` cards (fewer if the stock runs out; no extra
  ``always_draw`` card).
* **malformed** actions (wrong shape, negative or non-integer counts, cards not held) raise
  :class:`ActionError` (a ``ValueError``) and change nothing.

End of a game: a player empties the hand (wins), or the game is **blocked**: the stock is empty
and ``players`` turns in a row (a full round) pass without a successful play (failed plays count
as passes); the fewest hand points (``rules.points``) wins, equal lowest is a draw.

Rewards (``State.rewards``, zero-sum, of the last transition):

* ``win_loss``: winner +1, each loser -1/(n-1); a draw gives 0 to all.
* ``points``: each loser -(hand points), the winner +(sum of the losers' hand points) (the
  Portuguese "winner adds the opponents' penalty points"); a draw gives 0 to all.

Match play (``match_target > 0``): after each game the losers add their hand points to their match
totals (``State.scores``; on a drawn game every player adds them, the winner adds nothing); when a
total reaches ``match_target`` the match ends and the lowest total wins (equal lowest: a draw).
Otherwise the next game is dealt at once (deal ``g`` from ``SeedSequence([seed, g])``; player
``g % n`` starts). ``win_loss`` rewards are paid once, for the match; ``points`` rewards after
every game. ``max_turns`` counts turns over the whole match; reaching it ends the episode with
``truncated`` set and zero reward.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from . import legal
from .cards import (
    CARD_TYPES,
    NUM_TYPES,
    CardError,
    as_counts,
    card_name,
    format_cards,
    from_counts,
    parse_cards,
    to_counts,
)
from .melds import is_valid_meld
from .oracle import api as oracle
from .records import loads as _json_loads
from .records import printable
from .rules import Rules

# last_action codes (per player)
NONE, DRAW, PLAY, FAILED, PASS = 0, 1, 2, 3, 4
ACTION_NAMES = ("none", "draw", "play", "failed", "pass")

_ARRAYS = ("hands", "table", "stock", "help", "opened", "known", "last_play", "last_action", "scores", "rewards")
_DTYPES = {"opened": bool, "last_action": np.int8, "rewards": np.float64}
_RESULTS = ("", "win", "blocked", "draw", "truncated")
_EVENT = re.compile(r"(deal|draw|pass|play|failed)(:(win|blocked|draw))?(:(next_game|match_over))?")
_MAX_SEED = 2**128


class ActionError(ValueError):
    """A malformed or disallowed action; the state is unchanged."""


class StateError(ValueError):
    """A state that breaks the game's invariants (or a state JSON that is malformed); the message names the problem."""


@dataclass(frozen=True, eq=False)
class State:
    """Full state of a game (or match). Arrays are int64 count vectors unless noted, read-only.

    ``hands`` (players, 53); ``table`` (53,) with ``melds`` an arrangement of it (see below); ``stock`` the card
    types in draw order (top first); ``help`` the face-up help pile (53,); ``opened`` (players,)
    bool: has laid down in this game; ``known`` (players, 53): cards publicly known to be in each
    hand (revealed by failed plays, until played); ``last_play`` (players, 53): each player's last
    successful play; ``last_action`` (players,) int8 codes (:data:`ACTION_NAMES`); ``passes``:
    turns in a row without a play while the stock is empty; ``turn``: turns taken in the episode;
    ``game``: index of the game in the match; ``scores``: match penalty totals; ``seed``: seed of
    the deals; ``winner``: winner of the match/game once ``done`` (-1: draw or truncated);
    ``result``: how the last game ended (``""``, ``"win"``, ``"blocked"``, ``"draw"``,
    ``"truncated"``); ``rewards`` (players,) float64 and ``event`` describe the last transition:
    ``"deal"``, ``"draw"``, ``"pass"``, ``"play"`` or ``"failed"``, with ``":win"`` /
    ``":blocked"`` / ``":draw"`` appended when it ended a game, then ``":next_game"`` or
    ``":match_over"`` in match play.

    ``melds`` is the table's arrangement into valid melds: the one given to :func:`new_state_from`
    or left by an opening lay-down (the earlier melds plus the new ones), until the next successful
    play; otherwise the oracle's repack of the table, computed when first read (pass ``None`` to
    the constructor for that). It depends only on the game's history, never on which queries were
    asked before; it is presentation only (every play repacks the whole table).
    """

    rules: Rules
    hands: np.ndarray
    table: np.ndarray
    melds: tuple[tuple[int, ...], ...] | None
    stock: np.ndarray
    help: np.ndarray
    current: int
    opened: np.ndarray
    known: np.ndarray
    last_play: np.ndarray
    last_action: np.ndarray
    passes: int = 0
    turn: int = 0
    game: int = 0
    scores: np.ndarray | None = None
    seed: int = 0
    done: bool = False
    truncated: bool = False
    winner: int = -1
    result: str = ""
    rewards: np.ndarray | None = None
    event: str = "deal"

    def __post_init__(self) -> None:
        trusted = getattr(_ENGINE, "trusted", False)  # the engine's own transitions (see _trusted)
        if not trusted and not isinstance(self.rules, Rules):
            raise StateError(f"state field 'rules' must be a Rules, got {type(self.rules).__name__}")
        n = self.rules.players
        if self.scores is None:
            object.__setattr__(self, "scores", np.zeros(n, dtype=np.int64))
        if self.rewards is None:
            object.__setattr__(self, "rewards", np.zeros(n, dtype=np.float64))
        for name in _ARRAYS:
            arr = getattr(self, name)
            dtype = _DTYPES.get(name, np.int64)
            if not _is_frozen(arr, dtype):
                arr = np.array(arr, dtype=dtype, copy=True) if trusted else _array_field(arr, name, dtype)
                arr.setflags(write=False)
                object.__setattr__(self, name, arr)
        if trusted:
            for name in ("current", "passes", "turn", "game", "seed", "winner"):
                object.__setattr__(self, name, int(getattr(self, name)))
            for name in ("done", "truncated"):
                object.__setattr__(self, name, bool(getattr(self, name)))
            return
        for name in ("current", "passes", "turn", "game", "seed", "winner"):
            v = getattr(self, name)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
                raise StateError(f"state field '{name}' must be an integer, got {printable(repr(v), 40)}")
            object.__setattr__(self, name, int(v))
        for name in ("done", "truncated"):
            v = getattr(self, name)
            if not isinstance(v, (bool, np.bool_)):
                raise StateError(f"state field '{name}' must be true or false, got {printable(repr(v), 40)}")
            object.__setattr__(self, name, bool(v))
        for name in ("result", "event"):
            if type(getattr(self, name)) is not str:
                raise StateError(f"state field '{name}' must be a string, got {type(getattr(self, name)).__name__}")
        _check_structure(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            if isinstance(a, np.ndarray):
                if a.dtype != b.dtype or not np.array_equal(a, b):
                    return False
            elif f.name == "rules":
                if a.to_dict() != b.to_dict():
                    return False
            elif a != b:
                return False
        return True

    __hash__ = None  # type: ignore[assignment]

    @property
    def players(self) -> int:
        return self.rules.players

    def hand_points(self, player: int) -> int:
        """Penalty points of a player's hand under ``rules.points``."""
        return int(_points(self.rules) @ self.hands[player])


def _get_melds(self: State) -> tuple[tuple[int, ...], ...]:
    melds = self.__dict__.get("_melds")
    if melds is None:
        melds = _arrange_table(self.rules, self.table)
        self.__dict__["_melds"] = melds
    return melds


def _set_melds(self: State, value: Any) -> None:  # reached only through the dataclass __init__
    self.__dict__["_melds"] = None if value is None else _meld_tuple(value)


State.melds = property(_get_melds, _set_melds, doc="The table's arrangement into valid melds (see State).")


def _raw_melds(state: State) -> tuple[tuple[int, ...], ...] | None:
    """The stored arrangement, ``None`` when it is still to be computed (never computes it)."""
    return state.__dict__.get("_melds")


def _meld_tuple(melds: Iterable[Iterable[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(int(c) for c in m) for m in melds)


def _arrange_table(rules: Rules, table: np.ndarray) -> tuple[tuple[int, ...], ...]:
    if not table.any():
        return ()
    melds = oracle.repack(table, np.zeros(NUM_TYPES, dtype=np.int64), rules)
    if melds is None:  # pragma: no cover - the engine only builds valid tables
        raise RuntimeError("the table cannot be arranged into valid melds")
    return _meld_tuple(melds)


def _is_frozen(arr: Any, dtype: Any) -> bool:
    """A read-only array of ``dtype`` whose memory nobody can write through (safe to share)."""
    return (
        isinstance(arr, np.ndarray)
        and arr.dtype == dtype
        and not arr.flags.writeable
        and (arr.base is None or (isinstance(arr.base, np.ndarray) and not arr.base.flags.writeable))
    )


def _freeze(arr: np.ndarray) -> np.ndarray:
    arr.setflags(write=False)
    return arr


_ENGINE = threading.local()


def _trusted(make: Any, *args: Any, **kwargs: Any) -> State:
    """``make(*args, **kwargs)`` (``State`` or ``replace``) for the engine's own valid fields: no checks.

    The engine's transitions keep every invariant (tested on every state of random games), so
    the states it builds skip the checks that ``State(...)`` runs on fields from elsewhere.
    """
    _ENGINE.trusted = True
    try:
        return make(*args, **kwargs)
    finally:
        _ENGINE.trusted = False


def _array_field(value: Any, name: str, dtype: Any) -> np.ndarray:
    """A fresh array of ``dtype`` from ``value``; :class:`StateError` unless every entry is exactly representable."""
    try:
        src = np.asarray(value)
    except (ValueError, TypeError, OverflowError):
        raise StateError(f"state field '{name}' is not a rectangular array of numbers") from None
    kind = src.dtype.kind
    if dtype is bool:
        ok = kind == "b" or (kind in "iu" and bool(((src == 0) | (src == 1)).all()))
        what = "true/false values"
    elif dtype is np.float64:
        ok = kind in "biuf" and (kind != "f" or bool(np.isfinite(src).all()))
        what = "finite numbers"
    else:
        ok = kind in "biu" or (kind == "f" and bool(np.isfinite(src).all()) and bool((src == np.round(src)).all()))
        what = "integers"
        if ok and kind in "iuf" and src.size and (src.max() > 2**62 or src.min() < -(2**62)):
            ok, what = False, "integers of a sensible size"
    if not ok:
        raise StateError(f"state field '{name}' must hold {what}")
    return np.array(src, dtype=dtype, copy=True)


_SHAPES = {
    "hands": "players", "known": "players", "last_play": "players",
    "opened": "n", "last_action": "n", "scores": "n", "rewards": "n",
    "table": "types", "help": "types",
}


def _check_structure(state: State) -> None:
    """Shapes, ranges and types of every field (no card accounting); :class:`StateError` naming the field."""
    r = state.rules
    n = r.players
    want = {"players": (n, NUM_TYPES), "n": (n,), "types": (NUM_TYPES,)}
    for name, key in _SHAPES.items():
        shape = getattr(state, name).shape
        if shape != want[key]:
            raise StateError(f"state field '{name}' must have shape {want[key]} for {n} players, got {shape}")
    if state.stock.ndim != 1 or state.stock.size > r.pack_size:
        raise StateError(f"state field 'stock' must be a list of at most {r.pack_size} card indices")
    if state.stock.size and (state.stock.min() < 0 or state.stock.max() >= NUM_TYPES):
        raise StateError(f"state field 'stock' holds a card index outside 0..{NUM_TYPES - 1}")
    for name in ("hands", "table", "help", "known", "last_play", "scores"):
        if np.count_nonzero(getattr(state, name) < 0):
            raise StateError(f"state field '{name}' has negative counts")
    if np.count_nonzero((state.last_action < 0) | (state.last_action >= len(ACTION_NAMES))):
        raise StateError(f"state field 'last_action' holds a code outside 0..{len(ACTION_NAMES) - 1}")
    if not 0 <= state.current < n:
        raise StateError(f"state field 'current' must be a player 0..{n - 1}, got {state.current}")
    for name in ("passes", "turn", "game"):
        if getattr(state, name) < 0:
            raise StateError(f"state field '{name}' must be >= 0, got {getattr(state, name)}")
    if not 0 <= state.seed < _MAX_SEED:
        raise StateError(f"state field 'seed' must be in 0..2**128-1, got {printable(str(state.seed), 40)}")
    if not -1 <= state.winner < n:
        raise StateError(f"state field 'winner' must be -1 (none) or a player 0..{n - 1}, got {state.winner}")
    if state.result not in _RESULTS:
        raise StateError(f"state field 'result' must be one of {', '.join(map(repr, _RESULTS))}, "
                         f"got {printable(repr(state.result), 40)}")
    if not _EVENT.fullmatch(state.event):
        raise StateError(f"state field 'event' is not an event of the engine: {printable(repr(state.event), 40)}")


_ZEROS = {n: _freeze(np.zeros(n, dtype=np.float64)) for n in range(2, 7)}


def _zeros(n: int) -> np.ndarray:
    """Read-only float64 zeros of length ``n`` (shared: rewards of an ordinary transition)."""
    return _ZEROS[n]


def _evolve(state: State, **changes: Any) -> State:
    """``dataclasses.replace`` without re-validation, for the engine's own transitions.

    Every array in ``changes`` must be read-only with the field's dtype and every scalar of the
    field's type (as :meth:`State.__post_init__` would leave them); ``melds`` is stored raw.
    """
    new = object.__new__(State)
    d = new.__dict__
    d.update(state.__dict__)
    if "melds" in changes:
        d["_melds"] = changes.pop("melds")
    d.update(changes)
    return new


# ---------------------------------------------------------------------------------------------- helpers
def _points(rules: Rules) -> np.ndarray:
    return legal.rules_info(rules).points


def pack_counts(rules: Rules) -> np.ndarray:
    """Copies of each card type in the pack."""
    return legal.rules_info(rules).pack.copy()


def _deal_rng(seed: int, game: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([int(seed), int(game)]))


def _check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def _deal(rules: Rules, seed: int, game: int) -> dict[str, Any]:
    pack = np.repeat(np.arange(NUM_TYPES), pack_counts(rules))
    order = _deal_rng(seed, game).permutation(pack)
    n, k = rules.players, rules.hand_size
    hands = np.zeros((n, NUM_TYPES), dtype=np.int64)
    for p in range(n):
        np.add.at(hands[p], order[p * k:(p + 1) * k], 1)
    help_ = np.zeros(NUM_TYPES, dtype=np.int64)
    np.add.at(help_, order[n * k:n * k + rules.help_cards], 1)
    z = np.zeros((n, NUM_TYPES), dtype=np.int64)
    return dict(
        hands=hands, table=np.zeros(NUM_TYPES, dtype=np.int64), melds=(), stock=order[n * k + rules.help_cards:],
        help=help_, current=game % n, opened=np.zeros(n, dtype=bool), known=z, last_play=z,
        last_action=np.zeros(n, dtype=np.int8), passes=0, game=game,
    )


def new_game(rules: Rules | str | None = None, seed: int = 0, **overrides: Any) -> State:
    """Deal a new game (the first of a match) from ``seed``; player 0 starts."""
    r = Rules.load(rules, **overrides)
    seed = _check_seed(seed)
    state = _trusted(State, rules=r, seed=seed, **_deal(r, seed, 0))
    state.__dict__["_valid"] = True  # a deal is valid by construction (see validate_state)
    return state


def new_state_from(
    rules: Rules | str | None,
    hands: Sequence[str | Iterable[int] | np.ndarray],
    table: str | Iterable[int] | np.ndarray = "",
    *,
    stock: str | Sequence[int] | None = None,
    help: str | Iterable[int] | np.ndarray = "",
    current: int = 0,
    opened: Sequence[bool] | bool | None = None,
    known: Sequence[str | Iterable[int] | np.ndarray] | None = None,
    melds: Sequence[Sequence[int | str]] | None = None,
    seed: int = 0,
    scores: Sequence[int] | None = None,
) -> State:
    """Build a state from given cards (worked examples, tests, puzzles).

    ``hands``: one card string (or count vector) per player; ``table``: the table's cards, arranged
    by the oracle unless ``melds`` gives the arrangement (each meld validated); ``stock``: draw
    order, top first (default: the rest of the pack shuffled from ``seed``); ``opened``: default
    all True (so an ``opening`` rule does not apply unless asked). Raises ``ValueError`` when the
    cards exceed the pack or the table is not a valid arrangement.
    """
    r = Rules.load(rules)
    n = r.players
    if len(hands) != n:
        raise ValueError(f"expected {n} hands for {n} players, got {len(hands)}")

    def counts(x: Any, name: str) -> np.ndarray:
        if isinstance(x, np.ndarray) and x.shape == (NUM_TYPES,):
            return as_counts(x, name).copy()
        return to_counts(x)

    h = np.stack([counts(x, f"hand {i}") for i, x in enumerate(hands)])
    t = counts(table, "table")
    hp = counts(help, "help")
    used = h.sum(axis=0) + t + hp
    pack = pack_counts(r)
    if stock is None:
        rest = pack - used
        if (rest < 0).any():
            raise ValueError(_over_pack(used, r))
        st = _deal_rng(_check_seed(seed), 0).permutation(np.repeat(np.arange(NUM_TYPES), rest))
    else:
        st = np.array(parse_cards(stock), dtype=np.int64)
        used = used + np.bincount(st, minlength=NUM_TYPES)
    if (used > pack).any():
        raise ValueError(_over_pack(used, r))
    if melds is None:
        arrangement = oracle.repack(t, np.zeros(NUM_TYPES, dtype=np.int64), r) if t.any() else []
        if arrangement is None:
            raise ValueError("the table cannot be arranged into valid melds")
    else:
        arrangement = [parse_cards(m) for m in melds]
        for m in arrangement:
            if not is_valid_meld(m, r):
                raise ValueError(f"not a valid meld: {format_cards(m)}")
        got = np.bincount(np.array([c for m in arrangement for c in m], dtype=np.int64), minlength=NUM_TYPES)
        if not np.array_equal(got, t):
            raise ValueError("the melds do not hold exactly the table's cards")
    if opened is None or isinstance(opened, bool):
        op = np.full(n, True if opened is None else opened)
    else:
        op = np.array(opened, dtype=bool)
    kn = np.zeros((n, NUM_TYPES), dtype=np.int64)
    if known is not None:
        kn = np.stack([counts(x, "known") for x in known])
        if (kn > h).any():
            raise ValueError("known cards must be held")
    return State(
        rules=r, hands=h, table=t, melds=tuple(tuple(m) for m in arrangement), stock=st, help=hp,
        current=int(current) % n, opened=op, known=kn, last_play=np.zeros((n, NUM_TYPES), dtype=np.int64),
        last_action=np.zeros(n, dtype=np.int8), seed=_check_seed(seed),
        scores=np.zeros(n, dtype=np.int64) if scores is None else np.array(scores, dtype=np.int64),
    )


def _over_pack(used: np.ndarray, rules: Rules) -> str:
    over = np.flatnonzero(used > pack_counts(rules))
    names = ", ".join(f"{CARD_TYPES[c]} x{int(used[c])}" for c in over)
    return f"more copies than the pack holds ({rules.decks} decks, {rules.jokers} jokers): {names}"


def clone(state: State) -> State:
    """An independent copy of a state (states are immutable; this copies the arrays)."""
    new = _trusted(replace, state, melds=_raw_melds(state), **{name: getattr(state, name).copy() for name in _ARRAYS})
    if state.__dict__.get("_valid"):
        new.__dict__["_valid"] = True
    return new


# ---------------------------------------------------------------------------------------------- actions
def help_usable(state: State, player: int) -> bool:
    """Whether ``player`` may use the help pile now (not during an opening lay-down)."""
    return np.count_nonzero(state.help) > 0 and not legal.needs_opening(state.rules, bool(state.opened[player]))


def allowed_counts(state: State, player: int) -> np.ndarray:
    """Most copies of each card type ``player`` may name: held, plus the help pile when usable."""
    out = state.hands[player].copy()
    if help_usable(state, player):
        out += state.help
    return out


def check_action(state: State, action: Any) -> np.ndarray:
    """Validate an action of the player to move; return it as an int64 count vector.

    Raises :class:`ActionError` naming the problem (shape, dtype, negative counts, cards not held).
    """
    if state.done:
        raise ActionError("the game is over; reset or start a new game")
    if isinstance(action, str):
        try:
            return _held(state, to_counts(action))
        except CardError as exc:
            raise ActionError(str(exc)) from None
    if action is None:
        raise ActionError("action is None; pass a count vector of shape (53,) (all zeros to draw)")
    if (
        type(action) is np.ndarray and action.dtype == np.int64 and action.shape == (NUM_TYPES,)
        and not np.count_nonzero(action < 0)
    ):  # the usual case, checked quickly; the general path below names any problem
        return _held(state, action)
    try:
        arr = np.asarray(action)
    except Exception as exc:  # pragma: no cover - exotic inputs
        raise ActionError(f"action is not an array: {exc}") from None
    if arr.shape != (NUM_TYPES,):
        raise ActionError(
            f"action must be a count vector of shape ({NUM_TYPES},) over CARD_TYPES, got shape {arr.shape}"
        )
    try:
        counts = as_counts(arr, "action")
    except CardError as exc:
        raise ActionError(str(exc)) from None
    return _held(state, counts)


def _held(state: State, counts: np.ndarray) -> np.ndarray:
    p = state.current
    allowed = allowed_counts(state, p) if np.count_nonzero(state.help) else state.hands[p]
    if np.count_nonzero(counts > allowed):
        over = np.flatnonzero(counts > allowed)
        hand = state.hands[p]
        names = ", ".join(f"{card_name(int(c))} x{int(counts[c])} (holds {int(hand[c])})" for c in over)
        extra = " plus the usable help cards" if help_usable(state, p) else ""
        raise ActionError(f"player {p} does not hold the cards of the action{extra}: {names}")
    return counts.astype(np.int64, copy=False)


# ---------------------------------------------------------------------------------------------- step
def step(state: State, action: Any) -> State:
    """Apply the action of the player to move and return the new state (the input is unchanged)."""
    a = check_action(state, action)
    r, n, p = state.rules, state.rules.players, state.current
    hands = state.hands.copy()
    # arrays that may not change are shared with the old state (both read-only) until written
    table, help_, stock = state.table, state.help, state.stock
    opened, known, last_play, last_action = state.opened, state.known, state.last_play, state.last_action.copy()
    melds = _raw_melds(state)
    stock_empty = stock.size == 0
    played = False

    def draw(k: int) -> None:
        nonlocal stock
        take, stock = stock[:k], stock[k:]
        row = hands[p]
        for c in take:
            row[c] += 1

    if not np.count_nonzero(a):
        if r.must_play_if_able and legal.has_play(
            table, hands[p], r, opened=bool(opened[p]), help=help_ if help_usable(state, p) else None
        ):
            raise ActionError("drawing is not allowed while a legal play exists (rules: must_play_if_able)")
        event = "pass" if stock_empty else "draw"
        last_action[p] = PASS if stock_empty else DRAW
        draw(2 if r.always_draw and not opened[p] else 1)
    else:
        from_hand = np.minimum(a, state.hands[p])
        from_help = a - from_hand
        opening = legal.needs_opening(r, bool(opened[p]))
        ok, arranged = legal.check_split_play(
            table, a, from_hand, from_help, r, opening, help_ if np.count_nonzero(help_) and not opening else None
        )
        if not ok:
            event = "failed"
            last_action[p] = FAILED
            known = known.copy()
            known[p] = np.maximum(known[p], from_hand)
            draw(r.failed_play_penalty)
        else:
            event = "play"
            played = True
            if opening:  # the table's melds stay, the new ones join them
                new_melds = arranged
                if new_melds is None:  # known legal: arrange the lay-down itself
                    new_melds = legal.arrange_play(table, hands[p], a, r, opened=False)
                melds = state.melds + _meld_tuple(new_melds)
            else:  # the arrangement just computed (help plays, repack of table + play), else computed when read
                melds = None if arranged is None else _meld_tuple(arranged)
            table = table + a
            hands[p] -= from_hand
            if np.count_nonzero(from_help):
                help_ = help_ - from_help
            if np.count_nonzero(known[p]):
                known = known.copy()
                known[p] = np.maximum(known[p] - from_hand, 0)
            last_play = last_play.copy()
            last_play[p] = a
            last_action[p] = PLAY
            if not opened[p]:
                opened = opened.copy()
                opened[p] = True
            if np.count_nonzero(hands[p]) and r.always_draw:
                draw(1)

    passes = 0 if played or not stock_empty else state.passes + 1
    # every writeable array here was made by this step: freeze it rather than let State copy it
    new = _evolve(
        state, hands=_freeze(hands), table=_freeze(table), melds=melds, stock=stock, help=_freeze(help_),
        current=(p + 1) % n, opened=_freeze(opened), known=_freeze(known), last_play=_freeze(last_play),
        last_action=_freeze(last_action), passes=passes, turn=state.turn + 1, rewards=_zeros(n),
        event=event, result="",
    )
    if played and not np.count_nonzero(hands[p]):
        new = _end_game(new, p, "win")
    elif passes >= n:
        pts = hands @ _points(r)
        low = np.flatnonzero(pts == pts.min())
        new = _end_game(new, int(low[0]) if low.size == 1 else -1, "blocked" if low.size == 1 else "draw")
    if not new.done and new.turn >= r.max_turns:
        new = _evolve(new, done=True, truncated=True, winner=-1, result="truncated")
    return new


def _reward_vector(rules: Rules, winner: int, pts: np.ndarray) -> np.ndarray:
    n = rules.players
    out = np.zeros(n, dtype=np.float64)
    if winner < 0:
        return out
    if rules.reward == "win_loss":
        out[:] = -1.0 / (n - 1)
        out[winner] = 1.0
    else:
        out[:] = -pts.astype(np.float64)
        out[winner] = float(pts.sum() - pts[winner])
    return out


def _end_game(state: State, winner: int, result: str) -> State:
    r = state.rules
    pts = (state.hands @ _points(r)).astype(np.int64)
    loser_pts = pts.copy()
    if winner >= 0:
        loser_pts[winner] = 0
    if r.match_target <= 0:
        return _trusted(
            replace, state, melds=_raw_melds(state), done=True, winner=winner, result=result,
            rewards=_reward_vector(r, winner, loser_pts), event=f"{state.event}:{result}",
        )
    scores = state.scores + loser_pts
    game_rewards = _reward_vector(r, winner, loser_pts) if r.reward == "points" else np.zeros(r.players)
    if scores.max() >= r.match_target:
        low = np.flatnonzero(scores == scores.min())
        mwin = int(low[0]) if low.size == 1 else -1
        rewards = game_rewards if r.reward == "points" else _reward_vector(r, mwin, scores)
        return _trusted(
            replace, state, melds=_raw_melds(state), scores=scores, done=True, winner=mwin, result=result,
            rewards=rewards, event=f"{state.event}:{result}:match_over",
        )
    nxt = _deal(r, state.seed, state.game + 1)
    return _trusted(
        replace, state, scores=scores, result=result, rewards=game_rewards,
        event=f"{state.event}:{result}:next_game", **nxt,
    )


# ---------------------------------------------------------------------------------------------- queries
def legal_plays(
    state: State, player: int | None = None, limit: int = 64, budget: legal.ListBudget | None = None
) -> list[np.ndarray]:
    """Legal plays of ``player`` (default: the player to move) on the current table; ``budget``
    bounds the oracle's effort (:class:`~machiavelli_env.legal.ListBudget`)."""
    p = state.current if player is None else player
    return legal.legal_plays_counts(  # the state's arrays are valid count vectors
        state.table, state.hands[p], state.rules, bool(state.opened[p]), limit,
        state.help if help_usable(state, p) else None, budget,
    )


def best_play(
    state: State, player: int | None = None, objective: str = "cards", search_work: int | None = None
) -> np.ndarray:
    """The oracle's optimal play for ``player`` (hand cards only; respects the opening rule);
    ``search_work`` as in :func:`machiavelli_env.legal.best_play`."""
    p = state.current if player is None else player
    if search_work is not None:
        return legal.best_play(state.table, state.hands[p], state.rules, opened=bool(state.opened[p]),
                               objective=objective, search_work=search_work)
    return legal.best_play_counts(state.table, state.hands[p], state.rules, bool(state.opened[p]), objective)


def draw_allowed(state: State, player: int | None = None) -> bool:
    """Whether drawing is allowed (always, unless ``must_play_if_able`` and a play exists)."""
    p = state.current if player is None else player
    if not state.rules.must_play_if_able:
        return True
    return not legal.has_play(
        state.table, state.hands[p], state.rules, opened=bool(state.opened[p]),
        help=state.help if help_usable(state, p) else None,
    )


def total_counts(state: State) -> np.ndarray:
    """Every card of the state by type (hands, table, help, stock): equals the pack."""
    return state.hands.sum(axis=0) + state.table + state.help + np.bincount(state.stock, minlength=NUM_TYPES)


def validate_state(state: State, total: np.ndarray | None = None, *, skip_checked: bool = False) -> None:
    """Raise :class:`StateError` (a ``ValueError``) naming the first broken invariant of a state.

    Checks the shapes, types and ranges of every field (as ``State(...)`` does), then the cards:
    no type has more copies than the pack holds (``total`` given: the cards in play equal it
    exactly), the table's melds hold exactly the table's cards and each is a valid meld (a
    table without a stored arrangement must repack), cards known to be in a hand are held, and
    the bookkeeping agrees (``passes`` only on an empty stock, a winner only once the game is
    over, ``truncated`` only with ``done``). Every state the engine makes passes; the env's
    ``reset(options={"state": ...})`` and ``restore_state``, and :func:`state_from_json`, call
    this before they accept a state. ``skip_checked``: return at once for a state already
    checked (or made by the engine from one), as the env does.
    """
    if not isinstance(state, State):
        raise StateError(f"expected a game.State, got {type(state).__name__}")
    if skip_checked and total is None and state.__dict__.get("_valid"):
        return
    _check_structure(state)
    r = state.rules
    n = r.players
    pack = pack_counts(r)
    counts = total_counts(state)
    if total is None:
        if np.count_nonzero(counts > pack):
            raise StateError(_over_pack(counts, r))
    elif not np.array_equal(counts, total):
        diff = np.flatnonzero(counts != total)
        names = ", ".join(f"{CARD_TYPES[c]} {int(counts[c])} (expected {int(total[c])})" for c in diff[:8])
        raise StateError(f"cards lost or duplicated: {names}")
    if np.count_nonzero(state.known > state.hands):
        p = int(np.flatnonzero((state.known > state.hands).any(axis=1))[0])
        raise StateError(f"cards known to be in player {p}'s hand are not held")
    if np.count_nonzero(state.last_play > pack):
        raise StateError("state field 'last_play' holds more copies than the pack")
    melds = _raw_melds(state)
    if melds is None:
        if state.table.any() and oracle.repack(state.table, np.zeros(NUM_TYPES, dtype=np.int64), r) is None:
            raise StateError("the table cannot be arranged into valid melds")
    else:
        cards = [c for m in melds for c in m]
        if any(not 0 <= c < NUM_TYPES for c in cards):
            raise StateError(f"a meld holds a card index outside 0..{NUM_TYPES - 1}")
        if not np.array_equal(np.bincount(np.array(cards, dtype=np.int64), minlength=NUM_TYPES), state.table):
            raise StateError("the melds do not hold exactly the table's cards")
        for m in melds:
            if not is_valid_meld(m, r):
                raise StateError(f"not a valid meld on the table: {format_cards(m)}")
    if not np.isfinite(state.rewards).all():
        raise StateError("state field 'rewards' must be finite")
    if state.passes > 0 and state.stock.size:
        raise StateError("state field 'passes' counts passes on an empty stock, but the stock is not empty")
    if state.passes > n or (not state.done and state.passes >= n):
        raise StateError(f"state field 'passes' is {state.passes}: a full round of passes ({n}) ends the game")
    if state.turn > r.max_turns or (not state.done and state.turn >= r.max_turns):
        raise StateError(f"state field 'turn' is {state.turn}: the game ends at max_turns = {r.max_turns}")
    if state.truncated and (not state.done or state.result != "truncated" or state.winner != -1):
        raise StateError("a truncated state must be done, with result 'truncated' and no winner")
    if not state.done and (state.winner != -1 or state.result == "truncated"):
        raise StateError("a game that is not over has no winner and is not truncated")
    if state.done and not state.result:
        raise StateError("a finished game must say how it ended (state field 'result')")
    if not np.count_nonzero(counts > pack):
        state.__dict__["_valid"] = True


def check_invariants(state: State, total: np.ndarray | None = None) -> None:
    """Raise ``AssertionError`` if a card is lost or duplicated or the table is not valid melds.

    ``total``: the cards expected in play (default the whole pack; states built by
    :func:`new_state_from` with an explicit stock hold fewer). The checks are
    :func:`validate_state`'s (always run in full); this form serves tests of the engine.
    """
    try:
        validate_state(state, pack_counts(state.rules) if total is None else total)
    except StateError as exc:
        raise AssertionError(str(exc)) from None


def resample_hidden(state: State, observer: int, rng: np.random.Generator) -> State:
    """A full state consistent with everything ``observer`` has seen (for information-set search).

    Keeps the observer's hand, the table, the help pile, every public fact (hand sizes, stock
    size, cards known to be in each hand, last plays, scores) and redistributes the unseen cards
    (opponents' unknown cards and the stock) uniformly at random; the seed of later deals is
    redrawn too.
    """
    hands = state.hands.copy()
    pool = [np.repeat(np.arange(NUM_TYPES), np.bincount(state.stock, minlength=NUM_TYPES))]
    sizes = {}
    for q in range(state.players):
        if q == observer:
            continue
        hidden = hands[q] - state.known[q]
        pool.append(np.repeat(np.arange(NUM_TYPES), hidden))
        sizes[q] = int(hidden.sum())
        hands[q] = state.known[q]
    cards = rng.permutation(np.concatenate(pool).astype(np.int64))
    i = 0
    for q, k in sizes.items():
        np.add.at(hands[q], cards[i:i + k], 1)
        i += k
    return _trusted(
        replace, state, melds=_raw_melds(state), hands=hands, stock=cards[i:], seed=int(rng.integers(0, 2**63 - 1)))


# ---------------------------------------------------------------------------------------------- text and JSON
def hand_names(state: State, player: int, symbols: bool = False) -> list[str]:
    """Card names of a hand, sorted."""
    return format_cards(from_counts(state.hands[player]), symbols).split()


def state_to_dict(state: State) -> dict[str, Any]:
    """A JSON-serialisable dict of the full state.

    Every field of :class:`State`, plus ``out_of_play`` (a count vector) when the state holds
    fewer cards than the pack (a state built by :func:`new_state_from` with its own stock), so
    that :func:`state_from_dict` can tell such a state from a tampered one.
    """
    out: dict[str, Any] = {"rules": state.rules.to_dict()}
    for f in fields(state):
        if f.name == "rules":
            continue
        v = getattr(state, f.name)
        if isinstance(v, np.ndarray):
            out[f.name] = v.tolist()
        elif f.name == "melds":
            out[f.name] = [list(m) for m in v]
        else:
            out[f.name] = v
    missing = pack_counts(state.rules) - total_counts(state)
    if missing.any():
        out["out_of_play"] = missing.tolist()
    return out


_STATE_KEYS = frozenset(f.name for f in fields(State))


def state_from_dict(data: Mapping[str, Any]) -> State:
    """Inverse of :func:`state_to_dict`, for untrusted data: a valid state or :class:`StateError`.

    Every key of :func:`state_to_dict` must be present and no other; the values must have the
    JSON types it writes; the state must pass :func:`validate_state` with the cards in play equal
    to the pack less ``out_of_play``. Never reads a file (``rules`` is a mapping of fields).
    """
    if not isinstance(data, Mapping):
        raise StateError(f"a state is a JSON object, got {type(data).__name__}")
    keys = set(data)
    missing = sorted(_STATE_KEYS - keys)
    extra = sorted(printable(k, 30) if isinstance(k, str) else printable(repr(k), 30) for k in keys - _STATE_KEYS
                   if k != "out_of_play")
    if missing:
        raise StateError(f"state JSON misses key(s): {', '.join(missing)}")
    if extra:
        raise StateError(f"state JSON has unknown key(s): {', '.join(extra)}")
    if not isinstance(data["rules"], Mapping):
        raise StateError("state field 'rules' must be an object of rules fields")
    try:
        rules = Rules.from_dict(data["rules"])
    except ValueError as exc:
        raise StateError(f"state field 'rules': {exc}") from None
    kw = {k: v for k, v in data.items() if k != "out_of_play"}
    kw["rules"] = rules
    n = rules.players
    melds = kw["melds"]
    if not isinstance(melds, list) or not all(
        isinstance(m, list) and all(type(c) is int for c in m) for m in melds
    ):
        raise StateError("state field 'melds' must be a list of melds, each a list of card indices")
    kw["melds"] = tuple(tuple(m) for m in melds)
    for name in ("current", "passes", "turn", "game", "seed", "winner"):
        if type(kw[name]) is not int:
            raise StateError(f"state field '{name}' must be an integer, got {_json_kind(kw[name])}")
    for name in _ARRAYS:
        if not isinstance(kw[name], list):
            raise StateError(f"state field '{name}' must be an array, got {_json_kind(kw[name])}")
    stock = _array_field(kw["stock"], "stock", np.int64)
    if stock.ndim != 1:
        raise StateError("state field 'stock' must be a flat list of card indices")
    kw["stock"] = stock
    for name in ("hands", "known", "last_play"):
        arr = _array_field(kw[name], name, np.int64)
        if arr.shape != (n, NUM_TYPES):
            raise StateError(
                f"state field '{name}' must have shape ({n}, {NUM_TYPES}) for {n} players, got {arr.shape}")
        kw[name] = arr
    total = pack_counts(rules)
    if "out_of_play" in data:
        out = data["out_of_play"]
        off = _array_field(out, "out_of_play", np.int64) if isinstance(out, list) else None
        if off is None or off.shape != (NUM_TYPES,) or np.count_nonzero(off < 0) or np.count_nonzero(off > total):
            raise StateError(f"state field 'out_of_play' must be {NUM_TYPES} counts within the pack")
        total = total - off
    state = State(**kw)
    validate_state(state, total)
    state.__dict__["_valid"] = True
    return state


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    return {int: "an integer", float: "a number", str: "a string", list: "an array", dict: "an object",
            type(None): "null"}.get(type(value), type(value).__name__)


def state_to_json(state: State) -> str:
    """Serialise a state to JSON (round trip exact with :func:`state_from_json`)."""
    return json.dumps(state_to_dict(state), separators=(",", ":"))


def state_from_json(text: str | bytes) -> State:
    """Rebuild a state from :func:`state_to_json` output; :class:`StateError` (a ``ValueError``) if it is not one.

    The text is untrusted: it is parsed as strict JSON (:func:`machiavelli_env.records.loads`)
    and checked by :func:`state_from_dict`.
    """
    try:
        data = _json_loads(text)
    except ValueError as exc:
        raise StateError(f"state JSON does not parse: {exc}") from None
    return state_from_dict(data)
