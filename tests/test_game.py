"""The pure engine (machiavelli_env.game): deals, turns, every variant rule, serialisation."""

from __future__ import annotations

import json

import numpy as np
import pytest

from machiavelli_env import game
from machiavelli_env.cards import JOKER, NUM_TYPES, parse_card
from machiavelli_env.melds import is_valid_meld
from machiavelli_env.rules import Rules

Z = np.zeros(NUM_TYPES, dtype=np.int64)


def st(hands, table="", rules="classic", **kw) -> game.State:
    return game.new_state_from(Rules.load(rules) if isinstance(rules, str) else rules, hands, table, **kw)


def R(**kw) -> Rules:
    return Rules.load("classic", **kw)


# ---------------------------------------------------------------------------------------------- deal
@pytest.mark.parametrize("kw", [{}, {"players": 4}, {"jokers": 4}, {"players": 6, "decks": 3, "hand_size": 15},
                                {"help_cards": 4, "hand_size": 6}, {"players": 3, "jokers": 2}])
def test_deal(kw):
    r = R(**kw)
    s = game.new_game(r, seed=3)
    game.check_invariants(s)
    assert s.hands.shape == (r.players, NUM_TYPES)
    assert (s.hands.sum(axis=1) == r.hand_size).all()
    assert s.help.sum() == r.help_cards
    assert s.stock.size == r.pack_size - r.players * r.hand_size - r.help_cards
    assert s.current == 0 and not s.done and not s.opened.any()


def test_deal_deterministic_and_seed_dependent():
    assert game.new_game("classic", 7) == game.new_game("classic", 7)
    assert game.new_game("classic", 7) != game.new_game("classic", 8)


def test_state_is_immutable_and_step_copies():
    s = game.new_game("classic", 1)
    with pytest.raises(ValueError):
        s.hands[0, 0] = 5
    before = game.state_to_json(s)
    s2 = game.step(s, Z)
    assert game.state_to_json(s) == before
    assert s2 is not s and not np.shares_memory(s2.hands, s.hands)


# ---------------------------------------------------------------------------------------------- turns
def test_draw_and_pass():
    s = st(["AS 5H 9C", "2D 7C KH"], stock="QS")
    s1 = game.step(s, Z)
    assert s1.hands[0][parse_card("QS")] == 1 and s1.stock.size == 0
    assert s1.event == "draw" and s1.current == 1 and s1.last_action[0] == game.DRAW
    s2 = game.step(s1, Z)
    assert s2.event == "pass" and s2.last_action[1] == game.PASS and s2.passes == 1


def test_successful_play_and_win():
    s = st(["9H JH KH", "2D 7C KC"], "10H JH QH")
    s1 = game.step(s, "9H JH KH")
    assert s1.done and s1.winner == 0 and s1.result == "win"
    assert list(s1.rewards) == [1.0, -1.0]
    game.check_invariants(s1)


def test_failed_play_reveals_and_penalises():
    s = st(["9S 2C 5D", "2D 7C KC"], "10H 10S 10D JH JS JD QH QC QD", stock="AS 2S 3S 4S")
    s1 = game.step(s, "9S")
    assert s1.event == "failed" and s1.last_action[0] == game.FAILED
    assert np.array_equal(s1.table, s.table) and s1.melds == s.melds
    assert s1.hands[0].sum() == 4 and s1.known[0][parse_card("9S")] == 1
    assert s1.stock.size == 3
    # known cards stay known until played
    s2 = game.step(game.step(s1, Z), Z)
    assert s2.known[0][parse_card("9S")] == 1


def test_known_cards_cleared_when_played():
    s = s0 = st(["9S QD QS 2C", "2D 7C KC"], "10H 10S 10D JH JS JD QH QC QD", stock="AS 2S 3S 4S")
    s = game.step(s, "9S")  # failed: 9S revealed
    s = game.step(s, Z)
    s = game.step(s, "9S QD QS")
    assert s.event == "play" and s.known[0].sum() == 0
    game.check_invariants(s, game.total_counts(s0))


