"""Smoke tests of examples/: each script trains a few hundred steps and prints a win rate vs random.

Marked ``examples`` (deselected by default; ``python -m pytest -m examples``). The libraries come
from the extras ``sb3``, ``torchrl``, ``tianshou`` (one environment, ``pip install -e
".[examples]"``) and ``rllib`` (its own environment: RLlib pins another Gymnasium). A test whose
library is missing is skipped, except under CI (``CI`` set), where ``.ci/run`` installs them all
and a missing library fails.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.examples

SCRIPTS = {
    "sb3_maskable_ppo.py": ["sb3_contrib"],
    "cleanrl_ppo_make_vec.py": ["torch"],
    "tianshou_dqn.py": ["tianshou"],
    "torchrl_multiagent.py": ["torchrl", "tensordict"],
    "rllib_ppo_selfplay.py": ["ray.rllib"],
}


def _require(modules: list[str]) -> None:
    missing = []
    for m in modules:
        try:
            found = importlib.util.find_spec(m) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            missing.append(m)
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must install {', '.join(missing)} (see .ci/run)")
        pytest.skip(f"needs {', '.join(missing)}")


@pytest.mark.parametrize("script", sorted(SCRIPTS), ids=lambda s: s.removesuffix(".py"))
def test_example_trains_and_reports_a_win_rate(script: str, tmp_path: Path):
    _require(SCRIPTS[script])
    extra = ["--env-runners", "1"] if script.startswith("rllib") else []
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), "--steps", "300", "--eval-games", "4", *extra],
        capture_output=True, text=True, cwd=tmp_path, timeout=900,
        env={**os.environ, "PYTHONWARNINGS": "ignore", "RAY_DEDUP_LOGS": "0"},
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    m = re.search(r"win rate vs random: ([0-9.]+) \(95% CI ([0-9.]+)-([0-9.]+), 4 games\)", proc.stdout)
    assert m, proc.stdout[-3000:]
    rate, lo, hi = map(float, m.groups())
    assert 0.0 <= lo <= rate <= hi <= 1.0


def test_torchrl_gym_env_from_the_registry():
    _require(["torchrl"])
    from torchrl.envs import GymEnv
    from torchrl.envs.utils import check_env_specs

    import machiavelli_env  # noqa: F401

    env = GymEnv("MachiavelliCandidates-v1", candidates=8)
    check_env_specs(env)
    td = env.rollout(20)
    assert td["action_mask"].shape[-1] == 9 and td["next", "reward"].shape[0] == td.shape[0]


def test_torchrl_pettingzoo_wrapper_on_the_flat_mask_env():
    _require(["torchrl"])
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import MarlGroupMapType, check_env_specs

    import machiavelli_env

    env = PettingZooWrapper(machiavelli_env.env(mask="flat", numeric_info=True, invalid_action="draw"),
                            use_mask=True, group_map=MarlGroupMapType.ALL_IN_ONE_GROUP)
    check_env_specs(env)
    td = env.rollout(10)
    assert td["agents", "action_mask"].shape == (10, 2, 157)
    assert td["agents", "action"].shape == (10, 2, 53)


def test_tianshou_sees_the_candidates():
    _require(["tianshou"])
    import numpy as np
    from tianshou.env import PettingZooEnv

    import machiavelli_env
    from machiavelli_env.wrappers import CandidatePlays

    env = PettingZooEnv(CandidatePlays(machiavelli_env.env(), limit=8, flatten=True))
    obs, _ = env.reset(seed=1)
    assert obs["obs"].shape == (869 + 8 * 53,) and np.count_nonzero(obs["obs"][869:]) > 0
    assert len(obs["mask"]) == 9


def test_rllib_env_check_and_gymnasium_id():
    _require(["ray.rllib"])
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    sys.path.insert(0, str(ROOT / "examples"))
    try:
        from rllib_ppo_selfplay import make_env
    finally:
        sys.path.pop(0)
    env = make_env({"limit": 8})
    check_multiagent_environments(env)  # steps unmasked samples: invalid_action="draw" takes them
    obs, _ = env.reset(seed=0)
    (agent, o), = obs.items()
    assert set(o) == {"observations", "action_mask"} and o["observations"].shape == (869 + 8 * 53,)

    from machiavelli_env.wrappers import SingleAgentEnv

    single = SingleAgentEnv({"candidates": 8, "players": 3})  # what RLlib's cls(env_config) does
    assert single.rules.players == 3 and single.action_space.n == 9


def test_rllib_single_agent_from_the_gymnasium_id_and_the_class():
    _require(["ray.rllib"])
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.connectors.env_to_module import FlattenObservations

    from machiavelli_env.wrappers import SingleAgentEnv

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        for env in ("machiavelli_env:MachiavelliCandidates-v1", SingleAgentEnv):
            config = (
                PPOConfig()
                .environment(env, env_config={"candidates": 8, "players": 3})
                .env_runners(num_env_runners=1,
                             env_to_module_connector=lambda *args, **kwargs: FlattenObservations())
                .training(train_batch_size_per_learner=64, minibatch_size=32, num_epochs=1)
            )
            algo = config.build_algo()
            try:
                result = algo.train()
                assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 64
            finally:
                algo.stop()
    finally:
        ray.shutdown()
