"""One player per name: ``random`` and ``greedy`` are the same bots in ``SingleAgentEnv`` (and
``gymnasium.make(..., opponents=...)``) as in ``machiavelli eval``, ``league`` and ``win_rate``
(:mod:`machiavelli_env.bots`), and ``random``, ``ppo`` and ``hoarder`` are BENCHMARK.md's players by
default."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from machiavelli_env.agents.base import turn_from_state
from machiavelli_env.agents.heuristic import GreedyAgent, RandomAgent
from machiavelli_env.agents.registry import make_agent

from machiavelli_env import bots, game
from machiavelli_env.rules import Rules
from machiavelli_env.wrappers import GreedyPolicy, RandomPolicy, SingleAgentEnv


def _states(preset: str, games: int, seed: int) -> list[game.State]:
    """Every decision state of ``games`` games of random against greedy (both seats' turns)."""
    rules = Rules.load(preset)
    out = []
    for g in range(games):
        players = [RandomPolicy(seed + g) if q % 2 == 0 else GreedyPolicy() for q in range(rules.players)]
        state = game.new_game(rules, seed + g)
        while not state.done:
            out.append(state)
            state = game.step(state, players[state.current].play(state, state.current))
    return out


@pytest.mark.parametrize("preset", ["classic", "classic_jokers", "classic_4p"])
def test_the_env_bots_and_the_agents_of_the_same_names_choose_alike(preset: str) -> None:
    states = _states(preset, 2, seed=40)
    assert len(states) > 50
    for i, state in enumerate(states):
        q = state.current
        for limit in (32, 64):  # the arena's list length is the caller's; random's is its own
            turn = turn_from_state(state, q, limit=limit)
            agent, policy = RandomAgent(seed=i), RandomPolicy(seed=i)
            assert np.array_equal(agent.act(turn), policy.play(state, q))
        assert np.array_equal(GreedyAgent().act(turn_from_state(state, q)), GreedyPolicy().play(state, q))


def test_greedy_draws_when_the_oracle_finds_no_play_and_plays_when_it_must() -> None:
    assert not bots.greedy_choice(np.zeros(53, dtype=np.int64), True, lambda: []).any()
    forced = np.zeros(53, dtype=np.int64)
    forced[3] = 1
    assert np.array_equal(bots.greedy_choice(np.zeros(53, dtype=np.int64), False, lambda: [forced]), forced)


def test_random_draws_last_and_picks_uniformly() -> None:
    plays = [np.eye(53, dtype=np.int64)[k] for k in range(3)]
    rng = np.random.default_rng(0)
    picks = [int(np.argmax(a)) if a.any() else -1 for a in (bots.random_choice(plays, True, rng) for _ in range(4000))]
    counts = np.bincount(np.array(picks) + 1, minlength=4)
    assert counts.min() > 850  # 1,000 each expected: draw (-1) and the three plays
    assert not bots.random_choice([], True, rng).any() and not bots.random_choice([], False, rng).any()


def test_single_agent_env_named_opponents_are_the_bots() -> None:
    env = SingleAgentEnv("classic", opponents="random", candidates=8)
    assert all(isinstance(p, RandomPolicy) for p in env.opponents.values())
    env = SingleAgentEnv("classic", opponents="greedy", candidates=8)
    assert all(isinstance(p, GreedyPolicy) for p in env.opponents.values())
    obs, _ = env.reset(seed=3)
    for _ in range(40):
        obs, _, term, trunc, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if term or trunc:
            break


def test_the_gymnasium_ids_are_v1_and_v0_names_its_successor() -> None:
    import machiavelli_env  # noqa: F401  (registers the ids)

    assert gymnasium.make("MachiavelliCandidates-v1").unwrapped.candidates == 64
    with pytest.raises(gymnasium.error.DeprecatedEnv, match="MachiavelliCandidates-v1"):
        gymnasium.make("MachiavelliCandidates-v0")


def test_the_names_default_to_benchmark_players() -> None:
    rules = Rules.load("classic_2p")
    assert make_agent("random", rules).list_budget is None
    assert make_agent("hoarder", rules).search_work is None
    assert make_agent("random", rules, exact_lists=False).list_budget is not None


def test_any_agent_sits_in_single_agent_env_as_the_same_player() -> None:
    from machiavelli_env.agents.heuristic import HoarderAgent
    from machiavelli_env.agents.interop import AgentOpponent

    hoarder = AgentOpponent("hoarder")
    for state in _states("classic", 1, seed=60):
        q = state.current
        assert np.array_equal(hoarder.play(state, q), HoarderAgent().act(turn_from_state(state, q)))
    env = SingleAgentEnv("classic", candidates=8, opponents=AgentOpponent("patient"))
    obs, _ = env.reset(seed=1)
    moves = 0
    while moves < 200:
        obs, _, term, trunc, _ = env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
        moves += 1
        if term or trunc:
            break
    assert moves > 3


def test_an_opponent_that_is_neither_a_policy_nor_a_name_is_refused() -> None:
    with pytest.raises(TypeError, match="play\\(state, seat\\)"):
        SingleAgentEnv("classic", opponents=[object()])
    with pytest.raises(ValueError, match="AgentOpponent"):
        SingleAgentEnv("classic", opponents="hoarder")