@pytest.mark.parametrize("penalty", [1, 3])
def test_failed_play_penalty(penalty):
    s = st(["9S 2C", "2D 7C"], "10H 10S 10D JH JS JD QH QC QD", rules=R(failed_play_penalty=penalty),
           stock="AS 2S 3S 4S 5S")
    s1 = game.step(s, "9S")
    assert s1.hands[0].sum() == 2 + penalty and s1.stock.size == 5 - penalty


def test_penalty_with_short_stock_draws_what_is_left():
    s = st(["9S 2C", "2D 7C"], "10H 10S 10D JH JS JD QH QC QD", rules=R(failed_play_penalty=3), stock="AS")
    s1 = game.step(s, "9S")
    assert s1.hands[0].sum() == 3 and s1.stock.size == 0


# ---------------------------------------------------------------------------------------------- malformed
@pytest.mark.parametrize("action, match", [
    (np.zeros(52, dtype=np.int64), "shape"),
    (np.zeros((53, 1), dtype=np.int64), "shape"),
    (None, "None"),
    ("ZZ", "not a card"),
    (np.full(53, 0.5), "integers"),
])
def test_malformed_actions_raise(action, match):
    s = st(["9H JH KH", "2D 7C KC"], "10H JH QH")
    before = game.state_to_json(s)
    with pytest.raises(ValueError, match=match):
        game.step(s, action)
    assert game.state_to_json(s) == before


def test_cards_not_held_and_negative_counts_raise():
    s = st(["9H JH KH", "2D 7C KC"], "10H JH QH")
    with pytest.raises(ValueError, match="does not hold.*AS"):
        game.step(s, "AS")
    with pytest.raises(ValueError, match="does not hold.*9H x2"):
        game.step(s, "9H 9H")
    neg = Z.copy()
    neg[0] = -1
    with pytest.raises(ValueError, match="negative"):
        game.step(s, neg)


def test_step_after_game_over_raises():
    s = game.step(st(["9H JH KH", "2D 7C KC"], "10H JH QH"), "9H JH KH")
    with pytest.raises(ValueError, match="over"):
        game.step(s, Z)


# ---------------------------------------------------------------------------------------------- variants
def test_must_play_if_able():
    r = R(must_play_if_able=True)
    s = st(["9H 2C", "2D 7C KC"], "10H JH QH", rules=r)
    with pytest.raises(ValueError, match="must_play_if_able"):
        game.step(s, Z)
    assert not game.draw_allowed(s)
    assert game.step(s, "9H").event == "play"
    s2 = st(["2C 5D", "2D 7C KC"], "10H JH QH", rules=r)
    assert game.draw_allowed(s2) and game.step(s2, Z).event == "draw"


def test_opening_group():
    r = R(opening="group")
    s = st(["9H 8S 8H 8D 2C 3C 4C", "2D 7C KC"], "10H JH QH", rules=r, opened=False)
    # table untouched before opening: 9H on the run fails
    assert game.step(s, "9H").event == "failed"
    # melds from the hand without a group fail
    assert game.step(s, "2C 3C 4C").event == "failed"
    s1 = game.step(s, "8S 8H 8D 2C 3C 4C")
    assert s1.event == "play" and s1.opened[0]
    assert s1.melds[0] == s.melds[0]  # the table's melds are untouched
    game.check_invariants(s1)
    # after opening, normal repacking with the table
    s2 = game.step(game.step(s1, Z), "9H")
    assert s2.event.startswith("play") and s2.winner == 0


def test_opening_points():
    r = R(opening="points:36")
    s = st(["10H JH QH KS KH KD 2C", "2D 7C 5C"], rules=r, opened=False)
    assert game.step(s, "10H JH QH").event == "failed"  # 30 points
    assert game.step(s, "KS KH KD").event == "failed"  # 30 points
    s1 = game.step(s, "10H JH QH KS KH KD")  # 60 points
    assert s1.event == "play" and s1.opened[0]
    s2 = st(["AS 2S 3S 9D 9H 9C 2C", "2D 7C 5C"], rules=r, opened=False)
    assert game.step(s2, "AS 2S 3S 9D 9H 9C").event == "failed"  # 6 + 27 = 33 < 36


