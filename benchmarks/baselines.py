"""Regenerate the results tables of BENCHMARK.md: the baselines under the benchmark protocol.

Usage::

    python benchmarks/baselines.py [--workers N] [--cache DIR] [--check] [--print] [--file BENCHMARK.md]

Plays, with the protocol's seeds and game counts (the constants below, described in BENCHMARK.md):

1. two players (``classic_2p``): every candidate against every standard opponent, 2,000
   seat-rotated games per pair (:func:`agents.arena.evaluate`; each row is also
   ``machiavelli eval --agents A,B --rules classic_2p --games 2000 --seed 1000``), and the
   head-to-head pairs of :data:`HEAD_TO_HEAD`; a series with ``search`` plays its first
   :data:`SEARCH_GAMES_2P` games only (the same deals and seeds: a game depends only on its index);
2. four players (``classic_4p``): every candidate against three greedy bots, 1,000 games
   (``search``: :data:`SEARCH_GAMES_4P`);
3. the league ``configs/league/benchmark.yaml`` (openskill ratings; :mod:`training.league`);
4. approximate exploitability: ``machiavelli exploit`` at the reference budget (:data:`EXPLOIT`)
   for every candidate (``search`` at :data:`EXPLOIT_SPECS`' budget), when torch is installed.

Candidates are the rule-based baselines, ``ppo`` (the shipped checkpoint for the player count,
``agents/checkpoints``, included as soon as it loads; while it does not, the tables say why) and
``search`` at its default budget. The text between the ``baselines`` markers of ``--file`` is
replaced; everything else is kept. ``--check`` recomputes and exits 1 when the file's table
differs (nothing is written). ``--cache DIR`` keeps each finished series in ``DIR`` (one JSON file
each) and reuses it on the next run, so a run that was stopped resumes. ``--quick`` plays a few
games only, with small search and training budgets, to try the script (it refuses to write the
real BENCHMARK.md). Games are deterministic, so ``--workers`` changes only the time taken.
Agents are built by name as ``machiavelli eval`` builds them (``random`` and ``ppo`` on exact
legal-play lists, ``hoarder`` with the oracle's own max-cards schedule), and each row of the
two- and four-player tables prints the ``machiavelli eval`` command that plays its series.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
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
OPPONENTS = ("random", "greedy", "patient", "hoarder")  # the standard opponents
CANDIDATES = ("random", "greedy", "greedy_points", "patient", "hoarder", "ppo", "search")
HEAD_TO_HEAD = (("search", "ppo"),)  # two-player pairs played besides the standard opponents
GAMES_2P, SEED_2P = 2000, 1000
GAMES_4P, SEED_4P = 1000, 2000
SEARCH_GAMES_2P, SEARCH_GAMES_4P = 200, 200  # series with ``search``: the first games of the seed's
TABLE_4P = "greedy"  # the three other seats of the four-player table
LEAGUE_CONFIG = ROOT / "configs" / "league" / "benchmark.yaml"
EXPLOIT = {"updates": 30, "workers": 1, "games": 200, "seed": 0}  # = BENCHMARK.md's reference command
EXPLOIT_SPECS = {"search": "search[sims=16]"}  # the spec frozen for exploitability (others: the name)
QUICK = {"games_2p": 10, "games_4p": 4, "search_games_2p": 2, "search_games_4p": 4, "league_games": 16,
         "exploit_updates": 1, "exploit_games": 4, "exploit_curve_games": 2}
QUICK_SPECS = {"search": "search[sims=4]"}  # --quick only: the script's paths at a tiny budget

BEGIN = "<!-- baselines:begin -->"
END = "<!-- baselines:end -->"
PLOT = ROOT / "benchmarks" / "league_ratings.png"


@dataclass(frozen=True)
class Job:
    """One seat-rotated series: ``agents`` listed once per seat (names of the tables)."""

    preset: str
    agents: tuple[str, ...]
    games: int
    seed: int
    specs: tuple[str, ...] = ()  # the agent specs played (default: the names)


@dataclass(frozen=True)
class ExploitJob:
    """One ``machiavelli exploit`` run at the reference budget against ``spec``, shown as ``name``."""

    name: str
    spec: str
    updates: int
    games: int
    workers: int
    seed: int
    curve_games: int | None = None  # games per learning-curve point (None: exploit's default)


@dataclass(frozen=True)
class LeagueJob:
    """The benchmark league with ``pool`` (names; specs in ``specs``) and ``games`` games."""

    pool: tuple[str, ...]
    specs: tuple[str, ...]
    games: int


def _key(task: Job | ExploitJob | LeagueJob) -> str:
    """The cache file name of ``task``: what fixes its result."""
    fields = {k: v for k, v in asdict(task).items() if v is not None}  # an unset option: as if absent
    data = {"kind": type(task).__name__, **fields, "env": ENV_ID, "version": __version__}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:20]


def _run_job(job: Job) -> dict[str, Any]:
    rules = Rules.load(job.preset)
    agents = [make_agent(spec, rules) for spec in (job.specs or job.agents)]
    return evaluate(agents, rules, job.games, job.seed)


def _run_exploit(job: ExploitJob) -> dict[str, Any]:
    from machiavelli_env.training.exploit import exploit

    with tempfile.TemporaryDirectory(prefix="benchmark_exploit_") as tmp:
        report = exploit(job.spec, players=2, rules="classic", updates=job.updates, games=job.games,
                         workers=job.workers, seed=job.seed, curve_games=job.curve_games, out=Path(tmp) / "run",
                         log=lambda *a, **k: None)
    return {k: report[k] for k in ("agent", "games", "wins", "draws", "win_rate", "ci95", "games_trained")}


def _run_league(job: LeagueJob) -> dict[str, Any]:
    """Play the league into a temporary directory; the ratings table, its pool and the plot's bytes."""
    from machiavelli_env.training.league import load_config, run_league
    from machiavelli_env.training.ratings import players_table, ratings_table

    config = load_config(LEAGUE_CONFIG)
    config.pool = dict(zip(job.pool, job.specs, strict=True))
    config.games = job.games
    with tempfile.TemporaryDirectory(prefix="benchmark_league_") as tmp:
        run = run_league(config, Path(tmp), progress=False)
        plot = (Path(tmp) / "ratings.png").read_bytes().hex()
    ranked = [{"name": a.name, "ordinal": a.ordinal} for a in run.ratings.ranked()]
    return {"table": ratings_table(run.ratings), "by_players": players_table(run.ratings), "ranked": ranked,
            "games": run.ratings.history.shape[0] - 1,
            "players": sorted(set(config.players)), "seed": config.seed, "png": plot}


