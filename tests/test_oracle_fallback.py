"""The oracle's exact fallback: a position whose depth-first memo reaches its entry limit in both
sweep directions is answered by the integer programme, with the same values, instead of raising
MemoryError. The limit counts entries, so the switch never depends on timing."""

from __future__ import annotations

import numpy as np
import pytest
from game_positions import crowded_positions

from machiavelli_env.cards import to_counts
from machiavelli_env.melds import is_valid_meld
from machiavelli_env.oracle import _dp, best_play, best_plays_by_card, pipeline, repack
from machiavelli_env.oracle import dp as dp_module
from machiavelli_env.rules import Rules

pytest.importorskip("highspy")

# a crowded two-joker table with a small hand: the bounded depth-first search needs about 10,000 nodes
TABLE = to_counts(
    "AS AS 2S 3S 3S 4S 5S 5S 6S 6S 7S 8S 9S 10S 10S QS KS AH AH 2H 3H 4H 5H 5H 6H 6H 7H 8H 9H 9H 10H 10H "
    "JH JH QH KH AD 2D 3D 4D 6D 7D 9D 9D 10D 10D JD QD QD 3C 5C 6C 7C 9C 10C JC JC QC KC KC JK JK"
)
HAND = to_counts("4H 2D 7D 2C")
RULES = Rules.load("classic_jokers")
TINY = {"memo_limit": 20, "budget": 10, "budget2": 10, "probe": 10, "full": 0, "repack_full": 0}


@pytest.fixture
def tiny_memo():
    saved = _dp.set_params()
    _dp.set_params(**TINY)
    try:
        yield
    finally:
        _dp.set_params(**saved)


