"""The rules configuration: defaults, validation with clear messages, (de)serialisation, loading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from machiavelli_env.cards import JOKER, parse_card
from machiavelli_env.rules import Rules, RulesError, card_points, opening_rank_points


def test_classic_preset_is_the_dataclass_default() -> None:
    rules = Rules.load("classic")
    assert rules == Rules() == Rules.load()
    assert (rules.players, rules.hand_size, rules.decks, rules.jokers) == (2, 13, 2, 0)
    assert rules.ace == "low_or_high" and rules.points == "ace11" and rules.opening == "none"
    assert rules.name == "classic"


def test_missing_fields_take_the_classic_value() -> None:
    rules = Rules.from_dict({"ace": "wrap", "jokers": 2})
    assert rules.ace == "wrap" and rules.jokers == 2
    assert rules.replace(ace="low_or_high", jokers=0) == Rules()


def test_unknown_field_is_an_error_naming_it() -> None:
    with pytest.raises(RulesError, match="colour"):
        Rules.from_dict({"colour": "red"})
    with pytest.raises(RulesError, match="colour"):
        Rules.load("classic", colour="red")


def test_seven_players_is_an_error() -> None:
    with pytest.raises(RulesError, match="players"):
        Rules(players=7)


def test_a_deal_larger_than_the_pack_is_an_error() -> None:
    with pytest.raises(RulesError, match="larger than the pack"):
        Rules(players=6, hand_size=20)
    assert Rules(players=6, hand_size=15, decks=3).pack_size == 156


@pytest.mark.parametrize(
    ("field", "value"),
    [("ace", "sometimes"), ("points", "ace5"), ("opening", "points:"), ("opening", "pairs"),
     ("jokers", 5), ("decks", 0), ("must_play_if_able", 1), ("players", True), ("reward", "glory")],
)
def test_bad_values_are_errors_naming_the_field(field: str, value: object) -> None:
    with pytest.raises(RulesError, match=field):
        Rules.from_dict({field: value})


def test_rules_are_frozen() -> None:
    with pytest.raises(AttributeError):
        Rules().ace = "low"  # type: ignore[misc]


def test_to_dict_round_trips_through_dict_and_json() -> None:
    rules = Rules(players=4, jokers=4, ace="both_ends", opening="points:36", points="ace1", name="mine")
    data = rules.to_dict()
    assert Rules.from_dict(data) == rules and Rules.from_dict(data).name == "mine"
    assert Rules.load(json.dumps(data)) == rules


def test_load_accepts_name_path_dict_json_and_rules(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text("# my variant\nace: low  # aces low\njokers: 2\nopening: 'group'\n", encoding="utf-8")
    by_path = Rules.load(str(path))
    assert (by_path.ace, by_path.jokers, by_path.opening, by_path.name) == ("low", 2, "group", "mine")
    assert Rules.load(path) == by_path
    assert Rules.load({"ace": "low", "jokers": 2, "opening": "group"}) == by_path
    assert Rules.load('{"ace": "low", "jokers": 2, "opening": "group"}') == by_path
    assert Rules.load(by_path) is by_path
    assert Rules.load("classic", ace="low", jokers=2, opening="group") == by_path


def test_load_errors_are_clear(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match="no_such_preset"):
        Rules.load("no_such_preset")
    with pytest.raises(RulesError, match="not found"):
        Rules.load(str(tmp_path / "missing.yaml"))
    with pytest.raises(RulesError, match="JSON"):
        Rules.load("{not json")
    bad = tmp_path / "bad.yaml"
    bad.write_text("ace: low\nace: high\n", encoding="utf-8")
    with pytest.raises(RulesError, match="twice"):
        Rules.load(str(bad))


def test_derived_values() -> None:
    assert Rules().pack_size == 104 and Rules(jokers=4).pack_size == 108
    assert Rules(opening="points:36").opening_points == 36 and Rules(opening="group").opening_points == 0
    assert Rules(jokers=2).copies(JOKER) == 2 and Rules(decks=3).copies(0) == 3


@pytest.mark.parametrize(
    ("card", "ace11", "ace1"),
    [("AS", 11, 1), ("2H", 2, 2), ("9D", 9, 9), ("10C", 10, 10), ("JS", 10, 10), ("KH", 10, 10), ("JK", 25, 25)],
)
def test_hand_points_under_both_schemes(card: str, ace11: int, ace1: int) -> None:
    assert card_points(parse_card(card), "ace11") == ace11 == Rules().card_points(parse_card(card))
    assert card_points(parse_card(card), "ace1") == ace1 == Rules(points="ace1").card_points(parse_card(card))


def test_opening_rank_points_count_ace_one_and_faces_ten() -> None:
    assert [opening_rank_points(r) for r in range(13)] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