def _run_task(task: Job | ExploitJob | LeagueJob) -> tuple[dict[str, Any], float]:
    t = time.process_time()
    if isinstance(task, Job):
        result = _run_job(task)
    elif isinstance(task, ExploitJob):
        result = _run_exploit(task)
    else:
        result = _run_league(task)
    return result, time.process_time() - t


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


def eval_command(agents: tuple[str, ...] | list[str], preset: str, games: int, seed: int) -> str:
    """The ``machiavelli eval`` command line that plays a series (agents listed in seat order)."""
    return f"machiavelli eval --agents {shlex.quote(','.join(agents))} --rules {preset} --games {games} --seed {seed}"


@dataclass(frozen=True)
class Plan:
    """What one run plays: the protocol's counts (or ``--quick``'s) and which candidates load."""

    games_2p: int
    games_4p: int
    search_games_2p: int
    search_games_4p: int
    league_games: int
    exploit_updates: int | None  # None: no exploitability (torch missing)
    exploit_games: int
    exploit_curve_games: int | None
    specs: dict[str, str]  # name -> spec played (names missing here are played as themselves)
    ppo_2p: bool
    ppo_4p: bool

    def spec(self, name: str) -> str:
        return self.specs.get(name, name)

    def candidates(self, ppo: bool) -> list[str]:
        return [c for c in CANDIDATES if c != "ppo" or ppo]

    def pairs(self) -> list[tuple[str, str]]:
        """The two-player pairs, each unordered pair once: candidates x standard opponents, then
        :data:`HEAD_TO_HEAD`."""
        cands = self.candidates(self.ppo_2p)
        pairs: list[tuple[str, str]] = []
        for c in cands:
            for o in OPPONENTS:
                if c != o and (c, o) not in pairs and (o, c) not in pairs:
                    pairs.append((c, o))
        pairs += [p for p in HEAD_TO_HEAD if all(a in cands for a in p) and p not in pairs]
        return pairs

    def jobs(self) -> list[Job]:
        """The seat-rotated series: 2-player pairs and 4-player tables."""
        jobs = []
        for pair in self.pairs():
            games = self.search_games_2p if "search" in pair else self.games_2p
            jobs.append(Job(PRESET_2P, pair, games, SEED_2P, tuple(self.spec(a) for a in pair)))
        for c in self.candidates(self.ppo_4p):
            if c == TABLE_4P:
                continue
            games = self.search_games_4p if c == "search" else self.games_4p
            table = (c, TABLE_4P, TABLE_4P, TABLE_4P)
            jobs.append(Job(PRESET_4P, table, games, SEED_4P, tuple(self.spec(a) for a in table)))
        return jobs

    def exploit_jobs(self) -> list[ExploitJob]:
        """One exploit run per two-player candidate (none without torch)."""
        if self.exploit_updates is None:
            return []
        return [ExploitJob(c, self.specs.get(c, EXPLOIT_SPECS.get(c, c)), self.exploit_updates,
                           self.exploit_games, EXPLOIT["workers"], EXPLOIT["seed"], self.exploit_curve_games)
                for c in self.candidates(self.ppo_2p)]

    def league_job(self) -> LeagueJob:
        """The benchmark league's pool (ppo left out unless it loads at 2 and 4 players)."""
        from machiavelli_env.training.league import load_config

        pool = load_config(LEAGUE_CONFIG).pool
        if not (self.ppo_2p and self.ppo_4p):
            pool = {k: v for k, v in pool.items() if not v.startswith("ppo")}
        return LeagueJob(tuple(pool), tuple(self.specs.get(v, v) for v in pool.values()), self.league_games)


