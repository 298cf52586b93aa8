"""Observations: layout, spaces, masks, and no hidden information."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import machiavelli_env
from machiavelli_env import game, observation
from machiavelli_env.cards import JOKER, NUM_TYPES, parse_card, to_counts
from machiavelli_env.rules import Rules

Z = np.zeros(NUM_TYPES, dtype=np.int64)


def _midgame(seed: int, **kw) -> game.State:
    s = game.new_game(Rules.load("classic", **kw), seed)
    rng = np.random.default_rng(seed)
    for _ in range(30):
        if s.done:
            break
        r = rng.random()
        if r < 0.4:
            a = game.best_play(s)
        elif r < 0.7:
            a = game.allowed_counts(s, s.current) * (rng.random(NUM_TYPES) < 0.15)  # usually a failed play
        else:
            a = Z
        if not a.any() and not game.draw_allowed(s):
            a = game.best_play(s)
        s = game.step(s, a)
    return s


def test_layout_constants():
    assert observation.OBS_SIZE == 15 * 53 + 74 == 869
    assert observation.OFF_RULES + 22 == observation.OBS_SIZE
    assert observation.OFF_DRAW_ALLOWED == 846


@pytest.mark.parametrize("kw", [{}, {"players": 6, "decks": 3, "hand_size": 15}, {"jokers": 4, "players": 3},
                                {"help_cards": 4, "hand_size": 6}, {"match_target": 100}])
def test_observation_in_space_and_same_shape(kw):
    r = Rules.load("classic", **kw)
    s = _midgame(1, **kw)
    space = observation.observation_space(r)
    for p in range(r.players):
        obs = observation.observe(s, p)
        assert space.contains(obs)
        assert obs["observation"].shape == (observation.OBS_SIZE,) and obs["observation"].dtype == np.float32
        assert len(obs["action_mask"]) == NUM_TYPES


def test_planes_content():
    r = Rules.load("classic", players=3)
    s = game.new_state_from(r, ["9H JH KH", "2D 7C KC", "AS 2S"], "10H JH QH", stock="3S 4S 5S")
    s = game.step(s, Z)  # player 0 draws 3S
    s = game.step(s, "2D 7C")  # player 1: failed play, reveals 2D 7C, draws 4S
    v = observation.observation_vector(s, 0)
    planes = v[:15 * 53].reshape(15, 53)
    assert planes[0][parse_card("9H")] == 0.5 and planes[0][parse_card("3S")] == 0.5
    assert planes[1][parse_card("10H")] == 0.5
    # opponent 1 of player 0 is player 1: known 2D 7C
    assert planes[5][parse_card("2D")] == 0.5 and planes[5][parse_card("7C")] == 0.5 and planes[5].sum() == 1.0
    # from player 2's seat, player 1 is opponent 2
    planes2 = observation.observation_vector(s, 2)[:15 * 53].reshape(15, 53)
    assert planes2[6][parse_card("2D")] == 0.5
    # unseen: the pack minus own hand, table and known cards
    unseen = observation.unseen_counts(s, 0)
    assert unseen.sum() == r.pack_size - 4 - 3 - 2
    sc = v[observation.OFF_HAND_SIZES:]
    assert sc[0] == pytest.approx(4 / 104) and sc[1] == pytest.approx(4 / 104) and sc[2] == pytest.approx(2 / 104)
    assert list(sc[6:12]) == [1, 1, 1, 0, 0, 0]  # seats present
    # last actions: own draw, opponent 1 failed
    la = v[observation.OFF_LAST_ACTION:observation.OFF_LAST_ACTION + 24].reshape(6, 4)
    assert la[0].tolist() == [1, 0, 0, 0] and la[1].tolist() == [0, 0, 1, 0]
    assert v[observation.OFF_STOCK] == pytest.approx(1 / 104)
    assert v[observation.OFF_DRAW_ALLOWED] == 1.0


def test_values_bounded():
    for kw in ({}, {"jokers": 4}, {"match_target": 100}):
        s = _midgame(3, **kw)
        for p in range(s.players):
            v = observation.observation_vector(s, p)
            assert (v >= 0).all() and (v <= 1).all()


def test_action_mask_counts():
    r = Rules.load("classic", jokers=2)
    s = game.new_state_from(r, ["9H 9H JK", "2D"], "10H JH QH")
    mask = observation.action_mask(s, 0)
    assert mask[parse_card("9H")].tolist() == [1, 1, 1]
    assert mask[parse_card("AS")].tolist() == [1, 0, 0]
    assert mask[JOKER].tolist() == [1, 1, 0]
    assert all(m.dtype == np.int8 for m in mask)
    space = observation.action_space(r)
    for _ in range(50):
        a = space.sample(mask)
        assert (a <= to_counts("9H 9H JK")).all()


def test_env_mask_only_for_agent_to_move():
    e = machiavelli_env.env()
    e.reset(seed=0)
    other = e.unwrapped.observe("player_1")["action_mask"]
    assert all(m.tolist() == [1] + [0] * (len(m) - 1) for m in other)
    mine = e.unwrapped.observe("player_0")["action_mask"]
    assert sum(int(m[1:].sum()) for m in mine) == 13


def test_draw_allowed_flag_must_play():
    r = Rules.load("classic", must_play_if_able=True)
    s = game.new_state_from(r, ["9H 2C", "2D 7C KC"], "10H JH QH")
    assert observation.observation_vector(s, 0)[observation.OFF_DRAW_ALLOWED] == 0.0
    assert observation.observation_vector(s, 1)[observation.OFF_DRAW_ALLOWED] == 1.0


def _permute_hidden(s: game.State, observer: int, rng: np.random.Generator) -> game.State:
    """Swap hidden cards among the opponents' hands and the stock, keeping every public fact."""
    hands = s.hands.copy()
    pool = [np.repeat(np.arange(NUM_TYPES), np.bincount(s.stock, minlength=NUM_TYPES))]
    sizes = []
    for q in range(s.players):
        if q != observer:
            hidden = hands[q] - s.known[q]
            pool.append(np.repeat(np.arange(NUM_TYPES), hidden))
            sizes.append((q, int(hidden.sum())))
            hands[q] = s.known[q]
    cards = rng.permutation(np.concatenate(pool))
    i = 0
    for q, k in sizes:
        np.add.at(hands[q], cards[i:i + k], 1)
        i += k
    return replace(s, hands=hands, stock=cards[i:], seed=int(rng.integers(1 << 40)))


