"""Training-speed benchmark: the working tree ("this") against a previous commit ("base"), side by side.

Usage::

    python benchmarks/train_speed.py [--baseline REV] [--quick] [--rounds N] [--json OUT]
                                     [--moves N] [--greedy-games N] [--updates N] [--seed S]

With ``--baseline REV`` the commit ``REV`` is checked out in a temporary git worktree (``git worktree
add --detach``), its C extensions are built there (``setup.py build_ext --inplace``) and the package
is made importable from that tree without installing it: symlinks inside the worktree give the
layout of pyproject.toml's ``package-dir`` (``machiavelli_env/agents`` -> ``agents``,
``machiavelli_env/training`` -> ``training``, ``machiavelli_env/presets`` -> ``configs/rules``,
``training/configs`` -> ``configs/train``). The worktree is removed at the end. Both sides run the same
way: every measurement is a fresh subprocess with ``PYTHONPATH=TREE`` and the tree as working
directory (the editable install's finder comes after ``PYTHONPATH``), so both start with cold oracle
caches; a probe checks first that each side imports its own package, extension, agents and training
code. "this" is the working tree as it is, with the extension already built in it (the script builds
nothing there; it warns when the built extension is older than its C sources, and when the package's
files or ``HEAD`` changed during the run: another job editing the tree makes "this" a mix of versions).

Measurements (all timed code is the same file for both sides: this script and ``benchmarks/env.py``):

1. **CandidatePlays random play** on the presets ``classic``, ``classic_jokers``, ``spanish_comodines``
   and ``classic_4p`` (players from the preset): ``CandidatePlays(machiavelli_env.env(rules=P),
   limit=32)``, each move uniform over the action mask (``rng = default_rng(seed of the game)``),
   whole games from seeds ``--seed, --seed + 1, ...`` until ``--moves`` agent moves have been played
   (the dead steps after a game's end are not counted), after one warm-up game on another seed.
   Moves/s of process CPU time (``time.process_time``) and of wall time. Both sides play the same
   games when their legal-play lists are the same (the moves and games played are compared and a
   difference is reported).
2. **PPO learner steps/s** of ``python -m machiavelli_env train --config CFG --out DIR --no-progress``
   with the 2-player classic PPO settings of ``configs/train/default.yaml``, without its warm start
   (16 games x 32 steps per worker and update, 4 epochs x 4 minibatches), ``--updates`` updates (6,
   quick 3), evaluation only at the end (2 games against random): from the shipped ``ppo_classic_2p``
   checkpoint with 1 and 2 rollout workers, and from scratch with 2 workers (and 1 in the full run).
   From ``train.jsonl``:
   learner steps per second of the summed ``rollout_s``, learner steps per second of the last
   ``elapsed_s`` (the whole run: rollouts, PPO updates, weight syncs), and the mean ``update_s``; and,
   steadier on a busy machine, learner steps per CPU second of the whole process tree (the trainer and
   its rollout workers, ``RUSAGE_CHILDREN``; start-up, imports and the final evaluation included).
3. **Greedy self-play** of classic with 2 players through the AEC env, each move
   ``env.unwrapped.best_play(agent)`` or a draw (``benchmarks/env.py``'s ``_policy_game``), on the
   games dealt from seeds ``--seed .. --seed + --greedy-games - 1`` after a warm-up game; steps/s of
   CPU and wall time.
4. **Peers**, when the gin virtual environment exists (``.bench-venv-gin``, see ``benchmarks/env.py``):
   random legal play in PettingZoo's ``gin_rummy_v4`` (pettingzoo 1.26.1) and OpenSpiel's
   ``gin_rummy`` (``observation_tensor`` at each decision), run by ``benchmarks/env.py``'s gin workers.
   In each round ``gin_rummy_v4`` plays right after the CandidatePlays classic pair, and OpenSpiel
   right after the greedy self-play pair, each for as long as "this" side's measurement took (whole
   games, so a little longer); the reported ratios are CandidatePlays classic / ``gin_rummy_v4`` and
   greedy self-play / OpenSpiel ``gin_rummy``.

Interleaving: for each measurement, base and this run alternately for ``--rounds`` rounds (default 2,
quick 1), base first in odd rounds and this first in even ones, so that the machine's speed drift
(up to 1.6x between minutes on the shared 2-core VM) falls on both sides alike. Reported: the median
of each side over the rounds and the ratio this/base (above 1: this is faster, except for
``update_s``, a time). Without ``--baseline`` only "this" is measured. Nothing is pinned to a core:
the measurements run one at a time (the PPO runs use both cores). Timing figures depend on the
machine and its load: compare the ratios.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import platform
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = Path(__file__).resolve()
PRESETS = ("classic", "classic_jokers", "spanish_comodines", "classic_4p")
GIN_PYTHON = ROOT / ".bench-venv-gin" / "bin" / "python"
#: symlinks that give a bare checkout the installed package layout (pyproject.toml's package-dir)
LINKS = {"machiavelli_env/agents": "../agents", "machiavelli_env/training": "../training",
         "machiavelli_env/presets": "../configs/rules", "training/configs": "../configs/train"}
TRAIN_CONFIG = """\
name: {name}
seed: 1
rules: classic
players: 2
updates: {updates}
save_every: 100
{init}rollout: {{workers: {workers}, games: 16, steps: 32, take_wins: true}}
policy: {{limit: 32, hidden: 256, cand_hidden: 128, lookahead: false}}
ppo: {{lr: 1.0e-3, gamma: 0.995, gae_lambda: 0.95, clip: 0.2, epochs: 4, minibatches: 4, ent_coef: 0.003, shaping: 0.0}}
pool: {{heuristics: {{random: 1, greedy: 1, patient: 1}}, self_play: [0.0, 0.3], latest: 0.5, snapshot_every: 10, \
max_snapshots: 8}}
eval: {{every: 1000, games: 2, opponents: [random]}}
"""


@functools.cache
def _bench_env() -> ModuleType:
    """``benchmarks/env.py`` of this checkout, imported as a module (it imports machiavelli_env lazily)."""
    spec = importlib.util.spec_from_file_location("bench_env", ROOT / "benchmarks" / "env.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------------------------- child side
# These run in a subprocess with PYTHONPATH=TREE: whatever machiavelli_env that tree holds.
def candidates_env(preset: str) -> Any:
    """``CandidatePlays(machiavelli_env.env(rules=preset), limit=32)``, the env that part 1 plays."""
    import machiavelli_env
    from machiavelli_env.wrappers import CandidatePlays

    return CandidatePlays(machiavelli_env.env(rules=preset), limit=32)


def candidate_game(env: Any, seed: int) -> int:
    """One game of uniformly random valid actions on ``env`` (dealt from ``seed``, actions drawn from
    a generator seeded with it), in the loop that times its ``gin_rummy_v4`` peer: its agent moves."""
    import numpy as np

    return _bench_env().random_masked_game(env, np.random.default_rng(seed), seed)


def candidate_games(env: Any, moves: int, seed: int) -> tuple[int, int]:
    """Whole games from seeds ``seed, seed + 1, ...`` until ``moves`` agent moves: (moves, games)."""
    played = games = 0
    while played < moves:
        played += candidate_game(env, seed + games)
        games += 1
    return played, games


def measure_candidates(preset: str, moves: int, seed: int) -> dict[str, Any]:
    """CandidatePlays random play on ``preset``: whole games from seeds ``seed, seed + 1, ...`` until
    ``moves`` agent moves; CPU and wall moves/s."""
    env = candidates_env(preset)
    candidate_game(env, seed + 10_000)  # warm-up: imports, the oracle's first tables
    w0, c0 = time.perf_counter(), time.process_time()
    played, games = candidate_games(env, moves, seed)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return {"preset": preset, "moves": played, "games": games, "wall_s": wall, "cpu_s": cpu,
            "per_s_wall": played / wall, "per_s_cpu": played / cpu}


def measure_greedy(games: int, seed: int) -> dict[str, Any]:
    """Greedy self-play of classic (2 players), ``benchmarks/env.py``'s loop, on the games of seeds
    ``seed .. seed + games - 1``."""
    import numpy as np

    import machiavelli_env

    bench = _bench_env()
    env = machiavelli_env.env("classic")
    rng = np.random.default_rng(seed)
    bench._policy_game(env, "greedy", rng, seed + 10_000)  # warm-up
    res = bench._timed(lambda g: bench._policy_game(env, "greedy", rng, seed + g), 0.0, min_games=games)
    return {"moves": res["steps"], "games": res["games"], "wall_s": res["wall_s"], "cpu_s": res["cpu_s"],
            "per_s_wall": res["steps_per_s"], "per_s_cpu": res["cpu_steps_per_s"]}


def probe() -> dict[str, Any]:
    """Where each part of the package comes from (checked against the tree by the parent); the presets
    and training configs are data folders, found by path."""
    import machiavelli_env._obs
    import machiavelli_env.agents
    import machiavelli_env.oracle._dp
    import machiavelli_env.training
    import machiavelli_env.training.cli

    from machiavelli_env import rules

    mods = {"machiavelli_env": machiavelli_env, "oracle._dp": machiavelli_env.oracle._dp,
            "_obs": machiavelli_env._obs, "agents": machiavelli_env.agents, "training": machiavelli_env.training}
    out = {name: str(Path(mod.__file__ or "").resolve()) for name, mod in mods.items()}
    out["presets"] = str(next(d for d in rules.PRESET_DIRS if d.is_dir()).resolve())
    out["training configs"] = str(machiavelli_env.training.cli.CONFIG_DIR.resolve())
    return out


def _child(args: argparse.Namespace) -> int:
    if args.measure == "probe":
        res = probe()
    elif args.measure == "candidates":
        res = measure_candidates(args.preset, args.moves, args.seed)
    else:
        res = measure_greedy(args.greedy_games, args.seed)
    print(json.dumps(res))
    return 0


# ---------------------------------------------------------------------------------------------- parent side
class Tree:
    """One side of the comparison: a checkout whose package runs with ``PYTHONPATH`` set to it."""

    def __init__(self, label: str, path: Path, commit: str):
        self.label, self.path, self.commit = label, path, commit

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(self.path)
        env.pop("PYTHONSTARTUP", None)
        return env

    def run_child(self, *extra: str, timeout: float = 1800) -> dict[str, Any]:
        cmd = [sys.executable, str(SCRIPT), "--child", *extra]
        proc = subprocess.run(cmd, cwd=self.path, env=self.env(), capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            raise RuntimeError(f"{self.label}: {' '.join(extra)} failed:\n{proc.stderr[-3000:]}")
        return json.loads(proc.stdout.strip().splitlines()[-1])

    def train(self, config: str, workdir: Path) -> dict[str, Any]:
        """One ``python -m machiavelli_env train`` run; figures from its ``train.jsonl``."""
        cfg, out = workdir / "config.yaml", workdir / "out"
        workdir.mkdir(parents=True)
        cfg.write_text(config)
        cmd = [sys.executable, "-m", "machiavelli_env", "train", "--config", str(cfg), "--out", str(out),
               "--no-progress"]
        w0, r0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(cmd, cwd=self.path, env=self.env(), capture_output=True, text=True, timeout=3600)
        wall, r1 = time.perf_counter() - w0, resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)  # the process and its reaped workers
        if proc.returncode != 0:
            raise RuntimeError(f"{self.label}: train failed:\n{proc.stdout[-1500:]}\n{proc.stderr[-3000:]}")
        rows = [json.loads(ln) for ln in (out / "train.jsonl").read_text().splitlines() if ln.strip()]
        rows = [r for r in rows if "update" in r]
        steps = rows[-1]["learner_steps"]
        rollout = sum(r["rollout_s"] for r in rows)
        return {"updates": len(rows), "learner_steps": steps, "rollout_s": rollout,
                "elapsed_s": rows[-1]["elapsed_s"], "process_wall_s": wall, "process_cpu_s": cpu,
                "steps_per_cpu_s": steps / cpu,
                "steps_per_rollout_s": steps / rollout, "steps_per_elapsed_s": steps / rows[-1]["elapsed_s"],
                "mean_update_s": statistics.fmean(r["update_s"] for r in rows),
                "per_update": [{k: r[k] for k in ("learner_steps", "elapsed_s", "rollout_s", "update_s")}
                               for r in rows]}


def _git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", "--no-optional-locks", *args], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout.strip()


def make_base(rev: str, tmp: Path) -> Tree:
    """Check ``rev`` out in a worktree under ``tmp``, build its extensions, link the package layout."""
    commit = _git("rev-parse", "--verify", f"{rev}^{{commit}}")
    path = tmp / "base"
    _git("worktree", "add", "--detach", str(path), commit)
    print(f"building base {commit[:10]} in {path} ...", flush=True)
    proc = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=path,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"base build failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    for link, target in LINKS.items():
        if not (path / link).exists():
            os.symlink(target, path / link)
    return Tree("base", path, commit)


def remove_base(path: Path) -> None:
    try:
        _git("worktree", "remove", "--force", str(path))
    except subprocess.CalledProcessError as exc:
        print(f"warning: git worktree remove {path} failed: {exc.stderr.strip()}", file=sys.stderr)
        shutil.rmtree(path, ignore_errors=True)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True)


def check_probe(tree: Tree) -> dict[str, Any]:
    where = tree.run_child("--measure", "probe")
    root = str(tree.path.resolve())
    wrong = {k: v for k, v in where.items() if not v.startswith(root + os.sep)}
    if wrong:
        raise RuntimeError(f"{tree.label}: modules imported from outside {root}: {wrong}")
    return where


def stale_extension(tree: Path) -> list[str]:
    """Extensions of ``tree`` older than one of their C sources (built before the last source edit)."""
    stale = []
    for pattern, sources in (("machiavelli_env/oracle/_dp.*.so", ["machiavelli_env/oracle/_dp.c",
                                                                   "machiavelli_env/oracle/csrc"]),
                             ("machiavelli_env/_obs.*.so", ["machiavelli_env/_obs.c"])):
        built = list(tree.glob(pattern))
        files = [p for s in sources for p in ([tree / s] if (tree / s).is_file() else (tree / s).glob("*.[ch]"))]
        newest = max((p.stat().st_mtime for p in files), default=0.0)
        if not built or min(p.stat().st_mtime for p in built) < newest:
            stale.append(pattern)
    return stale


def code_fingerprint(tree: Path) -> dict[str, tuple[int, int]]:
    """Size and modification time of every source, extension, config and checkpoint file of the package
    in ``tree``: compared at the start and the end, to tell whether the tree changed during the run."""
    out = {}
    for top in ("machiavelli_env", "agents", "training", "configs"):
        for dirpath, dirnames, filenames in os.walk(tree / top):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for f in filenames:
                if f.endswith((".py", ".c", ".h", ".so", ".yaml", ".safetensors")):
                    st = (Path(dirpath) / f).stat()
                    out[str(Path(dirpath, f).relative_to(tree))] = (st.st_size, st.st_mtime_ns)
    return out


def _median(xs: list[float]) -> float:
    return float(statistics.median(xs)) if xs else float("nan")


class Results:
    """Per metric and side, the value of each round."""

    def __init__(self) -> None:
        self.metrics: dict[str, dict[str, Any]] = {}
        self.raw: dict[str, dict[str, list[dict[str, Any]]]] = {}

    def add(self, metric: str, unit: str, side: str, value: float, higher_is_better: bool = True) -> None:
        m = self.metrics.setdefault(metric, {"unit": unit, "higher_is_better": higher_is_better,
                                             "base": [], "this": []})
        m[side].append(value)

    def summary(self) -> dict[str, Any]:
        out = {}
        for name, m in self.metrics.items():
            b, t = _median(m["base"]), _median(m["this"])
            out[name] = m | {"base_median": b if m["base"] else None, "this_median": t,
                             "ratio": t / b if m["base"] and b > 0 else None}
        return out


def run_pairs(sides: list[Tree], rounds: int, fn: Callable[[Tree], dict[str, Any]], label: str,
              after_round: Callable[[int, dict[str, dict[str, Any]]], None] | None = None) -> list[dict[str, Any]]:
    """``fn`` on each side, alternately, for ``rounds`` rounds (base first in odd rounds); per round the
    results by side."""
    out = []
    for r in range(rounds):
        order = sides if r % 2 == 0 else sides[::-1]
        res: dict[str, dict[str, Any]] = {}
        for tree in order:
            res[tree.label] = fn(tree)
        print(f"  {label} round {r + 1}: " + ", ".join(f"{k} {_short(v)}" for k, v in sorted(res.items())),
              flush=True)
        if after_round is not None:
            after_round(r, res)
        out.append(res)
    return out


def _short(res: dict[str, Any]) -> str:
    if "per_s_cpu" in res:
        return f"{res['per_s_cpu']:.0f}/s CPU, {res['per_s_wall']:.0f}/s wall ({res['moves']} moves)"
    return f"{res['steps_per_rollout_s']:.0f} steps/s rollout, {res['steps_per_elapsed_s']:.0f} run"


def _fmt(v: float | None, unit: str) -> str:
    if v is None or v != v:
        return "-"
    return f"{v:.2f}" if unit == "s" else f"{v:.0f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", metavar="REV", help="commit to compare with (built in a temporary git worktree)")
    ap.add_argument("--quick", action="store_true", help="shorter runs: about 5 minutes with --baseline")
    ap.add_argument("--rounds", type=int, help="rounds of each base/this pair (default 2, quick 1)")
    ap.add_argument("--moves", type=int,
                    help="CandidatePlays agent moves per preset and run (default 15000, quick 5000)")
    ap.add_argument("--greedy-games", type=int, help="greedy self-play games per run (default 400, quick 100)")
    ap.add_argument("--updates", type=int, help="PPO updates per training run (default 6, quick 3)")
    ap.add_argument("--seed", type=int, default=0,
                    help="first game seed of CandidatePlays and greedy self-play (default 0)")
    ap.add_argument("--gin-python", type=Path, default=GIN_PYTHON,
                    help="python of the gin venv for the peers (default .bench-venv-gin/bin/python)")
    ap.add_argument("--json", type=Path, metavar="OUT", help="write every figure and the machine info here")
    # child mode (internal)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--measure", choices=("probe", "candidates", "greedy"), help=argparse.SUPPRESS)
    ap.add_argument("--preset", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return _child(args)

    quick = args.quick
    rounds = args.rounds or (1 if quick else 2)
    moves = args.moves or (5000 if quick else 15000)
    greedy_games = args.greedy_games or (100 if quick else 400)
    updates = args.updates or (3 if quick else 6)
    t_start = time.perf_counter()
    report: dict[str, Any] = {
        "machine": {"platform": platform.platform(), "python": platform.python_version(),
                    "processor": platform.processor(), "cpus": os.cpu_count(), "load_avg_start": os.getloadavg()},
        "settings": {"quick": quick, "rounds": rounds, "moves": moves, "greedy_games": greedy_games,
                     "updates": updates, "seed": args.seed, "presets": list(PRESETS)},
    }
    head = _git("rev-parse", "HEAD")
    dirty = bool(_git("status", "--porcelain", "--untracked-files=no"))
    this = Tree("this", ROOT, head)
    fingerprint = code_fingerprint(ROOT)
    report["commits"] = {"this": head, "this_dirty": dirty, "base": None}
    stale = stale_extension(ROOT)
    if stale:
        print(f"warning: the working tree's {', '.join(stale)} is older than its C sources: "
              "run `python setup.py build_ext --inplace` first", file=sys.stderr)
    report["this_stale_extension"] = stale

    # SIGTERM: leave through the finally below (worktree and temporary files removed)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp = Path(tempfile.mkdtemp(prefix="train_speed_"))
    base: Tree | None = None
    results = Results()
    peers: dict[str, list[dict[str, Any]]] = {"gin_pettingzoo": [], "gin_openspiel": []}
    workers: dict[str, Any] = {}
    try:
        if args.baseline:
            base = make_base(args.baseline, tmp)
            report["commits"]["base"] = base.commit
        sides = [base, this] if base else [this]
        report["probe"] = {t.label: check_probe(t) for t in sides}
        print(f"this: {head[:10]}{' + uncommitted changes' if dirty else ''}"
              + (f"; base: {base.commit[:10]} ({args.baseline})" if base else "; no baseline"))
        print(f"{rounds} round(s); {moves} CandidatePlays moves per preset, {greedy_games} greedy games, "
              f"{updates} PPO updates per run", flush=True)

        if args.gin_python.exists():
            bench = _bench_env()
            workers = {name: bench.Worker(args.gin_python, name) for name in peers}
        else:
            print(f"peers: no gin python at {args.gin_python} (see benchmarks/env.py): not installed")

        def peer_after(name: str, seed: int) -> Callable[[int, dict[str, dict[str, Any]]], None]:
            def run(r: int, res: dict[str, dict[str, Any]]) -> None:
                if name not in workers:
                    return
                got = workers[name].run(max(1.0, res["this"]["wall_s"]), seed + 1000 * r)
                peers[name].append(got)
                if "error" in got:
                    print(f"  {name}: {got['error']}")
                else:
                    print(f"  {name} round {r + 1}: {got['cpu_steps_per_s']:.0f}/s CPU, "
                          f"{got['steps_per_s']:.0f}/s wall", flush=True)
            return run

        raw: dict[str, Any] = {}
        # 1. CandidatePlays random play
        for preset in PRESETS:
            print(f"CandidatePlays {preset} ...", flush=True)
            rows = run_pairs(sides, rounds, lambda t, p=preset: t.run_child(
                "--measure", "candidates", "--preset", p, "--moves", str(moves), "--seed", str(args.seed)),
                preset, peer_after("gin_pettingzoo", args.seed) if preset == "classic" else None)
            raw[f"candidates_{preset}"] = rows
            for row in rows:
                for side, res in row.items():
                    results.add(f"CandidatePlays {preset} moves/s CPU", "/s", side, res["per_s_cpu"])
                    results.add(f"CandidatePlays {preset} moves/s wall", "/s", side, res["per_s_wall"])
            if base and any(row["base"]["moves"] != row["this"]["moves"] or row["base"]["games"] != row["this"]["games"]
                            for row in rows):
                print(f"  note: {preset}: base and this played different games (different legal-play lists)")

        # 2. PPO training runs
        ckpt = "agents/checkpoints/ppo_classic_2p.safetensors"
        runs = [("ckpt", 1), ("ckpt", 2), ("scratch", 2)] + ([] if quick else [("scratch", 1)])
        count = [0]
        for kind, w in runs:
            print(f"PPO {kind} W={w} ({updates} updates) ...", flush=True)

            def train(t: Tree, kind: str = kind, w: int = w) -> dict[str, Any]:
                count[0] += 1
                init = f"init: {t.path / ckpt}\n" if kind == "ckpt" else ""
                cfg = TRAIN_CONFIG.format(name=f"speed_{kind}", updates=updates, init=init, workers=w)
                return t.train(cfg, tmp / "train" / f"{count[0]:02d}_{t.label}_{kind}_w{w}")

            rows = run_pairs(sides, rounds, train, f"{kind} W={w}")
            raw[f"ppo_{kind}_w{w}"] = rows
            for row in rows:
                for side, res in row.items():
                    name = f"PPO {kind} W={w}"
                    results.add(f"{name} learner steps/s of rollout", "/s", side, res["steps_per_rollout_s"])
                    results.add(f"{name} learner steps/s of run", "/s", side, res["steps_per_elapsed_s"])
                    results.add(f"{name} mean update_s", "s", side, res["mean_update_s"], higher_is_better=False)
                    results.add(f"{name} learner steps/CPU s, all", "/s", side, res["steps_per_cpu_s"])

        # 3. greedy self-play
        print(f"greedy self-play classic 2p ({greedy_games} games) ...", flush=True)
        rows = run_pairs(sides, rounds, lambda t: t.run_child(
            "--measure", "greedy", "--greedy-games", str(greedy_games), "--seed", str(args.seed)),
            "greedy", peer_after("gin_openspiel", args.seed + 500_000))
        raw["greedy"] = rows
        for row in rows:
            for side, res in row.items():
                results.add("greedy self-play steps/s CPU", "/s", side, res["per_s_cpu"])
                results.add("greedy self-play steps/s wall", "/s", side, res["per_s_wall"])
        report["raw"] = raw
    finally:
        for wk in workers.values():
            wk.close()
        if (tmp / "base").exists():  # also after a failed build
            remove_base(tmp / "base")
        shutil.rmtree(tmp, ignore_errors=True)

    # ------------------------------------------------------------------ report
    summary = results.summary()
    report["metrics"] = summary
    width = max(len(k) for k in summary) + 2
    print(f"\n== medians over {rounds} round(s); ratio = this/base (above 1: this faster; for update_s, "
          "below 1: this faster) ==")
    print(f"{'metric':{width}s}{'base':>10s}{'this':>10s}{'ratio':>9s}")
    for name, m in summary.items():
        ratio = f"{m['ratio']:.2f}x" if m["ratio"] else "-"
        print(f"{name:{width}s}{_fmt(m['base_median'], m['unit']):>10s}{_fmt(m['this_median'], m['unit']):>10s}"
              f"{ratio:>9s}")

    peer_rows: dict[str, Any] = {}
    ours_for = {"gin_pettingzoo": ("gin_rummy_v4 random legal play", "CandidatePlays classic"),
                "gin_openspiel": ("OpenSpiel gin_rummy random play", "greedy self-play")}
    print("\npeers (same machine, interleaved; ratio = ours / peer)")
    for name, (title, ours) in ours_for.items():
        ok = [p for p in peers[name] if "error" not in p]
        if not ok:
            why = peers[name][0]["error"] if peers[name] else "not installed"
            print(f"{title:{width}s} {why}")
            peer_rows[name] = {"error": why}
            continue
        cpu, wall = _median([p["cpu_steps_per_s"] for p in ok]), _median([p["steps_per_s"] for p in ok])
        row: dict[str, Any] = {"title": title, "version": ok[0].get("version"), "cpu_steps_per_s": cpu,
                               "wall_steps_per_s": wall, "runs": peers[name], "ours": ours}
        print(f"{title + ' ' + str(row['version']):{width}s}{cpu:10.0f}/s CPU {wall:8.0f}/s wall")
        for side in ("base", "this"):
            c = summary.get(f"{ours} moves/s CPU") or summary.get(f"{ours} steps/s CPU")
            wl = summary.get(f"{ours} moves/s wall") or summary.get(f"{ours} steps/s wall")
            if c is None or wl is None or not c[side]:
                continue
            rc, rw = c[f"{side}_median"] / cpu, wl[f"{side}_median"] / wall
            row[f"ratio_{side}_cpu"], row[f"ratio_{side}_wall"] = rc, rw
            print(f"  {ours} ({side}) / {name}: {rc:.2f}x CPU, {rw:.2f}x wall")
        peer_rows[name] = row
    report["peers"] = peer_rows
    head_end, fp_end = _git("rev-parse", "HEAD"), code_fingerprint(ROOT)
    changed = sorted(k for k in fingerprint.keys() | fp_end.keys() if fingerprint.get(k) != fp_end.get(k))
    report["commits"]["this_end"] = head_end
    report["this_changed_during_run"] = changed
    if changed or head_end != head:
        print(f"\nwarning: the working tree changed during the run (HEAD {head[:10]} -> {head_end[:10]}; "
              f"{len(changed)} package files changed, e.g. {', '.join(changed[:4])}): \"this\" mixes versions")
    report["machine"]["load_avg_end"] = os.getloadavg()
    report["total_wall_s"] = time.perf_counter() - t_start
    la = report["machine"]["load_avg_start"]
    print(f"\n{report['machine']['platform']}, {os.cpu_count()} CPUs, load average at start "
          f"{la[0]:.2f} {la[1]:.2f} {la[2]:.2f}; total {report['total_wall_s']:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
