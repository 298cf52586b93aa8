"""The games of ``machiavelli serve``: one person against registry agents, on the pure engine.

This module knows nothing of HTTP (the Starlette app is :mod:`agents.web.app`); it validates every
request's data itself and raises :class:`WebError` (an HTTP status and a message) for anything it
refuses, before changing anything. Rules and legality are the engine's: a play is checked with
:func:`machiavelli_env.legal.check_play` (the oracle) and made with :func:`machiavelli_env.game.step`;
hints are :func:`machiavelli_env.game.legal_plays`; what a move did to the table is
:func:`agents.tableview.step_view`, the same data the replay viewer shows.

:class:`GameStore` holds the live games by random id (``secrets``), lets idle ones expire (its
``clock`` is injected, so tests drive expiry without sleeping), bounds how many it keeps, and
serialises all engine work behind one lock (the oracle's caches and its integer-programme fallback
are not thread-safe; a move takes milliseconds for every agent but ``search``). A finished game is
appended to ``records.jsonl`` in the records folder as an :func:`agents.arena.game_record` (the
format of ``machiavelli eval/league --records``), the person's seat named ``human:NAME``.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from machiavelli_env import game, legal
from machiavelli_env.cards import NUM_TYPES, card_name, format_cards, from_counts
from machiavelli_env.records import dumps
from machiavelli_env.rules import Rules, RulesError, preset_names

from ..arena import game_record, penalty_points
from ..base import Agent, fallback_action, turn_from_state
from ..gamerecords import check_record
from ..registry import AGENT_NAMES, AgentSpecError, make_agent
from ..tableview import cards, step_view

__all__ = [
    "DEFAULT_OPPONENTS",
    "GameStore",
    "RecordWriter",
    "WebError",
    "WebGame",
    "explain_illegal",
]

#: Opponents a request may pick by default: every registry agent but ``human``.
DEFAULT_OPPONENTS: tuple[str, ...] = tuple(a for a in AGENT_NAMES if a != "human")
#: How long an untouched game lives (seconds).
DEFAULT_TTL = 30 * 60.0
#: Most games held at once (finished ones included, until they expire).
DEFAULT_MAX_GAMES = 200
#: Most moves a game keeps in its log sent to the page (the record keeps all).
LOG_LENGTH = 400
#: Most hints (legal plays) one request returns.
MAX_HINTS = 20
_NAME = re.compile(r"[A-Za-z0-9_.\- ]{1,32}")
_ID = re.compile(r"[A-Za-z0-9_-]{22}")
_NEW_GAME_KEYS = frozenset({"rules", "players", "opponents", "name", "seat", "seed"})
_MAX_SEED = 2**63


class WebError(Exception):
    """A request the server refuses: an HTTP ``status`` (4xx/503) and a message for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _int(value: Any, what: str, lo: int, hi: int) -> int:
    if type(value) is not int or not lo <= value <= hi:
        raise WebError(422, f"{what} must be a whole number {lo}..{hi}, got {_short(value)}")
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def rules_for(preset: str, players: int) -> Rules:
    """The rules of a preset for ``players`` (``classic`` for 4 players is ``classic_4p``, as in a league)."""
    specific = f"{preset}_{players}p"
    if specific in preset_names():
        return Rules.load(specific)
    return Rules.load(preset, players=players)


def explain_illegal(state: game.State, seat: int, play: np.ndarray) -> str | None:
    """Why ``play`` (a count vector) cannot go down for ``seat`` now; ``None`` when it can.

    Every answer comes from the engine: :func:`machiavelli_env.game.check_action` (cards held),
    :func:`machiavelli_env.legal.check_play` (the oracle) and, for an opening lay-down that fails,
    :func:`machiavelli_env.legal.arrange_play` without the opening requirement (do the cards form
    melds at all?).
    """
    try:
        counts = game.check_action(state, play)
    except game.ActionError as exc:
        return str(exc).replace(f"player {seat} does", "you do")
    rules, hand, opened = state.rules, state.hands[seat], bool(state.opened[seat])
    usable = game.help_usable(state, seat)
    ok, _ = legal.check_play(state.table, hand, counts, rules, opened=opened,
                             help=state.help if usable else None)
    if ok:
        return None
    from_hand, from_help = legal.split_play(counts, hand)
    if not from_hand.any():
        return "a play must lay down at least one card from your hand"
    if legal.needs_opening(rules, opened):
        if from_help.any():
            return "your opening lay-down comes from your hand alone: the help pile is not yours until you have opened"
        free = rules.replace(opening="none")
        melds = legal.arrange_play(np.zeros(NUM_TYPES, np.int64), hand, counts, free, opened=True)
        need = ("a group (three or four cards of one rank)" if rules.opening == "group"
                else f"at least {rules.opening_points} points")
        if melds is not None:
            return (f"these cards form melds, but your first lay-down must hold {need} "
                    f"(rules {rules.name}: opening {rules.opening})")
        return (f"your first lay-down must be melds of your own cards holding {need}, with the table untouched; "
                "these cards do not form melds on their own")
    n_table = int(state.table.sum())
    where = f"with the {n_table} cards on the table" if n_table else "on the empty table"
    k = int(counts.sum())
    return (f"{'this card' if k == 1 else f'these {k} cards'} cannot be arranged {where} into valid melds "
            "(runs of three or more of one suit, groups of three or four of one rank)")


