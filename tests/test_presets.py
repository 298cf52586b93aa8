"""Rules presets in configs/rules: every one loads and validates, and says what its header claims."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from machiavelli_env.rules import Rules, parse_flat_yaml, preset_names

PRESET_DIR = Path(__file__).resolve().parent.parent / "configs" / "rules"
PRESETS = sorted(p.stem for p in PRESET_DIR.glob("*.yaml"))
FIELDS = [f.name for f in dataclasses.fields(Rules) if f.name != "name"]
SEEDS = {
    "000_4705eb410fe6ace1.txt",
    "001_08c0a74d5f8605fa.txt",
    "002_364e9acf4c6ef78f.txt",
    "003_12bcd3e58a4e6fad.txt",
}


def header(name: str) -> str:
    """The leading comment block of a preset."""
    lines = (PRESET_DIR / f"{name}.yaml").read_text(encoding="utf-8").splitlines()
    out = []
    for line in lines:
        if not line.startswith("#"):
            break
        out.append(line.lstrip("# "))
    return " ".join(out)


def test_presets_are_found():
    assert "classic" in PRESETS
    assert set(PRESETS) <= set(preset_names())
    assert len(PRESETS) >= 20


@pytest.mark.parametrize("name", PRESETS)
def test_preset_loads_and_lists_every_field(name):
    rules = Rules.load(name)
    assert rules.name == name
    data = parse_flat_yaml((PRESET_DIR / f"{name}.yaml").read_text(encoding="utf-8"))
    assert list(data) == FIELDS, "a preset lists every rules field, in dataclass order"
    assert Rules.from_dict(data) == rules
    assert Rules.load(str(PRESET_DIR / f"{name}.yaml")) == rules  # by path, too
    assert rules.players * rules.hand_size + rules.help_cards <= rules.pack_size
    assert header(name), "each preset starts with a comment header naming its source"


@pytest.mark.parametrize("name", PRESETS)
def test_header_names_its_source(name):
    text = header(name)
    if name.startswith(("spanish", "romanian", "portuguese")):
        assert any(seed in text for seed in SEEDS), text
    else:
        assert "RULES.md" in text or any(seed in text for seed in SEEDS) or "this project" in text, text


def test_classic_is_the_default():
    assert Rules.load("classic") == Rules() == Rules.load("classic_2p")


@pytest.mark.parametrize("name", ["classic_5p", "classic_6p", "six_players_three_decks"])
def test_five_and_six_players_use_three_decks_and_15_cards(name):
    r = Rules.load(name)
    assert (r.decks, r.hand_size, r.pack_size) == (3, 15, 156)
    assert "tres baralhos" in header(name)


def test_six_player_presets():
    r = Rules.load("six_players_three_decks")
    assert (r.players, r.decks, r.hand_size, r.jokers) == (6, 3, 15, 0)
    assert Rules.load("classic_6p") == r


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_player_count_presets(players):
    r = Rules.load(f"classic_{players}p")
    assert r.players == players
    base = Rules(players=players, decks=3, hand_size=15) if players >= 5 else Rules(players=players)
    assert r == base  # classic otherwise
    assert r.players * r.hand_size <= r.pack_size


def test_classic_jokers():
    r = Rules.load("classic_jokers")
    assert (r.jokers, r.max_jokers_per_meld, r.pack_size) == (4, 1, 108)
    assert r == Rules(jokers=4)


# ---------------------------------------------------------------- the source presets
def test_spanish_maquiavelo():
    r = Rules.load("spanish_maquiavelo")
    assert (r.hand_size, r.decks, r.jokers, r.failed_play_penalty, r.help_cards) == (11, 2, 0, 3, 0)
    assert "000_4705eb410fe6ace1.txt" in header("spanish_maquiavelo")
    h = Rules.load("spanish_maquiavelo_help")
    assert (h.hand_size, h.help_cards, h.failed_play_penalty) == (6, 4, 3)


def test_spanish_comodines():
    r = Rules.load("spanish_comodines")
    assert (r.hand_size, r.decks, r.jokers, r.max_jokers_per_meld) == (13, 2, 4, 1)
    assert (r.ace, r.points, r.opening, r.match_target) == ("low_or_high", "ace11", "none", 0)
    assert "001_08c0a74d5f8605fa.txt" in header("spanish_comodines")


def test_romanian():
    r = Rules.load("romanian")
    assert (r.hand_size, r.decks, r.jokers, r.opening) == (13, 2, 0, "group")
    assert not r.must_play_if_able and not r.always_draw and r.help_cards == 0  # those are its variants
    assert "002_364e9acf4c6ef78f.txt" in header("romanian")


def test_portuguese():
    r = Rules.load("portuguese")
    assert (r.hand_size, r.decks, r.jokers, r.ace, r.points) == (13, 2, 0, "low", "ace1")
    assert (r.failed_play_penalty, r.match_target, r.opening) == (1, 100, "none")
    assert "003_12bcd3e58a4e6fad.txt" in header("portuguese")


# ---------------------------------------------------------------- single-field variants
VARIANTS = {
    "ace_low": {"ace": "low"},
    "ace_high": {"ace": "high"},
    "ace_both_ends": {"ace": "both_ends"},
    "ace_wrap": {"ace": "wrap"},
    "jokers2": {"jokers": 2},
    "opening_group": {"opening": "group"},
    "opening_points36": {"opening": "points:36"},
    "penalty3": {"failed_play_penalty": 3},
    "must_play": {"must_play_if_able": True},
    "help_cards": {"help_cards": 4, "hand_size": 6},
    "marche": {"always_draw": True},
    "points_ace1": {"points": "ace1"},
    "match100": {"match_target": 100},
    "match200": {"match_target": 200},
    "reward_points": {"reward": "points"},
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variant_changes_only_its_fields(name):
    assert Rules.load(name) == Rules(**VARIANTS[name])
    assert header(name).startswith("Variant:")


def test_opening_points36():
    assert Rules.load("opening_points36").opening_points == 36


def test_every_field_value_has_an_example():
    loaded = [Rules.load(n) for n in PRESETS]
    wanted = {
        "players": {2, 3, 4, 5, 6},
        "decks": {2, 3},
        "jokers": {0, 2, 4},
        "ace": {"low", "high", "low_or_high", "both_ends", "wrap"},
        "opening": {"none", "group", "points:36"},
        "failed_play_penalty": {1, 3},
        "must_play_if_able": {False, True},
        "help_cards": {0, 4},
        "always_draw": {False, True},
        "points": {"ace11", "ace1"},
        "match_target": {0, 100, 200},
        "reward": {"win_loss", "points"},
    }
    for field, values in wanted.items():
        assert values <= {getattr(r, field) for r in loaded}, field
