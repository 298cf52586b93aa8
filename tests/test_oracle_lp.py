"""The LP refuter (``oracle.lp``) and its race with the exact search: a refutation is always right
(checked against the search alone on crowded joker tables), the race changes no answer and no list
of legal plays, the work cap of ``_dp.solve`` gives up by a count, and the refuter's own meld list
is the integer programme's (less runs that are the sum of two others)."""

from __future__ import annotations

import numpy as np
import pytest
from game_positions import crowded_positions

from machiavelli_env import legal
from machiavelli_env.oracle import _dp, dp, ilp, lp
from machiavelli_env.oracle import api as oracle
from machiavelli_env.rules import Rules

ZERO = np.zeros(53, dtype=np.int64)


@pytest.mark.parametrize("ace", ["low", "high", "low_or_high", "both_ends", "wrap"])
@pytest.mark.parametrize("jokers,per_meld", [(0, 1), (2, 1), (2, 2), (4, 3), (4, 4)])
def test_the_refuters_melds_are_the_programmes_less_redundant_runs(ace: str, jokers: int, per_meld: int) -> None:
    rules = Rules.load("classic").replace(ace=ace, jokers=jokers, max_jokers_per_meld=per_meld)
    mine = {row.tobytes() for row in lp.melds(dp.rules_params(rules))}
    listed = ilp.meld_list(rules)
    every = listed.matrix.astype(np.int64)
    theirs = {row.tobytes() for row in every[~listed.splittable]}
    # the refuter leaves out every run that some placement cuts in two, the programme those that a
    # placement of the most opening points cuts: each one left out is the sum of two shorter melds
    assert mine <= theirs
    index = {row.tobytes() for row in every}
    for key in theirs - mine:
        meld = np.frombuffer(key, dtype=np.int64)
        parts = every[(every <= meld).all(axis=1) & (every.sum(axis=1) < meld.sum())]
        assert any((meld - p).tobytes() in index for p in parts)
    assert len(theirs - mine) <= len(theirs) // 10


def _boxes(preset: str, seed: int) -> list[tuple[np.ndarray, np.ndarray, Rules]]:
    """Feasibility boxes like legal_plays' branch questions: the table and some hand cards fixed,
    other hand cards free, on crowded tables."""
    rng = np.random.default_rng(seed)
    out = []
    for table, hand, rules in crowded_positions(preset, games=3, seed=seed, other="hoarder", min_table=20)[::2]:
        for _ in range(6):
            fixed = rng.binomial(hand, 0.3)
            free = rng.binomial(hand - fixed, 0.4)
            lo = table + fixed
            out.append((lo, lo + free, rules))
    return out


@pytest.mark.parametrize("preset", ["jokers2", "classic_jokers", "classic"])
def test_a_refutation_is_never_wrong(preset: str) -> None:
    old = lp.set_race_work(0)  # the search alone decides
    try:
        refuted = infeasible = 0
        for lo, hi, rules in _boxes(preset, seed=9100):
            exact = oracle.solve(lo, hi, ZERO, rules)
            says = lp.refutes(lo, hi, dp.rules_params(rules))
            if says:
                assert exact is None
                refuted += 1
            infeasible += exact is None
        # the relaxation settles most infeasible boxes: a refuter that never refutes fails here
        assert infeasible >= 10 and refuted >= infeasible // 2
    finally:
        lp.set_race_work(old)


def test_a_card_that_fits_no_meld_is_refuted_and_a_valid_table_is_not() -> None:
    rules = Rules.load("classic_jokers")
    params = dp.rules_params(rules)
    table = np.zeros(53, dtype=np.int64)
    table[[0, 1, 2]] = 1  # A 2 3 of the first suit: a run
    assert not lp.refutes(table, table, params)
    lone = table.copy()
    lone[6] = 1  # a 7 of that suit with nothing around it
    assert lp.refutes(lone, lone, params)
    hi = lone.copy()
    hi[52] = 1  # ... unless a joker may join: 7 and a joker still need a third card
    assert lp.refutes(lone, hi, params)
    hi[[5, 7]] = 1  # 6 and 8 free: 6 7 8 is a run
    assert not lp.refutes(lone, hi, params)


@pytest.mark.parametrize("preset", ["jokers2", "spanish_comodines"])
def test_the_race_changes_no_answer(preset: str) -> None:
    boxes = _boxes(preset, seed=9200)
    old = lp.set_race_work(0)
    try:
        alone = [oracle.solve(lo, hi, ZERO, rules, sweep="down") for lo, hi, rules in boxes]
    finally:
        lp.set_race_work(old)
    raced = [oracle.solve(lo, hi, ZERO, rules, sweep="down") for lo, hi, rules in boxes]
    assert [a is None for a in alone] == [b is None for b in raced]
    for (lo, hi, _), b in zip(boxes, raced, strict=True):
        if b is not None:
            assert np.all(b.counts >= 0) and np.all(lo + b.counts <= hi)


def test_legal_plays_are_the_same_without_the_refuter() -> None:
    positions = crowded_positions("jokers2", games=3, seed=9300, other="hoarder", min_table=12)
    positions = sorted(positions, key=lambda p: -int(p[1].sum()))[:6]
    legal.clear_caches()
    raced = [legal.legal_plays(t, h, r, limit=32) for t, h, r in positions]
    old = lp.set_race_work(0)
    try:
        legal.clear_caches()
        alone = [legal.legal_plays(t, h, r, limit=32) for t, h, r in positions]
    finally:
        lp.set_race_work(old)
        legal.clear_caches()
    assert [[p.tolist() for p in a] for a in alone] == [[p.tolist() for p in b] for b in raced]


