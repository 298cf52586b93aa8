"""The ``machiavelli`` command line (also ``python -m machiavelli_env``).

Subcommands are registered in :data:`SUBCOMMANDS`: each entry names a function that adds the
subcommand's arguments and, as a ``"module:function"`` string, the function that runs it. The
runner is imported only when its subcommand is chosen, so that ``machiavelli solve`` stays light
(it never imports torch). To add a subcommand, write a function that adds its arguments to an
``argparse.ArgumentParser`` and a runner ``run(args) -> int`` (in any module; raise
:class:`UsageError` for bad input), and append one :class:`Subcommand` to :data:`SUBCOMMANDS`.

``machiavelli solve`` asks the exact oracle (:mod:`machiavelli_env.oracle`) for the best play of a
hand onto a table, checks whether a given play can be repacked with the table, or answers a JSON
Lines batch of such questions (``--batch FILE``; ``-`` is stdin).

Errors take one path for every subcommand (:func:`main`): bad input -- arguments, files, rules,
records, checkpoints, configs -- prints one line ``machiavelli COMMAND: error: MESSAGE`` on
stderr and exits with 2 (:data:`EXIT_HELP`, shown by every ``--help``); a failure of the tool
itself (the compiled oracle missing, an internal error) exits with 1, also on one line
(``MACHIAVELLI_DEBUG=1`` adds the traceback). A failed play is a successful answer (exit 0).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Any, NoReturn

import numpy as np

from .cards import (
    CARD_TYPES,
    JOKER,
    NUM_RANKS,
    NUM_TYPES,
    CardError,
    card_name,
    parse_card,
    rank_of,
    suit_of,
)
from .records import dumps, printable, read_jsonl
from .rules import Rules, RulesError

__all__ = [
    "SUBCOMMANDS",
    "OracleUnavailable",
    "RunStopped",
    "Subcommand",
    "UsageError",
    "EXIT_HELP",
    "build_parser",
    "int_arg",
    "main",
    "order_meld",
    "parse_rules_arg",
    "run_solve",
    "solve_batch",
]


class UsageError(Exception):
    """Bad input on the command line; ``main`` prints the message on one line and exits with 2."""


class OracleUnavailable(Exception):
    """The compiled oracle backend is missing; ``main`` prints the message and exits with 1."""


class RunStopped(Exception):
    """A long run stopped for a reason outside its input (a worker process died); ``main`` prints
    the message, which says how to go on, and exits with 1."""


#: The exit status and error format of every subcommand (the epilog of every ``--help``).
EXIT_HELP = (
    "exit status: 0 done; 2 bad input (arguments, files, rules, records, states, checkpoints, configs), "
    "reported as one line 'machiavelli COMMAND: error: MESSAGE' on stderr; 1 a failure of the tool itself "
    "(the compiled oracle missing, an internal error; MACHIAVELLI_DEBUG=1 prints its traceback)."
)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (exit code 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {printable(message, 500)} (see {self.prog} --help)\n")


def int_arg(lo: int | None = None, hi: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` for an integer in ``lo..hi`` (either end open when ``None``).

    A bad value is an argparse error: ``machiavelli eval: error: argument --seed: must be an
    integer >= 0, got '-1'``.
    """
    if lo is not None and hi is not None:
        want = f"an integer in {lo}..{hi}"
    elif lo is not None:
        want = f"an integer >= {lo}"
    elif hi is not None:
        want = f"an integer <= {hi}"
    else:
        want = "an integer"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {want}, got {printable(repr(text), 40)}") from None
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise argparse.ArgumentTypeError(f"must be {want}, got {printable(repr(text), 40)}")
        return value

    parse.__name__ = "integer"
    return parse


