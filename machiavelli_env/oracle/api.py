"""The public oracle: repack, best_play, opening plays, best plays per card and playable cards.

What it owns: the public functions, their argument checks and their errors. Everything reduces to
one bounded question (:class:`~machiavelli_env.oracle.question.Question`): choose counts
``lo <= x <= hi`` (per card type) maximising ``sum(weights * (x - lo))`` such that the multiset
``x`` partitions into valid melds (optionally: with at least one group, or worth at least N opening
points). ``repack`` is ``lo = hi = table + play``; ``best_play`` is ``lo = table, hi = table + hand``.
Each function builds its question and a budget (exact, or a work count) and hands them to
:func:`machiavelli_env.oracle.pipeline.answer`, which runs the stages that answer it; ``best_play``
and ``repack`` first make one direct call into the extension, which answers most questions
without building one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..cards import NUM_TYPES, as_counts
from ..rules import Rules
from . import _dp, dp, lp  # type: ignore[attr-defined]
from .lp import NO_WEIGHTS
from .pipeline import answer
from .question import AFTER_RACE, BEST, BOX, BY_CARD, FULL, Budget, Question, bounded, capped
from .result import OracleError, Play, _raise_code

Counts = Sequence[int] | np.ndarray
OBJECTIVES = ("cards", "points")
_INT64 = np.dtype(np.int64)


_direct_best = dp.direct_best
_direct_repack = dp.direct_repack


def _direct_again(direct: Callable[..., Any], *args: Any) -> Any:
    """After a direct call came back ``NotImplemented``: the same call once its rules (the
    argument after the two count vectors) are registered, if they were not; else
    ``NotImplemented`` (the general path's turn)."""
    rules = args[2]
    if type(rules) is Rules and dp.register(rules):
        return direct(*args)
    return NotImplemented


def objective_weights(objective: str, rules: Rules) -> np.ndarray:
    """Per-card-type weights of an objective: ``cards`` (1 each) or ``points`` (hand points).

    The returned array is shared between calls (read-only).
    """
    try:
        return dp.rules_args(rules).weights_for(objective)
    except ValueError as exc:
        raise OracleError(str(exc)) from None


def _check(counts: Counts, name: str) -> np.ndarray:
    """``counts`` as a (53,) int64 array; shape and type are checked here, signs by the extension."""
    if type(counts) is np.ndarray and counts.dtype == _INT64 and counts.shape == (NUM_TYPES,):
        return counts
    try:
        return as_counts(counts, name)
    except ValueError as exc:
        raise OracleError(str(exc)) from None


def _precheck(parts: tuple[tuple[np.ndarray, str], ...]) -> None:
    """Name the offending argument (``table``, ``hand``, ``play``) of a negative count."""
    for arr, name in parts:
        try:
            as_counts(arr, name)
        except ValueError as exc:
            raise OracleError(str(exc)) from None


def _play(res: tuple) -> Play:
    """The extension's answer ``(value, counts, melds)`` as a :class:`Play` (no copy)."""
    return tuple.__new__(Play, res)


def _sweeps_down(sweep: str) -> bool:
    """``sweep`` checked: True for ``"down"``, False for ``"up"``; ``OracleError`` otherwise."""
    if sweep not in ("up", "down"):
        raise OracleError(f"sweep must be 'up' or 'down', got {sweep!r}")
    return sweep == "down"


def solve(
    lo: Counts,
    hi: Counts,
    weights: Counts,
    rules: Rules,
    *,
    need_group: bool = False,
    min_open_points: int = 0,
    sweep: str = "up",
) -> Play | None:
    """Best ``x`` with ``lo <= x <= hi`` that partitions into valid melds; ``None`` if none exists.

    ``Play.counts`` is ``x - lo`` and ``Play.value`` is ``weights @ (x - lo)``. ``need_group``
    asks for an arrangement holding at least one group; ``min_open_points`` for melds worth at
    least that many opening points (A = 1, J/Q/K = 10, a joker worth the card it stands for).
    ``sweep`` is where the search starts: ``"up"`` from the ace, ``"down"`` from the king (not
    with opening points). Both are exact: whether there is an answer and its value are the same,
    though of several equally good plays they may return different ones. ``"down"`` is faster
    when what the question varies lies among the top ranks.

    Args:
        lo: the least count of each card type (53,).
        hi: the most count of each card type (53,), ``hi >= lo``.
        weights: the objective's weight of each card type (53 non-negative integers).
        rules: the rules whose melds are valid.
        need_group: ask for an arrangement with at least one group.
        min_open_points: ask for melds worth at least this many opening points.
        sweep: ``"up"`` or ``"down"``, where the search starts.

    Returns:
        The best play (:class:`~machiavelli_env.oracle.result.Play`: ``counts`` over ``lo``,
        ``value``, ``melds``), or ``None`` when no ``x`` in the box partitions into melds.

    Raises:
        OracleError: a malformed count vector, ``lo > hi``, more copies than the pack holds, or a
            bad ``sweep``.
    """
    down = _sweeps_down(sweep)
    if type(lo) is np.ndarray and type(hi) is np.ndarray and type(weights) is np.ndarray and weights.dtype is _INT64:
        # fast path, as in best_play
        try:
            res = (
                answer(Question(BOX, lo, hi, weights, rules, need_group, int(min_open_points), down))
                if min_open_points >= 0 else 0
            )
        except ValueError:
            res = 0
        if res is None or type(res) is tuple:
            return None if res is None else tuple.__new__(Play, res)
    lo_a = _check(lo, "lo")
    hi_a = _check(hi, "hi")
    w = np.asarray(weights)
    if w.shape != (NUM_TYPES,) or w.dtype.kind not in "iu":
        raise OracleError("weights must be 53 non-negative integers")
    if int(min_open_points) < 0:
        raise OracleError(f"min_open_points must be >= 0, got {min_open_points}")
    res = answer(Question(BOX, lo_a, hi_a, w, rules, need_group, int(min_open_points), down))
    if res is None:
        return None
    if isinstance(res, int):
        _raise_code(res, lo_a, hi_a, w, rules)
    return _play(res)


def feasible(
    lo: Counts,
    hi: Counts,
    rules: Rules,
    *,
    need_group: bool = False,
    min_open_points: int = 0,
    sweep: str = "up",
) -> np.ndarray | None:
    """The counts ``x - lo`` of some ``x`` with ``lo <= x <= hi`` that partitions into valid melds
    (``need_group`` and ``min_open_points`` as in :func:`solve`), or ``None`` if there is none.

    :func:`solve` with no weights, for callers that need only whether the box holds a partition
    and one such ``x``: no arrangement is built, and on hard boxes the LP relaxation may answer
    with its own point when that point takes whole melds (:mod:`.lp`). Which ``x`` is returned is
    not specified; whether one is never varies.

    Args:
        lo: the least count of each card type (53,).
        hi: the most count of each card type (53,), ``hi >= lo``.
        rules: the rules whose melds are valid.
        need_group: ask for an arrangement with at least one group.
        min_open_points: ask for melds worth at least this many opening points.
        sweep: ``"up"`` or ``"down"``, where the search starts.

    Returns:
        The counts ``x - lo`` (53,) of some partition in the box, or ``None``.

    Raises:
        OracleError: a malformed count vector or a bad ``sweep``.
    """
    down = _sweeps_down(sweep)
    if int(min_open_points) < 0:
        raise OracleError(f"min_open_points must be >= 0, got {min_open_points}")
    lo_a, hi_a = _check(lo, "lo"), _check(hi, "hi")
    res = answer(Question(BOX, lo_a, hi_a, NO_WEIGHTS, rules, need_group, int(min_open_points), down,
                          counts_only=True))
    if isinstance(res, int):
        _raise_code(res, lo_a, hi_a, None, rules)
    return None if res is None else _counts(res[1])


def repack(table: Counts, play: Counts, rules: Rules) -> list[list[int]] | None:
    """An arrangement of ``table + play`` into valid melds, or ``None`` if there is none.

    Args:
        table: card counts (53,) on the table.
        play: card counts (53,) added to it.
        rules: the rules whose melds are valid.

    Returns:
        The melds (each a list of card indices, runs in rank order), or ``None``.

    Raises:
        OracleError: a malformed count vector or more copies than the pack holds.
    """
    res = _direct_repack(table, play, rules)
    if res is NotImplemented:
        res = _direct_again(_direct_repack, table, play, rules)
    if res is not NotImplemented:
        return res
    t = _check(table, "table")
    p = _check(play, "play")
    total = t + p
    res = answer(Question(BOX, total, total, objective_weights("cards", rules), rules))
    if isinstance(res, int):
        _precheck(((t, "table"), (p, "play")))
        _raise_code(res, total, total, None, rules)
    if res is None:
        return None
    melds = res[2]  # encoded, or lists when the mirrored retry answered (dp._unmirror)
    return melds if isinstance(melds, list) else dp.decode_melds(melds)


def best_play(table: Counts, hand: Counts, rules: Rules, objective: str = "cards", *, arrange: bool = True) -> Play:
    """An optimal play from ``hand`` onto ``table`` (value 0 and no cards when nothing can be played).

    Raises :class:`OracleError` when the table itself cannot be arranged into valid melds.
    ``arrange=False`` is for callers that need only the counts: the answer's ``melds`` may then be
    ``None``, and the oracle skips arranging a table it has arranged before when nothing can be
    played. The counts and value are the same either way.

    Args:
        table: card counts (53,) on the table, a valid table.
        hand: card counts (53,) in the player's hand.
        rules: the rules whose melds are valid.
        objective: ``"cards"`` (most cards) or ``"points"`` (most hand points).
        arrange: whether the answer carries the new table's melds.

    Returns:
        The :class:`~machiavelli_env.oracle.result.Play` (``counts`` from the hand, ``value``,
        ``melds`` of the whole new table).

    Raises:
        OracleError: a malformed count vector, an unknown objective, or a table that cannot be
            arranged.
    """
    # one call into the extension (rules found by identity, arrays read in place, the Play built
    # there); anything unusual (rules not seen yet, lists, another dtype or shape, a bad count, a
    # position too large for the memo) comes back NotImplemented and takes the general path
    res = _direct_best(table, hand, rules, objective, arrange)
    if res.__class__ is Play:
        return res
    if res is NotImplemented:
        res = _direct_again(_direct_best, table, hand, rules, objective, arrange)
        if res.__class__ is Play:
            return res
    if res is None:
        raise OracleError("the table cannot be arranged into valid melds")
    t = _check(table, "table")
    h = _check(hand, "hand")
    w = objective_weights(objective, rules)
    res = answer(Question(BEST, t, t + h, w, rules, objective=objective))
    if res is None:
        raise OracleError("the table cannot be arranged into valid melds")
    if isinstance(res, int):
        _precheck(((t, "table"), (h, "hand")))
        _raise_code(res, t, t + h, w, rules)
    return _play(res)


def best_play_containing(table: Counts, hand: Counts, card: int, rules: Rules, objective: str = "cards") -> Play | None:
    """An optimal play that holds at least one copy of ``card`` from the hand, or ``None``."""
    t = _check(table, "table")
    h = _check(hand, "hand")
    if not 0 <= int(card) < NUM_TYPES:
        raise OracleError(f"card index out of range 0..52: {card!r}")
    if h[card] <= 0:
        return None
    lo = t.copy()
    lo[card] += 1
    w = objective_weights(objective, rules)
    hi = t + h
    res = answer(Question(BOX, lo, hi, w, rules))
    if res is None:
        return None
    if isinstance(res, int):
        _precheck(((t, "table"), (h, "hand")))
        _raise_code(res, lo, hi, w, rules)
    play = _play(res)
    counts = play.counts
    counts[card] += 1
    return Play(counts, play.value + int(w[card]), play.melds)


def best_plays_by_card(
    table: Counts,
    hand: Counts,
    rules: Rules,
    objective: str = "cards",
    *,
    need_group: bool = False,
    min_open_points: int = 0,
) -> dict[int, Play]:
    """For every hand card type that takes part in some legal play: an optimal play containing it.

    One forward and one backward pass of the dynamic programme answer all cards at once (large
    positions fall back to one exact search per card outside the overall best play). The keys are
    card types (0..52), each mapped to a :class:`Play` holding at least one copy of that card and
    maximising ``objective`` among such plays; a card in no legal play is absent. ``need_group``
    and ``min_open_points`` constrain the plays as in :func:`solve` (for an opening, pass an empty
    table). Raises :class:`OracleError` when the table cannot be arranged (and no opening
    constraint is asked for).
    """
    t = _check(table, "table")
    h = _check(hand, "hand")
    res = _by_card_answer(Question(BY_CARD, t, t + h, objective_weights(objective, rules), rules, need_group,
                                   int(min_open_points)), h)
    out: dict[int, Play] = {}
    seen: dict[bytes, Play] = {}
    for card, item in res.items():
        play = seen.get(bytes(item[1]))
        if play is None:
            play = seen[bytes(item[1])] = _play(item)
        out[card] = play
    return out


def best_counts_by_card(
    table: np.ndarray, hand: np.ndarray, rules: Rules, *, need_group: bool = False, min_open_points: int = 0,
    after_pass: bool = False,
) -> dict[int, np.ndarray]:
    """:func:`best_plays_by_card`'s plays (objective ``cards``) as counts alone, no arrangements
    built: the same plays. For int64 count vectors already known to be valid (a legal-play list's).
    ``after_pass``: the extension's own per-card pass has run on this question and could not answer
    (:func:`exact_list`), so the schedule starts with the steps after it."""
    q = Question(BY_CARD, table, table + hand, objective_weights("cards", rules), rules, need_group,
                 int(min_open_points), melds=False)
    res = _by_card_answer(q, hand, AFTER_RACE if after_pass else FULL)
    return {card: raw if type(raw := item[1]) is np.ndarray else np.frombuffer(raw, dtype=np.int64)
            for card, item in res.items()}


def _by_card_answer(q: Question, hand: np.ndarray, budget: Budget = FULL) -> dict[int, tuple]:
    """The schedule's answer ``{card: (value, counts, melds)}`` to a per-card question over the box
    ``[table, table + hand]``; raises as :func:`best_plays_by_card`."""
    if q.min_open < 0:
        raise OracleError(f"min_open_points must be >= 0, got {q.min_open}")
    res = answer(q, budget)
    if res is None:
        if q.need_group or q.min_open:
            return {}
        raise OracleError("the table cannot be arranged into valid melds")
    if isinstance(res, int):
        _precheck(((q.lo, "table"), (hand, "hand")))
        _raise_code(res, q.lo, q.hi, q.weights, q.rules)
    return res


# ---------------------------------------------------------------------------------------------- capped questions
class WorkLimitReached(Exception):
    """A question asked with ``max_work`` gave up: the search did that much work (or filled its
    memo) without settling it. Whether it gives up depends on the question only (work is a count),
    never on the machine, the time or the queries asked before."""


def search_work() -> int:
    """The exact search's work since the module loaded (:func:`machiavelli_env.oracle.dp.work`)."""
    return dp.work()


def solve_within(
    lo: np.ndarray,
    hi: np.ndarray,
    weights: np.ndarray,
    rules: Rules,
    max_work: int,
    *,
    need_group: bool = False,
    min_open_points: int = 0,
    sweep: str = "up",
    fresh: bool = True,
    arrange: bool = True,
) -> Play | None:
    """:func:`solve` by the exact search alone, giving up after ``max_work`` work.

    Answers exactly as :func:`solve` does when it answers (an optimal ``x``, or ``None`` when the
    box holds no partition); raises :class:`WorkLimitReached` otherwise. With zero ``weights`` it is
    a feasibility question. The arguments must already be valid int64 count vectors.

    The work counts the search and its per-suit relaxation. With ``fresh`` (the default) whether
    it gives up depends on the question alone; ``fresh=False`` reuses the relaxation of the capped
    questions asked since the last fresh one (cheaper when they are alike, as an enumeration's
    are), and then depends on that sequence alone. ``arrange=False`` leaves the answer's ``melds``
    ``None`` (not computed).
    """
    q = Question(BOX, lo, hi, weights, rules, need_group, int(min_open_points), _sweeps_down(sweep),
                 melds=bool(arrange))
    res = _capped_answer(q, max_work, fresh)
    return None if res is None else _play(res)


def _capped_answer(q: Question, max_work: int, fresh: bool = True) -> Any:
    """``q``'s answer within ``max_work`` (``None`` or the extension's answer): :class:`WorkLimitReached`
    when it gives up, :class:`OracleError` for a bad argument."""
    res = answer(q, capped(max_work, fresh))
    if dp.over_work(res):
        raise WorkLimitReached(f"no answer within {max_work} work")
    if isinstance(res, int):
        _raise_code(res, q.lo, q.hi, q.weights, q.rules)
    return res


def best_play_within(table: np.ndarray, hand: np.ndarray, rules: Rules, objective: str, max_work: int) -> Play:
    """:func:`best_play`'s whole schedule (``arrange=False``), giving up after ``max_work`` work
    (:class:`WorkLimitReached`), the per-suit relaxation charged from a fresh start as in
    :func:`solve_within`, so that whether it gives up depends on the question alone. The same
    answer as :func:`best_play` when it answers. The arguments must already be valid int64 count
    vectors (``OracleError`` when the table cannot be arranged)."""
    if max_work < 1:
        raise OracleError(f"max_work must be at least 1, got {max_work}")
    res = answer(_best_question(table, hand, rules, objective), capped(max_work))
    if res.__class__ is Play:
        return res
    if res is None:
        raise OracleError("the table cannot be arranged into valid melds")
    # over the cap, or a position the direct path leaves to the general one (its memo's limit)
    raise WorkLimitReached(f"no answer within {max_work} work")


def _best_question(table: np.ndarray, hand: np.ndarray, rules: Rules, objective: str) -> Question:
    return Question(BEST, table, table + hand, objective_weights(objective, rules), rules, objective=objective)


def best_play_then_ilp(table: np.ndarray, hand: np.ndarray, rules: Rules, objective: str, max_work: int) -> Play:
    """:func:`best_play`'s answer at a bounded search cost: :func:`best_play_within` ``max_work``,
    then the search from the king down within ``max_work`` (:func:`solve_within`), then the
    rounded relaxation and when that proves nothing the integer programme (as in
    :func:`solve_then_ilp`).

    All are exact, so the value is :func:`best_play`'s; of several equally good plays it
    may return another. Which step answers depends on the question alone, never on time. It
    suits questions that the full schedule can take seconds on (a big hand over a table of
    several decks and jokers), where the programme takes tens of milliseconds."""
    if max_work < 1:
        raise OracleError(f"max_work must be at least 1, got {max_work}")
    res = answer(_best_question(table, hand, rules, objective), bounded(max_work))
    if res is None:
        raise OracleError("the table cannot be arranged into valid melds")
    return res if res.__class__ is Play else _play(res)


def solve_then_ilp(
    lo: np.ndarray,
    hi: np.ndarray,
    weights: np.ndarray,
    rules: Rules,
    max_work: int,
    *,
    need_group: bool = False,
    min_open_points: int = 0,
) -> Play | None:
    """:func:`solve`'s answer at a bounded search cost: the exact search within ``max_work``
    (:func:`solve_within`, fresh, from the ace up), then (without opening points) within
    ``max_work`` again from the king down; with no opening condition, the programme's linear
    relaxation rounded when it is worth the relaxation's proven bound and arranged; and
    else the integer programme (:func:`machiavelli_env.oracle.ilp.solve_bounds`, HiGHS, run to
    proven optimality).

    Exact at every step, like :func:`best_play_then_ilp`; which step answers depends on the
    question alone. The arguments must already be valid int64 count vectors, and the answer's
    ``melds`` may be ``None``.
    """
    # the second sweep settles most big opening hands the first gives up on (the max-cards
    # lay-down holding a group out of a 59-card hand: about 10k work down, over 20k up), in a
    # tenth of the programme's time; with opening points there is no mirrored sweep
    res = answer(Question(BOX, lo, hi, weights, rules, need_group, int(min_open_points)), bounded(max_work))
    return None if res is None else _play(res)


def feasible_within(
    lo: np.ndarray, hi: np.ndarray, rules: Rules, max_work: int, *, need_group: bool = False,
    min_open_points: int = 0, fresh: bool = True,
) -> np.ndarray | None:
    """:func:`feasible` swept from the king down, by the exact search alone, giving up after
    ``max_work`` work (:class:`WorkLimitReached`): the counts ``x - lo`` of some partition in the
    box, or ``None`` when there is none. The same answer and work as :func:`solve_within` with zero
    weights, ``sweep="down"`` and ``arrange=False``; ``fresh`` as there. The arguments must already
    be valid int64 count vectors."""
    q = Question(BOX, lo, hi, NO_WEIGHTS, rules, need_group, int(min_open_points), True, True, False)
    res = _capped_answer(q, max_work, fresh)
    return None if res is None else _counts(res[1])


def _counts(raw: np.ndarray | bytearray) -> np.ndarray:
    """An answer's counts as an array of its own (the mirrored sweep's already is one)."""
    return raw if type(raw) is np.ndarray else np.frombuffer(raw, dtype=np.int64).copy()


def order_plays(plays: Sequence[np.ndarray], points: np.ndarray) -> list[np.ndarray]:
    """The plays (53 int64 counts each) in a legal-play list's order, sorted by the extension: most
    cards first, then most points (``points @ x``), then more copies of lower card types first;
    equal plays keep their order. The same objects, in a new list."""
    return _dp.order_plays(plays, points)


def exact_list(
    table: np.ndarray, hand: np.ndarray, rules: Rules, *, limit: int, short_types: int, points: np.ndarray,
    by_card: Callable[[], dict[int, np.ndarray]], best_points: Callable[[np.ndarray], np.ndarray | None],
    feasible: Callable[[np.ndarray, np.ndarray], np.ndarray | None],
) -> list[np.ndarray]:
    """An exact legal-play list of an opened player without help cards, built by the extension in one
    call (:func:`machiavelli_env.legal.legal_plays` without a budget), in the list's order
    (:func:`order_plays` with ``points``). A hand of at most ``short_types`` card types first gets the
    pass over every held type (all the legal plays when there are at most ``limit``); otherwise the
    extension's per-card pass (when it cannot answer, ``by_card()``: the oracle's per-card schedule
    after that pass, see :func:`best_counts_by_card`'s ``after_pass``), then
    :func:`enumerate_plays`' pass from the max-cards play.
    ``best_points(hi)``: the max-points play over ``[table, hi]`` (``None`` when it plays nothing),
    asked once when the list is long enough to need it; ``feasible(lo, hi)`` as for
    :func:`enumerate_plays`. The arguments must already be valid int64 count vectors."""
    ace, mjpm, decks, jokers = dp.rules_params(rules)
    found = _dp.exact_list(table, hand, points, ace, mjpm, decks, jokers, int(limit), int(short_types),
                           _list_race(), by_card, _on_arrays(best_points), _on_arrays(feasible))
    return [np.frombuffer(b, dtype=np.int64) for b in found]


def _list_race() -> int:
    """The search's expansions on an exact list's branch question after the LP refuter (-1: the
    refuter is off, and neither runs)."""
    return dp.LIST_RACE_WORK if lp.RACE_WORK else -1


def _on_arrays(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` called by the extension with count vectors as bytes: each handed on as a fresh int64 array."""
    def call(*vectors: bytes) -> Any:
        return fn(*(np.frombuffer(v, dtype=np.int64).copy() for v in vectors))

    return call


def enumerate_plays_within(
    base: np.ndarray, avail: np.ndarray, types: list[int], witness: np.ndarray, rules: Rules, *, max_nodes: int,
    question_work: int, left: int, fresh: bool, limit: int, asked: bool, guaranteed: list[np.ndarray],
    points: Callable[[int, bool], tuple[np.ndarray | None, int, bool]], hand: np.ndarray | None = None,
    need_group: bool = False, min_open_points: int = 0,
) -> tuple[list[np.ndarray], bool, bool, int, bool]:
    """The depth-first pass of a bounded legal-play list (:func:`machiavelli_env.legal.legal_plays` with a
    ``ListBudget``), run by the extension: the card types ``types`` in order, larger
    counts of each first, from ``witness`` (counts over ``base`` of a feasible play), each branch
    ``[base + x, base + x + rest]`` asked as :func:`feasible_within` asks it, capped by
    ``min(question_work, left)``, at most ``max_nodes`` branches. A leaf's play is kept unless found
    before; once the ``guaranteed`` plays and the others found reach ``limit - 1``,
    ``points(left, fresh)`` is called (unless ``asked``) for the max-points play, and the pass stops at
    ``limit``. With ``hand`` (``avail`` then holds help cards too), a play must take a card from the hand,
    and the copies beyond it must lie in groups, as :func:`machiavelli_env.legal.legal_plays` requires:
    the groups that hold them are searched here, the rest asked as above. Returns ``(found, stopped,
    gave_up, left, fresh)``. The arguments must already be valid int64 count vectors."""
    p = dp.ListPass(base, avail, types, witness, limit, asked, guaranteed, points, hand, need_group,
                    int(min_open_points))
    return dp.enumerate_capped(p, rules, dp.ListWork(max_nodes, question_work, left, fresh))


def enumerate_plays(
    base: np.ndarray, avail: np.ndarray, types: list[int], witness: np.ndarray, rules: Rules, *, limit: int,
    asked: bool, guaranteed: list[np.ndarray], points: Callable[[int, bool], tuple[np.ndarray | None, int, bool]],
    feasible: Callable[[np.ndarray, np.ndarray], np.ndarray | None], hand: np.ndarray | None = None,
    need_group: bool = False, min_open_points: int = 0,
) -> tuple[list[np.ndarray], bool]:
    """The depth-first pass of an exact legal-play list (:func:`machiavelli_env.legal.legal_plays`
    without a budget), run by the extension: :func:`enumerate_plays_within`'s pass with no cap, each
    branch question answered exactly, as :func:`feasible` swept from the king down answers it
    (whether the box holds a partition; which one may differ). The extension first asks the LP
    refuter (its point read as a partition when it is one), then the search for
    :data:`~machiavelli_env.oracle.dp.LIST_RACE_WORK` expansions, and calls ``feasible(lo, hi)``
    (count vectors; the counts over ``lo`` of a partition in the box, or ``None``) for the
    questions they leave, which :func:`feasible_after_race` answers. Returns ``(found, stopped)``:
    the plays, and whether the pass stopped at ``limit``. The arguments must already be valid int64
    count vectors."""
    p = dp.ListPass(base, avail, types, witness, limit, asked, guaranteed, points, hand, need_group,
                    int(min_open_points))
    return dp.enumerate_exact(p, rules, _list_race(), _on_arrays(feasible))


def feasible_after_race(
    lo: np.ndarray, hi: np.ndarray, rules: Rules, *, need_group: bool = False, min_open_points: int = 0
) -> np.ndarray | None:
    """:func:`feasible`'s answer swept from the king down, for a question that the LP refuter and a
    bounded search have settled nothing for: the rest of its schedule only (the steps after its
    race and refuter). The arguments must already be valid int64 count vectors."""
    q = Question(BOX, lo, hi, NO_WEIGHTS, rules, need_group, int(min_open_points), True, counts_only=True)
    res = answer(q, AFTER_RACE)
    if isinstance(res, int):
        _raise_code(res, lo, hi, None, rules)
    return None if res is None else _counts(res[1])


def best_plays_by_card_within(
    lo: np.ndarray, hi: np.ndarray, rules: Rules, max_work: int, objective: str = "cards", *,
    need_group: bool = False, min_open_points: int = 0, fresh: bool = True,
) -> dict[int, np.ndarray]:
    """:func:`best_plays_by_card` over the box ``[lo, hi]`` by the exact search alone: for every
    card type that takes part in some feasible ``x``, the counts ``x - lo`` of an optimal ``x``
    holding it (no melds). Empty when the box holds no partition; raises
    :class:`WorkLimitReached` past ``max_work`` work. Arguments (``fresh`` too) as in :func:`solve_within`."""
    w = objective_weights(objective, rules)
    q = Question(BY_CARD, lo, hi, w, rules, need_group, int(min_open_points), False, False, False)
    res = _capped_answer(q, max_work, fresh)
    if res is None:
        return {}
    return {int(card): np.frombuffer(item[1], dtype=np.int64).copy() for card, item in res.items()}


def opening_play(hand: Counts, rules: Rules, objective: str = "cards") -> Play | None:
    """The best first lay-down from the hand alone (table untouched) meeting ``rules.opening``.

    ``None`` when no such play exists (with ``opening: none``, when no meld can be formed).
    """
    h = _check(hand, "hand")
    zero = np.zeros(NUM_TYPES, dtype=np.int64)
    res = solve(
        zero, h, objective_weights(objective, rules), rules,
        need_group=rules.opening == "group", min_open_points=rules.opening_points,
    )
    if res is None or res.size == 0:
        return None
    return res


def playable_cards(table: Counts, hand: Counts, rules: Rules) -> np.ndarray:
    """Boolean (53,) mask: hand card types that take part in at least one legal play."""
    t = _check(table, "table")
    h = _check(hand, "hand")
    hi = t + h
    res = answer(Question(BY_CARD, t, hi, objective_weights("cards", rules), rules, melds=False))
    if res is None:
        raise OracleError("the table cannot be arranged into valid melds")
    if isinstance(res, int):
        _precheck(((t, "table"), (h, "hand")))
        _raise_code(res, t, hi, None, rules)
    out = np.zeros(NUM_TYPES, dtype=bool)
    out[list(res)] = True
    return out