def _cost(task: Job | ExploitJob | LeagueJob) -> float:
    """A rough CPU cost, to start the slow tasks first (only the order of work depends on it)."""
    if isinstance(task, LeagueJob):
        return 1e9
    if isinstance(task, ExploitJob):
        return (40.0 if task.name == "search" else 6.0) * task.games * task.updates
    slow = 20.0 if "search" in task.agents else 3.0 if "ppo" in task.agents else 1.0
    return slow * task.games * (1.5 if "random" in task.agents else 1.0)


def _two_player_rows(results: dict[Job, dict[str, Any]]) -> dict[tuple[str, ...], tuple[dict, dict, int]]:
    """(agent, opponent) -> (agent's stats, opponent's stats, games), both orders of every pair."""
    rows = {}
    for job, rep in results.items():
        if job.preset == PRESET_2P:
            a, b = rep["agents"]
            rows[job.agents] = (a, b, job.games)
            rows[job.agents[::-1]] = (b, a, job.games)
    return rows


def tables(plan: Plan, results: dict[Job, dict[str, Any]], league: dict[str, Any],
           exploits: dict[str, dict[str, Any]], notes: list[str]) -> str:
    """The Markdown between the markers."""
    two = _two_player_rows(results)
    four = {job.agents[0]: (rep, job.games) for job, rep in results.items() if job.preset == PRESET_4P}
    ordinal = {a["name"]: a["ordinal"] for a in league["ranked"]}
    shown = {c: plan.spec(c) for c in CANDIDATES if plan.spec(c) != c}
    out = [f"_Generated by `python benchmarks/baselines.py` (machiavelli-env {__version__}, env `{ENV_ID}`); "
           "do not edit by hand._", ""]
    if shown:
        out += ["_" + ", ".join(f"`{c}` is `{s}`" for c, s in shown.items()) + " in these tables._", ""]

    # ----------------------------------------------------------------------------- the summary
    heads = [f"vs {o}" for o in OPPONENTS] + [f"4p vs 3 {TABLE_4P}", "league ordinal"]
    if exploits:
        heads.append("exploitability")
    out += ["**Summary**: win rates at two players against each standard opponent and at four players "
            f"against three {TABLE_4P} bots (a fair share is 25%), the league ordinal, and the "
            "exploitability (the win rate of a best response trained against the agent: lower is "
            "better; a fair share is 50%). The tables below give intervals, game counts and penalty points.", "",
            "| agent | " + " | ".join(heads) + " |", "|---|" + "---:|" * len(heads)]
    for c in CANDIDATES:
        cells = [_pct(two[(c, o)][0]["win_rate"]) if (c, o) in two else "–" for o in OPPONENTS]
        cells.append(_pct(four[c][0]["agents"][0]["win_rate"]) if c in four else "–")
        cells.append(f"{ordinal[c]:.2f}" if c in ordinal else "–")
        if exploits:
            cells.append(_pct(exploits[c]["win_rate"]) if c in exploits else "–")
        if any(x != "–" for x in cells):
            out.append(f"| {c} | " + " | ".join(cells) + " |")

    # ----------------------------------------------------------------------------- two players
    out += ["", f"**Two players** (`{PRESET_2P}`): {plan.games_2p:,} seat-rotated games per pair "
            f"({plan.games_2p // 2:,} deals, each played from both seats), seed {SEED_2P}; a series with "
            f"`search` plays the first {plan.search_games_2p:,} of them.", "",
            "| agent | opponent | games | win rate | 95% CI | draws | mean penalty points (agent / opponent) "
            "| command |",
            "|---|---|---:|---:|---|---:|---|---|"]
    for c in CANDIDATES:
        extra = [b for a, b in HEAD_TO_HEAD if a == c] + [a for a, b in HEAD_TO_HEAD if b == c]
        for o in [*OPPONENTS, *extra]:
            if c == o or (c, o) not in two:
                continue
            me, them, games = two[(c, o)]
            cmd = eval_command((plan.spec(c), plan.spec(o)), PRESET_2P, games, SEED_2P)
            out.append(f"| {c} | {o} | {games:,} | {_pct(me['win_rate'])} | {_ci(me)} | {me['draws']} | "
                       f"{me['mean_penalty_points']:.1f} / {them['mean_penalty_points']:.1f} | `{cmd}` |")

    # ----------------------------------------------------------------------------- four players
    out += ["", f"**Four players** (`{PRESET_4P}`): the agent against three {TABLE_4P} bots, {plan.games_4p:,} "
            f"seat-rotated games ({plan.games_4p // 4:,} deals, the agent in each seat once), seed {SEED_4P} "
            f"(`search`: the first {plan.search_games_4p:,}); a fair share is 25%.", "",
            f"| agent | games | win rate | 95% CI | draws | mean penalty points (agent / each {TABLE_4P}) | command |",
            "|---|---:|---:|---|---:|---|---|"]
    for c in CANDIDATES:
        if c not in four:
            continue
        rep, games = four[c]
        me, rest = rep["agents"][0], rep["agents"][1:]
        others = sum(a["mean_penalty_points"] for a in rest) / len(rest)
        cmd = eval_command((plan.spec(c),) + (TABLE_4P,) * 3, PRESET_4P, games, SEED_4P)
        out.append(f"| {c} | {games:,} | {_pct(me['win_rate'])} | {_ci(me)} | {me['draws']} | "
                   f"{me['mean_penalty_points']:.1f} / {others:.1f} | `{cmd}` |")

    # ----------------------------------------------------------------------------- league
    out += ["", f"**League** (`configs/league/{LEAGUE_CONFIG.name}`): {', '.join(league['pool'])}; classic rules, "
            f"{' and '.join(map(str, league['players']))} players, {league['games']:,} games, seed {league['seed']}; "
            "openskill Plackett-Luce ratings over the finishing order (ordinal = mu − 3 sigma); "
            f"`machiavelli league --config configs/league/{LEAGUE_CONFIG.name} --out runs/benchmark_league`.", "",
            league["table"], "", "Wins by table size in the league (games won / played):", "",
            league["by_players"], "", f"![League ratings over games](benchmarks/{PLOT.name})"]

    # ----------------------------------------------------------------------------- exploitability
    if exploits:
        trained = sorted(e["games_trained"] for e in exploits.values())
        out += ["", f"**Approximate exploitability** (two players): `machiavelli exploit --agent SPEC "
                f"--updates {plan.exploit_updates} --workers {EXPLOIT['workers']} --games {plan.exploit_games} "
                f"--seed {EXPLOIT['seed']}`: a best response trained from scratch against the frozen agent "
                f"({trained[0]:,}–{trained[-1]:,} training games), then {plan.exploit_games:,} seat-rotated "
                "games against it. Lower is better for the agent; a fair share is 50%.", "",
                "| agent | frozen spec | best response's win rate | 95% CI | games | draws | command |",
                "|---|---|---:|---|---:|---:|---|"]
        for c in CANDIDATES:
            if c in exploits:
                e = exploits[c]
                cmd = (f"machiavelli exploit --agent {shlex.quote(e['agent'])} --updates {plan.exploit_updates} "
                       f"--workers {EXPLOIT['workers']} --games {e['games']} --seed {EXPLOIT['seed']}")
                out.append(f"| {c} | `{e['agent']}` | {_pct(e['win_rate'])} | {_ci(e)} | {e['games']:,} | "
                           f"{e['draws']} | `{cmd}` |")
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


