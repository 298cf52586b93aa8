"""Untrusted JSON in, safe JSON and text out: the one reader of JSON Lines in the package.

Batch questions (``machiavelli solve --batch``) and game records (``machiavelli replay``) are
data, often made elsewhere. Everything here treats them as untrusted bytes:

* :func:`read_jsonl` splits a byte stream (or an iterable of ``str``/``bytes`` lines) on ``\\n``
  only (a ``\\r\\n`` ending is one line end; a lone ``\\r`` is JSON whitespace, the same in a file
  and on stdin) and parses each non-blank line with :func:`loads`. A bad line becomes a
  :class:`Line` with an ``error`` and reading goes on; nothing a line holds raises.
* :func:`loads` is strict JSON: UTF-8 text, nesting at most :data:`MAX_DEPTH` deep, no ``NaN`` or
  ``Infinity``, no number that overflows a float (``1e999``), no lone UTF-16 surrogate in a
  string. It raises :class:`JSONInputError` (a ``ValueError``) naming the problem, never quoting
  more than a short token of the input.
* :func:`dumps` writes one line of JSON that is always valid and always encodes as UTF-8 (a
  non-finite float becomes ``null`` and a lone surrogate ``U+FFFD`` if one ever gets that far).
* :func:`printable` makes any text safe to print on a terminal: control characters (escape
  sequences, bells, carriage returns), bidirectional overrides and lone surrogates are shown as
  ``\\x1b``-style escapes.

Only the standard library is used, so every layer of the package may import this module.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

__all__ = [
    "MAX_DEPTH",
    "MAX_LINE_BYTES",
    "JSONInputError",
    "Line",
    "dumps",
    "loads",
    "printable",
    "read_capped",
    "read_jsonl",
]

#: Deepest nesting of arrays and objects :func:`loads` accepts (records nest 4 deep, questions 3).
MAX_DEPTH = 64
#: Longest line :func:`read_jsonl` reads (a long game record is about 30 KB).
MAX_LINE_BYTES = 16 * 1024 * 1024


class JSONInputError(ValueError):
    """Input that is not strict JSON (or nests too deep); the message names the problem."""


@dataclass(frozen=True)
class Line:
    """One non-blank input line: its 1-based ``number`` and either its JSON ``value`` or an ``error``."""

    number: int
    value: Any = None
    error: str | None = None


# ---------------------------------------------------------------------------------------------- parsing
def _reject_constant(name: str) -> Any:
    raise JSONInputError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONInputError(f"number {_short(text)} is out of range")
    return value


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)
# a string token (escapes included) or one bracket; strings are skipped when counting depth
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def _short(text: str, limit: int = 24) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _too_deep(text: str, max_depth: int) -> bool:
    if text.count("[") + text.count("{") <= max_depth:  # the usual case: no scan needed
        return False
    depth = 0
    for m in _TOKENS.finditer(text):
        t = m.group()
        if t == "[" or t == "{":
            depth += 1
            if depth > max_depth:
                return True
        elif t == "]" or t == "}":
            depth -= 1
    return False


def _has_lone_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def read_capped(path: Any, limit: int) -> bytes | None:
    """The bytes of the file at ``path``, or ``None`` when it holds more than ``limit`` (only
    ``limit + 1`` bytes are read, whatever the file's size); ``OSError`` when it cannot be read."""
    with open(path, "rb") as f:
        raw = f.read(limit + 1)
    return None if len(raw) > limit else raw


def loads(data: str | bytes | bytearray, *, max_depth: int = MAX_DEPTH) -> Any:
    """Parse one strict JSON value from text or UTF-8 bytes (see the module docstring).

    Raises :class:`JSONInputError` naming the problem: not UTF-8, nested deeper than
    ``max_depth``, ``NaN``/``Infinity``, a number out of range, a lone surrogate, bad syntax.
    """
    if isinstance(data, (bytes, bytearray)):
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONInputError(
                f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
            ) from None
    elif isinstance(data, str):
        text = data
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise JSONInputError(f"not Unicode text (a lone surrogate at offset {exc.start})") from None
    else:
        raise TypeError(f"JSON input must be str or bytes, got {type(data).__name__}")
    if text.startswith("\ufeff"):  # a UTF-8 byte-order mark
        text = text[1:]
    if _too_deep(text, max_depth):
        raise JSONInputError(f"arrays and objects nested deeper than {max_depth} levels")
    try:
        value = _DECODER.decode(text)
    except JSONInputError:
        raise
    except json.JSONDecodeError as exc:
        raise JSONInputError(f"{exc.msg} at column {exc.colno}") from None
    except RecursionError:  # pragma: no cover - _too_deep rules this out; kept as a guard
        raise JSONInputError(f"arrays and objects nested deeper than {max_depth} levels") from None
    except ValueError as exc:  # e.g. an integer with more digits than int() converts
        raise JSONInputError(_short(str(exc), 120)) from None
    if "\\u" in text and _has_lone_surrogate(value):
        raise JSONInputError("a string holds a lone UTF-16 surrogate (not a Unicode character)")
    return value


# what a blank line may hold, the same for text and bytes (ASCII whitespace, as bytes.strip() strips;
# str.strip() would also take separators such as \x1c-\x1f and \x85 for blanks)
_BLANK_BYTES = b" \t\n\r\x0b\x0c"
_BLANK_TEXT = _BLANK_BYTES.decode("ascii")


def _raw_lines(
    source: IO[bytes] | IO[str] | Iterable[str | bytes], max_line_bytes: int
) -> Iterator[bytes | str | None]:
    """The lines of ``source``; ``None`` stands for a line longer than ``max_line_bytes`` (skipped)."""
    readline = getattr(source, "readline", None)
    if readline is not None and hasattr(source, "readinto"):  # a binary stream: read bounded lines
        while True:
            raw = readline(max_line_bytes + 1)
            if not raw:
                return
            if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
                while raw and not raw.endswith(b"\n"):  # skip the rest of the long line
                    raw = readline(1 << 20)
                yield None
                continue
            yield raw
        return
    for raw in source:  # text streams and iterables of lines
        if isinstance(raw, (bytes, bytearray)):
            parts: list[Any] = bytes(raw).split(b"\n")
        else:
            parts = str(raw).split("\n")
        if len(parts) > 1 and not parts[-1]:
            parts.pop()
        for part in parts:
            yield None if len(part) > max_line_bytes else part


def read_jsonl(
    source: IO[bytes] | IO[str] | Iterable[str | bytes],
    *,
    max_depth: int = MAX_DEPTH,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Iterator[Line]:
    """Parse a JSON Lines input line by line: one :class:`Line` per non-blank line, in order.

    ``source`` is a binary stream (a file opened ``"rb"``, ``sys.stdin.buffer``), a text stream
    or any iterable of ``str``/``bytes`` lines. Lines are split on ``\\n`` only; a line of
    ASCII whitespace is skipped (but counted). A line that is not strict JSON (:func:`loads`) or is
    longer than ``max_line_bytes`` yields ``Line(number, error=...)``; reading goes on.
    """
    number = 0
    for raw in _raw_lines(source, max_line_bytes):
        number += 1
        if raw is None:
            yield Line(number, error=f"bad JSON: line longer than {max_line_bytes} bytes")
            continue
        if not raw.strip(_BLANK_BYTES if isinstance(raw, (bytes, bytearray)) else _BLANK_TEXT):
            continue
        try:
            yield Line(number, value=loads(raw, max_depth=max_depth))
        except JSONInputError as exc:
            yield Line(number, error=f"bad JSON: {exc}")


# ---------------------------------------------------------------------------------------------- output
_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


def _sanitised(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {_sanitised(str(k) if not isinstance(k, str) else k): _sanitised(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_sanitised(v) for v in value]
    return value


def dumps(value: Any) -> str:
    """One line of valid JSON (``ensure_ascii=False``) that always encodes as UTF-8.

    A non-finite float is written ``null`` and a lone surrogate as U+FFFD (the reader never
    lets either in; this is the last guard before output). U+0085, U+2028 and U+2029 are
    written as ``\\u`` escapes, so that no reader splits the line.
    """
    try:
        text = _ENCODE(value)
    except ValueError:  # NaN or infinity somewhere
        return _ENCODE(_sanitised(value))
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = _ENCODE(_sanitised(value))
        # characters that some readers take for a line end (str.splitlines): escaped, so one answer is one line
        if "\x85" in text or "\u2028" in text or "\u2029" in text:
            text = text.replace("\x85", "\\u0085").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return text


_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]")


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def printable(value: Any, limit: int | None = None) -> str:
    """``value`` as text safe to print on a terminal (see the module docstring), at most ``limit`` characters."""
    text = value if isinstance(value, str) else str(value)
    if limit is not None and len(text) > limit:
        text = text[:limit] + "..."
    return text if text.isascii() and text.isprintable() else _UNPRINTABLE.sub(_escape, text)
