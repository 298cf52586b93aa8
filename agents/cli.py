"""Runners of ``machiavelli eval`` and ``machiavelli play`` (registered in machiavelli_env.cli)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np

from machiavelli_env.cli import UsageError, int_arg, parse_rules_arg
from machiavelli_env.game import State
from machiavelli_env.legal import ListBudget
from machiavelli_env.records import printable
from machiavelli_env.render import cards_text, render_text
from machiavelli_env.rules import Rules, RulesError

from .arena import evaluate, play_game
from .registry import AgentSpecError, make_agent, split_specs


def _rules(text: str, players: int | None) -> Rules:
    try:
        rules = parse_rules_arg(text)
        return rules.replace(players=players) if players is not None and players != rules.players else rules
    except RulesError as exc:
        raise UsageError(str(exc)) from None


_RULES_HELP = "preset name, YAML file or JSON (default classic)"


# ====================================================================== eval
def add_eval_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``machiavelli eval``."""
    p.description = (
        "Seat-rotated games between agents (one per seat): every agent sits in every seat equally and "
        "plays every hand of each deal. Prints win rates with 95%% Wilson intervals."
    )
    p.add_argument("--agents", required=True, metavar="A,B,...",
                   help="one agent per seat: random, greedy, greedy_points, patient, hoarder, tempo, ppo, ppo:PATH, "
                        "search (options in brackets: search[sims=64,rollout=hoarder])")
    p.add_argument("--rules", default="classic", metavar="RULES", help=_RULES_HELP)
    p.add_argument("--players", type=int_arg(2, 6), default=None,
                   help="number of players, 2-6 (default: the number of agents)")
    p.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    p.add_argument("--seed", type=int_arg(0), default=0,
                   help="seed of the deals and of the agents, >= 0 (default 0)")
    p.add_argument("--limit", type=int_arg(1, 1024), default=32,
                   help="legal plays offered to agents, 1-1024 (default 32)")
    p.add_argument("--list-budget", metavar="JSON", default=None,
                   help='bound every agent\'s legal-play lists in the oracle\'s work: "default" for '
                        'ListBudget(), or its fields as JSON, e.g. \'{"nodes": 50}\' (default: each agent\'s own: '
                        'exact, or within ListBudget() for random[exact_lists=0] and ppo[exact_lists=0])')
    p.add_argument("--records", metavar="FILE", default=None, help="also save every game as a JSON Lines record")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _list_budget(text: str | None) -> ListBudget | None:
    """``--list-budget``: None, ``default`` or a JSON object of :class:`ListBudget` fields."""
    if text is None:
        return None
    try:
        return ListBudget.from_text(text)
    except ValueError as exc:
        raise UsageError(f"--list-budget: {exc}") from None


def run_eval(args: argparse.Namespace) -> int:
    """Run ``machiavelli eval``."""
    names = split_specs(args.agents)
    players = args.players if args.players is not None else len(names)
    if len(names) < 2:
        raise UsageError(f"--agents needs at least 2 agents (one per seat), got {args.agents!r}")
    if len(names) != players:
        raise UsageError(f"--agents lists {len(names)} agents for {players} players; list one agent per seat")
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, got {args.games}")
    list_budget = _list_budget(getattr(args, "list_budget", None))
    rules = _rules(args.rules, players)
    try:
        agents = [make_agent(n, rules=rules, seed=args.seed + i) for i, n in enumerate(names)]
    except (AgentSpecError, ValueError, FileNotFoundError) as exc:  # ValueError: a bad ppo:PATH checkpoint
        raise UsageError(str(exc)) from None
    try:
        out = open(args.records, "w") if args.records else None  # noqa: SIM115 - closed below
    except OSError as exc:
        raise UsageError(f"--records: cannot write {printable(args.records, 200)}: "
                         f"{exc.strerror or type(exc).__name__}") from None
    progress = _progress(args.games, quiet=args.json)

    def on_game(g: int, res: Any) -> None:
        progress(g)

    try:
        report = evaluate(agents, rules, args.games, args.seed, limit=args.limit, progress=on_game,
                          records=out, list_budget=list_budget)
    finally:
        if out is not None:
            out.close()
    report["rules"] = rules.name
    report["seed"] = args.seed
    if list_budget is not None:
        report["list_budget"] = vars(list_budget)
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{args.games} games, rules {rules.name}, {players} players, seed {args.seed}")
    print(f"{'agent':<24} {'wins':>6} {'draws':>6} {'win rate':>9} {'95% CI':>17} {'penalty pts':>12}")
    for a in report["agents"]:
        lo, hi = a["ci95"]
        print(f"{printable(a['name'], 60):<24} {a['wins']:>6} {a['draws']:>6} {a['win_rate']:>9.3f} "
              f"{f'[{lo:.3f}, {hi:.3f}]':>17} {a['mean_penalty_points']:>12.2f}")
    return 0


