"""Python side of the exact dynamic programme (the C extension ``_dp``).

:mod:`machiavelli_env.oracle.api` calls the extension in two ways. ``best_play`` and ``repack``
first make one direct call (``direct_best``, ``direct_repack``), which finds the rules' arguments
by identity (:func:`register`) and builds the answer in C; whatever that does not handle comes
back ``NotImplemented`` and takes the general path through ``raw_solve``, ``raw_best`` and
``raw_by_card`` (count vectors already checked; errors as codes; the mirrored retry below).
``solve_bounds`` is the same question for the tests and the ILP cross-checks. Per-suit
transitions are cached inside the extension across calls.

The extension sweeps ranks from the ace up, so a conflict among the top ranks (say J, Q and K of
several suits) is found only after every combination below has been tried, and a dense position
can exhaust its memo (``MemoryError``). Reversing the rank order (A stays, 2 <-> K, 3 <-> Q, ...;
aces ``low`` <-> ``high``, the other ace rules are symmetric) maps every valid meld to a valid
meld, so the same question asked of the mirrored position has the same answer, and a conflict at
the top becomes one at the bottom, found at once. The extension uses this itself: a search
without opening points (whose card values the mirror would change) that outlasts its first budget
level alternates with the mirrored search, level by level (each keeping its own memo from level
to level), and the first to finish answers; a direction whose memo fills leaves the race to the
other. When a query without opening points runs out of memo in both all the same, it is asked
again mirrored here and the answer mapped back; only if that fails too is ``MemoryError`` raised.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..cards import NUM_TYPES
from ..rules import Rules
from . import _dp, lp  # type: ignore[attr-defined]
from .result import Play, _raise_code

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
    return rules_args(rules).params


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
    return np.ascontiguousarray(np.asarray(arr)[MIRROR])


def _unmirror(res: Any) -> Any:
    """Map an extension answer ``(value, counts, melds)`` of the mirrored position back."""
    if not isinstance(res, tuple):
        return res
    value, counts, melds = res
    back = bytearray(np.frombuffer(counts, dtype=np.int64)[MIRROR].tobytes())
    if melds is not None:
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


def ilp_solve(
    lo: np.ndarray, hi: np.ndarray, weights: np.ndarray, rules: Rules, need_group: bool, min_open: int,
    start: Play | None = None,
):
    """The same answer as :func:`raw_solve`, from the integer programme of :mod:`.ilp` (HiGHS): the
    exact fallback for a position whose depth-first memo reaches ``memo_limit`` entries (a count,
    so the switch never depends on timing) in both sweep directions. ``start``: a known play with
    its melds, HiGHS's first incumbent (:func:`machiavelli_env.oracle.ilp.solve_bounds`).
    ``MemoryError`` when highspy is not installed."""
    from . import ilp

    try:
        play = ilp.solve_bounds(np.asarray(lo), np.asarray(hi), np.asarray(weights), rules,
                                need_group=bool(need_group), min_open_points=int(min_open), start=start)
    except ImportError as exc:
        raise MemoryError(f"_dp: position too large for the exact search (memo limit), and {exc}") from None
    return None if play is None else (int(play.value), play.counts, play.melds)


def ilp_rounded(lo: np.ndarray, hi: np.ndarray, weights: np.ndarray, rules: Rules):
    """:func:`machiavelli_env.oracle.ilp.rounded_relaxation`'s ``Relaxation(counts, bound, whole, fractions)``,
    or ``None`` (no optimum, or highspy not installed)."""
    try:
        from . import ilp

        return ilp.rounded_relaxation(np.asarray(lo), np.asarray(hi), np.asarray(weights), rules)
    except ImportError:
        return None


#: a repack question (lo == hi) that the first race (:data:`lp.RACE_WORK`) and the LP leave open gets
#: the steps of :func:`_open_repack`, whose searches get this much work each, then goes to the
#: integer programme (0: the search to the end, no steps)
ILP_RACE_WORK = 10_000
#: such a repack question is first asked of group branching on the relaxation
#: (:func:`lp.branch_refutes`), for at most this many relaxations (0: not asked). On 37 recorded
#: repacks with no arrangement that reached HiGHS in ``benchmarks/tail.py`` (presets and stress
#: configurations, six seeds; HiGHS 935 ms in all, up to 263 ms each), it refutes all 37, in 12 ms
REPACK_BRANCH = 31
#: relaxations a dive on the relaxation may ask for an arrangement of a repack still open
#: (:func:`lp.arrangement`; 0: no dive). On 114 recorded repacks that the search's second race
#: had left to HiGHS, 15 arranges 43 (about 0.5 ms each) and 60 arranges 46. A 65-card whole-hand
#: repack with wrap and three jokers (two a meld), which HiGHS took 290-330 ms to arrange, needs
#: 30; on the 1,066 recorded repacks that reach these steps 60 costs no more in all than 15
REPACK_DIVE = 60


#: a feasibility question on a box (lo < hi somewhere) that the first race and the LP leave open is
#: asked of group branching on the relaxation (:func:`lp.branch_refutes`) for at most this many
#: relaxations before the search's full schedule (0: not asked). On 368 such questions recorded in
#: exact legal-play lists of random play (``classic_jokers``, ``spanish_comodines``), it refuted all 90
#: without a partition, in 18 ms in all, where the search took 830 ms; on the 278 others it cost 42 ms
BOX_BRANCH = 31


def raw_solve(
    lo: np.ndarray, hi: np.ndarray, weights: np.ndarray, rules: Rules, need_group: bool, min_open: int,
    down: bool = False,
):
    """The extension's answer: ``None``, ``(value, counts, melds)`` with ``counts`` = ``x - lo`` as
    53 int64 in a bytearray and ``melds`` encoded (:func:`decode_melds`), or an int error code (1:
    lo > hi, 2: more copies than the pack, 3: a negative count or weight). Retried on the mirrored
    position when the memo runs out, then answered by :func:`ilp_solve`. ``down``: the mirrored
    position first (its sweep goes from the king down), then the position itself; ignored when
    opening points are asked for (the mirror would change them). The value, and whether there is
    an answer, are the same either way."""
    return _solve_noting_fallback(lo, hi, weights, rules, need_group, min_open, down)[0]


def raw_feasible(
    lo: np.ndarray, hi: np.ndarray, rules: Rules, need_group: bool, min_open: int, down: bool = False,
    raced: bool = False,
):
    """The counts ``x - lo`` (53 int64 in a bytearray) of some ``x`` with ``lo <= x <= hi`` that
    partitions into valid melds (with a group and opening points when asked), ``None`` if there is
    none, or an int error code as :func:`raw_solve`. Which ``x`` is not specified: past the race's
    count it may be the LP relaxation's own point, when that point takes whole melds (see
    :mod:`.lp`); the arrangement is not computed. ``raced``: the caller has already run the race
    and the LP refuter (:func:`_dp.enumerate_plays` does), and they settled nothing: the schedule
    goes on from there."""
    res = _solve_noting_fallback(lo, hi, lp.NO_WEIGHTS, rules, need_group, min_open, down, any_point=True,
                                 raced=raced)[0]
    return res[1] if isinstance(res, tuple) else res


def _solve_noting_fallback(
    lo: np.ndarray, hi: np.ndarray, weights: np.ndarray, rules: Rules, need_group: bool, min_open: int,
    down: bool = False, any_point: bool = False, raced: bool = False,
) -> tuple[Any, bool]:
    """:func:`raw_solve`'s answer, and whether it came from :func:`ilp_solve` (the search ran out
    of memo in every direction it may take). ``any_point`` (:func:`raw_feasible`): the caller needs
    only the counts, so the LP's integral point may answer (melds ``None``); ``raced`` as there."""
    ace, mjpm, decks, jokers = rules_params(rules)
    cap = lp.RACE_WORK
    if cap and (not weights.any() or (lo == hi).all()):
        # a feasibility question: the exact search first, for at most `cap` expansions; past
        # that, the LP relaxation settles most of those: a proof that there is no answer, or
        # (for a caller that wants only counts) a point that is a partition (see .lp)
        if not raced:
            res = _raced(lo, hi, weights, rules, need_group, min_open, down, cap)
            if res != OVER_WORK:  # else the full schedule below, with its fallbacks
                return res, False
            settled = lp.settle(lo, hi, (ace, mjpm, decks, jokers), any_point and not need_group and not min_open)
            if settled is True:
                return None, False
            if settled is not False:
                return (0, settled, None), False
        if ILP_RACE_WORK and not min_open and (lo == hi).all():
            # a repack still open: the relaxation's steps and the search for at most ILP_RACE_WORK
            # more in each direction (_open_repack), then the integer programme, whose time on these
            # does not grow with the search's (counts: which method answers never depends on
            # timing). Box questions stay with the search: HiGHS was slower on some of them
            res = _open_repack(lo, rules, need_group, down)
            if res is not _OPEN:
                return res, False
            try:
                return ilp_solve(lo, hi, weights, rules, need_group, 0), True
            except MemoryError:  # no highspy: the search's full schedule
                pass
        elif BOX_BRANCH and not weights.any() and lp.branch_refutes(lo, hi, (ace, mjpm, decks, jokers), BOX_BRANCH):
            # a box question still open: group branching on the relaxation refutes most of those
            # with no partition (a proof, as the refuter's), before the search's full schedule
            return None, False
    if min_open:
        try:
            return _dp.solve(lo, hi, weights, ace, mjpm, int(need_group), int(min_open), decks, jokers), False
        except MemoryError:
            return ilp_solve(lo, hi, weights, rules, need_group, min_open), True
    asks = (
        lambda: mirrored_solve(lo, hi, weights, rules, need_group),
        lambda: _dp.solve(lo, hi, weights, ace, mjpm, int(need_group), 0, decks, jokers),
    )
    for ask in asks if down else asks[::-1]:
        try:
            return ask(), False
        except MemoryError:
            pass
    return ilp_solve(lo, hi, weights, rules, need_group, 0), True


