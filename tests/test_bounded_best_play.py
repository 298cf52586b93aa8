"""Max-cards plays at a bounded search cost: the capped whole schedule, then the integer programme."""

from __future__ import annotations

import numpy as np
import pytest
from game_positions import crowded_positions
from machiavelli_env.agents.base import turn_from_state
from machiavelli_env.agents.heuristic import HOARDER_SEARCH_WORK, HoarderAgent
from machiavelli_env.agents.registry import make_agent

from machiavelli_env import game, legal, oracle
from machiavelli_env.cards import parse_cards, to_counts
from machiavelli_env.melds import is_valid_arrangement
from machiavelli_env.oracle import ilp, pipeline
from machiavelli_env.oracle.question import BEST, Question
from machiavelli_env.rules import Rules


def _big_hands(preset: str, seed: int) -> list[tuple[np.ndarray, np.ndarray, Rules]]:
    return crowded_positions(preset, games=2, seed=seed, other="hoarder", every=4, min_table=9)


def _value(play: np.ndarray, objective: str, rules: Rules) -> int:
    return int(oracle.objective_weights(objective, rules) @ play)


@pytest.mark.parametrize("preset", ["classic_jokers", "jokers2"])
def test_best_play_within_answers_as_best_play_or_gives_up(preset: str) -> None:
    answered = gave_up = 0
    positions = _big_hands(preset, seed=7100)[:24]
    assert len(positions) >= 8
    for table, hand, rules in positions:
        exact = oracle.best_play(table, hand, rules, arrange=False)
        for cap in (40, 10**9):
            legal.clear_caches()
            try:
                got = oracle.best_play_within(table, hand, rules, "cards", cap)
            except oracle.WorkLimitReached:
                assert cap == 40
                gave_up += 1
                continue
            assert got.counts.tolist() == exact.counts.tolist()
            answered += 1
    assert answered >= len(positions) and gave_up > 0


@pytest.mark.parametrize("objective", ["cards", "points"])
def test_best_play_then_ilp_is_exact_when_the_search_gives_up(objective: str) -> None:
    checked = 0
    positions = _big_hands("classic_jokers", seed=7200)[:12]
    assert len(positions) >= 8
    for table, hand, rules in positions:
        exact = oracle.best_play(table, hand, rules, objective, arrange=False)
        got = oracle.best_play_then_ilp(table, hand, rules, objective, 1)  # one unit of work: the programme answers
        assert got.value == exact.value
        assert np.all(got.counts <= hand)
        if got.counts.any():
            assert oracle.repack(table, got.counts, rules) is not None
        checked += 1
    assert checked == len(positions)


def test_solve_then_ilp_answers_an_opening_question_exactly() -> None:
    rules = Rules.load("opening_points36")
    zero = np.zeros(53, dtype=np.int64)
    ones = np.ones(53, dtype=np.int64)
    kw = {"min_open_points": rules.opening_points}
    compared = 0
    for _table, hand, _rules in crowded_positions("opening_points36", games=2, seed=7300, other="hoarder",
                                                  every=3, min_table=0)[:15]:
        exact = oracle.solve(zero, hand, ones, rules, **kw)
        for cap in (1, 10**9):
            got = oracle.solve_then_ilp(zero, hand, ones, rules, cap, **kw)
            assert (got is None) == (exact is None)
            if got is not None:
                assert got.value == exact.value
            compared += 1
    assert compared == 30


