"""Text rendering of a game state (suit symbols, hearts and diamonds in red, ANSI colours) and
:func:`last_move`, what one transition did (shared by the image renderer and the replay viewer)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .cards import JOKER, NUM_TYPES, card_name, from_counts, rank_of, sort_key, suit_of
from .game import ACTION_NAMES, State, check_action

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


# ---------------------------------------------------------------------------------------------- the last move
@dataclass(frozen=True)
class Move:
    """What one transition did, as shown by the image renderer and the HTML replay viewer.

    ``player``: who moved (-1 for a fresh deal); ``kind``: ``"deal"``, ``"play"``, ``"failed"``,
    ``"draw"`` or ``"pass"``; ``cards``: the cards laid down (a play) or tried (a failed play),
    display-sorted; ``added``: count vector of the cards new on the table; ``new_melds``: indices
    into ``after.melds`` of the melds that were not on the table before (formed by this move);
    ``extended``: those of ``new_melds`` that are a meld of ``before`` with cards added (the
    ends of a run, a fourth card of a group); ``broken``: the other melds of ``before`` that are
    no longer on the table (broken up, their cards re-formed into the other new melds);
    ``drawn``: cards taken from the stock; ``ended``: the move ended a game (``after`` may then be
    the next deal of a match); ``event``: the engine's event string.
    """

    player: int
    kind: str
    cards: tuple[int, ...] = ()
    added: np.ndarray = field(default_factory=lambda: np.zeros(NUM_TYPES, dtype=np.int64))
    new_melds: tuple[int, ...] = ()
    broken: tuple[tuple[int, ...], ...] = ()
    extended: tuple[int, ...] = ()
    drawn: int = 0
    ended: bool = False
    event: str = "deal"


def last_move(before: State | None, after: State, action: Any = None) -> Move:
    """The :class:`Move` that led from ``before`` to ``after`` (``before`` None: the deal).

    ``action`` (the action passed to :func:`game.step`, any form it accepts) names the cards of a
    failed play; without it they are read from the cards it revealed (``known``).
    """
    if before is None or after.turn == before.turn and after.game == before.game:
        return Move(player=-1, kind="deal", event=after.event)
    p = before.current
    kind = after.event.split(":")[0]
    ended = ":" in after.event
    same_deal = after.game == before.game
    counts = None
    if action is not None and kind in ("play", "failed"):
        try:
            counts = check_action(before, action)
        except ValueError:
            counts = None
    if counts is None and kind == "play" and same_deal:
        counts = after.table - before.table
    if counts is None and kind == "failed":
        counts = np.maximum(after.known[p] - before.known[p], 0) if same_deal else np.zeros(NUM_TYPES, np.int64)
    cards = tuple(sorted(from_counts(counts), key=sort_key)) if counts is not None else ()
    if not same_deal:
        return Move(player=p, kind=kind, cards=cards, ended=True, event=after.event)
    added = np.maximum(after.table - before.table, 0)
    drawn = int(before.stock.size - after.stock.size)
    new_idx: tuple[int, ...] = ()
    broken: tuple[tuple[int, ...], ...] = ()
    extended: list[int] = []
    if kind == "play":
        old = Counter(tuple(sorted(m)) for m in before.melds)
        for i, m in enumerate(after.melds):
            key = tuple(sorted(m))
            if old[key] > 0:
                old[key] -= 1
            else:
                new_idx += (i,)
        gone = [m for m, k in old.items() for _ in range(k)]
        spare = added.copy()  # each extension uses added cards only
        for i in new_idx:
            grown = Counter(after.melds[i])
            for j, m in enumerate(gone):
                extra = grown - Counter(m)
                if len(m) < len(after.melds[i]) and not Counter(m) - grown and all(
                        spare[c] >= k for c, k in extra.items()):
                    for c, k in extra.items():
                        spare[c] -= k
                    extended.append(i)
                    del gone[j]
                    break
        broken = tuple(tuple(meld_order(m)) for m in gone)
    return Move(player=p, kind=kind, cards=cards, added=added, new_melds=new_idx, broken=broken,
                extended=tuple(extended), drawn=drawn,
                ended=ended, event=after.event)


def move_text(move: Move, names: Sequence[str] | None = None, color: bool = False, symbols: bool = True) -> str:
    """One line describing ``move`` (``names``: a label per seat, default ``player_i``; ``symbols``:
    suits as ``♠♥♦♣``, else letters)."""
    if move.player < 0:
        return "the deal"
    who = names[move.player] if names else f"player_{move.player}"
    if symbols:
        cards = cards_text(move.cards, color, sort=False)
    else:
        cards = " ".join(card_name(c) for c in move.cards) or "-"
    if move.kind == "play":
        text = f"{who} plays {cards}"
        parts = []
        if move.extended:
            parts.append(f"extends {_n(len(move.extended), 'meld')}")
        formed = len(move.new_melds) - len(move.extended)
        if move.broken:
            parts.append(f"breaks up {_n(len(move.broken), 'meld')} and re-forms the cards into {_n(formed, 'meld')}")
        elif formed:
            parts.append(f"{_n(formed, 'new meld')}")
        if parts:
            text += "; " + ", ".join(parts)
    elif move.kind == "failed":
        text = f"{who} tries {cards}: no valid table; the cards are shown and {move.drawn} penalty card" + (
            "s" * (move.drawn != 1) + " drawn")
    elif move.kind == "draw":
        text = f"{who} draws {move.drawn} card" + "s" * (move.drawn != 1)
    elif move.kind == "pass":
        text = f"{who} passes (stock empty)"
    else:
        text = f"{who}: {move.kind}"
    if move.ended:
        words = {"win": "wins the game", "blocked": "the game is blocked", "draw": "the game is drawn",
                 "next_game": "the next game is dealt", "match_over": "the match is over"}
        rest = move.event.split(":")[1:]
        text += " -> " + ", ".join(words.get(r, r.replace("_", " ")) for r in rest)
    return text


def _n(k: int, noun: str) -> str:
    return f"{k} {noun}{'s' * (k != 1)}"