_OPEN = object()  # _open_repack: not settled


def melds_in_order(rows: list[np.ndarray], rules: Rules) -> list[list[int]]:
    """Melds given as rows of 53 counts (the LP's, :func:`lp.arrangement`) as lists of their cards in
    order (runs in rank order, as :func:`machiavelli_env.oracle.ilp.ordered_melds` has them)."""
    from . import ilp

    ordered = ilp.ordered_melds(rules)
    return [list(ordered[row.tobytes()]) for row in rows]


def _open_repack(x: np.ndarray, rules: Rules, need_group: bool, down: bool):
    """A repack question (``lo == hi == x``) that the first race of the search and the LP refuter
    leave open, settled before the integer programme when one of these settles it; each is exact
    and bounded by a count, and starts from ``x`` alone, so which one answers depends on the
    question:

    1. group branching on the relaxation refutes it (:func:`lp.branch_refutes`, at most
       :data:`REPACK_BRANCH` relaxations);
    2. a dive on the relaxation arranges ``x`` (:func:`lp.arrangement`, :data:`REPACK_DIVE`);
    3. the relaxation's whole melds and the search's repack of the rest (:func:`lp.whole_melds`);
    4. the search, within :data:`ILP_RACE_WORK` in the question's own direction, then as much
       swept the other way.

    Steps 2 and 3 arrange ``x`` only when no group is required. Returns the answer (``None``: no
    arrangement) or :data:`_OPEN`.

    On 1,066 repacks recorded where the first race and the refuter left them open
    (``benchmarks/tail.py``'s mixed games, four seeds, every preset and stress configuration), step
    1 settles 84, step 2 432, step 3 452, step 4 38, and HiGHS the last one; from step 1 on they
    take 0.55-0.67 s in all, at most 92-105 ms (HiGHS 76 ms of it), where the search's 10,000 more
    units and then the programme (its relaxation's whole melds first) took 3.1-3.9 s, at most
    164-183 ms."""
    params = rules_params(rules)
    if REPACK_BRANCH and lp.branch_refutes(x, x, params, REPACK_BRANCH):
        return None
    if not need_group:
        found = lp.arrangement(x, params, REPACK_DIVE) if REPACK_DIVE else None
        if found is not None:
            return 0, np.zeros(NUM_TYPES, dtype=np.int64), melds_in_order(found, rules)
        whole = lp.whole_melds(x, params)
        if whole is not None:
            res = _repack_rest(x, melds_in_order(whole, rules), rules, ILP_RACE_WORK)
            if res is not None:
                return res
    for mirrored in (down, not down):
        res = _raced(x, x, lp.NO_WEIGHTS, rules, need_group, 0, mirrored, ILP_RACE_WORK)
        if res != OVER_WORK:
            return res
    return _OPEN


