"""An independent exact oracle: an integer programme over all possible melds.

What it owns: the list of every valid meld of a rule set, the integer programme over it (HiGHS)
and its linear relaxation read at its optimum: the pipeline's last stage, and the tests' check of
the search.

Following den Hertog & Hulshof (2006), every distinct valid meld ``m`` (a multiset of card types)
gets an integer multiplicity ``y_m >= 0``, every card type ``c`` (jokers included) an integer
count ``lo_c <= x_c <= hi_c``, and card conservation ``sum_m a_{c,m} y_m = x_c`` ties them
together; the objective is ``max weights @ (x - lo)``. Solved with HiGHS (``highspy``, a core
dependency). Much slower than the dynamic programme in :mod:`machiavelli_env.oracle.dp`, but built on
nothing it shares, so the two check each other.

Melds are enumerated once per (ace mode, joker limit) by :func:`meld_list`:

* groups: 1-4 distinct suits of one rank plus jokers, 3-4 cards in all;
* runs: every window of consecutive rank positions allowed by the ace mode (``low`` A..K,
  ``high`` 2..K-A, ``low_or_high`` either but not A..K..A, ``both_ends`` also A..K..A with two
  aces, ``wrap`` any cyclic window of at most 13 ranks), with jokers at any positions of the window;

at most ``max_jokers_per_meld`` jokers (none when ``rules.jokers == 0``) and at least one real
card. A multiset that can be read both as a group and as a run (one real card and two jokers)
is kept twice, once per kind, so that ``need_group`` and opening points stay exact together.

Opening value of a meld (for ``min_open_points``): A = 1, 2..10 face value, J/Q/K = 10, and a
joker the value of the card it stands for. A multiset with a joker may stand for several melds
(``5H 6H JK`` is 4H-5H-6H or 5H-6H-7H); since the player declares what the joker stands for, the
meld is worth the **maximum** over its placements (of the same kind).
"""

from __future__ import annotations

import itertools
import os
import sys
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, NamedTuple

import numpy as np

from ..cards import JOKER, NUM_RANKS, NUM_SUITS, NUM_TYPES, make_card
from ..rules import Rules, opening_rank_points
from .result import Play

_HIGHSPY_HINT = "the ILP oracle needs highspy: pip install highspy"


@dataclass(frozen=True)
class MeldList:
    """All distinct valid melds of one rule set, as parallel arrays.

    ``matrix[m, c]`` is how many cards of type ``c`` meld ``m`` holds; ``cards[m]`` lists them in
    a natural order (a run in rank order, with its jokers where they stand); ``is_group[m]`` is
    the kind; ``open_value[m]`` the meld's value for a ``points:N`` opening; ``splittable[m]``
    whether the meld, read at a placement of maximal opening value, is the union of two shorter
    valid runs (then it is redundant: see :func:`solve_bounds`).
    """

    matrix: np.ndarray  # (n, 53) int64
    cards: tuple[tuple[int, ...], ...]
    is_group: np.ndarray  # (n,) bool
    open_value: np.ndarray  # (n,) int64
    splittable: np.ndarray  # (n,) bool

    def __len__(self) -> int:
        return len(self.cards)


def _run_windows(ace: str) -> list[list[int]]:
    """Rank index (0 = A .. 12 = K) at each position of every run window of at least 3 cards."""
    if ace == "wrap":
        return [[(s + k) % NUM_RANKS for k in range(n)] for s in range(NUM_RANKS) for n in range(3, NUM_RANKS + 1)]
    first, last = {"low": (1, 13), "high": (2, 14)}.get(ace, (1, 14))  # positions: A low 1, K 13, A high 14
    out = []
    for start in range(first, last - 1):
        for end in range(start + 2, last + 1):
            if ace == "low_or_high" and (start, end) == (1, 14):
                continue
            out.append([(p - 1) % NUM_RANKS for p in range(start, end + 1)])
    return out


def _splits(jokers: tuple[int, ...], n: int) -> bool:
    """Whether a run of ``n`` cards with jokers at these positions cuts into two runs of >= 3 with a real card each."""
    return any(
        len([i for i in jokers if i < k]) < k and len([i for i in jokers if i >= k]) < n - k for k in range(3, n - 2)
    )


