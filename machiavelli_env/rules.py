"""The rules configuration: one immutable, validated :class:`Rules` value per variant.

Every field of the variant table in RULES.md is a field here; presets live in
``configs/rules/*.yaml`` and load by name (``Rules.load("classic")``), by YAML path, or from a
dict. Missing fields take the ``classic`` value.

Files are read only when asked for explicitly: :meth:`Rules.load` (and ``--rules`` on the command
line) takes a path; :meth:`Rules.from_data` turns rules given *as data* (a batch line's or a game
record's ``"rules"``: a mapping of fields, a preset name or a JSON object string) into ``Rules``
and never opens a file. Errors name the field and what it must be; an error about a file gives
its path and line number and never quotes what the file holds.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cards import JOKER, NUM_RANKS, rank_of
from .records import read_capped

ACE_MODES = ("low", "high", "low_or_high", "both_ends", "wrap")
POINT_SCHEMES = ("ace11", "ace1")
REWARD_SCHEMES = ("win_loss", "points")
_OPENING_RE = re.compile(r"(none|group|points:([0-9]{1,5}))", re.ASCII)
#: Largest N of ``opening: points:N`` (a 60-card hand laid down whole is worth at most 600, so
#: any N above that means no player ever opens).
MAX_OPENING_POINTS = 10_000
_PRESET_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,63}", re.ASCII)
#: Largest rules file :meth:`Rules.load` reads (a preset is a few hundred bytes).
MAX_RULES_FILE_BYTES = 64 * 1024

#: Folder of the shipped presets (``configs/rules`` at the repository root, or inside the package).
PRESET_DIRS = (
    Path(__file__).resolve().parent / "presets",
    Path(__file__).resolve().parent.parent / "configs" / "rules",
)


class RulesError(ValueError):
    """A rules configuration that is not valid; the message names the field.

    ``field`` is the field at fault (``None`` for a problem of several fields or of the input
    as a whole) and ``requirement`` what it must be, so that a caller may word the error
    without the offending value.
    """

    def __init__(self, message: str, field: str | None = None, requirement: str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.requirement = requirement


def _shown(value: Any, limit: int = 40) -> str:
    """A short printable ``repr`` of a value given as data (errors echo at most this much)."""
    from .records import printable

    return printable(repr(value), limit)


def _bad_field(name: str, requirement: str, value: Any) -> RulesError:
    return RulesError(f"rules field '{name}' must be {requirement}, got {_shown(value)}", name, requirement)


@dataclass(frozen=True)
class Rules:
    """One variant of Machiavelli. Immutable; build with ``Rules(...)``, ``Rules.load(...)``.

    Fields follow RULES.md; ``max_turns`` and ``reward`` configure the environment.
    """

    players: int = 2
    hand_size: int = 13
    decks: int = 2
    jokers: int = 0
    max_jokers_per_meld: int = 1
    ace: str = "low_or_high"
    opening: str = "none"
    failed_play_penalty: int = 1
    must_play_if_able: bool = False
    help_cards: int = 0
    always_draw: bool = False
    points: str = "ace11"
    match_target: int = 0
    max_turns: int = 1000
    reward: str = "win_loss"
    name: str = field(default="custom", compare=False)

    def __post_init__(self) -> None:
        self._validate()

    # ------------------------------------------------------------------ validation
    def _validate(self) -> None:
        def need_int(name: str, lo: int, hi: int) -> None:
            v = getattr(self, name)
            if type(v) is not int or not lo <= v <= hi:  # bool and float are not integers here
                raise _bad_field(name, f"an integer in {lo}..{hi}", v)

        def need_bool(name: str) -> None:
            if not isinstance(getattr(self, name), bool):
                raise _bad_field(name, "true or false", getattr(self, name))

        def need_choice(name: str, choices: tuple[str, ...]) -> None:
            v = getattr(self, name)
            if type(v) is not str or v not in choices:
                raise _bad_field(name, f"one of {', '.join(choices)}", v)

        need_int("players", 2, 6)
        need_int("hand_size", 1, 60)
        need_int("decks", 1, 3)
        need_int("jokers", 0, 4)
        need_int("max_jokers_per_meld", 1, 4)
        need_choice("ace", ACE_MODES)
        m = _OPENING_RE.fullmatch(self.opening) if type(self.opening) is str else None
        if m is None or (m.group(2) is not None and int(m.group(2)) > MAX_OPENING_POINTS):
            raise _bad_field("opening", f"none, group or points:N with N in 0..{MAX_OPENING_POINTS}", self.opening)
        need_int("failed_play_penalty", 0, 10)
        need_bool("must_play_if_able")
        need_int("help_cards", 0, 12)
        need_bool("always_draw")
        need_choice("points", POINT_SCHEMES)
        need_int("match_target", 0, 100_000)
        need_int("max_turns", 1, 1_000_000)
        need_choice("reward", REWARD_SCHEMES)
        if type(self.name) is not str or not 0 < len(self.name) <= 100 or not self.name.isprintable():
            raise _bad_field("name", "a printable string of 1..100 characters", self.name)
        dealt = self.players * self.hand_size + self.help_cards
        if dealt > self.pack_size:
            raise RulesError(
                f"the deal ({self.players} players x {self.hand_size} cards + {self.help_cards} help cards "
                f"= {dealt}) is larger than the pack "
                f"({self.pack_size} cards: {self.decks} decks + {self.jokers} jokers)"
            )

    # ------------------------------------------------------------------ derived facts
    @property
    def pack_size(self) -> int:
        """Cards in the pack: 52 per deck plus the jokers."""
        return 52 * self.decks + self.jokers

    @property
    def opening_points(self) -> int:
        """Points a first lay-down must reach (0 unless ``opening`` is ``points:N``)."""
        m = _OPENING_RE.fullmatch(self.opening)
        return int(m.group(2)) if m and m.group(2) else 0

    def copies(self, card: int) -> int:
        """How many copies of a card type the pack holds."""
        return self.jokers if card == JOKER else self.decks

    def card_points(self, card: int) -> int:
        """Hand (penalty) points of one card under ``points`` (``ace11`` or ``ace1``); joker 25."""
        return card_points(card, self.points)

    # ------------------------------------------------------------------ (de)serialisation
    def to_dict(self) -> dict[str, Any]:
        """All fields as a plain dict (``name`` included), JSON- and YAML-serialisable."""
        return dataclasses.asdict(self)

    def replace(self, **overrides: Any) -> Rules:
        """A copy with some fields changed (validated; unknown fields are an error)."""
        return Rules.from_dict({**self.to_dict(), **overrides})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Build from a mapping; missing fields take the classic value, unknown ones are an error."""
        if not isinstance(data, Mapping):
            raise RulesError(f"rules must be a mapping of field names to values, got {type(data).__name__}")
        unknown = [k for k in data if k not in _FIELDS]
        if unknown:
            from .records import printable

            shown = ", ".join(sorted(printable(k, 30) if isinstance(k, str) else _shown(k, 30) for k in unknown))
            raise RulesError(f"unknown rules field(s): {shown}; known fields: {', '.join(sorted(_FIELDS))}")
        return cls(**dict(data))

    @classmethod
    def from_data(cls, spec: Any) -> Rules:
        """Rules given as data (untrusted): a mapping of fields, a preset name, a JSON object string or ``Rules``.

        Never reads a file: a string that is neither a JSON object nor a preset name is an error
        (see the module docstring). Used for a batch line's and a game record's ``"rules"``.
        """
        return _rules_from(spec, files=False)

    @classmethod
    def load(cls, spec: str | os.PathLike[str] | Mapping[str, Any] | Rules | None = None, **overrides: Any) -> Rules:
        """Load rules from a preset name, a YAML file, a JSON object string or a dict, then apply overrides.

        A string naming a file (it holds a path separator or ends in ``.yaml``/``.yml``) is read as
        a flat YAML rules file; use :meth:`from_data` for rules that come with data.
        """
        base = _rules_from(spec, files=True)
        return base.replace(**overrides) if overrides else base


