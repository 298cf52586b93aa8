"""Many random games per variant through the AEC environment: after every step no card is lost or
duplicated, the table is valid melds, observations lie in their space, and episodes end properly."""

from __future__ import annotations

import numpy as np
import pytest

import machiavelli_env
from machiavelli_env import game
from machiavelli_env.cards import NUM_TYPES

# (rule overrides, games): fewer games where the oracle is slower (jokers, big tables)
VARIANTS = [
    ({}, 30),
    ({"players": 4}, 30),
    ({"players": 3}, 30),
    ({"ace": "low"}, 30),
    ({"ace": "high"}, 30),
    ({"ace": "both_ends"}, 30),
    ({"ace": "wrap"}, 3),
    ({"opening": "group"}, 30),
    ({"opening": "points:36"}, 30),
    ({"failed_play_penalty": 3}, 30),
    ({"must_play_if_able": True}, 30),
    ({"help_cards": 4, "hand_size": 6}, 15),
    ({"always_draw": True}, 30),
    ({"points": "ace1", "reward": "points"}, 30),
    ({"match_target": 30}, 4),
    ({"players": 6, "decks": 3, "hand_size": 15}, 4),
    ({"jokers": 4}, 3),
    ({"players": 3, "jokers": 2, "max_jokers_per_meld": 2}, 4),
    ({"max_turns": 40}, 10),
]


def _action(e, agent, rng):
    """A mix of draws, optimal plays, listed legal plays and random multisets (mostly failed plays)."""
    raw = e.unwrapped
    s = raw.game_state
    p = s.current
    r = rng.random()
    if r < 0.25 and game.draw_allowed(s, p):
        return np.zeros(NUM_TYPES, dtype=np.int64)
    if r < 0.45:
        return raw.best_play(agent, objective=str(rng.choice(["cards", "points"])))
    if r < 0.6:
        plays = raw.legal_plays(agent, limit=4)
        if plays:
            return plays[int(rng.integers(len(plays)))]
    return game.allowed_counts(s, p) * (rng.random(NUM_TYPES) < 0.12)


def _ident(v):
    kw, games = v
    return (",".join(f"{k}={x}" for k, x in kw.items()) or "classic") + f"-x{games}"


@pytest.mark.parametrize("variant", VARIANTS, ids=_ident)
def test_random_games_keep_invariants(variant):
    kw, games = variant
    e = machiavelli_env.env(**kw)
    results = {}
    for g in range(games):
        e.reset(seed=g)
        rng = np.random.default_rng(g)
        space = e.observation_space(e.possible_agents[0])
        returns = dict.fromkeys(e.possible_agents, 0.0)
        for i, agent in enumerate(e.agent_iter()):
            obs, rew, term, trunc, _ = e.last()
            returns[agent] += rew
            if term or trunc:
                e.step(None)
                continue
            assert space["observation"].contains(obs["observation"])
            if i % 10 == 0:
                assert space.contains(obs)
            try:
                e.step(_action(e, agent, rng))
            except ValueError as exc:  # drawing while a play exists under must_play_if_able
                assert "must_play_if_able" in str(exc)
                e.step(e.unwrapped.best_play(agent))
            s = e.unwrapped.game_state
            game.check_invariants(s)
        s = e.unwrapped.game_state
        assert s.done and e.agents == []
        total = sum(returns.values())
        assert abs(total) < 1e-9  # zero-sum
        if s.truncated:
            assert s.turn == s.rules.max_turns and all(v == 0 for v in returns.values())
        results[s.result] = results.get(s.result, 0) + 1
    assert sum(results.values()) == games
