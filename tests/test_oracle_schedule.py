"""The search schedule's choices change how much the oracle searches (``dp.work()``, a count),
never the value it answers: the rising search of ``best_play`` and the dead states a repack's
probe hands to the depth-first search."""

from __future__ import annotations

import numpy as np
from oracle_params import search_params

from machiavelli_env.cards import to_counts
from machiavelli_env.oracle import api, dp, lp, pipeline
from machiavelli_env.oracle.question import BOX, Question
from machiavelli_env.rules import Rules

JOKERS = Rules.load("classic_jokers")
# a crowded table with three jokers and a five-card hand: two cards go down at best
TABLE = to_counts(
    "AS 2S 2S 3S 6S 9S 10S 10S JS KS AH 2H 7H 8H 10H 10H JH QH KH AD 2D 3D 3D 4D 5D 5D 6D 7D 9D 10D 10D "
    "JD QD KD AC 2C 2C 3C 3C 4C 4C 5C 6C 7C 8C JC JC QC KC KC JK JK JK"
)
HAND = to_counts("6S 9S 4H 8D 7C")
# 59 cards that cannot be arranged, whose repack probe runs out of expansions before it knows
NO_REPACK = to_counts(
    "AS AS 3S 3S 4S 4S 5S 5S 6S 7S 8S 8S 9S 9S 10S JS QS QS KS AH 2H 2H 3H 3H 4H 4H 5H 6H 7H 7H 8H 9H "
    "10H KH 2D 3D 4D 5D 6D 7D 7D 8D 8D 9D 10D JD JD QD QD KD AC 2C 3C 4C 5C 6C 7C 8C JK"
)


def _measured(fn, *args, **kw):
    dp._dp.clear_caches()
    before = dp.work()
    out = fn(*args, **kw)
    return out, dp.work() - before


def test_rising_search_finds_the_optimum_with_less_work_on_a_crowded_joker_table() -> None:
    rising, rising_work = _measured(api.best_play, TABLE, HAND, JOKERS)
    with search_params(rise=0):
        falling, falling_work = _measured(api.best_play, TABLE, HAND, JOKERS)
    ilp = pipeline.ilp_solve(Question(BOX, TABLE, TABLE + HAND, api.objective_weights("cards", JOKERS), JOKERS))
    assert rising.value == falling.value == ilp[0] == 2
    assert (rising.counts <= HAND).all() and api.repack(TABLE, rising.counts, JOKERS) is not None
    assert rising_work * 2 < falling_work


def test_the_fullest_tables_keep_the_search_that_asks_for_the_bound_first() -> None:
    """From ``rise_max`` (70) table cards on, ``best_play`` searches as before: the same play and
    the same work with the rising search switched off; below it, rising is on. (The relaxation's
    bound, ``lp_cap``, is off: on this table it settles both searches in the same 87 units.)"""
    with search_params(lp_cap=0):
        _fullest_tables_keep_the_search_that_asks_for_the_bound_first()


def _fullest_tables_keep_the_search_that_asks_for_the_bound_first() -> None:
    rules = Rules.load("classic")
    table = to_counts(
        "AS 3S 4S 4S 5S 6S 7S 7S 8S 8S 9S 9S 10S 10S JS JS QS KS KS AH 2H 3H 3H 4H 5H 5H 6H 6H 7H 7H "
        "8H 8H 9H 9H 10H 10H JH JH QH QH KH KH AD 4D 5D 6D 6D 7D 7D 8D 8D 9D 10D JD JD QD KD KD AC "
        "3C 5C 6C 6C 7C 8C 9C 9C 10C 10C JC QC QC"
    )
    hand = to_counts("2C 7C")
    assert table.sum() == 72 >= dp._dp.set_params()["rise_max"]
    on, on_work = _measured(api.best_play, table, hand, rules)
    with search_params(rise=0):
        off, off_work = _measured(api.best_play, table, hand, rules)
    assert on == off and on_work == off_work
    with search_params(rise_max=0):
        _, any_size_work = _measured(api.best_play, table, hand, rules)
    assert any_size_work != on_work


def test_only_best_play_searches_rising() -> None:
    """``solve`` (the questions of ``legal_plays``) keeps its search, so its answers and work are
    the same with the rising search switched off."""
    w = api.objective_weights("points", JOKERS)
    on, on_work = _measured(api.solve, TABLE, TABLE + HAND, w, JOKERS)
    with search_params(rise=0):
        off, off_work = _measured(api.solve, TABLE, TABLE + HAND, w, JOKERS)
    assert on == off and on_work == off_work


def test_a_repack_keeps_the_dead_states_its_probe_proved(monkeypatch) -> None:
    monkeypatch.setattr(lp, "RACE_WORK", 0)  # the search's own schedule: no LP refuter after 300 expansions
    zero = np.zeros_like(NO_REPACK)
    kept, kept_work = _measured(api.solve, NO_REPACK, NO_REPACK, zero, JOKERS)
    with search_params(keep_dead=0):
        fresh, fresh_work = _measured(api.solve, NO_REPACK, NO_REPACK, zero, JOKERS)
    assert kept is None and fresh is None
    assert api.repack(NO_REPACK, zero, JOKERS) is None
    assert kept_work < fresh_work
