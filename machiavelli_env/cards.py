"""Card types, the text notation of RULES.md, and count vectors.

A card *type* is an integer in ``0..52``: ``suit * 13 + rank`` for the 52 standard cards
(suits in the order ``S H D C``, ranks ``A 2 .. 10 J Q K`` as 0..12) and ``52`` for the joker.
A hand, the table and a play are multisets of card types, held either as a list of type
indices or as a count vector of length :data:`NUM_TYPES` in the order of :data:`CARD_TYPES`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

SUITS: tuple[str, ...] = ("S", "H", "D", "C")
SUIT_SYMBOLS: tuple[str, ...] = ("\u2660", "\u2665", "\u2666", "\u2663")
RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
NUM_SUITS = 4
NUM_RANKS = 13
JOKER = 52
NUM_TYPES = 53
JOKER_NAME = "JK"

#: The 53 card names, in the order used by count vectors and actions (joker last).
CARD_TYPES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS) + (JOKER_NAME,)

_SUIT_ALIASES = {s: i for i, s in enumerate(SUITS)}
_SUIT_ALIASES.update({sym: i for i, sym in enumerate(SUIT_SYMBOLS)})
_SUIT_ALIASES.update({"\u2664": 0, "\u2661": 1, "\u2662": 2, "\u2667": 3})  # outline symbols
_RANK_ALIASES = {r: i for i, r in enumerate(RANKS)}
_RANK_ALIASES.update({"1": 0, "T": 9, "11": 10, "12": 11, "13": 12})
_JOKER_ALIASES = {"JK", "JOKER", "*", "\U0001f0cf"}


class CardError(ValueError):
    """A card string, card index or count vector that is not valid."""


def suit_of(card: int) -> int:
    """Suit index (0..3) of a non-joker card type."""
    return card // NUM_RANKS


def rank_of(card: int) -> int:
    """Rank index (0 = ace .. 12 = king) of a non-joker card type."""
    return card % NUM_RANKS


def make_card(rank: int, suit: int) -> int:
    """Card type of rank index ``rank`` (0..12) and suit index ``suit`` (0..3)."""
    return suit * NUM_RANKS + rank


def parse_card(text: str) -> int:
    """Parse one card such as ``"10H"``, ``"q♠"`` or ``"JK"`` into its type index.

    Raises :class:`CardError` naming the string when it is not a card.
    """
    if not isinstance(text, str):
        raise CardError(f"not a card: {text!r} (expected a string such as '10H' or 'JK')")
    s = text.strip().upper()
    if s in _JOKER_ALIASES:
        return JOKER
    if len(s) >= 2:
        suit = _SUIT_ALIASES.get(s[-1])
        rank = _RANK_ALIASES.get(s[:-1])
        if suit is not None and rank is not None:
            return make_card(rank, suit)
    raise CardError(
        f"not a card: {text!r} (use a rank A 2-10 J Q K followed by a suit S H D C "
        f"or a suit symbol, or JK for a joker)"
    )


def parse_cards(cards: str | Iterable[str | int]) -> list[int]:
    """Parse a space- or comma-separated card string, or a sequence of names or indices.

    ``parse_cards("10H QS JK") == [22, 50, 52]``. Every bad item is reported in one error.
    """
    if isinstance(cards, str):
        items: list[str | int] = [t for t in cards.replace(",", " ").split() if t]
    else:
        items = list(cards)
    out: list[int] = []
    bad: list[str] = []
    for item in items:
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            if 0 <= int(item) < NUM_TYPES:
                out.append(int(item))
            else:
                bad.append(f"{item!r} (card index out of range 0..52)")
            continue
        try:
            out.append(parse_card(item))  # type: ignore[arg-type]
        except CardError:
            bad.append(repr(item))
    if bad:
        raise CardError(
            "not a card: " + ", ".join(bad) + " (use e.g. '10H QS AS JK'; suits S H D C or symbols)"
        )
    return out


def card_name(card: int, symbols: bool = False) -> str:
    """Name of a card type in the notation (``"10H"``, or ``"10♥"`` with ``symbols``)."""
    if not 0 <= card < NUM_TYPES:
        raise CardError(f"card index out of range 0..52: {card!r}")
    if card == JOKER:
        return JOKER_NAME
    if symbols:
        return RANKS[rank_of(card)] + SUIT_SYMBOLS[suit_of(card)]
    return CARD_TYPES[card]


def sort_key(card: int) -> tuple[int, int]:
    """Display order: by suit, then rank; jokers last."""
    return (NUM_SUITS, 0) if card == JOKER else (suit_of(card), rank_of(card))


def format_cards(cards: Iterable[int], symbols: bool = False, sort: bool = True) -> str:
    """Space-separated names of a list of card types (sorted by suit and rank by default)."""
    seq = sorted(cards, key=sort_key) if sort else list(cards)
    return " ".join(card_name(c, symbols) for c in seq)


def to_counts(cards: str | Iterable[str | int]) -> np.ndarray:
    """Count vector (length 53, int64) of a card string or a sequence of cards."""
    counts = np.zeros(NUM_TYPES, dtype=np.int64)
    for c in parse_cards(cards):
        counts[c] += 1
    return counts


def from_counts(counts: Sequence[int] | np.ndarray) -> list[int]:
    """Sorted list of card types held in a count vector."""
    arr = as_counts(counts)
    return [c for c in range(NUM_TYPES) for _ in range(int(arr[c]))]


def as_counts(counts: Sequence[int] | np.ndarray, name: str = "counts") -> np.ndarray:
    """Validate a count vector (53 non-negative integers) and return it as int64."""
    arr = np.asarray(counts)
    if arr.shape != (NUM_TYPES,):
        raise CardError(f"{name} must have shape ({NUM_TYPES},), got {arr.shape}")
    if arr.dtype.kind not in "iub":
        if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise CardError(f"{name} must hold integers, got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    if (arr < 0).any():
        neg = [CARD_TYPES[i] for i in np.flatnonzero(arr < 0)]
        raise CardError(f"{name} has negative counts for {', '.join(neg)}")
    return arr
