"""Record the oracle's answers on a fixed set of positions, to prove that a change keeps them.

Positions: the shared oracle cases, then the turn-by-turn positions of seeded games (greedy and
hoarder seats) on several rules presets, jokers and wrap included. For each position it records
``best_play`` for both objectives, ``repack`` of the hand's best play, ``best_plays_by_card`` and
``opening_play`` where the rules ask for an opening. Two digests are printed: one over values and
played counts (what an exact oracle must keep), one that also covers the meld arrangements (kept by
a change that only moves code).

    python benchmarks/oracle_dump.py --out before.jsonl
    python benchmarks/oracle_dump.py --out after.jsonl && cmp before.jsonl after.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from machiavelli_env.agents.arena import play_game  # noqa: E402
from machiavelli_env.agents.registry import make_agent  # noqa: E402

from machiavelli_env import game  # noqa: E402
from machiavelli_env.cards import to_counts  # noqa: E402
from machiavelli_env.oracle import best_play, best_plays_by_card, opening_play, repack  # noqa: E402
from machiavelli_env.rules import Rules  # noqa: E402

# the shared cases beside the checkout, else the copy the tests carry (a clone on its own)
CASES = next((p for p in (ROOT.parent / "shared" / "oracle_cases" / "cases.jsonl",
                          ROOT / "tests" / "data" / "oracle_cases" / "cases.jsonl") if p.exists()),
             ROOT / "tests" / "data" / "oracle_cases" / "cases.jsonl")
PRESETS = ("classic", "ace_wrap", "classic_jokers", "jokers2", "spanish_comodines", "opening_points36")


def case_positions(limit: int) -> list[tuple[str, Rules, np.ndarray, np.ndarray]]:
    """(id, rules, table, hand) of the shared cases (the first ``limit``)."""
    out = []
    if not CASES.exists():
        return out
    for line in CASES.read_text().splitlines()[:limit]:
        case = json.loads(line)
        rules = Rules.load(case["rules"])
        out.append((case["id"], rules, to_counts(case["table"]), to_counts(case["hand"])))
    return out


def game_positions(games: int) -> list[tuple[str, Rules, np.ndarray, np.ndarray]]:
    """(id, rules, table, hand) before every move of ``games`` seeded games per preset."""
    out = []
    for preset in PRESETS:
        rules = Rules.load(preset)
        for g in range(games):
            seats = ["greedy", "hoarder"] * rules.players
            agents = [make_agent(s, rules) for s in seats[: rules.players]]

            def on_step(before: game.State, after: game.State, action: np.ndarray, tag: str = f"{preset}-{g}") -> None:
                hand = before.hands[before.current].copy()
                out.append((f"{tag}-{before.turn}", before.rules, before.table.copy(), hand))

            play_game(rules, agents, seed=1000 + g, on_step=on_step)
    return out


def answer(rules: Rules, table: np.ndarray, hand: np.ndarray) -> dict[str, Any]:
    """Everything the dump records for one position."""
    res: dict[str, Any] = {}
    for objective in ("cards", "points"):
        p = best_play(table, hand, rules, objective=objective)
        res[objective] = [int(p.value), p.counts.tolist(), p.melds]
    play = np.asarray(res["cards"][1])
    res["repack"] = repack(table, play, rules)
    by_card = best_plays_by_card(table, hand, rules)
    res["by_card"] = {int(c): None if p is None else [int(p.value), p.counts.tolist(), p.melds]
                      for c, p in sorted(by_card.items())}
    if rules.opening != "none":
        p = opening_play(hand, rules)
        res["opening"] = None if p is None else [int(p.value), p.counts.tolist(), p.melds]
    return res


def strip_melds(res: dict[str, Any]) -> dict[str, Any]:
    """The answer without arrangements (values and counts only)."""
    def strip(v: Any) -> Any:
        return v[:2] if isinstance(v, list) and len(v) == 3 and isinstance(v[0], int) else v
    out = {k: strip(v) for k, v in res.items() if k != "repack"}
    out["repack"] = res["repack"] is not None
    out["by_card"] = {c: strip(v) for c, v in res["by_card"].items()}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="write one JSON line per position here")
    ap.add_argument("--cases", type=int, default=270, help="shared cases to include (default 270)")
    ap.add_argument("--games", type=int, default=6, help="seeded games per preset (default 6)")
    args = ap.parse_args(argv)
    positions = case_positions(args.cases) + game_positions(args.games)
    full, values = hashlib.sha256(), hashlib.sha256()
    sink = args.out.open("w") if args.out else None
    for pid, rules, table, hand in positions:
        res = answer(rules, table, hand)
        line = json.dumps({"id": pid, **res}, sort_keys=True)
        full.update(line.encode())
        values.update(json.dumps(strip_melds(res), sort_keys=True).encode())
        if sink:
            sink.write(line + "\n")
    if sink:
        sink.close()
    print(f"positions {len(positions)}  values+counts {values.hexdigest()[:16]}  with melds {full.hexdigest()[:16]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