def _torch_status() -> str | None:
    """None when ``machiavelli exploit`` can run (torch installed), else why not."""
    import importlib.util

    return None if importlib.util.find_spec("torch") else "torch is not installed (pip install -e '.[train]')"


def _label(task: Job | ExploitJob | LeagueJob) -> str:
    if isinstance(task, Job):
        return f"{task.preset} {','.join(task.agents)}: {task.games} games"
    if isinstance(task, ExploitJob):
        return f"exploit {task.spec}: {task.updates} updates, {task.games} games"
    return f"league: {task.games} games"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--file", type=Path, default=ROOT / "BENCHMARK.md", help="file whose table is rewritten")
    p.add_argument("--workers", type=int, default=min(4, os.cpu_count() or 1), help="processes (default: CPUs, <= 4)")
    p.add_argument("--cache", type=Path, default=None, metavar="DIR",
                   help="keep each finished series in DIR and reuse it (resumes a stopped run)")
    p.add_argument("--check", action="store_true", help="recompute and compare with the file; write nothing")
    p.add_argument("--print", dest="print_only", action="store_true", help="print the table; write nothing")
    p.add_argument("--quick", action="store_true", help="a few games only, to try the script")
    args = p.parse_args(argv)
    if args.quick and not (args.print_only or args.check) and args.file.resolve() == (ROOT / "BENCHMARK.md").resolve():
        p.error("--quick would overwrite BENCHMARK.md with a few games' results; give --file or --print")
    if args.workers < 1:
        p.error("--workers must be at least 1")
    if args.cache is not None and args.cache.exists() and not args.cache.is_dir():
        p.error(f"--cache {args.cache} is not a directory")
    text = args.file.read_text(encoding="utf-8") if args.file.exists() else None
    if text is None and not args.print_only:
        p.error(f"{args.file} does not exist")

    from machiavelli_env.training.league import load_config

    notes = []
    status = {preset: ppo_status(preset) for preset in (PRESET_2P, PRESET_4P)}
    for preset, why in status.items():
        if why is not None:
            notes.append(f"ppo ({preset}) not included: {why}.")
    torch_why = _torch_status()
    if torch_why is not None:
        notes.append(f"No exploitability figures: {torch_why}.")
    q = args.quick
    plan = Plan(
        games_2p=QUICK["games_2p"] if q else GAMES_2P, games_4p=QUICK["games_4p"] if q else GAMES_4P,
        search_games_2p=QUICK["search_games_2p"] if q else SEARCH_GAMES_2P,
        search_games_4p=QUICK["search_games_4p"] if q else SEARCH_GAMES_4P,
        league_games=QUICK["league_games"] if q else load_config(LEAGUE_CONFIG).games,
        exploit_updates=None if torch_why else (QUICK["exploit_updates"] if q else EXPLOIT["updates"]),
        exploit_games=QUICK["exploit_games"] if q else EXPLOIT["games"],
        exploit_curve_games=QUICK["exploit_curve_games"] if q else None,
        specs=dict(QUICK_SPECS) if q else {}, ppo_2p=status[PRESET_2P] is None, ppo_4p=status[PRESET_4P] is None)
    jobs, exploit_jobs, league_job = plan.jobs(), plan.exploit_jobs(), plan.league_job()
    tasks: list[Job | ExploitJob | LeagueJob] = sorted([league_job, *exploit_jobs, *jobs], key=_cost, reverse=True)

    done: dict[Job | ExploitJob | LeagueJob, dict[str, Any]] = {}
    if args.cache is not None:
        args.cache.mkdir(parents=True, exist_ok=True)
        for task in tasks:
            f = args.cache / f"{_key(task)}.json"
            if f.is_file():
                done[task] = json.loads(f.read_text())["result"]
        if done:
            print(f"{len(done)} of {len(tasks)} series from {args.cache}", file=sys.stderr)
    t0 = time.time()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        futures = {pool.submit(_run_task, t): t for t in tasks if t not in done}
        for fut in as_completed(futures):
            task = futures[fut]
            result, cpu = fut.result()
            done[task] = result
            if args.cache is not None:
                record = {"task": {"kind": type(task).__name__, **asdict(task)}, "cpu_s": round(cpu, 1),
                          "result": result}
                (args.cache / f"{_key(task)}.json").write_text(json.dumps(record))
            print(f"{_label(task)}, {cpu:.0f} s CPU (at {time.time() - t0:.0f} s)", file=sys.stderr)
    print(f"all series, exploit runs and the league: {time.time() - t0:.0f} s wall with {args.workers} workers",
          file=sys.stderr)
    league = {**done[league_job], "pool": list(league_job.pool)}
    exploits = {j.name: done[j] for j in exploit_jobs}
    table = tables(plan, {j: done[j] for j in jobs}, league, exploits, notes)
    if args.print_only:
        print(table)
    elif args.check:
        same = table_in(text or "") == table
        print(f"{args.file}: table {'matches' if same else 'DIFFERS from'} a fresh run", file=sys.stderr)
        return 0 if same else 1
    else:
        args.file.write_text(splice(text or "", table, args.file), encoding="utf-8")
        if not args.quick:
            PLOT.write_bytes(bytes.fromhex(league["png"]))
        print(f"wrote the table of {args.file}" + ("" if args.quick else f" and {PLOT}"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