@pytest.mark.parametrize("kw", [{}, {"players": 4, "jokers": 2}, {"players": 6, "decks": 3, "hand_size": 15},
                                {"must_play_if_able": True}])
def test_hidden_information_does_not_leak(kw):
    rng = np.random.default_rng(0)
    for seed in range(3):
        s = _midgame(seed, **kw)
        if s.done:
            continue
        for p in range(s.players):
            base = observation.observe(s, p)
            for _ in range(3):
                t = _permute_hidden(s, p, rng)
                game.check_invariants(t)
                o = observation.observe(t, p)
                assert np.array_equal(o["observation"], base["observation"])
                assert all(np.array_equal(a, b) for a, b in zip(o["action_mask"], base["action_mask"], strict=True))
            # and through the environment
            e = machiavelli_env.raw_env(Rules.load("classic", **kw))
            e.reset(options={"state": t})
            assert np.array_equal(e.observe(f"player_{p}")["observation"], base["observation"])


def test_global_state_vector():
    s = _midgame(2, players=3)
    v = observation.state_vector(s)
    assert observation.state_space().contains(v)
    planes = v[:21 * 53].reshape(21, 53)
    for q in range(3):
        assert np.allclose(planes[q] * 2, s.hands[q])


def _reference_vector(state: game.State, player: int, draw_allowed: bool) -> np.ndarray:
    """The layout of the module docstring, written plane by plane (independent of the fast code)."""
    r = state.rules
    norm = np.array([1.0 / (r.copies(c) if c != JOKER else max(r.jokers, 1)) for c in range(NUM_TYPES)],
                    dtype=np.float32)
    n = r.players
    planes = np.zeros((15, NUM_TYPES), dtype=np.float32)
    known_others = sum(state.known[q] for q in range(n) if q != player)
    unseen = game.pack_counts(r) - state.hands[player] - state.table - state.help - known_others
    for i, counts in enumerate((state.hands[player], state.table, state.help, unseen, state.last_play[player])):
        planes[i] = counts * norm
    seats = [(player + k) % n for k in range(n)]
    for k, q in enumerate(seats[1:]):
        planes[5 + k] = state.known[q] * norm
        planes[10 + k] = state.last_play[q] * norm
    sc = np.zeros(74, dtype=np.float32)
    for k, q in enumerate(seats):
        sc[k] = state.hands[q].sum() / r.pack_size
        sc[6 + k] = 1.0
        sc[12 + k] = float(state.opened[q])
        if state.last_action[q]:
            sc[18 + 4 * k + int(state.last_action[q]) - 1] = 1.0
        if r.match_target:
            sc[42 + k] = min(float(state.scores[q]) / r.match_target, 1.0)
    sc[48] = state.stock.size / r.pack_size
    sc[49] = min(state.passes / n, 1.0)
    sc[50] = min(state.turn / r.max_turns, 1.0)
    sc[51] = float(draw_allowed)
    sc[52:] = observation.rules_features(r)
    return np.concatenate([planes.reshape(-1), sc])


