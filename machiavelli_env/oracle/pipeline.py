"""The oracle's schedule: which method answers a question, in which order, and what each may cost.

A :class:`~machiavelli_env.oracle.question.Question` and a
:class:`~machiavelli_env.oracle.question.Budget` go into :func:`answer`, which runs the stages of
:data:`SCHEDULES` for the question's kind and the budget's mode, in order, until one settles it. A
stage is a function of the :class:`Attempt` (the question, the budget, and what earlier stages
left for later ones) returning an answer or :data:`OPEN` (not settled). Every stage is exact: a
proof, an exact search, or a solver run to proven optimality; which stage answers depends on counts
(work, relaxations), never on time, so it is a function of the question. docs/ORACLE.md has the
table of stages: what each proves, when it runs and what bounds its cost.

Answers are the extension's (:mod:`.dp`): ``None`` (no partition in the box), a ``(value, counts,
melds)`` tuple (a :class:`~machiavelli_env.oracle.result.Play` is one), a dict per card for
:data:`~.question.BY_CARD` questions, an int error code, or :data:`~.dp.OVER_WORK` when a work count
gave up. :mod:`.api` turns them into the public answers and errors.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..cards import NUM_TYPES
from . import dp, lp
from .lp import NO_WEIGHTS
from .question import BEST, BOUNDED, BOX, BY_CARD, CAPPED, EXACT, FULL, Budget, Question, capped
from .result import Play


class _Open:
    def __repr__(self) -> str:
        return "OPEN"


#: a stage's "not settled": the next stage takes the question
OPEN: Any = _Open()


class Attempt:
    """One question on its way through a schedule: the question, the budget, ``start`` (a play with
    its melds that the relaxation stage found and the integer programme starts from) and, for an
    exact box question, whether it is a feasibility question (no weights) and a repack (``lo == hi``)."""

    __slots__ = ("q", "budget", "start", "by", "_feasibility", "_repack")

    def __init__(self, q: Question, budget: Budget) -> None:
        self.q, self.budget, self.start = q, budget, None
        self.by: Any = None  # the stage that settled it
        self._feasibility = self._repack = None

    @property
    def feasibility(self) -> bool:
        """An exact box question with no weights (worked out when first asked)."""
        if self._feasibility is None:
            q = self.q
            self._feasibility = q.kind == BOX and self.budget.mode == EXACT and not q.weights.any()
        return self._feasibility

    @property
    def repack(self) -> bool:
        """An exact box question with ``lo == hi`` (worked out when first asked)."""
        if self._repack is None:
            q = self.q
            self._repack = q.kind == BOX and self.budget.mode == EXACT and bool((q.lo == q.hi).all())
        return self._repack


Stage = Callable[[Attempt], Any]

#: a repack question (lo == hi) that the race and the LP leave open goes through the ``repack_*``
#: stages, whose searches get this much work each, then the integer programme (0: none of those,
#: the search to its end)
ILP_RACE_WORK = 10_000
#: such a repack is first asked of group branching on the relaxation (:func:`lp.branch_refutes`),
#: for at most this many relaxations (0: not asked). On 37 recorded repacks with no arrangement that
#: reached HiGHS in ``benchmarks/tail.py`` (presets and stress configurations, six seeds; HiGHS 935
#: ms in all, up to 263 ms each), it refutes all 37, in 12 ms
REPACK_BRANCH = 31
#: relaxations a dive on the relaxation may ask for an arrangement of a repack still open
#: (:func:`lp.arrangement`; 0: no dive). On 114 recorded repacks that the search's second race
#: had left to HiGHS, 15 arranges 43 (about 0.5 ms each) and 60 arranges 46. A 65-card whole-hand
#: repack with wrap and three jokers (two a meld), which HiGHS took 290-330 ms to arrange, needs
#: 30; on the 1,066 recorded repacks that reach these steps 60 costs no more in all than 15
REPACK_DIVE = 60
#: a feasibility question on a box (lo < hi somewhere) that the race and the LP leave open is
#: asked of group branching on the relaxation for at most this many relaxations before the
#: search to its end (0: not asked). On 368 such questions recorded in exact legal-play lists of
#: random play (``classic_jokers``, ``spanish_comodines``), it refuted all 90 without a partition,
#: in 18 ms in all, where the search took 830 ms; on the 278 others it cost 42 ms
BOX_BRANCH = 31
#: :func:`_rounded_up` tries at most this many points, of at most this many combinations looked at,
#: each with a dive of this many relaxations
ROUND_UP_TRIES, ROUND_UP_SCAN, ROUND_UP_DIVE = 8, 256, 15


# ---------------------------------------------------------------------------------------------- the pipeline
def answer(q: Question, budget: Budget = FULL) -> Any:
    """The answer of the first stage of ``q``'s schedule (:data:`SCHEDULES`) that settles it."""
    return _run(Attempt(q, budget))


