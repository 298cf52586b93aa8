"""PPO rollouts on Ray (``rollout.engine: ray``): the same weights as the local engine for the same
seed and worker count, on a local Ray cluster of two nodes (three worker CPUs) reached by address."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("yaml")
pytest.importorskip("tensorboard")
ray = pytest.importorskip("ray")

from machiavelli_env.agents.ppo import load_checkpoint  # noqa: E402
from machiavelli_env.training.config import ConfigError, config_from_dict  # noqa: E402
from machiavelli_env.training.ppo import train  # noqa: E402
from machiavelli_env.training.workers import WorkerGroup  # noqa: E402

TINY = {
    "name": "tiny_ray",
    "seed": 5,
    "updates": 2,
    "save_every": 5,
    "rollout": {"workers": 2, "games": 2, "steps": 4},
    "policy": {"limit": 8, "hidden": 16, "cand_hidden": 8},
    "ppo": {"minibatches": 2, "epochs": 2},
    "pool": {"heuristics": {"greedy": 1, "random": 1}, "self_play": [0.5, 0.5], "snapshot_every": 1},
    "eval": {"every": 5, "games": 4, "opponents": ["random"], "sample": True},
}


@pytest.fixture(scope="module")
def cluster():
    from ray.cluster_utils import Cluster

    if ray.is_initialized():
        ray.shutdown()
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    c.add_node(num_cpus=2)
    c.wait_for_nodes()
    yield c
    if ray.is_initialized():
        ray.shutdown()
    c.shutdown()


def test_ray_engine_gives_the_local_engines_weights(tmp_path, cluster):
    quiet = {"progress_bar": False, "log": lambda *_: None}
    local = train(config_from_dict(TINY), tmp_path / "local", **quiet)
    cfg = config_from_dict({**TINY, "rollout": {**TINY["rollout"], "engine": "ray", "address": cluster.address}})
    remote = train(cfg, tmp_path / "ray", **quiet)
    assert len([n for n in ray.nodes() if n["Alive"]]) == 2  # the run joined the two-node cluster
    pl, _ = load_checkpoint(local["final"])
    pr, _ = load_checkpoint(remote["final"])
    for (k, x), (_, y) in zip(pl.state_dict().items(), pr.state_dict().items(), strict=True):
        assert torch.equal(x, y), k
    assert local["learner_steps"] == remote["learner_steps"] == 2 * 2 * 2 * 4
    timeless = [[{k: v for k, v in row.items() if k != "elapsed_s"} for row in run["final_eval"]]
                for run in (local, remote)]
    assert timeless[0] == timeless[1]
    assert local["games_trained"] == remote["games_trained"]


def test_ray_worker_errors_surface_with_the_traceback(cluster):
    from machiavelli_env.agents.ppo import PolicySpec
    from machiavelli_env.training.workers import WorkerError

    from machiavelli_env.rules import Rules

    group = WorkerGroup(2, engine="ray", address=cluster.address, rules=Rules.load("classic"),
                        spec=PolicySpec(limit=4, hidden=8, cand_hidden=8), games=1, seed=0, first_update=0,
                        heuristics={"random": 1.0}, latest=0.5, gamma=0.99, shaping=0.0)
    try:
        assert group.local is None and group.n == 2
        with pytest.raises(WorkerError, match="steps"):
            group.call("collect", [{"steps": "many", "p_policy": 0.0}] * 2)
    finally:
        group.close()


def test_engine_settings_are_checked():
    with pytest.raises(ConfigError, match="rollout.engine"):
        config_from_dict({**TINY, "rollout": {"engine": "dask"}})
    with pytest.raises(ConfigError, match="only with rollout.engine: ray"):
        config_from_dict({**TINY, "rollout": {"address": "auto"}})
    with pytest.raises(ConfigError, match="rollout.address"):
        config_from_dict({**TINY, "rollout": {"engine": "ray", "address": 7}})
    with pytest.raises(ValueError, match="engine"):
        WorkerGroup(1, engine="spark")


def test_train_cli_address_runs_the_rollouts_on_the_cluster(tmp_path, cluster, capsys):
    import yaml

    from machiavelli_env.cli import main as cli_main

    cfg = tmp_path / "tiny.yaml"
    cfg.write_text(yaml.safe_dump({**TINY, "updates": 1}))
    rc = cli_main(["train", "--config", str(cfg), "--out", str(tmp_path / "run"), "--address", cluster.address,
                   "--no-progress"])
    assert rc == 0
    assert '"engine": "ray"' in (tmp_path / "run" / "config.json").read_text()
    assert "done in" in capsys.readouterr().out


def test_a_killed_ray_actor_stops_the_run_with_an_error_that_says_to_resume(tmp_path, cluster):
    # a rollout actor gone mid-run (a node lost, the actor killed) stops the run with WorkerError,
    # and --resume on a local engine continues the run from its last checkpoint to the same weights
    from machiavelli_env.training import workers as workers_module
    from machiavelli_env.training.workers import WorkerError

    quiet = {"progress_bar": False, "log": lambda *_: None}
    config = {**TINY, "updates": 3, "save_every": 1}
    uninterrupted = train(config_from_dict(config), tmp_path / "local", **quiet)
    remote = config_from_dict({**config, "rollout": {**TINY["rollout"], "engine": "ray", "address": cluster.address}})
    real, calls = workers_module.WorkerGroup, []

    def killing_group(*args, **kwargs):
        group = real(*args, **kwargs)
        call = group.call

        def call_then_kill(cmd, args):
            calls.append(cmd)
            if cmd == "collect" and calls.count("collect") == 2:
                ray.kill(group.actors[1])  # the second update's rollouts lose a worker
            return call(cmd, args)

        group.call = call_then_kill
        return group

    import machiavelli_env.training.ppo as ppo_module

    ppo_module.WorkerGroup = killing_group
    try:
        with pytest.raises(WorkerError, match="--resume"):
            train(remote, tmp_path / "ray", **quiet)
    finally:
        ppo_module.WorkerGroup = real
    resumed = train(config_from_dict(config), tmp_path / "ray", resume=True, **quiet)
    pl, _ = load_checkpoint(uninterrupted["final"])
    pr, _ = load_checkpoint(resumed["final"])
    for (k, x), (_, y) in zip(pl.state_dict().items(), pr.state_dict().items(), strict=True):
        assert torch.equal(x, y), k