def _progress(total: int, quiet: bool):
    """A tqdm bar on stderr when tqdm is installed and stderr is a terminal; else nothing."""
    if quiet or not sys.stderr.isatty():
        return lambda g: None
    try:
        from tqdm import tqdm
    except ImportError:
        return lambda g: None
    bar = tqdm(total=total, unit="game", file=sys.stderr)

    def update(g: int) -> None:
        bar.update(1)
        if g + 1 == total:
            bar.close()

    return update


# ====================================================================== play
def add_play_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``machiavelli play``."""
    p.description = "Play against agents in the terminal, typing cards in the notation of RULES.md (type 'help')."
    p.add_argument("--opponents", default="greedy", metavar="A,B,...",
                   help="the other seats' agents (default greedy); the player count is 1 + their number")
    p.add_argument("--rules", default="classic", metavar="RULES", help=_RULES_HELP)
    p.add_argument("--seat", type=int_arg(0, 5), default=0, help="your seat, 0 = first to move (default 0)")
    p.add_argument("--seed", type=int_arg(0), default=None, help="deal seed, >= 0 (default: random)")
    p.add_argument("--no-color", action="store_true", help="plain text without ANSI colours")


def run_play(args: argparse.Namespace) -> int:
    """Run ``machiavelli play``."""
    from .human import HumanAgent, QuitGame

    names = split_specs(args.opponents)
    players = len(names) + 1
    if not 2 <= players <= 6:
        raise UsageError(f"Machiavelli needs 2-6 players; --opponents lists {len(names)}")
    if not 0 <= args.seat < players:
        raise UsageError(f"--seat must be between 0 and {players - 1}, got {args.seat}")
    rules = _rules(args.rules, players)
    seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(2**31))
    try:
        bots = [make_agent(n, rules=rules, seed=seed + i + 1) for i, n in enumerate(names)]
    except (AgentSpecError, ValueError, FileNotFoundError) as exc:  # ValueError: a bad ppo:PATH checkpoint
        raise UsageError(str(exc)) from None
    color = not args.no_color and sys.stdout.isatty()
    human = HumanAgent(color=color)
    agents = bots[: args.seat] + [human] + bots[args.seat:]
    print(f"Machiavelli ({rules.name}), {players} players, seed {seed}; you are player_{args.seat}. Type 'help'.")

    def on_step(before: State, after: State, action: np.ndarray) -> None:
        seat_name = printable(agents[before.current].name, 60)
        who = "you" if before.current == args.seat else f"player_{before.current} ({seat_name})"
        event = after.event.split(":")[0]
        if event == "play":
            print(f"{who}: played {cards_text(np.repeat(np.arange(53), action), color)}")
        elif event == "failed":
            print(f"{who}: FAILED play of {cards_text(np.repeat(np.arange(53), action), color)}; penalty draw")
        else:
            print(f"{who}: {event}")
        if after.done or ":" in after.event:
            print(render_text(after, color=color, show_hands=True))

    try:
        res = play_game(rules, agents, seed, on_step=on_step)
    except QuitGame:
        print("game abandoned")
        return 0
    if res.winner == args.seat:
        print("You won!")
    elif res.winner >= 0:
        winner = f"player_{res.winner} ({printable(agents[res.winner].name, 60)})"
        print(f"{winner} won; your penalty points: {res.penalty_points[args.seat]}")
    else:
        print(f"no winner ({res.result}); your penalty points: {res.penalty_points[args.seat]}")
    return 0
