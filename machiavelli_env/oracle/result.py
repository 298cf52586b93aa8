"""The oracle's answer type (:class:`Play`) and its errors (:class:`OracleError`).

Both the extension's Python side (:mod:`.dp`) and the public API (:mod:`.api`) build these, so they
live below both: this module imports only the cards, the rules and the extension itself.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any, NoReturn

import numpy as np

from ..cards import CARD_TYPES, NUM_TYPES, as_counts
from ..rules import Rules
from . import _dp  # type: ignore[attr-defined]


class _made_once:  # lower case: used like functools.cached_property
    """A read-only attribute computed on first access and then kept in the instance's ``__dict__``
    (``functools.cached_property`` without its per-access lock, which Python 3.11 still takes)."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


class Play(tuple):
    """An optimal play: the cards taken from the hand, its objective value and the new table.

    ``Play(counts, value, melds)``; a read-only record (a tuple underneath, so that the extension's
    answer becomes a ``Play`` without copying). Read it through its attributes: ``counts`` (53,)
    int64, the cards played from hand, ``value`` and ``melds`` (the arrangement of table + play,
    lists of card types); ``counts`` and ``melds`` are made from the answer on first access.
    """

    # held as (value, counts, melds): counts is an ndarray or the extension's bytearray of 53 int64,
    # melds a list or the extension's encoded bytes
    def __new__(cls, counts: np.ndarray | bytearray, value: int, melds: list[list[int]] | None = None) -> Play:
        return tuple.__new__(cls, (value, counts, [] if melds is None else melds))

    def __getnewargs__(self) -> tuple:  # pickling and copying go through __new__'s signature
        return (self.counts, self.value, self.melds)

    value = property(itemgetter(0), doc="The play's objective value.")

    @_made_once
    def melds(self) -> list[list[int]]:
        """The arrangement of table + play into valid melds (lists of card types)."""
        raw = tuple.__getitem__(self, 2)
        return _dp.melds(raw) if type(raw) is bytes else raw

    @_made_once
    def counts(self) -> np.ndarray:
        """(53,) int64: the cards played from hand."""
        raw = tuple.__getitem__(self, 1)
        return raw if type(raw) is np.ndarray else np.frombuffer(raw, dtype=np.int64)

    @property
    def cards(self) -> list[int]:
        """The played card types, sorted."""
        counts = self.counts
        return [c for c in range(NUM_TYPES) for _ in range(int(counts[c]))]

    @property
    def size(self) -> int:
        """Number of cards played."""
        return int(self.counts.sum())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Play):
            return NotImplemented
        return self.value == other.value and np.array_equal(self.counts, other.counts) and self.melds == other.melds

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Play is read-only: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Play is read-only: cannot delete {name!r}")

    def __repr__(self) -> str:
        return f"Play(counts={self.counts!r}, value={self.value!r}, melds={self.melds!r})"


class OracleError(ValueError):
    """Bad input to the oracle (wrong shapes, negative counts, more copies than the pack holds)."""


def _raise_code(code: int, lo: np.ndarray, hi: np.ndarray, weights: np.ndarray | None, rules: Rules) -> NoReturn:
    """Turn an error code of the extension into a clear :class:`OracleError`."""
    if code == 3:
        for arr, name in ((lo, "lo"), (hi, "hi")):
            try:
                as_counts(arr, name)
            except ValueError as exc:
                raise OracleError(str(exc)) from None
        raise OracleError("weights must be 53 non-negative integers")
    if code == 1:
        bad = ", ".join(CARD_TYPES[c] for c in np.flatnonzero(np.asarray(lo) > np.asarray(hi)))
        raise OracleError(f"lower bounds exceed upper bounds for {bad}")
    if code == 2:
        limits = np.array([rules.copies(c) for c in range(NUM_TYPES)])
        over = np.flatnonzero(np.asarray(hi) > limits)
        names = ", ".join(f"{CARD_TYPES[c]} x{int(hi[c])}" for c in over)
        raise OracleError(
            f"the cards hold more copies than the pack has ({rules.decks} decks, {rules.jokers} jokers): {names}"
        )
    raise OracleError(f"oracle error code {code}")