@pytest.fixture
def count_ilp(monkeypatch):
    calls = []
    real = pipeline.ilp_solve

    def counted(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(pipeline, "ilp_solve", counted)
    return calls


def _valid_arrangement(melds: list[list[int]], total: np.ndarray) -> bool:
    got = np.zeros(53, dtype=np.int64)
    for meld in melds:
        np.add.at(got, meld, 1)
    return all(is_valid_meld(m, RULES) for m in melds) and np.array_equal(got, total)


@pytest.fixture(scope="module")
def search_answers():
    """The answers of the extension's own search (default parameters)."""
    return best_play(TABLE, HAND, RULES), {c: p.value for c, p in best_plays_by_card(TABLE, HAND, RULES).items()}


def test_best_play_past_the_memo_limit_is_answered_exactly_by_the_ilp(search_answers, tiny_memo, count_ilp) -> None:
    expected = search_answers[0]
    got = best_play(TABLE, HAND, RULES)
    assert count_ilp, "the fallback was not used"
    assert got.value == expected.value == 2
    assert np.all(got.counts <= HAND)
    assert _valid_arrangement(got.melds, TABLE + got.counts)


def test_best_plays_by_card_past_the_memo_limit_match_the_search(search_answers, tiny_memo, count_ilp) -> None:
    expected = search_answers[1]
    got = best_plays_by_card(TABLE, HAND, RULES)
    assert count_ilp
    assert {c: p.value for c, p in got.items()} == expected
    for c, p in got.items():
        assert p.counts[c] >= 1 and _valid_arrangement(p.melds, TABLE + p.counts)


def test_repack_past_the_memo_limit_still_decides(tiny_memo) -> None:
    melds = repack(TABLE, to_counts("2D 2C"), RULES)
    assert melds is not None and _valid_arrangement(melds, TABLE + to_counts("2D 2C"))
    assert repack(TABLE, to_counts("2D 2C 7D"), RULES) is None


def test_by_card_past_the_memo_limit_asks_the_ilp_once_per_card_outside_the_best_play(tiny_memo, count_ilp) -> None:
    # the best play answers the cards it holds; each other hand card is one integer programme,
    # asked at once (the search already ran out of memo on the position without that card fixed)
    best = best_play(TABLE, HAND, RULES)
    count_ilp.clear()
    got = best_plays_by_card(TABLE, HAND, RULES)
    outside = [c for c in np.flatnonzero(HAND) if best.counts[c] == 0]
    assert len(count_ilp) == 1 + len(outside)
    for c in np.flatnonzero(best.counts):
        assert got[int(c)].value == best.value and got[int(c)].counts[c] >= 1


@pytest.fixture
def quick_races(monkeypatch):
    """The first race (search, then the LP) and the second (search, then the integer programme) at
    one unit of work each, and no branching or dive on the relaxation, so that every repack question
    reaches the integer programme."""
    from machiavelli_env.oracle import lp

    saved = lp.set_race_work(1)
    monkeypatch.setattr(pipeline, "ILP_RACE_WORK", 1)
    monkeypatch.setattr(pipeline, "REPACK_BRANCH", 0)
    monkeypatch.setattr(pipeline, "REPACK_DIVE", 0)
    try:
        yield
    finally:
        lp.set_race_work(saved)


def test_a_repack_the_search_does_not_settle_within_its_race_is_answered_by_the_ilp(quick_races, count_ilp) -> None:
    from machiavelli_env.oracle.api import solve

    zero = np.zeros(53, dtype=np.int64)
    total = TABLE + to_counts("2D 2C")
    got = solve(total, total, zero, RULES)
    assert count_ilp, "the integer programme was not asked"
    assert got is not None and got.value == 0 and not got.counts.any()
    assert _valid_arrangement(got.melds, total)
    bad = TABLE + to_counts("2D 2C 7D")
    assert solve(bad, bad, zero, RULES) is None


def test_the_ilp_race_leaves_box_questions_and_quick_repacks_to_the_search(count_ilp) -> None:
    from machiavelli_env.oracle.api import feasible, solve

    zero = np.zeros(53, dtype=np.int64)
    total = TABLE + to_counts("2D 2C")
    assert solve(total, total, zero, RULES) is not None  # settled within the default races
    assert feasible(TABLE, TABLE + HAND, RULES) is not None
    assert not count_ilp


# hoarder's whole-hand question on a stress configuration of benchmarks/tail.py (two decks, four
# jokers, two a meld): 80 cards that neither race settles, and that HiGHS took about 190 ms to answer
STRESS_RULES = Rules.load("classic").replace(jokers=4, max_jokers_per_meld=2)
STRESS_REPACK = to_counts(
    "AS 2S 3S 3S 4S 5S 5S 6S 6S 7S 8S 8S 9S 9S 10S 10S QS KS KS AH AH 2H 2H 3H 3H 4H 4H 5H 6H 6H 7H 8H 8H "
    "9H 10H 10H JH JH AD 2D 3D 3D 4D 5D 5D 6D 7D 8D 8D 9D 9D 10D JD JD QD QD KD AC 2C 2C 3C 3C 4C 4C 5C 5C "
    "6C 6C 7C 8C 9C 10C 10C JC QC QC KC KC JK JK"
)


def _assert_partition(melds: list[list[int]], x: np.ndarray, rules: Rules) -> None:
    cards = np.zeros(53, dtype=np.int64)
    for meld in melds:
        np.add.at(cards, meld, 1)
    assert all(is_valid_meld(m, rules) for m in melds) and np.array_equal(cards, x)


def _assert_arranges(got, x: np.ndarray, rules: Rules) -> None:
    assert got is not None and got.value == 0 and not got.counts.any()
    _assert_partition(got.melds, x, rules)


def _assert_repacked_without_highs(x: np.ndarray, rules: Rules, count_ilp: list, count_highs_relaxations: list) -> None:
    """``solve(x, x, 0)`` arranges ``x``, and neither HiGHS's programme nor its relaxation was asked."""
    from machiavelli_env.oracle.api import solve

    zero = np.zeros(53, dtype=np.int64)
    _assert_arranges(solve(x, x, zero, rules), x, rules)
    assert not count_ilp and not count_highs_relaxations, "HiGHS was asked"


@pytest.fixture
def count_highs_relaxations(monkeypatch):
    """The integer programme's relaxations asked (``ilp.rounded_relaxation``), as a list."""
    from machiavelli_env.oracle import ilp

    asked = []
    real = ilp.rounded_relaxation

    def spy(*args, **kw):
        asked.append(args)
        return real(*args, **kw)

    monkeypatch.setattr(ilp, "rounded_relaxation", spy)
    return asked


def test_a_repack_both_races_leave_open_is_arranged_from_the_relaxations_whole_melds_and_the_search(
    count_ilp, count_highs_relaxations
) -> None:
    from machiavelli_env.oracle import lp

    params = dp_module.rules_params(STRESS_RULES)
    assert lp.arrangement(STRESS_REPACK, params, pipeline.REPACK_DIVE) is None  # the dive does not find one
    whole = lp.whole_melds(STRESS_REPACK, params)
    assert whole and (sum(whole) <= STRESS_REPACK).all()
    _assert_repacked_without_highs(STRESS_REPACK, STRESS_RULES, count_ilp, count_highs_relaxations)


# hoarder's whole-hand question on jokers2 (two decks, two jokers): 76 cards that both races, the
# dive and the relaxation's whole melds leave open, and the search swept from the king down settles;
# the integer programme took 44 ms on it
JOKERS2_REPACK = to_counts(
    "AS 2S 2S 3S 3S 4S 4S 5S 6S 6S 7S 7S 8S 8S 9S 9S 10S 10S QS KS KS AH AH 2H 3H 4H 5H 5H 6H 6H 7H 8H "
    "9H 10H JH JH QH KH AD 2D 2D 4D 5D 5D 6D 8D 9D 9D 10D QD QD KD KD AC 2C 2C 3C 4C 4C 5C 6C 7C 7C 8C "
    "8C 9C 9C 10C JC JC QC QC KC KC JK JK"
)


def test_a_repack_the_other_sweep_settles_asks_no_highs(count_ilp, count_highs_relaxations) -> None:
    from machiavelli_env.oracle import lp

    rules = Rules.load("jokers2")
    params = dp_module.rules_params(rules)
    assert lp.arrangement(JOKERS2_REPACK, params, pipeline.REPACK_DIVE) is None
    assert not lp.branch_refutes(JOKERS2_REPACK, JOKERS2_REPACK, params, pipeline.REPACK_BRANCH)
    _assert_repacked_without_highs(JOKERS2_REPACK, rules, count_ilp, count_highs_relaxations)


# hoarder's going-out repack on ace "wrap" with four jokers, two a meld: 65 cards (three jokers) that the
# races, branching and the search in both directions leave open; a dive of 15 relaxations misses it, one
# of 30 finds it, and the integer programme took 290-330 ms
WRAP_REPACK = to_counts(
    "2S 3S 4S 5S 5S AH 3H 4H 5H JH KH AD 2D 3D 4D 5D 7D 9D 10D KD 5C 6C 7C 8C JK JK "
    "8S 8S 9S 10S JS JS QS KS KS AH 2H 5H 6H 7H 8H 8H JH QH AD 3D 6D 7D 8D 10D JD JD QD KD AC 3C 4C 4C 5C 9C "
    "10C JC QC QC JK"
)


def test_a_repack_that_a_short_dive_misses_is_arranged_by_the_dive_without_highs(
    count_ilp, count_highs_relaxations
) -> None:
    from machiavelli_env.oracle import lp

    rules = Rules.load("classic", ace="wrap", jokers=4, max_jokers_per_meld=2)
    params = dp_module.rules_params(rules)
    assert lp.arrangement(WRAP_REPACK, params, 15) is None
    assert lp.arrangement(WRAP_REPACK, params, pipeline.REPACK_DIVE) is not None
    _assert_repacked_without_highs(WRAP_REPACK, rules, count_ilp, count_highs_relaxations)


def test_a_dive_arrangement_is_a_partition_of_x_from_x_alone() -> None:
    from machiavelli_env.oracle import ilp, lp

    rules = Rules.load("classic_jokers")
    params = dp_module.rules_params(rules)
    ordered = ilp.ordered_melds(rules)
    found = 0
    for table, hand, _ in crowded_positions("classic_jokers", 2, seed=4500, other="hoarder", min_table=10):
        x = table + hand
        first = lp.arrangement(x, params, 60)
        lp.settle(table, table + hand, params, False)  # another question moves the simplex's basis
        again = lp.arrangement(x, params, 60)
        assert (first is None) == (again is None)
        if first is None:
            continue
        assert [m.tolist() for m in first] == [m.tolist() for m in again]
        melds = [list(ordered[m.tobytes()]) for m in first]
        assert all(is_valid_meld(m, rules) for m in melds)
        assert np.array_equal(sum(first), x)
        found += 1
    assert found


def test_a_repack_whose_whole_melds_leave_no_repack_within_the_cap_goes_to_the_ilp(count_ilp, monkeypatch) -> None:
    from machiavelli_env.oracle.api import solve

    monkeypatch.setattr(pipeline, "ILP_RACE_WORK", 50)  # the second race and the rest's repack: 50 units
    monkeypatch.setattr(pipeline, "REPACK_DIVE", 0)
    zero = np.zeros(53, dtype=np.int64)
    got = solve(STRESS_REPACK, STRESS_REPACK, zero, STRESS_RULES)
    assert len(count_ilp) == 1
    assert got is not None and got.value == 0


# a whole-hand repack of hoarder's on classic_jokers that neither race settles and that has no arrangement
NO_REPACK = to_counts(
    "AS AS 2S 2S 3S 4S 5S 6S 6S 7S 8S 9S JS QS KS KS AH AH 2H 3H 3H 4H 5H 6H 6H 7H 7H 8H 8H 9H 9H JH JH QH "
    "AD AD 2D 2D 4D 5D 5D 7D 8D 9D 9D 10D JD JD QD QD KD AC 2C 4C 5C 5C 6C 6C 7C 9C 9C QC KC KC JK JK JK"
)


def test_group_branching_refutes_a_repack_before_the_ilp(count_ilp, monkeypatch) -> None:
    from machiavelli_env.oracle import lp
    from machiavelli_env.oracle.api import solve

    zero = np.zeros(53, dtype=np.int64)
    params = dp_module.rules_params(RULES)
    assert lp.settle(NO_REPACK, NO_REPACK, params, False) is False  # the relaxation alone has a point
    assert lp.branch_refutes(NO_REPACK, NO_REPACK, params, pipeline.REPACK_BRANCH)
    assert not lp.branch_refutes(NO_REPACK, NO_REPACK, params, 0)
    assert not lp.branch_refutes(STRESS_REPACK, STRESS_REPACK, dp_module.rules_params(STRESS_RULES), 1000)  # a repack
    assert solve(NO_REPACK, NO_REPACK, zero, RULES) is None
    assert not count_ilp, "the integer programme was asked"
    monkeypatch.setattr(pipeline, "REPACK_BRANCH", 0)  # without branching the programme answers the same
    assert solve(NO_REPACK, NO_REPACK, zero, RULES) is None
    assert len(count_ilp) == 1


def test_warm_up_builds_the_meld_list_and_loads_highs_without_output(capfd) -> None:
    from machiavelli_env.oracle import ilp

    ilp._meld_list.cache_clear()
    ilp.warm_up(Rules.load("classic_jokers"))
    assert ilp._meld_list.cache_info().currsize == 1
    assert ilp._highs.cache_info().currsize == 1
    assert capfd.readouterr().out == ""  # HiGHS' banner never reaches standard output


@pytest.mark.parametrize("name", ["stress", "jokers2"])
def test_repack_of_arrays_and_of_lists_give_the_same_arrangement_past_the_race(name: str) -> None:
    # arrays take the extension's direct call, lists the general path: the direct call searches as
    # long as the general path's first race and then leaves the question to it, so both answer alike
    x, rules = (STRESS_REPACK, STRESS_RULES) if name == "stress" else (JOKERS2_REPACK, Rules.load("jokers2"))
    zero = np.zeros(53, dtype=np.int64)
    assert _dp.repack(x, zero, rules) is NotImplemented  # past the race: the general path's question
    arrays = repack(x, zero, rules)
    assert arrays == repack(x.tolist(), zero.tolist(), rules)
    _assert_partition(arrays, x, rules)
