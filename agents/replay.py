"""``machiavelli replay FILE``: re-simulate saved games and show them move by move in the terminal.

Records are JSON Lines, one game per line, as written by ``machiavelli eval --records`` and
``machiavelli league --records`` (:func:`agents.arena.play_game` with ``record=True``: ``env``,
``rules``, ``seed``, ``seats``, ``moves`` with each move's ``turn``, ``player``, ``action`` and
public ``event``, ``result``; plus the game's index ``game``). A record holds no hidden cards:
replaying deals again from the seed with the engine (:func:`agents.arena.replay_states`) and checks
that every recorded event happens again, so a record from another engine version fails loudly.

Only the engine and the text renderer are used; the public table is shown after each move (hands
only with ``--hands``).

Records are untrusted data: the file is read as bytes by :func:`machiavelli_env.records.read_jsonl`
(strict JSON, nesting bounded) and every record is checked field by field (:func:`check_record`)
before it is replayed; the ``rules`` of a record are fields or a preset name, never a file. A bad
line costs only itself: ``--list`` shows it with its error, and another game still replays. Names
and other text from a record are printed with terminal control characters escaped.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from typing import Any

from machiavelli_env.game import State
from machiavelli_env.records import printable
from machiavelli_env.render import render_text

from .arena import replay_states
from .gamerecords import MAX_TEXT, RECORD_KEYS, RecordError, check_record, read_records, select_record

__all__ = ["MAX_TEXT", "RECORD_KEYS", "RecordError", "add_replay_arguments", "check_record", "list_text",
           "read_records", "replay_text", "run_replay", "select_record"]


def _verb(move: dict[str, Any]) -> str:
    event = printable(move["event"], MAX_TEXT).split(":")
    kind, rest = event[0], event[1:]
    cards = printable(move.get("action") or "", 4 * MAX_TEXT)
    text = {
        "play": f"plays {cards}",
        "failed": f"tries {cards}: cannot be repacked, the cards are shown and a penalty card drawn",
        "draw": "draws",
        "pass": "passes (stock empty)",
    }.get(kind, kind)
    if rest:
        text += " -> " + " ".join(r.replace("_", " ") for r in rest)
    return text


def replay_text(record: dict[str, Any], *, color: bool = False, hands: bool = False) -> Iterator[str]:
    """The replay as text blocks: a header, the deal, then each move with the table after it.

    Raises :class:`RecordError` when the record is not well formed (:func:`check_record`) or does
    not replay.
    """
    where = f"game {record.get('game')} (line {record.get('_line', '?')})"
    problem = record.get("_error") or check_record({k: v for k, v in record.items() if k != "_line"})
    if problem is not None:
        raise RecordError(f"{where}: {problem}")
    try:
        states: list[State] = replay_states(record)
    except (ValueError, KeyError, TypeError) as exc:
        raise RecordError(f"{where} does not replay: {printable(str(exc), 300)}") from None
    seats = [printable(name, MAX_TEXT) for name in record["seats"]]
    rules = states[0].rules
    yield (f"game {record.get('game')}: {rules.name}, {rules.players} players, seed {record['seed']}; "
           + ", ".join(f"player_{i} = {name}" for i, name in enumerate(seats)))
    yield render_text(states[0], color=color, show_hands=hands)
    for move, after in zip(record["moves"], states[1:], strict=True):
        p = int(move["player"])
        yield f"\nturn {move['turn']}: player_{p} ({seats[p]}) {_verb(move)}\n" + render_text(
            after, color=color, show_hands=hands)
    last = states[-1]
    if last.winner >= 0:
        outcome = f"player_{last.winner} ({seats[last.winner]}) wins ({last.result})"
    else:
        outcome = f"no winner ({last.result})"
    pts = record.get("result", {}).get("penalty_points")  # checked by check_record
    yield f"\n{outcome}" + (f"; penalty points {pts}" if pts is not None else "")


def list_text(records: list[dict[str, Any]]) -> Iterator[str]:
    """One line per record: game, rules, seats, winner, moves (a bad line: its number and problem)."""
    for r in records:
        if "_error" in r:
            yield f"game {r['game']}: line {r['_line']} is not a good record: {r['_error']}"
            continue
        res = r.get("result", {})
        seats = [printable(x, MAX_TEXT) for x in r["seats"]]
        w = res.get("winner", -1)
        who = f"{seats[w]} (player_{w})" if 0 <= w < len(seats) else "nobody"
        name = printable(r["rules"].get("name", "?") if isinstance(r["rules"], dict) else r["rules"], 100)
        yield f"game {r['game']}: {name}, {', '.join(seats)}; {len(r['moves'])} moves; winner {who}"


# ====================================================================== CLI
def add_replay_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``machiavelli replay``."""
    p.description = ("Replay a saved game (machiavelli eval/league --records FILE) move by move with the public "
                     "table, re-simulated by the engine.")
    p.add_argument("file", metavar="FILE", help="records file (JSON Lines, one game per line)")
    p.add_argument("--game", type=int, default=None, metavar="N", help="the game to show (default: the first)")
    p.add_argument("--delay", type=float, default=0.0, metavar="S", help="seconds to wait between moves (default 0)")
    p.add_argument("--list", action="store_true", help="list the games in the file and exit")
    p.add_argument("--hands", action="store_true", help="also show every player's hand (not public)")
    p.add_argument("--no-color", action="store_true", help="plain text without ANSI colours")
    p.add_argument("--html", metavar="OUT.html", default=None,
                   help="write the game as one self-contained web page (all hands shown) instead")


def run_replay(args: argparse.Namespace) -> int:
    """Run ``machiavelli replay``."""
    from machiavelli_env.cli import UsageError

    if not 0 <= args.delay <= 60:  # NaN fails too
        raise UsageError(f"--delay must be >= 0 (and at most 60 seconds), got {args.delay}")
    try:
        records = read_records(args.file)
        if args.list:
            for line in list_text(records):
                print(line)
            return 0
        record = select_record(records, args.game, args.file)
        if args.html is not None:  # the web page: agents/replay_html.py
            from .replay_html import html_command

            print(html_command(record, args.html))
            return 0
        color = not args.no_color and sys.stdout.isatty()
        blocks = replay_text(record, color=color, hands=args.hands)
        first = next(blocks)  # replays the whole game: a bad record fails before anything is shown
        if args.game is None and len(records) > 1:
            first += f"  [game {record['game']} of {len(records)} in {args.file}; --game N, --list]"
        print(first, flush=True)
        for block in blocks:
            if args.delay:
                time.sleep(args.delay)
            print(block, flush=True)
    except RecordError as exc:
        raise UsageError(str(exc)) from None
    return 0
