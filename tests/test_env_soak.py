"""Soak: many games of eight variant configurations (2-6 players) through the AEC environment.

Each move is a random legal play (uniform over ``legal_plays(agent, 32)``), a draw, or a random
multiset of held cards (mostly failed plays); now and then a malformed action, which must raise
``ValueError`` naming the problem and leave the state untouched. After every step: no card lost
or duplicated, the table partitions into valid melds, known cards are held, the observation lies
in its space; every game ends (a win, a blocked game, or truncation at ``max_turns``) and rewards
are zero-sum. The default run is small; ``-m heavy`` runs the big one.
"""

from __future__ import annotations

import numpy as np
import pytest

import machiavelli_env
from machiavelli_env import game
from machiavelli_env.cards import NUM_TYPES

# eight configurations, 2 to 6 players, covering every rules field that changes the flow
CONFIGS = {
    "classic_2p": {},
    "4p_jokers2": {"players": 4, "jokers": 2},
    "6p_three_decks": {"players": 6, "decks": 3, "hand_size": 15},
    "3p_wrap_open36": {"players": 3, "ace": "wrap", "opening": "points:36"},
    "5p_help_must_play": {"players": 5, "decks": 3, "hand_size": 11, "help_cards": 4, "must_play_if_able": True},
    "2p_marche_penalty3": {"always_draw": True, "failed_play_penalty": 3, "points": "ace1"},
    "4p_group_both_ends": {"players": 4, "opening": "group", "ace": "both_ends"},
    "3p_match_jokers4": {"players": 3, "jokers": 4, "max_jokers_per_meld": 2, "ace": "low", "match_target": 60,
                         "reward": "points"},
}

MALFORMED = (
    (lambda s: np.zeros(NUM_TYPES - 1, dtype=np.int64), "shape"),
    (lambda s: -np.ones(NUM_TYPES, dtype=np.int64), "negative"),
    (lambda s: np.full(NUM_TYPES, 0.5), "integers"),
    (lambda s: _not_held(s), "does not hold"),
    (lambda s: "ZZ", "not a card"),
    (lambda s: None, "None"),
)


def _not_held(s: game.State) -> np.ndarray:
    a = np.zeros(NUM_TYPES, dtype=np.int64)
    allowed = game.allowed_counts(s, s.current)
    c = int(np.argmin(allowed[:52]))
    a[c] = allowed[c] + 1
    return a


def _move(raw, agent: str, rng: np.random.Generator) -> np.ndarray:
    s = raw.game_state
    p = s.current
    u = rng.random()
    if u < 0.45:
        plays = raw.legal_plays(agent, 32)
        if plays:
            return plays[int(rng.integers(len(plays)))]
    if u < 0.6 and game.draw_allowed(s, p):
        return np.zeros(NUM_TYPES, dtype=np.int64)
    allowed = game.allowed_counts(s, p)
    cards = np.repeat(np.arange(NUM_TYPES), allowed)
    a = np.zeros(NUM_TYPES, dtype=np.int64)
    if cards.size:
        for c in rng.choice(cards, size=min(int(rng.integers(1, 5)), cards.size), replace=False):
            a[c] += 1
    if not a.any() and not game.draw_allowed(s, p):
        return raw.best_play(agent)
    return a


def soak(name: str, games: int, max_turns: int, seed: int = 0) -> dict[str, int]:
    """Play ``games`` games of configuration ``name``; assert every invariant; count the endings."""
    e = machiavelli_env.env(**CONFIGS[name], max_turns=max_turns)
    raw = e.unwrapped
    space = e.observation_space(e.possible_agents[0])
    pack = game.pack_counts(raw.rules)
    endings: dict[str, int] = {}
    for g in range(games):
        rng = np.random.default_rng([seed, g])
        e.reset(seed=seed * 1000 + g)
        returns = dict.fromkeys(e.possible_agents, 0.0)
        steps = 0
        for agent in e.agent_iter(max_iter=10 * max_turns + 100):
            obs, reward, term, trunc, _ = e.last()
            returns[agent] += reward
            if term or trunc:
                e.step(None)
                continue
            assert space["observation"].contains(obs["observation"])
            if rng.random() < 0.03:  # a malformed action: a clear error, nothing changes
                make, words = MALFORMED[int(rng.integers(len(MALFORMED)))]
                before, text = raw.game_state, game.state_to_json(raw.game_state)
                with pytest.raises(ValueError, match=words):
                    e.step(make(before))
                assert raw.game_state is before and game.state_to_json(raw.game_state) == text
                assert e.agent_selection == agent
            e.step(_move(raw, agent, rng))
            steps += 1
            game.check_invariants(raw.game_state, pack)
        s = raw.game_state
        assert s.done and e.agents == [], f"{name} game {g} did not end"
        assert steps <= max_turns and s.turn <= max_turns
        assert abs(sum(returns.values())) < 1e-6
        if s.truncated:  # truncation pays nothing (match play with points pays each finished game)
            assert s.turn == max_turns and not s.rewards.any()
            if raw.rules.match_target == 0:
                assert all(v == 0 for v in returns.values())
        endings[s.result] = endings.get(s.result, 0) + 1
    return endings


# with jokers on a crowded table one oracle question can take a second: shorter games there
SHORT = {"4p_jokers2", "3p_match_jokers4"}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_soak(name):
    endings = soak(name, games=2, max_turns=40 if name in SHORT else 120)
    assert sum(endings.values()) == 2


@pytest.mark.heavy
@pytest.mark.parametrize("name", list(CONFIGS))
def test_soak_heavy(name):
    games = 10 if name in SHORT else 40
    endings = soak(name, games=games, max_turns=250 if name in SHORT else 1000, seed=1)
    assert sum(endings.values()) == games
    assert set(endings) <= {"win", "blocked", "draw", "truncated"}
