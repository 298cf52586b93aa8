"""best_play answered from an earlier answer, and the race of the two sweep directions each in its own
memory.

A question whose box lies inside an earlier best_play question's box, with nothing more to gain
there, can only be answered "nothing played": it is answered so without a search. The answers are
the search's own (a function of the question: the same with the record off), and a table that
cannot be arranged still raises. The race gives each sweep direction its own memo, and a direction
whose memo fills gives up while the other goes on: a crowded joker position whose rising search
used to fill the memo both ways is answered by the extension itself, exactly."""

from __future__ import annotations

import numpy as np
import pytest
from machiavelli_env.agents.base import turn_from_state
from machiavelli_env.agents.registry import make_agent

from machiavelli_env import game
from machiavelli_env.cards import to_counts
from machiavelli_env.oracle import _dp, dp, ilp
from machiavelli_env.oracle import api as oracle
from machiavelli_env.oracle.result import OracleError
from machiavelli_env.rules import Rules


@pytest.fixture
def recall_on():
    old = _dp.set_params()["recall"]
    _dp.set_params(recall=1)
    _dp.clear_caches()  # no answers recorded by earlier tests
    yield
    _dp.set_params(recall=old)


def _recalled() -> int:
    return dp.stats()["best_recalled"]


def test_what_is_left_of_a_hand_after_its_best_play_is_answered_without_a_search(recall_on) -> None:
    rules = Rules.load("classic")
    table, hand = to_counts("KH KC KD"), to_counts("QH QC QD 5S")
    first = oracle.best_play(table, hand, rules, arrange=False)
    assert first.value == 3 and first.counts.tolist() == to_counts("QH QC QD").tolist()
    r0, w0 = _recalled(), dp.work()
    again = oracle.best_play(table + first.counts, hand - first.counts, rules, arrange=False)
    assert _recalled() == r0 + 1 and dp.work() == w0  # no search: the table was arranged before
    assert again.value == 0 and not again.counts.any()
    # with melds asked for, the table is arranged (a repack), still without a best-play search
    full = oracle.best_play(table + first.counts, hand - first.counts, rules)
    assert _recalled() == r0 + 2 and full.value == 0 and sorted(map(sorted, full.melds)) == sorted(
        map(sorted, oracle.repack(table + first.counts, np.zeros(53, dtype=np.int64), rules)))


def test_a_box_outside_the_record_or_other_weights_are_searched(recall_on) -> None:
    rules = Rules.load("classic")
    table, hand = to_counts("KH KC KD"), to_counts("QH QC QD 5S")
    first = oracle.best_play(table, hand, rules, arrange=False)
    r0 = _recalled()
    # a card drawn since: the box is no longer inside the recorded one, and 5S 6S 7S now fits
    drawn = hand - first.counts + to_counts("6S 7S")
    assert oracle.best_play(table + first.counts, drawn, rules, arrange=False).value == 3
    # another objective: another weight vector, never answered from the cards objective's record
    oracle.best_play(table + first.counts, hand - first.counts, rules, "points", arrange=False)
    assert _recalled() == r0


def test_a_recalled_question_on_a_table_that_cannot_be_arranged_still_raises(recall_on) -> None:
    rules = Rules.load("classic")
    table, hand = to_counts("KH KC KD"), to_counts("QH QC QD 5S")
    assert oracle.best_play(table, hand, rules, arrange=False).value == 3
    # inside the recorded box with as much gained (three cards), but 5S fits in no meld
    broken = table + to_counts("QH QC 5S")
    r0 = _recalled()
    with pytest.raises(OracleError):
        oracle.best_play(broken, hand - to_counts("QH QC 5S"), rules, arrange=False)
    assert _recalled() == r0 + 1
    _dp.set_params(recall=0)
    with pytest.raises(OracleError):
        oracle.best_play(broken, hand - to_counts("QH QC 5S"), rules, arrange=False)