def _raced(
    lo: np.ndarray, hi: np.ndarray, weights: np.ndarray, rules: Rules, need_group: bool, min_open: int,
    mirrored: bool, cap: int,
):
    """:func:`raw_solve`'s question asked of the search alone within ``cap`` work (its per-suit
    relaxation not counted), swept from the king down when ``mirrored`` (not with opening points):
    the answer, or :data:`OVER_WORK`."""
    ace, mjpm, decks, jokers = rules_params(rules)
    try:
        if mirrored and not min_open:
            return mirrored_solve(lo, hi, weights, rules, need_group, cap)
        return _dp.solve(lo, hi, weights, ace, mjpm, int(need_group), int(min_open), decks, jokers, cap)
    except MemoryError:
        return OVER_WORK


def _repack_rest(x: np.ndarray, whole: list[list[int]], rules: Rules, cap: int):
    """``(0, zero counts, melds)``: ``whole`` and the search's repack, within ``cap`` work, of the
    cards of ``x`` they leave; ``None`` when they hold more than ``x`` or the rest is not repacked."""
    rest = x.copy()
    for meld in whole:
        np.subtract.at(rest, meld, 1)
    if (rest < 0).any():
        return None
    res = _raced(rest, rest, lp.NO_WEIGHTS, rules, False, 0, False, cap)
    if not isinstance(res, tuple):  # no repack of the rest, or over the cap
        return None
    return 0, np.zeros(NUM_TYPES, dtype=np.int64), whole + decode_melds(res[2])


