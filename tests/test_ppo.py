"""The PPO agent: candidate features, the policy network, checkpoints and their errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("safetensors")

from machiavelli_env.agents.arena import evaluate, play_game  # noqa: E402
from machiavelli_env.agents.base import turn_from_state  # noqa: E402
from machiavelli_env.agents.heuristic import RandomAgent  # noqa: E402
from machiavelli_env.agents.ppo import (  # noqa: E402
    CAND_DIM,
    STATE_DIM,
    CandidatePolicy,
    CheckpointError,
    PolicySpec,
    PPOAgent,
    encode_turn,
    load_checkpoint,
    load_ppo_agent,
    save_checkpoint,
    shipped_checkpoint,
    state_dim,
    widen_state_dict,
)
from machiavelli_env.agents.registry import make_agent  # noqa: E402

from machiavelli_env import game  # noqa: E402
from machiavelli_env.cards import to_counts  # noqa: E402
from machiavelli_env.rules import Rules  # noqa: E402

SPEC = PolicySpec(limit=8, hidden=32, cand_hidden=16)


def _policy(seed: int = 0, spec: PolicySpec = SPEC) -> CandidatePolicy:
    torch.manual_seed(seed)
    return CandidatePolicy(spec)


def test_encode_turn_rows_follow_the_legal_plays():
    s = game.new_state_from("classic", ["9H JH KH 2C", "2D 7C KC"], "10H JH QH")
    turn = turn_from_state(s, 0, limit=SPEC.limit)
    state, cands, mask, plays = encode_turn(turn, SPEC)
    assert state.shape == (STATE_DIM,) and cands.shape == (SPEC.limit + 1, CAND_DIM)
    assert [bool(m) for m in mask] == [True] + [True] * len(plays) + [False] * (SPEC.limit - len(plays))
    # the first candidate is the max-cards play 9H JH KH: 3 cards played, 2C left, not going out
    assert np.allclose(cands[1, :53] * 2, to_counts("9H JH KH"))
    assert np.allclose(cands[1, 53:106] * 2, to_counts("2C"))
    scalars = cands[1, 106:]
    assert scalars[0] == 0 and scalars[1] == pytest.approx(3 / 13) and scalars[2] == pytest.approx(3 / 4)
    assert scalars[3] == 0 and scalars[7] == 1
    # the draw row keeps the whole hand
    assert cands[0, 106] == 1 and np.allclose(cands[0, 53:106] * 2, to_counts("9H JH KH 2C"))
    assert not cands[len(plays) + 1:].any()


def test_encode_turn_marks_going_out_and_must_play():
    s = game.new_state_from({"must_play_if_able": True}, ["9H", "2D 7C KC"], "10H JH QH")
    state, cands, mask, plays = encode_turn(turn_from_state(s, 0, limit=SPEC.limit), SPEC)
    assert len(plays) == 1 and not mask[0] and mask[1]
    assert cands[1, 106 + 3] == 1  # goes out


def test_a_winning_play_is_the_only_candidate_left_unless_take_wins_is_off():
    s = game.new_state_from("classic", ["9H 10H", "2D 7C KC"], "JH QH KH")
    turn = turn_from_state(s, 0, limit=SPEC.limit)
    _, cands, mask, plays = encode_turn(turn, SPEC)
    wins = [i + 1 for i, p in enumerate(plays) if p.sum() == 2]
    assert wins and len(plays) > len(wins)  # 10H alone is legal too
    assert mask.nonzero()[0].tolist() == wins and (cands[wins, 106 + 3] == 1).all()
    _, _, free, _ = encode_turn(turn, PolicySpec(limit=8, hidden=32, cand_hidden=16, take_wins=False))
    assert free[0] and free[1:len(plays) + 1].all()
    assert (PPOAgent(_policy()).act(turn) == plays[wins[0] - 1]).all()


def test_lookahead_feature_is_the_playable_fraction_of_the_rest():
    s = game.new_state_from("classic", ["9H KH 4C", "2D 7C KC"], "10H JH QH")
    spec = PolicySpec(limit=8, hidden=8, cand_hidden=8, lookahead=True)
    _, cands, _, plays = encode_turn(turn_from_state(s, 0, limit=8), spec)
    names = [game.format_cards(game.from_counts(p)) for p in plays]
    k = names.index("9H")
    # after 9H, KH can still go onto 9H..QH; 4C cannot: half of the rest is playable
    assert cands[k + 1, 106 + 11] == pytest.approx(0.5)


def test_stock_clock_marks_the_seat_that_draws_the_last_card():
    spec = PolicySpec(limit=8, hidden=8, cand_hidden=8, stock_clock=True)
    rules = Rules.load("classic_5p")
    state = game.new_game(rules, 3)
    for _ in range(12):  # everybody draws: the seat marked stays the same player
        turn = turn_from_state(state, limit=8)
        feats, _, _, _ = encode_turn(turn, spec)
        clock = feats[STATE_DIM:]
        assert feats.shape == (state_dim(spec),) == (STATE_DIM + 6,)
        assert clock.sum() == 1 and clock[(turn.stock_size - 1) % 5] == 1
        assert (state.current + int(clock.argmax())) % 5 == (state.current + turn.stock_size - 1) % 5
        state = game.step(state, np.zeros(53, dtype=np.int64))
    empty = game.new_state_from(rules, ["9H KH 4C", "2D 7C KC", "2S", "3S", "4S"], "10H JH QH", stock="")
    feats, _, _, _ = encode_turn(turn_from_state(empty, limit=8), spec)
    assert empty.stock.size == 0 and not feats[STATE_DIM:].any()
    assert not encode_turn(turn_from_state(state, limit=8), SPEC)[0][STATE_DIM:].size


def test_a_widened_policy_scores_like_the_policy_it_starts_from():
    policy = _policy(2)
    wide_spec = PolicySpec(limit=8, hidden=32, cand_hidden=16, stock_clock=True)
    wide = CandidatePolicy(wide_spec)
    wide.load_state_dict(widen_state_dict(policy, wide_spec))
    state = game.new_game(Rules.load("classic_5p"), 4)
    for _ in range(6):
        turn = turn_from_state(state, limit=8)
        s0, c0, m0, _ = encode_turn(turn, SPEC)
        s1, c1, m1, _ = encode_turn(turn, wide_spec)
        assert s1[STATE_DIM:].any()
        with torch.no_grad():
            a = policy(torch.from_numpy(s0)[None], torch.from_numpy(c0)[None], torch.from_numpy(m0)[None])
            b = wide(torch.from_numpy(s1)[None], torch.from_numpy(c1)[None], torch.from_numpy(m1)[None])
        assert torch.allclose(a[0], b[0]) and torch.allclose(a[1], b[1])
        state = game.step(state, np.zeros(53, dtype=np.int64))
    with pytest.raises(CheckpointError, match="cannot initialise"):
        widen_state_dict(policy, PolicySpec(limit=8, hidden=64, cand_hidden=16, stock_clock=True))
    with pytest.raises(CheckpointError, match="cannot initialise"):
        widen_state_dict(wide, SPEC)


def test_policy_masks_illegal_candidates_and_agent_plays_legal_moves():
    policy = _policy()
    rules = Rules.load("classic")
    agent = PPOAgent(policy, sample=True, seed=3)
    state = game.new_game(rules, 5)
    for _ in range(30):
        turn = turn_from_state(state, limit=SPEC.limit)
        action = agent.act(turn)
        legal = [p.tobytes() for p in turn.legal_plays] + [np.zeros(53, dtype=np.int64).tobytes()]
        assert action.tobytes() in legal
        state = game.step(state, action)
        if state.done:
            break
    s, c, m, _ = encode_turn(turn_from_state(game.new_game(rules, 1), limit=SPEC.limit), SPEC)
    logits, value = policy(torch.from_numpy(s)[None], torch.from_numpy(c)[None], torch.from_numpy(m)[None])
    assert logits.shape == (1, SPEC.limit + 1) and value.shape == (1,)
    assert (logits[0, ~torch.from_numpy(m)] < -1e8).all()


def test_acting_scores_are_the_forward_pass_masked_logits():
    # the agent scores one turn without the batch, the mask or the value head: the same logits
    agent = make_agent("ppo", Rules.load("classic"))
    policy, spec = agent.policy, agent.spec
    checked = 0
    for seed in (11, 12):
        state = game.new_game(Rules.load("classic"), seed)
        while not state.done and checked < 120:
            s, c, m, _ = encode_turn(turn_from_state(state), spec)
            with torch.no_grad():
                logits, _ = policy(torch.from_numpy(s)[None], torch.from_numpy(c)[None], torch.from_numpy(m)[None])
                scores = policy.scores(torch.from_numpy(s), torch.from_numpy(c))
            assert np.array_equal(np.where(m, scores.double().numpy(), -1e9), logits[0].double().numpy())
            checked += 1
            state = game.step(state, agent.act(turn_from_state(state)))
    assert checked >= 100


def test_checkpoint_round_trip_gives_the_same_scores(tmp_path):
    policy = _policy(1)
    path = save_checkpoint(policy, tmp_path / "model", info={"note": "test"})
    assert path.suffix == ".safetensors" and path.with_suffix(".json").is_file()
    loaded, meta = load_checkpoint(path)
    assert meta["info"]["note"] == "test" and loaded.spec == SPEC
    s, c, m, _ = encode_turn(turn_from_state(game.new_game("classic", 2), limit=SPEC.limit), SPEC)
    args = (torch.from_numpy(s)[None], torch.from_numpy(c)[None], torch.from_numpy(m)[None])
    assert torch.equal(policy(*args)[0], loaded(*args)[0])
    # the side file is optional: the safetensors header carries the same metadata
    path.with_suffix(".json").unlink()
    assert load_checkpoint(path)[0].spec == SPEC
    agent = make_agent(f"ppo:{path}", Rules.load("classic"), seed=0)
    assert isinstance(agent, PPOAgent) and agent.name == f"ppo:{path}"


def test_bad_checkpoints_raise_clear_errors(tmp_path):
    with pytest.raises(CheckpointError, match="no such checkpoint"):
        load_checkpoint(tmp_path / "missing.safetensors")
    junk = tmp_path / "junk.safetensors"
    junk.write_bytes(b"not a safetensors file at all")
    with pytest.raises(CheckpointError, match="not a readable safetensors"):
        load_checkpoint(junk)
    path = save_checkpoint(_policy(), tmp_path / "m")
    meta = json.loads(path.with_suffix(".json").read_text())
    meta["policy"]["hidden"] = 64
    path.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="shape"):
        load_checkpoint(path)
    meta["format"] = "something-else"
    path.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="not a machiavelli PPO checkpoint"):
        load_checkpoint(path)
    pickled = tmp_path / "code.pt"
    torch.save({"model": {}, "meta": {"format": "machiavelli-ppo"}, "evil": object()}, pickled)
    with pytest.raises(CheckpointError, match="weights-only"):
        load_checkpoint(pickled)



def test_without_an_exact_match_the_nearest_shipped_player_count_is_used(tmp_path, monkeypatch):
    import machiavelli_env.agents.ppo as ppo_module

    monkeypatch.setattr(ppo_module, "CHECKPOINT_DIR", tmp_path)
    with pytest.raises(CheckpointError, match="no shipped PPO checkpoint for 3 players"):
        load_ppo_agent(rules=Rules.load("classic", players=3))
    for n in (2, 4):
        (tmp_path / f"ppo_classic_{n}p.safetensors").write_bytes(b"")
    assert shipped_checkpoint(3).name == "ppo_classic_4p.safetensors"
    assert shipped_checkpoint(6).name == "ppo_classic_4p.safetensors"
    assert shipped_checkpoint(2).name == "ppo_classic_2p.safetensors"


def test_policy_spec_rejects_bad_values():
    with pytest.raises(ValueError, match="limit"):
        PolicySpec(limit=0)
    with pytest.raises(ValueError, match="unknown policy settings: width"):
        PolicySpec.from_dict({"width": 3})


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_shipped_checkpoint_loads_within_size_and_plays(players):
    path = shipped_checkpoint(players)
    assert path.name == f"ppo_classic_{players}p.safetensors"
    assert path.stat().st_size <= 5 * 2**20
    rules = Rules.load("classic", players=players)
    agent = make_agent("ppo", rules, seed=0)
    res = play_game(rules, [agent] + [RandomAgent(i) for i in range(1, players)], seed=11)
    assert res.result in ("win", "blocked", "draw")


@pytest.mark.parametrize("players", [5, 6])
def test_shipped_five_and_six_player_checkpoints_lay_down_to_move_the_last_draw(players):
    rules = Rules.load(f"classic_{players}p")
    agent, tempo = make_agent("ppo", rules), make_agent("tempo", rules)
    laid, offered = 0, 0
    for seed in range(4):
        state = game.new_game(rules, seed)
        for _ in range(2 * players):  # the first two rounds of a table where everybody draws
            turn = turn_from_state(state)
            move = agent.act(turn)
            if (turn.stock_size - 1) % players == 1:  # the next player would draw the last card
                assert not move.any()
            elif tempo.act(turn).any():
                offered += 1
                laid += bool(move.any())
            state = game.step(state, np.zeros(53, dtype=np.int64))
    assert offered >= 12 and laid >= 0.75 * offered


def test_shipped_two_player_checkpoint_beats_random_in_a_short_series():
    rules = Rules.load("classic")
    res = evaluate([make_agent("ppo", rules), RandomAgent(0)], rules, games=20, seed=2024)
    assert res["agents"][0]["win_rate"] >= 0.7


def test_a_policy_with_a_list_budget_trains_and_plays_on_those_lists(tmp_path):
    from machiavelli_env import legal

    budget = {"nodes": 6, "question_work": 100, "by_card_work": 300, "points_work": 100, "total_work": 800}
    spec = PolicySpec.from_dict({"limit": 16, "hidden": 32, "cand_hidden": 16, "list_budget": budget})
    assert spec.list_budget == legal.ListBudget(**budget) and spec.to_dict()["list_budget"] == budget
    assert "list_budget" not in SPEC.to_dict()  # exact lists: the settings of older checkpoints
    with pytest.raises(ValueError, match="policy list_budget"):
        PolicySpec.from_dict({"list_budget": {"node": 6}})
    # a crowded table and a big hand, where the bound leaves plays out
    bounded = 0
    for state in _crowded_states("classic", seed=71):
        p = state.current
        _, _, _, plays = encode_turn(turn_from_state(state, p, limit=16), spec)
        expected = game.legal_plays(state, p, 16, spec.list_budget)
        assert [x.tobytes() for x in plays] == [x.tobytes() for x in expected]
        bounded += len(expected) < len(game.legal_plays(state, p, 16))
    assert bounded > 0
    path = save_checkpoint(_policy(2, spec), tmp_path / "bounded")
    assert load_checkpoint(path)[0].spec == spec


def _crowded_states(preset: str, seed: int) -> list[game.State]:
    rules = Rules.load(preset)
    agents = [make_agent("greedy", rules), make_agent("hoarder", rules)]
    state, out = game.new_game(rules, seed), []
    while not state.done:
        if state.table.sum() >= 20 and state.hands[state.current].sum() >= 12:
            out.append(state)
        state = game.step(state, np.asarray(agents[state.current].act(turn_from_state(state)), dtype=np.int64))
    return out[::4]
