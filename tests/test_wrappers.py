"""CandidatePlays (AEC) and SingleAgentEnv (Gymnasium) wrappers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import machiavelli_env
from machiavelli_env import game
from machiavelli_env.cards import NUM_TYPES, to_counts
from machiavelli_env.wrappers import CandidatePlays, GreedyPolicy, RandomPolicy, SingleAgentEnv


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _at(state, limit=8):
    e = CandidatePlays(machiavelli_env.env(state.rules), limit=limit)
    e.reset(options={"state": state})
    return e


def test_candidate_observation_and_decode():
    s = game.new_state_from("classic", ["9H JH KH 2C", "2D 7C KC"], "10H JH QH")
    e = _at(s)
    obs, *_ = e.last()
    assert e.observation_space("player_0").contains(obs)
    assert obs["action_mask"].tolist() == [1, 1, 1, 1, 1, 0, 0, 0, 0]
    assert obs["candidates"].shape == (8, 53)
    assert np.allclose(obs["candidates"][0] * 2, to_counts("9H JH KH"))
    assert e.action_space("player_0").n == 9
    other = e.observe("player_1")
    assert not other["action_mask"].any() and not other["candidates"].any()
    with pytest.raises(ValueError, match="no candidate"):
        e.step(7)
    e.step(1)
    assert e.unwrapped.game_state.event == "play" and e.unwrapped.hand("player_0") == ["2C"]


def test_candidate_draw_and_must_play_mask():
    s = game.new_state_from({"must_play_if_able": True}, ["9H 2C", "2D 7C KC"], "10H JH QH")
    e = _at(s, limit=4)
    obs, *_ = e.last()
    assert obs["action_mask"].tolist() == [0, 1, 0, 0, 0]
    with pytest.raises(ValueError, match="must_play_if_able"):
        e.step(0)
    e.step(np.int64(1))
    e.step(0)  # player 1 has no play: drawing allowed
    assert e.unwrapped.game_state.event == "draw"


def test_candidate_masked_random_play_keeps_invariants():
    e = CandidatePlays(machiavelli_env.env(players=3), limit=8)
    e.reset(seed=3)
    e.action_space("player_0").seed(0)
    e.action_space("player_1").seed(1)
    e.action_space("player_2").seed(2)
    for agent in e.agent_iter(150):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        e.step(e.action_space(agent).sample(obs["action_mask"]))
        game.check_invariants(e.unwrapped.game_state)


@pytest.mark.parametrize("candidates", [None, 16])
def test_single_agent_check_env(candidates):
    check_env(SingleAgentEnv(candidates=candidates))
    check_env(SingleAgentEnv(rules="classic", players=3, candidates=candidates, render_mode="ansi"))


def test_single_agent_episode_and_masks():
    env = SingleAgentEnv(learner="player_1", opponents=GreedyPolicy(), candidates=8, players=3)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    total, steps = 0.0, 0
    rng = np.random.default_rng(0)
    while True:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.shape == (9,) and mask.any()
        assert np.array_equal(mask, obs["action_mask"].astype(bool))
        action = int(rng.choice(np.flatnonzero(mask)))
        obs, rew, term, trunc, info = env.step(action)
        total += rew
        steps += 1
        assert env.state.current == 1 or env.state.done
        if term or trunc:
            break
    assert term and env.state.done
    assert total in (1.0, -0.5) or (total == 0.0 and env.state.winner == -1)


def test_single_agent_multidiscrete_mask_and_coercion():
    env = SingleAgentEnv()
    obs, _ = env.reset(seed=1)
    mask = env.action_masks()
    nvec = env.action_space.nvec
    assert mask.shape == (int(nvec.sum()),)
    hand = env.state.hands[0]
    starts = np.concatenate([[0], np.cumsum(nvec)[:-1]])
    for c in range(NUM_TYPES):
        assert mask[starts[c]:starts[c] + nvec[c]].sum() == hand[c] + 1
    big = np.full(NUM_TYPES, 2)
    obs, *_ = env.step(big)  # clipped to the hand (non-strict): a play or a failed play
    assert env.observation_space.contains(obs)
    strict = SingleAgentEnv(strict=True)
    strict.reset(seed=1)
    with pytest.raises(ValueError):
        strict.step(big)


def test_single_agent_deterministic_with_seed():
    def run(seed):
        env = SingleAgentEnv(candidates=8, opponents=RandomPolicy())
        obs, _ = env.reset(seed=seed)
        out = [obs["observation"].tobytes()]
        for _ in range(15):
            obs, rew, term, trunc, _ = env.step(0)
            out.append(obs["observation"].tobytes())
            if term or trunc:
                break
        return out

    assert run(4) == run(4)
    assert run(4) != run(5)


def test_policy_callable_signature():
    calls = []

    def policy(obs, legal_plays):
        calls.append((obs["observation"].shape, len(legal_plays)))
        return 1 if legal_plays else None  # an index into [draw] + legal_plays

    env = SingleAgentEnv(opponents=[policy], candidates=4)
    env.reset(seed=0)
    env.step(0)
    assert calls and calls[0][0] == (869,)
    with pytest.raises(ValueError):
        SingleAgentEnv(opponents=[policy, policy])
    with pytest.raises(ValueError):
        SingleAgentEnv(learner="player_5")


def test_candidate_observations_are_the_same_through_another_wrapper():
    # under env()'s own wrapper the raw env's vector is read without its card-count mask; through
    # any other wrapper chain the wrapped env's observe() is: the same observations either way
    from pettingzoo.utils.wrappers import BaseWrapper

    fast = CandidatePlays(machiavelli_env.env(players=3), limit=16)
    slow = CandidatePlays(BaseWrapper(machiavelli_env.env(players=3)), limit=16)
    assert fast._plain and not slow._plain
    with pytest.raises(AttributeError, match="before reset"):
        fast.last()
    fast.reset(seed=11)
    slow.reset(seed=11)
    rng = np.random.default_rng(0)
    for agent in fast.agent_iter(120):
        got, want = fast.last(), slow.last()
        assert got[1:] == want[1:]
        for other in fast.possible_agents:
            pairs = [(got[0], want[0])] if other == agent else [(fast.observe(other), slow.observe(other))]
            for a, b in pairs:
                assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
        if got[2] or got[3]:
            fast.step(None)
            slow.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(got[0]["action_mask"])))
        fast.step(action)
        slow.step(action)
    assert fast.unwrapped.game_state.turn == slow.unwrapped.game_state.turn > 30


def test_candidate_tensor_divides_each_candidate_by_the_pack():
    from machiavelli_env.rules import Rules
    from machiavelli_env.wrappers import candidate_tensor

    rules = Rules.load("six_players_three_decks")
    rng = np.random.default_rng(1)
    plays = [rng.integers(0, 4, NUM_TYPES).astype(np.int64) for _ in range(5)]
    pack = game.pack_counts(rules)
    got = candidate_tensor(plays, rules, 4)
    assert got.dtype == np.float32 and got.shape == (4, NUM_TYPES)
    for i in range(4):
        assert np.array_equal(got[i], (plays[i] * (1.0 / np.maximum(pack, 1))).astype(np.float32))
    assert not candidate_tensor([], rules, 3).any()
