"""Game records on disk: reading and checking the JSON Lines files of ``machiavelli eval/league --records``
and of ``machiavelli serve`` (one :func:`agents.arena.game_record` per line, plus its index ``game``).

Records are untrusted data: the file is read as bytes by :func:`machiavelli_env.records.read_jsonl`
(strict JSON, nesting bounded) and every record is checked field by field (:func:`check_record`)
before anything replays it; the ``rules`` of a record are fields or a preset name, never a file.
A bad line costs only itself (:func:`read_records` keeps it with its error).

This module sits below the viewers (:mod:`agents.replay`, :mod:`agents.replay_html`) and the web
server (:mod:`agents.web`), which all import it; it imports none of them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from machiavelli_env.records import printable, read_jsonl
from machiavelli_env.rules import Rules

__all__ = ["MAX_TEXT", "RECORD_KEYS", "RecordError", "check_record", "read_records", "select_record"]

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
    ranks = res.get("ranks")
    if ranks is not None and (not isinstance(ranks, list) or len(ranks) != n or not all(
            type(x) is int and 0 <= x < n for x in ranks)):
        return f"field 'result.ranks' must list {n} ranks 0..{n - 1}"
    if "turns" in res and (type(res["turns"]) is not int or res["turns"] < 0):
        return "field 'result.turns' must be a non-negative integer"
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