def test_the_work_cap_gives_up_by_a_count() -> None:
    boxes = _boxes("jokers2", seed=9400)
    args = [(lo, hi, dp.rules_params(rules)) for lo, hi, rules in boxes]
    capped = 0
    for lo, hi, (ace, mjpm, decks, jokers) in args:
        before = dp.work()
        full = _dp.solve(lo, hi, ZERO, ace, mjpm, 0, 0, decks, jokers)
        full_work = dp.work() - before
        res = _dp.solve(lo, hi, ZERO, ace, mjpm, 0, 0, decks, jokers, 50)
        if res == 5:
            capped += 1
            assert full_work > 50
        else:
            assert (res is None) == (full is None)
    assert capped > 0
    ace, mjpm, decks, jokers = args[0][2]
    with pytest.raises(ValueError, match="cap must be >= 0"):
        _dp.solve(ZERO, ZERO, ZERO, ace, mjpm, 0, 0, decks, jokers, -1)


def test_bad_refuter_input_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="lo <= hi"):
        _dp.lp_refute(ZERO + 1, ZERO, 2, 1, 2)
    with pytest.raises(ValueError, match="bad rules arguments"):
        _dp.lp_refute(ZERO, ZERO, 9, 1, 2)
    with pytest.raises(ValueError, match="race work must be >= 0"):
        lp.set_race_work(-1)


@pytest.mark.parametrize("preset", ["jokers2", "classic_jokers"])
def test_feasible_gives_a_partition_exactly_when_solve_does(preset: str) -> None:
    points = 0
    for lo, hi, rules in _boxes(preset, seed=9500):
        counts = oracle.feasible(lo, hi, rules, sweep="down")
        assert (counts is None) == (oracle.solve(lo, hi, ZERO, rules) is None)
        settled = lp.settle(lo, hi, dp.rules_params(rules), True)
        for found in (counts, None if isinstance(settled, bool) else np.frombuffer(settled, dtype=np.int64)):
            if found is None:
                continue
            x = lo + found
            assert np.all(found >= 0) and np.all(x <= hi)
            assert oracle.repack(x, ZERO, rules) is not None  # x partitions into melds
        points += not isinstance(settled, bool)
    assert points > 0  # the relaxation's point took whole melds somewhere


def test_feasible_rejects_bad_input_clearly() -> None:
    rules = Rules.load("classic")
    with pytest.raises(oracle.OracleError, match="lower bounds exceed upper bounds"):
        oracle.feasible(ZERO + 1, ZERO, rules)
    with pytest.raises(oracle.OracleError, match="sweep must be"):
        oracle.feasible(ZERO, ZERO, rules, sweep="left")
    with pytest.raises(oracle.OracleError):
        oracle.feasible([1, 2], ZERO, rules)


@pytest.mark.parametrize("ace", ["low", "high", "low_or_high", "both_ends", "wrap"])
@pytest.mark.parametrize("jokers", [0, 2])
def test_the_meld_count_refutes_only_boxes_without_a_partition(ace: str, jokers: int) -> None:
    # _dp.support_refutes: a card needing more melds than the box could give it. Small random boxes
    # (a few fixed cards, some free ones, two decks) under every ace rule: whenever it refutes, the
    # exact oracle finds no partition, and it does refute some
    rules = Rules.load("classic").replace(ace=ace, jokers=jokers)
    rng = np.random.default_rng(9300 + jokers)
    refuted = 0
    for _ in range(150):
        lo = np.zeros(53, dtype=np.int64)
        lo[rng.choice(52, size=int(rng.integers(1, 5)), replace=False)] = 1
        free = np.zeros(53, dtype=np.int64)
        free[rng.choice(52, size=int(rng.integers(0, 12)), replace=False)] = 1
        free[52] = rng.integers(0, jokers + 1)
        hi = lo + free
        if not _dp.support_refutes(lo, hi):
            continue
        refuted += 1
        assert oracle.solve(lo, hi, ZERO, rules) is None, (ace, np.flatnonzero(lo), np.flatnonzero(hi))
    assert refuted >= 20


def test_the_meld_count_counts_copies_groups_runs_and_jokers() -> None:
    from machiavelli_env.cards import to_counts

    def refutes(lo: str, extra: str) -> bool:
        low = to_counts(lo)
        return _dp.support_refutes(low, low + to_counts(extra))

    assert refutes("7H", "9H 10S") and not refutes("7H", "8H 9H") and not refutes("7H", "7S 7D")
    assert refutes("7H", "7S 8H")  # one other suit and one neighbour: no window, no group
    assert not refutes("7H 7H", "6H 6H 8H 8H") and not refutes("7H 7H", "8H 8H 9H 9H")
    assert not refutes("7H", "5H 6H") and refutes("7H 7H", "5H 6H")  # a copy needs a meld of its own
    assert not refutes("7H 7H", "6H 8H 7S 7D")  # a run and a group
    assert refutes("7H 7H", "7S 7D") and not refutes("7H 7H", "7S 7S 7D 7D")
    assert not refutes("7H", "*")  # a joker may stand in any meld
    assert not refutes("AH AH", "")  # aces are never counted (both_ends runs hold two)
    assert not refutes("2H", "KH AH") and not refutes("KH", "AH 2H")  # ranks taken circularly
    with pytest.raises(ValueError, match="support_refutes"):
        _dp.support_refutes(to_counts("7H 8H"), to_counts("7H"))
