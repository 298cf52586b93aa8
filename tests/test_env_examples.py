"""The worked examples of RULES.md, played through the AEC environment."""

from __future__ import annotations

import numpy as np
import pytest

import machiavelli_env
from machiavelli_env import game
from machiavelli_env.cards import format_cards, from_counts, to_counts
from machiavelli_env.melds import is_valid_meld


def _env_at(rules, hands, table, **kw):
    e = machiavelli_env.env(rules)
    e.reset(options={"state": game.new_state_from(e.unwrapped.rules, hands, table, **kw)})
    return e


KQJ = "KH KC KD QH QC QD JH JC JD"


@pytest.mark.parametrize("ace, legal", [("low_or_high", True), ("high", True), ("both_ends", True), ("wrap", True),
                                        ("low", False)])
def test_ace_on_three_trios(ace, legal):
    e = _env_at({"ace": ace}, ["AC 5D", "2S 7S 9D"], KQJ, stock="4S 6S")
    e.step(to_counts("AC"))
    s = e.unwrapped.game_state
    if legal:
        assert s.event == "play" and s.table.sum() == 10
        assert sorted(map(sorted, e.unwrapped.table_melds())) == sorted(
            map(sorted, [["JH", "QH", "KH"], ["JD", "QD", "KD"], ["JC", "QC", "KC", "AC"]]))
    else:
        assert s.event == "failed" and s.table.sum() == 9
        assert e.unwrapped.hand("player_0") == ["4S", "5D", "AC"]  # penalty card drawn, AC back in hand
        assert s.known[0][to_counts("AC").argmax()] == 1
    assert all(is_valid_meld(m, s.rules) for m in s.melds)


def test_nine_of_spades_alone_fails_with_two_queens_succeeds():
    table = "10H 10S 10D JH JS JD QH QC QD"
    e = _env_at("classic", ["9S QD QS 3C", "2S 7S 9D"], table, stock="4S 6S 8S")
    e.step(to_counts("9S"))
    s = e.unwrapped.game_state
    assert s.event == "failed" and format_cards(from_counts(s.table)) == format_cards(from_counts(
        to_counts(table)))
    e.step(np.zeros(53, dtype=np.int64))
    e.step(to_counts("9S QD QS"))
    s = e.unwrapped.game_state
    assert s.event == "play"
    melds = sorted(sorted(m) for m in e.unwrapped.table_melds())
    assert melds == sorted(sorted(m) for m in [["10H", "JH", "QH"], ["10D", "JD", "QD"], ["9S", "10S", "JS"],
                                                 ["QC", "QD", "QS"]])


def test_run_split_with_three_hearts():
    e = _env_at("classic", ["9H JH KH", "2S 7S 9D"], "10H JH QH")
    plays = e.unwrapped.legal_plays("player_0")
    assert any((p == to_counts("9H JH KH")).all() for p in plays)
    assert (plays[0] == to_counts("9H JH KH")).all()
    e.step(to_counts("9H JH KH"))
    s = e.unwrapped.game_state
    assert s.done and s.winner == 0
    assert sorted(sorted(m) for m in e.unwrapped.table_melds()) == sorted(
        sorted(m) for m in [["9H", "10H", "JH"], ["JH", "QH", "KH"]])
    assert e.rewards == {"player_0": 1.0, "player_1": -1.0}
