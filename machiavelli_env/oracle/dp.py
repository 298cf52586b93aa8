"""The extension's Python side: each call into ``_dp`` (the exact search, in C), one direction at a time.

What it owns: the rules' arguments as the extension takes them (:func:`rules_params`, :func:`register`
for the direct entry points :data:`direct_best` and :data:`direct_repack`), the rank-reversed
("mirrored") position and the mapping of its answers back, and one function per kind of extension
call, each answering a :class:`~machiavelli_env.oracle.question.Question` in one sweep direction:
:func:`search` (the depth-first search / forward pass, to the end or within a work count),
:func:`best` (the extension's own best-play schedule), :func:`by_card` (the best play holding each card,
in one forward and one backward pass) and the legal-play lists' depth-first passes
(:func:`enumerate_exact`, :func:`enumerate_capped`). Which of them answers a question, in which order,
is :mod:`machiavelli_env.oracle.pipeline`'s business, not this module's: nothing here retries or falls back.

Answers are the extension's: ``None`` (no partition in the box), ``(value, counts, melds)`` with
``counts = x - lo`` as 53 int64 in a bytearray and ``melds`` encoded (:func:`decode_melds`) or
``None``, :data:`OVER_WORK` past a work count, or an int error code (1: lo > hi, 2: more copies than
the pack, 3: a negative count or weight). A search that fills its memo raises ``MemoryError``.

Why mirror: the extension sweeps ranks from the ace up, so a conflict among the top ranks (say J, Q
and K of several suits) is found only after every combination below has been tried, and a dense
position can exhaust its memo. Reversing the rank order (A stays, 2 <-> K, 3 <-> Q, ...; aces
``low`` <-> ``high``, the other ace rules are symmetric) maps every valid meld to a valid meld, so the
mirrored position asks the same question, and a conflict at the top becomes one at the bottom, found
at once. The extension also races both directions inside one call (level by level of its budget).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..cards import NUM_TYPES
from ..rules import Rules
from . import _dp  # type: ignore[attr-defined]
from .lp import NO_WEIGHTS
from .question import Question
from .result import Play

ACE_CODES = {"low": 0, "high": 1, "low_or_high": 2, "both_ends": 3, "wrap": 4}

class RulesArgs:
    """The extension's view of one rules value: ``params`` (ace code, max jokers per meld, decks,
    jokers) and the weights of each objective, made when first asked for (read-only arrays)."""

    __slots__ = ("rules", "params", "weights")

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.params = (ACE_CODES[rules.ace], rules.max_jokers_per_meld, rules.decks, rules.jokers)
        self.weights: dict[str, np.ndarray] = {}

    def weights_for(self, objective: str) -> np.ndarray:
        """Weights of ``cards`` (1 each) or ``points`` (hand points); ``ValueError`` for another."""
        try:
            w = self.weights.get(objective)
        except TypeError:  # unhashable
            w = None
        if w is None:
            if objective == "cards":
                w = np.ones(NUM_TYPES, dtype=np.int64)
            elif objective == "points":
                w = np.array([self.rules.card_points(c) for c in range(NUM_TYPES)], dtype=np.int64)
            else:
                raise ValueError(f"unknown objective {objective!r}; use 'cards' or 'points'")
            w.setflags(write=False)
            self.weights[objective] = w
        return w


# by identity first (one dict lookup), then by value: rules loaded again (say, once per position of
# a test file) share the entry instead of computing it anew
_ARGS: dict[int, tuple[Rules, RulesArgs]] = {}  # id -> (that object, its args): the object kept alive
_ARGS_BY_VALUE: dict[Rules, RulesArgs] = {}


def rules_args(rules: Rules) -> RulesArgs:
    """The cached :class:`RulesArgs` of a rules value."""
    pair = _ARGS.get(id(rules))
    if pair is not None and pair[0] is rules:
        return pair[1]
    hit = _ARGS_BY_VALUE.get(rules)
    if hit is None:
        if len(_ARGS_BY_VALUE) > 1024:
            _ARGS_BY_VALUE.clear()
        hit = _ARGS_BY_VALUE[rules] = RulesArgs(rules)
    if len(_ARGS) > 256:
        _ARGS.clear()
    _ARGS[id(rules)] = (rules, hit)
    return hit


_dp.set_rules_type(Rules)
_dp.set_array_type(np.ndarray)


def register(rules: Rules) -> bool:
    """Let the extension's direct entry points (``_dp.best_play``, ``_dp.repack``) answer for this
    rules object: they find its arguments by identity, in a table of 512 slots (a rules object
    registered later into the same slot takes its place), and a later ``Rules`` object with the
    same values of the fields the oracle reads is registered by the extension itself. False if it
    was registered already."""
    if _dp.registered(rules):
        return False
    hit = rules_args(rules)
    rows = (_dp.weight_row(hit.weights_for("cards")), _dp.weight_row(hit.weights_for("points")))
    _dp.register_rules(rules, *rows, *hit.params)
    return True


def rules_params(rules: Rules) -> tuple[int, int, int, int]:
    """(ace code, max jokers per meld, decks, jokers) of a rules value, as the extension takes them."""
    pair = _ARGS.get(id(rules))
    return pair[1].params if pair is not None and pair[0] is rules else rules_args(rules).params


def _mirror_permutation() -> np.ndarray:
    perm = np.arange(53)
    for suit in range(4):
        for i in range(1, 13):  # 2..K at indices 1..12 of the suit; the ace (index 0) stays
            perm[13 * suit + i] = 13 * suit + 13 - i
    perm.setflags(write=False)
    return perm


MIRROR = _mirror_permutation()  # an involution: MIRROR[MIRROR] is the identity
_MIRROR_ACE = {0: 1, 1: 0, 2: 2, 3: 3, 4: 4}


def _mirrored(arr: np.ndarray) -> np.ndarray:
    return arr[MIRROR] if type(arr) is np.ndarray else np.ascontiguousarray(np.asarray(arr)[MIRROR])


def _unmirror(res: Any) -> Any:
    """Map an extension answer ``(value, counts, melds)`` of the mirrored position back."""
    if not isinstance(res, tuple):
        return res
    value, counts, melds = res
    back = np.frombuffer(counts, dtype=np.int64)[MIRROR]  # a new array
    if melds is not None:  # runs in rank order again
        melds = [[int(MIRROR[c]) for c in reversed(meld)] for meld in decode_melds(melds)]
    return value, back, melds


#: The extension's direct entry points (see :func:`register`): ``direct_best(table, hand, rules,
#: objective)`` -> ``Play`` | ``None`` (the table cannot be arranged) | ``NotImplemented``;
#: ``direct_repack(table, play, rules)`` -> melds | ``None`` | ``NotImplemented``.
direct_best = _dp.best_play
direct_repack = _dp.repack
_dp.set_play_type(Play)  # the direct entry points build Play answers


def decode_melds(encoded: bytes) -> list[list[int]]:
    """The arrangement of an extension answer (encoded: per meld its length, then its cards) as lists."""
    return _dp.melds(encoded)


def melds_in_order(rows: list[np.ndarray], rules: Rules) -> list[list[int]]:
    """Melds given as rows of 53 counts (the LP's, :func:`lp.arrangement`) as lists of their cards in
    order (runs in rank order, as :func:`machiavelli_env.oracle.ilp.ordered_melds` has them)."""
    from . import ilp

    ordered = ilp.ordered_melds(rules)
    return [list(ordered[row.tobytes()]) for row in rows]


#: the extension's answer when a question asked with a work cap gives up
OVER_WORK = 5


def over_work(res: Any) -> bool:
    """Whether an extension answer is :data:`OVER_WORK` (a work cap or a full memo gave up)."""
    return type(res) is int and res == OVER_WORK


def search(q: Question, cap: int = 0, mirrored: bool = False) -> Any:
    """The extension's search of ``q`` (``_dp.solve``), to the end (``cap`` 0) or giving up with
    :data:`OVER_WORK` past ``cap`` work; ``mirrored``: of the rank-reversed position (the sweep from
    the king down; the question must be :attr:`~Question.mirrorable`), the answer mapped back.
    ``q.melds`` False: no arrangement. ``MemoryError`` when the memo fills (with no cap)."""
    _, lo, hi, w, rules, need_group, min_open, _, _, melds, _ = q
    ace, mjpm, decks, jokers = rules_params(rules)
    if not mirrored:
        return _dp.solve(lo, hi, w, ace, mjpm, int(need_group), min_open, decks, jokers, cap, melds)
    if w is not NO_WEIGHTS and w.any():  # zeros are their own mirror
        w = w[MIRROR]
    return _unmirror(_dp.solve(lo[MIRROR], hi[MIRROR], w, _MIRROR_ACE[ace], mjpm, int(need_group), 0, decks, jokers,
                               cap, melds))


#: ``charge_relaxation(on, fresh=False)``: count the per-suit relaxation's vectors and transitions in
#: the work of the searches that follow (``on``), from a fresh start when ``fresh``; off again after
#: a capped question
charge_relaxation = _dp.charge_relaxation


def best(q: Question) -> Any:
    """The extension's best-play schedule (``_dp.best``) of a :data:`~.question.BEST` question
    (``lo`` the table, ``hi - lo`` the hand), to the end; ``MemoryError`` when its memo fills."""
    ace, mjpm, decks, jokers = rules_params(q.rules)
    return _dp.best(q.lo, q.hi - q.lo, q.weights, ace, mjpm, decks, jokers)


def best_within(table: np.ndarray, hand: np.ndarray, rules: Rules, objective: str, cap: int) -> Any:
    """:data:`direct_best`'s whole schedule without an arrangement, giving up past ``cap`` work: a
    Play, ``None`` (the table cannot be arranged), :data:`OVER_WORK`, or ``NotImplemented`` (a
    position the direct path leaves to the general one)."""
    res = direct_best(table, hand, rules, objective, False, int(cap))
    if res is NotImplemented and type(rules) is Rules and register(rules):
        res = direct_best(table, hand, rules, objective, False, int(cap))
    return res


def by_card(q: Question, cap: int = 0, mirrored: bool = False) -> Any:
    """The extension's best-play-per-card pass (``_dp.by_card``): ``None`` (nothing feasible), an int
    error code, :data:`OVER_WORK` past ``cap``, or ``{card: (value, counts, melds or None)}`` (counts
    as in :func:`search`); ``mirrored`` as there, the cards mapped back. ``MemoryError`` when the memo
    fills (with no cap)."""
    ace, mjpm, decks, jokers = rules_params(q.rules)
    if not mirrored:
        return _dp.by_card(q.lo, q.hi, q.weights, ace, mjpm, int(q.need_group), int(q.min_open), decks, jokers,
                           int(q.melds), cap)
    res = _dp.by_card(_mirrored(q.lo), _mirrored(q.hi), _mirrored(q.weights), _MIRROR_ACE[ace], mjpm,
                      int(q.need_group), 0, decks, jokers, int(q.melds), cap)
    if not isinstance(res, dict):
        return res
    return {int(MIRROR[card]): _unmirror(item) for card, item in res.items()}


# ---------------------------------------------------------------------------------------------- list passes
Points = Callable[[int, bool], tuple[np.ndarray | None, int, bool]]


@dataclass(frozen=True)
class ListPass:
    """The depth-first pass of a legal-play list (:func:`machiavelli_env.legal.legal_plays`): the card
    types ``types`` in order, larger counts of each first, from ``witness`` (counts over ``base`` of a
    feasible play), each branch ``[base + x, base + x + rest]`` asked of the oracle, until ``limit``
    plays are known. ``guaranteed``: the list's entries found before the pass; ``points(left, fresh)``
    is asked once (unless ``asked``) for the max-points play. With ``hand`` (``avail`` then holds
    help cards too) a play must take a card from the hand and its help copies must lie in groups.
    ``need_group`` / ``min_open`` constrain every play (an opening lay-down)."""

    base: np.ndarray
    avail: np.ndarray
    types: list[int]
    witness: np.ndarray
    limit: int
    asked: bool
    guaranteed: list[np.ndarray]
    points: Points
    hand: np.ndarray | None = None
    need_group: bool = False
    min_open: int = 0


@dataclass(frozen=True)
class ListWork:
    """A bounded list's caps (:class:`machiavelli_env.legal.ListBudget`'s, as the pass uses them):
    at most ``max_nodes`` branches, each question within ``min(question_work, left)``; ``fresh``:
    the relaxation is still to be started afresh."""

    max_nodes: int
    question_work: int
    left: int
    fresh: bool


#: expansions the search spends on an exact list's branch question that the LP relaxation has
#: settled nothing for (neither refuted nor given a point that is a partition), before the rest of
#: the exact schedule. An exact list asks the relaxation first: on 205,000 branch
#: questions of PPO rollouts (classic, big hands) it settles 98%, for less work and time than the
#: search's race of :data:`lp.RACE_WORK` expansions that the exact schedule runs first (which had
#: settled 85% and left the rest to the relaxation); the lists are the same either way
LIST_RACE_WORK = 1000


def _pass_args(p: ListPass, rules: Rules) -> tuple:
    ace, mjpm, decks, jokers = rules_params(rules)
    return (p.base, p.avail, p.hand, p.types, p.witness, ace, mjpm, int(p.need_group), int(p.min_open), decks, jokers)


def enumerate_capped(p: ListPass, rules: Rules, work: ListWork) -> tuple[list[np.ndarray], bool, bool, int, bool]:
    """A bounded list's pass run by the extension (``_dp.enumerate_plays``), each branch question
    asked of the search alone (swept from the king down unless opening points are asked for) within
    ``min(question_work, left)``. Returns the plays found (counts over ``base``), whether the pass
    stopped, whether a question or the node bound gave up, the work left and whether the relaxation
    is still to be started afresh."""
    found, stopped, gave_up, left, fresh = _dp.enumerate_plays(
        *_pass_args(p, rules), int(work.max_nodes), int(work.question_work), int(work.left), bool(work.fresh),
        int(p.limit), bool(p.asked), p.guaranteed, p.points)
    return [np.frombuffer(b, dtype=np.int64) for b in found], bool(stopped), bool(gave_up), int(left), bool(fresh)


def enumerate_exact(p: ListPass, rules: Rules, race: int, feasible: Callable[[bytes, bytes], Any]) -> tuple[
        list[np.ndarray], bool]:
    """An exact list's pass run by the extension (``_dp.enumerate_plays`` with ``feasible``): each branch
    question asked of the LP refuter (its point read as a partition when the question has no group or
    opening condition), then of the search swept from the king down for ``race`` expansions (< 0:
    neither step), and ``feasible(lo, hi)`` (53 int64 each, as bytes) called for what those leave.
    Returns the plays found (counts over ``base``) and whether the pass stopped."""
    # max_nodes, question_work, left and fresh are a bounded list's; an exact one does not read them
    found, stopped, _, _, _ = _dp.enumerate_plays(
        *_pass_args(p, rules), 1, 1, 1, False, int(p.limit), bool(p.asked), p.guaranteed, p.points, race, feasible)
    return [np.frombuffer(b, dtype=np.int64) for b in found], bool(stopped)


# ---------------------------------------------------------------------------------------------- counters
def stats() -> dict[str, int]:
    """Sizes of the last search (``last_states`` forward entries, ``last_nodes`` depth-first nodes,
    ``last_method`` 1 forward / 2 depth-first / 3 whole-hand probe, ``last_mirrored`` 1 when the
    mirrored sweep answered), of the transition cache, ``best_recalled`` (``best_play`` questions
    answered from an earlier answer: see ``docs/ORACLE.md``) and ``work`` (see :func:`work`)."""
    return {**_dp.stats(), "work": _dp.work()}


def work() -> int:
    """The exact search's work since the module loaded: forward-pass entries plus depth-first and
    probe expansions, over every query, and in capped questions the per-suit relaxation's vectors
    and transitions too. A count, not a time: the same queries add the same work on any machine, so it
    compares the oracle's effort across machines and runs (the integer programme's fallback is not
    counted)."""
    return _dp.work()
