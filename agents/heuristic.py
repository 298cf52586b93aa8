"""Rule-based baselines: ``random``, ``greedy``, ``greedy_points``, ``patient``, ``hoarder`` and ``tempo``.

All of them read the legal plays (or the oracle's best play) from the :class:`~agents.base.Turn`,
so they use the same exact oracle as the environment.
"""

from __future__ import annotations

import sys

import numpy as np

from machiavelli_env import bots, legal
from machiavelli_env.cards import NUM_TYPES
from machiavelli_env.observation import OFF_OPENED

from .base import DRAW, PLAY_LIST_BUDGET, Agent, Turn, fallback_action

#: Observation entries: whether opponents 1..5 have laid down in this game.
_OPPONENTS_OPENED = slice(OFF_OPENED + 1, OFF_OPENED + 6)


class RandomAgent(Agent):
    """Uniform over the first :data:`~machiavelli_env.bots.RANDOM_LIMIT` legal plays plus drawing,
    when drawing is allowed (:func:`machiavelli_env.bots.random_choice`, the rule that
    ``SingleAgentEnv``'s ``"random"`` opponent plays too).

    Lists are exact unless the turn sets a budget; ``exact_lists=0`` (``random[exact_lists=0]``)
    bounds them by :data:`~agents.base.PLAY_LIST_BUDGET`, a faster player that is not quite the
    same one on crowded joker tables (docs/LEGAL_PLAYS.md, "Bounded lists").
    """

    name = "random"

    def __init__(self, seed: int | None = None, exact_lists: bool | int = True):
        if exact_lists not in (0, 1):  # True/False, or 0/1 from an agent spec
            raise ValueError(f"random: exact_lists must be 0 or 1, got {exact_lists!r}")
        self.rng = np.random.default_rng(seed)
        self.list_budget = None if exact_lists else PLAY_LIST_BUDGET

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, turn: Turn) -> np.ndarray:
        turn.default_lists(self.list_budget)
        return bots.random_choice(turn.legal_plays_up_to(bots.RANDOM_LIMIT), turn.draw_allowed, self.rng)


class GreedyAgent(Agent):
    """The oracle's play of the most cards (ties: most points); draws when there is none
    (:func:`machiavelli_env.bots.greedy_choice`, the rule of ``SingleAgentEnv``'s ``"greedy"``)."""

    name = "greedy"
    objective = "cards"

    def act(self, turn: Turn) -> np.ndarray:
        return bots.greedy_choice(turn.best_play(self.objective), turn.draw_allowed,
                                  lambda: turn.legal_plays_up_to(bots.RANDOM_LIMIT))


class GreedyPointsAgent(GreedyAgent):
    """The oracle's play shedding the most penalty points; draws when there is none."""

    name = "greedy_points"
    objective = "points"


#: A ``search_work`` for :class:`HoarderAgent` that keeps a move to about 1-10 ms of search on the
#: positions it bounds (``make_agent(..., exact_lists=False)`` gives it; the default is unbounded)
HOARDER_SEARCH_WORK = 40_000


class PatientAgent(Agent):
    """Holds cards back until a play is worth it.

    Plays the oracle's max-cards play only when one of these holds, else draws:

    * it sheds at least ``min_cards`` cards (default 3), or
    * it empties the hand (going out), or
    * some opponent holds at most ``danger`` cards (default 4), or
    * the stock is empty, or drawing is not allowed.

    Holding back keeps flexible cards in hand for later rebuilds of the table and denies
    opponents material to attach to; it pays when opponents are far from going out.
    """

    name = "patient"
    #: bounds the max-cards search (:meth:`Turn.best_play`'s ``search_work``); None: the oracle's schedule
    search_work: int | None = None

    def __init__(self, min_cards: int = 3, danger: int = 4):
        if min_cards < 1 or danger < 0:
            raise ValueError(f"patient needs min_cards >= 1 and danger >= 0, got {min_cards}, {danger}")
        self.min_cards = min_cards
        self.danger = danger

    def act(self, turn: Turn) -> np.ndarray:
        play = turn.best_play("cards", self.search_work)
        if not play.any():
            return fallback_action(turn)
        size = int(play.sum())
        if size >= self.min_cards or size == int(turn.hand.sum()) or self._must_not_wait(turn):
            return play
        return np.zeros(NUM_TYPES, dtype=np.int64)

    def _must_not_wait(self, turn: Turn) -> bool:
        """An opponent is close to going out, the stock is empty, or drawing is not allowed."""
        opponents = turn.hand_sizes[1:]
        return bool(opponents and min(opponents) <= self.danger) or turn.stock_size == 0 or not turn.draw_allowed


