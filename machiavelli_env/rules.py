"""The rules configuration: one immutable, validated :class:`Rules` value per variant.

Every field of the variant table in RULES.md is a field here; presets live in
``configs/rules/*.yaml`` and load by name (``Rules.load("classic")``), by YAML path, or from a
dict. Missing fields take the ``classic`` value.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cards import JOKER, NUM_RANKS, rank_of

ACE_MODES = ("low", "high", "low_or_high", "both_ends", "wrap")
POINT_SCHEMES = ("ace11", "ace1")
REWARD_SCHEMES = ("win_loss", "points")
_OPENING_RE = re.compile(r"^(none|group|points:(\d+))$")

#: Folder of the shipped presets (``configs/rules`` at the repository root, or inside the package).
PRESET_DIRS = (
    Path(__file__).resolve().parent / "presets",
    Path(__file__).resolve().parent.parent / "configs" / "rules",
)


class RulesError(ValueError):
    """A rules configuration that is not valid; the message names the field."""


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
            if isinstance(v, bool) or not isinstance(v, int):
                raise RulesError(f"rules field '{name}' must be an integer, got {v!r}")
            if not lo <= v <= hi:
                raise RulesError(f"rules field '{name}' must be in {lo}..{hi}, got {v}")

        def need_bool(name: str) -> None:
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"rules field '{name}' must be true or false, got {getattr(self, name)!r}")

        def need_choice(name: str, choices: tuple[str, ...]) -> None:
            if getattr(self, name) not in choices:
                raise RulesError(
                    f"rules field '{name}' must be one of {', '.join(choices)}; got {getattr(self, name)!r}"
                )

        need_int("players", 2, 6)
        need_int("hand_size", 1, 60)
        need_int("decks", 1, 3)
        need_int("jokers", 0, 4)
        need_int("max_jokers_per_meld", 1, 4)
        need_choice("ace", ACE_MODES)
        if not isinstance(self.opening, str) or not _OPENING_RE.match(self.opening):
            raise RulesError(f"rules field 'opening' must be none, group or points:N; got {self.opening!r}")
        need_int("failed_play_penalty", 0, 10)
        need_bool("must_play_if_able")
        need_int("help_cards", 0, 12)
        need_bool("always_draw")
        need_choice("points", POINT_SCHEMES)
        need_int("match_target", 0, 100_000)
        need_int("max_turns", 1, 1_000_000)
        need_choice("reward", REWARD_SCHEMES)
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
        m = _OPENING_RE.match(self.opening)
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
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RulesError(
                f"unknown rules field(s): {', '.join(map(str, unknown))}; known fields: {', '.join(sorted(known))}"
            )
        return cls(**dict(data))

    @classmethod
    def load(cls, spec: str | os.PathLike[str] | Mapping[str, Any] | Rules | None = None, **overrides: Any) -> Rules:
        """Load rules from a preset name, a YAML file, a JSON object string or a dict, then apply overrides."""
        if spec is None:
            base = cls.from_dict(load_preset_dict("classic"))
        elif isinstance(spec, Rules):
            base = spec
        elif isinstance(spec, Mapping):
            base = cls.from_dict(spec)
        else:
            text = os.fspath(spec)
            if text.lstrip().startswith("{"):
                try:
                    data = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise RulesError(f"rules JSON does not parse: {exc}") from None
                base = cls.from_dict(data)
            elif text.endswith((".yaml", ".yml")) or os.sep in text:
                path = Path(text)
                if not path.is_file():
                    raise RulesError(f"rules file not found: {text}")
                data = parse_flat_yaml(path.read_text(encoding="utf-8"), source=text)
                data.setdefault("name", path.stem)
                base = cls.from_dict(data)
            else:
                base = cls.from_dict(load_preset_dict(text))
        return base.replace(**overrides) if overrides else base


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
    out: dict[str, Any] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip() or line.strip() == "---":
            continue
        if line[0].isspace() or ":" not in line:
            raise RulesError(f"{source}:{lineno}: expected 'field: value', got {raw.strip()!r}")
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key in out:
            raise RulesError(f"{source}:{lineno}: field {key!r} given twice")
        out[key] = _scalar(value)
    return out


def _scalar(value: str) -> Any:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    low = value.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if re.fullmatch(r"[-+]?\d+", value):
        return int(value)
    return value


CLASSIC = Rules(name="classic")
