"""Record exact legal-play lists on a fixed set of positions, to prove that a change keeps them.

Positions: every move of seeded games on every rules preset, with ``greedy``,
``hoarder[search_work=20000]`` (big hands) and ``random[exact_lists=1]`` seats, and the stress
configurations of ``benchmarks/tail.py`` when ``--stress`` is given. For each position the exact
list (:func:`machiavelli_env.legal.legal_plays`, no budget, caches cleared) is recorded with
``limit`` 32 and 6, help pile and opening state included. The digest covers the positions and the lists, in order::

    python benchmarks/list_digest.py --out before.jsonl
    python benchmarks/list_digest.py --out after.jsonl && cmp before.jsonl after.jsonl

``--check`` compares the digest with the one recorded in ``tests/data/list_digest.json`` for the
same arguments (the test suite runs a short version of this).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from machiavelli_env.agents.base import turn_from_state  # noqa: E402
from machiavelli_env.agents.registry import make_agent  # noqa: E402

from machiavelli_env import game, legal  # noqa: E402
from machiavelli_env.rules import Rules, preset_names  # noqa: E402

#: the seats of the recorded games: ``hoarder`` with the bounded max-cards search it had by default
#: when the digests were recorded (its default is now the full schedule, which on some deals picks
#: another of equally good plays, and so reaches other positions)
SEATS = ("greedy", "hoarder[search_work=20000]", "random[exact_lists=1]")
LIMITS = (32, 6)


def positions(preset: str, games: int, seed: int, every: int) -> Iterator[tuple[Rules, np.ndarray, np.ndarray,
                                                                                 np.ndarray | None, bool]]:
    """(rules, table, hand, help or None, opened) of every ``every``-th move of ``games`` games."""
    rules = Rules.load(preset)
    for g in range(games):
        kinds = [SEATS[(g + i) % len(SEATS)] for i in range(rules.players)]
        agents = [make_agent(kind, rules, seed=seed + g * 10 + i) for i, kind in enumerate(kinds)]
        state = game.new_game(rules, seed + g)
        n = 0
        while not state.done and n < 400:
            p = state.current
            if n % every == 0:
                help_ = state.help.copy() if game.help_usable(state, p) else None
                yield rules, state.table.copy(), state.hands[p].copy(), help_, bool(state.opened[p])
            turn = turn_from_state(state, p, limit=32)
            state = game.step(state, np.asarray(agents[p].act(turn), dtype=np.int64))
            n += 1


def record(preset: str, games: int, seed: int, every: int) -> Iterator[dict]:
    """One JSON-ready line per position: the position and its exact lists."""
    for rules, table, hand, help_, opened in positions(preset, games, seed, every):
        lists = {}
        for limit in LIMITS:
            legal.clear_caches()
            plays = legal.legal_plays(table, hand, rules, opened=opened, limit=limit, help=help_)
            lists[str(limit)] = [np.flatnonzero(p).tolist() + [-1] + p[p > 0].tolist() for p in plays]
        yield {"preset": preset, "table": table.tolist(), "hand": hand.tolist(),
               "help": None if help_ is None else help_.tolist(), "opened": opened, "lists": lists}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presets", default="all", help="comma-separated presets, or 'all'")
    ap.add_argument("--games", type=int, default=3, help="games per preset")
    ap.add_argument("--seed", type=int, default=4100)
    ap.add_argument("--every", type=int, default=1, help="record every N-th move")
    ap.add_argument("--out", type=Path, help="write every position and list as JSON lines")
    ap.add_argument("--check", action="store_true", help="compare with tests/data/list_digest.json")
    args = ap.parse_args(argv)
    presets = preset_names() if args.presets == "all" else args.presets.split(",")
    digest = hashlib.sha256()
    out = args.out.open("w") if args.out else None
    count = 0
    start = time.process_time()
    for preset in presets:
        for line in record(preset, args.games, args.seed, args.every):
            text = json.dumps(line, sort_keys=True)
            digest.update(text.encode() + b"\n")
            if out:
                out.write(text + "\n")
            count += 1
    if out:
        out.close()
    key = f"{args.presets}|{args.games}|{args.seed}|{args.every}"
    print(f"{count} positions, {len(presets)} presets, lists in {time.process_time() - start:.1f} s CPU")
    print(f"digest {digest.hexdigest()[:16]}  ({key})")
    if args.check:
        recorded = json.loads((ROOT / "tests" / "data" / "list_digest.json").read_text()).get(key)
        if recorded is None:
            print("no recorded digest for these arguments")
            return 1
        ok = recorded == digest.hexdigest()[:16]
        print("same as recorded" if ok else f"DIFFERS from recorded {recorded}")
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
