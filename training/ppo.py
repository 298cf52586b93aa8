"""PPO self-play training of the candidate-scoring policy, readable top to bottom (after CleanRL's ppo.py).

Run it as ``machiavelli train --config configs/train/ppo_2p_classic.yaml [--out DIR] [--resume]``
(or ``python -m training.ppo --config ...``). One update:

1. the rollout workers (:mod:`training.rollout`) play ``steps`` learner moves in each of their
   ``games`` games against opponents drawn from the pool (:mod:`training.pool`), sampling moves
   from the current policy;
2. generalised advantage estimation (GAE) over each game's learner moves;
3. ``epochs`` passes of minibatch clipped-objective PPO (policy loss, clipped value loss, entropy
   bonus, gradient clipping, early stop when the approximate KL passes ``target_kl``);
4. logging (TensorBoard in ``OUT/tb``, ``OUT/train.jsonl``), a snapshot for the pool every
   ``pool.snapshot_every`` updates, a resumable checkpoint (``OUT/checkpoint.pt``) every
   ``save_every`` updates, and every ``eval.every`` updates an evaluation against each of
   ``eval.opponents`` (seat-rotated games, 95% Wilson intervals, ``OUT/eval.jsonl``).

With ``imitate.teacher`` set, the policy first clones that agent's moves (:mod:`training.imitate`).
At the end: ``OUT/final.safetensors`` (+ ``final.json``, loadable as ``ppo:OUT/final.safetensors``),
a final evaluation, ``OUT/learning_curve.png`` and ``OUT/summary.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from machiavelli_env.agents.arena import wilson_interval
from machiavelli_env.agents.ppo import (
    CandidatePolicy,
    CheckpointError,
    load_checkpoint,
    save_checkpoint,
    widen_state_dict,
)
from torch import nn

from .config import TrainConfig, load_config
from .pool import self_play_prob
from .rollout import from_numpy, to_numpy
from .workers import WorkerGroup

CHECKPOINT = "checkpoint.pt"


def gae(rewards: np.ndarray, values: np.ndarray, ends: np.ndarray, last_values: np.ndarray, gamma: float,
        lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Advantages and returns for arrays shaped (steps, games); ``ends[t]`` = the game ended after move t."""
    steps = rewards.shape[0]
    adv = np.zeros_like(rewards)
    last = np.zeros(rewards.shape[1], dtype=np.float32)
    for t in reversed(range(steps)):
        next_values = last_values if t == steps - 1 else values[t + 1]
        live = 1.0 - ends[t]
        delta = rewards[t] + gamma * next_values * live - values[t]
        last = delta + gamma * lam * live * last
        adv[t] = last
    return adv, adv + values


