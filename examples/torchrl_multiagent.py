"""TorchRL: multi-agent self-play PPO with action masks on the AEC env.

``PettingZooWrapper(CandidatePlays(env(numeric_info=True), flatten=True), use_mask=True)``: one
group of agents sharing one policy, ``("agents", "action_mask")`` for the masked distribution and
``("agents", "mask")`` marking the agent to move (TorchRL needs numeric infos: every info value
becomes a tensor). A ``Collector`` gathers frames; each update is a clipped PPO step on
the moving agents' decisions with Monte-Carlo returns. Then a seat-rotated win rate against
``random`` in the project's arena.

    pip install "machiavelli-env[torchrl]"
    python examples/torchrl_multiagent.py --steps 20000
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from machiavelli_env.agents.interop import CandidateAgent, win_rate
from tensordict.nn import TensorDictModule
from torchrl.collectors import Collector
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor

import machiavelli_env
from machiavelli_env.wrappers import CandidatePlays

OBS = ("agents", "observation", "observation")


def make_env(limit: int, seed: int) -> PettingZooWrapper:
    env = CandidatePlays(machiavelli_env.env(numeric_info=True), limit=limit, flatten=True)
    return PettingZooWrapper(env, use_mask=True, group_map=MarlGroupMapType.ALL_IN_ONE_GROUP, seed=seed)


def returns_to_go(reward: torch.Tensor, done: torch.Tensor) -> torch.Tensor:
    """Undiscounted return from each step to the end of its game, per agent; (T, agents)."""
    out = torch.zeros_like(reward)
    running = torch.zeros(reward.shape[1])
    for t in reversed(range(reward.shape[0])):
        running = running * (1.0 - done[t].float()) + reward[t]
        out[t] = running
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=20_000, help="environment frames to collect (default 20000)")
    p.add_argument("--frames-per-batch", type=int, default=512)
    p.add_argument("--limit", type=int, default=16, help="candidate plays per turn")
    p.add_argument("--eval-games", type=int, default=200, help="seat-rotated games against random (default 200)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    env = make_env(args.limit, args.seed)
    obs_dim = env.observation_spec[OBS].shape[-1]
    n_actions = args.limit + 1
    logits_net = MLP(in_features=obs_dim, out_features=n_actions, num_cells=[256, 128])
    value_net = MLP(in_features=obs_dim, out_features=1, num_cells=[128])
    actor = ProbabilisticActor(
        TensorDictModule(logits_net, in_keys=[OBS], out_keys=[("agents", "logits")]),
        in_keys={"logits": ("agents", "logits"), "mask": ("agents", "action_mask")},
        out_keys=[("agents", "action")], distribution_class=MaskedCategorical,
    )
    optim = torch.optim.Adam([*logits_net.parameters(), *value_net.parameters()], lr=3e-4)
    frames = max(16, min(args.frames_per_batch, args.steps))
    collector = Collector(env, actor, frames_per_batch=frames, total_frames=max(frames, args.steps))

    for i, batch in enumerate(collector):
        moving = batch["agents", "mask"]                                     # (T, agents) who acted
        ret = returns_to_go(batch["next", "agents", "reward"].squeeze(-1), batch["next", "done"].squeeze(-1))
        action = batch["agents", "action"]
        with torch.no_grad():
            old_logp = actor.get_dist(batch).log_prob(action)
        for _epoch in range(4):
            logp = actor.get_dist(batch).log_prob(action)
            value = value_net(batch[OBS]).squeeze(-1)
            adv = (ret - value).detach()
            adv = (adv - adv[moving].mean()) / (adv[moving].std() + 1e-8)
            ratio = (logp - old_logp).exp()
            pg = torch.max(-adv * ratio, -adv * ratio.clamp(0.8, 1.2))[moving].mean()
            v_loss = ((value - ret) ** 2)[moving].mean()
            loss = pg + 0.5 * v_loss
            optim.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(optim.param_groups[0]["params"], 0.5)
            optim.step()
        collector.update_policy_weights_()
        games = int(batch["next", "done"].sum())
        print(f"batch {i + 1}: {batch.numel()} frames, {games} games ended, policy loss {pg.item():.3f}")
    collector.shutdown()

    def act(obs: dict[str, np.ndarray]) -> int:
        with torch.no_grad():
            logits = logits_net(torch.as_tensor(obs["observation"]))
        return int(torch.where(torch.as_tensor(obs["action_mask"]).bool(), logits, -torch.inf).argmax())

    res = win_rate(CandidateAgent(act, limit=args.limit, flatten=True, name="torchrl_ppo"),
                   machiavelli_env.Rules.load("classic"), "random", games=args.eval_games, seed=args.seed + 1)
    print(f"trained {args.steps} frames; win rate vs random: {res['win_rate']:.3f} "
          f"(95% CI {res['ci95'][0]:.3f}-{res['ci95'][1]:.3f}, {res['games']} games)")


if __name__ == "__main__":
    main()