def mirrored_solve(
    lo: np.ndarray, hi: np.ndarray, weights: np.ndarray, rules: Rules, need_group: bool, cap: int = 0,
    melds: bool = True, params: tuple[int, int, int, int] | None = None,
):
    """:func:`raw_solve` (without opening points) asked of the mirrored position, answer mapped back;
    ``cap`` > 0: 5 once the search has done that much work (the extension's work cap); ``melds``
    False: no arrangement (``None``); ``params``: :func:`rules_params` of ``rules`` when known."""
    ace, mjpm, decks, jokers = params or rules_params(rules)
    w = weights if not weights.any() else _mirrored(weights)  # zeros are their own mirror
    return _unmirror(_dp.solve(_mirrored(lo), _mirrored(hi), w, _MIRROR_ACE[ace], mjpm,
                               int(need_group), 0, decks, jokers, cap, int(melds)))


def raw_best(table: np.ndarray, hand: np.ndarray, weights: np.ndarray, rules: Rules, params: tuple | None = None):
    """``raw_solve`` with ``lo = table`` and ``hi = table + hand`` (the sum taken in the extension);
    ``params``: :func:`rules_params` of ``rules`` when the caller has them."""
    ace, mjpm, decks, jokers = params or rules_params(rules)
    try:
        return _dp.best(table, hand, weights, ace, mjpm, decks, jokers)
    except MemoryError:
        pass
    try:
        return mirrored_solve(table, table + hand, weights, rules, False)
    except MemoryError:
        return ilp_solve(table, table + hand, weights, rules, False, 0)


def raw_by_card(
    lo: np.ndarray, hi: np.ndarray, weights: np.ndarray, rules: Rules, need_group: bool, min_open: int, melds: bool
):
    """The extension's best-play-per-card answer: ``None`` (nothing feasible), an int error code,
    or ``{card: (value, counts, melds or None)}`` (counts as in :func:`raw_solve`). Retried on the
    mirrored position when the memo runs out."""
    ace, mjpm, decks, jokers = rules_params(rules)
    try:
        return _dp.by_card(lo, hi, weights, ace, mjpm, int(need_group), int(min_open), decks, jokers, int(melds))
    except MemoryError:
        if min_open:
            return by_card_each(lo, hi, weights, rules, need_group, min_open)
    try:
        return mirrored_by_card(lo, hi, weights, rules, need_group, melds)
    except MemoryError:
        return by_card_each(lo, hi, weights, rules, need_group, 0)