@dataclass(frozen=True)
class Subcommand:
    """One ``machiavelli`` subcommand: its name, help, argument builder and lazily imported runner."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    runner: str  # "package.module:function", imported only when the subcommand runs


# ====================================================================== solve: arguments
def _add_solve_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Best play of a hand onto a table (--hand), feasibility of one play (--play), or a JSON Lines "
        "batch of such questions (--batch). Cards in the notation of RULES.md, e.g. '10H QS AS JK'."
    )
    p.add_argument("--table", default="", metavar="CARDS", help="cards on the table (default: empty table)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--hand", metavar="CARDS", help="the player's hand: find the best play")
    what.add_argument("--play", metavar="CARDS", help="a play: check whether table + play can be repacked")
    what.add_argument(
        "--batch",
        metavar="FILE",
        help="JSON Lines file ('-' for stdin): one question per line, one JSON answer per line on stdout; "
        "--rules and --objective are the defaults for lines that do not say",
    )
    p.add_argument(
        "--rules",
        default="classic",
        metavar="RULES",
        help="preset name (classic, ace_low, ...), a YAML file, or a JSON object (default: classic)",
    )
    p.add_argument(
        "--objective",
        choices=("cards", "points"),
        default="cards",
        help="what the best play maximises: cards played or their hand points (default: cards)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.add_argument("--symbols", action="store_true", help="print suits as symbols (♠♥♦♣)")


SUBCOMMANDS: list[Subcommand] = [
    Subcommand(
        "solve",
        "best play, play feasibility, or a batch of oracle questions",
        _add_solve_arguments,
        "machiavelli_env.cli:run_solve",
    ),
    Subcommand(
        "eval",
        "seat-rotated games between agents, win rates with 95% intervals",
        lambda p: _lazy("machiavelli_env.agents.cli:add_eval_arguments")(p),
        "machiavelli_env.agents.cli:run_eval",
    ),
    Subcommand(
        "play",
        "play against agents in the terminal",
        lambda p: _lazy("machiavelli_env.agents.cli:add_play_arguments")(p),
        "machiavelli_env.agents.cli:run_play",
    ),
    Subcommand(
        "league",
        "a seeded league between agents with openskill ratings (local or on Ray)",
        lambda p: _lazy("machiavelli_env.training.league_cli:add_league_arguments")(p),
        "machiavelli_env.training.league_cli:run_league_cli",
    ),
    Subcommand(
        "replay",
        "replay saved games (eval/league --records) move by move in the terminal",
        lambda p: _lazy("machiavelli_env.agents.replay:add_replay_arguments")(p),
        "machiavelli_env.agents.replay:run_replay",
    ),
    Subcommand(
        "serve",
        "play against the agents in a browser (a local web page; the web extra)",
        lambda p: _lazy("machiavelli_env.agents.web.cli:add_serve_arguments")(p),
        "machiavelli_env.agents.web.cli:run_serve",
    ),
    Subcommand(
        "train",
        "PPO self-play training from a YAML config (checkpoints, logs, evaluations, learning curve)",
        lambda p: _lazy("machiavelli_env.training.cli:add_train_args")(p),
        "machiavelli_env.training.cli:run_train",
    ),
    Subcommand(
        "exploit",
        "approximate exploitability: train a best-response PPO against a frozen agent, its win rate and curve",
        lambda p: _lazy("machiavelli_env.training.exploit:add_exploit_arguments")(p),
        "machiavelli_env.training.exploit:run_exploit",
    ),
]


def _lazy(target: str) -> Callable[..., Any]:
    """The function named by ``"module:function"``, imported now."""
    module, _, func = target.partition(":")
    return getattr(importlib.import_module(module), func)


def build_parser() -> argparse.ArgumentParser:
    """The ``machiavelli`` argument parser with every registered subcommand."""
    from . import __version__

    parser = _Parser(prog="machiavelli", description="Machiavelli, the open-table Italian rummy.", epilog=EXIT_HELP)
    parser.add_argument("--version", action="version", version=f"machiavelli-env {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for cmd in SUBCOMMANDS:
        p = sub.add_parser(cmd.name, help=cmd.help.replace("%", "%%"), description=cmd.help, epilog=EXIT_HELP)
        cmd.add_arguments(p)
        p.set_defaults(_runner=cmd.runner)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``machiavelli`` console script; returns the exit code."""
    args = build_parser().parse_args(argv)  # argument errors: one line, SystemExit(2) (see _Parser)
    module, _, func = args._runner.partition(":")

    def fail(code: int, message: str, exc: BaseException | None = None) -> int:
        sys.stderr.write(f"machiavelli {args.command}: error: {printable(message, 2000)}\n")
        if exc is not None and os.environ.get("MACHIAVELLI_DEBUG"):
            traceback.print_exception(exc, file=sys.stderr)
        return code

    try:
        runner: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(module), func)
        return int(runner(args) or 0)
    except UsageError as exc:
        return fail(2, str(exc))
    except (OracleUnavailable, RunStopped) as exc:
        return fail(1, str(exc))
    except BrokenPipeError:  # e.g. `machiavelli solve --batch ... | head`
        return 0
    except KeyboardInterrupt:
        return fail(130, "interrupted")
    except ValueError as exc:
        if type(exc).__module__.startswith("machiavelli_env"):  # the package's own input errors
            return fail(2, str(exc), exc)
        return fail(1, f"internal error: {type(exc).__name__}: {exc}", exc)
    except OSError as exc:  # a file named on the command line that cannot be read or written
        name = f"{exc.filename}: " if exc.filename else ""
        return fail(2, f"cannot use {name}{exc.strerror or type(exc).__name__}", exc)
    except Exception as exc:  # noqa: BLE001 - one line, not a traceback, for anything else
        return fail(1, f"internal error: {type(exc).__name__}: {exc}", exc)