def test_opening_legal_plays_and_best_play_respect_opening():
    r = R(opening="group")
    s = st(["9H 8S 8H 8D 2C 3C 4C", "2D 7C KC"], "10H JH QH", rules=r, opened=False)
    plays = game.legal_plays(s)
    assert plays and all(p[parse_card("8S")] + p[parse_card("8H")] + p[parse_card("8D")] == 3 for p in plays)
    assert all(p[parse_card("9H")] == 0 for p in plays)
    assert game.best_play(s).sum() == 6


def test_help_cards_usable_only_in_groups():
    r = R(help_cards=4, hand_size=6)
    s = st(["8S 8H 5S 2D", "2D 7C KC"], "AS 2S 3S", rules=r, help="8D 4S 9C KD")
    assert game.allowed_counts(s, 0)[parse_card("8D")] == 1
    s1 = game.step(s, "8S 8H 8D")  # help 8D in a group
    assert s1.event == "play" and s1.help[parse_card("8D")] == 0 and s1.help.sum() == 3
    assert s1.hands[0].sum() == 2
    game.check_invariants(s1)
    # help 4S only fits the spade run: a failed play (it would be legal from the hand)
    assert game.step(s, "4S 5S").event == "failed"
    s_hand = st(["8S 8H 5S 4S", "2D 7C KC"], "AS 2S 3S", rules=r, help="8D 9C KD 2H")
    assert game.step(s_hand, "4S 5S").event == "play"
    # a play of help cards only is not a play from the hand
    assert game.step(st(["2D 7H", "2C 7C"], "8S 8H 8C", rules=r, help="8D 4S 9C KD"), "8D").event == "failed"
    # legal plays may name help cards; every listed play is feasible
    plays = game.legal_plays(s)
    assert any(p[parse_card("8D")] for p in plays)
    assert not any(p[parse_card("4S")] for p in plays)


def test_help_card_in_group_of_table_cards():
    r = R(help_cards=4, hand_size=6)
    s = st(["7H 2D", "2C 7C"], "9S 9H 9D", rules=r, help="9C KD KS 4H")
    # 7H can't be played; 9C from help joins the table's group with... a hand card is needed
    assert game.step(s, "9C").event == "failed"
    s2 = st(["KH 2D", "2C 7C"], "9S 9H 9D", rules=r, help="9C KD KS 4H")
    s3 = game.step(s2, "KH KD KS")
    assert s3.event == "play" and s3.help.sum() == 2


def test_help_cards_not_in_opening():
    r = R(help_cards=4, hand_size=6, opening="group")
    s = st(["8S 8H 5C 2D", "2D 7C KC"], rules=r, help="8D 4S 9C KD", opened=False)
    assert game.allowed_counts(s, 0)[parse_card("8D")] == 0
    with pytest.raises(ValueError, match="does not hold"):
        game.step(s, "8S 8H 8D")


def test_always_draw():
    r = R(always_draw=True)
    s = st(["9H 2C 5D", "2D 7C KC"], "10H JH QH", rules=r, opened=False, stock="AS 2S 3S 4S 5S 6S 7S 8S")
    s1 = game.step(s, Z)  # not yet laid down: draw 2
    assert s1.hands[0].sum() == 5 and s1.stock.size == 6
    s2 = game.step(s1, Z)  # player 1 not laid down either
    assert s2.hands[1].sum() == 5
    s3 = game.step(s2, "9H")  # a play, then draw 1
    assert s3.event == "play" and s3.hands[0].sum() == 5 and s3.stock.size == 3
    s4 = game.step(game.step(s3, Z), Z)  # opened player 0 draws 1 only
    assert s4.hands[0].sum() == 6


def test_always_draw_no_draw_after_winning():
    r = R(always_draw=True)
    s = st(["9H", "2D 7C KC"], "10H JH QH", rules=r, stock="AS 2S")
    s1 = game.step(s, "9H")
    assert s1.done and s1.winner == 0 and s1.stock.size == 2


