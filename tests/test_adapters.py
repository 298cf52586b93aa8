"""Adapters for other libraries' conventions: flat masks, numeric infos, invalid-action modes,
flattened candidates, config-dict construction and the Gymnasium registry."""

from __future__ import annotations

import pickle

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, performance_benchmark, seed_test
from pettingzoo.test.state_test import test_state as pz_state_test

import machiavelli_env
from machiavelli_env import observation
from machiavelli_env.cards import NUM_TYPES
from machiavelli_env.wrappers import CandidatePlays, SingleAgentEnv


def _walk(e, steps: int, seed: int = 0):
    """Random masked play through an AEC env (any mask form), yielding each observation before a move."""
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    for _ in range(steps):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.reset(seed=int(rng.integers(1 << 30)))
            continue
        yield e, obs
        plays = e.unwrapped.legal_plays()
        options = plays + ([np.zeros(NUM_TYPES, dtype=np.int64)] if e.unwrapped._draw_allowed(
            e.unwrapped.game_state.current) else [])
        e.step(options[int(rng.integers(len(options)))])


# ---------------------------------------------------------------------------------------------- env options
def test_defaults_unchanged_and_api_test_passes():
    e = machiavelli_env.env()
    assert e.unwrapped.mask == "tuple" and not e.unwrapped.numeric_info and e.unwrapped.invalid_action == "raise"
    e.reset(seed=3)
    obs, *_, info = e.last()
    assert isinstance(obs["action_mask"], tuple) and isinstance(info["event"], str)
    api_test(machiavelli_env.env(), num_cycles=100)
    api_test(machiavelli_env.env(numeric_info=True, invalid_action="draw"), num_cycles=100)


def test_flat_mask_is_the_tuple_concatenated():
    tup = machiavelli_env.env(jokers=2, help_cards=4)
    flat = machiavelli_env.env(jokers=2, help_cards=4, mask="flat")
    n = int(observation.action_nvec(flat.unwrapped.rules).sum())
    assert flat.observation_space("player_0")["action_mask"] == gymnasium.spaces.MultiBinary(n)
    seen_help = False
    for (e, obs) in _walk(flat, 150, seed=5):
        tup.unwrapped.restore_state(e.unwrapped.clone_state())
        for agent in e.agents:
            want = np.concatenate(tup.unwrapped.observe(agent)["action_mask"])
            got = e.unwrapped.observe(agent)["action_mask"]
            assert got.dtype == np.int8 and got.shape == (n,)
            np.testing.assert_array_equal(got, want)
        assert flat.observation_space(e.agent_selection).contains(obs)
        seen_help |= bool(np.count_nonzero(e.unwrapped.game_state.help))
    assert seen_help  # the help pile's extra counts were exercised


def test_numeric_info_codes_name_the_events():
    e = machiavelli_env.env(numeric_info=True)
    text = machiavelli_env.env()
    for (env_, _), (_, _) in zip(_walk(e, 400, seed=2), _walk(text, 400, seed=2), strict=True):
        for agent in env_.agents:
            code = env_.infos[agent]["event"]
            assert isinstance(code, int)
            assert observation.EVENT_NAMES[code] == text.infos[agent]["event"]
    assert observation.event_code("play:win") == observation.EVENT_NAMES.index("play:win")
    with pytest.raises(ValueError, match="unknown event"):
        observation.event_code("teleport")


def test_event_table_covers_the_engine_events():
    from machiavelli_env import game

    seen = set()
    for rules in ({}, {"match_target": 60}):
        e = machiavelli_env.env(**rules)
        for env_, _ in _walk(e, 500, seed=4):
            seen.add(env_.unwrapped.game_state.event)
    assert seen <= set(observation.EVENT_NAMES)
    assert {"play", "draw"} <= seen
    assert set(observation.RESULT_NAMES) >= {"", "win", "blocked", "draw", "truncated"}
    assert game.State.__dataclass_fields__["event"].default in observation.EVENT_NAMES


def test_invalid_action_draw_substitutes_and_raise_raises():
    strict = machiavelli_env.env()
    strict.reset(seed=1)
    before = strict.unwrapped.game_state
    bad = np.full(NUM_TYPES, 2, dtype=np.int64)  # more copies than held
    with pytest.raises(ValueError):
        strict.step(bad)
    assert strict.unwrapped.game_state is before
    loose = machiavelli_env.env(invalid_action="draw")
    loose.reset(seed=1)
    hand = loose.unwrapped.game_state.hands[0].sum()
    loose.step(bad)
    s = loose.unwrapped.game_state
    assert s.event == "draw" and s.hands[0].sum() == hand + 1
    loose.step(7)  # not even a vector
    assert loose.unwrapped.game_state.event == "draw"


