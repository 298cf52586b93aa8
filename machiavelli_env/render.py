"""Text rendering of a game state: suit symbols, hearts and diamonds in red (ANSI colours)."""

from __future__ import annotations

from collections.abc import Iterable

from .cards import JOKER, card_name, from_counts, rank_of, sort_key, suit_of
from .game import ACTION_NAMES, State

RED, BOLD, DIM, RESET = "\x1b[31m", "\x1b[1m", "\x1b[2m", "\x1b[0m"


def card_text(card: int, color: bool = True) -> str:
    """One card with its suit symbol (``10♥``), coloured red for hearts and diamonds."""
    name = card_name(card, symbols=True)
    if color and card != JOKER and suit_of(card) in (1, 2):
        return f"{RED}{name}{RESET}"
    if color and card == JOKER:
        return f"{BOLD}{name}{RESET}"
    return name


def cards_text(cards: Iterable[int], color: bool = True, sort: bool = True) -> str:
    """Space-separated cards (sorted by suit and rank unless ``sort`` is False)."""
    seq = sorted(cards, key=sort_key) if sort else list(cards)
    return " ".join(card_text(c, color) for c in seq) or "-"


def meld_order(meld: Iterable[int]) -> list[int]:
    """Display order of a meld: a group by suit; a run in rank order (an ace after a king when it
    stands high, the widest gap of a wrapping run at the end); jokers last."""
    cards = list(meld)
    real = sorted((c for c in cards if c != JOKER), key=sort_key)
    jokers = [c for c in cards if c == JOKER]
    if len({suit_of(c) for c in real}) != 1 or len({rank_of(c) for c in real}) == 1:
        return real + jokers
    ranks = [rank_of(c) for c in real]  # one suit, sorted by rank
    if ranks.count(0) == 2:  # A..K..A
        return real[1:] + real[:1] + jokers
    gaps = [(ranks[(i + 1) % len(ranks)] - ranks[i]) % 13 for i in range(len(ranks))]
    cut = max(range(len(ranks)), key=lambda i: (gaps[i], i))
    return real[cut + 1:] + real[:cut + 1] + jokers


def render_text(state: State, color: bool = True, show_hands: bool = True) -> str:
    """A multi-line description of the state: header, table melds, help pile and players."""
    r = state.rules
    out = []
    head = f"Machiavelli ({r.name}) game {state.game + 1}, turn {state.turn}; stock {state.stock.size}"
    if state.done:
        who = f"player_{state.winner}" if state.winner >= 0 else "nobody"
        head += f"; over ({state.result}), winner {who}"
    else:
        head += f"; player_{state.current} to move"
    out.append(f"{BOLD}{head}{RESET}" if color else head)
    out.append(f"last: {state.event}")
    out.append("table:" if state.melds else "table: (empty)")
    for m in state.melds:
        out.append("  [" + cards_text(meld_order(m), color, sort=False) + "]")
    if state.help.any():
        out.append("help: " + cards_text(from_counts(state.help), color))
    for p in range(r.players):
        mark = ">" if p == state.current and not state.done else " "
        info = f"{int(state.hands[p].sum())} cards"
        if state.opened[p]:
            info += ", opened"
        if r.match_target > 0:
            info += f", match {int(state.scores[p])}/{r.match_target}"
        if state.last_action[p]:
            info += f", last {ACTION_NAMES[int(state.last_action[p])]}"
        line = f"{mark} player_{p} ({info})"
        if show_hands:
            line += ": " + cards_text(from_counts(state.hands[p]), color)
        elif state.known[p].any():
            line += ": known " + cards_text(from_counts(state.known[p]), color)
        out.append(line)
    return "\n".join(out)
