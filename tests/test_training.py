"""PPO training: configs, GAE, the opponent pool, rollouts, a tiny end-to-end run with resume, the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("yaml")
pytest.importorskip("tensorboard")

from machiavelli_env.agents.ppo import (  # noqa: E402
    CAND_DIM,
    STATE_DIM,
    CandidatePolicy,
    PolicySpec,
    load_checkpoint,
    shipped_checkpoint,
)
from machiavelli_env.training import pool  # noqa: E402
from machiavelli_env.training.cli import CONFIG_DIR, config_names  # noqa: E402
from machiavelli_env.training.config import ConfigError, config_from_dict, load_config  # noqa: E402
from machiavelli_env.training.plotting import eval_label  # noqa: E402
from machiavelli_env.training.ppo import gae, train  # noqa: E402
from machiavelli_env.training.rollout import RolloutWorker  # noqa: E402

from machiavelli_env.cli import main as cli_main  # noqa: E402
from machiavelli_env.rules import Rules  # noqa: E402

TINY = {
    "name": "tiny",
    "seed": 3,
    "updates": 2,
    "save_every": 1,
    "rollout": {"workers": 1, "games": 2, "steps": 4},
    "policy": {"limit": 8, "hidden": 16, "cand_hidden": 8},
    "ppo": {"minibatches": 2, "epochs": 1},
    "pool": {"heuristics": {"greedy": 1}, "self_play": [0.5, 0.5], "snapshot_every": 1},
    "eval": {"every": 1, "games": 2, "opponents": ["greedy"], "sample": True},
}


@pytest.mark.parametrize(
    "name",
    ["default", "stage1_2p_classic", "ppo_2p_classic", "ppo_2p_classic_from_default", "ppo_3p_classic",
     "ppo_3p_classic_placement",
     "ppo_4p_classic", "ppo_4p_classic_scratch", "ppo_4p_classic_mixed", "ppo_4p_classic_placement", "ppo_4p_jokers",
     "ppo_6p_three_decks", "ppo_3p_hoard", "ppo_4p_hoard", "ppo_5p_tempo", "ppo_6p_tempo"],
)
def test_shipped_training_configs_load(name):
    assert name in config_names()
    cfg = load_config(CONFIG_DIR / f"{name}.yaml")
    rules = cfg.load_rules()
    assert cfg.batch_size % cfg.ppo.minibatches == 0
    named = re.match(r"ppo_(\d)p_", name)  # ppo_<n>p_...; default is 2 players
    assert rules.players == (int(named[1]) if named else 2)
    if name == "ppo_4p_jokers":
        assert rules.jokers > 0
    if name == "ppo_6p_three_decks":
        assert rules.decks == 3


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_each_shipped_checkpoint_names_the_shipped_config_that_trained_it(players):
    info = load_checkpoint(shipped_checkpoint(players))[1]["info"]
    cfg = load_config(CONFIG_DIR / f"{info['config']}.yaml")
    assert (cfg.seed, cfg.updates, cfg.load_rules().players) == (info["seed"], info["updates"], players)
    assert cfg.init == info.get("init") and cfg.imitate.teacher == info.get("imitate")


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"colour": 1}, "unknown keys: colour"),
        ({"ppo": {"lr": -1.0}}, "ppo.lr must be positive"),
        ({"ppo": {"gamma": 1.5}}, r"ppo.gamma must be in \[0, 1\]"),
        ({"rollout": {"games": 0}}, "rollout.games must be a positive integer"),
        ({"rollout": {"take_wins": "yes"}}, "rollout.take_wins must be true or false"),
        ({"rollout": {"workers": 1, "games": 3, "steps": 1}, "ppo": {"minibatches": 2}}, "must divide the batch"),
        ({"pool": {"heuristics": {"wizard": 1}}}, "unknown bot 'wizard'"),
        ({"pool": {"self_play": [0.1]}}, "pool.self_play"),
        ({"ppo": {"reward": "score"}}, "ppo.reward must be one of env, placement"),
        ({"ppo": {"reward": "placement", "placement_weight": 1.5}}, r"ppo.placement_weight must be in \[0, 1\]"),
        ({"ppo": {"placement_weight": 0.5}}, "placement_weight applies only with ppo.reward: placement"),
        ({"eval": {"opponents": ["ppo"]}}, "unknown bot 'ppo'"),
        ({"policy": {"limit": 0}}, "policy: policy limit"),
        ({"rules": "no_such_preset"}, "rules:"),
        ({"players": 9}, "rules:"),
        ({"updates": 0}, "updates must be a positive integer"),
        ({"imitate": {"teacher": "wizard"}}, "imitate.teacher: unknown agent 'wizard'"),
        ({"imitate": {"teacher": "human"}}, "imitate.teacher must name an agent other than human"),
        ({"imitate": {"teacher": "hoarder", "games": 0}}, "imitate.games must be a positive integer"),
        ({"imitate": {"teacher": "hoarder", "lr": 0}}, "imitate.lr must be positive"),
        ({"imitate": {"teacher": "hoarder", "opponents": {"ppo": 1}}}, "imitate.opponents: unknown bot 'ppo'"),
        ({"imitate": {"teacher": "hoarder", "opponents": {"greedy": 0}}}, "must not all be zero"),
        ({"imitate": {"tutor": "hoarder"}}, "imitate: unknown keys: tutor"),
    ],
)
def test_bad_configs_name_the_problem(patch, message):
    with pytest.raises(ConfigError, match=message):
        config_from_dict({**TINY, **patch})


def test_load_config_reports_the_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo: [1, 2\n")
    with pytest.raises(ConfigError, match="bad.yaml: not valid YAML"):
        load_config(bad)
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "none.yaml")


def test_gae_matches_a_hand_computation():
    rewards = np.array([[0.0], [1.0], [0.0]], dtype=np.float32)
    values = np.array([[0.5], [0.2], [0.3]], dtype=np.float32)
    ends = np.array([[0.0], [1.0], [0.0]], dtype=np.float32)
    last = np.array([0.4], dtype=np.float32)
    g, lam = 0.9, 0.8
    adv, ret = gae(rewards, values, ends, last, g, lam)
    d2 = 0.0 + g * 0.4 - 0.3
    d1 = 1.0 - 0.2  # the game ended: no bootstrap
    d0 = 0.0 + g * 0.2 - 0.5
    expected = [d0 + g * lam * d1, d1, d2]
    assert np.allclose(adv[:, 0], expected)
    assert np.allclose(ret, adv + values)


def test_self_play_schedule_and_opponent_sampling():
    assert pool.self_play_prob([0.0, 0.5], 0, 11) == 0.0
    assert pool.self_play_prob([0.0, 0.5], 10, 11) == pytest.approx(0.5)
    assert pool.self_play_prob([0.0, 0.5], 5, 11) == pytest.approx(0.25)
    rng = np.random.default_rng(0)
    keys = [pool.sample_opponent(rng, {"random": 1, "greedy": 3}, 0.0, 0.5, [1, 2]) for _ in range(2000)]
    assert set(keys) == {"random", "greedy"} and 0.7 < keys.count("greedy") / 2000 < 0.8
    keys = [pool.sample_opponent(rng, {"random": 1}, 1.0, 0.5, [4, 7]) for _ in range(2000)]
    assert set(keys) == {"latest", "snapshot:4", "snapshot:7"} and 0.45 < keys.count("latest") / 2000 < 0.55
    # without snapshots a policy opponent is the latest policy
    assert {pool.sample_opponent(rng, {"random": 1}, 1.0, 0.0, []) for _ in range(50)} == {"latest"}
    assert pool.kind_of("snapshot:4") == "snapshot" and pool.kind_of("greedy") == "greedy"


@pytest.mark.parametrize("players", [2, 4, 6])
def test_rollout_batch_holds_learner_decisions_only(players):
    rules = Rules.load("classic", players=players)
    spec = PolicySpec(limit=8, hidden=16, cand_hidden=8)
    w = RolloutWorker(rules, spec, games=3, seed=1, worker=0, first_update=0, heuristics={"greedy": 1, "random": 1},
                      latest=0.5, gamma=0.99, shaping=0.1)
    out = w.collect(steps=5, p_policy=0.5)
    assert out["states"].shape == (5, 3, STATE_DIM) and out["cands"].shape == (5, 3, 9, CAND_DIM)
    chosen = np.take_along_axis(out["masks"], out["actions"][..., None], axis=2)
    assert chosen.all()  # every sampled action was allowed
    assert (out["logprobs"] <= 0).all() and out["last_values"].shape == (3,)
    for slot in w.slots:
        assert slot.state.current == slot.seat and not slot.state.done
        assert len(slot.opponents) == players - 1


def _worker_offered_a_win(**kwargs):
    """A rollout worker whose one game has the learner to move holding 9H 10H next to JH QH KH."""
    from machiavelli_env import game

    spec = PolicySpec(limit=8, hidden=16, cand_hidden=8)
    w = RolloutWorker(Rules.load("classic"), spec, games=1, seed=4, worker=0, first_update=0,
                      heuristics={"greedy": 1}, latest=0.5, gamma=0.99, shaping=0.0, **kwargs)
    slot = w.slots[0]
    hands = ["2D 7C KC", "2D 7C KC"]
    hands[slot.seat] = "9H 10H"
    slot.state = game.new_state_from("classic", hands, "JH QH KH", current=slot.seat)
    slot.encoded = None
    return w, slot


def test_rollouts_sample_the_unmasked_policy_even_when_a_win_is_on_offer():
    w, slot = _worker_offered_a_win()
    _, _, mask, plays = w._encode(slot)
    assert len(plays) >= 2 and mask[0] and mask[1:len(plays) + 1].all()  # drawing and the smaller play stay allowed
    assert w.latest_agent.take_wins is False


def test_rollouts_with_take_wins_offer_only_the_winning_play_when_there_is_one():
    w, slot = _worker_offered_a_win(take_wins=True)
    _, _, mask, plays = w._encode(slot)
    winning = [i + 1 for i, p in enumerate(plays) if p.sum() == 2]
    assert winning and mask.nonzero()[0].tolist() == winning  # no drawing, no smaller play
    assert w.latest_agent.take_wins is None  # policy opponents follow their spec (take_wins on by default)
    out = w.collect(steps=1, p_policy=0.0)
    assert out["ends"][0, 0] == 1 and out["rewards"][0, 0] == 1.0  # the learner went out and won


def test_placement_reward_ranks_the_winner_then_fewest_penalty_points():
    from dataclasses import replace

    from machiavelli_env.training.rollout import placement_reward

    from machiavelli_env import game

    base = game.new_game(Rules.load("classic", players=4), seed=5)
    # seat 2 wins; seat 0 holds the fewest points of the losers, seats 1 and 3 tie
    hands = np.zeros_like(base.hands)
    hands[0, 2] = 1  # 3S: 3 points
    hands[1, 1], hands[3, 1] = 2, 2  # 2S twice: 4 points each
    done = replace(base, hands=hands, done=True, winner=2)
    assert [placement_reward(done, s) for s in range(4)] == pytest.approx([1 - 2 / 3, -1 / 3, 1.0, -1 / 3])
    assert placement_reward(replace(done, truncated=True), 2) == 0.0
    two = replace(game.new_game(Rules.load("classic"), seed=5), done=True, winner=1)
    assert [placement_reward(two, s) for s in range(2)] == [-1.0, 1.0]  # two players: win_loss


def test_rollouts_with_the_placement_reward_pay_only_at_the_end_of_a_game():
    rules = Rules.load("classic", players=3)
    spec = PolicySpec(limit=8, hidden=16, cand_hidden=8)
    w = RolloutWorker(rules, spec, games=4, seed=2, worker=0, first_update=0, heuristics={"greedy": 1},
                      latest=0.5, gamma=0.99, shaping=0.0, reward="placement")
    out = w.collect(steps=60, p_policy=0.0)
    ends = out["ends"].astype(bool)
    assert ends.any()
    assert (out["rewards"][~ends] == 0).all()
    assert set(np.round(out["rewards"][ends], 6)) <= {1.0, 0.0, -1.0}


def test_rollouts_with_a_placement_weight_mix_the_rules_reward_and_the_placement_reward():
    rules = Rules.load("classic", players=3)
    spec = PolicySpec(limit=8, hidden=16, cand_hidden=8)
    w = RolloutWorker(rules, spec, games=4, seed=2, worker=0, first_update=0, heuristics={"greedy": 1},
                      latest=0.5, gamma=0.99, shaping=0.0, reward="placement", placement_weight=0.5)
    out = w.collect(steps=60, p_policy=0.0)
    ends = out["ends"].astype(bool)
    assert (out["rewards"][~ends] == 0).all()
    # win: (1 + 1) / 2; a loss: (-1/2 + 0) / 2 in second place, (-1/2 - 1) / 2 last; truncation 0
    paid = set(np.round(out["rewards"][ends], 6))
    assert paid <= {1.0, -0.25, -0.75, 0.0}
    assert paid & {-0.25, -0.75}


def _write(path: Path, data: dict) -> Path:
    import yaml

    path.write_text(yaml.safe_dump(data))
    return path


def test_tiny_training_run_writes_everything_and_resumes(tmp_path):
    cfg = config_from_dict(TINY)
    out = tmp_path / "run"
    summary = train(cfg, out, progress_bar=False, log=lambda *_: None)
    for name in ("final.safetensors", "final.json", "checkpoint.pt", "eval.jsonl", "train.jsonl",
                 "learning_curve.png", "summary.json", "config.json"):
        assert (out / name).is_file(), name
    assert list((out / "tb").iterdir())
    assert summary["updates"] == 2 and summary["learner_steps"] == 16
    evals = [json.loads(x) for x in (out / "eval.jsonl").read_text().splitlines()]
    assert [e["update"] for e in evals] == [1, 2]
    assert all(0 <= e["ci95"][0] <= e["win_rate"] <= e["ci95"][1] <= 1 for e in evals)
    data = torch.load(out / "checkpoint.pt", weights_only=True)
    assert data["progress"]["update"] == 2 and len(data["snapshots"]) == 1
    policy, meta = load_checkpoint(out / "final.safetensors")
    assert meta["info"]["players"] == 2 and policy.spec.limit == 8
    with pytest.raises(FileExistsError, match="--resume"):
        train(cfg, out, progress_bar=False, log=lambda *_: None)
    more = config_from_dict({**TINY, "updates": 3})
    summary = train(more, out, resume=True, progress_bar=False, log=lambda *_: None)
    assert summary["updates"] == 3 and summary["learner_steps"] == 24
    rows = [json.loads(x) for x in (out / "train.jsonl").read_text().splitlines()]
    assert [r["update"] for r in rows] == [1, 2, 3]


def test_training_is_reproducible_for_a_seed(tmp_path):
    cfg = config_from_dict({**TINY, "updates": 1})
    a = train(cfg, tmp_path / "a", progress_bar=False, log=lambda *_: None)
    b = train(cfg, tmp_path / "b", progress_bar=False, log=lambda *_: None)
    pa, _ = load_checkpoint(a["final"])
    pb, _ = load_checkpoint(b["final"])
    for (k, x), (_, y) in zip(pa.state_dict().items(), pb.state_dict().items(), strict=True):
        assert torch.equal(x, y), k


def test_two_worker_processes_train(tmp_path):
    cfg = config_from_dict({**TINY, "updates": 1, "rollout": {"workers": 2, "games": 1, "steps": 4}})
    summary = train(cfg, tmp_path / "w2", progress_bar=False, log=lambda *_: None)
    assert summary["learner_steps"] == 8 and summary["final_eval"][0]["games"] == 2


def test_train_cli_runs_a_config_and_rejects_bad_input(tmp_path, capsys):
    cfg = _write(tmp_path / "tiny.yaml", {**TINY, "updates": 1})
    assert cli_main(["train", "--config", str(cfg), "--out", str(tmp_path / "r"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "done in" in out and '"opponent": "greedy"' in out
    assert (tmp_path / "r" / "final.safetensors").is_file()
    assert cli_main(["train", "--config", str(cfg), "--out", str(tmp_path / "r"), "--no-progress"]) == 2
    assert "--resume" in capsys.readouterr().err
    bad = _write(tmp_path / "bad.yaml", {**TINY, "ppo": {"clip": 0}})
    assert cli_main(["train", "--config", str(bad), "--out", str(tmp_path / "x")]) == 2
    assert "ppo.clip must be positive" in capsys.readouterr().err
    assert cli_main(["train", "--config", "no_such_config"]) == 2
    assert "ppo_2p_classic" in capsys.readouterr().err


def test_training_can_start_from_a_checkpoint_and_rejects_a_bad_one(tmp_path, capsys):
    first = train(config_from_dict({**TINY, "updates": 1}), tmp_path / "a", progress_bar=False, log=lambda *_: None)
    start, _ = load_checkpoint(first["final"])
    cont = config_from_dict({**TINY, "updates": 1, "init": str(first["final"]), "ppo": {"lr": 1e-12, "minibatches": 2,
                                                                                       "epochs": 1}})
    second = train(cont, tmp_path / "b", progress_bar=False, log=lambda *_: None)
    after, meta = load_checkpoint(second["final"])
    assert meta["info"]["init"] == str(first["final"])
    for (k, x), (_, y) in zip(start.state_dict().items(), after.state_dict().items(), strict=True):
        assert torch.allclose(x, y, atol=1e-6), k  # a negligible learning rate: the weights are the init's
    missing = _write(tmp_path / "missing.yaml", {**TINY, "init": str(tmp_path / "nope.safetensors")})
    assert cli_main(["train", "--config", str(missing), "--out", str(tmp_path / "m"), "--no-progress"]) == 2
    assert "init:" in (err := capsys.readouterr().err) and "no such checkpoint file" in err
    assert not (tmp_path / "m").exists()  # nothing written
    other = _write(tmp_path / "other.yaml", {**TINY, "policy": {"limit": 8, "hidden": 32, "cand_hidden": 8},
                                             "init": str(first["final"])})
    assert cli_main(["train", "--config", str(other), "--out", str(tmp_path / "o"), "--no-progress"]) == 2
    assert "architecture" in capsys.readouterr().err


def test_behaviour_cloning_learns_the_teachers_moves_and_the_data_do_not_depend_on_workers():
    from machiavelli_env.training.imitate import clone, collect_demonstrations

    rules = Rules.load("classic", players=3)
    spec = PolicySpec(limit=8, hidden=16, cand_hidden=8)
    demos, info = collect_demonstrations(rules, spec, "patient", {"greedy": 1, "hoarder": 1}, games=6, seed=4)
    again, _ = collect_demonstrations(rules, spec, "patient", {"greedy": 1, "hoarder": 1}, games=6, seed=4, workers=2)
    assert all(np.array_equal(demos[k], again[k]) for k in demos)
    assert info["samples"] == len(demos["actions"]) > 20 and info["plays"] == int((demos["actions"] > 0).sum()) > 0
    assert demos["masks"][np.arange(info["samples"]), demos["actions"]].all()  # every move is an allowed candidate
    torch.manual_seed(0)
    model = CandidatePolicy(spec)
    history = clone(model, demos, epochs=30, lr=3e-3, batch=32, vf_coef=0.5, seed=0, log=lambda *_: None)
    assert history[-1]["loss"] < 0.5 * history[0]["loss"]
    assert history[-1]["accuracy"] > max(0.9, history[0]["accuracy"])


def test_a_run_with_a_teacher_and_no_updates_keeps_the_clone_and_reports_it(tmp_path):
    cfg = config_from_dict({**TINY, "updates": 0, "imitate": {"teacher": "hoarder", "games": 3, "epochs": 2}})
    summary = train(cfg, tmp_path / "run", progress_bar=False, log=lambda *_: None)
    report = json.loads((tmp_path / "run" / "imitate.json").read_text())
    assert report["teacher"] == "hoarder" and report["games"] == 3 and len(report["epochs"]) == 2
    assert summary["updates"] == 0 and summary["final_eval"][0]["games"] == 2
    assert load_checkpoint(summary["final"])[1]["info"]["imitate"] == "hoarder"


def test_a_checkpoint_without_the_stock_clock_initialises_a_policy_with_it(tmp_path):
    first = train(config_from_dict({**TINY, "updates": 1}), tmp_path / "a", progress_bar=False, log=lambda *_: None)
    clock = {**TINY, "updates": 1, "init": str(first["final"]), "ppo": {"lr": 1e-12, "minibatches": 2, "epochs": 1},
             "policy": {**TINY["policy"], "stock_clock": True}}
    second = train(config_from_dict(clock), tmp_path / "b", progress_bar=False, log=lambda *_: None)
    start, _ = load_checkpoint(first["final"])
    after, meta = load_checkpoint(second["final"])
    assert meta["policy"]["stock_clock"] is True
    w0, w1 = start.state_dict()["state_net.0.weight"], after.state_dict()["state_net.0.weight"]
    assert w1.shape[1] == w0.shape[1] + 6 and torch.allclose(w1[:, :w0.shape[1]], w0, atol=1e-6)
    assert float(w1[:, w0.shape[1]:].abs().max()) < 1e-6


def test_a_retired_snapshot_keeps_playing_its_unfinished_game_but_is_not_seated_again():
    rules = Rules.load("classic", players=3)
    spec = PolicySpec(limit=8, hidden=16, cand_hidden=8)
    w = RolloutWorker(rules, spec, games=2, seed=1, worker=0, first_update=0, heuristics={"greedy": 1},
                      latest=0.0, gamma=0.99, shaping=0.1)
    weights = {k: v.detach().numpy() for k, v in w.policy.state_dict().items()}
    w.sync_snapshots({1: weights})
    seated = w.slots[0]
    seated.opponents[next(iter(seated.opponents))] = f"{pool.SNAPSHOT}1"
    w.sync_snapshots({2: weights})  # snapshot 1 leaves the pool while its game goes on
    assert 1 in w.snapshots and w.pool_ids == [2]
    w.collect(steps=30, p_policy=1.0)  # plays on (and finishes) games seated with snapshot 1
    for slot in w.slots:
        assert f"{pool.SNAPSHOT}1" not in slot.opponents.values() or slot is seated
    w.slots = [s for s in w.slots if s is not seated]
    w.sync_snapshots({2: None})
    assert set(w.snapshots) == {2}


def test_learning_curve_legend_gives_the_range_of_games_per_point():
    assert eval_label("random", [{"games": 200}, {"games": 200}]) == "eval vs random (200 games/point)"
    assert eval_label("greedy", [{"games": 100}, {"games": 200}]) == "eval vs greedy (100-200 games/point)"