def by_card_each(lo: np.ndarray, hi: np.ndarray, weights: np.ndarray, rules: Rules, need_group: bool, min_open: int):
    """:func:`raw_by_card`'s answer from exact searches per card type, counts and values relative
    to ``lo``. Used when the extension's own pass runs out of memo in both sweep directions.

    The best play overall answers every card it holds (it is optimal among the plays holding
    them); each other card that may be added gets one :func:`raw_solve` (its lower bound raised by
    one), or, when the search for the best play overall ran out of memo in every direction and the
    integer programme answered it, one :func:`ilp_solve` straight away: the per-card questions are
    that position with one more card fixed, and the search would fill its memo again first. The
    choice depends on a count (memo entries), never on time."""
    lo, hi, w = np.asarray(lo, dtype=np.int64), np.asarray(hi, dtype=np.int64), np.asarray(weights, dtype=np.int64)
    best, by_ilp = _solve_noting_fallback(lo, hi, w, rules, need_group, min_open)
    if best is None:
        return None
    out = {}
    best_item = _item(best, None, w)
    for c in np.flatnonzero(hi > lo):
        if best_item[1][c] > 0:
            out[int(c)] = best_item
            continue
        lo_c = lo.copy()
        lo_c[c] += 1
        if by_ilp:
            res = ilp_solve(lo_c, hi, w, rules, need_group, min_open)
        else:
            res = raw_solve(lo_c, hi, w, rules, need_group, min_open)
        if res is not None:
            out[int(c)] = _item(res, int(c), w)
    return out


def _item(res: Any, card: int | None, w: np.ndarray) -> tuple[int, np.ndarray, list[list[int]]]:
    """``(value, counts, melds)`` of a solve answer relative to its own ``lo``; ``card``: one copy
    that ``lo`` held is counted back into the play."""
    raw = res[1]
    counts = raw.copy() if isinstance(raw, np.ndarray) else np.frombuffer(raw, dtype=np.int64).copy()
    if card is not None:
        counts[card] += 1
    melds = decode_melds(res[2]) if isinstance(res[2], bytes) else res[2]
    return (int(w @ counts), counts, melds)


def mirrored_by_card(lo: np.ndarray, hi: np.ndarray, weights: np.ndarray, rules: Rules, need_group: bool, melds: bool):
    """:func:`raw_by_card` (without opening points) asked of the mirrored position, mapped back."""
    ace, mjpm, decks, jokers = rules_params(rules)
    res = _dp.by_card(_mirrored(lo), _mirrored(hi), _mirrored(weights), _MIRROR_ACE[ace], mjpm, int(need_group), 0,
                      decks, jokers, int(melds))
    if not isinstance(res, dict):
        return res
    return {int(MIRROR[card]): _unmirror(item) for card, item in res.items()}


#: the extension's answer when a question asked with a work cap gives up
OVER_WORK = 5


def capped_solve(
    lo: np.ndarray, hi: np.ndarray, weights: np.ndarray, rules: Rules, need_group: bool, min_open: int, down: bool,
    cap: int, fresh: bool = True, melds: bool = True,
):
    """:func:`raw_solve`'s question answered by the extension's own search alone, giving up with
    :data:`OVER_WORK` once it has done ``cap`` work (:func:`work`) or filled its memo: no LP, no
    second direction, no integer programme. A capped question's work also counts its per-suit
    relaxation (the vectors it computes and the transitions they read), whose cost on joker tables
    can far exceed the search's; vectors kept from earlier questions cost nothing. ``fresh`` (the
    default) drops those first, so that whether the question gives up is a function of the question
    alone (the same after any history of queries and on any machine); ``False`` continues a sequence
    of capped questions begun with a fresh one, whose work is then a function of the sequence.
    ``down`` as in :func:`raw_solve` (the mirrored position, not with opening points); ``melds``
    False: the answer's arrangement is ``None`` (not computed)."""
    if cap < 1:
        raise ValueError(f"cap must be at least 1, got {cap}")
    params = rules_params(rules)
    ace, mjpm, decks, jokers = params
    _dp.charge_relaxation(True, fresh)
    try:
        if down and not min_open:
            return mirrored_solve(lo, hi, weights, rules, need_group, cap, melds, params)
        return _dp.solve(lo, hi, weights, ace, mjpm, int(need_group), int(min_open), decks, jokers, cap, int(melds))
    except MemoryError:
        return OVER_WORK
    finally:
        _dp.charge_relaxation(False)


