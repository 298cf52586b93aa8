"""CleanRL-style PPO with action masking on ``gymnasium.make_vec`` (one file, PyTorch only).

``gymnasium.make_vec("MachiavelliCandidates-v1", num_envs=N)`` gives N single-agent games (the
learner against random opponents) with ``Discrete(limit + 1)`` actions: 0 draws, ``i`` plays the
``i``-th candidate. The network scores each candidate from the observation vector and the
candidate's cards, with two features read off the observation: the share of the hand the
candidate lays down, and whether it empties the hand (plane 0 of the observation is the hand, in
the candidates' units: counts over copies). The masked softmax over the scores is the policy; the
training win rate it prints is against the same ``random`` bot as the final seat-rotated win rate
in the project's arena.

    pip install machiavelli-env torch
    python examples/cleanrl_ppo_make_vec.py --steps 50000
"""

from __future__ import annotations

import argparse

import gymnasium
import numpy as np
import torch
from machiavelli_env.agents.interop import CandidateAgent, win_rate
from torch import nn

import machiavelli_env  # noqa: F401  (registers the Gymnasium ids)


def hand_features(obs: torch.Tensor, cands: torch.Tensor) -> torch.Tensor:
    """(B, K, 2): each candidate's share of the hand, and 1.0 where it lays the whole hand down."""
    hand = obs[..., None, :cands.shape[-1]]                               # plane 0: the own hand
    share = cands.sum(-1) / hand.sum(-1).clamp_min(1e-6)
    empties = ((cands - hand).abs().sum(-1) < 1e-4) & (cands.sum(-1) > 0)
    return torch.stack([share, empties.float()], dim=-1)


class Scorer(nn.Module):
    """Candidate scoring: value(s) and one logit per action (draw + candidates)."""

    def __init__(self, obs_dim: int, card_dim: int, hidden: int = 128):
        super().__init__()
        self.state = nn.Sequential(nn.Linear(obs_dim + 1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.card = nn.Sequential(nn.Linear(card_dim + 2, hidden), nn.Tanh(), nn.Linear(hidden, hidden))
        self.out = nn.Linear(2, 1)  # the hand features straight to the score, beside the learned match
        self.draw = nn.Linear(hidden, 1)
        self.value = nn.Linear(hidden, 1)
        self.scale = hidden ** -0.5

    def forward(self, obs: torch.Tensor, cands: torch.Tensor, mask: torch.Tensor):
        feats = hand_features(obs, cands)                                 # (B, K, 2)
        can_go_out = (feats[..., 1] * mask[:, 1:]).amax(-1, keepdim=True)  # (B, 1)
        s = self.state(torch.cat([obs, can_go_out], dim=-1))               # (B, H)
        c = self.card(torch.cat([cands, feats], dim=-1))                   # (B, K, H)
        scores = torch.einsum("bh,bkh->bk", s, c) * self.scale + self.out(feats).squeeze(-1)  # (B, K)
        logits = torch.cat([self.draw(s), scores], dim=1)
        logits = logits.masked_fill(~mask, -1e9)
        return torch.distributions.Categorical(logits=logits), self.value(s).squeeze(-1)


def tensors(obs: dict[str, np.ndarray]):
    return (torch.as_tensor(obs["observation"]), torch.as_tensor(obs["candidates"]),
            torch.as_tensor(obs["action_mask"]).bool())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=50_000, help="total environment steps (default 50000)")
    p.add_argument("--envs", type=int, default=8)
    p.add_argument("--rollout", type=int, default=64, help="steps per env per update")
    p.add_argument("--limit", type=int, default=32)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--eval-games", type=int, default=200, help="seat-rotated games against random (default 200)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    envs = gymnasium.make_vec("MachiavelliCandidates-v1", num_envs=args.envs, vectorization_mode="sync",
                              candidates=args.limit, opponents="random",
                              vector_kwargs={"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP})
    space = envs.single_observation_space
    net = Scorer(space["observation"].shape[0], space["candidates"].shape[1])
    opt = torch.optim.Adam(net.parameters(), lr=args.lr, eps=1e-5)
    gamma, lam, clip = 0.99, 0.95, 0.2
    T, N = max(1, min(args.rollout, args.steps // args.envs)), args.envs
    updates = max(1, args.steps // (T * N))

    obs, _ = envs.reset(seed=args.seed)
    wins = episodes = 0
    for update in range(updates):
        opt.param_groups[0]["lr"] = args.lr * (1.0 - update / updates)  # linear annealing, as CleanRL
        buf = {k: [] for k in ("obs", "cands", "mask", "act", "logp", "val", "rew", "done")}
        for _ in range(T):
            o, c, m = tensors(obs)
            with torch.no_grad():
                dist, v = net(o, c, m)
                a = dist.sample()
            obs, r, term, trunc, info = envs.step(a.numpy())
            for k, x in zip(buf, (o, c, m, a, dist.log_prob(a), v, torch.as_tensor(r, dtype=torch.float32),
                                  torch.as_tensor(term | trunc, dtype=torch.float32)), strict=True):
                buf[k].append(x)
            episodes += int(term.sum())
            wins += int((r[term] > 0).sum())
        with torch.no_grad():
            _, last_v = net(*tensors(obs))
        b = {k: torch.stack(v) for k, v in buf.items()}                    # (T, N, ...)
        adv, gae = torch.zeros(T, N), torch.zeros(N)
        for t in reversed(range(T)):
            nv = last_v if t == T - 1 else b["val"][t + 1]
            live = 1.0 - b["done"][t]
            delta = b["rew"][t] + gamma * nv * live - b["val"][t]
            gae = delta + gamma * lam * live * gae
            adv[t] = gae
        ret = adv + b["val"]
        flat = {k: v.reshape(T * N, *v.shape[2:]) for k, v in b.items()}
        adv, ret = adv.reshape(-1), ret.reshape(-1)
        for _epoch in range(4):
            for idx in torch.randperm(T * N).split(max(1, T * N // 4)):
                dist, v = net(flat["obs"][idx], flat["cands"][idx], flat["mask"][idx])
                ratio = (dist.log_prob(flat["act"][idx]) - flat["logp"][idx]).exp()
                a_n = (adv[idx] - adv[idx].mean()) / (adv[idx].std() + 1e-8) if len(idx) > 1 else adv[idx]
                pg = torch.max(-a_n * ratio, -a_n * ratio.clamp(1 - clip, 1 + clip)).mean()
                loss = pg + 0.5 * ((v - ret[idx]) ** 2).mean() - 0.01 * dist.entropy().mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                opt.step()
        if (update + 1) % 10 == 0 or update + 1 == updates:
            print(f"update {update + 1}/{updates}: {episodes} games, training win rate {wins / max(episodes, 1):.3f}")
            wins = episodes = 0
    envs.close()

    def act(o: dict[str, np.ndarray]) -> int:
        with torch.no_grad():
            dist, _ = net(*(x[None] for x in tensors(o)))
        return int(dist.probs.argmax())

    rules = machiavelli_env.Rules.load("classic")
    res = win_rate(CandidateAgent(act, limit=args.limit, name="cleanrl_ppo"), rules, "random",
                   games=args.eval_games, seed=args.seed + 1)
    print(f"trained {updates * T * N} steps; win rate vs random: {res['win_rate']:.3f} "
          f"(95% CI {res['ci95'][0]:.3f}-{res['ci95'][1]:.3f}, {res['games']} games)")


if __name__ == "__main__":
    main()
