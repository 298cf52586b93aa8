"""What a bounded legal-play list (``legal.ListBudget``) saves, and what it costs a policy.

Usage::

    python benchmarks/list_budget.py [--quick] [--games N] [--budget JSON] [--configs a,b,...]
                                     [--strength GAMES] [--seed S]

* **Speed**: seat-rotated games of ``random``, ``greedy``, ``hoarder`` (and the shipped ``ppo`` where
  a checkpoint exists for the player count) on each configuration; at every move of an agent that
  reads the legal-play list (``random``, ``ppo``) the position is kept. Each position's list
  (``limit`` 32, as the agents ask) is then made exactly and within the budget, the module's
  caches cleared before each, in process CPU time. Per configuration and agent: p50 / p96 / max
  of both (p96 of one agent's moves is what a p99 over four agents' moves allows it), the list
  lengths, how often the bounded list still holds a play of the maximum size, and how often it is
  the exact list.
* **Strength** (``--strength GAMES``): the shipped 2-player ``ppo`` playing with bounded lists
  against itself with exact lists, and each against ``greedy``; seat-rotated, Wilson 95%
  intervals. The shipped checkpoints were trained on exact lists.

Timings depend on the machine; the lists do not (the budget counts work, never time).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from machiavelli_env.agents.arena import evaluate, wilson_interval  # noqa: E402
from machiavelli_env.agents.base import Agent, WithListBudget, turn_from_state  # noqa: E402
from machiavelli_env.agents.registry import make_agent  # noqa: E402

from machiavelli_env import game, legal  # noqa: E402
from machiavelli_env.rules import Rules  # noqa: E402

CONFIGS = {  # name -> rules (a preset, or classic with overrides)
    "classic": {},
    "classic_5p": {"players": 5},
    "classic_jokers": {"preset": "classic_jokers"},
    "jokers2": {"preset": "jokers2"},
    "spanish_comodines": {"preset": "spanish_comodines"},
    "stress_3decks_4jokers": {"decks": 3, "jokers": 4},
    "stress_wrap_4jokers_2pm": {"ace": "wrap", "jokers": 4, "max_jokers_per_meld": 2},
}
LIST_READERS = ("random", "ppo")
LIMIT = 32


def config_rules(name: str) -> Rules:
    spec = dict(CONFIGS[name])
    return Rules.load(spec.pop("preset", "classic"), **spec)


def positions(rules: Rules, games: int, seed: int) -> list[tuple[str, game.State]]:
    """(agent, state before its move) for every move of an agent that reads the list."""
    kinds = ["random", "greedy", "hoarder"]
    try:
        make_agent("ppo", rules)
        kinds.append("ppo")
    except (ImportError, ValueError, FileNotFoundError):
        pass
    out = []
    for g in range(games):
        names = [kinds[(g + i) % len(kinds)] for i in range(rules.players)]
        agents = [make_agent(k, rules, seed=seed + g * 7 + i, exact_lists=True) for i, k in enumerate(names)]
        for i, a in enumerate(agents):
            a.reset(seed * 31 + g * 7 + i)
        state = game.new_game(rules, seed + g)
        while not state.done:
            p = state.current
            if names[p] in LIST_READERS:
                out.append((names[p], state))
            state = game.step(state, np.asarray(agents[p].act(turn_from_state(state, p)), dtype=np.int64))
    return out


def time_list(state: game.State, budget: legal.ListBudget | None) -> tuple[float, list[np.ndarray]]:
    legal.clear_caches()
    t0 = time.process_time_ns()
    plays = game.legal_plays(state, state.current, LIMIT, budget)
    return (time.process_time_ns() - t0) / 1e6, plays


def speed(names: list[str], games: int, seed: int, budget: legal.ListBudget) -> list[dict[str, Any]]:
    rows = []
    print("| config | agent | positions | exact p50 / p96 / max ms | bounded p50 / p96 / max ms | p96 ratio "
          "| plays exact / bounded | max size kept | same list |")
    print("|---|---|---:|---|---|---:|---|---:|---:|")
    for name in names:
        per_agent: dict[str, list[tuple[float, float, int, int, bool, bool]]] = {}
        for agent, state in positions(config_rules(name), games, seed):
            t_exact, exact = time_list(state, None)
            t_bounded, bounded = time_list(state, budget)
            top = max((int(x.sum()) for x in exact), default=0)
            kept = max((int(x.sum()) for x in bounded), default=0) == top
            same = [x.tobytes() for x in exact] == [x.tobytes() for x in bounded]
            per_agent.setdefault(agent, []).append((t_exact, t_bounded, len(exact), len(bounded), kept, same))
        for agent, v in per_agent.items():
            a = np.asarray(v, dtype=np.float64)
            e, b = a[:, 0], a[:, 1]
            row = {"config": name, "agent": agent, "positions": len(a),
                   "exact_ms": [float(np.percentile(e, 50)), float(np.percentile(e, 96)), float(e.max())],
                   "bounded_ms": [float(np.percentile(b, 50)), float(np.percentile(b, 96)), float(b.max())],
                   "plays": [float(a[:, 2].mean()), float(a[:, 3].mean())],
                   "max_size_kept": float(a[:, 4].mean()), "same": float(a[:, 5].mean())}
            rows.append(row)
            ex, bo = row["exact_ms"], row["bounded_ms"]
            print(f"| {name} | {agent} | {len(a)} | {ex[0]:.2f} / {ex[1]:.2f} / {ex[2]:.1f} | "
                  f"{bo[0]:.2f} / {bo[1]:.2f} / {bo[2]:.1f} | {ex[1] / max(bo[1], 1e-9):.1f}x | "
                  f"{row['plays'][0]:.1f} / {row['plays'][1]:.1f} | {row['max_size_kept']:.0%} | {row['same']:.0%} |",
                  flush=True)
    return rows


def strength(games: int, seed: int, budget: legal.ListBudget) -> list[dict[str, Any]]:
    rules = Rules.load("classic")

    def exact_ppo() -> Agent:
        return make_agent("ppo", rules, exact_lists=True)

    matches = {
        "ppo+budget vs ppo": lambda: [WithListBudget(make_agent("ppo", rules), budget), exact_ppo()],
        "ppo vs greedy": lambda: [exact_ppo(), make_agent("greedy", rules)],
        "ppo+budget vs greedy": lambda: [WithListBudget(make_agent("ppo", rules), budget), make_agent("greedy", rules)],
    }
    rows = []
    print("\n| 2 players, classic | games | first agent's win rate | 95% interval |")
    print("|---|---:|---:|---|")
    for label, make in matches.items():
        res = evaluate(make(), rules, games, seed)["agents"][0]
        lo, hi = wilson_interval(res["wins"], games)
        rows.append({"match": label, "games": games, "win_rate": res["win_rate"], "interval": [lo, hi]})
        print(f"| {label} | {games} | {res['win_rate']:.1%} | {lo:.1%}-{hi:.1%} |", flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Bounded legal-play lists: time saved and policy strength.")
    ap.add_argument("--quick", action="store_true", help="2 games per configuration, no strength part")
    ap.add_argument("--games", type=int, default=6, help="games per configuration (default 6)")
    ap.add_argument("--budget", default="default", metavar="JSON",
                    help="ListBudget fields as JSON, or 'default' (the default)")
    ap.add_argument("--configs", help=f"comma-separated, of {', '.join(CONFIGS)} (default: all)")
    ap.add_argument("--strength", type=int, default=0, metavar="GAMES", help="games per strength match (default 0)")
    ap.add_argument("--seed", type=int, default=20261204, help="first deal seed")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args(argv)
    try:
        budget = legal.ListBudget.from_text(args.budget)
    except ValueError as exc:
        ap.error(f"--budget: {exc}")
    names = args.configs.split(",") if args.configs else list(CONFIGS)
    for n in names:
        if n not in CONFIGS:
            ap.error(f"unknown config {n!r}; choose from {', '.join(CONFIGS)}")
    games = 2 if args.quick else args.games
    if games < 1 or args.strength < 0:
        ap.error("game counts must be positive")
    print(f"{budget}; {games} games per config, seed {args.seed}, list limit {LIMIT}, process CPU time\n")
    t0 = time.perf_counter()
    out: dict[str, Any] = {"budget": vars(budget), "seed": args.seed}
    out["speed"] = speed(names, games, args.seed, budget)
    if args.strength and not args.quick:
        out["strength"] = strength(args.strength, args.seed, budget)
    print(f"\n{time.perf_counter() - t0:.0f} s in all")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
