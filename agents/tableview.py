"""What a move did to the table, as data, and the cards drawn in a browser: shared by the replay
viewer (:mod:`agents.replay_html`) and the play page (:mod:`agents.web`).

:func:`step_view` describes one transition of the engine (the deal, a play, a failed play, a draw)
as JSON-ready data: the table's melds after it, the melds it formed and broke up, the cards it
added, who holds what. :func:`card_css` and :func:`card_js` are the one stylesheet and script that
draw cards and melds (``agents/static/cards.css`` and ``cards.js``, package data); both pages
use them, so a card looks the same in a replay and in a game.

Hidden information: with ``viewer=None`` every hand is shown (a replay comes after the fact);
with ``viewer=p`` only seat ``p``'s hand and the cards it drew are named, the other hands are
given as card counts, as at a real table.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from machiavelli_env.cards import card_name, from_counts, sort_key, to_counts
from machiavelli_env.game import State
from machiavelli_env.oracle import repack
from machiavelli_env.render import last_move, meld_order, move_text

__all__ = ["card_css", "card_js", "cards", "finished_game", "step_view"]


def cards(counts: np.ndarray) -> list[int]:
    """The card types of a count vector, in display order (suit, then rank; jokers last)."""
    return sorted(from_counts(np.maximum(counts, 0)), key=sort_key)


@cache
def _asset(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def card_css() -> str:
    """The stylesheet of cards, melds and the move highlighting (``agents/static/cards.css``)."""
    return _asset("cards.css")


def card_js() -> str:
    """The script that draws cards and melds, ``window.MachCards`` (``agents/static/cards.js``)."""
    return _asset("cards.js")


def step_view(before: State | None, after: State, action: Any, seats: list[str],
              viewer: int | None = None) -> dict[str, Any]:
    """One transition as data: the state after it and its ``move`` (``before`` None: the deal).

    ``action`` is the action given to :func:`machiavelli_env.game.step` (it names a failed play's
    cards). ``viewer``: ``None`` shows every hand; a seat shows that seat's hand only (the others as
    ``[]``, their sizes in ``hand_sizes``) and names only the cards that seat drew.
    """
    n = after.rules.players
    sizes = [int(after.hands[p].sum()) for p in range(n)]
    visible = [viewer is None or p == viewer for p in range(n)]
    step: dict[str, Any] = {
        "turn": after.turn,
        "game": after.game,
        "current": after.current,
        "stock": int(after.stock.size),
        "done": bool(after.done),
        "winner": after.winner,
        "result": after.result,
        "melds": [meld_order(m) for m in after.melds],
        "help": cards(after.help),
        "hands": [cards(after.hands[p]) if visible[p] else [] for p in range(n)],
        "hand_sizes": sizes,
        "opened": [bool(x) for x in after.opened],
        "scores": [int(x) for x in after.scores],
    }
    if before is None:
        step["move"] = {"player": -1, "kind": "deal", "text": "the deal", "cards": [], "left": [], "drawn": [],
                        "new_melds": [], "broken": [], "added": []}
        return step
    mv = last_move(before, after, action if action is not None and len(action) else None)
    p = mv.player
    same_deal = after.game == before.game
    left = cards(before.hands[p] - after.hands[p]) if same_deal and mv.kind == "play" else []
    drawn = cards(after.hands[p] - before.hands[p]) if same_deal else []
    text = move_text(mv, seats)
    if not same_deal:  # a match's game ended: ``after`` is the next deal; show how the finished game ended
        step["move_final"] = finished_game(before, mv)
    if drawn and visible[p] and not mv.ended and mv.kind in ("draw", "failed"):  # name the cards the viewer sees
        names = " ".join(card_name(c, symbols=True) for c in drawn)
        text = f"{seats[p]} draws {names}" if mv.kind == "draw" else f"{text} ({names})"
    step["move"] = {
        "player": p,
        "kind": mv.kind,
        "text": text,
        "cards": list(mv.cards),
        "left": left,  # cards that left the hand (a play)
        "drawn": drawn if visible[p] else [],  # cards taken from the stock (a draw, a failed play's penalty)
        "new_melds": list(mv.new_melds),
        "broken": [list(m) for m in mv.broken],
        "added": cards(mv.added),
        "ended": mv.ended,
        "event": mv.event,
    }
    return step


def finished_game(before: State, mv: Any) -> dict[str, Any]:
    """The last table and the hands left of a game that a move ended (in a match, before the next deal)."""
    table, hands = before.table, [before.hands[p].copy() for p in range(before.rules.players)]
    melds = [meld_order(m) for m in before.melds]
    if mv.kind == "play" and mv.cards:
        played = to_counts(list(mv.cards))
        arranged = repack(table, played, before.rules)
        if arranged is not None:  # presentation only: one valid arrangement of the last table
            melds = [meld_order(m) for m in arranged]
        hands[mv.player] = np.maximum(hands[mv.player] - played, 0)
    return {"game": before.game, "melds": melds, "hands": [cards(h) for h in hands]}
