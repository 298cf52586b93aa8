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
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from machiavelli_env.game import State
from machiavelli_env.records import printable, read_jsonl
from machiavelli_env.render import render_text
from machiavelli_env.rules import Rules

from .arena import replay_states

RECORD_KEYS = ("env", "rules", "seed", "seats", "moves")


class RecordError(ValueError):
    """A records file that cannot be read or replayed; the message names the file and line."""


#: Longest seat name or move text a record may hold.
MAX_TEXT = 200
_MAX_SEED = 2**64


def check_record(rec: Any) -> str | None:
    """The first problem of a parsed game record, naming the field (``None`` when it is well formed).

    Checks the types and ranges of every field :func:`replay_text` reads (``env``, ``rules`` as
    fields or a preset name, ``seed``, ``seats``, each move's ``turn``, ``player``, ``action``
    and ``event``, the optional ``result`` and ``game``); whether the moves replay is
    :func:`agents.arena.replay_states`'s question.
    """
    if not isinstance(rec, dict):
        return f"a record is a JSON object, got {type(rec).__name__}"
    missing = [k for k in RECORD_KEYS if k not in rec]
    if missing:
        hint = " (this looks like a league games.jsonl line; use --records when running the league)" if (
            "result" in rec and "moves" not in rec) else ""
        return f"not a game record: missing {', '.join(missing)}{hint}"
    if type(rec["env"]) is not str:
        return "field 'env' must be a string"
    try:
        rules = Rules.from_data(rec["rules"])
    except (ValueError, TypeError) as exc:
        return f"field 'rules': {exc}"
    n = rules.players
    if type(rec["seed"]) is not int or not 0 <= rec["seed"] < _MAX_SEED:
        return "field 'seed' must be an integer in 0..2**64-1"
    seats = rec["seats"]
    if not isinstance(seats, list) or len(seats) != n or not all(
            type(x) is str and 0 < len(x) <= MAX_TEXT for x in seats):
        return f"field 'seats' must list {n} seat names (strings of 1..{MAX_TEXT} characters), one per player"
    if not isinstance(rec["moves"], list):
        return "field 'moves' must be a list"
    for i, m in enumerate(rec["moves"]):
        if not isinstance(m, dict):
            return f"move {i} must be an object"
        for key in ("turn", "player", "action", "event"):
            if key not in m:
                return f"move {i} has no '{key}'"
        if type(m["turn"]) is not int or m["turn"] < 0:
            return f"move {i}: 'turn' must be a non-negative integer"
        if type(m["player"]) is not int or not 0 <= m["player"] < n:
            return f"move {i}: 'player' must be a seat 0..{n - 1}"
        if type(m["action"]) is not str or len(m["action"]) > 4 * MAX_TEXT:
            return f"move {i}: 'action' must be a card string"
        if type(m["event"]) is not str or len(m["event"]) > MAX_TEXT:
            return f"move {i}: 'event' must be a string"
    res = rec.get("result", {})
    if not isinstance(res, dict):
        return "field 'result' must be an object"
    if "winner" in res and (type(res["winner"]) is not int or not -1 <= res["winner"] < n):
        return f"field 'result.winner' must be -1 or a seat 0..{n - 1}"
    pts = res.get("penalty_points")
    if pts is not None and (not isinstance(pts, list) or len(pts) != n or not all(type(x) is int for x in pts)):
        return f"field 'result.penalty_points' must list {n} integers"
    if "result" in res and type(res["result"]) is not str:
        return "field 'result.result' must be a string"
    if "game" in rec and (type(rec["game"]) is not int or rec["game"] < 0):
        return "field 'game' must be a non-negative integer"
    return None


def read_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every game record of a JSON Lines file (blank lines skipped), each with ``game`` and ``_line``.

    ``game`` is the record's own index, else its position among the file's records. A line that
    is not a well-formed record (:func:`check_record`) is kept as ``{"game", "_line", "_error"}``
    so that the other games stay readable; :class:`RecordError` when the file cannot be read or
    holds no good record at all (naming the first bad line).
    """
    p = Path(path)
    where = printable(os.fspath(path), 200)
    if not p.exists():
        raise RecordError(f"no such records file: {where}")
    if p.is_dir():
        raise RecordError(f"{where} is a folder; give a records file (JSON Lines, one game per line)")
    records: list[dict[str, Any]] = []
    try:
        with p.open("rb") as f:
            for line in read_jsonl(f):
                problem = line.error if line.error is None else (
                    "not a JSON line (" + line.error.removeprefix("bad JSON: ") + ")")
                if problem is None:
                    problem = check_record(line.value)
                if problem is not None:
                    records.append({"game": len(records), "_line": line.number, "_error": problem})
                    continue
                rec = dict(line.value)
                rec.setdefault("game", len(records))
                rec["_line"] = line.number
                records.append(rec)
    except OSError as exc:
        raise RecordError(f"cannot read {where}: {exc.strerror or type(exc).__name__}") from None
    if not records:
        raise RecordError(f"{where} holds no game records")
    if all("_error" in r for r in records):
        first = records[0]
        raise RecordError(f"{where}:{first['_line']}: {first['_error']}")
    return records


def select_record(records: list[dict[str, Any]], game: int | None, path: str = "records") -> dict[str, Any]:
    """The record whose ``game`` is ``game`` (the first good record when ``game`` is None).

    :class:`RecordError` when there is no such game or its line is not a good record.
    """
    where = printable(path, 200)
    if game is None:
        rec = next((r for r in records if "_error" not in r), records[0])
    else:
        rec = next((r for r in records if r["game"] == game), None)
        if rec is None:
            have = [r["game"] for r in records]
            shown = ", ".join(map(str, have[:10])) + (", ..." if len(have) > 10 else "")
            raise RecordError(f"{where} has no game {game}; it holds games {shown}")
    if "_error" in rec:
        raise RecordError(f"{where}:{rec['_line']}: {rec['_error']}")
    return rec


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
