"""Tianshou 2: DQN on the AEC env through ``CandidatePlays(..., flatten=True)``, against a random seat.

Tianshou's ``PettingZooEnv`` passes only ``obs["observation"]`` and ``obs["action_mask"]`` to
the policy, so the wrapper folds the candidates' cards into the observation vector
(``flatten=True``: 869 + limit x 53 floats) and the Q-network sees what each index would play.
Seat ``player_0`` learns (DQN with the mask), ``player_1`` plays uniformly among the legal moves
(Tianshou's masked random algorithm); then a seat-rotated win rate against ``random`` in the
project's arena.

    pip install "machiavelli-env[tianshou]"
    python examples/tianshou_dqn.py --steps 20000
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from machiavelli_env.agents.interop import CandidateAgent, win_rate
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Batch, Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import machiavelli_env
from machiavelli_env.wrappers import CandidatePlays


def make_env(limit: int) -> PettingZooEnv:
    return PettingZooEnv(CandidatePlays(machiavelli_env.env(), limit=limit, flatten=True))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=20_000, help="environment steps to train (default 20000)")
    p.add_argument("--limit", type=int, default=16, help="candidate plays per turn")
    p.add_argument("--envs", type=int, default=4)
    p.add_argument("--eval-games", type=int, default=200, help="seat-rotated games against random (default 200)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    env = make_env(args.limit)
    obs_dim = env.observation_space["observation"].shape[0]
    n_actions = env.action_space.n
    net = Net(state_shape=obs_dim, action_shape=n_actions, hidden_sizes=[256, 128])
    learner = DQN(
        policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                       observation_space=env.observation_space["observation"],
                                       eps_training=0.2, eps_inference=0.0),
        optim=AdamOptimizerFactory(lr=1e-3), gamma=0.95, n_step_return_horizon=3, target_update_freq=200,
    )
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[learner, MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space)], env=env)

    train_envs = DummyVectorEnv([lambda: make_env(args.limit) for _ in range(args.envs)])
    test_envs = DummyVectorEnv([lambda: make_env(args.limit) for _ in range(2)])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 100)
    collector = Collector(algorithm, train_envs, VectorReplayBuffer(20_000, args.envs), exploration_noise=True)
    test_collector = Collector(algorithm, test_envs, exploration_noise=False)
    collector.reset()
    collector.collect(n_step=max(1, min(512, args.steps // 2) // args.envs) * args.envs)  # warm-up
    epoch_steps = min(args.steps, 5_000)
    algorithm.run_training(OffPolicyTrainerParams(
        training_collector=collector, test_collector=test_collector,
        max_epochs=max(1, args.steps // epoch_steps), epoch_num_steps=epoch_steps,
        collection_step_num_env_steps=10 * args.envs, test_step_num_episodes=2, batch_size=64,
        update_step_num_gradient_steps_per_sample=0.1,
        multi_agent_return_reduction=lambda rew: rew[:, 0],  # the learner's return
        show_progress=False, verbose=False,
    ))

    policy = learner.policy.eval()

    def act(obs: dict[str, np.ndarray]) -> int:
        batch = Batch(obs=Batch(obs=obs["observation"][None], mask=obs["action_mask"][None].astype(bool)), info={})
        with torch.no_grad():
            return int(policy(batch).act[0])

    res = win_rate(CandidateAgent(act, limit=args.limit, flatten=True, name="tianshou_dqn"),
                   env.env.unwrapped.rules, "random", games=args.eval_games, seed=args.seed + 1)
    print(f"trained {args.steps} steps; win rate vs random: {res['win_rate']:.3f} "
          f"(95% CI {res['ci95'][0]:.3f}-{res['ci95'][1]:.3f}, {res['games']} games)")


if __name__ == "__main__":
    main()