@dataclass
class _Move:
    turn: int
    player: int
    action: str
    event: str


class RecordWriter:
    """Appends finished games to ``FOLDER/records.jsonl``, one :func:`agents.arena.game_record` a line.

    Games are numbered in the file (``game``) in the order they finish, continuing an existing file.
    """

    FILE = "records.jsonl"

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / self.FILE
        self._lock = threading.Lock()
        self._next = 0
        if self.path.exists():
            with open(self.path, "rb") as f:
                self._next = sum(1 for line in f if line.strip())

    def write(self, record: dict[str, Any]) -> int:
        """Append ``record`` (checked first); return its ``game`` index in the file."""
        problem = check_record(record)
        if problem is not None:  # never write what replay would refuse
            raise ValueError(f"refusing to write a bad record: {problem}")
        with self._lock:
            g = self._next
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(dumps({"game": g, **record}) + "\n")
                f.flush()
            self._next += 1
        return g


@dataclass
class WebGame:
    """One game: the person in seat ``seat``, agents in the others; the engine state and the moves."""

    id: str
    rules: Rules
    seed: int
    seat: int
    seats: list[str]
    agents: list[Agent | None]
    state: game.State
    touched: float
    limit: int = 32
    moves: list[_Move] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    last: dict[str, Any] = field(default_factory=dict)
    record_game: int | None = None
    record_file: str | None = None
    notes: list[str] = field(default_factory=list)

    def view(self) -> dict[str, Any]:
        """What the page shows: the person's hand, the table with the last move highlighted, the log."""
        s = self.state
        out: dict[str, Any] = {
            "id": self.id,
            "rules": self.rules.name,
            "opening": self.rules.opening,
            "players": self.rules.players,
            "seed": str(self.seed),  # a string: JavaScript numbers hold 53 bits
            "seat": self.seat,
            "seats": self.seats,
            "current": s.current,
            "turn": s.turn,
            "done": bool(s.done),
            "your_turn": not s.done and s.current == self.seat,
            "draw_allowed": (not s.done and s.current == self.seat and game.draw_allowed(s, self.seat)),
            "help_usable": bool(not s.done and game.help_usable(s, self.seat)),
            "step": self.last,
            "log": self.log[-LOG_LENGTH:],
            "moves": len(self.moves),
            "notes": self.notes[-5:],
        }
        if s.done:
            points = penalty_points(s)
            out["result"] = {
                "winner": s.winner, "result": s.result, "penalty_points": points,
                "outcome": self._outcome(),
                "record": None if self.record_game is None else {"file": self.record_file, "game": self.record_game},
            }
        return out

    def _outcome(self) -> str:
        s = self.state
        if s.winner == self.seat:
            return "You win!"
        if s.winner >= 0:
            return f"{self.seats[s.winner]} wins ({s.result})"
        return f"no winner ({s.result})"

    # ------------------------------------------------------------------ moves
    def _apply(self, action: np.ndarray) -> None:
        before = self.state
        after = game.step(before, action)
        self.moves.append(_Move(before.turn, before.current, format_cards(from_counts(action)), after.event))
        self.last = step_view(before, after, action, self.seats, viewer=self.seat)
        mv = self.last["move"]
        self.log.append({"turn": before.turn, "player": mv["player"], "kind": mv["kind"], "text": mv["text"]})
        self.state = after

    def _require_turn(self, mine: bool) -> None:
        if self.state.done:
            raise WebError(409, "the game is over; start a new game")
        if mine and self.state.current != self.seat:
            raise WebError(409, f"it is not your turn: {self.seats[self.state.current]} is to move")
        if not mine and self.state.current == self.seat:
            raise WebError(409, "it is your turn: play or draw")

    def play(self, selected: Any) -> None:
        """The person lays down ``selected`` (a list of card types 0..52, copies repeated)."""
        self._require_turn(True)
        if not isinstance(selected, list) or not selected:
            raise WebError(422, "select the cards to play ('cards': a list of card numbers 0..52)")
        if len(selected) > 60:
            raise WebError(422, f"a play holds at most 60 cards, got {len(selected)}")
        if not all(type(c) is int and 0 <= c < NUM_TYPES for c in selected):
            raise WebError(422, "'cards' must be card numbers 0..52")
        counts = np.bincount(np.asarray(selected, dtype=np.int64), minlength=NUM_TYPES).astype(np.int64)
        why = explain_illegal(self.state, self.seat, counts)
        if why is not None:
            names = format_cards(from_counts(counts), symbols=True)
            raise WebError(422, f"{names} cannot go down: {why}")
        self._apply(counts)
        assert self.state.event.startswith("play"), self.state.event

    def draw(self) -> None:
        """The person draws a card (passes when the stock is empty)."""
        self._require_turn(True)
        if not game.draw_allowed(self.state, self.seat):
            raise WebError(409, "you cannot draw: a legal play exists and these rules (must_play_if_able) "
                                "forbid drawing; ask for a hint")
        self._apply(np.zeros(NUM_TYPES, dtype=np.int64))

    def advance(self) -> None:
        """The agent to move makes one move."""
        self._require_turn(False)
        p = self.state.current
        agent = self.agents[p]
        assert agent is not None
        turn = turn_from_state(self.state, p, limit=self.limit)
        try:
            action = np.asarray(agent.act(turn), dtype=np.int64)
            game.check_action(self.state, action)
            if action.any() and explain_illegal(self.state, p, action) is not None:
                raise ValueError(f"illegal play {format_cards(from_counts(action))}")
            if not action.any() and not turn.draw_allowed:
                raise ValueError("drew where it must play")
        except Exception as exc:  # noqa: BLE001 - a broken agent must not end the person's game
            self.notes.append(f"{self.seats[p]} failed to move ({type(exc).__name__}: {exc}); "
                              "it makes the fallback move")
            action = fallback_action(turn)
        self._apply(action)

    def hints(self, limit: int) -> list[dict[str, Any]]:
        """Legal plays of the person now, most cards first (then most points), at most ``limit``."""
        self._require_turn(True)
        plays = game.legal_plays(self.state, self.seat, limit=limit, budget=legal.ListBudget())
        out = []
        for p in plays[:limit]:
            cs = cards(p)
            out.append({"cards": cs, "names": " ".join(card_name(c, symbols=True) for c in cs), "count": len(cs),
                        "points": int(p @ legal.rules_info(self.rules).points)})
        return out

    def finish(self, writer: RecordWriter | None) -> None:
        """Write the finished game's record (once)."""
        if not self.state.done or self.record_game is not None or writer is None:
            return
        moves = [{"turn": m.turn, "player": m.player, "action": m.action, "event": m.event} for m in self.moves]
        record = game_record(self.rules, self.seed, self.seats, moves, self.state)
        self.record_game = writer.write(record)
        self.record_file = writer.FILE