@pytest.mark.parametrize("kw", [{}, {"players": 5, "decks": 3, "hand_size": 11, "help_cards": 4},
                                {"players": 3, "jokers": 2, "match_target": 100}])
def test_vector_matches_the_documented_layout(kw):
    for seed in range(3):
        s = _midgame(seed, **kw)
        for p in range(s.players):
            for flag in (True, False):
                fast = observation.observation_vector(s, p, draw_allowed=flag)
                assert np.array_equal(fast, _reference_vector(s, p, flag))


def test_action_mask_arrays_are_read_only_and_shared():
    s = _midgame(0)
    mask = observation.action_mask(s, s.current)
    assert all(not m.flags.writeable for m in mask)
    allowed = game.allowed_counts(s, s.current)
    assert [int(m.sum()) - 1 for m in mask] == allowed.tolist()


def test_c_encoder_names_a_malformed_argument_and_writes_nothing():
    """The C encoder checks every buffer's dtype and size and names the one that is wrong."""
    from machiavelli_env import _obs  # type: ignore[attr-defined]

    s = _midgame(1)
    info = observation._obs_info(s.rules)
    out = np.full(observation.OBS_SIZE, 7.0, dtype=np.float32)
    args = [out, s.hands, s.known, s.last_play, s.table, s.help, info.pack, info.norm, info.template, s.opened,
            s.last_action, s.scores, 0, 0, s.stock.size, info.pack_size, s.passes, s.turn, info.max_turns, True]
    for index, bad, name in ((4, s.table.astype(np.int32), "table"), (7, info.norm.astype(np.float64), "norm"),
                             (0, np.empty(10, dtype=np.float32), "out"), (9, s.opened.astype(np.int8), "opened")):
        wrong = list(args)
        wrong[index] = bad
        with pytest.raises(ValueError, match=name):
            _obs.encode(*wrong)
        assert (out == 7.0).all()
    with pytest.raises(ValueError, match="player"):
        _obs.encode(*args[:12], 5, *args[13:])
    with pytest.raises(TypeError, match="20 arguments"):
        _obs.encode(*args[:5])
    _obs.encode(*args)
    assert np.array_equal(out, observation.observation_vector(s, 0, draw_allowed=True))
