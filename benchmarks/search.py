"""Decision time of the ``search`` agent at several budgets, in classic two-player games.

Usage::

    python benchmarks/search.py [--budgets 16,32,64,128] [--games 4] [--opponent hoarder] [--json OUT]

For each budget (simulations per decision) it plays ``--games`` seat-rotated games of
``search[sims=B]`` (other options with ``--options``, e.g. ``top=4,rollout=hoarder``) against
``--opponent`` under the ``classic`` rules and times every decision of the search agent, one
process, one thread (torch's, for a ``ppo`` opponent, is set to 1). It prints per budget: the
decisions timed, how many ran a search (a lone candidate or a winning play needs none), the
median and 90th percentile of the wall time of all decisions and of the searched ones, the
median CPU time of this process per decision (``time.process_time``, less sensitive to other
processes on a busy machine), the simulations per searched decision and the time per simulation.
The ``search`` default budget is chosen so that the median decision stays within 0.25 s.
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

from machiavelli_env.agents.arena import deal_seed, play_game  # noqa: E402
from machiavelli_env.agents.base import Agent, Turn  # noqa: E402
from machiavelli_env.agents.registry import make_agent  # noqa: E402

from machiavelli_env.rules import Rules  # noqa: E402


class Timed(Agent):
    """Wraps an agent and records the wall and CPU time of each :meth:`act`."""

    def __init__(self, agent: Agent):
        self.agent, self.name = agent, agent.name
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.sims: list[int] = []

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)

    def act(self, turn: Turn) -> np.ndarray:
        w, c = time.perf_counter(), time.process_time()
        action = self.agent.act(turn)
        self.cpu.append(time.process_time() - c)
        self.wall.append(time.perf_counter() - w)
        self.sims.append(int(getattr(self.agent, "last_sims", 0)))
        return action


def measure(budget: int, games: int, opponent: str, options: str, seed: int) -> dict[str, Any]:
    rules = Rules.load("classic")
    spec = f"search[sims={budget}{',' + options if options else ''}]"
    timed = Timed(make_agent(spec, rules, seed=seed))
    other = make_agent(opponent, rules, seed=seed + 1)
    wins = 0
    for g in range(games):
        agents = [timed, other] if g % 2 == 0 else [other, timed]
        res = play_game(rules, agents, deal_seed(seed, g // 2), agent_seeds=[seed + g, seed + g + 1])
        wins += int(res.winner == agents.index(timed))
    wall, cpu, sims = np.array(timed.wall), np.array(timed.cpu), np.array(timed.sims)
    searched = sims > 0
    ms = lambda x, q=50: float(np.percentile(x, q) * 1e3) if x.size else float("nan")  # noqa: E731
    return {
        "spec": spec, "opponent": opponent, "games": games, "search_wins": wins, "decisions": int(wall.size),
        "searched": int(searched.sum()), "median_ms": ms(wall), "p90_ms": ms(wall, 90),
        "median_searched_ms": ms(wall[searched]), "p90_searched_ms": ms(wall[searched], 90),
        "median_cpu_ms": ms(cpu), "median_cpu_searched_ms": ms(cpu[searched]),
        "sims_per_searched": float(sims[searched].mean()) if searched.any() else 0.0,
        "ms_per_sim": float(wall[searched].sum() / max(sims.sum(), 1) * 1e3),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--budgets", default="16,32,64,128", help="simulations per decision, comma-separated")
    p.add_argument("--games", type=int, default=4, help="games per budget (default 4)")
    p.add_argument("--opponent", default="hoarder", help="the other seat (default hoarder; ppo: the shipped policy)")
    p.add_argument("--options", default="", help="more search options, e.g. top=4,rollout=greedy")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="OUT", default=None, help="also write the rows as JSON")
    args = p.parse_args(argv)
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    print(f"search decision time, classic 2 players, against {args.opponent}, {args.games} games per budget")
    print(f"{'budget':>6} {'decisions':>9} {'searched':>8} {'median ms':>9} {'p90 ms':>7} {'med srch':>8} "
          f"{'p90 srch':>8} {'cpu med':>7} {'cpu srch':>8} {'sims':>6} {'ms/sim':>6} {'wins':>5}")
    rows = []
    for b in budgets:
        r = measure(b, args.games, args.opponent, args.options, args.seed)
        rows.append(r)
        print(f"{b:>6} {r['decisions']:>9} {r['searched']:>8} {r['median_ms']:>9.1f} {r['p90_ms']:>7.1f} "
              f"{r['median_searched_ms']:>8.1f} {r['p90_searched_ms']:>8.1f} {r['median_cpu_ms']:>7.1f} "
              f"{r['median_cpu_searched_ms']:>8.1f} {r['sims_per_searched']:>6.1f} {r['ms_per_sim']:>6.2f} "
              f"{r['search_wins']:>2}/{r['games']}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
