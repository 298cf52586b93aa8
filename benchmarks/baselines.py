"""Regenerate the results table of BENCHMARK.md: the baselines under the benchmark protocol.

Usage::

    python benchmarks/baselines.py [--workers N] [--check] [--print] [--file BENCHMARK.md]

Plays, with the protocol's seeds and game counts (the constants below, described in BENCHMARK.md):

1. two players (``classic_2p``): every candidate against every standard opponent, 2,000
   seat-rotated games per pair (:func:`agents.arena.evaluate`; each row is also
   ``machiavelli eval --agents A,B --rules classic_2p --games 2000 --seed 1000``);
2. four players (``classic_4p``): every candidate against three greedy bots, 1,000 games;
3. the league ``configs/league/benchmark.yaml`` (openskill ratings; :mod:`training.league`).

Candidates are the rule-based baselines and ``ppo``, the shipped checkpoint for the player count
(``agents/checkpoints``), included as soon as it loads; while it does not, the table says why.
The text between the ``baselines`` markers of ``--file`` is replaced; everything else is kept.
``--check`` recomputes and exits 1 when the file's table differs (nothing is written). ``--quick``
plays a few games only, to try the script (it refuses to write the real BENCHMARK.md). Games are
deterministic, so ``--workers`` changes only the time taken.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from machiavelli_env.agents.arena import ENV_ID, evaluate  # noqa: E402
from machiavelli_env.agents.registry import make_agent  # noqa: E402

from machiavelli_env import __version__  # noqa: E402
from machiavelli_env.rules import Rules  # noqa: E402

# ---------------------------------------------------------------------------------------- protocol
PRESET_2P, PRESET_4P = "classic_2p", "classic_4p"
OPPONENTS = ("random", "greedy", "patient")  # the standard opponents
CANDIDATES = ("random", "greedy", "greedy_points", "patient", "ppo")
GAMES_2P, SEED_2P = 2000, 1000
GAMES_4P, SEED_4P = 1000, 2000
TABLE_4P = "greedy"  # the three other seats of the four-player table
LEAGUE_CONFIG = ROOT / "configs" / "league" / "benchmark.yaml"
QUICK = {"games_2p": 10, "games_4p": 4, "league_games": 16}

BEGIN = "<!-- baselines:begin -->"
END = "<!-- baselines:end -->"
PLOT = ROOT / "benchmarks" / "league_ratings.png"


@dataclass(frozen=True)
class Job:
    """One seat-rotated series: ``agents`` listed once per seat."""

    preset: str
    agents: tuple[str, ...]
    games: int
    seed: int


def _run_job(job: Job) -> tuple[Job, dict[str, Any], float]:
    rules = Rules.load(job.preset)
    agents = [make_agent(a, rules) for a in job.agents]
    t = time.process_time()
    report = evaluate(agents, rules, job.games, job.seed)
    return job, report, time.process_time() - t


def ppo_status(preset: str) -> str | None:
    """None when the shipped ``ppo`` checkpoint exists for ``preset`` (it must then load), else why not."""
    try:
        from machiavelli_env.agents.ppo import CheckpointError, shipped_checkpoint
    except ImportError as exc:
        return f"agents.ppo is not available ({exc})"
    rules = Rules.load(preset)
    try:
        shipped_checkpoint(rules.players)
    except CheckpointError as exc:
        return str(exc)
    make_agent("ppo", rules)  # a shipped checkpoint that does not load is an error, not a missing row
    return None


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _ci(s: dict[str, Any]) -> str:
    lo, hi = s["ci95"]
    return f"{_pct(lo)}–{_pct(hi)}"


def build_jobs(games_2p: int, games_4p: int, ppo_2p: bool, ppo_4p: bool) -> list[Job]:
    """The series to play: 2-player pairs (each unordered pair once) and 4-player tables."""
    cands = [c for c in CANDIDATES if c != "ppo" or ppo_2p]
    pairs: list[tuple[str, str]] = []
    for c in cands:
        for o in OPPONENTS:
            if c != o and (c, o) not in pairs and (o, c) not in pairs:
                pairs.append((c, o))
    jobs = [Job(PRESET_2P, p, games_2p, SEED_2P) for p in pairs]
    for c in CANDIDATES:
        if c == TABLE_4P or (c == "ppo" and not ppo_4p):
            continue
        jobs.append(Job(PRESET_4P, (c, TABLE_4P, TABLE_4P, TABLE_4P), games_4p, SEED_4P))
    return jobs


def run_league_part(league_games: int, with_ppo: bool, out: Path) -> tuple[Any, Any, str]:
    """The benchmark league (ppo left out unless it loads for every player count)."""
    from machiavelli_env.training.league import load_config, run_league

    config = load_config(LEAGUE_CONFIG)
    if not with_ppo:
        config.pool = {k: v for k, v in config.pool.items() if not v.startswith("ppo")}
    config.games = league_games
    run = run_league(config, out, progress=False)
    return config, run.ratings, ", ".join(config.pool)


def tables(results: dict[Job, dict[str, Any]], league: tuple[Any, Any, str], notes: list[str],
           games_2p: int, games_4p: int) -> str:
    """The Markdown between the markers."""
    from machiavelli_env.training.ratings import ratings_table

    config, ratings, pool = league
    out = [f"_Generated by `python benchmarks/baselines.py` (machiavelli-env {__version__}, env `{ENV_ID}`); "
           "do not edit by hand._", ""]
    out += [f"**Two players** (`{PRESET_2P}`): {games_2p:,} seat-rotated games per pair "
            f"({games_2p // 2:,} deals, each played from both seats), seed {SEED_2P}.", "",
            "| agent | opponent | win rate | 95% CI | draws | mean penalty points (agent / opponent) |",
            "|---|---|---:|---|---:|---|"]
    pairs = {job.agents: rep for job, rep in results.items() if job.preset == PRESET_2P}
    for c in CANDIDATES:
        for o in OPPONENTS:
            if c == o:
                continue
            if (c, o) in pairs:
                me, them = pairs[(c, o)]["agents"]
            elif (o, c) in pairs:
                them, me = pairs[(o, c)]["agents"]
            else:
                continue
            out.append(f"| {c} | {o} | {_pct(me['win_rate'])} | {_ci(me)} | {me['draws']} | "
                       f"{me['mean_penalty_points']:.1f} / {them['mean_penalty_points']:.1f} |")
    out += ["", f"**Four players** (`{PRESET_4P}`): the agent against three {TABLE_4P} bots, {games_4p:,} "
            f"seat-rotated games ({games_4p // 4:,} deals, the agent in each seat once), seed {SEED_4P}; "
            "a fair share is 25%.", "",
            f"| agent | win rate | 95% CI | draws | mean penalty points (agent / each {TABLE_4P}) |",
            "|---|---:|---|---:|---|"]
    for job, rep in results.items():
        if job.preset != PRESET_4P:
            continue
        me, rest = rep["agents"][0], rep["agents"][1:]
        others = sum(a["mean_penalty_points"] for a in rest) / len(rest)
        out.append(f"| {job.agents[0]} | {_pct(me['win_rate'])} | {_ci(me)} | {me['draws']} | "
                   f"{me['mean_penalty_points']:.1f} / {others:.1f} |")
    games = ratings.history.shape[0] - 1
    out += ["", f"**League** (`configs/league/{LEAGUE_CONFIG.name}`): {pool}; classic rules, "
            f"{' and '.join(map(str, sorted(set(config.players))))} players, {games:,} games, seed {config.seed}; "
            "openskill Plackett-Luce ratings over the finishing order (ordinal = mu − 3 sigma).", "",
            ratings_table(ratings), "", f"![League ratings over games](benchmarks/{PLOT.name})"]
    if notes:
        out += [""] + [f"_{n}_" for n in notes]
    return "\n".join(out)


def splice(text: str, table: str, path: Path) -> str:
    """``text`` with the part between the markers replaced by ``table``."""
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if len(pattern.findall(text)) != 1:
        raise SystemExit(f"{path}: needs exactly one {BEGIN} ... {END} block")
    return pattern.sub(lambda _m: f"{BEGIN}\n{table}\n{END}", text)


def table_in(text: str) -> str | None:
    """The table between the markers of ``text`` (None when there is no marked block)."""
    m = re.search(re.escape(BEGIN) + r"\n(.*?)\n" + re.escape(END), text, re.S)
    return m.group(1) if m else None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--file", type=Path, default=ROOT / "BENCHMARK.md", help="file whose table is rewritten")
    p.add_argument("--workers", type=int, default=min(4, os.cpu_count() or 1), help="processes (default: CPUs, <= 4)")
    p.add_argument("--check", action="store_true", help="recompute and compare with the file; write nothing")
    p.add_argument("--print", dest="print_only", action="store_true", help="print the table; write nothing")
    p.add_argument("--quick", action="store_true", help="a few games only, to try the script")
    args = p.parse_args(argv)
    if args.quick and not (args.print_only or args.check) and args.file.resolve() == (ROOT / "BENCHMARK.md").resolve():
        p.error("--quick would overwrite BENCHMARK.md with a few games' results; give --file or --print")
    if args.workers < 1:
        p.error("--workers must be at least 1")
    text = args.file.read_text(encoding="utf-8") if args.file.exists() else None
    if text is None and not args.print_only:
        p.error(f"{args.file} does not exist")
    games_2p, games_4p = (QUICK["games_2p"], QUICK["games_4p"]) if args.quick else (GAMES_2P, GAMES_4P)

    notes = []
    status = {preset: ppo_status(preset) for preset in (PRESET_2P, PRESET_4P)}
    for preset, why in status.items():
        if why is not None:
            notes.append(f"ppo ({preset}) not included: {why}.")
    jobs = build_jobs(games_2p, games_4p, status[PRESET_2P] is None, status[PRESET_4P] is None)
    jobs.sort(key=lambda j: ("random" not in j.agents, j.preset))  # the slow series first
    t0 = time.time()
    results: dict[Job, dict[str, Any]] = {}
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        league_dir = Path(tempfile.mkdtemp(prefix="benchmark_league_"))
        with_ppo = all(v is None for v in status.values())
        from machiavelli_env.training.league import load_config

        league_games = QUICK["league_games"] if args.quick else load_config(LEAGUE_CONFIG).games
        league_future = pool.submit(run_league_part, league_games, with_ppo, league_dir)
        for job, report, cpu in pool.map(_run_job, jobs):
            results[job] = report
            print(f"{job.preset} {','.join(job.agents)}: {job.games} games, {cpu:.0f} s CPU", file=sys.stderr)
        league = league_future.result()
    print(f"all series and the league: {time.time() - t0:.0f} s wall with {args.workers} workers", file=sys.stderr)
    ordered = {j: results[j] for j in build_jobs(games_2p, games_4p, status[PRESET_2P] is None,
                                                 status[PRESET_4P] is None)}
    table = tables(ordered, league, notes, games_2p, games_4p)
    plot_src = league_dir / "ratings.png"
    if args.print_only:
        print(table)
    elif args.check:
        same = table_in(text or "") == table
        print(f"{args.file}: table {'matches' if same else 'DIFFERS from'} a fresh run", file=sys.stderr)
        shutil.rmtree(league_dir, ignore_errors=True)
        return 0 if same else 1
    else:
        args.file.write_text(splice(text or "", table, args.file), encoding="utf-8")
        if not args.quick:
            shutil.copyfile(plot_src, PLOT)
        print(f"wrote the table of {args.file}" + ("" if args.quick else f" and {PLOT}"), file=sys.stderr)
    shutil.rmtree(league_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