def test_solve_then_ilp_sweeps_down_before_the_programme(monkeypatch: pytest.MonkeyPatch) -> None:
    # a hoarder's opening lay-down on the romanian rules with an empty stock: the max-cards play
    # holding a group out of 59 cards, which the search from the ace up gives up on within 20,000
    # units (it needs 27,537) and the search from the king down settles (9,826)
    rules = Rules.load("romanian")
    hand = to_counts(parse_cards(
        "AS 2S 3S 4S 5S 5S 6S 7S 7S 8S 8S 9S 10S JS KS AH 2H 2H 4H 5H 7H 7H 8H 9H 10H 10H JH JH QH KH "
        "AD AD 2D 3D 4D 4D 5D 5D 6D 6D 7D 9D 10D KD KD AC 2C 3C 4C 5C 6C 7C 8C 8C 10C 10C JC QC QC"))
    zero = np.zeros(53, dtype=np.int64)
    ones = np.ones(53, dtype=np.int64)
    cap = 20_000
    with pytest.raises(oracle.WorkLimitReached):
        oracle.solve_within(zero, hand, ones, rules, cap, need_group=True, arrange=False)
    exact = oracle.solve(zero, hand, ones, rules, need_group=True)

    def no_programme(*args: object) -> None:
        raise AssertionError("the integer programme was asked")

    monkeypatch.setattr(pipeline, "ilp_solve", no_programme)
    got = oracle.solve_then_ilp(zero, hand, ones, rules, cap, need_group=True)
    assert got is not None and got.value == exact.value == 52
    assert np.all(got.counts <= hand)
    x = got.counts
    assert oracle.solve(x, x, zero, rules, need_group=True) is not None  # melds holding a group


@pytest.mark.parametrize("preset", ["classic", "classic_jokers", "jokers2"])
def test_rounded_relaxation_bounds_the_optimum_and_its_point_lies_in_the_box(preset: str) -> None:
    settled = 0
    positions = _big_hands(preset, seed=7500)[:16]
    assert len(positions) >= 8
    for table, hand, rules in positions:
        ones = np.ones(53, dtype=np.int64)
        exact = oracle.best_play(table, hand, rules, arrange=False)
        counts, bound, _, _ = ilp.rounded_relaxation(table, table + hand, ones, rules)
        assert bound >= exact.value  # a proven upper bound
        assert np.all(counts >= 0) and np.all(counts <= hand)
        if int(counts.sum()) == bound and oracle.repack(table, counts, rules) is not None:
            settled += 1  # the rounded point is a play worth the bound: an optimal one
            assert bound == exact.value
    assert settled > 0


# two hoarder max-cards plays with the stock empty on classic_jokers (benchmarks/tail.py), where
# both bounded searches give up within HOARDER_SEARCH_WORK and the relaxation's rounded point is
# not a play worth its bound
_WHOLE = ("AS QS 4H 5H JK JK",
          "AS 3S 4S 5S 6S 7S 9S 9S JS JS QS KS KS 3H 5H 6H 7H 8H 8H 10H JH QH KH KH AD 2D 2D 5D 5D 7D 8D "
          "JD QD KD KD AC AC 2C 2C 3C 5C 5C 6C 6C 7C 7C 8C 8C 9C 10C JC JC QC JK JK")
_SHORT = ("AS 9S QS 9H 9D 4C 5C 6C 7C JK",
          "AS 2S 2S 3S 5S 5S 7S 7S 10S JS QS AH 2H 4H 4H 5H 6H 8H 10H 10H JH QH KH KH AD 2D 3D 3D 6D 6D "
          "7D 7D 8D 9D 10D JD QD KD KD AC 2C 3C 4C 6C 7C 8C 8C 9C 9C JC JC QC KC JK JK JK")


def _arranges(play: oracle.Play, table: np.ndarray, rules: Rules) -> bool:
    """Whether ``play.melds`` are valid melds holding exactly the table and the cards played."""
    cards = [c for meld in play.melds for c in meld]
    return is_valid_arrangement(play.melds, rules) and to_counts(cards).tolist() == (table + play.counts).tolist()


def _big_hand(preset: str, cards: tuple[str, str]) -> tuple[Rules, np.ndarray, np.ndarray, int, ilp.Relaxation]:
    """(rules, table, hand, the programme's max-cards value, the rounded relaxation) of a position."""
    rules = Rules.load(preset)
    table, hand = (to_counts(parse_cards(text)) for text in cards)
    ones = np.ones(53, dtype=np.int64)
    expected = ilp.solve_bounds(table, table + hand, ones, rules).value  # the programme alone
    return rules, table, hand, expected, ilp.rounded_relaxation(table, table + hand, ones, rules)