@cache
def _meld_list(ace: str, max_jokers: int) -> MeldList:
    # (sorted cards, is_group) -> (ordered cards, opening value, splittable at a best placement)
    found: dict[tuple[tuple[int, ...], bool], tuple[tuple[int, ...], int, bool]] = {}

    def add(ordered: list[int], group: bool, value: int, split: bool) -> None:
        key = (tuple(sorted(ordered)), group)
        old = found.get(key)
        if old is None or old[1] < value:
            found[key] = (tuple(ordered), value, split)
        elif old[1] == value and split and not old[2]:
            found[key] = (old[0], value, True)

    for rank in range(NUM_RANKS):
        for k in range(1, NUM_SUITS + 1):
            for suits in itertools.combinations(range(NUM_SUITS), k):
                for j in range(max_jokers + 1):
                    if 3 <= k + j <= 4:
                        cards = [make_card(rank, s) for s in suits] + [JOKER] * j
                        add(cards, True, (k + j) * opening_rank_points(rank), False)
    for window in _run_windows(ace):
        value = sum(opening_rank_points(r) for r in window)
        n = len(window)
        by_suit = [[make_card(r, suit) for r in window] for suit in range(NUM_SUITS)]
        for j in range(min(max_jokers, n - 1) + 1):
            for jokers in itertools.combinations(range(n), j):
                split = _splits(jokers, n)
                for row in by_suit:
                    cards = row.copy()
                    for i in jokers:
                        cards[i] = JOKER
                    add(cards, False, value, split)

    keys = sorted(found)
    matrix = np.zeros((len(keys), NUM_TYPES), dtype=np.int64)
    melds = [cards for cards, _ in keys]
    rows = np.repeat(np.arange(len(keys)), [len(c) for c in melds])
    np.add.at(matrix, (rows, np.fromiter(itertools.chain.from_iterable(melds), dtype=np.int64, count=rows.size)), 1)
    return MeldList(
        matrix=matrix,
        cards=tuple(found[k][0] for k in keys),
        is_group=np.array([g for _, g in keys], dtype=bool),
        open_value=np.array([found[k][1] for k in keys], dtype=np.int64),
        splittable=np.array([found[k][2] for k in keys], dtype=bool),
    )


def meld_list(rules: Rules) -> MeldList:
    """Every distinct valid meld under ``rules`` (cached per ace mode and joker limit)."""
    return _meld_list(rules.ace, rules.max_jokers_per_meld if rules.jokers > 0 else 0)


def ordered_melds(rules: Rules) -> dict[bytes, tuple[int, ...]]:
    """Each meld of :func:`meld_list` in its natural order (``MeldList.cards``), keyed by its row of
    53 int64 counts (``matrix[m].tobytes()``); cached like the list."""
    return _ordered_melds(rules.ace, rules.max_jokers_per_meld if rules.jokers > 0 else 0)


@cache
def _ordered_melds(ace: str, max_jokers: int) -> dict[bytes, tuple[int, ...]]:
    ml = _meld_list(ace, max_jokers)
    return {row.tobytes(): cards for row, cards in zip(ml.matrix, ml.cards, strict=True)}


def warm_up(rules: Rules) -> None:
    """Load HiGHS and build the meld list of ``rules`` now, so that the first question that reaches
    the integer programme does not pay for them: once per process, importing highspy takes about
    0.1 s, and a meld list 6 ms (no jokers) to 2 s (wrap with four jokers a meld), growing with the
    jokers allowed per meld. Raises ``ImportError`` when highspy is missing."""
    _highs()
    meld_list(rules)


