"""A person at the terminal: type cards in the notation of RULES.md (``10H JH QH``), or ``draw``.

Commands: ``draw`` (or an empty line / ``d``), ``hint`` (the oracle's max-cards play), ``table``
(show the table again), ``help`` and ``quit``. A typo or a card not in the hand gets a message and
a new prompt; so does a play that cannot be laid down (the engine would punish it as a failed
play), unless it ends with ``!``, which plays it anyway.
"""

from __future__ import annotations

import sys
from typing import TextIO

import numpy as np

from machiavelli_env.cards import CardError, format_cards, from_counts, to_counts
from machiavelli_env.render import cards_text, meld_order

from .base import DRAW, Agent, Turn

HELP = (
    "type the cards to lay down, e.g. '7H 7S 7C' or '10♥ J♥ Q♥' (suit letters S H D C or symbols, JK = joker);\n"
    "  draw | d | <enter>  draw a card (pass on an empty stock)\n"
    "  hint                show the oracle's play of the most cards\n"
    "  table               show the table and your hand again\n"
    "  quit                leave the game\n"
    "  end a play with '!' to lay it down even if it cannot be repacked (a failed play: penalty draw)"
)


class QuitGame(Exception):
    """The person typed ``quit``."""


class HumanAgent(Agent):
    """Reads moves from ``stdin`` (or the given streams) and explains mistakes."""

    name = "human"

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None, color: bool | None = None):
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.color = self.stdout.isatty() if color is None else color

    def _say(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def show(self, turn: Turn) -> None:
        """Print the table, the opponents' hand sizes and the hand."""
        self._say("table:" if turn.melds else "table: (empty)")
        for m in turn.melds:
            self._say("  [" + cards_text(meld_order(m), self.color, sort=False) + "]")
        sizes = ", ".join(f"{n}" for n in turn.hand_sizes[1:])
        self._say(f"opponents' cards: {sizes}; stock: {turn.stock_size}")
        self._say("your hand: " + cards_text(from_counts(turn.hand), self.color))
        if not turn.opened and turn.rules.opening != "none":
            self._say(f"you have not opened yet (opening: {turn.rules.opening}): lay down melds from your hand alone")

    def act(self, turn: Turn) -> np.ndarray:
        self.show(turn)
        while True:
            self.stdout.write("your move> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                raise QuitGame("end of input")
            text = line.strip()
            low = text.lower()
            if low in ("", "d", "draw", "pass"):
                if turn.draw_allowed:
                    return DRAW.copy()
                self._say("you must play: a legal play exists and the rules (must_play_if_able) forbid drawing")
                continue
            if low in ("q", "quit", "exit"):
                raise QuitGame("quit")
            if low in ("h", "help", "?"):
                self._say(HELP)
                continue
            if low == "table":
                self.show(turn)
                continue
            if low == "hint":
                best = turn.best_play("cards")
                self._say("hint: " + (format_cards(from_counts(best)) if best.any() else "no play; draw"))
                continue
            force = text.endswith("!")
            try:
                play = to_counts(text.rstrip("!"))
            except CardError as exc:
                self._say(f"not understood: {exc} (type 'help')")
                continue
            short = np.flatnonzero(play > turn.hand)
            if short.size:
                missing = format_cards(from_counts(np.where(play > turn.hand, play - turn.hand, 0)))
                self._say(f"you do not hold: {missing}")
                continue
            if not force and not turn.is_legal(play):
                self._say(
                    "that play cannot be arranged with the table into valid melds"
                    + ("" if turn.opened else " (or does not meet the opening rule)")
                    + "; end it with '!' to play it anyway (failed play, penalty draw)"
                )
                continue
            return play