def _blocked(hands, rules=None):
    r = rules or R()
    s = st(hands, "10H JH QH", rules=r, stock="")
    for _ in range(r.players):
        assert not s.done
        s = game.step(s, Z)
    return s


def test_blocked_game_fewest_points_wins():
    s = _blocked(["2C 3D", "KC KD"])
    assert s.done and s.result == "blocked" and s.winner == 0
    assert list(s.rewards) == [1.0, -1.0]


def test_blocked_game_tie_is_draw():
    s = _blocked(["2C KD", "2D KC"])
    assert s.done and s.result == "draw" and s.winner == -1 and not s.rewards.any()


def test_blocked_needs_a_full_round_and_failed_plays_count_as_passes():
    r = R(players=3)
    s = st(["2C 3D", "KC KD", "5S 6D"], "10H JH QH", rules=r, stock="")
    s = game.step(s, Z)
    s = game.step(s, "KC")  # failed play, stock empty: still a pass
    assert s.passes == 2 and not s.done
    s = game.step(s, Z)
    assert s.done and s.winner == 0


def test_play_resets_pass_counter():
    s = st(["2C 3D", "9H KD"], "10H JH QH", stock="")
    s = game.step(s, Z)
    s = game.step(s, "9H")
    assert s.passes == 0 and not s.done


@pytest.mark.parametrize("scheme, pts", [("ace11", 11 + 25 + 10 + 7), ("ace1", 1 + 25 + 10 + 7)])
def test_points_schemes(scheme, pts):
    r = R(points=scheme, jokers=2)
    s = st(["AS JK QD 7C", "2D"], rules=r)
    assert s.hand_points(0) == pts


def test_points_reward_is_zero_sum():
    r = R(reward="points", players=3, points="ace1")
    s = st(["9H", "AS KD", "2C 3C"], "10H JH QH", rules=r)
    s1 = game.step(s, "9H")
    assert s1.done and list(s1.rewards) == [11 + 5, -11.0, -5.0]
    assert s1.rewards.sum() == 0


def test_win_loss_reward_multiplayer():
    r = R(players=4)
    s1 = game.step(st(["9H", "AS", "2C", "3C"], "10H JH QH", rules=r), "9H")
    assert s1.rewards[0] == 1.0 and np.allclose(s1.rewards[1:], -1 / 3) and abs(s1.rewards.sum()) < 1e-12


def test_match_play_accumulates_and_deals_next_game():
    r = R(match_target=100)
    s = st(["9H", "KC KD"], "10H JH QH", rules=r, seed=5)
    s1 = game.step(s, "9H")
    assert not s1.done and s1.result == "win" and s1.game == 1
    assert list(s1.scores) == [0, 20]
    assert s1.current == 1  # the next game starts with the next player
    assert (s1.hands.sum(axis=1) == 13).all() and s1.table.sum() == 0
    game.check_invariants(s1)
    assert not s1.rewards.any()  # win_loss pays for the match only


def test_match_ends_at_target_lowest_total_wins():
    r = R(match_target=100)
    s = st(["9H", "KC KD"], "10H JH QH", rules=r, scores=[50, 90])
    s1 = game.step(s, "9H")
    assert s1.done and s1.winner == 0 and list(s1.scores) == [50, 110]
    assert list(s1.rewards) == [1.0, -1.0]


def test_match_points_reward_per_game():
    r = R(match_target=100, reward="points")
    s1 = game.step(st(["9H", "KC KD"], "10H JH QH", rules=r), "9H")
    assert not s1.done and list(s1.rewards) == [20.0, -20.0]


def test_max_turns_truncates():
    r = R(max_turns=3)
    s = game.new_game(r, 0)
    for _ in range(3):
        assert not s.done
        s = game.step(s, Z)
    assert s.done and s.truncated and s.result == "truncated" and not s.rewards.any()


@pytest.mark.parametrize("kw", [{"jokers": 4}, {"players": 6, "decks": 3, "hand_size": 15}])
def test_jokers_and_three_decks_play(kw):
    r = R(**kw)
    s = game.new_game(r, 11)
    for _ in range(12):
        if s.done:
            break
        s = game.step(s, game.best_play(s))
        game.check_invariants(s)