@lru_cache(maxsize=1)
def _highs() -> Any:
    """One reusable, silent HiGHS instance. HiGHS prints a banner on standard output when the first
    instance is made; it is sent to /dev/null, since the oracle also serves programs whose output
    is data (``machiavelli solve --batch`` writes JSON lines)."""
    try:
        import highspy
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(_HIGHSPY_HINT) from exc
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            h = highspy.Highs()
            h.setOptionValue("output_flag", False)
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    h.setOptionValue("mip_rel_gap", 0.0)
    # the objective is an integer (integer weights), so a dual bound less than 1 above the incumbent
    # proves it optimal; 0.99 leaves HiGHS's tolerances (about 1e-6 here) a wide margin. On 27
    # recorded max-cards questions that reached the programme (benchmarks/tail.py's joker presets
    # and stress configurations, eleven seeds) the values are the same and the CPU time 17% less
    # than with 0.5 (a 56-card hand over a 10-card classic_jokers table: 23 -> 9.5 ms)
    h.setOptionValue("mip_abs_gap", 0.99)
    # HiGHS 1.16's presolve wrongly declares some feasible meld models infeasible (a 66-card ace-low
    # table, tests/test_ilp_regressions.py); without presolve the answers are exact and the speed similar.
    h.setOptionValue("presolve", "off")
    # one thread (a move's cost stays on the caller's core, and many envs run one per core), and no
    # feasibility-jump heuristic: on 42 recorded max-cards questions of big hands over joker
    # tables (benchmarks/tail.py's slowest), CPU time per question 29.1 -> 15.6 ms mean, 99 -> 80 ms
    # max; the answers are exact either way
    h.setOptionValue("threads", 1)
    h.setOptionValue("mip_heuristic_run_feasibility_jump", False)
    # nor the root reduced-cost heuristic: on 51 recorded max-cards questions that the hoarder's
    # bounded search left to the programme (benchmarks/tail.py, seven seeds), CPU time -16% and -17% on two sets of them
    h.setOptionValue("mip_heuristic_run_root_reduced_cost", False)
    return h


def _run(h: Any) -> None:
    """``h.run()``; when another user of HiGHS in this process (cvxpy's HiGHS backend, say) started
    HiGHS's one thread scheduler with more threads than this instance's one, HiGHS refuses to run
    ("Option 'threads' is set to 1 but the scheduler has already been initialized to use 2
    threads") and the model status stays "Not Set": then this instance takes the scheduler as it
    is (``threads`` 0) and runs again, leaving the other user's scheduler alone."""
    import highspy

    if h.run() == highspy.HighsStatus.kError and h.getModelStatus() == highspy.HighsModelStatus.kNotset:
        h.setOptionValue("threads", 0)
        h.run()