_FIELDS = frozenset(f.name for f in dataclasses.fields(Rules))


def _rules_from(spec: Any, *, files: bool) -> Rules:
    """The one place a rules argument becomes :class:`Rules` (``files``: a path may be read)."""
    if spec is None:
        return Rules.from_dict(load_preset_dict("classic"))
    if isinstance(spec, Rules):
        return spec
    if isinstance(spec, Mapping):
        return Rules.from_dict(spec)
    if isinstance(spec, os.PathLike) and not files:
        raise RulesError("rules given as data cannot name a file; give the fields or a preset name")
    if not isinstance(spec, (str, os.PathLike)):
        raise RulesError(f"rules must be an object of rules fields or a preset name, got {type(spec).__name__}")
    text = os.fspath(spec)
    if not isinstance(text, str):
        raise RulesError(f"rules must be an object of rules fields or a preset name, got {type(text).__name__}")
    if text.lstrip().startswith("{"):
        from .records import loads

        try:
            data = loads(text)
        except ValueError as exc:
            raise RulesError(f"rules JSON does not parse: {exc}") from None
        return Rules.from_dict(data)
    if _names_file(text):
        if not files:
            raise RulesError(
                f"rules given as data cannot name a file ({_shown(text)}); give the fields or a preset name "
                "(files are read only from --rules or Rules.load(path))"
            )
        return _load_file(Path(text))
    return Rules.from_dict(load_preset_dict(text))


def _names_file(text: str) -> bool:
    return text.endswith((".yaml", ".yml")) or os.sep in text or (os.altsep is not None and os.altsep in text)