def test_invalid_action_draw_plays_when_drawing_is_forbidden():
    e = machiavelli_env.env(invalid_action="draw", must_play_if_able=True)
    for env_, _ in _walk(e, 400, seed=9):
        base = env_.unwrapped
        if not base._draw_allowed(base.game_state.current):
            clone = base.clone_state()
            want = base.legal_plays(limit=1)[0]
            env_.step(np.full(NUM_TYPES, 9))
            assert base.game_state.event.startswith(("play", "failed"))
            np.testing.assert_array_equal(base.game_state.table, clone.table + want)
            return
    pytest.fail("no position where drawing was forbidden")


def test_bad_option_values_are_named():
    with pytest.raises(ValueError, match="mask must be"):
        machiavelli_env.env(mask="dense")
    with pytest.raises(ValueError, match="invalid_action must be"):
        machiavelli_env.env(invalid_action="ignore")
    with pytest.raises(TypeError, match="numeric_info"):
        machiavelli_env.env(numeric_info="yes")


def test_options_survive_pickling():
    e = machiavelli_env.env(mask="flat", numeric_info=True, invalid_action="draw", players=3)
    f = pickle.loads(pickle.dumps(e))
    u = f.unwrapped
    assert (u.mask, u.numeric_info, u.invalid_action, u.rules.players) == ("flat", True, "draw", 3)


def test_pettingzoo_state_test_and_benchmark_through_the_adapters(capsys, monkeypatch):
    pz_state_test(machiavelli_env.env(invalid_action="draw"), 200)
    # performance_benchmark picks an index of the flat mask: the candidate-play actions
    import time

    clock = iter(np.arange(0.0, 1000.0, 0.01))  # 500 loop iterations of "time", no wall clock involved
    monkeypatch.setattr(time, "time", lambda: float(next(clock)))
    performance_benchmark(CandidatePlays(machiavelli_env.env(numeric_info=True)))
    assert "turns per second" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------- CandidatePlays
def test_candidate_plays_flatten_folds_the_candidates_in():
    plain = CandidatePlays(machiavelli_env.env(), limit=8)
    flat = CandidatePlays(machiavelli_env.env(), limit=8, flatten=True)
    space = flat.observation_space("player_0")
    assert set(space.spaces) == {"observation", "action_mask"}
    assert space["observation"].shape == (observation.OBS_SIZE + 8 * NUM_TYPES,)
    for e in (plain, flat):
        e.reset(seed=11)
    rng = np.random.default_rng(0)
    nonzero_cands = 0
    for _ in range(200):
        a_obs, *_, term, trunc, _ = plain.last()
        b_obs, *_ = flat.last()
        if term or trunc:
            break
        np.testing.assert_array_equal(b_obs["observation"][:observation.OBS_SIZE], a_obs["observation"])
        np.testing.assert_array_equal(b_obs["observation"][observation.OBS_SIZE:], a_obs["candidates"].ravel())
        np.testing.assert_array_equal(b_obs["action_mask"], a_obs["action_mask"])
        assert space.contains(b_obs)
        nonzero_cands += int(a_obs["candidates"].any())
        action = int(rng.choice(np.flatnonzero(a_obs["action_mask"])))
        plain.step(action)
        flat.step(action)
    assert nonzero_cands > 0
    api_test(CandidatePlays(machiavelli_env.env(), limit=8, flatten=True), num_cycles=100)
    seed_test(lambda: CandidatePlays(machiavelli_env.env(), limit=8, flatten=True), num_cycles=60)


def test_candidate_plays_invalid_action_modes():
    e = CandidatePlays(machiavelli_env.env(), limit=4)
    e.reset(seed=2)
    n = len(e.candidates())
    with pytest.raises(ValueError, match="names no candidate"):
        e.step(n + 1 if n < 4 else 99)
    loose = CandidatePlays(machiavelli_env.env(), limit=4, invalid_action="draw")
    loose.reset(seed=2)
    loose.step(99)
    assert loose.unwrapped.game_state.event == "draw"
    with pytest.raises(ValueError, match="invalid_action"):
        CandidatePlays(machiavelli_env.env(), invalid_action="skip")
    with pytest.raises(ValueError, match="limit"):
        CandidatePlays(machiavelli_env.env(), limit=0)


