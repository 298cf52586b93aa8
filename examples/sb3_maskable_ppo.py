"""Stable-Baselines3 / sb3-contrib: MaskablePPO on the single-agent Gymnasium env.

The env comes from Gymnasium's registry (``MachiavelliCandidates-v1``: ``Discrete(limit + 1)``
candidate plays, a ``Dict`` observation, ``action_masks()`` for MaskablePPO), the learner against
random opponents; then a seat-rotated win rate against ``random`` in the project's arena.

    pip install "machiavelli-env[sb3]"
    python examples/sb3_maskable_ppo.py --steps 20000
"""

from __future__ import annotations

import argparse

import gymnasium
import numpy as np
from machiavelli_env.agents.interop import CandidateAgent, win_rate
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env

import machiavelli_env  # noqa: F401  (registers the Gymnasium ids)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=20_000, help="environment steps to train (default 20000)")
    p.add_argument("--limit", type=int, default=32, help="candidate plays per turn")
    p.add_argument("--envs", type=int, default=4)
    p.add_argument("--eval-games", type=int, default=200, help="seat-rotated games against random (default 200)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    env = make_vec_env("MachiavelliCandidates-v1", n_envs=args.envs, seed=args.seed,
                       env_kwargs={"candidates": args.limit, "opponents": "random"})
    n_steps = max(8, min(256, args.steps // args.envs))
    model = MaskablePPO("MultiInputPolicy", env, n_steps=n_steps, batch_size=min(64, n_steps * args.envs),
                        seed=args.seed, verbose=0, device="cpu")
    model.learn(total_timesteps=args.steps)

    def act(obs: dict[str, np.ndarray]) -> int:
        action, _ = model.predict(obs, action_masks=obs["action_mask"].astype(bool), deterministic=True)
        return int(action)

    rules = gymnasium.make("MachiavelliCandidates-v1").unwrapped.rules
    res = win_rate(CandidateAgent(act, limit=args.limit, name="maskable_ppo"), rules, "random",
                   games=args.eval_games, seed=args.seed + 1)
    print(f"trained {args.steps} steps; win rate vs random: {res['win_rate']:.3f} "
          f"(95% CI {res['ci95'][0]:.3f}-{res['ci95'][1]:.3f}, {res['games']} games)")


if __name__ == "__main__":
    main()