def test_joker_play():
    r = R(jokers=2)
    s = st(["JK 2C", "2D"], "10H JH QH", rules=r)
    s1 = game.step(s, "JK")
    assert s1.event == "play" and s1.table[JOKER] == 1
    game.check_invariants(s1)
    s2 = st(["JK JK 2C", "2D"], "10H JH QH", rules=r)
    assert game.step(s2, "JK JK").event == "failed"  # at most one joker per meld and 2 real cards needed


# ---------------------------------------------------------------------------------------------- new_state_from
def test_new_state_from_validates():
    with pytest.raises(ValueError, match="more copies"):
        st(["AS AS AS", "2D"])
    with pytest.raises(ValueError, match="cannot be arranged"):
        st(["AS", "2D"], "10H JH")
    with pytest.raises(ValueError, match="hands"):
        st(["AS"])
    s = st(["AS", "2D"], "10H JH QH KH", melds=[["10H", "JH", "QH", "KH"]])
    assert s.melds == ((parse_card("10H"), parse_card("JH"), parse_card("QH"), parse_card("KH")),)
    with pytest.raises(ValueError, match="not a valid meld"):
        st(["AS", "2D"], "10H JH QH KH", melds=[["10H", "JH"], ["QH", "KH"]])
    game.check_invariants(st(["AS 5C", "2D"], "10H JH QH"))


# ---------------------------------------------------------------------------------------------- JSON, clone, resample
def _played_state(seed=2, **kw) -> game.State:
    s = game.new_game(R(**kw), seed)
    rng = np.random.default_rng(seed)
    for _ in range(25):
        if s.done:
            break
        a = game.best_play(s) if rng.random() < 0.5 else Z
        if rng.random() < 0.2:
            a = game.allowed_counts(s, s.current) * (rng.random(NUM_TYPES) < 0.1)
        s = game.step(s, a)
    return s


@pytest.mark.parametrize("kw", [{}, {"jokers": 4, "players": 3}, {"match_target": 100, "reward": "points"},
                                {"help_cards": 4, "hand_size": 6}])
def test_json_round_trip_exact(kw):
    s = _played_state(**kw)
    text = game.state_to_json(s)
    back = game.state_from_json(text)
    assert back == s
    assert game.state_to_json(back) == text
    json.loads(text)
    for name in ("hands", "table", "stock", "rewards", "opened", "last_action"):
        assert getattr(back, name).dtype == getattr(s, name).dtype


def test_clone_continues_identically():
    s = _played_state()
    c = game.clone(s)
    assert c == s and c is not s
    a = game.best_play(s)
    assert game.step(c, a) == game.step(s, a)


@pytest.mark.parametrize("kw", [{}, {"players": 4, "jokers": 2}])
def test_resample_hidden_is_consistent(kw):
    s = _played_state(seed=4, **kw)
    s = game.step(s, game.allowed_counts(s, s.current) * (np.arange(NUM_TYPES) % 3 == 0)) if not s.done else s
    rng = np.random.default_rng(0)
    for obs in range(s.players):
        r = game.resample_hidden(s, obs, rng)
        game.check_invariants(r)
        assert np.array_equal(r.hands[obs], s.hands[obs])
        assert np.array_equal(r.table, s.table) and r.melds == s.melds and np.array_equal(r.help, s.help)
        assert np.array_equal(r.hands.sum(axis=1), s.hands.sum(axis=1))
        assert r.stock.size == s.stock.size
        assert (r.hands >= r.known).all() and np.array_equal(r.known, s.known)
        assert np.array_equal(r.last_play, s.last_play) and r.current == s.current
    # something hidden actually changes
    assert any(not np.array_equal(game.resample_hidden(s, 0, rng).stock, s.stock) for _ in range(5))


def test_table_melds_valid_after_plays():
    s = _played_state(seed=9)
    assert all(is_valid_meld(m, s.rules) for m in s.melds)
