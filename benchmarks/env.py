"""Environment benchmark: steps/s and games/s per preset, ``legal_plays`` latency, the time of a step
split by component, and PettingZoo ``gin_rummy_v4`` / OpenSpiel ``gin_rummy`` side by side.

Usage::

    python benchmarks/env.py [--quick] [--presets classic,classic_4p] [--seconds S] [--rounds R]
                             [--games N] [--gin-python PATH] [--json OUT]

Everything runs through the PettingZoo AEC environment ``machiavelli_env.env(preset)``, one
process, one core, observations built every step (``env.last()``):

* **greedy self-play**: each move is the oracle's max-cards play (``env.unwrapped.best_play``), or
  a draw when there is none;
* **random legal play**: each move is uniform over ``env.unwrapped.legal_plays(agent, 32)`` plus
  the draw (when drawing is allowed).

Per preset and policy, whole games are played until ``--seconds`` have passed (at least one game);
steps/s counts the agents' moves (not the dead steps after the end). ``legal_plays`` latency is
measured on every position of random-play games of classic with 2 and 4 players, with the legal
play caches cleared before each call (every answer computed). The split of a step (classic, 2
players) comes from a separate run with timers around the oracle's C calls, ``legal_plays``,
``best_play``, ``observe`` and the engine's ``step`` (the timers add about a microsecond per call;
"wrapper and loop" is the rest: PettingZoo's wrappers, ``agent_iter``, ``last`` and the policy).

Comparison (``--rounds`` rounds): greedy self-play of classic with 2 players here, on the fixed
games dealt from seeds ``--seed .. --seed + --games - 1`` (the cost of a game varies a lot: a few
late games with 70+ cards on the table dominate, so a fixed set keeps rounds comparable),
interleaved with random legal play in ``gin_rummy_v4`` of pettingzoo 1.26.1 (the last release
that ships it; ``[classic]``, through its ``env()`` with observations every step) and in
OpenSpiel's ``gin_rummy`` (``observation_tensor`` of the player to move every step; chance nodes
sampled by their probabilities and not counted as steps): after each block of ``--block`` of our
games, each gin plays for as long as that block took (whole games, so a little longer). A round's
steps/s are its totals. On a shared machine whose speed swings by up to 2x within a minute, the
fine interleaving gives both sides the same conditions; a round of our games followed by a round
of gin (as before) put the swings on one side or the other (per-round ratios 1.3-3.1x). The
comparison also pins this process and the gin workers to one CPU core (the first this process may
use; ``--no-pin`` lets the OS place them): unpinned, the two sides were often placed on different
cores, one of them busier, and the per-round ratios split into two groups (1.45x and 2.4x). The gin runs are kept
alive in subprocesses of ``--gin-python`` (default ``.bench-venv-gin/bin/python`` when it
exists), a separate virtual environment, since pettingzoo 1.26.1 conflicts with this project's
pettingzoo::

    python -m venv .bench-venv-gin
    .bench-venv-gin/bin/pip install "pettingzoo[classic]==1.26.1" open-spiel

Each figure is given as wall-clock steps/s and as process-CPU steps/s (the latter is steadier on a
shared machine); the ratios are per round, then the median. Timing figures depend on the machine
and on its load: compare the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BAR = 2.0  # acceptance: greedy self-play steps/s at least twice gin_rummy_v4's random legal play
DEFAULT_GIN_PYTHON = ROOT / ".bench-venv-gin" / "bin" / "python"


# ---------------------------------------------------------------------------------------------- gin workers
# These run in the gin virtual environment: no import of machiavelli_env here. Each worker makes its
# environment and plays a warm-up game once, on its first call.
_GIN: dict[str, Any] = {}


def random_masked_game(env: Any, rng: np.random.Generator, seed: int) -> int:
    """One game of uniformly random valid actions in a PettingZoo AEC env whose observations carry an
    ``action_mask`` (dealt by ``reset(seed=seed)``, actions drawn from ``rng``): its agent moves. The
    loop that times ``gin_rummy_v4`` here and ``CandidatePlays`` in ``train_speed.py``."""
    env.reset(seed=seed)
    steps = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        valid = np.flatnonzero(obs["action_mask"])
        env.step(int(valid[rng.integers(len(valid))]))
        steps += 1
    return steps


def _gin_pettingzoo(seconds: float, seed: int) -> dict[str, Any]:
    import pettingzoo
    from pettingzoo.classic import gin_rummy_v4

    if "pettingzoo" not in _GIN:
        _GIN["pettingzoo"] = gin_rummy_v4.env()
    env = _GIN["pettingzoo"]
    rng = np.random.default_rng(seed)

    def game(g: int) -> int:
        return random_masked_game(env, rng, seed + g)

    if not _GIN.get("pettingzoo_warm"):
        game(10_000)
        _GIN["pettingzoo_warm"] = True
    return _timed(game, seconds) | {"version": pettingzoo.__version__}


def _gin_openspiel(seconds: float, seed: int) -> dict[str, Any]:
    from importlib import metadata

    import pyspiel

    if "openspiel" not in _GIN:
        _GIN["openspiel"] = pyspiel.load_game("gin_rummy")
    spiel_game = _GIN["openspiel"]
    rng = np.random.default_rng(seed)

    def game(g: int) -> int:
        state = spiel_game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(actions, p=probs)))
                continue
            state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            steps += 1
        return steps

    if not _GIN.get("openspiel_warm"):
        game(10_000)
        _GIN["openspiel_warm"] = True
    return _timed(game, seconds) | {"version": metadata.version("open_spiel")}


def _timed(play_game: Any, seconds: float, min_games: int = 1) -> dict[str, Any]:
    """Play whole games until ``seconds`` (wall) have passed; wall and CPU steps/s and games/s."""
    steps = games = 0
    w0, c0 = time.perf_counter(), time.process_time()
    while games < min_games or time.perf_counter() - w0 < seconds:
        steps += play_game(games)
        games += 1
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return {"steps": steps, "games": games, "wall_s": wall, "cpu_s": cpu,
            "steps_per_s": steps / wall, "games_per_s": games / wall,
            "cpu_steps_per_s": steps / cpu if cpu > 0 else float("nan")}


WORKERS = {"gin_pettingzoo": _gin_pettingzoo, "gin_openspiel": _gin_openspiel}


def _serve(name: str) -> None:
    """Worker loop: for each line ``SECONDS SEED`` on stdin, time that many seconds of play."""
    runner = WORKERS[name]
    for line in sys.stdin:
        seconds, seed = line.split()
        print(json.dumps(runner(float(seconds), int(seed))), flush=True)


class Worker:
    """A gin benchmark running in another Python (the gin venv), kept alive between rounds."""

    def __init__(self, python: Path, name: str):
        if name not in WORKERS:
            raise ValueError(f"unknown gin worker {name!r}; the workers are {', '.join(WORKERS)}")
        self.name = name
        self.error: str | None = None
        try:
            self.proc: subprocess.Popen | None = subprocess.Popen(
                [str(python), str(Path(__file__).resolve()), "--worker", name],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )
        except OSError as exc:
            self.proc, self.error = None, str(exc)

    def run(self, seconds: float, seed: int) -> dict[str, Any]:
        """The worker's figures for ``seconds`` of play from ``seed``, or ``{"error": why}`` once it has
        died (its last line of stderr, else its exit status)."""
        if self.proc is None or self.proc.poll() is not None:
            return self._died()
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write(f"{seconds} {seed}\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            return self._died()
        line = self.proc.stdout.readline()
        if not line:  # it died while playing: its output is closed, it may not have exited yet
            return self._died()
        return json.loads(line)

    def _died(self) -> dict[str, Any]:
        if self.proc is not None and self.error is None:
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            err = self.proc.stderr.read().strip().splitlines() if self.proc.stderr else []
            self.error = err[-1] if err else f"exited with {self.proc.returncode}"
        return {"error": self.error or "not running"}

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()  # type: ignore[union-attr]
            self.proc.wait(timeout=30)


# ---------------------------------------------------------------------------------------------- this project
def _policy_game(env: Any, policy: str, rng: np.random.Generator, seed: int) -> int:
    from machiavelli_env.cards import NUM_TYPES
    from machiavelli_env.observation import OFF_DRAW_ALLOWED

    raw = env.unwrapped
    draw = np.zeros(NUM_TYPES, dtype=np.int64)
    env.reset(seed=seed)
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if policy == "greedy":
            action = raw.best_play(agent)
        else:
            options = raw.legal_plays(agent, 32)
            if obs["observation"][OFF_DRAW_ALLOWED] > 0.5:
                options = [draw, *options]
            action = options[int(rng.integers(len(options)))]
        env.step(action)
        steps += 1
    return steps


def run_policy(preset: str, policy: str, seconds: float, seed: int = 0) -> dict[str, Any]:
    """Steps/s and games/s of ``policy`` (``greedy`` or ``random``) on ``preset`` through the AEC env."""
    import machiavelli_env

    env = machiavelli_env.env(preset)
    rng = np.random.default_rng(seed)
    _policy_game(env, policy, rng, seed + 10_000)  # warm-up (imports, first oracle queries)
    return _timed(lambda g: _policy_game(env, policy, rng, seed + g), seconds)


def _add(total: dict[str, Any], part: dict[str, Any]) -> None:
    for key in ("steps", "games", "wall_s", "cpu_s"):
        total[key] = total.get(key, 0) + part[key]


def _rates(total: dict[str, Any]) -> dict[str, Any]:
    return total | {"steps_per_s": total["steps"] / total["wall_s"], "games_per_s": total["games"] / total["wall_s"],
                    "cpu_steps_per_s": total["steps"] / total["cpu_s"] if total["cpu_s"] > 0 else float("nan")}


def compare_round(workers: list[Worker], games: int, block: int, seed: int, gin_seed: int) -> dict[str, Any]:
    """One comparison round: greedy self-play of classic (2 players) on the games dealt from seeds
    ``seed .. seed + games - 1``, in blocks of ``block`` games, each block followed by each gin
    worker playing for as long; totals and rates per side."""
    import machiavelli_env

    env = machiavelli_env.env("classic")
    rng = np.random.default_rng(seed)
    _policy_game(env, "greedy", rng, seed + 10_000)  # warm-up
    ours: dict[str, Any] = {}
    gins: dict[str, dict[str, Any]] = {w.name: {} for w in workers}
    errors: dict[str, dict[str, Any]] = {}
    for start in range(0, games, block):
        part = _timed(lambda g, s=start: _policy_game(env, "greedy", rng, seed + s + g), 0.0,
                      min_games=min(block, games - start))
        _add(ours, part)
        for w in workers:
            if w.name in errors:
                continue
            res = w.run(part["wall_s"], gin_seed + 100 * start)
            if "error" in res:
                errors[w.name] = res
            else:
                _add(gins[w.name], res)
                gins[w.name]["version"] = res.get("version")
    row: dict[str, Any] = {"ours": _rates(ours)}
    for name, total in gins.items():
        row[name] = errors.get(name) or _rates(total)
    return row


def presets() -> list[str]:
    return sorted(p.stem for p in (ROOT / "configs" / "rules").glob("*.yaml"))


def legal_plays_latency(players: int, games: int, seed: int = 0) -> dict[str, Any]:
    """``legal_plays(agent, 32)`` on every position of random-play games (caches cleared per call)."""
    from machiavelli_env import game, legal
    from machiavelli_env.cards import NUM_TYPES

    rng = np.random.default_rng(seed)
    times, sizes = [], []
    for g in range(games):
        s = game.new_game("classic", seed + g, players=players)
        while not s.done:
            legal.clear_caches()
            t0 = time.perf_counter()
            plays = game.legal_plays(s, s.current, 32)
            times.append(time.perf_counter() - t0)
            sizes.append(len(plays))
            k = int(rng.integers(len(plays) + 1))
            s = game.step(s, plays[k - 1] if k else np.zeros(NUM_TYPES, dtype=np.int64))
    t = np.array(times) * 1e3
    return {"players": players, "positions": len(t), "median_ms": float(np.median(t)),
            "p99_ms": float(np.percentile(t, 99)), "mean_ms": float(t.mean()), "max_ms": float(t.max()),
            "mean_plays": float(np.mean(sizes)), "share_at_limit": float(np.mean(np.array(sizes) >= 32))}


def step_split(policy: str, seconds: float, seed: int = 0) -> dict[str, Any]:
    """Microseconds per step (classic, 2 players) by component, from a run with timers."""
    import importlib

    import machiavelli_env
    from machiavelli_env import game
    from machiavelli_env.oracle import api as oracle_api

    env_module = importlib.import_module("machiavelli_env.env")
    clock = time.perf_counter
    spent = dict.fromkeys(("oracle", "legal plays", "best_play", "observation", "engine step"), 0.0)
    oracle_total = [0.0]
    saved = []

    def patch(owner: Any, name: str, key: str) -> None:
        fn = getattr(owner, name)
        saved.append((owner, name, fn))
        if key == "oracle":
            def timed(*args: Any, **kwargs: Any) -> Any:
                t0 = clock()
                try:
                    return fn(*args, **kwargs)
                finally:
                    dt = clock() - t0
                    oracle_total[0] += dt
                    spent["oracle"] += dt
        else:
            def timed(*args: Any, **kwargs: Any) -> Any:
                t0, o0 = clock(), oracle_total[0]
                try:
                    return fn(*args, **kwargs)
                finally:
                    spent[key] += clock() - t0 - (oracle_total[0] - o0)
        setattr(owner, name, timed)

    patch(oracle_api, "answer", "oracle")  # every question the public functions hand to the pipeline
    patch(oracle_api, "_direct_best", "oracle")  # best_play's and repack's one call into the extension
    patch(oracle_api, "_direct_repack", "oracle")
    patch(env_module.raw_env, "legal_plays", "legal plays")
    patch(env_module.raw_env, "best_play", "best_play")
    patch(env_module.raw_env, "observe", "observation")
    patch(game, "step", "engine step")
    try:
        env = machiavelli_env.env("classic")
        rng = np.random.default_rng(seed)
        _policy_game(env, policy, rng, seed + 10_000)
        for k in spent:
            spent[k] = 0.0
        res = _timed(lambda g: _policy_game(env, policy, rng, seed + g), seconds)
    finally:
        for owner, name, fn in reversed(saved):
            setattr(owner, name, fn)
    per_step = {k: v / res["steps"] * 1e6 for k, v in spent.items()}
    per_step["wrapper and loop"] = res["wall_s"] / res["steps"] * 1e6 - sum(per_step.values())
    return {"policy": policy, "steps": res["steps"], "us_per_step": per_step,
            "total_us_per_step": res["wall_s"] / res["steps"] * 1e6}


# ---------------------------------------------------------------------------------------------- report
def _fmt_rate(r: dict[str, Any]) -> str:
    if "error" in r:
        return f"unavailable ({r['error']})"
    return f"{r['steps_per_s']:8.0f} steps/s ({r['cpu_steps_per_s']:.0f} CPU) {r['games_per_s']:7.2f} games/s"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="short runs (about two minutes)")
    ap.add_argument("--presets", help="comma-separated presets (default: all of configs/rules)")
    ap.add_argument("--seconds", type=float, help="seconds per preset and policy (default 1 quick, 4 full)")
    ap.add_argument("--rounds", type=int, help="rounds of the gin comparison (default 2 quick, 3 full)")
    ap.add_argument("--games", type=int, help="games of ours per comparison round (default 20 quick, 100 full)")
    ap.add_argument("--block", type=int, default=5, help="our games between two gin turns in the comparison")
    ap.add_argument("--no-pin", action="store_true", help="do not pin the comparison to one CPU core")
    ap.add_argument("--gin-python", type=Path, default=DEFAULT_GIN_PYTHON, help="python of the gin venv")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, help="write every figure here")
    ap.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        _serve(args.worker)
        return 0

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    seconds = args.seconds or (1.0 if args.quick else 4.0)
    rounds = args.rounds or (2 if args.quick else 3)
    names = args.presets.split(",") if args.presets else presets()
    report: dict[str, Any] = {"machine": platform.platform(), "python": platform.python_version(),
                              "cpus": os.cpu_count(), "load_avg": os.getloadavg(), "seconds": seconds}

    print(f"== per preset ({seconds:g} s per policy; AEC env, observations every step) ==")
    per_preset = {}
    for name in names:
        row = {}
        for policy in ("greedy", "random"):
            row[policy] = run_policy(name, policy, seconds, args.seed)
            print(f"{name:24s} {policy:6s} {_fmt_rate(row[policy])}", flush=True)
        per_preset[name] = row
    report["presets"] = per_preset

    print("\n== legal_plays(agent, 32) latency (classic, random-play positions, caches cleared) ==")
    lat = [legal_plays_latency(p, 4 if args.quick else 12, args.seed) for p in (2, 4)]
    for r in lat:
        print(f"{r['players']} players: {r['positions']} positions, median {r['median_ms']:.3f} ms, "
              f"p99 {r['p99_ms']:.2f} ms, mean {r['mean_ms']:.2f} ms, max {r['max_ms']:.1f} ms "
              f"({r['mean_plays']:.1f} plays on average, {100 * r['share_at_limit']:.1f}% at the limit)")
    report["legal_plays_latency"] = lat

    print("\n== time per step, classic 2 players (microseconds; run with timers) ==")
    report["split"] = []
    for policy in ("greedy", "random"):
        sp = step_split(policy, seconds * 2, args.seed)
        report["split"].append(sp)
        parts = ", ".join(f"{k} {v:.0f}" for k, v in sp["us_per_step"].items())
        print(f"{policy:6s} total {sp['total_us_per_step']:.0f}: {parts}")

    games = args.games or (20 if args.quick else 100)
    print(f"\n== side by side ({rounds} rounds; in each, greedy self-play of classic 2 players, games with seeds "
          f"{args.seed}..{args.seed + games - 1} in blocks of {args.block}, each block followed by each gin for as "
          "long as it took) ==")
    gin_python = args.gin_python if args.gin_python.exists() else None
    if gin_python is None:
        print(f"no gin python at {args.gin_python}: see the module docstring to create the venv")
    pinned = None
    if not args.no_pin and hasattr(os, "sched_setaffinity"):
        allowed = sorted(os.sched_getaffinity(0))
        pinned = allowed[0]
        os.sched_setaffinity(0, {pinned})  # the gin workers started below inherit it
    report["pinned_core"] = pinned
    print("both sides pinned to CPU core", pinned) if pinned is not None else print("not pinned")
    workers = [Worker(gin_python, name) for name in WORKERS] if gin_python else []
    rows = []
    try:
        for r in range(rounds):
            row = compare_round(workers, games, max(args.block, 1), args.seed, args.seed + 100_000 * (r + 1))
            for name in WORKERS:
                row.setdefault(name, {"error": "no gin venv"})
            rows.append(row)
            print(f"round {r + 1}: ours           {_fmt_rate(row['ours'])}")
            for name in WORKERS:
                print(f"         {name:15s} {_fmt_rate(row[name])}", flush=True)
    finally:
        for w in workers:
            w.close()
    report["comparison"] = rows
    summary: dict[str, Any] = {}
    for name in WORKERS:
        ok = [row for row in rows if "error" not in row[name]]
        if not ok:
            continue
        wall = [row["ours"]["steps_per_s"] / row[name]["steps_per_s"] for row in ok]
        cpu = [row["ours"]["cpu_steps_per_s"] / row[name]["cpu_steps_per_s"] for row in ok]
        summary[name] = {"version": ok[0][name].get("version"),
                         "median_steps_per_s": float(np.median([row[name]["steps_per_s"] for row in ok])),
                         "ratio_wall": float(np.median(wall)), "ratio_cpu": float(np.median(cpu)),
                         "ratios_wall": wall, "ratios_cpu": cpu}
    ours = float(np.median([row["ours"]["steps_per_s"] for row in rows]))
    print(f"\nmachiavelli_v0 greedy self-play (classic, 2 players): median {ours:.0f} steps/s")
    for name, s in summary.items():
        verdict = "meets" if s["ratio_wall"] >= BAR else "below"
        print(f"  vs {name} {s['version']} random legal play: median {s['median_steps_per_s']:.0f} steps/s; "
              f"ratio {s['ratio_wall']:.2f}x wall, {s['ratio_cpu']:.2f}x CPU"
              + (f" ({verdict} the {BAR:g}x bar)" if name == "gin_pettingzoo" else ""))
    report["summary"] = {"ours_median_steps_per_s": ours, **summary}
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