# ====================================================================== shared helpers
_NAME_TO_TYPE: dict[str, int] = {name: i for i, name in enumerate(CARD_TYPES)}
_SYMBOL_NAMES: tuple[str, ...] = tuple(card_name(c, symbols=True) for c in range(NUM_TYPES))
_RANK: tuple[int, ...] = tuple(rank_of(c) if c != JOKER else -1 for c in range(NUM_TYPES))
_SUIT: tuple[int, ...] = tuple(suit_of(c) if c != JOKER else -1 for c in range(NUM_TYPES))
_TYPES = np.arange(NUM_TYPES)


def _counts(cards: str | Sequence[Any], what: str) -> np.ndarray:
    """Count vector (53,) of a card string or a list of card names/indices; errors name ``what``."""
    if isinstance(cards, str):
        items: Sequence[Any] = cards.replace(",", " ").split()
    elif isinstance(cards, (list, tuple)):
        items = cards
    else:
        raise CardError(f"{what} must be a list of cards or a card string, got {type(cards).__name__}")
    try:  # fast path: canonical names such as "10H"
        idx = [_NAME_TO_TYPE[item] for item in items]
    except (KeyError, TypeError):
        idx = []
        bad: list[str] = []
        for item in items:
            try:
                if isinstance(item, str):
                    idx.append(parse_card(item))
                elif isinstance(item, int) and not isinstance(item, bool) and 0 <= item < NUM_TYPES:
                    idx.append(item)
                else:
                    raise CardError(repr(item))
            except CardError:
                bad.append(repr(item))
        if bad:
            more = f" and {len(bad) - 10} more" if len(bad) > 10 else ""
            shown = ", ".join(printable(b, 40) for b in bad[:10])
            raise CardError(
                f"{what}: not a card: {shown}{more} (use e.g. '10H QS AS JK'; suits S H D C or symbols)"
            ) from None
    return np.bincount(np.asarray(idx, dtype=np.int64), minlength=NUM_TYPES)