def capped_best(table: np.ndarray, hand: np.ndarray, rules: Rules, objective: str, cap: int):
    """:data:`direct_best`'s whole schedule (no arrangement), giving up once it has done ``cap``
    work, its per-suit relaxation charged from a fresh start (as :func:`capped_solve` with
    ``fresh``): a Play, ``None`` (the table cannot be arranged), :data:`OVER_WORK`, or
    ``NotImplemented`` (a position the direct path leaves to the general one)."""
    if cap < 1:
        raise ValueError(f"cap must be at least 1, got {cap}")
    _dp.charge_relaxation(True, True)
    try:
        res = direct_best(table, hand, rules, objective, False, int(cap))
        if res is NotImplemented and type(rules) is Rules and register(rules):
            res = direct_best(table, hand, rules, objective, False, int(cap))
        return res
    finally:
        _dp.charge_relaxation(False)


_NO_WEIGHTS = np.zeros(53, dtype=np.int64)
_NO_WEIGHTS.setflags(write=False)


def capped_feasible(
    lo: np.ndarray, hi: np.ndarray, rules: Rules, need_group: bool, min_open: int, cap: int, fresh: bool = True,
):
    """:func:`capped_solve` with no weights, swept from the king down (the mirrored position) unless
    opening points are asked for, without an arrangement: the counts ``x - lo`` (an int64 array)
    of some partition in the box, ``None``, :data:`OVER_WORK`, or an int error code. The same
    answer and work as ``capped_solve(lo, hi, 0, rules, need_group, min_open, True, cap, fresh,
    melds=False)``, with less on the Python side: the enumeration of a bounded legal-play list asks
    many of these."""
    if cap < 1:
        raise ValueError(f"cap must be at least 1, got {cap}")
    ace, mjpm, decks, jokers = rules_params(rules)
    mirror = not min_open
    _dp.charge_relaxation(True, fresh)
    try:
        if mirror:
            res = _dp.solve(lo[MIRROR], hi[MIRROR], _NO_WEIGHTS, _MIRROR_ACE[ace], mjpm, int(need_group), 0, decks,
                            jokers, cap, 0)
        else:
            res = _dp.solve(lo, hi, _NO_WEIGHTS, ace, mjpm, int(need_group), int(min_open), decks, jokers, cap, 0)
    except MemoryError:
        return OVER_WORK
    finally:
        _dp.charge_relaxation(False)
    if not isinstance(res, tuple):
        return res
    counts = np.frombuffer(res[1], dtype=np.int64)
    return counts[MIRROR] if mirror else counts.copy()


def capped_enumeration(
    base: np.ndarray, avail: np.ndarray, hand: np.ndarray | None, types: list[int], witness: np.ndarray, rules: Rules,
    need_group: bool, min_open: int, max_nodes: int, question_work: int, left: int, fresh: bool, limit: int,
    asked: bool, guaranteed: list[np.ndarray], points: Callable[[int, bool], tuple[np.ndarray | None, int, bool]],
) -> tuple[list[np.ndarray], bool, bool, int, bool]:
    """The depth-first pass of a bounded legal-play list run by the extension (``_dp.enumerate_plays``):
    each branch question as :func:`capped_feasible` asks it, within ``min(question_work, left)``; ``hand``
    when ``avail`` holds help cards (``None`` otherwise). Returns the plays found (counts over
    ``base``), whether the pass stopped, whether a question or the node bound gave up, the work left
    and whether the relaxation is still to be started afresh."""
    ace, mjpm, decks, jokers = rules_params(rules)
    found, stopped, gave_up, left, fresh = _dp.enumerate_plays(
        base, avail, hand, types, witness, ace, mjpm, int(need_group), int(min_open), decks, jokers, int(max_nodes),
        int(question_work), int(left), bool(fresh), int(limit), bool(asked), guaranteed, points)
    return [np.frombuffer(b, dtype=np.int64) for b in found], bool(stopped), bool(gave_up), int(left), bool(fresh)