class GameStore:
    """The live games by id, their expiry and limits, the engine lock and the record writer.

    ``clock`` (seconds, monotonic) decides expiry: a game untouched for ``ttl`` seconds is dropped
    (an unfinished one without a record). ``opponents``: the agent specs a request may choose
    (exact strings; by default the registry's names). Every public method may raise
    :class:`WebError`.
    """

    def __init__(
        self,
        records: str | Path | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        ttl: float = DEFAULT_TTL,
        max_games: int = DEFAULT_MAX_GAMES,
        opponents: Sequence[str] = DEFAULT_OPPONENTS,
        limit: int = 32,
    ) -> None:
        self.writer = RecordWriter(records) if records is not None else None
        self.clock = clock
        self.ttl = float(ttl)
        self.max_games = int(max_games)
        self.opponents = list(dict.fromkeys(opponents))
        self.limit = limit
        self.games: dict[str, WebGame] = {}
        self.lock = threading.RLock()  # engine work and the games dict; the oracle is not thread-safe
        self.expired = 0

    # ------------------------------------------------------------------ housekeeping
    def purge(self) -> int:
        """Drop the games untouched for ``ttl`` seconds; return how many went."""
        now = self.clock()
        with self.lock:
            old = [gid for gid, g in self.games.items() if now - g.touched > self.ttl]
            for gid in old:
                del self.games[gid]
            self.expired += len(old)
        return len(old)

    def options(self) -> dict[str, Any]:
        """What a new game may choose: presets, opponents, player counts, the default pace."""
        return {"presets": preset_names(), "opponents": self.opponents, "players": [2, 3, 4, 5, 6],
                "default_rules": "classic", "max_name": 32}

    def _get(self, gid: Any) -> WebGame:
        if type(gid) is not str or not _ID.fullmatch(gid):
            raise WebError(404, "no such game (ids are 22 characters of A-Z a-z 0-9 _ -)")
        self.purge()
        g = self.games.get(gid)
        if g is None:
            raise WebError(404, "no such game: it never existed, or it expired after "
                                f"{self.ttl / 60:g} minutes without a move; start a new game")
        g.touched = self.clock()
        return g

    # ------------------------------------------------------------------ requests
    def create(self, data: Any) -> dict[str, Any]:
        """A new game from a request's JSON (see :meth:`options`); returns its view."""
        if not isinstance(data, Mapping):
            raise WebError(422, "a new game is a JSON object with rules, players, opponents, name, seat, seed")
        unknown = sorted(str(k)[:20] for k in data if k not in _NEW_GAME_KEYS)
        if unknown:
            raise WebError(422, f"unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(_NEW_GAME_KEYS))}")
        preset = data.get("rules", "classic")
        if type(preset) is not str or preset not in preset_names():
            raise WebError(422, f"rules must be a preset name ({', '.join(preset_names())}), got {_short(preset)}")
        opponents = data.get("opponents", ["greedy"])
        if not isinstance(opponents, list) or not 1 <= len(opponents) <= 5:
            raise WebError(422, "opponents must list 1..5 agents (2..6 players)")
        for o in opponents:
            if type(o) is not str or o not in self.opponents:
                raise WebError(422, f"unknown opponent {_short(o)}; choose from {', '.join(self.opponents)}")
        players = _int(data.get("players", len(opponents) + 1), "players", 2, 6)
        if players != len(opponents) + 1:
            raise WebError(422, f"{players} players need {players - 1} opponents, got {len(opponents)}")
        name = data.get("name", "guest")
        if type(name) is not str or not _NAME.fullmatch(name) or not name.strip():
            raise WebError(422, "name must be 1..32 letters, digits, spaces, '_', '.' or '-'")
        seat = _int(data.get("seat", 0), "seat", 0, players - 1)
        seed = data.get("seed")
        seed = secrets.randbelow(_MAX_SEED) if seed is None else _int(seed, "seed", 0, _MAX_SEED - 1)
        try:
            rules = rules_for(preset, players)
        except RulesError as exc:
            raise WebError(422, f"rules {preset} for {players} players: {exc}") from None
        self.purge()
        with self.lock:
            if len(self.games) >= self.max_games:
                raise WebError(503, f"the server holds {len(self.games)} games, its most; try again later")
            agents: list[Agent | None] = []
            bots = iter(opponents)
            for p in range(players):
                if p == seat:
                    agents.append(None)
                    continue
                spec = next(bots)
                try:
                    agents.append(make_agent(spec, rules=rules, seed=(seed + p + 1) % _MAX_SEED))
                except (AgentSpecError, ValueError, OSError, ImportError) as exc:
                    raise WebError(422, f"opponent {spec} cannot play {rules.name} with {players} players: "
                                        f"{exc}") from None
            for p, a in enumerate(agents):
                if a is not None:
                    a.reset((seed + p + 1) % _MAX_SEED)
            seats = [f"human:{name.strip()}" if a is None else a.name for a in agents]
            gid = secrets.token_urlsafe(16)
            state = game.new_game(rules, seed)
            g = WebGame(gid, rules, seed, seat, seats, agents, state, self.clock(), limit=self.limit)
            g.last = step_view(None, state, None, seats, viewer=seat)
            self.games[gid] = g
            return g.view()

    def view(self, gid: Any) -> dict[str, Any]:
        """The view of game ``gid``."""
        with self.lock:
            return self._get(gid).view()

    def act(self, gid: Any, what: str, data: Any = None) -> dict[str, Any]:
        """``play`` (``data``: ``{"cards": [...]}``), ``draw`` or ``advance`` (an agent's move); the new view."""
        with self.lock:
            g = self._get(gid)
            if what == "play":
                if not isinstance(data, Mapping) or set(data) != {"cards"}:
                    raise WebError(422, "a play is a JSON object {\"cards\": [card numbers 0..52]}")
                g.play(data["cards"])
            elif what == "draw":
                g.draw()
            elif what == "advance":
                g.advance()
            else:  # pragma: no cover - the app routes only these
                raise WebError(404, f"no such action {what!r}")
            g.finish(self.writer)
            return g.view()

    def hints(self, gid: Any, limit: Any = 8) -> dict[str, Any]:
        """The person's legal plays now, most cards first (``{"hints": [...]}``)."""
        limit = _int(limit, "limit", 1, MAX_HINTS)
        with self.lock:
            return {"hints": self._get(gid).hints(limit)}

    def drop(self, gid: Any) -> None:
        """Abandon game ``gid`` (no record is written)."""
        with self.lock:
            self._get(gid)
            del self.games[gid]

