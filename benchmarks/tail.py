"""The tail of a move's cost: per-move latency on every shipped rules preset and on stress configurations.

Usage::

    python benchmarks/tail.py [--quick] [--games N] [--greedy-games N] [--seed S]
                              [--configs classic,jokers2,...] [--json OUT] [--slow OUT.jsonl]

Two parts, one process, one core:

* **Mixed games** on every preset in ``configs/rules`` and on the stress configurations below
  (classic with more decks, players and jokers; ``Rules`` allows at most 4 jokers):
  seat-rotated games of ``random``, ``greedy`` and ``hoarder`` (and the shipped ``ppo`` where a
  checkpoint exists for that player count and torch is installed). Game ``g`` seats
  ``kinds[(g + i) % len(kinds)]`` in seat ``i``, so every kind sits in every seat. A move's time
  is the agent's decision (``turn_from_state`` and ``act``, with every oracle query it makes) plus
  the engine's ``game.step``, in CPU time of this process (``time.process_time_ns``), so that other
  processes on a shared machine do not enter it; ``--wall`` times wall-clock instead. Per
  configuration: moves, p50 / p99 / p99.9 / max per move, moves per second (moves over the
  summed move times), and the oracle's search work per move, mean and max (``dp.work()``:
  forward entries plus depth-first and probe expansions; a count, the same on any machine); then
  each kind of agent's p99 / max, to show which bot makes the tail.
* **Greedy self-play** of the joker presets against classic, interleaved game by game (one game of
  each in turn), so that a swing in the machine's speed reaches both sides: each preset's moves per
  second and its ratio to classic's. Each preset plays its own deals: ``classic_jokers`` and
  ``spanish_comodines`` have the same rules, and on the same seeds the second would replay the
  first's games and find their positions in the oracle's caches. The ratio depends on the deals: 60 games
  from four seeds gave 0.17x to 0.42x on ``classic_jokers`` for one build, hence 120 games by
  default.

The verdict lines apply the targets: on every shipped preset p99 <= 5 ms and max <= 50 ms a move,
on the stress configurations max <= 250 ms, and greedy self-play of each joker preset at >= 0.5x
classic's moves per second. Timings depend on the machine and its load; the answers (and so the
games) do not: every budget in the oracle counts expansions, never time.

Before a configuration is timed, each agent makes one untimed decision (a policy network's first
call builds its kernels), the oracle's integer programme loads HiGHS and the rules' meld list
(``ilp.warm_up``: built on first use, about 0.1 s and 6 ms to 2 s) and the garbage collector's
survivors are frozen (``gc.freeze``), so that the figures are the positions' cost, not one-time
start-up or scans of long-lived objects.

By default the agents are the faster variants (``make_agent(..., exact_lists=False)``): ``random``
and ``ppo`` read lists within :data:`agents.base.PLAY_LIST_BUDGET` and ``hoarder`` bounds its
max-cards search. ``--exact-lists`` plays the agents as their names mean in ``machiavelli eval``
(exact lists, the oracle's own schedule); ``--list-budget JSON`` sets every turn's list budget
(:class:`machiavelli_env.legal.ListBudget`; ``default`` for its defaults).

``--slow OUT.jsonl`` writes the slowest positions (state JSON and the agent that moved) for study.
The peak resident memory of the process is printed at the end.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from machiavelli_env.agents.base import turn_from_state  # noqa: E402
from machiavelli_env.agents.registry import make_agent  # noqa: E402

from machiavelli_env import __version__, game  # noqa: E402
from machiavelli_env.legal import ListBudget  # noqa: E402
from machiavelli_env.oracle import dp, ilp  # noqa: E402
from machiavelli_env.rules import Rules  # noqa: E402

PRESET_DIR = ROOT / "configs" / "rules"
#: stress configurations: classic with these overrides
STRESS: dict[str, dict[str, Any]] = {
    "stress_3decks": {"decks": 3},
    "stress_3decks_4jokers": {"decks": 3, "jokers": 4},
    "stress_4jokers_2pm": {"jokers": 4, "max_jokers_per_meld": 2},
    "stress_4jokers_3pm": {"jokers": 4, "max_jokers_per_meld": 3},
    "stress_3decks_4jokers_2pm": {"decks": 3, "jokers": 4, "max_jokers_per_meld": 2},
    "stress_4p_4jokers": {"players": 4, "jokers": 4},
    "stress_5p_3decks_4jokers": {"players": 5, "decks": 3, "hand_size": 15, "jokers": 4},
    "stress_6p_3decks_4jokers": {"players": 6, "decks": 3, "hand_size": 15, "jokers": 4},
    "stress_wrap_2jokers": {"ace": "wrap", "jokers": 2},
    "stress_wrap_4jokers_2pm": {"ace": "wrap", "jokers": 4, "max_jokers_per_meld": 2},
}
JOKER_PRESETS = ("classic_jokers", "spanish_comodines", "jokers2")
TARGET_P99_MS, TARGET_MAX_MS, TARGET_STRESS_MAX_MS, TARGET_GREEDY_RATIO = 5.0, 50.0, 250.0, 0.5
FULL = {"games": 24, "greedy_games": 120}
QUICK = {"games": 4, "greedy_games": 6}


def preset_names() -> list[str]:
    """Every shipped preset, by file name."""
    return sorted(p.stem for p in PRESET_DIR.glob("*.yaml"))


def config_rules(name: str) -> Rules:
    """The rules of a preset or stress configuration."""
    if name in STRESS:
        return Rules.load("classic", **STRESS[name])
    return Rules.load(name)


def ppo_available(players: int) -> bool:
    """Whether the shipped ``ppo`` has a checkpoint for exactly ``players`` players and loads."""
    try:
        from machiavelli_env.agents.ppo import CHECKPOINT_DIR
    except ImportError:
        return False
    return (CHECKPOINT_DIR / f"ppo_classic_{players}p.safetensors").is_file()


@dataclass
class Times:
    """Move times (ns) of one configuration, and its slowest positions."""

    ns: list[int] = field(default_factory=list)
    work: list[int] = field(default_factory=list)  # the oracle's search work of each move (dp.work)
    agents: list[str] = field(default_factory=list)  # the kind of agent that made each move
    slow: list[tuple[int, str, str]] = field(default_factory=list)  # (ns, agent, state JSON)

    def add(self, ns: int, work: int, agent: str, state: game.State, keep: int) -> None:
        self.ns.append(ns)
        self.work.append(work)
        self.agents.append(agent)
        if keep and (len(self.slow) < keep or ns > self.slow[-1][0]):
            self.slow.append((ns, agent, game.state_to_json(state)))
            self.slow.sort(key=lambda t: -t[0])
            del self.slow[keep:]

    def summary(self) -> dict[str, float]:
        a = np.asarray(self.ns, dtype=np.float64) / 1e6
        if a.size == 0:
            return {"moves": 0}
        return {
            "moves": int(a.size),
            "p50_ms": float(np.percentile(a, 50)),
            "p99_ms": float(np.percentile(a, 99)),
            "p999_ms": float(np.percentile(a, 99.9)),
            "max_ms": float(a.max()),
            "moves_per_s": float(a.size / (a.sum() / 1e3)),
            "work_per_move": float(np.mean(self.work)),
            "max_work": int(max(self.work)),
        }

    def by_agent(self) -> dict[str, dict[str, float]]:
        """Per kind of agent: its moves, p50 / p99 / max ms (which bot makes the tail)."""
        a = np.asarray(self.ns, dtype=np.float64) / 1e6
        kinds = np.asarray(self.agents)
        out = {}
        for k in sorted(set(self.agents)):
            x = a[kinds == k]
            out[k] = {"moves": int(x.size), "p50_ms": float(np.percentile(x, 50)),
                      "p99_ms": float(np.percentile(x, 99)), "max_ms": float(x.max())}
        return out


CLOCK = time.process_time_ns


def play_timed(
    rules: Rules, agents: list[Any], names: list[str], seed: int, times: Times, keep: int,
    list_budget: ListBudget | None = None,
) -> None:
    """One game; every move's decision plus engine step goes into ``times``; the agents' legal-play
    lists are bounded by ``list_budget`` when given."""
    for i, agent in enumerate(agents):
        agent.reset(seed * 31 + i)
    state = game.new_game(rules, seed)
    clock, work = CLOCK, dp.work
    while not state.done:
        p = state.current
        w0 = work()
        t0 = clock()
        action = np.asarray(agents[p].act(turn_from_state(state, p, list_budget=list_budget)), dtype=np.int64)
        after = game.step(state, action)
        t1 = clock()
        times.add(t1 - t0, work() - w0, names[p], state, keep)
        state = after


def warm_up(rules: Rules, agents: list[Any], seed: int) -> None:
    """One untimed decision per agent on a fresh deal (the first call of a policy network builds
    its kernels), HiGHS and the rules' meld list loaded (the oracle's integer programme builds them
    on first use: about 0.1 s, and 6 ms to 2 s for the list), then a garbage collection with the
    survivors frozen, so that the timed moves are the positions' own cost and not a one-time
    start-up or a full scan of long-lived objects."""
    state = game.new_game(rules, seed - 1)
    for agent in agents:
        agent.reset(0)
        agent.act(turn_from_state(state, state.current))
    try:  # the integer programme's solver and meld list, built on first use (ilp.warm_up)
        ilp.warm_up(rules)
    except ImportError:
        pass
    gc.collect()
    gc.freeze()


def mixed(
    name: str, games: int, seed: int, keep: int, list_budget: ListBudget | None = None, exact_lists: bool = False
) -> tuple[dict[str, Any], Times]:
    """Seat-rotated games of the bots (and ppo) on one configuration."""
    rules = config_rules(name)
    kinds = ["random", "greedy", "hoarder"] + (["ppo"] if ppo_available(rules.players) else [])
    pool = {k: make_agent(k, rules, seed=seed, exact_lists=exact_lists) for k in kinds}
    warm_up(rules, list(pool.values()), seed)
    times = Times()
    for g in range(games):
        names = [kinds[(g + i) % len(kinds)] for i in range(rules.players)]
        agents = [pool[k] if names.count(k) == 1 else make_agent(k, rules, seed=seed + i, exact_lists=exact_lists)
                  for i, k in enumerate(names)]
        play_timed(rules, agents, names, seed + g, times, keep, list_budget)
    row = {"config": name, "stress": name in STRESS, "players": rules.players, "kinds": kinds, "games": games,
           **times.summary(), "by_agent": times.by_agent()}
    return row, times


#: each preset's greedy games take seeds from its own stream (seed + index * this + game): two presets
#: with the same rules (classic_jokers and spanish_comodines) would otherwise replay one deal, and the
#: second would find the first's positions in the oracle's caches
GREEDY_SEED_STRIDE = 1_000_003


def greedy_interleaved(games: int, seed: int) -> dict[str, dict[str, float]]:
    """Greedy self-play moves/s of classic and the joker presets, one game of each in turn, each
    preset on its own deals."""
    names = ("classic",) + JOKER_PRESETS
    rules = {n: Rules.load(n) for n in names}
    agents = {n: [make_agent("greedy", r) for _ in range(r.players)] for n, r in rules.items()}
    for n in names:
        warm_up(rules[n], agents[n][:1], seed)
    totals = {n: Times() for n in names}
    for g in range(games):
        for i, n in enumerate(names):
            play_timed(rules[n], agents[n], ["greedy"] * rules[n].players, seed + i * GREEDY_SEED_STRIDE + g,
                       totals[n], 0)
    out = {}
    for n in names:
        s = totals[n].summary()
        out[n] = {"moves": s["moves"], "moves_per_s": s["moves_per_s"], "max_ms": s["max_ms"]}
    for n in names:
        out[n]["ratio_to_classic"] = out[n]["moves_per_s"] / out["classic"]["moves_per_s"]
    return out


def verdicts(rows: list[dict[str, Any]], greedy: dict[str, dict[str, float]]) -> list[str]:
    """PASS / FAIL lines for the targets."""
    lines = [f"FAIL {r['config']}: {r['error']}" for r in rows if "error" in r]
    presets = [r for r in rows if not r["stress"] and "error" not in r]
    stress = [r for r in rows if r["stress"] and "error" not in r]
    if presets:
        worst_p99 = max(presets, key=lambda r: r["p99_ms"])
        worst_max = max(presets, key=lambda r: r["max_ms"])
        ok = worst_p99["p99_ms"] <= TARGET_P99_MS and worst_max["max_ms"] <= TARGET_MAX_MS
        lines.append(f"{'PASS' if ok else 'FAIL'} presets: worst p99 {worst_p99['p99_ms']:.2f} ms "
                     f"({worst_p99['config']}), worst max {worst_max['max_ms']:.1f} ms ({worst_max['config']}); "
                     f"targets p99 <= {TARGET_P99_MS} ms, max <= {TARGET_MAX_MS} ms")
    if stress:
        worst = max(stress, key=lambda r: r["max_ms"])
        ok = worst["max_ms"] <= TARGET_STRESS_MAX_MS
        lines.append(f"{'PASS' if ok else 'FAIL'} stress: worst max {worst['max_ms']:.1f} ms ({worst['config']}); "
                     f"target max <= {TARGET_STRESS_MAX_MS} ms")
    if greedy:
        low = min((n for n in JOKER_PRESETS), key=lambda n: greedy[n]["ratio_to_classic"])
        ok = greedy[low]["ratio_to_classic"] >= TARGET_GREEDY_RATIO
        lines.append(f"{'PASS' if ok else 'FAIL'} greedy self-play: lowest joker ratio "
                     f"{greedy[low]['ratio_to_classic']:.2f}x classic ({low}); target >= {TARGET_GREEDY_RATIO}x")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Per-move latency (p50/p99/p99.9/max) on every preset and stress config.")
    ap.add_argument("--quick", action="store_true", help=f"few games ({QUICK['games']} mixed, "
                    f"{QUICK['greedy_games']} greedy per preset) for a smoke run")
    ap.add_argument("--games", type=int, help=f"mixed games per configuration (default {FULL['games']})")
    ap.add_argument("--greedy-games", type=int,
                    help=f"greedy self-play games per preset (default {FULL['greedy_games']})")
    ap.add_argument("--seed", type=int, default=20261201, help="first deal seed")
    ap.add_argument("--configs", help="comma-separated presets / stress configs (default: all)")
    ap.add_argument("--no-stress", action="store_true", help="skip the stress configurations")
    ap.add_argument("--wall", action="store_true", help="time moves by wall clock, not process CPU time")
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument("--slow", type=Path, help="write the slowest positions here (JSON lines)")
    ap.add_argument("--keep", type=int, default=3, help="slowest positions kept per configuration (default 3)")
    ap.add_argument("--list-budget", metavar="JSON",
                    help='every turn\'s legal-play list budget: "default" for ListBudget(), or its fields as '
                         'JSON, e.g. \'{"nodes": 200}\' (default: each agent\'s own lists)')
    ap.add_argument("--exact-lists", action="store_true",
                    help="the agents as machiavelli eval builds them: exact lists, hoarder unbounded "
                         "(default: the faster variants, lists within PLAY_LIST_BUDGET)")
    args = ap.parse_args(argv)
    list_budget = None
    if args.list_budget:
        try:
            list_budget = ListBudget.from_text(args.list_budget)
        except ValueError as exc:
            ap.error(f"--list-budget: {exc}")
    base = QUICK if args.quick else FULL
    global CLOCK
    CLOCK = time.perf_counter_ns if args.wall else time.process_time_ns
    games = args.games if args.games is not None else base["games"]
    greedy_games = args.greedy_games if args.greedy_games is not None else base["greedy_games"]
    if games < 0 or greedy_games < 0:
        ap.error("game counts must be >= 0")
    names = args.configs.split(",") if args.configs else preset_names() + ([] if args.no_stress else list(STRESS))
    for n in names:
        if n not in STRESS and not (PRESET_DIR / f"{n}.yaml").is_file():
            ap.error(f"unknown config {n!r}")

    print(f"machiavelli-env {__version__}, Python {platform.python_version()}, {platform.machine()}; "
          f"{games} mixed games per config, {greedy_games} greedy games per preset, seed {args.seed}, "
          f"{'wall-clock' if args.wall else 'process CPU'} time"
          + (f"; every list bounded by {list_budget}" if list_budget else "")
          + ("; random and ppo on exact lists" if args.exact_lists else ""))
    rows, slow = [], []
    per_kind: list[tuple[str, dict[str, dict[str, float]]]] = []
    t_start = time.perf_counter()
    print("| config | players | games | moves | p50 ms | p99 ms | p99.9 ms | max ms | moves/s | work/move | max work |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in names:
        if games == 0:
            break
        try:
            row, times = mixed(n, games, args.seed, args.keep, list_budget, args.exact_lists)
        except Exception as exc:  # a failing configuration is reported, and the others still run
            rows.append({"config": n, "stress": n in STRESS, "error": f"{type(exc).__name__}: {exc}"})
            print(f"| {n} | error: {type(exc).__name__}: {exc} |", flush=True)
            continue
        rows.append(row)
        slow += [{"config": n, "ms": ns / 1e6, "agent": a, "state": s} for ns, a, s in times.slow]
        print(f"| {n} | {row['players']} | {games} | {row['moves']} | {row['p50_ms']:.3f} | {row['p99_ms']:.2f} | "
              f"{row['p999_ms']:.2f} | {row['max_ms']:.1f} | {row['moves_per_s']:,.0f} | "
              f"{row['work_per_move']:,.0f} | {row['max_work']:,} |", flush=True)
        per_kind.append((n, row["by_agent"]))
    if per_kind:
        print("\nBy agent, p99 / max ms a move:")
        print("| config | " + " | ".join(kinds := sorted({k for _, d in per_kind for k in d})) + " |")
        print("|---|" + "---:|" * len(kinds))
        for n, d in per_kind:
            print(f"| {n} | " + " | ".join(f"{d[k]['p99_ms']:.2f} / {d[k]['max_ms']:.1f}" if k in d else "-"
                                           for k in kinds) + " |")
    greedy: dict[str, dict[str, float]] = {}
    if greedy_games:
        greedy = greedy_interleaved(greedy_games, args.seed)
        print("\nGreedy self-play, interleaved game by game:")
        print("| preset | moves | moves/s | max ms | vs classic |")
        print("|---|---:|---:|---:|---:|")
        for n, g in greedy.items():
            print(f"| {n} | {g['moves']} | {g['moves_per_s']:,.0f} | {g['max_ms']:.1f} | "
                  f"{g['ratio_to_classic']:.2f}x |")
    print()
    for line in verdicts(rows, greedy):
        print(line)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak_mb:.0f} MB; {time.perf_counter() - t_start:.0f} s in all")
    if args.json:
        args.json.write_text(json.dumps({"version": __version__, "seed": args.seed, "rows": rows, "greedy": greedy,
                                         "peak_rss_mb": peak_mb,
                                         "list_budget": None if list_budget is None else vars(list_budget),
                                         "exact_lists": args.exact_lists},
                                        indent=1))
    if args.slow:
        with args.slow.open("w") as f:
            for item in sorted(slow, key=lambda d: -d["ms"]):
                f.write(json.dumps(item) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