#: expansions the search spends on an exact list's branch question that the LP relaxation has
#: settled nothing for (neither refuted nor given a point that is a partition), before the rest of
#: :func:`raw_feasible`'s schedule. An exact list asks the relaxation first: on 205,000 branch
#: questions of PPO rollouts (classic, big hands) it settles 98%, for less work and time than the
#: search's race of :data:`lp.RACE_WORK` expansions that :func:`raw_feasible` runs first (which had
#: settled 85% and left the rest to the relaxation); the lists are the same either way
LIST_RACE_WORK = 1000


def exact_enumeration(
    base: np.ndarray, avail: np.ndarray, hand: np.ndarray | None, types: list[int], witness: np.ndarray, rules: Rules,
    need_group: bool, min_open: int, limit: int, asked: bool, guaranteed: list[np.ndarray],
    points: Callable[[int, bool], tuple[np.ndarray | None, int, bool]],
    feasible: Callable[[bytes, bytes], np.ndarray | None],
) -> tuple[list[np.ndarray], bool]:
    """The depth-first pass of an exact legal-play list run by the extension (``_dp.enumerate_plays``
    with ``feasible``): each branch question asked of the LP refuter (:func:`lp.settle`, its point
    read as a partition when the question has no group or opening condition), then of the search
    swept from the king down for :data:`LIST_RACE_WORK` expansions, and ``feasible(lo, hi)`` (53
    int64 each, as bytes) called for the rest of :func:`raw_feasible`'s schedule when those settle
    nothing. Returns the plays found (counts over ``base``) and whether the pass stopped."""
    ace, mjpm, decks, jokers = rules_params(rules)
    # max_nodes, question_work, left and fresh are a bounded list's; an exact one does not read them
    found, stopped, _, _, _ = _dp.enumerate_plays(
        base, avail, hand, types, witness, ace, mjpm, int(need_group), int(min_open), decks, jokers, 1, 1, 1, False,
        int(limit), bool(asked), guaranteed, points, LIST_RACE_WORK if lp.RACE_WORK else -1, feasible)
    return [np.frombuffer(b, dtype=np.int64) for b in found], bool(stopped)


def capped_by_card(
    lo: np.ndarray, hi: np.ndarray, weights: np.ndarray, rules: Rules, need_group: bool, min_open: int, cap: int,
    fresh: bool = True,
):
    """:func:`raw_by_card`'s question (no melds) answered by the extension alone, giving up with
    :data:`OVER_WORK` past ``cap`` work or a full memo, as :func:`capped_solve` does (``fresh``
    too)."""
    if cap < 1:
        raise ValueError(f"cap must be at least 1, got {cap}")
    ace, mjpm, decks, jokers = rules_params(rules)
    _dp.charge_relaxation(True, fresh)
    try:
        return _dp.by_card(lo, hi, weights, ace, mjpm, int(need_group), int(min_open), decks, jokers, 0, cap)
    except MemoryError:
        return OVER_WORK
    finally:
        _dp.charge_relaxation(False)


def solve_bounds(
    lo: np.ndarray,
    hi: np.ndarray,
    weights: np.ndarray,
    rules: Rules,
    *,
    need_group: bool = False,
    min_open_points: int = 0,
) -> Play | None:
    """Best ``x`` in ``[lo, hi]`` partitioning into valid melds (see ``api.solve``); ``None`` if none."""
    res = raw_solve(lo, hi, weights, rules, need_group, min_open_points)
    if res is None:
        return None
    if isinstance(res, int):
        _raise_code(res, lo, hi, weights, rules)
    return tuple.__new__(Play, res)


def stats() -> dict[str, int]:
    """Sizes of the last search (``last_states`` forward entries, ``last_nodes`` depth-first nodes,
    ``last_method`` 1 forward / 2 depth-first / 3 whole-hand probe, ``last_mirrored`` 1 when the
    mirrored sweep answered), of the transition cache, ``best_recalled`` (``best_play`` questions
    answered from an earlier answer: see ``docs/ORACLE.md``) and ``work`` (see :func:`work`)."""
    return {**_dp.stats(), "work": _dp.work()}


def work() -> int:
    """The exact search's work since the module loaded: forward-pass entries plus depth-first and
    probe expansions, over every query, and in capped questions (:func:`capped_solve`) the per-suit
    relaxation's vectors and transitions too. A count, not a time: the same queries add the same work on
    any machine, so it compares the oracle's effort across machines and runs (the integer
    programme's fallback is not counted)."""
    return _dp.work()
