"""Meld validity: the ace table of RULES.md for every ace mode, groups, runs and jokers."""

from __future__ import annotations

import numpy as np
import pytest

from machiavelli_env.cards import CARD_TYPES, JOKER, parse_cards
from machiavelli_env.melds import is_valid_arrangement, is_valid_meld, meld_kind
from machiavelli_env.oracle.ilp import meld_list
from machiavelli_env.rules import ACE_MODES, Rules

FULL_HEARTS_AK_A = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH"
ACE_TABLE = {  # RULES.md: (valid, invalid) per ace mode
    "low": (["AH 2H 3H"], ["QH KH AH"]),
    "high": (["QH KH AH"], ["AH 2H 3H"]),
    "low_or_high": (["AH 2H 3H", "QH KH AH"], ["KH AH 2H", FULL_HEARTS_AK_A]),
    "both_ends": (["AH 2H 3H", "QH KH AH", FULL_HEARTS_AK_A], ["KH AH 2H"]),
    "wrap": (["AH 2H 3H", "QH KH AH", "KH AH 2H"], [FULL_HEARTS_AK_A]),
}


def valid(text: str, **rules: object) -> bool:
    return is_valid_meld(parse_cards(text), Rules.from_dict(rules))


@pytest.mark.parametrize("ace", ACE_MODES)
def test_ace_table_of_the_rules(ace: str) -> None:
    good, bad = ACE_TABLE[ace]
    for text in good:
        assert valid(text, ace=ace), text
    for text in bad:
        assert not valid(text, ace=ace), text


def test_wrap_runs_go_round_the_corner_up_to_13_cards() -> None:
    assert valid("JH QH KH AH 2H 3H", ace="wrap")
    assert valid("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", ace="wrap")
    assert not valid("AH 2H 4H", ace="wrap")


def test_a_full_suit_ace_to_king_is_a_run_in_every_mode_but_high() -> None:
    thirteen = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"
    for ace in ACE_MODES:
        assert valid(thirteen, ace=ace) is True  # high: 2..K,A is the same 13 cards


def test_groups_are_three_or_four_distinct_suits_of_one_rank() -> None:
    assert valid("8H 8S 8D") and valid("8H 8S 8D 8C")
    assert not valid("8H 8H 8D"), "a suit twice is not a group"
    assert not valid("8H 8S"), "two cards are not a meld"
    assert not valid("8H 8S 8D 8C 8C"), "five cards are not a group"
    assert not valid("8H 8S 9D")
    assert meld_kind(parse_cards("8H 8S 8D"), Rules()) == "group"


def test_runs_are_one_suit_consecutive_without_repeats() -> None:
    assert valid("4S 5S 6S") and valid("4S 5S 6S 7S 8S 9S 10S")
    assert not valid("4S 5S 7S"), "a gap"
    assert not valid("4S 5H 6S"), "mixed suits"
    assert not valid("4S 5S 5S 6S"), "a card twice"
    assert meld_kind(parse_cards("4S 5S 6S"), Rules()) == "run"


def test_jokers_stand_for_missing_cards_up_to_the_limit() -> None:
    assert valid("4S JK 6S", jokers=2) and valid("8H 8S JK", jokers=2) and valid("4S 5S JK", jokers=2)
    assert not valid("4S JK 6S"), "classic has no jokers"
    assert not valid("4S JK JK 7S", jokers=2), "one joker per meld by default"
    assert valid("4S JK JK 7S", jokers=2, max_jokers_per_meld=2)
    assert not valid("JK JK JK", jokers=4, max_jokers_per_meld=4), "a meld needs a real card"
    assert valid("8H JK JK", jokers=2, max_jokers_per_meld=2)
    assert not valid("8H 8S JK JK 8D", jokers=2, max_jokers_per_meld=2), "five cards are not a group"


@pytest.mark.parametrize(
    ("text", "ace", "ok"),
    [
        ("QH KH JK", "low", True),  # JK = JH
        ("AH 2H JK", "high", False),  # A is not low
        ("2H 3H JK", "high", True),  # JK = 4H
        ("KH JK 2H", "low_or_high", False),  # JK would be AH between K and 2
        ("KH JK 2H", "wrap", True),
        ("JK 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", "low", True),
        ("JK 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", "low_or_high", False),
        ("JK 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", "both_ends", True),
        ("JK 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", "wrap", False),
    ],
)
def test_a_joker_never_stands_outside_the_rank_range(text: str, ace: str, ok: bool) -> None:
    assert valid(text, ace=ace, jokers=2) is ok


def test_is_valid_arrangement_checks_every_meld() -> None:
    rules = Rules()
    assert is_valid_arrangement([parse_cards("4S 5S 6S"), parse_cards("8H 8S 8D")], rules)
    assert not is_valid_arrangement([parse_cards("4S 5S 6S"), parse_cards("8H 8S")], rules)


VARIANTS = [Rules(ace=a, jokers=j, max_jokers_per_meld=m) for a in ACE_MODES for j, m in ((0, 1), (2, 1), (4, 2))]


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.ace}-j{r.jokers}-m{r.max_jokers_per_meld}")
def test_every_enumerated_meld_is_valid_and_random_valid_melds_are_enumerated(rules: Rules) -> None:
    ml = meld_list(rules)
    assert len(set(zip(map(tuple, ml.matrix.tolist()), ml.is_group.tolist(), strict=True))) == len(ml), "duplicates"
    for cards in ml.cards:
        assert is_valid_meld(cards, rules), [CARD_TYPES[k] for k in cards]
    known = {tuple(sorted(cards)) for cards in ml.cards}
    rng = np.random.default_rng(0)
    found = 0
    for _ in range(3000):  # near-melds: a rank window or a rank, jokers, one random change
        size = int(rng.integers(3, 15))
        suit, start = int(rng.integers(4)), int(rng.integers(13))
        if rng.random() < 0.6:
            cards = [suit * 13 + (start + k) % 13 for k in range(size)]
        else:
            cards = [s * 13 + start for s in rng.permutation(4)[: min(size, 4)]]
        for _ in range(int(rng.integers(0, 3)) if rules.jokers else 0):
            cards[int(rng.integers(len(cards)))] = JOKER
        if rng.random() < 0.3:
            cards[int(rng.integers(len(cards)))] = int(rng.integers(53))
        key = tuple(sorted(cards))
        if is_valid_meld(key, rules):
            found += 1
            assert key in known, [CARD_TYPES[k] for k in key]
    assert found > 300
