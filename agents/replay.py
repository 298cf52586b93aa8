"""``machiavelli replay FILE``: re-simulate saved games and show them move by move in the terminal.

Records are JSON Lines, one game per line, as written by ``machiavelli eval --records`` and
``machiavelli league --records`` (:func:`agents.arena.play_game` with ``record=True``: ``env``,
``rules``, ``seed``, ``seats``, ``moves`` with each move's ``turn``, ``player``, ``action`` and
public ``event``, ``result``; plus the game's index ``game``). A record holds no hidden cards:
replaying deals again from the seed with the engine (:func:`agents.arena.replay_states`) and checks
that every recorded event happens again, so a record from another engine version fails loudly.

Only the engine and the text renderer are used; the public table is shown after each move (hands
only with ``--hands``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from machiavelli_env.game import State
from machiavelli_env.render import render_text

from .arena import replay_states

RECORD_KEYS = ("env", "rules", "seed", "seats", "moves")


class RecordError(ValueError):
    """A records file that cannot be read or replayed; the message names the file and line."""


def read_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """All game records of a JSON Lines file (blank lines skipped); each gets ``game`` (its position if absent)."""
    p = Path(path)
    if not p.exists():
        raise RecordError(f"no such records file: {path}")
    if p.is_dir():
        raise RecordError(f"{path} is a folder; give a records file (JSON Lines, one game per line)")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{path} is not a text file (records are JSON Lines, one game per line)") from None
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
    records: list[dict[str, Any]] = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(f"{path}:{i}: not a JSON line ({exc.msg} at column {exc.colno})") from None
        if not isinstance(rec, dict):
            raise RecordError(f"{path}:{i}: a record is a JSON object, got {type(rec).__name__}")
        missing = [k for k in RECORD_KEYS if k not in rec]
        if missing:
            hint = " (this looks like a league games.jsonl line; use --records when running the league)" if (
                "result" in rec and "moves" not in rec) else ""
            raise RecordError(f"{path}:{i}: not a game record: missing {', '.join(missing)}{hint}")
        if not isinstance(rec["moves"], list) or not isinstance(rec["seats"], list):
            raise RecordError(f"{path}:{i}: moves and seats must be lists")
        rec.setdefault("game", len(records))
        rec["_line"] = i
        records.append(rec)
    if not records:
        raise RecordError(f"{path} holds no game records")
    return records


def select_record(records: list[dict[str, Any]], game: int | None, path: str = "records") -> dict[str, Any]:
    """The record whose ``game`` is ``game`` (the first record when ``game`` is None)."""
    if game is None:
        return records[0]
    for rec in records:
        if rec["game"] == game:
            return rec
    have = [r["game"] for r in records]
    shown = ", ".join(map(str, have[:10])) + (", ..." if len(have) > 10 else "")
    raise RecordError(f"{path} has no game {game}; it holds games {shown}")


def _verb(move: dict[str, Any]) -> str:
    event = str(move["event"]).split(":")
    kind, rest = event[0], event[1:]
    cards = move.get("action") or ""
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

    Raises :class:`RecordError` when the record does not replay.
    """
    try:
        states: list[State] = replay_states(record)
    except (ValueError, KeyError, TypeError) as exc:
        where = f"game {record.get('game')} (line {record.get('_line', '?')})"
        raise RecordError(f"{where} does not replay: {exc}") from None
    seats = record["seats"]
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
    pts = record.get("result", {}).get("penalty_points")
    yield f"\n{outcome}" + (f"; penalty points {pts}" if pts is not None else "")


def list_text(records: list[dict[str, Any]]) -> Iterator[str]:
    """One line per record: game, rules, seats, winner, moves."""
    for r in records:
        res = r.get("result", {})
        w = res.get("winner", -1)
        who = f"{r['seats'][w]} (player_{w})" if isinstance(w, int) and 0 <= w < len(r["seats"]) else "nobody"
        name = r["rules"].get("name", "?") if isinstance(r["rules"], dict) else r["rules"]
        yield f"game {r['game']}: {name}, {', '.join(r['seats'])}; {len(r['moves'])} moves; winner {who}"


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

    if args.delay < 0:
        raise UsageError(f"--delay must be >= 0, got {args.delay}")
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
