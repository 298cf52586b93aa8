"""Regressions of the independent ILP oracle (the cross-check and benchmark baseline)."""

import numpy as np
import pytest

from machiavelli_env.cards import to_counts
from machiavelli_env.oracle import api
from machiavelli_env.rules import Rules

ilp = pytest.importorskip("machiavelli_env.oracle.ilp")
pytest.importorskip("highspy")

TABLE_66 = (
    "AS 2S 3S 3S 4S 4S 5S 5S 6S 6S 7S 7S 8S 8S 9S 9S 10S JS JS QS QS KS KS 3H 4H 6H 8H 8H 9H 10H 10H JH JH KH "
    "AD 3D 4D 6D 7D 7D 8D 8D 9D 9D 10D JD QD KD KD AC 2C 3C 3C 4C 7C 7C 8C 8C 9C 9C 10C JC JC QC KC KC"
)


def test_ilp_finds_the_four_card_play_that_highs_presolve_called_infeasible():
    rules = Rules.load("classic", ace="low")
    table, hand = to_counts(TABLE_66), to_counts("AH AH 5H 10D QD")
    res = ilp.solve_bounds(table, table + hand, np.ones(53, dtype=np.int64), rules)
    assert res is not None and res.value == 4
    assert res.value == api.best_play(table, hand, rules).value


def test_the_programme_runs_after_another_highs_user_started_more_threads() -> None:
    # HiGHS keeps one thread scheduler per process: a library that started it with two threads
    # (cvxpy's HiGHS backend does, in benchmarks/oracle.py's full run) made this one-thread
    # instance refuse to run, and solve_bounds raise "Not Set"
    import highspy

    rules = Rules.load("classic", ace="low", jokers=2)
    table = to_counts("10S JS KS 3H 8H 9H 9H 10H JH QH KH 3D 9D 10D JD QD KD KD 3C 3C 4C 5C 6C 7C 8C 9C KC JK")
    hand = to_counts("2H 2H 4D 9D 7C")
    w = api.objective_weights("cards", rules)
    before = ilp.solve_bounds(table, table + hand, w, rules)
    highspy.Highs.resetGlobalScheduler(True)
    other = highspy.Highs()
    other.setOptionValue("output_flag", False)
    other.setOptionValue("threads", 2)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = 1, 0
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = [1.0], [0.0], [1.0]
    lp.integrality_ = [highspy.HighsVarType.kInteger]
    other.passModel(lp)
    other.run()
    after = ilp.solve_bounds(table, table + hand, w, rules)
    assert before is not None and after is not None and after.value == before.value == 1
    assert other.run() == highspy.HighsStatus.kOk  # the other user's scheduler is left as it was