def evaluate_policy(workers: WorkerGroup, cfg: TrainConfig, players: int, games: int, seed: int) -> list[dict]:
    """Seat-rotated games against each ``eval.opponents`` bot, split over the workers; win rates with 95% CIs."""
    blocks = -(-games // players)
    per = [blocks // workers.n + (1 if w < blocks % workers.n else 0) for w in range(workers.n)]
    rows = []
    for k, opponent in enumerate(cfg.eval.opponents):
        args = [{"opponent": opponent, "games": b * players, "seed": seed + 7919 * k + 104729 * w,
                 "sample": cfg.eval.sample}
                for w, b in enumerate(per) if b > 0]
        if workers.local is not None:
            parts = workers.call("evaluate", args)
        else:
            parts = workers.call("evaluate", args + [{"opponent": opponent, "games": players, "seed": 0}]
                                 * (workers.n - len(args)))[:len(args)]
        n = sum(p["games"] for p in parts)
        wins = sum(p["wins"] for p in parts)
        lo, hi = wilson_interval(wins, n)
        rows.append({"opponent": opponent, "games": n, "wins": wins, "draws": sum(p["draws"] for p in parts),
                     "win_rate": wins / n, "ci95": [round(lo, 4), round(hi, 4)],
                     "mean_penalty_points": sum(p["penalty"] for p in parts) / n})
    return rows


def save_training_checkpoint(path: Path, model: nn.Module, optimizer: torch.optim.Optimizer, meta: dict,
                             progress: dict, snapshots: dict[int, dict[str, torch.Tensor]],
                             workers: list[dict] | None = None) -> None:
    """A resumable checkpoint of tensors and plain values only (loads with ``torch.load(weights_only=True)``).

    ``workers``: each rollout worker's state (:meth:`training.rollout.RolloutWorker.get_state`), kept
    with the trainer's torch random state, so that a resumed run goes on exactly as the run would
    have: the same weights at the end as an uninterrupted run (same seed and worker count). Written
    to a temporary file and renamed, so a run killed while saving keeps its previous checkpoint."""
    tmp = path.with_suffix(".tmp")
    data = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "meta": meta,
            "progress": progress, "snapshots": {str(k): v for k, v in snapshots.items()},
            "torch_rng": torch.get_rng_state()}
    if workers is not None:
        data["workers"] = [_tensors_in(w) for w in workers]
    torch.save(data, tmp)
    tmp.replace(path)


def _tensors_in(worker: dict) -> dict:
    """A worker state with its snapshot weights as tensors (what ``weights_only`` loading accepts)."""
    snaps = {sid: {"rng": item["rng"], "weights": from_numpy(item["weights"])}
             for sid, item in worker["snapshots"].items()}
    return {**worker, "snapshots": snaps}


def _arrays_in(worker: dict) -> dict:
    """:func:`_tensors_in` undone: the snapshot weights as arrays, as the workers take them."""
    snaps = {sid: {"rng": item["rng"], "weights": to_numpy(item["weights"])}
             for sid, item in worker["snapshots"].items()}
    return {**worker, "snapshots": snaps}


def train(cfg: TrainConfig, out: str | Path, *, resume: bool = False, progress_bar: bool = True,
          log: Any = print) -> dict[str, Any]:
    """Run the training described by ``cfg`` into directory ``out``; returns the summary dict."""
    # ------------------------------------------------------------------ setup
    out = Path(out)
    rules, spec = cfg.load_rules(), cfg.policy_spec()
    players = rules.players
    ckpt_path = out / CHECKPOINT
    if resume and not ckpt_path.is_file():
        if not (out / "config.json").is_file():
            raise FileNotFoundError(f"--resume: no {CHECKPOINT} in {out}")
        # a run stopped before its first checkpoint: it starts again from the beginning
        log(f"--resume: {out} holds no {CHECKPOINT} yet; starting the run from update 0")
        resume = False
        for name in ("eval.jsonl", "train.jsonl"):
            (out / name).unlink(missing_ok=True)
    if not resume and ckpt_path.is_file():
        raise FileExistsError(f"{out} already holds a run ({CHECKPOINT}); pass --resume or choose another --out")
    init_weights = None
    if cfg.init and not resume:  # checked before anything is written; a resumed run has its own weights
        init_policy, _ = load_checkpoint(cfg.init)
        try:  # the same architecture, or the same with the stock-clock inputs added (at zero weight)
            init_weights = widen_state_dict(init_policy, spec)
        except CheckpointError:
            raise CheckpointError(
                f"{cfg.init}: architecture {init_policy.spec.to_dict()} differs from the config's {spec.to_dict()}"
            ) from None
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    torch.manual_seed(cfg.seed)
    np.random.seed(cfg.seed)
    (out / "config.json").write_text(json.dumps(cfg.to_dict(), indent=2) + "\n")
    meta = {"format": "machiavelli-ppo", "version": 1, "policy": spec.to_dict(),
            "info": {"rules": rules.to_dict(), "players": players, "config": cfg.name, "seed": cfg.seed,
                     "init": cfg.init, "imitate": cfg.imitate.teacher}}

    # ------------------------------------------------------------------ model, optimizer, resume state
    model = CandidatePolicy(spec)
    if init_weights is not None:
        model.load_state_dict(init_weights)
    if cfg.imitate.teacher is not None and not resume:  # behaviour cloning first (training.imitate)
        from .imitate import imitate

        report = imitate(model, rules, cfg, log=log)
        (out / "imitate.json").write_text(json.dumps(report, indent=2) + "\n")
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.ppo.lr, eps=1e-5)
    snapshots: dict[int, dict[str, torch.Tensor]] = {}
    state = {"update": 0, "learner_steps": 0, "games": 0, "elapsed_s": 0.0, "next_snapshot": 0}
    saved_workers: list[dict] | None = None
    if resume:
        data = torch.load(ckpt_path, map_location="cpu", weights_only=True)
        model.load_state_dict(data["model"])
        optimizer.load_state_dict(data["optimizer"])
        state.update(data["progress"])
        snapshots = {int(k): v for k, v in data["snapshots"].items()}
        saved_workers = data.get("workers")
        if saved_workers is not None and len(saved_workers) != cfg.rollout.workers:
            log(f"the checkpoint holds {len(saved_workers)} rollout workers, the run now {cfg.rollout.workers}: "
                "fresh workers (the weights will differ from an uninterrupted run)")
            saved_workers = None
        for name in ("eval.jsonl", "train.jsonl"):  # drop lines written after the checkpoint
            f = out / name
            if f.is_file():
                keep = [ln for ln in f.read_text().splitlines() if json.loads(ln)["update"] <= state["update"]]
                f.write_text("".join(ln + "\n" for ln in keep))
        log(f"resuming {out} at update {state['update']}/{cfg.updates}")

    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(out / "tb"))
    workers = WorkerGroup(
        cfg.rollout.workers, rules=rules, spec=spec, games=cfg.rollout.games, seed=cfg.seed,
        first_update=state["update"], heuristics=cfg.pool.heuristics, latest=cfg.pool.latest,
        gamma=cfg.ppo.gamma, shaping=cfg.ppo.shaping, reward=cfg.ppo.reward,
        placement_weight=cfg.ppo.placement_weight, take_wins=cfg.rollout.take_wins,
        engine=cfg.rollout.engine, address=cfg.rollout.address,
    )
    sent: list[set[int]] = [set() for _ in range(workers.n)]
    if saved_workers is not None:
        workers.call("set_state", [{"data": _arrays_in(w)} for w in saved_workers])
        sent = [set(snapshots) for _ in range(workers.n)]  # the workers hold them already
    if resume and "torch_rng" in data:
        # last: building networks (the model, a worker in this process, its snapshots) draws from it
        torch.set_rng_state(data["torch_rng"])
    pbar = None
    if progress_bar:
        from tqdm import tqdm

        pbar = tqdm(total=cfg.updates, initial=state["update"], desc=cfg.name, unit="update", dynamic_ncols=True)
    start = time.time() - state["elapsed_s"]

    def write_jsonl(name: str, row: dict) -> None:
        with open(out / name, "a") as f:
            f.write(json.dumps(row) + "\n")

    def run_eval(update: int, games: int) -> list[dict]:
        workers.call("set_weights", [{"weights": to_numpy(model.state_dict())}] * workers.n)
        rows = evaluate_policy(workers, cfg, players, games, cfg.eval.seed)
        for r in rows:
            r.update(update=update, players=players, learner_steps=state["learner_steps"], games_trained=state["games"],
                     elapsed_s=round(time.time() - start, 1))
            write_jsonl("eval.jsonl", r)
            writer.add_scalar(f"eval/win_rate_vs_{r['opponent']}", r["win_rate"], state["learner_steps"])
            writer.add_scalar(f"eval/ci95_low_vs_{r['opponent']}", r["ci95"][0], state["learner_steps"])
            writer.add_scalar(f"eval/ci95_high_vs_{r['opponent']}", r["ci95"][1], state["learner_steps"])
        text = ", ".join(f"{r['opponent']} {r['win_rate']:.1%} [{r['ci95'][0]:.1%}, {r['ci95'][1]:.1%}]"
                         f" ({r['games']} games)" for r in rows)
        (pbar.write if pbar else log)(f"update {update}: win rate vs {text}")
        return rows

    try:
        if state["update"] == 0 and not resume and cfg.eval.at_start:
            run_eval(0, cfg.eval.games)
        # ------------------------------------------------------------------ training loop
        while state["update"] < cfg.updates:
            u = state["update"]
            t0 = time.time()
            # learning-rate annealing (linear to 0 over the run)
            if cfg.ppo.anneal_lr:
                optimizer.param_groups[0]["lr"] = cfg.ppo.lr * (1.0 - u / cfg.updates)

            # the pool: snapshot the policy every snapshot_every updates, keep the most recent ones
            if u > 0 and u % cfg.pool.snapshot_every == 0:
                snapshots[state["next_snapshot"]] = {k: v.clone() for k, v in model.state_dict().items()}
                state["next_snapshot"] += 1
                for old in sorted(snapshots)[:-cfg.pool.max_snapshots]:
                    del snapshots[old]
            sync = []
            for w in range(workers.n):
                sync.append({"snapshots": {k: (None if k in sent[w] else to_numpy(v)) for k, v in snapshots.items()}})
                sent[w] = set(snapshots)
            workers.call("sync_snapshots", sync)
            workers.call("set_weights", [{"weights": to_numpy(model.state_dict())}] * workers.n)

            # 1. rollouts
            p_policy = self_play_prob(cfg.pool.self_play, u, cfg.updates)
            parts = workers.call("collect", [{"steps": cfg.rollout.steps, "p_policy": p_policy}] * workers.n)
            batch = {k: np.concatenate([p[k] for p in parts], axis=1) for k in parts[0]
                     if k not in ("episodes", "last_values")}
            batch["last_values"] = np.concatenate([p["last_values"] for p in parts])
            episodes = [e for p in parts for e in p["episodes"]]
            t_rollout = time.time() - t0

            # 2. advantages
            adv, returns = gae(batch["rewards"], batch["values"], batch["ends"], batch["last_values"],
                               cfg.ppo.gamma, cfg.ppo.gae_lambda)
            flat = lambda x: torch.from_numpy(np.ascontiguousarray(x.reshape(-1, *x.shape[2:])))  # noqa: E731
            b_states, b_cands, b_masks = flat(batch["states"]), flat(batch["cands"]), flat(batch["masks"])
            b_actions, b_logprobs, b_values = flat(batch["actions"]), flat(batch["logprobs"]), flat(batch["values"])
            b_adv, b_returns = flat(adv.astype(np.float32)), flat(returns.astype(np.float32))

            # 3. PPO epochs over minibatches
            n = b_states.shape[0]
            mb = n // cfg.ppo.minibatches
            clipfracs, approx_kl, stopped = [], 0.0, False
            pg_loss = v_loss = entropy = torch.zeros(())
            model.train()
            for _epoch in range(cfg.ppo.epochs):
                order = torch.randperm(n)
                for s in range(0, n, mb):
                    idx = order[s:s + mb]
                    logits, new_values = model(b_states[idx], b_cands[idx], b_masks[idx])
                    logp_all = torch.log_softmax(logits, dim=-1)
                    new_logp = logp_all.gather(1, b_actions[idx][:, None]).squeeze(1)
                    entropy = -(logp_all.exp() * logp_all).sum(-1).mean()
                    log_ratio = new_logp - b_logprobs[idx]
                    ratio = log_ratio.exp()
                    with torch.no_grad():
                        approx_kl = float(((ratio - 1) - log_ratio).mean())
                        clipfracs.append(float(((ratio - 1.0).abs() > cfg.ppo.clip).float().mean()))
                    a = b_adv[idx]
                    a = (a - a.mean()) / (a.std() + 1e-8)
                    pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.ppo.clip, 1 + cfg.ppo.clip)).mean()
                    if cfg.ppo.clip_value:
                        v_clipped = b_values[idx] + (new_values - b_values[idx]).clamp(-cfg.ppo.clip, cfg.ppo.clip)
                        v_loss = 0.5 * torch.max((new_values - b_returns[idx]) ** 2,
                                                 (v_clipped - b_returns[idx]) ** 2).mean()
                    else:
                        v_loss = 0.5 * ((new_values - b_returns[idx]) ** 2).mean()
                    loss = pg_loss - cfg.ppo.ent_coef * entropy + cfg.ppo.vf_coef * v_loss
                    optimizer.zero_grad()
                    loss.backward()
                    nn.utils.clip_grad_norm_(model.parameters(), cfg.ppo.max_grad_norm)
                    optimizer.step()
                if cfg.ppo.target_kl is not None and approx_kl > cfg.ppo.target_kl:
                    stopped = True
                    break
            model.eval()

            # 4. bookkeeping and logging
            state["update"] = u + 1
            state["learner_steps"] += n
            state["games"] += len(episodes)
            state["elapsed_s"] = time.time() - start
            var_y = float(np.var(returns))
            explained = float("nan") if var_y == 0 else 1 - float(np.var(returns - batch["values"])) / var_y
            row: dict[str, Any] = {
                "update": u + 1, "learner_steps": state["learner_steps"], "games_trained": state["games"],
                "elapsed_s": round(state["elapsed_s"], 1), "rollout_s": round(t_rollout, 2),
                "update_s": round(time.time() - t0 - t_rollout, 2), "lr": optimizer.param_groups[0]["lr"],
                "policy_loss": pg_loss.item(), "value_loss": v_loss.item(), "entropy": entropy.item(),
                "approx_kl": approx_kl, "clipfrac": float(np.mean(clipfracs)) if clipfracs else 0.0,
                "kl_stop": stopped, "explained_variance": explained, "self_play_prob": p_policy,
                "episodes": len(episodes),
                "mean_turns": float(np.mean([e["turns"] for e in episodes])) if episodes else None,
                "sps": round(n / max(t_rollout, 1e-9), 1),
            }
            kinds = sorted({k for e in episodes for k in e["opponents"]})
            for kind in kinds:
                games_k = [e for e in episodes if e["opponents"] == [kind]]
                if games_k:
                    row[f"rollout_win_rate_vs_{kind}"] = float(np.mean([e["win"] for e in games_k]))
            write_jsonl("train.jsonl", row)
            for k, v in row.items():
                if isinstance(v, (int, float)) and not isinstance(v, bool) and k != "update" and v == v:
                    writer.add_scalar(f"train/{k}", v, state["learner_steps"])
            if pbar:
                pbar.update(1)
                pbar.set_postfix(steps=state["learner_steps"], games=state["games"], ent=f"{entropy.item():.2f}",
                                 sps=row["sps"])

            last = state["update"] == cfg.updates
            if state["update"] % cfg.eval.every == 0 and not last:
                run_eval(state["update"], cfg.eval.games)
            if state["update"] % cfg.save_every == 0 or last:
                save_training_checkpoint(ckpt_path, model, optimizer, meta, dict(state), snapshots,
                                         workers.call("get_state", [{}] * workers.n))

        # ------------------------------------------------------------------ the end
        final = save_checkpoint(model, out / "final.safetensors", info={
            **meta["info"], "updates": state["update"], "learner_steps": state["learner_steps"],
            "games_trained": state["games"]})
        rows = run_eval(state["update"], cfg.eval.final_games or cfg.eval.games)
        summary = {"name": cfg.name, "out": str(out), "final": str(final), "updates": state["update"],
                   "learner_steps": state["learner_steps"], "games_trained": state["games"],
                   "elapsed_s": round(time.time() - start, 1), "final_eval": rows}
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        try:
            from .plotting import plot_learning_curve

            plot_learning_curve(out, out / "learning_curve.png", title=cfg.name)
        except ImportError as exc:  # matplotlib missing: the run itself succeeded
            log(f"no learning curve: {exc}")
        return summary
    finally:
        if pbar:
            pbar.close()
        writer.close()
        workers.close()


def main(argv: list[str] | None = None) -> int:
    """``python -m training.ppo --config FILE [--out DIR] [--resume]``."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", required=True)
    p.add_argument("--out", default=None)
    p.add_argument("--resume", action="store_true")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    cfg = load_config(args.config)
    out = Path(args.out) if args.out else Path("runs") / cfg.name
    summary = train(cfg, out, resume=args.resume, progress_bar=not args.no_progress)
    print(json.dumps(summary["final_eval"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