# ---------------------------------------------------------------------------------------------- SingleAgentEnv
def test_single_agent_env_from_one_config_mapping():
    cfg = {"candidates": 16, "players": 3, "opponents": "greedy", "numeric_info": True, "rules": "classic"}
    a = SingleAgentEnv(cfg)
    b = SingleAgentEnv.from_config(cfg)
    c = SingleAgentEnv("classic", candidates=16, players=3, opponents="greedy", numeric_info=True)
    for e in (a, b, c):
        assert e.rules == c.rules and e.candidates == 16 and e.numeric_info
        assert all(type(p).__name__ == "GreedyPolicy" for p in e.opponents.values())
    oa, ia = a.reset(seed=4)
    oc, ic = c.reset(seed=4)
    np.testing.assert_array_equal(oa["observation"], oc["observation"])
    assert ia == ic and all(isinstance(v, int) for v in ia.values())
    # a mapping of rules fields only is still a rules spec, as before; an empty one is the defaults
    assert SingleAgentEnv({"players": 4}).rules.players == 4
    assert SingleAgentEnv({}).rules.to_dict() | {"name": ""} == SingleAgentEnv().rules.to_dict() | {"name": ""}
    with pytest.raises(TypeError, match="not both"):
        SingleAgentEnv({"candidates": 8}, candidates=8)
    with pytest.raises(ValueError, match="unknown opponent"):
        SingleAgentEnv({"opponents": "genius"})
    with pytest.raises(TypeError, match="unexpected keyword argument 'playerz'"):
        SingleAgentEnv({"candidates": 8, "playerz": 3})
    with pytest.raises(TypeError, match="unexpected keyword argument 'frameskip'"):  # TorchRL's GymEnv probes it
        gymnasium.make("MachiavelliCandidates-v1", frameskip=1)


def test_single_agent_numeric_info_decodes():
    e = SingleAgentEnv(candidates=8, numeric_info=True)
    t = SingleAgentEnv(candidates=8)
    oe, ie = e.reset(seed=7)
    ot, it = t.reset(seed=7)
    for _ in range(300):
        assert observation.EVENT_NAMES[ie["event"]] == it["event"]
        assert observation.RESULT_NAMES[ie["result"]] == it["result"]
        a = int(np.flatnonzero(oe["action_mask"])[-1])
        oe, _, te, tre, ie = e.step(a)
        ot, _, tt, trt, it = t.step(a)
        if te or tre:
            assert observation.RESULT_NAMES[ie["result"]] == it["result"] != ""
            oe, ie = e.reset()
            ot, it = t.reset()


# ---------------------------------------------------------------------------------------------- Gymnasium registry
def test_gymnasium_registry_make_and_make_vec():
    from gymnasium.utils.env_checker import check_env

    for env_id, kwargs in machiavelli_env.GYMNASIUM_IDS.items():
        spec = gymnasium.spec(env_id)
        assert spec.entry_point == "machiavelli_env.wrappers:SingleAgentEnv" and spec.kwargs == kwargs
    e = gymnasium.make("MachiavelliCandidates-v1", players=3)
    assert e.unwrapped.rules.players == 3 and e.unwrapped.candidates == 64
    check_env(e.unwrapped, skip_render_check=True)
    raw = gymnasium.make("Machiavelli-v1")
    assert isinstance(raw.action_space, gymnasium.spaces.MultiDiscrete)
    v = gymnasium.make_vec("MachiavelliCandidates-v1", num_envs=2, vectorization_mode="sync")
    obs, _ = v.reset(seed=0)
    assert obs["action_mask"].shape == (2, 65) and obs["candidates"].shape == (2, 64, NUM_TYPES)
    obs, *_ = v.step(np.zeros(2, dtype=np.int64))
    v.close()


def test_import_registers_without_importing_the_env_modules():
    import subprocess
    import sys

    code = ("import sys, machiavelli_env, gymnasium; "
            "assert 'Machiavelli-v1' in gymnasium.registry; "
            "heavy = [m for m in ('machiavelli_env.wrappers', 'machiavelli_env.env', 'pettingzoo', 'torch') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    code = "import gymnasium; e = gymnasium.make('machiavelli_env:MachiavelliCandidates-v1'); print(e.spec.id)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "MachiavelliCandidates-v1"


# ---------------------------------------------------------------------------------------------- arena interop
def test_candidate_agent_sees_what_candidate_plays_shows():
    from machiavelli_env.agents.base import turn_from_state
    from machiavelli_env.agents.interop import CandidateAgent, win_rate

    for flatten, key in ((False, "observation"), (True, "observations")):
        e = CandidatePlays(machiavelli_env.env(), limit=8, flatten=flatten, observation_key=key)
        agent = CandidateAgent(lambda obs: 0, limit=8, flatten=flatten, observation_key=key)
        e.reset(seed=21)
        for _ in range(60):
            obs, *_, term, trunc, _ = e.last()
            if term or trunc:
                break
            mine, plays = agent.observe(turn_from_state(e.unwrapped.game_state, limit=8))
            assert set(mine) == set(obs) and key in obs
            for k in obs:
                np.testing.assert_array_equal(mine[k], obs[k])
            e.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    rules = machiavelli_env.Rules.load("classic")
    greedy = CandidateAgent(lambda obs: 1 if obs["action_mask"][1] else 0, limit=8, name="first")
    res = win_rate(greedy, rules, "random", games=8, seed=3)
    assert res["games"] == 8 and 0 <= res["wins"] <= 8 and res == win_rate(greedy, rules, "random", games=8, seed=3)
    bad = CandidateAgent(lambda obs: 8, limit=8)
    with pytest.raises(ValueError, match="not allowed"):
        win_rate(bad, rules, "random", games=2, seed=0)
