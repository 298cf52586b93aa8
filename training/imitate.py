"""Behaviour cloning: a warm start that teaches the policy a teacher agent's moves before PPO.

With ``imitate.teacher`` set in a training config (any agent of :func:`agents.registry.make_agent`,
usually a bot), :func:`training.ppo.train` first runs :func:`imitate`:

1. **demonstrations** (:func:`collect_demonstrations`): ``imitate.games`` games, each with the
   teacher in a random seat and one bot kind, drawn by the weights of ``imitate.opponents``,
   in every other seat (the tables an evaluation plays). At each of the teacher's turns the turn
   is encoded exactly as the policy sees it (:func:`agents.ppo.encode_turn`) and the teacher's
   move is recorded as the index of that move among the policy's candidates (a move outside the
   candidates is played but not recorded); when the game ends, every recorded turn of it gets the
   teacher's final reward as its value target. Games are dealt from ``seed`` and split over
   ``rollout.workers`` processes in a fixed order, so the data do not depend on the worker count.
2. **cloning** (:func:`clone`): ``imitate.epochs`` passes of minibatch Adam (``imitate.lr``,
   ``imitate.batch``) on cross-entropy of the teacher's move under the masked softmax, plus
   ``ppo.vf_coef`` times the squared error of the value head.

The PPO updates then start from the cloned weights (``updates: 0`` keeps the clone). The report
(``OUT/imitate.json``): samples, teacher moves outside the candidates, and per epoch the loss and
the fraction of turns where the policy's best-scoring move is the teacher's.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from machiavelli_env.agents.base import DRAW, turn_from_state
from machiavelli_env.agents.ppo import CandidatePolicy, PolicySpec, encode_turn
from machiavelli_env.agents.registry import make_agent

from machiavelli_env import game
from machiavelli_env.rules import Rules

Demos = dict[str, np.ndarray]


def _candidate_index(action: np.ndarray, plays: list[np.ndarray]) -> int | None:
    """Row of ``action`` among the candidates (0 = drawing, ``i`` = ``plays[i - 1]``); ``None`` if absent."""
    if not np.count_nonzero(action):
        return 0
    for i, play in enumerate(plays, 1):
        if np.array_equal(play, action):
            return i
    return None


def _one_game(job: tuple[Rules, PolicySpec, str, tuple[str, ...], tuple[float, ...], int]) -> dict[str, Any]:
    rules, spec, teacher_spec, kinds, weights, seed = job
    rng = np.random.default_rng(seed)
    n = rules.players
    seat = int(rng.integers(n))
    kind = kinds[int(rng.choice(len(kinds), p=np.asarray(weights) / sum(weights)))]
    agents = {q: make_agent(teacher_spec if q == seat else kind, rules, seed=seed + q, exact_lists=True)
              for q in range(n)}
    for a in agents.values():
        a.reset(seed)
    state = game.new_game(rules, seed=seed)
    rows: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]] = []
    outside = 0
    while not state.done:
        p = state.current
        turn = turn_from_state(state, p, limit=spec.limit)
        action = np.asarray(agents[p].act(turn), dtype=np.int64)
        if p == seat:
            feats, cands, mask, plays = encode_turn(turn, spec)
            idx = _candidate_index(action, plays)
            if idx is None or not mask[idx]:
                outside += 1
            else:
                rows.append((feats, cands, mask, idx))
        state = game.step(state, action if np.count_nonzero(action) else DRAW)
    return {"rows": rows, "outside": outside, "reward": float(state.rewards[seat]), "kind": kind}


def collect_demonstrations(
    rules: Rules, spec: PolicySpec, teacher: str, opponents: Mapping[str, float], games: int, seed: int,
    workers: int = 1,
) -> tuple[Demos, dict[str, Any]]:
    """The teacher's turns as arrays ``states, cands, masks, actions, returns``, and counts (module docstring)."""
    kinds = tuple(sorted(opponents))
    weights = tuple(float(opponents[k]) for k in kinds)
    seeds = np.random.default_rng(seed).integers(0, 2**31 - 1, size=games)
    jobs = [(rules, spec, teacher, kinds, weights, int(s)) for s in seeds]
    if workers > 1:
        with mp.get_context("spawn").Pool(workers) as pool:
            results = pool.map(_one_game, jobs, chunksize=max(1, games // (4 * workers)))
    else:
        results = [_one_game(j) for j in jobs]
    rows = [(r, res["reward"]) for res in results for r in res["rows"]]
    if not rows:
        raise ValueError(f"imitate: in {games} games the teacher {teacher!r} made no move among the candidates")
    demos = {
        "states": np.stack([r[0] for r, _ in rows]),
        "cands": np.stack([r[1] for r, _ in rows]),
        "masks": np.stack([r[2] for r, _ in rows]),
        "actions": np.array([r[3] for r, _ in rows], dtype=np.int64),
        "returns": np.array([g for _, g in rows], dtype=np.float32),
    }
    info = {
        "games": games, "samples": len(rows), "outside_candidates": int(sum(r["outside"] for r in results)),
        "teacher_win_rate": float(np.mean([r["reward"] > 0 for r in results])),
        "plays": int((demos["actions"] > 0).sum()),
    }
    return demos, info


def clone(
    model: CandidatePolicy, demos: Demos, *, epochs: int, lr: float, batch: int, vf_coef: float, seed: int,
    log: Any = print,
) -> list[dict[str, float]]:
    """Fit ``model`` to the demonstrations in place; per epoch ``{"epoch", "loss", "accuracy"}``."""
    gen = torch.Generator().manual_seed(seed)
    t = {k: torch.from_numpy(v) for k, v in demos.items()}
    n = t["actions"].shape[0]
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, eps=1e-5)
    history = []
    model.train()
    for epoch in range(1, epochs + 1):
        order = torch.randperm(n, generator=gen)
        total, hits = 0.0, 0
        for s in range(0, n, batch):
            idx = order[s:s + batch]
            logits, values = model(t["states"][idx], t["cands"][idx], t["masks"][idx])
            ce = torch.nn.functional.cross_entropy(logits, t["actions"][idx], reduction="sum")
            v_loss = ((values - t["returns"][idx]) ** 2).sum()
            loss = (ce + vf_coef * v_loss) / len(idx)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float((ce + vf_coef * v_loss).detach())
            hits += int((logits.argmax(-1) == t["actions"][idx]).sum())
        row = {"epoch": epoch, "loss": total / n, "accuracy": hits / n}
        history.append(row)
        log(f"imitate epoch {epoch}/{epochs}: loss {row['loss']:.4f}, teacher's move chosen {row['accuracy']:.2%}")
    model.eval()
    return history


def imitate(model: CandidatePolicy, rules: Rules, cfg: Any, log: Any = print) -> dict[str, Any]:
    """Collect the teacher's demonstrations and clone them into ``model`` (``cfg``: a :class:`TrainConfig`)."""
    im = cfg.imitate
    opponents = im.opponents or cfg.pool.heuristics
    demos, info = collect_demonstrations(rules, model.spec, im.teacher, opponents, im.games, cfg.seed,
                                         workers=cfg.rollout.workers)
    log(f"imitate {im.teacher!r}: {info['samples']} turns from {im.games} games "
        f"({info['plays']} plays; teacher won {info['teacher_win_rate']:.1%})")
    info["epochs"] = clone(model, demos, epochs=im.epochs, lr=im.lr, batch=im.batch, vf_coef=cfg.ppo.vf_coef,
                           seed=cfg.seed, log=log)
    info.update(teacher=im.teacher, opponents=dict(opponents))
    return info