def _no_programme(*args: object) -> None:
    raise AssertionError("the integer programme was asked")


def test_the_relaxations_whole_melds_completed_by_the_search_settle_a_big_hand_without_the_programme(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rules, table, hand, expected, relaxed = _big_hand("classic_jokers", _WHOLE)
    assert int(relaxed.counts.sum()) == relaxed.bound == expected == 53  # the rounded point is worth the bound...
    x = table + relaxed.counts
    with pytest.raises(oracle.WorkLimitReached):  # ...but the search cannot tell whether it is a partition
        oracle.solve_within(x, x, np.zeros(53, dtype=np.int64), rules, HOARDER_SEARCH_WORK, sweep="down")
    assert relaxed.whole and is_valid_arrangement(relaxed.whole, rules)
    monkeypatch.setattr(pipeline, "ilp_solve", _no_programme)
    got = oracle.best_play_then_ilp(table, hand, rules, "cards", HOARDER_SEARCH_WORK)
    assert got.value == expected
    assert _arranges(got, table, rules)


_ROUND_UP = ("3S AH JH AD 3D JD AC 3C JC",
             "AS AS 2S 4S 4S 5S 6S 6S 7S 8S 8S JS QS QS KS AH 2H 2H 3H 4H 5H 5H 6H 7H 9H 9H 10H JH QH KH KH 2D 3D "
             "4D 5D 6D 7D 8D 9D 9D QD KD KD 2C 3C 4C 4C 5C 6C 9C 10C JC KC JK JK")


def test_the_relaxations_point_rounded_up_where_it_holds_fractions_settles_a_big_hand_without_the_programme(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rules, table, hand, expected, relaxed = _big_hand("jokers2", _ROUND_UP)
    assert relaxed.bound == expected == int(relaxed.counts.sum()) + 1 == 54  # rounded down: one card short
    assert relaxed.fractions.sum() > 0 and (relaxed.fractions[table + relaxed.counts >= table + hand] == 0).all()
    ones = np.ones(53, dtype=np.int64)
    completion = pipeline._completion(Question(BEST, table, table + hand, ones, rules), HOARDER_SEARCH_WORK,
                                      relaxed.whole)
    assert completion is None or completion.value < expected  # the completion does not reach it either
    monkeypatch.setattr(pipeline, "ilp_solve", _no_programme)
    got = oracle.best_play_then_ilp(table, hand, rules, "cards", HOARDER_SEARCH_WORK)
    assert got.value == expected
    assert (got.counts <= hand).all()
    assert _arranges(got, table, rules)
    monkeypatch.setattr(pipeline, "ROUND_UP_DIVE", 0)  # without the dive the programme is asked
    with pytest.raises(AssertionError, match="the integer programme was asked"):
        oracle.best_play_then_ilp(table, hand, rules, "cards", HOARDER_SEARCH_WORK)


def test_a_completion_short_of_the_bound_is_the_programmes_first_incumbent(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = Rules.load("classic_jokers")
    table, hand = (to_counts(parse_cards(text)) for text in _SHORT)
    ones = np.ones(53, dtype=np.int64)
    expected = ilp.solve_bounds(table, table + hand, ones, rules).value
    assert ilp.rounded_relaxation(table, table + hand, ones, rules).bound == expected + 1 == 53
    starts: list[oracle.Play | None] = []
    real = pipeline.ilp_solve

    def spy(q: Question, start: oracle.Play | None = None) -> object:
        starts.append(start)
        return real(q, start)

    monkeypatch.setattr(pipeline, "ilp_solve", spy)
    got = oracle.best_play_then_ilp(table, hand, rules, "cards", HOARDER_SEARCH_WORK)
    assert got.value == expected
    (start,) = starts
    assert start is not None and start.value == expected  # here the completion is optimal; the programme proves it
    assert _arranges(start, table, rules)


def test_the_programme_answers_the_same_with_any_start() -> None:
    rules = Rules.load("classic_jokers")
    table, hand = (to_counts(parse_cards(text)) for text in _SHORT)
    ones = np.ones(53, dtype=np.int64)
    plain = ilp.solve_bounds(table, table + hand, ones, rules)
    fewer = hand.copy()
    fewer[np.flatnonzero(fewer)[::3]] = 0  # a worse play: the best of a third fewer card types
    worse = ilp.solve_bounds(table, table + fewer, ones, rules)
    assert worse.value < plain.value
    bogus = oracle.Play(hand.copy(), int(hand.sum()), plain.melds)  # claims the whole hand: no point of the programme
    for start in (worse, plain, bogus):
        got = ilp.solve_bounds(table, table + hand, ones, rules, start=start)
        assert got.value == plain.value
        assert _arranges(got, table, rules)


def test_a_start_cuts_a_splittable_run_into_the_programmes_columns() -> None:
    rules = Rules.load("classic_jokers")
    ml = ilp.meld_list(rules)
    usable = np.flatnonzero(~ml.splittable)
    melds = [parse_cards("AH 2H 3H 4H 5H 6H 7H 8H"), parse_cards("5S JK 7S 8S 9S 10S"), parse_cards("KC KD KS")]
    y = ilp._start_columns(melds, usable, ml)
    assert y is not None
    assert (ml.matrix[usable].T @ y).tolist() == to_counts([c for m in melds for c in m]).tolist()
    assert int(y.sum()) == 5  # 3 + 5 cards, 3 + 3 cards, and the group
    assert ilp._start_columns([parse_cards("AH 2H 4H")], usable, ml) is None  # no meld: no column


@pytest.mark.parametrize("bad", [0, -5, True, 2.5, "100"])
def test_best_play_rejects_a_search_work_that_is_not_a_positive_integer(bad: object) -> None:
    rules = Rules.load("classic")
    with pytest.raises(ValueError, match="search_work"):
        legal.best_play("", "5H 6H 7H", rules, search_work=bad)  # type: ignore[arg-type]


def test_best_play_with_search_work_plays_the_cards_of_the_full_schedule() -> None:
    for preset in ("classic", "opening_points36", "jokers2"):
        rules = Rules.load(preset)
        state = game.new_game(rules, 7400)
        for _ in range(30):
            if state.done:
                break
            exact = game.best_play(state)
            bounded = game.best_play(state, search_work=1)
            assert int(bounded.sum()) == int(exact.sum())
            state = game.step(state, exact)


def test_hoarder_asks_the_full_schedule_by_default_and_bounds_it_on_request() -> None:
    rules = Rules.load("classic_jokers")
    assert HoarderAgent().search_work is None  # the ladder's hoarder, whatever builds it
    assert make_agent("hoarder", rules).search_work is None
    assert make_agent("hoarder[search_work=0]", rules).search_work is None
    assert make_agent("hoarder", rules, exact_lists=False).search_work == HOARDER_SEARCH_WORK
    assert make_agent("hoarder[search_work=500]", rules, exact_lists=False).search_work == 500
    with pytest.raises(ValueError, match="search_work"):
        make_agent("hoarder[search_work=-1]", rules)


def test_hoarder_with_the_stock_empty_plays_as_many_cards_as_with_the_full_schedule() -> None:
    bounded, full = HoarderAgent(search_work=1), HoarderAgent(search_work=0)
    rules = Rules.load("classic_jokers")
    played = 0
    for seed in (7500, 7501):
        state = game.new_game(rules, seed)
        greedy = make_agent("greedy", rules)
        while not state.done:
            p = state.current
            turns = [turn_from_state(state, p) for _ in range(2)]
            for turn in turns:
                turn.stock_size = 0  # as if the stock were empty: the hoarder plays short of going out
            a, b = bounded.act(turns[0]), full.act(turns[1])
            assert int(a.sum()) == int(b.sum())
            if a.any():
                assert turns[0].is_legal(a)
                played += 1
            state = game.step(state, np.asarray(greedy.act(turn_from_state(state, p)), dtype=np.int64))
    assert played >= 10