def settle(q: Question, budget: Budget = FULL) -> tuple[Any, Stage]:
    """:func:`answer`'s answer and the stage that gave it."""
    attempt = Attempt(q, budget)
    res = _run(attempt)
    return res, attempt.by


def _run(attempt: Attempt) -> Any:
    for stage in SCHEDULES[attempt.q.kind, attempt.budget.mode]:
        res = stage(attempt)
        if res is not OPEN:
            attempt.by = stage
            return res
    raise AssertionError("no stage settled the question")  # the last stage of every schedule always does


# ---------------------------------------------------------------------------------------------- helpers
def _race(q: Question, cap: int, mirrored: bool) -> Any:
    """The search of ``q`` within ``cap`` work, its per-suit relaxation not counted: the answer, or
    :data:`~.dp.OVER_WORK`."""
    try:
        return dp.search(q, cap, mirrored and q.mirrorable)
    except MemoryError:
        return dp.OVER_WORK


def _charged(fresh: bool, call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)`` (a capped extension call) with the per-suit relaxation counted in its work,
    from a fresh start when ``fresh`` (giving up then depends on the question alone): its answer,
    or :data:`~.dp.OVER_WORK` when its memo fills."""
    dp.charge_relaxation(True, fresh)
    try:
        return call(*args)
    except MemoryError:
        return dp.OVER_WORK
    finally:
        dp.charge_relaxation(False)


def _within(q: Question, budget: Budget, mirrored: bool) -> Any:
    """The search of ``q`` within ``budget.work``, charged as :func:`_charged` says: the answer, or
    :data:`~.dp.OVER_WORK`."""
    return _charged(budget.fresh, dp.search, q, budget.work, mirrored and q.mirrorable)


def _settles_early(a: Attempt) -> bool:
    """The race and the LP refuter take feasibility and repack questions (unless they have run)."""
    return bool(lp.RACE_WORK) and not a.budget.raced and (a.feasibility or a.repack)


def _repack_steps_apply(a: Attempt) -> bool:
    """The repack stages take a repack without opening points (when the race is on)."""
    return bool(lp.RACE_WORK and ILP_RACE_WORK) and not a.q.min_open and a.repack


def ilp_solve(q: Question, start: Play | None = None) -> Any:
    """``q`` answered by the integer programme of :mod:`.ilp` (HiGHS), run to proven optimality;
    ``start``: a known play with its melds, HiGHS's first incumbent. ``MemoryError`` when highspy is
    not installed (the search's memo had been the reason to ask it)."""
    from . import ilp

    try:
        play = ilp.solve_bounds(np.asarray(q.lo), np.asarray(q.hi), np.asarray(q.weights), q.rules,
                                need_group=bool(q.need_group), min_open_points=int(q.min_open), start=start)
    except ImportError as exc:
        raise MemoryError(f"_dp: position too large for the exact search (memo limit), and {exc}") from None
    return None if play is None else (int(play.value), play.counts, play.melds)


def rounded_relaxation(q: Question) -> Any:
    """:func:`machiavelli_env.oracle.ilp.rounded_relaxation` of ``q``, or ``None`` (no optimum, or highspy
    not installed)."""
    try:
        from . import ilp

        return ilp.rounded_relaxation(np.asarray(q.lo), np.asarray(q.hi), np.asarray(q.weights), q.rules)
    except ImportError:
        return None


def _box(q: Question, lo: np.ndarray, hi: np.ndarray, **fields: Any) -> Question:
    """A box question over ``[lo, hi]`` with ``q``'s rules and side conditions (``fields`` changed)."""
    return q._replace(kind=BOX, lo=lo, hi=hi, **fields)


# ---------------------------------------------------------------------------------------------- exact stages
def race(a: Attempt) -> Any:
    """The search for at most :data:`lp.RACE_WORK` expansions, in the question's direction."""
    if not _settles_early(a):
        return OPEN
    res = _race(a.q, lp.RACE_WORK, a.q.down)
    return OPEN if dp.over_work(res) else res


def lp_refuter(a: Attempt) -> Any:
    """The LP relaxation: a checked Farkas certificate refutes the box; for a caller that wants the
    counts alone (no group or opening condition), a point that is a partition answers."""
    q = a.q
    if not _settles_early(a):
        return OPEN
    settled = lp.settle(q.lo, q.hi, dp.rules_params(q.rules), q.counts_only and not q.need_group and not q.min_open)
    if settled is True:
        return None
    return OPEN if settled is False else (0, settled, None)


def repack_branching(a: Attempt) -> Any:
    """A repack left open: group branching on the relaxation refutes it (:data:`REPACK_BRANCH`)."""
    q = a.q
    if not (_repack_steps_apply(a) and REPACK_BRANCH):
        return OPEN
    return None if lp.branch_refutes(q.lo, q.lo, dp.rules_params(q.rules), REPACK_BRANCH) else OPEN


def repack_dive(a: Attempt) -> Any:
    """A dive on the relaxation arranges the repack (:data:`REPACK_DIVE` relaxations; no group asked)."""
    q = a.q
    if not (_repack_steps_apply(a) and REPACK_DIVE) or q.need_group:
        return OPEN
    found = lp.arrangement(q.lo, dp.rules_params(q.rules), REPACK_DIVE)
    return OPEN if found is None else (0, np.zeros(NUM_TYPES, dtype=np.int64), dp.melds_in_order(found, q.rules))


def repack_whole_melds(a: Attempt) -> Any:
    """The relaxation's whole melds and the search's repack of what they leave (:data:`ILP_RACE_WORK`)."""
    q = a.q
    if not _repack_steps_apply(a) or q.need_group:
        return OPEN
    whole = lp.whole_melds(q.lo, dp.rules_params(q.rules))
    if whole is None:
        return OPEN
    melds = dp.melds_in_order(whole, q.rules)
    rest = q.lo.copy()
    for meld in melds:
        np.subtract.at(rest, meld, 1)
    if (rest < 0).any():
        return OPEN
    res = _race(_box(q, rest, rest, weights=NO_WEIGHTS, need_group=False, min_open=0, melds=True), ILP_RACE_WORK,
                False)
    if not isinstance(res, tuple):  # no repack of the rest, or over the cap
        return OPEN
    return 0, np.zeros(NUM_TYPES, dtype=np.int64), melds + dp.decode_melds(res[2])


def repack_search(a: Attempt) -> Any:
    """The search within :data:`ILP_RACE_WORK` in the question's direction, then as much the other way."""
    q = a.q
    if not _repack_steps_apply(a):
        return OPEN
    plain = _box(q, q.lo, q.lo, weights=NO_WEIGHTS, min_open=0, melds=True)
    for mirrored in (q.down, not q.down):
        res = _race(plain, ILP_RACE_WORK, mirrored)
        if not dp.over_work(res):
            return res
    return OPEN


def repack_highs(a: Attempt) -> Any:
    """The integer programme for a repack still open (its time does not grow with the search's)."""
    if not _repack_steps_apply(a):
        return OPEN
    try:
        return ilp_solve(a.q)
    except MemoryError:  # no highspy: the search to its end
        return OPEN


def box_branching(a: Attempt) -> Any:
    """A feasibility box left open: group branching on the relaxation refutes it (:data:`BOX_BRANCH`)."""
    q = a.q
    if not (lp.RACE_WORK and BOX_BRANCH and a.feasibility) or _repack_steps_apply(a):
        return OPEN
    return None if lp.branch_refutes(q.lo, q.hi, dp.rules_params(q.rules), BOX_BRANCH) else OPEN


def search(a: Attempt) -> Any:
    """The search to its end in each direction it may take (the question's own first), until one
    finishes without filling its memo. A best-play question's own direction was the extension's."""
    q = a.q
    if q.min_open:
        directions: tuple[bool, ...] = (False,)
    elif q.kind == BEST:
        directions = (True,)
    else:
        directions = (q.down, not q.down)
    for mirrored in directions:
        try:
            return dp.search(q, 0, mirrored)
        except MemoryError:
            pass
    return OPEN


def highs(a: Attempt) -> Any:
    """The integer programme (HiGHS), from the relaxation stage's play when there is one."""
    return ilp_solve(a.q, a.start)


def best_pass(a: Attempt) -> Any:
    """The extension's own best-play schedule (race, LP narrowing and bound, search both ways)."""
    try:
        return dp.best(a.q)
    except MemoryError:
        return OPEN


def by_card_pass(a: Attempt) -> Any:
    """One forward and one backward pass of the search answer every card at once (not again when the
    budget says the extension's own pass has run and could not answer: ``raced``)."""
    if a.budget.raced:
        return OPEN
    try:
        return dp.by_card(a.q)
    except MemoryError:
        return OPEN


def by_card_mirrored(a: Attempt) -> Any:
    """The same passes over the rank-reversed position."""
    if not a.q.mirrorable:
        return OPEN
    try:
        return dp.by_card(a.q, 0, True)
    except MemoryError:
        return OPEN


def by_card_each(a: Attempt) -> Any:
    """The best play overall answers every card it holds; each other card that may be added gets one
    box question with its lower bound raised by one, asked of the integer programme straight away
    when the programme answered the best play (the search would fill its memo again first)."""
    q = a.q
    whole = _box(q, np.asarray(q.lo, dtype=np.int64), np.asarray(q.hi, dtype=np.int64),
                 weights=np.asarray(q.weights, dtype=np.int64), down=False, counts_only=False, melds=True)
    best, by = settle(whole)
    if best is None:
        return None
    out = {}
    best_item = _item(best, None, whole.weights)
    for c in np.flatnonzero(whole.hi > whole.lo):
        if best_item[1][c] > 0:
            out[int(c)] = best_item
            continue
        lo_c = whole.lo.copy()
        lo_c[c] += 1
        one_more = _box(whole, lo_c, whole.hi)
        res = ilp_solve(one_more) if by in (highs, repack_highs) else answer(one_more)
        if res is not None:
            out[int(c)] = _item(res, int(c), whole.weights)
    return out


def _item(res: Any, card: int | None, w: np.ndarray) -> tuple[int, np.ndarray, list[list[int]]]:
    """``(value, counts, melds)`` of a box answer relative to its own ``lo``; ``card``: one copy
    that ``lo`` held is counted back into the play."""
    raw = res[1]
    counts = raw.copy() if isinstance(raw, np.ndarray) else np.frombuffer(raw, dtype=np.int64).copy()
    if card is not None:
        counts[card] += 1
    melds = dp.decode_melds(res[2]) if isinstance(res[2], bytes) else res[2]
    return (int(w @ counts), counts, melds)


# ---------------------------------------------------------------------------------------- capped and bounded stages
def search_within(a: Attempt) -> Any:
    """The search alone within the budget's work, in the question's direction."""
    res = _within(a.q, a.budget, a.q.down)
    return OPEN if dp.over_work(res) else res


def best_within(a: Attempt) -> Any:
    """The extension's best-play schedule within the budget's work (no arrangement), its relaxation
    counted from a fresh start."""
    q = a.q
    dp.charge_relaxation(True, True)
    try:
        res = dp.best_within(q.lo, q.hi - q.lo, q.rules, q.objective, a.budget.work)
    finally:
        dp.charge_relaxation(False)
    return res if res is None or res.__class__ is Play else OPEN


def by_card_within(a: Attempt) -> Any:
    """The per-card passes within the budget's work (no arrangement)."""
    res = _charged(a.budget.fresh, dp.by_card, a.q, a.budget.work)
    return OPEN if dp.over_work(res) else res


def gave_up(a: Attempt) -> Any:
    """A capped question that no stage settled within its work."""
    return dp.OVER_WORK


def sweeps_within(a: Attempt) -> Any:
    """The search within the budget's work (a fresh count each), no arrangement: a best-play question
    from the king down; a box from the ace up, then (no opening points) from the king down."""
    q = a.q._replace(kind=BOX, melds=False)
    fresh = a.budget._replace(fresh=True)
    directions = (True,) if a.q.kind == BEST else (False, True) if q.mirrorable else (False,)
    for mirrored in directions:
        res = _within(q, fresh, mirrored)
        if not dp.over_work(res):
            return res
    return OPEN


def relaxation(a: Attempt) -> Any:
    """The programme's linear relaxation (no group or opening condition): a play worth its proven
    bound is optimal. First the melds the relaxation's point takes whole, completed by the search's
    best play of the cards they leave (within the budget's work, from the king down; with melds);
    else the point rounded down, when the search arranges it within the work (no melds); else the
    point rounded up in a few card types it holds a fraction of (:func:`_rounded_up`). A completion
    worth less than the bound is left to the integer programme as its start. On 258 recorded
    max-cards questions that the hoarder's bounded searches left here (``benchmarks/tail.py``, every
    preset and stress configuration, 15 seeds), the completion reaches the bound on 233 and the
    rounded point on 2 more."""
    q = a.q
    if q.need_group or q.min_open:
        return OPEN
    relaxed = rounded_relaxation(q)
    if relaxed is None:
        return OPEN
    counts, bound, whole, fractions = relaxed
    start = _completion(q, a.budget.work, whole)
    if start is not None and start.value == bound:
        return start
    if int(q.weights @ counts) == bound:
        x = q.lo + counts
        res = answer(_box(q, x, x, weights=NO_WEIGHTS, down=True, melds=False), capped(a.budget.work))
        if res is not None and not dp.over_work(res):
            return Play(counts, bound)
    elif (play := _rounded_up(q, relaxed)) is not None:
        return play
    a.start = start
    return OPEN


def _completion(q: Question, work: int, whole: list[list[int]]) -> Play | None:
    """The best play in the box that holds the melds ``whole``: they, and the search's optimum of
    the cards they leave (within ``work``). ``None`` when the search gives up or the rest of
    ``lo`` fits in no melds."""
    taken = np.zeros(NUM_TYPES, dtype=np.int64)
    for meld in whole:
        np.add.at(taken, meld, 1)
    if (taken > q.hi).any():  # not from a point of the box (rounding): no completion
        return None
    rest = answer(_box(q, np.maximum(q.lo - taken, 0), q.hi - taken, down=True, melds=True), capped(work))
    if rest is None or dp.over_work(rest):
        return None
    rest = tuple.__new__(Play, rest)
    counts = np.maximum(q.lo, taken) + rest.counts - q.lo
    return Play(counts, int(q.weights @ counts), whole + rest.melds)


def _rounded_up(q: Question, relaxed: Any) -> Play | None:
    """A play worth the relaxation's bound, hence optimal, read off its point when the point rounded
    down (``relaxed.counts``) is worth less: one more copy of each of a few card types the point
    holds a fraction of, their weights making up the difference, the largest fractions first (fewer
    types first), each such ``x`` arranged by a dive on the relaxation of the box ``[x, x]``
    (:func:`lp.arrangement`, :data:`ROUND_UP_DIVE` relaxations). At most :data:`ROUND_UP_TRIES`
    points of :data:`ROUND_UP_SCAN` combinations; every count bounded, so the answer is a function of
    the question. ``None``: none arranged (which proves nothing). On the hoarder's slowest
    questions of ``benchmarks/tail.py`` (a hand of 55 cards over a joker table, stock empty, one card
    short of the bound) the first point tried was arranged, in about 1 ms, where the integer
    programme took about 30 ms."""
    counts, bound, _, fractions = relaxed
    weights = q.weights
    gap = bound - int(weights @ counts)
    up = [int(c) for c in np.argsort(-fractions, kind="stable") if fractions[c] > 0 and weights[c] > 0]
    if gap <= 0 or not up or not ROUND_UP_DIVE:
        return None
    params = dp.rules_params(q.rules)
    tries = scanned = 0
    for k in range(1, len(up) + 1):
        for types in itertools.combinations(up, k):
            scanned += 1
            if scanned > ROUND_UP_SCAN:
                return None
            if int(weights[list(types)].sum()) != gap:
                continue
            x = q.lo + counts
            x[list(types)] += 1
            found = lp.arrangement(x, params, ROUND_UP_DIVE)
            if found is not None:
                return Play(x - q.lo, bound, dp.melds_in_order(found, q.rules))
            tries += 1
            if tries == ROUND_UP_TRIES:
                return None
    return None


# ---------------------------------------------------------------------------------------------- the schedules
#: the stages of each (question kind, budget mode), in the order they are tried
SCHEDULES: dict[tuple[str, str], tuple[Stage, ...]] = {
    (BOX, EXACT): (race, lp_refuter, repack_branching, repack_dive, repack_whole_melds, repack_search, repack_highs,
                   box_branching, search, highs),
    (BOX, CAPPED): (search_within, gave_up),
    (BOX, BOUNDED): (sweeps_within, relaxation, highs),
    (BEST, EXACT): (best_pass, search, highs),
    (BEST, CAPPED): (best_within, gave_up),
    (BEST, BOUNDED): (best_within, sweeps_within, relaxation, highs),
    (BY_CARD, EXACT): (by_card_pass, by_card_mirrored, by_card_each),
    (BY_CARD, CAPPED): (by_card_within, gave_up),
}