def order_meld(meld: Sequence[int], ace: str = "low_or_high") -> list[int]:
    """The cards of a meld in reading order: a group by suit, a run by rank with its jokers in place.

    Display only (no validation): ``Q K A`` of a run with a high ace reads ``QC KC AC``, a
    ``wrap`` run reads from after its largest gap (``KS AS 2S``), and a joker fills a gap.
    """
    real = [c for c in meld if c != JOKER]
    jokers = len(meld) - len(real)
    if not real:
        return list(meld)
    ranks = {_RANK[c] for c in real}
    if len(ranks) == 1:  # a group
        return sorted(real) + [JOKER] * jokers  # type order is suit order within one rank
    size = len(meld)
    if ace == "wrap":
        present = sorted(ranks)
        n = len(present)
        _, i = max(((present[(i + 1) % n] - r - 1) % NUM_RANKS, i) for i, r in enumerate(present))
        start = present[(i + 1) % n]
        placed = sorted(real, key=lambda c: (_RANK[c] - start) % NUM_RANKS)
        positions = [(_RANK[c] - start) % NUM_RANKS for c in placed]
        top = NUM_RANKS - 1
    else:
        others = sorted(c for c in real if _RANK[c] != 0)  # one suit: type order is rank order
        aces = [c for c in real if _RANK[c] == 0]
        if not aces or ace == "low":
            low_aces, high_aces = aces, []
        elif ace == "high":
            low_aces, high_aces = [], aces
        elif len(aces) >= 2:
            low_aces, high_aces = aces[:1], aces[1:]
        elif others and _RANK[others[-1]] + 1 > size:  # the run cannot reach down to the ace
            low_aces, high_aces = [], aces
        else:
            low_aces, high_aces = aces, []
        placed = low_aces + others + high_aces
        positions = [1] * len(low_aces) + [_RANK[c] + 1 for c in others] + [14] * len(high_aces)
        top = 14
    if not jokers:
        return placed
    out = [placed[0]]
    for k in range(1, len(placed)):
        gap = positions[k] - positions[k - 1] - 1
        if gap > 0 and jokers:
            fill = min(gap, jokers)
            out += [JOKER] * fill
            jokers -= fill
        out.append(placed[k])
    if jokers:  # remaining jokers extend the run, at the top unless that runs off the end
        return [JOKER] * jokers + out if positions[-1] + jokers > top else out + [JOKER] * jokers
    return out


def _meld_names(melds: Iterable[Sequence[int]], ace: str, symbols: bool) -> list[list[str]]:
    names = _SYMBOL_NAMES if symbols else CARD_TYPES
    return [[names[c] for c in order_meld(m, ace)] for m in melds]


def _played_names(counts: np.ndarray, symbols: bool) -> list[str]:
    names = _SYMBOL_NAMES if symbols else CARD_TYPES
    return [names[c] for c in np.repeat(_TYPES, counts).tolist()]


class _RulesCache:
    """Rules given as data (:meth:`Rules.from_data`), parsed once per distinct spec.

    ``Rules.from_data`` validates every field, which costs more than a dict lookup; a batch
    usually repeats a handful of rule sets, so a small FIFO-bounded cache suffices. Keys are
    type-exact (``1``, ``1.0`` and ``true`` are three keys), so an answer never depends on which
    lines came before. ``default`` answers lines without ``rules``.
    """

    def __init__(self, limit: int = 256, default: Rules | None = None) -> None:
        self._cache: dict[Any, Rules] = {}
        self._limit = limit
        self._default = default

    def get(self, spec: Any) -> Rules:
        if spec is None:
            if self._default is not None:
                return self._default
            spec = "classic"
        key: Any
        if isinstance(spec, dict):
            try:  # the items with their types as a key (cheaper than JSON); JSON for unhashable values
                key = tuple(sorted((k, type(v), v) for k, v in spec.items()))
                hash(key)
            except TypeError:
                key = ("json", json.dumps(spec, sort_keys=True, default=repr))
        elif isinstance(spec, str):
            key = spec
        else:
            raise RulesError(f"rules must be an object of rules fields or a preset name, got {type(spec).__name__}")
        rules = self._cache.get(key)
        if rules is None:
            rules = Rules.from_data(spec)
            if len(self._cache) >= self._limit:
                self._cache.pop(next(iter(self._cache)))
            self._cache[key] = rules
        return rules


def _oracle() -> Any:
    """The oracle API module, or :class:`OracleUnavailable` (with a hint) when its backend is missing."""
    from .oracle import api

    try:
        importlib.import_module("machiavelli_env.oracle.dp")
    except ImportError as exc:
        raise OracleUnavailable(
            f"the oracle backend machiavelli_env.oracle.dp is not available ({exc}); "
            "build it with: pip install -e . --no-build-isolation"
        ) from exc
    return api


def parse_rules_arg(spec: str) -> Rules:
    """Rules from a ``--rules`` value: a preset name, a YAML file or a JSON object (UsageError if bad)."""
    try:
        return Rules.load(spec)
    except RulesError as exc:
        raise UsageError(f"--rules: {exc}") from None


