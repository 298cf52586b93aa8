"""The worked examples of RULES.md and the public oracle API on small, hand-checked positions."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from machiavelli_env.cards import CARD_TYPES, JOKER, NUM_TYPES, parse_card, to_counts
from machiavelli_env.melds import is_valid_meld, meld_kind
from machiavelli_env.oracle import (
    OracleError,
    best_play,
    best_play_containing,
    opening_play,
    playable_cards,
    repack,
    solve,
)
from machiavelli_env.rules import ACE_MODES, Rules

CLASSIC = Rules.load("classic")
HIGH_ACE_MODES = [a for a in ACE_MODES if a != "low"]


def c(text: str) -> np.ndarray:
    return to_counts(text)


def assert_arrangement(melds: list[list[int]] | None, cards: np.ndarray, rules: Rules) -> None:
    assert melds is not None
    assert all(is_valid_meld(m, rules) for m in melds)
    assert (np.bincount([x for m in melds for x in m], minlength=NUM_TYPES) == cards).all()


# ---------------------------------------------------------------- RULES.md worked examples
KINGS_QUEENS_JACKS = "KH KC KD QH QC QD JH JC JD"


@pytest.mark.parametrize("ace", HIGH_ACE_MODES)
def test_ace_high_completes_the_clubs_run_when_aces_may_be_high(ace: str) -> None:
    rules = Rules(ace=ace)
    assert_arrangement(repack(c(KINGS_QUEENS_JACKS), c("AC"), rules), c(KINGS_QUEENS_JACKS + " AC"), rules)


def test_ace_on_top_of_a_king_is_a_failed_play_under_ace_low() -> None:
    assert repack(c(KINGS_QUEENS_JACKS), c("AC"), Rules(ace="low")) is None


def test_nine_of_spades_alone_leaves_a_queen_stranded() -> None:
    assert repack(c("10H 10S 10D JH JS JD QH QC QD"), c("9S"), CLASSIC) is None


def test_nine_with_two_queens_repacks_into_four_melds() -> None:
    table, play = c("10H 10S 10D JH JS JD QH QC QD"), c("9S QD QS")
    melds = repack(table, play, CLASSIC)
    assert_arrangement(melds, table + play, CLASSIC)
    assert melds is not None and len(melds) == 4


def test_all_three_hand_cards_fit_around_a_short_run() -> None:
    table, hand = c("10H JH QH"), c("9H JH KH")
    play = best_play(table, hand, CLASSIC)
    assert play.value == 3 and (play.counts == hand).all()
    assert_arrangement(play.melds, table + hand, CLASSIC)


# ---------------------------------------------------------------- opening plays
def test_group_opening_needs_a_group_from_the_hand() -> None:
    rules = Rules(opening="group")
    assert opening_play(c("5H 6H 7H 2C 9D"), rules) is None
    assert opening_play(c("5H 6H 7H 2C 9D"), Rules()).size == 3  # type: ignore[union-attr]
    play = opening_play(c("5H 6H 7H 9S 9D 9C 2C"), rules)
    assert play is not None and play.size == 6
    assert any(meld_kind(m, rules) == "group" for m in play.melds)


def test_group_opening_accepts_a_group_completed_by_a_joker() -> None:
    rules = Rules(opening="group", jokers=2)
    play = opening_play(c("5H 5S JK 8C"), rules)
    assert play is not None and play.size == 3
    assert any(meld_kind(m, rules) == "group" for m in play.melds)


def test_points_opening_counts_face_cards_as_ten_and_aces_as_one() -> None:
    rules = Rules(opening="points:36")
    assert opening_play(c("10H JH QH 2C"), rules) is None  # 30 points
    assert opening_play(c("10H JH QH KH"), rules) is not None  # 40 points
    assert opening_play(c("AS 2S 3S QH QD QC"), rules) is not None  # 6 + 30 = 36
    assert opening_play(c("AS 2S 3S QH QD 9C"), rules) is None


def test_points_opening_values_a_joker_as_the_card_it_stands_for() -> None:
    rules = Rules(opening="points:36", jokers=2)
    # JK stands for KH or 10H: 30 + 6 = 36 (a joker worth 0 would give 26).
    assert opening_play(c("JH QH JK 2S 2D 2C"), rules) is not None
    # 2H 3H JK is worth 9 with JK declared as 4H (6 as AH): 9 + 28 = 37 ...
    assert opening_play(c("2H 3H JK 7S 7H 7D 7C"), rules) is not None
    # ... and 9 + 24 = 33 falls short (a joker worth its 25 hand points would pass).
    assert opening_play(c("2H 3H JK 8S 8D 8C"), rules) is None


# ---------------------------------------------------------------- best_play_containing, playable_cards
def test_best_play_containing_a_card_includes_it_or_is_none() -> None:
    table, hand = c("10H JH QH"), c("9H KH 2C 5S")
    play = best_play_containing(table, hand, parse_card("9H"), CLASSIC)
    assert play is not None and play.counts[parse_card("9H")] == 1
    assert play.value == 2  # 9H and KH
    assert_arrangement(play.melds, table + play.counts, CLASSIC)
    assert best_play_containing(table, hand, parse_card("2C"), CLASSIC) is None
    assert best_play_containing(table, hand, parse_card("AS"), CLASSIC) is None  # not in the hand


def test_best_play_containing_reaches_cards_the_best_play_leaves_out() -> None:
    # 10S can join 10H 10D, or KS can join KH KD, but not both: JS QS would be left alone.
    table, hand = c("10S JS QS KS"), c("10H 10D KH KD")
    assert best_play(table, hand, CLASSIC).value == 2
    for card, partner in (("10H", "10D"), ("KH", "KD")):
        play = best_play_containing(table, hand, parse_card(card), CLASSIC)
        assert play is not None and play.value == 2
        assert play.counts[parse_card(card)] == 1 and play.counts[parse_card(partner)] == 1
        assert_arrangement(play.melds, table + play.counts, CLASSIC)
    assert playable_cards(table, hand, CLASSIC).sum() == 4


def _brute_force_playable(table: np.ndarray, hand: np.ndarray, rules: Rules) -> tuple[int, np.ndarray]:
    """Best play size and playable mask by trying every sub-multiset of a small hand with repack."""
    ranges = [range(int(hand[k]) + 1) for k in range(NUM_TYPES)]
    best, mask = 0, np.zeros(NUM_TYPES, dtype=bool)
    for sub in itertools.product(*ranges):
        play = np.array(sub)
        if play.sum() and repack(table, play, rules) is not None:
            best = max(best, int(play.sum()))
            mask |= play > 0
    return best, mask


@pytest.mark.parametrize(
    ("table", "hand"),
    [
        ("10H JH QH", "9H KH 2C 5S"),
        ("10S JS QS KS", "10H 10D KH KD 9S"),
        ("5H 6H 7H 5S 5D 5C", "4H 5H 8H 5C 2D"),
        ("AS 2S 3S KD KC KH", "AD QD JD 4S 4S"),
        ("", "7C 8C 9C 9H 9D 3S"),
    ],
)
def test_playable_cards_and_best_play_match_brute_force(table: str, hand: str) -> None:
    t, h = c(table), c(hand)
    best, mask = _brute_force_playable(t, h, CLASSIC)
    assert best_play(t, h, CLASSIC).value == best
    got = playable_cards(t, h, CLASSIC)
    assert got.dtype == bool and got.shape == (NUM_TYPES,)
    assert [CARD_TYPES[k] for k in np.flatnonzero(got)] == [CARD_TYPES[k] for k in np.flatnonzero(mask)]


def test_nothing_playable_gives_an_empty_best_play() -> None:
    play = best_play(c("10H JH QH"), c("2C 5S"), CLASSIC)
    assert play.value == 0 and play.size == 0
    assert not playable_cards(c("10H JH QH"), c("2C 5S"), CLASSIC).any()


# ---------------------------------------------------------------- the Play record
def test_play_reads_like_a_record_and_survives_pickling_and_copying() -> None:
    import copy
    import pickle

    play = best_play(c("10H JH QH"), c("9H KH 2C"), CLASSIC)
    assert play.value == 2 and play.size == 2 and play.cards == sorted(parse_card(x) for x in ("9H", "KH"))
    assert play.counts.dtype == np.int64 and play.counts.shape == (NUM_TYPES,)
    assert play.counts is play.counts  # one view, made on first access
    for other in (pickle.loads(pickle.dumps(play)), copy.deepcopy(play), copy.copy(play)):
        assert other == play and not (other != play)
        assert other.value == play.value and other.melds == play.melds
        assert np.array_equal(other.counts, play.counts)
    assert play != best_play(c("10H JH QH"), c("9H"), CLASSIC)
    assert repr(play).startswith("Play(counts=array(")
    with pytest.raises(AttributeError):
        play.value = 3  # type: ignore[misc]
    with pytest.raises(AttributeError, match="read-only"):
        play.extra = 1  # type: ignore[attr-defined]


def test_the_extension_encodes_arrangements_compactly_and_decodes_them_on_demand() -> None:
    from machiavelli_env.oracle import dp
    from machiavelli_env.oracle.question import BEST, Question

    assert dp.decode_melds(bytes([3, 0, 1, 2, 4, 5, 18, 31, 44])) == [[0, 1, 2], [5, 18, 31, 44]]
    assert dp.decode_melds(b"") == []
    with pytest.raises(ValueError, match="malformed"):
        dp.decode_melds(bytes([5, 1, 2]))  # a meld longer than what follows
    table, hand = c("10H JH QH"), c("9H KH")
    res = dp.best(Question(BEST, table, table + hand, np.ones(NUM_TYPES, dtype=np.int64), CLASSIC))
    assert type(res[2]) is bytes
    assert sorted(map(sorted, dp.decode_melds(res[2]))) == [sorted(parse_card(x) for x in "9H 10H JH QH KH".split())]


def test_best_play_takes_other_integer_dtypes_and_lists_alike() -> None:
    table, hand = c("10H JH QH"), c("9H KH 2C")
    want = best_play(table, hand, CLASSIC)
    for t, h in ((table.astype(np.int32), hand.astype(np.uint8)), (table.tolist(), hand.tolist()),
                 (table.astype(float), hand.astype(float))):
        got = best_play(t, h, CLASSIC)
        assert got == want


# ---------------------------------------------------------------- errors
def test_negative_counts_are_an_oracle_error_naming_the_card() -> None:
    hand = c("5H")
    hand[parse_card("AS")] = -1
    with pytest.raises(OracleError, match="AS"):
        best_play(c("10H JH QH"), hand, CLASSIC)


def test_wrong_shape_is_an_oracle_error() -> None:
    with pytest.raises(OracleError, match="shape"):
        best_play(np.zeros(52, dtype=np.int64), c("5H"), CLASSIC)
    with pytest.raises(OracleError, match="shape"):
        repack(c("10H JH QH"), np.zeros((2, 53), dtype=np.int64), CLASSIC)


def test_more_copies_than_the_pack_is_an_oracle_error() -> None:
    with pytest.raises(OracleError, match="AS x3"):
        best_play(c("AS AS"), c("AS"), CLASSIC)
    with pytest.raises(OracleError, match="JK"):
        repack(c("5H 6H"), to_counts([JOKER]), CLASSIC)  # classic has no jokers


def test_unknown_objective_and_unarrangeable_table_are_oracle_errors() -> None:
    with pytest.raises(OracleError, match="objective"):
        best_play(c("10H JH QH"), c("9H"), CLASSIC, objective="melds")
    with pytest.raises(OracleError, match="table"):
        best_play(c("10H JH"), c("2C"), CLASSIC)


# ---------------------------------------------------------------- opening constraints together, large N
def test_group_and_points_constraints_hold_together() -> None:
    hand = c("KS KH KD 5S 6S 7S 9C")  # group K K K = 30, run 5-6-7 = 18
    both = {"need_group": True, "min_open_points": 48}
    play = solve(np.zeros(NUM_TYPES, dtype=np.int64), hand, np.ones(NUM_TYPES, dtype=np.int64), CLASSIC, **both)
    assert play is not None and play.size == 6
    assert any(meld_kind(m, CLASSIC) == "group" for m in play.melds)
    assert_arrangement(play.melds, play.counts, CLASSIC)
    zero, ones = np.zeros(NUM_TYPES, dtype=np.int64), np.ones(NUM_TYPES, dtype=np.int64)
    assert solve(zero, hand, ones, CLASSIC, need_group=True, min_open_points=49) is None
    # runs alone reach 40 points, but without a group there is no opening
    runs = c("10S JS QS KS 2H 3H 4H")
    assert solve(zero, runs, ones, CLASSIC, min_open_points=40) is not None
    assert solve(zero, runs, ones, CLASSIC, need_group=True, min_open_points=40) is None
    assert solve(zero, runs + c("2S 2D"), ones, CLASSIC, need_group=True, min_open_points=40) is not None


@pytest.mark.parametrize(("points", "playable"), [(128, True), (160, True), (161, False), (5000, False)])
def test_points_openings_above_127_are_exact(points: int, playable: bool) -> None:
    rules = Rules(opening=f"points:{points}")
    hand = c("10S JS QS KS 10H JH QH KH 10D JD QD KD 10C JC QC KC 2C")  # 4 runs of 40 points
    play = opening_play(hand, rules)
    assert (play is not None) == playable
    if play is not None:
        assert play.size == 16 and play.counts[parse_card("2C")] == 0
        assert_arrangement(play.melds, play.counts, rules)


def test_points_openings_above_127_with_three_decks_and_jokers() -> None:
    rules = Rules(players=6, hand_size=15, decks=3, jokers=4, max_jokers_per_meld=2, opening="points:300")
    hand = c("10S JS QS KS 10H JH QH KH 10D JD QD KD 10C JC QC KC QS QH QD QC JK JK")
    # 160 in runs + 40 for the four queens + two jokers worth 10 each as kings or in a group
    assert opening_play(hand, rules) is None
    play = opening_play(hand, Rules.load(rules, opening="points:220"))
    assert play is not None and play.size == 22
    assert opening_play(hand, Rules.load(rules, opening="points:221")) is None