def _model(
    lo: np.ndarray, hi: np.ndarray, w: np.ndarray, ml: MeldList, side: tuple[bool, int] = (False, 0),
    all_melds: bool = False,
) -> tuple[Any, np.ndarray] | None:
    """The integer programme of :func:`solve_bounds` as a ``highspy.HighsLp`` and the indices of the
    melds it uses (its columns after the 53 counts); ``None`` when a card of ``lo`` fits in no meld.
    ``side``: ``(need_group, min_open_points)``."""
    import highspy
    need_group, min_open_points = side
    keep = (ml.matrix <= hi).all(axis=1)
    if not all_melds:
        keep &= ~ml.splittable
    usable = np.flatnonzero(keep)
    a = ml.matrix[usable]  # (n, 53)
    if (lo[~a.any(axis=0)] > 0).any():
        return None  # a card that must be placed fits in no meld
    n = len(usable)

    # columns: x_0..x_52, then y_0..y_{n-1}; rows: conservation (53), then the optional ones
    extra: list[tuple[np.ndarray, float]] = []
    if need_group:
        extra.append((ml.is_group[usable].astype(float), 1.0))
    if min_open_points > 0:
        extra.append((ml.open_value[usable].astype(float), float(min_open_points)))
    dense = np.zeros((NUM_TYPES + len(extra), NUM_TYPES + n))
    dense[:NUM_TYPES, :NUM_TYPES] = -np.eye(NUM_TYPES)
    dense[:NUM_TYPES, NUM_TYPES:] = a.T
    for i, (row, _) in enumerate(extra):
        dense[NUM_TYPES + i, NUM_TYPES:] = row
    nz = dense.T != 0  # column-wise sparse form
    y_upper = np.where(a > 0, hi // np.maximum(a, 1), hi.max()).min(axis=1) if n else np.zeros(0)

    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = NUM_TYPES + n, dense.shape[0]
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.col_cost_ = np.concatenate([w, np.zeros(n)]).astype(float)
    lp.col_lower_ = np.concatenate([lo, np.zeros(n)]).astype(float)
    lp.col_upper_ = np.concatenate([hi, y_upper]).astype(float)
    lp.row_lower_ = np.array([0.0] * NUM_TYPES + [b for _, b in extra])
    lp.row_upper_ = np.array([0.0] * NUM_TYPES + [highspy.kHighsInf] * len(extra))
    lp.integrality_ = [highspy.HighsVarType.kInteger] * lp.num_col_
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = lp.num_col_, lp.num_row_
    lp.a_matrix_.start_ = np.concatenate([[0], np.cumsum(nz.sum(axis=1))]).astype(np.int32)
    lp.a_matrix_.index_ = np.nonzero(nz)[1].astype(np.int32)
    lp.a_matrix_.value_ = dense.T[nz]

    return lp, usable


class Relaxation(NamedTuple):
    """The linear relaxation of :func:`solve_bounds`' programme, read at its optimal point.

    ``counts``: the point's card counts rounded down, minus ``lo`` (``lo <= x <= hi``, not always
    a partition); ``bound``: a proven upper bound on ``weights @ (x' - lo)`` over every partition
    ``x'`` in the box; ``whole``: the melds the point takes whole, each as often as the rounded
    down multiplicity of its column (together never more than ``hi``); ``fractions``: what rounding
    down took off each card type's count (53 floats in ``[0, 1)``; 0 where ``counts`` is at ``hi``)."""

    counts: np.ndarray
    bound: int
    whole: list[list[int]]
    fractions: np.ndarray


def rounded_relaxation(lo: np.ndarray, hi: np.ndarray, weights: np.ndarray, rules: Rules) -> Relaxation | None:
    """The linear relaxation of :func:`solve_bounds`' programme (no side constraints), rounded down
    (:class:`Relaxation`), or ``None`` when the relaxation has no optimum. When ``x`` partitions
    into melds and ``weights @ (x - lo) == bound``, ``x`` is optimal, with no branching; the
    ``whole`` melds start a play that a search of what they leave can complete.

    ``bound`` is proven, not read off the solver: for any row prices ``p``, every feasible point
    of the box has ``c @ z <= sum_j max(d_j * lower_j, d_j * upper_j)`` with reduced costs
    ``d = c - A.T @ p``; it is evaluated with HiGHS's row duals (either sign), rounded down."""
    h = _highs()
    import highspy
    lo = np.asarray(lo, dtype=np.int64)
    hi = np.asarray(hi, dtype=np.int64)
    w = np.asarray(weights, dtype=np.int64)
    ml = meld_list(rules)
    model = _model(lo, hi, w, ml)
    if model is None:
        return None
    lp, usable = model
    lp.integrality_ = []
    h.clearModel()
    h.passModel(lp)
    _run(h)
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    sol = h.getSolution()
    z = np.asarray(sol.col_value)
    prices = np.asarray(sol.row_dual)
    a = lp.a_matrix_
    cols = np.repeat(np.arange(lp.num_col_), np.diff(np.asarray(a.start_)))
    cost = np.asarray(lp.col_cost_)
    lower, upper = np.asarray(lp.col_lower_), np.asarray(lp.col_upper_)
    bounds = []
    for p in (prices, -prices):
        d = cost - np.bincount(cols, weights=np.asarray(a.value_) * p[np.asarray(a.index_)], minlength=lp.num_col_)
        bounds.append(np.maximum(d * lower, d * upper).sum())
    bound = int(np.floor(min(bounds) + 1e-6)) - int(w @ lo)
    x = np.clip(np.floor(z[:NUM_TYPES] + 1e-9).astype(np.int64), lo, hi)
    times = np.floor(z[NUM_TYPES:] + 1e-9).astype(np.int64)
    whole = [list(ml.cards[usable[m]]) for m in np.flatnonzero(times > 0) for _ in range(int(times[m]))]
    fractions = np.where(x < hi, np.clip(z[:NUM_TYPES] - x, 0.0, None), 0.0)
    fractions[fractions < 1e-6] = 0.0
    return Relaxation(x - lo, bound, whole, fractions)


def _start_columns(melds: list[list[int]], usable: np.ndarray, ml: MeldList) -> np.ndarray | None:
    """The multiplicities of :func:`_model`'s meld columns that hold ``melds`` (a partition, runs
    in rank order as the search writes them), or ``None`` when one of them is no column. A run
    left out of the columns as splittable is cut into pieces that are columns."""
    column = {}
    for j in range(len(usable) - 1, -1, -1):  # the first column of a multiset (group or run) wins
        column[tuple(sorted(ml.cards[usable[j]]))] = j
    y = np.zeros(len(usable), dtype=np.int64)

    def place(meld: list[int]) -> bool:
        j = column.get(tuple(sorted(meld)))
        if j is not None:
            y[j] += 1
            return True
        for k in range(3, len(meld) - 2):
            head, tail = meld[:k], meld[k:]
            if head.count(JOKER) < k and tail.count(JOKER) < len(tail):
                saved = y.copy()
                if place(head) and place(tail):
                    return True
                y[:] = saved  # try the next cut
        return False

    return y if all(place(m) for m in melds) else None


def solve_bounds(
    lo: np.ndarray,
    hi: np.ndarray,
    weights: np.ndarray,
    rules: Rules,
    *,
    need_group: bool = False,
    min_open_points: int = 0,
    all_melds: bool = False,
    start: Play | None = None,
) -> Play | None:
    """Best ``x`` with ``lo <= x <= hi`` partitioning into valid melds, by integer programming.

    Same contract as ``dp.solve_bounds``: ``Play.counts = x - lo``, ``Play.value = weights @ (x - lo)``,
    ``Play.melds`` a list of melds (lists of card types) partitioning ``x``; ``None`` if infeasible.
    ``need_group`` requires at least one group; ``min_open_points`` melds worth at least that many
    opening points (see the module docstring for how jokers count). Inputs are trusted (the
    public :func:`machiavelli_env.oracle.api.solve` validates them). Not thread-safe.

    By default the programme leaves out the *splittable* runs: those that, read at a placement of
    maximal opening value, cut into two valid runs (each at least 3 long, with a real card).
    The two pieces are melds of the list, hold the same cards and are worth at least as much, and
    a run is never a group, so the optimum, feasibility and both side constraints are unchanged;
    HiGHS is then about twice as fast (with at most 2 jokers per meld exactly the runs of 6 or more
    cards go). Long runs then come back cut into pieces. ``all_melds=True`` uses every meld.

    ``start``: a known play in the box with its melds (runs in rank order), handed to HiGHS as its
    first incumbent, so that its search has only to prove or beat it; the optimum is the same.
    A start that is no feasible point of the programme is ignored.
    """
    h = _highs()  # raises the install hint when highspy is missing
    import highspy
    lo = np.asarray(lo, dtype=np.int64)
    w = np.asarray(weights, dtype=np.int64)
    ml = meld_list(rules)
    model = _model(lo, np.asarray(hi, dtype=np.int64), w, ml, (need_group, min_open_points), all_melds)
    if model is None:
        return None
    lp, usable = model
    h.clearModel()
    h.passModel(lp)
    if start is not None:
        y = _start_columns(start.melds, usable, ml)
        if y is not None:
            first = highspy.HighsSolution()
            first.col_value = np.concatenate([lo + start.counts, y]).astype(float).tolist()
            h.setSolution(first)
    _run(h)
    status = h.getModelStatus()
    if status in (highspy.HighsModelStatus.kInfeasible, highspy.HighsModelStatus.kUnboundedOrInfeasible):
        return None
    if status != highspy.HighsModelStatus.kOptimal:
        raise RuntimeError(f"HiGHS did not solve the meld ILP: {h.modelStatusToString(status)}")
    sol = np.rint(np.asarray(h.getSolution().col_value)).astype(np.int64)
    x, y = sol[:NUM_TYPES], sol[NUM_TYPES:]
    melds = [list(ml.cards[usable[m]]) for m in np.flatnonzero(y) for _ in range(int(y[m]))]
    counts = x - lo
    return Play(counts, int(w @ counts), melds)
