"""RLlib (new API stack): multi-agent PPO self-play with action masking, env runners on Ray.

Every seat maps to one shared policy, an ``ActionMaskingTorchRLModule`` (RLlib's masking
module: it wants ``{"observations", "action_mask"}``). The AEC env goes through RLlib's
``PettingZooEnv`` with three adapters: ``CandidatePlays(..., flatten=True,
observation_key="observations")`` (one flat vector per decision: the observation and every
candidate's cards), and ``invalid_action="draw"`` (RLlib samples unmasked actions when it checks
an env). Then a seat-rotated win rate against ``random`` in the project's arena.

    pip install "machiavelli-env[rllib]"      # RLlib 2.60 pins gymnasium 1.2.2: use its own venv
    python examples/rllib_ppo_selfplay.py --steps 40000 --env-runners 2
    python examples/rllib_ppo_selfplay.py --address auto    # on a running Ray cluster
"""

from __future__ import annotations

import argparse

import numpy as np
import ray
import torch
from machiavelli_env.agents.interop import CandidateAgent, win_rate
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

import machiavelli_env
from machiavelli_env.wrappers import CandidatePlays


def make_env(config: dict) -> PettingZooEnv:
    """``env_config``: ``limit`` (candidates per turn) and any rules fields (``players``, ``jokers``, ...)."""
    config = dict(config)
    limit = int(config.pop("limit", 16))
    aec = machiavelli_env.env(**config)
    return PettingZooEnv(CandidatePlays(aec, limit=limit, flatten=True, invalid_action="draw",
                                        observation_key="observations"))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=40_000, help="environment steps to train (default 40000)")
    p.add_argument("--batch", type=int, default=4000, help="train batch per iteration")
    p.add_argument("--limit", type=int, default=16, help="candidate plays per turn")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--env-runners", type=int, default=2, help="Ray env-runner actors (0: in the driver)")
    p.add_argument("--address", default=None, help="Ray cluster to join (default: a local instance)")
    p.add_argument("--eval-games", type=int, default=200, help="seat-rotated games against random (default 200)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
    register_env("machiavelli", make_env)
    batch = max(32, min(args.batch, args.steps))
    config = (
        PPOConfig()
        .environment("machiavelli", env_config={"limit": args.limit, "players": args.players})
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=1)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                   model_config={"fcnet_hiddens": [256, 128], "head_fcnet_hiddens": [128]}),
        }))
        .training(train_batch_size_per_learner=batch, minibatch_size=min(256, batch), num_epochs=4, lr=3e-4,
                  gamma=0.99, entropy_coeff=0.01)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    iterations = max(1, args.steps // batch)
    for i in range(iterations):
        result = algo.train()
        sampled = result["env_runners"].get("num_env_steps_sampled_lifetime", "?")
        print(f"iteration {i + 1}/{iterations}: {sampled} env steps sampled")

    module = algo.get_module("shared")

    def act(obs: dict[str, np.ndarray]) -> int:
        batch = {"obs": {"observations": torch.as_tensor(obs["observations"])[None],
                         "action_mask": torch.as_tensor(obs["action_mask"], dtype=torch.float32)[None]}}
        with torch.no_grad():
            logits = module.forward_inference(batch)["action_dist_inputs"][0]
        return int(logits.argmax())

    rules = machiavelli_env.Rules.load("classic", players=args.players)
    res = win_rate(CandidateAgent(act, limit=args.limit, flatten=True, observation_key="observations",
                                  name="rllib_ppo"), rules, "random", games=args.eval_games, seed=args.seed + 1)
    print(f"trained {iterations * batch} steps; win rate vs random: {res['win_rate']:.3f} "
          f"(95% CI {res['ci95'][0]:.3f}-{res['ci95'][1]:.3f}, {res['games']} games)")
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
