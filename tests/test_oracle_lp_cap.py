"""best_play's relaxation bound (the extension's ``lp_cap``): on tables of ``lp_cap`` cards or more,
once the search alone has spent ``lp_cap_race`` units, the LP relaxation's optimum, proven in
integer arithmetic, caps the search, which then stops at the first play worth it. The value never
changes (checked against the search without the bound and the integer programme), the bound is
what settles the crowded three-deck position that was the slowest greedy move of the presets, a
question settled within the race asks no bound, and the answer depends on the question alone."""

from __future__ import annotations

import numpy as np
import pytest
from game_positions import crowded_positions
from oracle_params import search_params

from machiavelli_env.cards import to_counts
from machiavelli_env.oracle import _dp, dp, ilp
from machiavelli_env.oracle import api as oracle
from machiavelli_env.rules import Rules

pytest.importorskip("highspy")

# the slowest greedy move of the presets in benchmarks/tail.py (classic_6p): a 76-card three-deck
# table without jokers, where the search spent 226,182 units proving that no play of 10 cards exists
SIX_P = Rules.load("classic_6p")
SIX_P_TABLE = to_counts(
    "AS AS AS 2S 3S 4S 5S 5S 6S 6S 7S 7S 7S 8S 8S 8S 9S 9S 9S 10S 10S JS JS QS QS KS AH AH AH 2H 2H 3H "
    "3H 4H 5H 5H 6H 7H 7H 8H 8H 9H 9H JH AD 4D 4D 5D 5D 5D 6D 6D 6D 7D 7D 8D 8D AC AC 2C 3C 3C 4C 4C "
    "5C 5C 5C 6C 6C 6C 7C 7C 8C 9C 9C JC"
)
SIX_P_HAND = to_counts("2S JS 3H QH QH QH KH 9D JD KD AC 2C 10C")


def _measured(fn, *args, **kw):
    _dp.clear_caches()
    before = dp.work()
    out = fn(*args, **kw)
    return out, dp.work() - before


def test_the_bound_settles_the_crowded_three_deck_position() -> None:
    assert SIX_P_TABLE.sum() == 76 >= _dp.set_params()["lp_cap"] > 0
    capped_before = dp.stats()["lp_capped"]
    capped, capped_work = _measured(oracle.best_play, SIX_P_TABLE, SIX_P_HAND, SIX_P, arrange=False)
    assert dp.stats()["lp_capped"] == capped_before + 1
    with search_params(lp_cap=0):
        plain, plain_work = _measured(oracle.best_play, SIX_P_TABLE, SIX_P_HAND, SIX_P, arrange=False)
    ref = ilp.solve_bounds(SIX_P_TABLE, SIX_P_TABLE + SIX_P_HAND, oracle.objective_weights("cards", SIX_P), SIX_P)
    assert capped.value == plain.value == ref.value == 9
    assert capped_work * 50 < plain_work  # 2,057 units (2,000 of them the search's own try) against 226,182
    assert oracle.repack(SIX_P_TABLE, capped.counts, SIX_P) is not None
    with search_params(lp_cap_race=0):  # the bound asked at once
        at_once, at_once_work = _measured(oracle.best_play, SIX_P_TABLE, SIX_P_HAND, SIX_P, arrange=False)
    assert at_once.value == 9 and at_once_work < 1_000


def test_the_bound_is_never_below_the_optimum() -> None:
    # a bound is only asked of tables of lp_cap cards or more that the search alone has not settled
    # within lp_cap_race units: with 1 and 0, every question asks it
    rules = Rules.load("classic_jokers")
    positions = crowded_positions("classic_jokers", 2, seed=4100, every=5, min_table=10)
    assert len(positions) >= 10
    before = dp.stats()["lp_capped"]
    for table, hand, _ in positions:
        for objective in oracle.OBJECTIVES:
            with search_params(lp_cap=1, lp_cap_race=0):
                capped = oracle.best_play(table, hand, rules, objective)
            ref = ilp.solve_bounds(table, table + hand, oracle.objective_weights(objective, rules), rules)
            assert ref is not None and capped.value == ref.value
    assert dp.stats()["lp_capped"] > before


@pytest.mark.parametrize("preset", ["classic_6p", "classic_5p", "classic_jokers", "jokers2", "spanish_comodines"])
def test_the_bound_changes_no_value(preset: str) -> None:
    rules = Rules.load(preset)
    positions = crowded_positions(preset, 3, seed=4200, min_table=_dp.set_params()["lp_cap"])
    assert len(positions) >= 10
    before = dp.stats()["lp_capped"]
    for table, hand, _ in positions:
        for objective in oracle.OBJECTIVES:
            capped = oracle.best_play(table, hand, rules, objective)
            with search_params(lp_cap=0):
                plain = oracle.best_play(table, hand, rules, objective)
            assert capped.value == plain.value
            assert oracle.repack(table, capped.counts, rules) is not None
    assert dp.stats()["lp_capped"] > before  # the bound was proven, and used, on these tables


def test_the_play_depends_on_the_question_alone() -> None:
    rules = Rules.load("classic_6p")
    positions = crowded_positions("classic_6p", 3, seed=4300, min_table=40)
    assert positions
    first = [oracle.best_play(t, h, rules).counts.tolist() for t, h, _ in positions]
    # other questions in between move the simplex's basis and fill the oracle's caches
    other = Rules.load("classic_5p")
    for t, h, _ in crowded_positions("classic_5p", 2, seed=4400, min_table=40):
        oracle.best_play(t, h, other)
    again = [oracle.best_play(t, h, rules).counts.tolist() for t, h, _ in reversed(positions)][::-1]
    assert first == again


def test_a_question_the_search_settles_within_its_race_asks_no_bound() -> None:
    # the search alone first, for lp_cap_race units: what it settles keeps its own answer, and no
    # relaxation is asked (the median question pays nothing for the bound)
    rules = Rules.load("classic")
    positions = crowded_positions("classic", 2, seed=4600, min_table=40)
    assert positions
    for table, hand, _ in positions:
        _dp.clear_caches()
        before, w0 = dp.stats()["lp_capped"], dp.work()
        raced = oracle.best_play(table, hand, rules)
        work = dp.work() - w0
        if work <= _dp.set_params()["lp_cap_race"]:
            assert dp.stats()["lp_capped"] == before
            with search_params(lp_cap=0):
                _dp.clear_caches()
                assert oracle.best_play(table, hand, rules) == raced


def test_a_table_too_small_asks_no_bound() -> None:
    table = np.zeros(53, dtype=np.int64)
    hand = to_counts("3H 4H 5H 9C 9D 9S")
    before = dp.stats()["lp_capped"]
    assert oracle.best_play(table, hand, Rules.load("classic")).value == 6
    assert dp.stats()["lp_capped"] == before
