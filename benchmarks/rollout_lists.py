"""The exact legal-play lists of a PPO rollout by cost: the share of the slowest lists, what those
lists are and where their time goes, and whether their per-card plays depend on the search method.

Usage::

    python benchmarks/rollout_lists.py [--updates N] [--top F] [--methods N] [--json OUT]

Needs the ``train`` extra. Everything runs in this process and counts process CPU time
(``time.process_time_ns``):

1. **Record.** ``machiavelli train`` from the shipped ``ppo_classic_2p`` checkpoint with
   ``benchmarks/train_speed.py``'s settings and 1 rollout worker (``time_split.py``'s part 1,
   ``--updates`` updates). Every exact list the rollouts ask for (``legal.legal_plays_counts``: the
   learner's, the ``random`` bot's and the self-play snapshots') is kept with its time. Printed: the
   share of the lists' time in their slowest tenth and hundredth, and the hands, tables and list
   lengths of the slowest ``--top`` fraction against the others.
2. **Replay** those slowest lists that ``oracle.api.exact_list`` builds (an opened player, no help
   cards), each with the package's list caches cleared, split into the max-points play (asked of
   the oracle's schedule through Python), the other questions the extension hands back to Python,
   and the extension's own time (its per-card pass, its branch questions, the order). Then, on the
   same positions, the oracle's per-card pass alone (``oracle.api.best_counts_by_card``, whose plays
   are the list's per-card entries) with the search that answered it last (``_dp.stats()``'s
   ``last_method``), and the max-cards play.
3. **Methods** (``--methods N``, the N slowest of those positions): the per-card pass again with
   the forward graph forced (``_dp.set_params(force=1)``) instead of the schedule's choice. Where
   the values agree but the plays differ, the list's content depends on which exact search answers,
   not only on the position: a faster search must return the very same plays.

Timing figures depend on the machine and its load; the shares move less.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import time_split  # noqa: E402  (its training run and clock)

#: ``_dp.stats()["last_method"]``: the search that answered last
METHODS = {0: "none", 1: "forward graph", 2: "depth-first search", 3: "whole-hand probe", 4: "repack probe"}


@dataclasses.dataclass(frozen=True)
class ListCall:
    """One ``legal.legal_plays_counts`` call of the rollout: its arguments (copies) and its time."""

    table: np.ndarray
    hand: np.ndarray
    rules: Any
    opened: bool
    limit: int
    help: np.ndarray | None
    budget: Any
    ms: float
    plays: int


# ---------------------------------------------------------------------------------------------- part 1
def record_rollout(updates: int, workdir: Path) -> list[ListCall]:
    """Part 1: every list of a training run from the shipped checkpoint (1 worker, ``updates`` updates)."""
    from machiavelli_env import legal

    calls: list[ListCall] = []
    original = legal.legal_plays_counts

    def recorded(t: np.ndarray, h: np.ndarray, rules: Any, opened: bool, limit: int, help: np.ndarray | None,
                 budget: Any) -> list[np.ndarray]:
        t0 = time.process_time_ns()
        plays = original(t, h, rules, opened, limit, help, budget)
        ms = (time.process_time_ns() - t0) / 1e6
        calls.append(ListCall(t.copy(), h.copy(), rules, bool(opened), int(limit),
                              None if help is None else help.copy(), budget, ms, len(plays)))
        return plays

    legal.legal_plays_counts = recorded
    try:
        time_split.train_from_checkpoint(updates, workdir)
    finally:
        legal.legal_plays_counts = original
    return calls


def slowest(calls: list[ListCall], fraction: float) -> list[ListCall]:
    """The ``ceil(fraction * len(calls))`` slowest calls, slowest first."""
    k = math.ceil(fraction * len(calls))
    return sorted(calls, key=lambda c: -c.ms)[:k]


def _describe(calls: list[ListCall]) -> dict[str, float]:
    if not calls:
        return {"lists": 0}
    return {"lists": len(calls), "mean_ms": float(np.mean([c.ms for c in calls])),
            "hand_cards": float(np.mean([c.hand.sum() for c in calls])),
            "hand_types": float(np.mean([np.count_nonzero(c.hand) for c in calls])),
            "table_cards": float(np.mean([c.table.sum() for c in calls])),
            "full": float(np.mean([c.plays >= c.limit for c in calls]))}


def summarize(calls: list[ListCall], top: float) -> dict[str, Any]:
    """Part 1's figures: the slowest tenth's and hundredth's share, and ``top``'s lists against the rest."""
    total = sum(c.ms for c in calls)
    head = slowest(calls, top)
    rest = slowest(calls, 1.0)[len(head):]
    share = lambda f: sum(c.ms for c in slowest(calls, f)) / total if total else 0.0  # noqa: E731
    return {"lists": len(calls), "total_ms": total, "share_top_10pct": share(0.1), "share_top_1pct": share(0.01),
            "max_ms": max((c.ms for c in calls), default=0.0), "top": _describe(head), "others": _describe(rest)}


# ---------------------------------------------------------------------------------------------- part 2
def _built_whole(call: ListCall) -> bool:
    """A list ``oracle.api.exact_list`` builds: exact, an opened player, no help cards."""
    from machiavelli_env import legal

    return call.budget is None and call.help is None and not legal.needs_opening(call.rules, call.opened)


def replay(calls: list[ListCall]) -> dict[str, Any]:
    """Part 2: the lists again, split; the per-card pass, its method, and the max-cards play alone."""
    from machiavelli_env import legal
    from machiavelli_env.oracle import _dp
    from machiavelli_env.oracle import api as oracle

    clock = time_split.Clock()
    targets = {"list": (legal, "legal_plays_counts"), "max-points play": (legal, "_query"),
               "per-card schedule": (oracle, "best_counts_by_card"), "branch questions": (legal, "_feasible_in")}
    with clock.wrapping(targets):
        for c in calls:
            legal.clear_caches()
            legal.legal_plays_counts(c.table, c.hand, c.rules, c.opened, c.limit, None, None)
    n = len(calls)
    parts = {k: clock.ms(k, own=True) / n for k in targets if k != "list"}
    parts["the extension's own"] = clock.ms("list", own=True) / n
    methods: Counter[str] = Counter()
    by_card_ns = best_ns = 0
    for c in calls:
        info = legal.rules_info(c.rules)
        t0 = time.process_time_ns()
        oracle.best_counts_by_card(c.table, c.hand, c.rules)
        by_card_ns += time.process_time_ns() - t0
        methods[METHODS.get(_dp.stats()["last_method"], "other")] += 1
        t0 = time.process_time_ns()
        oracle.solve(c.table, c.table + c.hand, info.ones, c.rules)
        best_ns += time.process_time_ns() - t0
    return {"lists": n, "list_ms": clock.ms("list") / n, "parts_ms": parts, "per_card_pass_ms": by_card_ns / 1e6 / n,
            "per_card_methods": dict(methods), "max_cards_play_ms": best_ns / 1e6 / n}


# ---------------------------------------------------------------------------------------------- part 3
def compare_methods(calls: list[ListCall]) -> dict[str, Any]:
    """Part 3: the per-card pass as the schedule answers it and with the forward graph forced."""
    from machiavelli_env.oracle import _dp
    from machiavelli_env.oracle import api as oracle

    def passes() -> tuple[list[dict[int, np.ndarray]], float]:
        _dp.clear_caches()
        t0 = time.process_time_ns()
        out = [oracle.best_counts_by_card(c.table, c.hand, c.rules) for c in calls]
        return out, (time.process_time_ns() - t0) / 1e6 / max(len(calls), 1)

    saved = _dp.set_params()
    try:
        chosen, chosen_ms = passes()
        _dp.set_params(force=1)
        forced, forced_ms = passes()
    finally:
        _dp.set_params(force=saved["force"])
    same_values = same_positions = differing = total = 0
    for a, b in zip(chosen, forced, strict=True):
        total += len(a)
        same_values += a.keys() == b.keys() and all(int(a[k].sum()) == int(b[k].sum()) for k in a)
        diff = sum(k not in b or not np.array_equal(a[k], b[k]) for k in a)
        differing += diff
        same_positions += diff == 0 and a.keys() == b.keys()
    return {"positions": len(calls), "same_values": same_values, "same_plays": same_positions,
            "per_card_plays": total, "per_card_plays_differing": differing,
            "schedule_ms": chosen_ms, "forward_forced_ms": forced_ms}


# ---------------------------------------------------------------------------------------------- report
def _print(report: dict[str, Any]) -> None:
    s = report["rollout"]
    print(f"PPO rollout from the shipped checkpoint, 1 worker, {report['settings']['updates']} updates: "
          f"{s['lists']} exact lists, {s['total_ms']:.0f} ms")
    print(f"  the slowest 10% of lists take {100 * s['share_top_10pct']:.1f}% of that, the slowest 1% "
          f"{100 * s['share_top_1pct']:.1f}%; the slowest list {s['max_ms']:.1f} ms")
    for label in ("top", "others"):
        d = s[label]
        if d["lists"]:
            name = f"slowest {100 * report['settings']['top']:g}%" if label == "top" else "the others"
            print(f"  {name:12s} {d['lists']:5d} lists, {d['mean_ms']:6.2f} ms each; hands {d['hand_cards']:.1f} cards "
                  f"({d['hand_types']:.1f} types), tables {d['table_cards']:.1f} cards, {100 * d['full']:.1f}% full")
    r = report.get("replay")
    if r and r["lists"]:
        print(f"replayed {r['lists']} of them (built whole by the extension): {r['list_ms']:.2f} ms a list")
        for k, ms in r["parts_ms"].items():
            print(f"  {k:20s} {ms:6.2f} ms  {100 * ms / r['list_ms']:5.1f}%")
        methods = ", ".join(f"{k} {v}" for k, v in sorted(r["per_card_methods"].items()))
        print(f"  alone: the per-card pass {r['per_card_pass_ms']:.2f} ms (last answered by: {methods}), "
              f"the max-cards play {r['max_cards_play_ms']:.2f} ms")
    m = report.get("methods")
    if m and m["positions"]:
        print(f"per-card pass on the {m['positions']} slowest positions, the forward graph forced: the same values at "
              f"{m['same_values']}, the same plays at {m['same_plays']}; {m['per_card_plays_differing']} of "
              f"{m['per_card_plays']} per-card plays differ; {m['schedule_ms']:.2f} ms a position as scheduled, "
              f"{m['forward_forced_ms']:.2f} ms forced")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--updates", type=int, default=6, help="PPO updates of the recorded run (default 6)")
    ap.add_argument("--top", type=float, default=0.1, help="the fraction of slowest lists replayed (default 0.1)")
    ap.add_argument("--methods", type=int, default=120, help="positions of part 3 (default 120; 0 skips it)")
    ap.add_argument("--json", type=Path, metavar="OUT", help="write every figure here")
    args = ap.parse_args(argv)
    if args.updates < 1:
        ap.error(f"--updates must be >= 1, got {args.updates}")
    if not 0 < args.top <= 1:
        ap.error(f"--top must be in (0, 1], got {args.top}")
    if args.methods < 0:
        ap.error(f"--methods must be >= 0, got {args.methods}")
    with tempfile.TemporaryDirectory(prefix="rollout_lists_") as tmp:
        calls = record_rollout(args.updates, Path(tmp))
    report: dict[str, Any] = {"settings": {"updates": args.updates, "top": args.top, "methods": args.methods},
                              "rollout": summarize(calls, args.top)}
    replayed = [c for c in slowest(calls, args.top) if _built_whole(c)]
    report["replay"] = replay(replayed) if replayed else {"lists": 0}
    if args.methods:
        report["methods"] = compare_methods(replayed[:args.methods])
    _print(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
