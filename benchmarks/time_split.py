"""Where the time goes: a PPO rollout, a greedy self-play step and a ``CandidatePlays`` move, split
into the exact legal-play lists, the oracle's best play, the network and the rest; and the speed-ups
those shares allow.

Usage::

    python benchmarks/time_split.py [--quick] [--updates N] [--greedy-games N] [--moves N]
                                    [--preset P] [--seed S] [--json OUT]

Each part runs in this process on the installed (or ``PYTHONPATH``) package, and counts process CPU
time (``time.process_time_ns``) in the functions below by wrapping them for the run (a wrapped call
costs about a microsecond more; the shares are of the same wrapped run; a part's time leaves out
the other parts' calls it makes):

1. **PPO rollout** (needs the ``train`` extra): ``machiavelli train`` from the shipped
   ``ppo_classic_2p`` checkpoint with ``benchmarks/train_speed.py``'s settings (16 games x 32 steps,
   1 rollout worker, so the rollouts run in this process; ``--updates`` updates). Split of
   ``RolloutWorker.collect``: every exact list (``legal.legal_plays_counts``, the learner's and the
   bots'), every full-schedule best play (``legal.best_play_counts``: the ``greedy`` and ``patient``
   bots' moves and ``must_play_if_able`` checks), the network (``RolloutWorker._forward``), the
   engine's step (``game.step``) and the rest. From ``train.jsonl``: the rollouts' and the PPO
   updates' seconds (``rollout_s``, ``update_s``).
2. **Greedy self-play** (``benchmarks/env.py``'s loop, classic, 2 players): the share of a step in
   ``legal.best_play_counts``.
3. **CandidatePlays random play** on ``--preset`` (``benchmarks/train_speed.py``'s loop): the share
   of a move in ``legal.legal_plays_counts``.

The **ceilings** printed are what the shares allow, Amdahl's law: if the lists cost nothing, a
rollout takes at least the rest of ``collect`` and a training run at least that plus its PPO
updates. Timing figures depend on the machine and its load; the shares move less.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import train_speed  # noqa: E402  (its loops, config and env.py, timed here as it times them)


class Clock:
    """Process CPU time and calls per label, of functions wrapped while :meth:`wrapping` is open.

    ``ns`` counts a call's whole time; ``own`` the time outside the wrapped calls it makes (so that
    the labels' ``own`` times do not count a nested call twice)."""

    def __init__(self) -> None:
        self.ns: Counter[str] = Counter()
        self.own: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self._inner: list[int] = []  # per open wrapped call, the time of the wrapped calls it made

    @contextmanager
    def wrapping(self, targets: dict[str, tuple[Any, str]]) -> Iterator[None]:
        """Wrap ``getattr(owner, name)`` for each ``label: (owner, name)``; restored on exit."""
        saved = []
        try:
            for label, (owner, name) in targets.items():
                fn = getattr(owner, name)
                saved.append((owner, name, fn))
                setattr(owner, name, self._timed(label, fn))
            yield
        finally:
            for owner, name, fn in reversed(saved):
                setattr(owner, name, fn)

    def _timed(self, label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            self._inner.append(0)
            t0 = time.process_time_ns()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = time.process_time_ns() - t0
                inner = self._inner.pop()
                if self._inner:
                    self._inner[-1] += spent
                self.ns[label] += spent
                self.own[label] += spent - inner
                self.calls[label] += 1
        return timed

    def ms(self, label: str, own: bool = False) -> float:
        """Milliseconds in ``label``'s calls (``own``: outside the wrapped calls they made)."""
        return (self.own if own else self.ns)[label] / 1e6


def _ceiling(share: float) -> float:
    """How many times faster the whole gets when a part of it ``share`` costs nothing."""
    return float("inf") if share >= 1.0 else 1.0 / (1.0 - share)


# ---------------------------------------------------------------------------------------------- parts
def train_from_checkpoint(updates: int, workdir: Path) -> list[dict[str, Any]]:
    """``machiavelli train`` from the shipped 2-player checkpoint with ``train_speed.py``'s settings and
    1 rollout worker (its rollouts run in this process), ``updates`` updates, in ``workdir``: the
    update rows of its ``train.jsonl``."""
    from machiavelli_env.cli import main as cli_main

    init = ROOT / "agents" / "checkpoints" / "ppo_classic_2p.safetensors"
    config = train_speed.TRAIN_CONFIG.format(
        name="time_split", updates=updates, workers=1, init=f"init: {init}\n")
    cfg, out = workdir / "config.yaml", workdir / "out"
    cfg.write_text(config)
    rc = cli_main(["train", "--config", str(cfg), "--out", str(out), "--no-progress"])
    if rc:
        raise RuntimeError(f"machiavelli train exited {rc}")
    rows = [json.loads(ln) for ln in (out / "train.jsonl").read_text().splitlines() if ln.strip()]
    return [r for r in rows if "update" in r]


def split_rollout(updates: int, workdir: Path) -> dict[str, Any]:
    """Part 1: a short training run from the shipped checkpoint with 1 rollout worker."""
    from machiavelli_env.training import rollout

    from machiavelli_env import game, legal

    clock = Clock()
    targets = {"collect": (rollout.RolloutWorker, "collect"), "lists": (legal, "legal_plays_counts"),
               "best plays": (legal, "best_play_counts"), "network": (rollout.RolloutWorker, "_forward"),
               "engine step": (game, "step")}
    with clock.wrapping(targets):
        rows = train_from_checkpoint(updates, workdir)
    rollout_s = sum(r["rollout_s"] for r in rows)
    update_s = sum(r["update_s"] for r in rows)
    collect = clock.ms("collect")
    parts = {k: clock.ms(k, own=True) for k in ("lists", "best plays", "network", "engine step")}
    parts["rest"] = collect - sum(parts.values())
    lists = parts["lists"] / collect
    # the rollout phase without lists, then plus the PPO updates (whose time the weights fix)
    elapsed_now = rollout_s + update_s
    elapsed_free = rollout_s * (1.0 - lists) + update_s
    return {"updates": len(rows), "learner_steps": rows[-1]["learner_steps"], "collect_ms": collect,
            "parts_ms": parts, "calls": {k: clock.calls[k] for k in targets},
            "rollout_s": rollout_s, "update_s": update_s, "mean_update_s": update_s / len(rows),
            "lists_share": lists, "rollout_ceiling_free_lists": _ceiling(lists),
            "run_ceiling_free_lists": elapsed_now / elapsed_free,
            "run_ceiling_free_rollouts": elapsed_now / update_s}


def split_greedy(games: int, seed: int) -> dict[str, Any]:
    """Part 2: greedy self-play of classic, ``games`` games from ``seed``."""
    import machiavelli_env
    from machiavelli_env import legal

    bench = train_speed._bench_env()
    env = machiavelli_env.env("classic")
    rng = np.random.default_rng(seed)
    bench._policy_game(env, "greedy", rng, seed + 10_000)  # warm-up
    clock = Clock()
    t0 = time.process_time_ns()
    with clock.wrapping({"best plays": (legal, "best_play_counts")}):
        steps = sum(bench._policy_game(env, "greedy", rng, seed + g) for g in range(games))
    total = (time.process_time_ns() - t0) / 1e6
    search = clock.ms("best plays")
    return {"games": games, "steps": steps, "total_ms": total, "best_play_ms": search,
            "us_per_step": 1e3 * total / steps, "best_play_us_per_step": 1e3 * search / steps,
            "rest_us_per_step": 1e3 * (total - search) / steps, "best_play_share": search / total}


def split_candidates(preset: str, moves: int, seed: int) -> dict[str, Any]:
    """Part 3: ``CandidatePlays`` random play on ``preset`` until ``moves`` agent moves."""
    from machiavelli_env import legal

    env = train_speed.candidates_env(preset)
    train_speed.candidate_game(env, seed + 10_000)  # warm-up: imports, the oracle's first tables
    clock = Clock()
    t0 = time.process_time_ns()
    with clock.wrapping({"lists": (legal, "legal_plays_counts")}):
        n, _ = train_speed.candidate_games(env, moves, seed)
    total, lists = (time.process_time_ns() - t0) / 1e6, clock.ms("lists")
    return {"preset": preset, "moves": n, "total_ms": total, "lists_ms": lists, "us_per_move": 1e3 * total / n,
            "lists_us_per_move": 1e3 * lists / n, "rest_us_per_move": 1e3 * (total - lists) / n,
            "lists_share": lists / total, "ceiling_free_lists": _ceiling(lists / total)}


# ---------------------------------------------------------------------------------------------- report
def _print_rollout(r: dict[str, Any]) -> None:
    print(f"PPO rollout from the shipped checkpoint, 1 worker, {r['updates']} updates "
          f"({r['learner_steps']} learner steps): collect {r['collect_ms']:.0f} ms")
    for k, ms in r["parts_ms"].items():
        calls = f"{r['calls'][k]:7d} calls" if k in r["calls"] else " " * 13
        print(f"  {k:12s} {calls} {ms:9.0f} ms  {100 * ms / r['collect_ms']:5.1f}%")
    print(f"  rollout_s {r['rollout_s']:.2f} s, update_s {r['update_s']:.2f} s ({r['mean_update_s']:.2f} s an update)")
    print(f"  ceilings: lists free -> rollouts at most {r['rollout_ceiling_free_lists']:.2f}x, the run at most "
          f"{r['run_ceiling_free_lists']:.2f}x; rollouts free -> the run at most {r['run_ceiling_free_rollouts']:.2f}x")


def _print_greedy(r: dict[str, Any]) -> None:
    print(f"greedy self-play, classic, {r['games']} games ({r['steps']} steps): {r['us_per_step']:.1f} us a step, "
          f"of which best_play {r['best_play_us_per_step']:.1f} us ({100 * r['best_play_share']:.1f}%), "
          f"the rest {r['rest_us_per_step']:.1f} us")


def _print_candidates(r: dict[str, Any]) -> None:
    print(f"CandidatePlays random play, {r['preset']}, {r['moves']} moves: {r['us_per_move']:.1f} us a move, "
          f"of which lists {r['lists_us_per_move']:.1f} us ({100 * r['lists_share']:.1f}%), "
          f"the rest {r['rest_us_per_move']:.1f} us; lists free -> at most {r['ceiling_free_lists']:.2f}x")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="shorter runs (about a minute)")
    ap.add_argument("--updates", type=int, help="PPO updates of the rollout part (default 6, quick 2; 0 skips it)")
    ap.add_argument("--greedy-games", type=int, help="greedy self-play games (default 400, quick 100; 0 skips)")
    ap.add_argument("--moves", type=int, help="CandidatePlays moves (default 15000, quick 3000; 0 skips)")
    ap.add_argument("--preset", default="classic", help="CandidatePlays preset (default classic)")
    ap.add_argument("--seed", type=int, default=0, help="first game seed of parts 2 and 3 (default 0)")
    ap.add_argument("--json", type=Path, metavar="OUT", help="write every figure here")
    args = ap.parse_args(argv)
    pick = lambda given, full, quick: (quick if args.quick else full) if given is None else given  # noqa: E731
    updates, games, moves = pick(args.updates, 6, 2), pick(args.greedy_games, 400, 100), pick(args.moves, 15000, 3000)
    for name, v in (("--updates", updates), ("--greedy-games", games), ("--moves", moves)):
        if v < 0:
            ap.error(f"{name} must be >= 0, got {v}")
    report: dict[str, Any] = {"settings": {"updates": updates, "greedy_games": games, "moves": moves,
                                           "preset": args.preset, "seed": args.seed}}
    if updates:
        with tempfile.TemporaryDirectory(prefix="time_split_") as tmp:
            report["rollout"] = split_rollout(updates, Path(tmp))
        _print_rollout(report["rollout"])
    if games:
        report["greedy"] = split_greedy(games, args.seed)
        _print_greedy(report["greedy"])
    if moves:
        report["candidates"] = split_candidates(args.preset, moves, args.seed)
        _print_candidates(report["candidates"])
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