@pytest.mark.parametrize("preset", ["classic", "spanish_comodines"])
def test_greedy_games_get_the_same_answers_with_and_without_the_record(preset: str, recall_on) -> None:
    rules = Rules.load(preset)
    agents = [make_agent("greedy", rules) for _ in range(rules.players)]
    asked, r0 = [], _recalled()
    for g in range(3):
        state = game.new_game(rules, 4100 + g)
        while not state.done:
            turn = turn_from_state(state, state.current)
            asked.append((state.table.copy(), turn.hand.copy()))
            state = game.step(state, np.asarray(agents[state.current].act(turn), dtype=np.int64))
    assert _recalled() > r0  # players whose last play left cards, while the others drew
    on = [oracle.best_play(t, h, rules, arrange=False).counts.tolist() for t, h in asked]
    _dp.set_params(recall=0)
    _dp.clear_caches()
    off = [oracle.best_play(t, h, rules, arrange=False).counts.tolist() for t, h in asked]
    assert on == off


# a 66-card spanish_comodines table (four jokers, one per meld) from a greedy game: two of QD, 4C
# and the joker fit, never all three; the rising search's memo reached the limit in both sweep directions when each
# level started afresh, and the question went to the Python fallbacks
CROWDED_TABLE = ("AS AS 2S 3S 3S 4S 5S 5S 6S 7S 8S 9S 10S 10S JS JS QS KS AH AH 2H 3H 3H 4H 5H 6H 7H 7H "
                 "8H 9H 10H JH JH QH KH KH AD AD 2D 3D 4D 6D 6D 8D 9D 10D QD KD AC AC 2C 3C 4C 5C 6C 6C "
                 "7C 7C 8C 9C JC JC QC QC KC JK")


def test_a_crowded_joker_position_is_answered_by_the_extension_exactly(recall_on) -> None:
    rules = Rules.load("spanish_comodines")
    table, hand = to_counts(CROWDED_TABLE), to_counts("QD 4C JK")
    dp.register(rules)
    play = dp.direct_best(table, hand, rules, "cards", False)
    assert play is not NotImplemented  # not the general path's fallbacks
    assert play.value == 2 and (play.counts <= hand).all() and play.counts.sum() == 2
    assert ilp.solve_bounds(table, table + hand, np.ones(53, dtype=np.int64), rules).value == 2
    # the turn after, with the opponent drawing: the card left, known not to fit, at no cost
    r0, w0 = _recalled(), dp.work()
    rest = oracle.best_play(table + play.counts, hand - play.counts, rules, arrange=False)
    assert rest.value == 0 and _recalled() == r0 + 1 and dp.work() == w0


def test_a_direction_whose_memo_fills_leaves_the_race_to_the_other(recall_on) -> None:
    # on the position above, the sweep from the ace up needs more than 100,000 memo entries and the
    # mirrored sweep fewer: with that limit the first gives up and the second answers alone. Without
    # group branching, which refutes the third card before the search (the search then needs 5,892)
    rules = Rules.load("spanish_comodines")
    table, hand = to_counts(CROWDED_TABLE), to_counts("QD 4C JK")
    dp.register(rules)
    old = _dp.set_params()["memo_limit"]
    old_branch = _dp.set_params()["lp_branch"]
    try:
        _dp.set_params(memo_limit=100_000, lp_branch=0)
        play = dp.direct_best(table, hand, rules, "cards", False)
        assert play is not NotImplemented and play.value == 2
        # the answer is the mirrored sweep's; the first sweep's memo (the one read after) is full
        assert dp.stats()["last_mirrored"] == 1 and dp.stats()["last_memo_entries"] == 100_000
        # with a limit that neither direction fits in, the caller's fallbacks answer, exactly
        _dp.set_params(memo_limit=5_000)
        assert dp.direct_best(table, hand, rules, "cards", False) is NotImplemented
        assert oracle.best_play(table, hand, rules, arrange=False).value == 2
    finally:
        _dp.set_params(memo_limit=old, lp_branch=old_branch)