# ====================================================================== solve: runner
def run_solve(args: argparse.Namespace) -> int:
    """Run ``machiavelli solve`` (one question, or ``--batch``); input is checked before the oracle loads."""
    if args.batch is not None:
        if args.table:
            raise UsageError("--batch takes the tables from the file; do not give --table")
        default_rules = parse_rules_arg(args.rules)  # for lines without "rules": fail early when bad
        if args.batch == "-":
            stream: IO[bytes] | IO[str] = getattr(sys.stdin, "buffer", sys.stdin)
        else:
            try:
                stream = open(args.batch, "rb")  # noqa: SIM115 - closed below
            except OSError as exc:
                raise UsageError(
                    f"--batch: cannot read {printable(args.batch, 200)}: {exc.strerror or type(exc).__name__}"
                ) from None
        try:
            api = _oracle()
            return solve_batch(
                stream, api, default_rules=default_rules, default_objective=args.objective, symbols=args.symbols
            )
        finally:
            if args.batch != "-":
                stream.close()

    if args.hand is None and args.play is None:
        raise UsageError("give --hand CARDS (best play), --play CARDS (feasibility) or --batch FILE")
    rules = parse_rules_arg(args.rules)
    try:
        table = _counts(args.table, "--table")
        mine = _counts(args.play, "--play") if args.play is not None else _counts(args.hand, "--hand")
    except CardError as exc:
        raise UsageError(str(exc)) from None
    if args.play is not None and not mine.any():
        raise UsageError("--play: a play needs at least one card")
    api = _oracle()
    try:
        if table.any() and api.repack(table, table * 0, rules) is None:
            raise UsageError("--table: the table cannot be arranged into valid melds")
        t0 = time.perf_counter_ns()
        if args.play is not None:
            melds = api.repack(table, mine, rules)
            us = (time.perf_counter_ns() - t0) / 1000.0
            result: dict[str, Any] = {"feasible": melds is not None}
        else:
            best = api.best_play(table, mine, rules, args.objective)
            us = (time.perf_counter_ns() - t0) / 1000.0
            melds = best.melds
            result = {"value": int(best.value), "play": _played_names(best.counts, args.symbols)}
    except api.OracleError as exc:
        raise UsageError(str(exc)) from None
    out_melds = None if melds is None else _meld_names(melds, rules.ace, args.symbols)

    if args.json:
        head: dict[str, Any] = {"rules": rules.name}
        if args.play is not None:
            head["play"] = _played_names(mine, args.symbols)
        else:
            head["objective"] = args.objective
        print(json.dumps({**head, **result, "melds": out_melds, "us": us}, ensure_ascii=False))
        return 0
    if args.play is not None:
        played = " ".join(_played_names(mine, args.symbols))
        if out_melds is None:
            first = f"play {played}: failed play (the table plus these cards cannot be arranged into valid melds)"
        else:
            first = f"play {played}: feasible; new table:"
    else:
        n = len(result["play"])
        if n == 0:
            first = "no play: nothing in the hand can be laid down (draw a card); table:"
        else:
            worth = f", {result['value']} points" if args.objective == "points" else ""
            first = f"best play ({n} card{'s' if n > 1 else ''}{worth}): {' '.join(result['play'])}; new table:"
    if out_melds == []:
        first = first.replace("new table:", "the table is empty").replace("table:", "the table is empty")
    print("\n".join([first] + ["  " + " ".join(m) for m in out_melds or []]))
    return 0