class HoarderAgent(PatientAgent):
    """Draws until it can lay down its whole hand in one play, then goes out.

    :class:`PatientAgent` with no play big enough short of going out: it plays the oracle's
    max-cards play only when that empties the hand, some opponent holds at most ``danger`` cards
    (default 0: never), the stock is empty (drawing would be passing, and a blocked game goes to
    the fewest hand points), or drawing is not allowed; else it draws.

    Every card drawn is one more card to build with, and the table only grows while the opponents
    play, so sooner or later the hand and the table repack into melds together. Under the classic
    rules this beats the other baselines by a wide margin (docs/RESULTS.md, "Agents"); it is
    the simplest bot a learned policy must beat.

    Its max-cards play short of going out comes from the oracle's own schedule (the hoarder of
    BENCHMARK.md's ladder). With ``search_work`` (e.g. :data:`HOARDER_SEARCH_WORK`) it comes from
    the exact search within that much work, then from the search swept the other way within as
    much again, and past that from the integer programme, exact too
    (:func:`machiavelli_env.legal.best_play`): with the stock empty, a hand of 50 cards over a
    joker table can keep the full schedule busy for seconds, the programme tens of
    milliseconds. Of several max-cards plays the bounded player may then pick another than the
    full schedule would. ``search_work=0`` is the default, the oracle's own schedule.
    """

    name = "hoarder"

    def __init__(self, danger: int = 0, search_work: int | None = None):
        if danger < 0:
            raise ValueError(f"hoarder needs danger >= 0, got {danger}")
        work = 0 if search_work is None else search_work
        if isinstance(work, bool) or not isinstance(work, (int, np.integer)) or work < 0:
            raise ValueError(f"hoarder needs search_work >= 0 (0: the oracle's own schedule), got {search_work!r}")
        super().__init__(min_cards=sys.maxsize, danger=danger)
        self.search_work = int(work) or None

    def act(self, turn: Turn) -> np.ndarray:
        # the max-cards play empties the hand exactly when the whole hand is a legal play: one
        # repack question, where the max-cards search costs seconds on big hands with several
        # decks and jokers (the same action; agents.search.hoarder_move asks the same way)
        hand = np.asarray(turn.hand, dtype=np.int64)
        if hand.any() and turn.is_legal(hand):
            return hand.copy()
        if self._must_not_wait(turn):
            return super().act(turn)  # it may play short of going out: the max-cards play, if any
        return DRAW.copy()


class TempoAgent(Agent):
    """A hoarder that times the stock's last draw against other hoarders.

    It goes out when the whole hand goes out, and otherwise keeps its cards, with an empty stock
    too (where drawing is passing). While the stock lasts and no opponent has laid down in this
    game, it also watches the *stock clock*: if every player drew from now on, the seat ``last``
    places after it (default 1: the next player) would draw the last card, and it lays down its
    smallest legal play (fewest cards, then most points) instead of drawing whenever another seat
    would. Laying down instead of drawing moves the last draw one seat back, so against players
    who only draw, it moves second to last in the first round without a stock, after the others
    have laid their melds on the table and before the player who drew the last card.

    ``last`` in ``1..players - 1``; with ``last=0`` it never lays down before going out.
    """

    name = "tempo"

    def __init__(self, last: int = 1):
        if last < 0:
            raise ValueError(f"tempo needs last >= 0, got {last}")
        self.last = last

    def act(self, turn: Turn) -> np.ndarray:
        plays = turn.legal_plays
        n_hand = int(turn.hand.sum())
        for play in plays:
            if int(np.minimum(play, turn.hand).sum()) == n_hand:
                return play.copy()
        if not turn.draw_allowed:
            return fallback_action(turn)
        n = turn.rules.players
        if turn.stock_size == 0 or not plays or self.last == 0 or (turn.stock_size - 1) % n == self.last % n:
            return DRAW.copy()
        if any(turn.observation["observation"][_OPPONENTS_OPENED][: n - 1]):
            return DRAW.copy()
        points = legal.rules_info(turn.rules).points
        return min(plays, key=lambda q: (int(q.sum()), -int(q @ points))).copy()