def _load_file(path: Path) -> Rules:
    """Rules from a flat YAML file; errors give the path and line, never the file's content."""
    where = printable_path(path)
    if not path.is_file():
        raise RulesError(f"rules file not found: {where}")
    try:
        raw = read_capped(path, MAX_RULES_FILE_BYTES)
    except OSError as exc:
        raise RulesError(f"cannot read rules file {where}: {exc.strerror or type(exc).__name__}") from None
    if raw is None:
        raise RulesError(f"rules file {where} is larger than {MAX_RULES_FILE_BYTES // 1024} KiB (not a rules file)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RulesError(f"rules file {where} is not UTF-8 text") from None
    data, lines = _parse_flat_yaml(text, where, quote=False)
    unknown = [k for k in data if k not in _FIELDS]
    if unknown:
        at = ", ".join(str(lines[k]) for k in unknown[:5])
        raise RulesError(
            f"{where}: unknown rules field on line {at} (known fields: {', '.join(sorted(_FIELDS))})"
        )
    if "name" not in data:
        data["name"] = path.stem if path.stem.isprintable() and 0 < len(path.stem) <= 100 else "custom"
    try:
        return Rules.from_dict(data)
    except RulesError as exc:
        if exc.field is not None:
            raise RulesError(
                f"{where}:{lines.get(exc.field, '?')}: rules field '{exc.field}' must be {exc.requirement}",
                exc.field, exc.requirement,
            ) from None
        raise RulesError(f"{where}: {exc}") from None


def printable_path(path: str | os.PathLike[str]) -> str:
    """A path as printable text (control characters escaped), for messages."""
    from .records import printable

    return printable(os.fspath(path), 200)


def card_points(card: int, scheme: str = "ace11") -> int:
    """Hand points of a card: ``ace11`` (A 11, 10/J/Q/K 10) or ``ace1`` (A 1, J/Q/K 10); joker 25."""
    if card == JOKER:
        return 25
    r = rank_of(card)
    if r == 0:
        return 11 if scheme == "ace11" else 1
    return min(r + 1, 10)


def opening_rank_points(rank: int) -> int:
    """Value of a rank for the ``points:N`` opening (A = 1, J/Q/K = 10); ``rank`` in 0..12."""
    return min(rank + 1, 10) if 0 <= rank < NUM_RANKS else 0


def preset_names() -> list[str]:
    """Names of the shipped rules presets."""
    names: set[str] = set()
    for d in PRESET_DIRS:
        if d.is_dir():
            names.update(p.stem for p in d.glob("*.yaml"))
    return sorted(names)


def load_preset_dict(name: str) -> dict[str, Any]:
    """The fields of a shipped preset, by name."""
    if not isinstance(name, str) or not _PRESET_NAME.fullmatch(name):
        raise RulesError(f"unknown rules preset {_shown(name)}; presets: {', '.join(preset_names()) or '(none found)'}")
    for d in PRESET_DIRS:
        path = d / f"{name}.yaml"
        if path.is_file():
            data = parse_flat_yaml(path.read_text(encoding="utf-8"), source=str(path))
            data.setdefault("name", name)
            return data
    raise RulesError(f"unknown rules preset {name!r}; presets: {', '.join(preset_names()) or '(none found)'}")


def parse_flat_yaml(text: str, source: str = "<string>") -> dict[str, Any]:
    """Parse the flat ``key: value`` YAML subset used by rules presets (comments allowed).

    Values are YAML scalars: integers, ``true``/``false``, or (optionally quoted) strings.
    Kept dependency-free so that the core package needs no YAML library.
    """
    return _parse_flat_yaml(text, source, quote=True)[0]


def _parse_flat_yaml(text: str, source: str, *, quote: bool) -> tuple[dict[str, Any], dict[str, int]]:
    """The fields and the line of each; ``quote=False`` keeps the text out of error messages."""
    out: dict[str, Any] = {}
    lines: dict[str, int] = {}
    for lineno, raw in enumerate(text.split("\n"), 1):
        raw = raw.removesuffix("\r")
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip() or line.strip() == "---":
            continue
        if line[0].isspace() or ":" not in line:
            got = f", got {_shown(raw.strip())}" if quote else ""
            raise RulesError(f"{source}:{lineno}: expected 'field: value'{got}")
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key in out:
            named = f"field {_shown(key)}" if quote or key in _FIELDS else "a field"
            raise RulesError(f"{source}:{lineno}: {named} given twice")
        out[key] = _scalar(value)
        lines[key] = lineno
    return out, lines


def _scalar(value: str) -> Any:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    low = value.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if re.fullmatch(r"[-+]?[0-9]{1,18}", value):
        return int(value)
    return value


CLASSIC = Rules(name="classic")
