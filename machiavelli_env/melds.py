"""Meld validity (groups and runs) under the ace modes and joker limits of RULES.md."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .cards import JOKER, NUM_RANKS, rank_of, suit_of
from .rules import Rules


def run_positions(rules: Rules) -> tuple[int, int]:
    """Lowest and highest rank position a run may use (A low = 1, K = 13, A high = 14)."""
    if rules.ace == "low":
        return 1, 13
    if rules.ace == "high":
        return 2, 14
    return 1, 14


def meld_kind(cards: Sequence[int], rules: Rules) -> str | None:
    """``"group"``, ``"run"`` or ``None`` (not a valid meld) for a list of card types."""
    cards = list(cards)
    jokers = sum(1 for c in cards if c == JOKER)
    real = [c for c in cards if c != JOKER]
    if len(cards) < 3 or not real:
        return None
    if jokers > (rules.max_jokers_per_meld if rules.jokers else 0):
        return None
    if _is_group(real, len(cards)):
        return "group"
    if _is_run(real, len(cards), rules):
        return "run"
    return None


def is_valid_meld(cards: Sequence[int], rules: Rules) -> bool:
    """True when the cards form one valid group or run."""
    return meld_kind(cards, rules) is not None


def is_valid_arrangement(melds: Iterable[Sequence[int]], rules: Rules) -> bool:
    """True when every meld of an arrangement is valid."""
    return all(is_valid_meld(m, rules) for m in melds)


def _is_group(real: list[int], size: int) -> bool:
    if size > 4 or len({rank_of(c) for c in real}) != 1:
        return False
    suits = [suit_of(c) for c in real]
    return len(set(suits)) == len(suits)


def _is_run(real: list[int], size: int, rules: Rules) -> bool:
    if len({suit_of(c) for c in real}) != 1:
        return False
    ranks = sorted(rank_of(c) for c in real)
    two_aces = rules.ace == "both_ends" and ranks.count(0) == 2 and len(set(ranks)) == len(ranks) - 1
    if len(set(ranks)) != len(ranks) and not two_aces:
        return False
    if rules.ace == "wrap":
        if size > NUM_RANKS:
            return False
        present = set(ranks)
        return any(present <= {(start + k) % NUM_RANKS for k in range(size)} for start in range(NUM_RANKS))
    lo_pos, hi_pos = run_positions(rules)
    aces = ranks.count(0)
    others = [r + 1 for r in ranks if r != 0]
    if rules.ace == "low":
        placements = [[1] * aces + others]
    elif rules.ace == "high":
        placements = [others + [14] * aces]
    else:
        placements = [[1] * k + others + [14] * (aces - k) for k in range(aces + 1)]
    for pos in placements:
        if len(set(pos)) != len(pos):
            continue
        first, last = min(pos), max(pos)
        # the run occupies `size` consecutive positions covering first..last, inside the range
        for start in range(max(lo_pos, last - size + 1), first + 1):
            end = start + size - 1
            if end > hi_pos:
                break
            if rules.ace == "low_or_high" and start == 1 and end == 14:
                continue
            return True
    return False
