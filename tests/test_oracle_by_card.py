"""best_plays_by_card (one forward and one backward pass) against one best_play_containing per card.

For every hand card type the one-pass answer must hold the card, be an optimal play among those
that hold it (same value as the per-card query), come with a valid arrangement, and be absent
exactly when no legal play holds the card. Checked on the shared cases, on random positions of
every variant, under the opening constraints, and with the large-position fallback forced.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_oracle_cases import assert_partition
from test_oracle_property import IDS, VARIANTS, random_position

from machiavelli_env.cards import NUM_TYPES, to_counts
from machiavelli_env.oracle import (
    OracleError,
    _dp,  # type: ignore[attr-defined]
    api,
    best_play,
    best_play_containing,
    best_plays_by_card,
    dp,
    objective_weights,
    pipeline,
    playable_cards,
)
from machiavelli_env.oracle.question import BOX, BY_CARD, Question
from machiavelli_env.rules import Rules

DATA = Path(__file__).parent / "data" / "oracle_cases"
CASES = [json.loads(line) for path in sorted(DATA.glob("*.jsonl")) for line in path.open() if line.strip()]
SOME_CASES = CASES[::13]
ZERO = np.zeros(NUM_TYPES, dtype=np.int64)


def per_card(table: np.ndarray, hand: np.ndarray, rules: Rules, objective: str, **kw: object) -> dict[int, int]:
    """Optimum per hand card type by one bounded query each (lo raised by one copy of the card)."""
    w = objective_weights(objective, rules)
    out = {}
    for c in np.flatnonzero(hand > 0):
        lo = table.copy()
        lo[c] += 1
        res = api.solve(lo, table + hand, w, rules, **kw)  # type: ignore[arg-type]
        if res is not None:
            out[int(c)] = res.value + int(w[c])
    return out


def assert_by_card(table: np.ndarray, hand: np.ndarray, rules: Rules, objective: str, **kw: object) -> None:
    got = best_plays_by_card(table, hand, rules, objective, **kw)  # type: ignore[arg-type]
    want = per_card(table, hand, rules, objective, **kw)
    assert sorted(got) == sorted(want)
    w = objective_weights(objective, rules)
    for card, play in got.items():
        assert play.value == want[card], card
        assert play.counts[card] >= 1 and ((play.counts >= 0) & (play.counts <= hand)).all()
        assert play.value == int(w @ play.counts)
        assert_partition(play.melds, table + play.counts, rules)


@pytest.mark.parametrize("case", SOME_CASES, ids=[c["id"] for c in SOME_CASES])
def test_best_plays_by_card_match_one_query_per_card_on_the_shared_cases(case: dict) -> None:
    rules = Rules.from_dict(case["rules"])
    table, hand = to_counts(case["table"]), to_counts(case["hand"])
    for objective in ("cards", "points"):
        assert_by_card(table, hand, rules, objective)


@pytest.mark.parametrize("rules", VARIANTS, ids=IDS)
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_best_plays_by_card_match_one_query_per_card_on_random_positions(rules: Rules, seed: int) -> None:
    table, hand = random_position(rules, seed, melds=(1, 9), hand=(1, 11))
    assert_by_card(table, hand, rules, "cards")
    assert_by_card(table, hand, rules, "points")


@pytest.mark.parametrize("rules", VARIANTS[::3], ids=IDS[::3])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), need_group=st.booleans(), points=st.sampled_from([0, 30, 45]))
def test_best_plays_by_card_respect_the_opening_constraints(
    rules: Rules, seed: int, need_group: bool, points: int
) -> None:
    _, hand = random_position(rules, seed, melds=(2, 6), hand=(6, 14))
    assert_by_card(ZERO, hand, rules, "cards", need_group=need_group, min_open_points=points)


@pytest.fixture
def search_only():
    """Force the large-position path: one exact depth-first search per card outside the best play."""
    saved = _dp.set_params()
    _dp.set_params(force=2)
    yield
    _dp.set_params(**saved)


@pytest.mark.parametrize("case", CASES[::41], ids=[c["id"] for c in CASES[::41]])
def test_the_per_card_search_fallback_gives_the_same_answers(case: dict, search_only: None) -> None:
    rules = Rules.from_dict(case["rules"])
    assert_by_card(to_counts(case["table"]), to_counts(case["hand"]), rules, "cards")


# From a league game: a 36-card hand on a 57-card table (classic, 2 players).
DENSE_TABLE = ("2S 3S 3S 4S 4S 5S 5S 6S 6S 7S 8S 9S 9S 10S JS QS KS AH 2H 3H 4H 5H 5H 6H 7H 9H JH JH QH KH KH "
               "AD AD 2D 2D 3D 3D 4D 5D 6D 8D JD JD KD AC 2C 2C 3C 5C 6C 7C 7C 8C 8C 9C JC JC")
DENSE_HAND = ("AS AS 2S 7S JS QS AH 2H 3H 4H 6H 7H 8H 8H QH 4D 5D 6D 7D 7D 9D 9D 10D 10D KD AC 3C 4C 4C 5C 6C "
              "9C 10C 10C QC QC")


def test_a_dense_position_with_an_unplayable_card_is_answered_exactly() -> None:
    # The hand's KD fits no meld: there is no QD, and the kings (S, H, H, D, D) make one group at
    # most. The search used to find that out only at the kings, after exhausting its memo
    # (MemoryError); the number of groups a rank can hold now bounds every suit's group cards.
    from machiavelli_env.oracle import ilp

    rules = Rules.load("classic_2p")
    table, hand = to_counts(DENSE_TABLE), to_counts(DENSE_HAND)
    w = objective_weights("cards", rules)
    assert best_play(table, hand, rules).value == 35 == ilp.solve_bounds(table, table + hand, w, rules).value
    assert_by_card(table, hand, rules, "cards")
    assert int(to_counts("KD").argmax()) not in best_plays_by_card(table, hand, rules)
    assert api.repack(table, hand, rules) is None


# A 3-player league position (classic_mixed, seed 12, game 208): 55 cards on the table, 38 in hand.
DENSE3_TABLE = ("AS 2S 3S 3S 4S 5S 5S 6S 6S 8S 9S JS QS QS KS 2H 3H 4H 5H 5H 6H 6H 7H 8H 9H QH KH AD 2D 3D 3D "
                "4D 4D 5D 5D 6D 6D 7D 9D 9D 10D JD QD KD 2C 4C 5C 6C 6C 7C 8C 9C 9C QC KC")
DENSE3_HAND = ("AS 2S 4S 7S 7S 8S 9S 10S 10S KS AH AH 3H 4H 7H 8H 9H JH JH AD 2D 7D 8D 8D 10D QD KD AC AC 3C 3C "
               "4C 5C 7C 8C 10C 10C KC")


def test_a_dense_position_with_a_conflict_among_the_top_ranks_is_answered_exactly() -> None:
    # Only JH or KC can be left out: the conflict sits among the J, Q and K of several suits. The
    # ace-up sweep exhausts its memo on the points objective (MemoryError after about 7 s; this
    # stopped a league); the mirrored position (2 <-> K, ...) answers in about 1 ms. HiGHS agrees.
    from machiavelli_env.oracle import ilp

    rules = Rules.load("classic_3p")
    table, hand = to_counts(DENSE3_TABLE), to_counts(DENSE3_HAND)
    assert table.sum() == 55 and hand.sum() == 38
    w = objective_weights("points", rules)
    play = best_play(table, hand, rules, "points")
    assert play.value == 289 == ilp.solve_bounds(table, table + hand, w, rules).value
    assert_partition(play.melds, table + play.counts, rules)
    left = hand - play.counts
    assert left.sum() == 1 and left[int(to_counts("JH").argmax())] == 1


@pytest.mark.parametrize("rules", VARIANTS, ids=IDS)
def test_the_mirrored_position_gives_the_same_answers(rules: Rules) -> None:
    # The fallback for exhausted searches: 2 <-> K, 3 <-> Q, ... (aces low <-> high) maps melds to
    # melds, so the mirrored question, mapped back, has the same optimum and a valid arrangement.
    for seed in range(4):
        table, hand = random_position(rules, seed, (2, 6), (3, 9))
        for objective in ("cards", "points"):
            w = objective_weights(objective, rules)
            q = Question(BOX, table, table + hand, w, rules)
            direct = pipeline.answer(q)
            mirrored = dp.search(q, 0, mirrored=True)
            assert mirrored[0] == direct[0]
            x = table + np.frombuffer(mirrored[1], dtype=np.int64)
            assert (x >= table).all() and (x <= table + hand).all() and w @ (x - table) == direct[0]
            assert_partition(mirrored[2], x, rules)
        q = Question(BY_CARD, table, table + hand, w, rules)
        by_card = pipeline.answer(q)
        mirrored_cards = dp.by_card(q, 0, mirrored=True)
        assert sorted(mirrored_cards) == sorted(by_card)
        for card, (value, counts, melds) in mirrored_cards.items():
            x = table + np.frombuffer(counts, dtype=np.int64)
            assert value == by_card[card][0] and x[card] > table[card]
            assert_partition(melds, x, rules)


def test_a_card_outside_the_best_play_gets_its_own_best_play() -> None:
    # 10S can join 10H 10D, or KS can join KH KD, but not both: JS QS would be left alone.
    rules = Rules()
    table, hand = to_counts("10S JS QS KS"), to_counts("10H 10D KH KD 2C")
    plays = best_plays_by_card(table, hand, rules)
    assert sorted(plays) == sorted(int(c) for c in to_counts("10H 10D KH KD").nonzero()[0])
    for name, partner in (("10H", "10D"), ("KH", "KD")):
        play = plays[int(to_counts(name).argmax())]
        assert play.value == 2 and play.counts[int(to_counts(partner).argmax())] == 1
    assert playable_cards(table, hand, rules).sum() == 4


def test_cards_of_the_best_play_map_to_an_optimal_play() -> None:
    rules = Rules()
    table, hand = to_counts("10H JH QH"), to_counts("9H KH 2C")
    plays = best_plays_by_card(table, hand, rules)
    best = best_play(table, hand, rules)
    assert set(plays) == set(np.flatnonzero(best.counts).tolist())
    assert all(p.value == best.value for p in plays.values())
    assert best_play_containing(table, hand, int(to_counts("2C").argmax()), rules) is None


def test_playable_cards_are_the_keys_of_best_plays_by_card() -> None:
    for case in CASES[::17]:
        rules = Rules.from_dict(case["rules"])
        table, hand = to_counts(case["table"]), to_counts(case["hand"])
        mask = playable_cards(table, hand, rules)
        assert sorted(np.flatnonzero(mask).tolist()) == sorted(best_plays_by_card(table, hand, rules))


def test_an_opening_with_no_legal_play_gives_no_cards() -> None:
    rules = Rules(opening="group")
    assert best_plays_by_card(ZERO, to_counts("5H 6H 7H 2C"), rules, need_group=True) == {}
    assert best_plays_by_card(ZERO, to_counts("5H 6H 7H 2C"), rules, min_open_points=19) == {}
    assert len(best_plays_by_card(ZERO, to_counts("5H 6H 7H 2C"), rules, min_open_points=18)) == 3


def test_bad_input_to_best_plays_by_card_is_an_oracle_error() -> None:
    rules = Rules()
    with pytest.raises(OracleError, match="table"):
        best_plays_by_card(to_counts("10H JH"), to_counts("2C"), rules)
    with pytest.raises(OracleError, match="AS x3"):
        best_plays_by_card(to_counts("AS AS"), to_counts("AS"), rules)
    with pytest.raises(OracleError, match="objective"):
        best_plays_by_card(to_counts("10H JH QH"), to_counts("9H"), rules, "melds")
    with pytest.raises(OracleError, match="min_open_points"):
        best_plays_by_card(ZERO, to_counts("9H"), rules, min_open_points=-1)


@pytest.mark.parametrize("preset", ["classic", "classic_jokers"])
def test_refuted_cards_skip_their_search_and_the_answers_stay_the_same(preset: str, search_only: None) -> None:
    # the per-card searches first ask the meld count, the pass's earlier certificates and the LP
    # relaxation (set_params(bycard_lp=)): a card they refute is in no play, which is what its
    # search would have answered, so every play per card is the same (values, counts, melds)
    rules = Rules.load(preset)
    positions = [random_position(rules, 7100 + i, (3, 8), (10, 18)) for i in range(8)]
    answers = {}
    try:
        for on in (True, False):
            _dp.set_params(bycard_lp=on)
            before = _dp.stats()["by_card_refuted"]
            got = []
            for table, hand in positions:
                got.append({c: (p.value, p.counts.tobytes(), p.melds)
                            for c, p in best_plays_by_card(table, hand, rules).items()})
            answers[on] = got
            refuted = _dp.stats()["by_card_refuted"] - before
            assert (refuted > 0) if on else (refuted == 0)
    finally:
        _dp.set_params(bycard_lp=True)
    assert answers[True] == answers[False]
