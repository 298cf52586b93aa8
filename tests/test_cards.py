"""Card notation (RULES.md): parsing, printing, type order and count vectors."""

from __future__ import annotations

import numpy as np
import pytest

from machiavelli_env.cards import (
    CARD_TYPES,
    JOKER,
    NUM_TYPES,
    CardError,
    as_counts,
    card_name,
    format_cards,
    from_counts,
    parse_card,
    parse_cards,
    to_counts,
)


def test_card_types_are_53_suit_major_with_the_joker_last() -> None:
    assert len(CARD_TYPES) == NUM_TYPES == 53
    assert CARD_TYPES[:13] == ("AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS")
    assert [CARD_TYPES[13 * s] for s in range(4)] == ["AS", "AH", "AD", "AC"]
    assert CARD_TYPES[-1] == "JK" and JOKER == 52
    assert len(set(CARD_TYPES)) == 53


@pytest.mark.parametrize(
    ("text", "index"),
    [("AS", 0), ("10H", 22), ("QS", 11), ("KC", 51), ("JK", 52), ("jk", 52), ("joker", 52)],
)
def test_parse_card_reads_rank_then_suit(text: str, index: int) -> None:
    assert parse_card(text) == index


@pytest.mark.parametrize("text", ["10♥", "10h", "10H", " 10h "])
def test_suit_symbols_and_lower_case_are_accepted(text: str) -> None:
    assert parse_card(text) == parse_card("10H")


def test_every_suit_symbol_maps_to_its_letter() -> None:
    assert [parse_card("Q" + sym) for sym in "♠♥♦♣"] == [parse_card("Q" + s) for s in "SHDC"]
    assert [parse_card("q" + s) for s in "shdc"] == [parse_card("Q" + s) for s in "SHDC"]


def test_parse_cards_reads_strings_lists_and_indices() -> None:
    assert parse_cards("10H QS AS JK") == [22, 11, 0, 52]
    assert parse_cards("10H,QS, JK") == [22, 11, 52]
    assert parse_cards(["10H", 11, "jk"]) == [22, 11, 52]
    assert parse_cards("") == []


@pytest.mark.parametrize("bad", ["1H0", "ZZ", "11X", "10", "H10", "0S"])
def test_a_bad_card_string_is_named_in_the_error(bad: str) -> None:
    with pytest.raises(CardError, match=bad):
        parse_cards(f"10H {bad} QS")


def test_every_bad_item_is_reported_in_one_error() -> None:
    with pytest.raises(CardError) as info:
        parse_cards("XX 5H YY")
    assert "XX" in str(info.value) and "YY" in str(info.value)


def test_out_of_range_index_is_an_error() -> None:
    with pytest.raises(CardError, match="53"):
        parse_cards([53])
    with pytest.raises(CardError):
        card_name(-1)


def test_names_round_trip_through_parsing() -> None:
    for k, name in enumerate(CARD_TYPES):
        assert card_name(k) == name and parse_card(name) == k
        assert parse_card(card_name(k, symbols=True)) == k


def test_format_cards_sorts_by_suit_then_rank_with_jokers_last() -> None:
    assert format_cards(parse_cards("JK KC 10H AS 2S")) == "AS 2S 10H KC JK"
    assert format_cards(parse_cards("10H AS"), symbols=True) == "A♠ 10♥"


def test_count_vectors_round_trip() -> None:
    counts = to_counts("10H 10H JK AS")
    assert counts.shape == (53,) and counts.dtype == np.int64
    assert counts[22] == 2 and counts[52] == 1 and counts.sum() == 4
    assert from_counts(counts) == [0, 22, 22, 52]


def test_as_counts_rejects_bad_vectors() -> None:
    with pytest.raises(CardError, match="shape"):
        as_counts(np.zeros(52))
    neg = np.zeros(53, dtype=np.int64)
    neg[0] = -1
    with pytest.raises(CardError, match="AS"):
        as_counts(neg)
    with pytest.raises(CardError, match="integers"):
        as_counts(np.full(53, 0.5))
    assert as_counts(np.ones(53, dtype=float)).dtype == np.int64