def solve_batch(
    stream: IO[bytes] | IO[str] | Iterable[str | bytes],
    api: Any,
    *,
    default_rules: str | Rules = "classic",
    default_objective: str = "cards",
    symbols: bool = False,
) -> int:
    """Answer a JSON Lines batch on stdout, one JSON object per non-blank input line, in order.

    A line is ``{"id", "rules", "table", "hand", "objective"}`` (best play), answered
    ``{"id", "value", "play", "melds", "us"}``; or ``{"id", "rules", "table", "play"}``
    (feasibility; a ``hand``, if also given, must hold the play), answered ``{"id", "feasible",
    "melds", "us"}`` with ``melds`` null for a failed play. ``rules`` is an object of RULES.md
    fields (missing ones take the classic value) or a preset name, never a file (rules given as
    data are read with :meth:`Rules.from_data`), default ``default_rules`` (a ``Rules``, or
    anything ``--rules`` takes); ``objective`` is ``cards`` or ``points``, default
    ``default_objective``; cards are lists of names (or one space-separated string). ``us``
    times the oracle call alone, in microseconds.

    The input is untrusted: it is read as bytes by :func:`machiavelli_env.records.read_jsonl`
    (``stream`` a binary or text stream, or an iterable of lines). A bad line (not UTF-8, not
    strict JSON, nested too deep, a wrong field, anything the oracle rejects, even an
    exception of the oracle itself) is answered ``{"id", "error"}`` and the batch goes on;
    other keys are ignored. Every answer is one line of valid JSON. For speed the table is not
    checked on its own: a table that cannot be arranged is reported (as an error) only when the
    question has no answer otherwise.
    """
    default = default_rules if isinstance(default_rules, Rules) else parse_rules_arg(default_rules)
    rules_cache = _RulesCache(default=default)
    write = sys.stdout.write
    try:
        for line in read_jsonl(stream):
            if line.error is not None:
                answer: dict[str, Any] = {"id": None, "error": line.error}
            else:
                answer = _batch_answer(line.value, api, rules_cache, default_objective, symbols)
            write(dumps(answer) + "\n")
    finally:
        sys.stdout.flush()
    return 0


#: What a bad line can raise: CardError, RulesError and OracleError are ValueErrors; TypeError for
#: values of the wrong JSON type (e.g. a number where rules fields are expected).
_LINE_ERRORS = (ValueError, TypeError)


def _batch_answer(
    q: Any, api: Any, rules_cache: _RulesCache, default_objective: str, symbols: bool
) -> dict[str, Any]:
    """The answer object of one parsed batch line (an ``error`` object when the line is bad)."""
    if not isinstance(q, dict):
        return {"id": None, "error": f"a line must be a JSON object, got {_json_type(q)}"}
    qid = q.get("id")
    try:
        rules = rules_cache.get(q.get("rules"))
        if "table" not in q:
            return {"id": qid, "error": "missing field 'table' (a list of cards; [] for an empty table)"}
        table = _counts(q["table"], "table")
        if "play" in q:
            play = _counts(q["play"], "play")
            if not play.any():
                return {"id": qid, "error": "'play' needs at least one card"}
            if "hand" in q:
                short = np.flatnonzero(play > _counts(q["hand"], "hand"))
                if short.size:
                    missing = ", ".join(CARD_TYPES[c] for c in short)
                    return {"id": qid, "error": f"'play' holds cards not in 'hand': {missing}"}
            t0 = time.perf_counter_ns()
            melds = api.repack(table, play, rules)
            us = (time.perf_counter_ns() - t0) / 1000.0
            if melds is None and table.any() and api.repack(table, play * 0, rules) is None:
                return {"id": qid, "error": "the table cannot be arranged into valid melds"}
            return {
                "id": qid,
                "feasible": melds is not None,
                "melds": None if melds is None else _meld_names(melds, rules.ace, symbols),
                "us": us,
            }
        if "hand" not in q:
            return {"id": qid, "error": "missing field 'hand' (best play) or 'play' (feasibility)"}
        hand = _counts(q["hand"], "hand")
        objective = q.get("objective", default_objective)
        if objective not in ("cards", "points"):
            return {"id": qid, "error": f"objective must be 'cards' or 'points', got {printable(repr(objective), 40)}"}
        t0 = time.perf_counter_ns()
        best = api.best_play(table, hand, rules, objective)
        us = (time.perf_counter_ns() - t0) / 1000.0
        return {
            "id": qid,
            "value": int(best.value),
            "play": _played_names(best.counts, symbols),
            "melds": _meld_names(best.melds, rules.ace, symbols),
            "us": us,
        }
    except _LINE_ERRORS as exc:
        return {"id": qid, "error": str(exc)}
    except MemoryError:
        return {"id": qid, "error": "out of memory answering this line"}
    except Exception as exc:  # noqa: BLE001 - one line's failure must not cost the others
        return {"id": qid, "error": f"internal error: {type(exc).__name__}: {exc}"}


def _json_type(value: Any) -> str:
    """The JSON name of a parsed value's type (array, string, number, ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return {list: "an array", str: "a string", int: "a number", float: "a number", dict: "an object"}.get(
        type(value), type(value).__name__)
