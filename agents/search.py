"""``search``: determinized Monte Carlo search over the macro-actions (plays and drawing).

Machiavelli hides the opponents' cards and the stock, so the search plays out *determinizations*
(perfect-information Monte Carlo, the classic reference for imperfect-information card games):
each simulated world keeps everything the player knows (its hand, the table, the help pile,
hand sizes, cards revealed by failed plays, the stock size) and deals the unseen cards at random
(:meth:`agents.base.Turn.sample_world`, i.e. :func:`machiavelli_env.game.resample_hidden`).

One decision:

1. A play that empties the hand wins at once: it is taken without search.
2. The candidates are drawing (when allowed), then up to ``top`` legal plays from the oracle's list
   (:meth:`~agents.base.Turn.legal_plays_up_to` with ``limit=top``: a max-cards play, a
   max-points play, a max-cards play holding each playable card type, then more plays; every
   play when there are at most ``top``). A lone candidate is played without search.
3. The candidates are compared by *sequential halving* (Karnin, Koren and Somekh, 2013): the
   budget of ``sims`` simulations is split over ``ceil(log2(candidates))`` rounds; in each round
   every surviving candidate is played in the same freshly sampled worlds (common random numbers:
   the rollout policies are deterministic, so two candidates differ only by the move itself), and
   the better half by mean value goes on. The best mean over all its simulations wins (ties: the
   earlier candidate: drawing first, then the oracle's order).
4. A simulation applies the candidate in one world and plays on with the rollout policy
   (``rollout``: ``hoarder`` or ``greedy``) on the pure engine (:func:`machiavelli_env.game.step`)
   until the game ends or ``depth`` moves have been made. The searching player's own seat follows
   ``rollout``; the other seats follow ``opponents``, the model of how the opponents play (one of
   :data:`ROLLOUTS`; by default the same as ``rollout``). Its value for the searching player: 1 for
   a win, 0 for a loss, ``1 / players`` for a drawn game; a rollout cut at ``depth`` (or truncated
   by ``max_turns``, or a game of a match that ended) is scored by hand points: the fraction of the
   opponents holding more penalty points, ties counted half (match play: the points the game added
   to each match total).

The budget counts simulations (rollouts), never seconds, so a decision depends only on the turn
and the agent's random numbers: with a seed (``search[seed=0]`` or ``make_agent(..., seed=0)``;
:func:`agents.arena.play_game` reseeds every game) the same game is played move for move.
:attr:`SearchAgent.last_sims` and :attr:`SearchAgent.total_sims` count the simulations.

The ``hoarder`` rollout policy is :class:`agents.heuristic.HoarderAgent`'s rule (go out when the
whole hand goes out, else draw; with an empty stock, or when drawing is not allowed, the oracle's
max-cards play) asked with the oracle's whole-hand feasibility check (:func:`oracle.api.repack`,
a few microseconds) instead of a full ``best_play`` (hundreds): a whole-hand play is the max-cards
play exactly when it exists. ``greedy`` is :class:`agents.heuristic.GreedyAgent`'s rule (the
oracle's max-cards play each turn), about ten times slower per move.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from machiavelli_env import game, legal
from machiavelli_env.cards import NUM_TYPES
from machiavelli_env.oracle import api as oracle

from .base import DRAW, Agent, Turn

#: Rollout policies by name.
ROLLOUTS = ("hoarder", "greedy")
#: The default budget: simulations per decision (see docs/SEARCH.md for its decision time).
DEFAULT_SIMS = 64

_ZERO = np.zeros(NUM_TYPES, dtype=np.int64)
_ZERO.setflags(write=False)


# ---------------------------------------------------------------------------------------------- rollout policies
def _max_cards_or_fallback(state: game.State, p: int) -> np.ndarray:
    """The oracle's max-cards play; without one, drawing if allowed, else the first legal (help) play."""
    play = game.best_play(state, p, "cards")
    if np.count_nonzero(play):
        return play
    if not state.rules.must_play_if_able or game.draw_allowed(state, p):
        return _ZERO
    plays = game.legal_plays(state, p, 1)
    return plays[0] if plays else _ZERO


def hoarder_move(state: game.State) -> np.ndarray:
    """:class:`~agents.heuristic.HoarderAgent`'s move (``danger=0``) for the player to move."""
    p = state.current
    rules = state.rules
    hand = state.hands[p]
    if rules.opening == "none" or state.opened[p]:
        if oracle.repack(state.table, hand, rules) is not None:
            return hand
    else:  # an opening lay-down must come from the hand alone: ask the oracle's opening play
        play = game.best_play(state, p, "cards")
        if np.count_nonzero(play) and int(play.sum()) == int(hand.sum()):
            return play
    if state.stock.size == 0 or (rules.must_play_if_able and not game.draw_allowed(state, p)):
        return _max_cards_or_fallback(state, p)
    return _ZERO


def greedy_move(state: game.State) -> np.ndarray:
    """:class:`~agents.heuristic.GreedyAgent`'s move for the player to move."""
    return _max_cards_or_fallback(state, state.current)


_POLICIES: dict[str, Callable[[game.State], np.ndarray]] = {"hoarder": hoarder_move, "greedy": greedy_move}


# ---------------------------------------------------------------------------------------------- the agent
class SearchAgent(Agent):
    """Determinized search with rollouts (see the module docstring).

    ``sims``: simulations per decision (the budget); ``rollout``: the policy the searching player
    follows in simulations (:data:`ROLLOUTS`); ``opponents``: the policy the other seats follow
    there (default: ``rollout``); ``top``: legal plays considered besides drawing; ``depth``: moves
    per rollout before it is scored by hand points; ``seed``: the agent's random numbers (with the
    per-game seed given to :meth:`reset`, when both are set, they are combined).
    """

    name = "search"

    def __init__(
        self,
        seed: int | None = None,
        *,
        sims: int = DEFAULT_SIMS,
        rollout: str = "hoarder",
        opponents: str | None = None,
        top: int = 4,
        depth: int = 200,
    ):
        for key, value, low in (("sims", sims, 1), ("top", top, 1), ("depth", depth, 1)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise ValueError(f"search needs {key} >= {low} (an integer), got {value!r}")
        for key, name in (("rollout", rollout), ("opponents", rollout if opponents is None else opponents)):
            if name not in _POLICIES:
                raise ValueError(f"search: unknown {key} policy {name!r}; known: {', '.join(ROLLOUTS)}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
            raise ValueError(f"search: seed must be a non-negative integer, got {seed!r}")
        self.sims, self.top, self.depth, self.rollout = int(sims), int(top), int(depth), rollout
        self.opponents = rollout if opponents is None else opponents
        self._policy = _POLICIES[rollout]
        self._opp_policy = _POLICIES[self.opponents]
        self.seed = None if seed is None else int(seed)
        self.rng = np.random.default_rng(self.seed)
        self.last_sims = 0  # simulations spent on the last decision
        self.total_sims = 0  # simulations since construction
        self.last_values: list[tuple[np.ndarray, float, int]] = []  # (candidate, mean value, simulations)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed if self.seed is None else [self.seed, int(seed)])

    # ------------------------------------------------------------------ one decision
    def candidates(self, turn: Turn) -> list[np.ndarray]:
        """The moves compared: drawing when allowed, then up to ``top`` legal plays (the oracle's order)."""
        plays = list(turn.legal_plays_up_to(self.top)[: self.top])
        return [DRAW, *plays] if turn.draw_allowed or not plays else plays

    def act(self, turn: Turn) -> np.ndarray:
        self.last_sims = 0
        self.last_values = []
        hand = np.asarray(turn.hand, dtype=np.int64)
        cands = self.candidates(turn)
        n_hand = int(hand.sum())
        for play in cands:  # a play that empties the hand wins now
            if np.count_nonzero(play) and int(np.minimum(play, hand).sum()) == n_hand:
                return play.copy()
        if len(cands) == 1:
            return cands[0].copy()
        best = self._halving(turn, cands)
        return cands[best].copy()

    def _halving(self, turn: Turn, cands: list[np.ndarray]) -> int:
        k = len(cands)
        rounds = max(1, math.ceil(math.log2(k)))
        totals = np.zeros(k)
        counts = np.zeros(k, dtype=np.int64)
        alive = list(range(k))
        left = self.sims
        for r in range(rounds):
            if len(alive) == 1:
                break
            # this round's share of what is left, at least one world per surviving candidate
            worlds = max(1, (left // (rounds - r)) // len(alive))
            if worlds * len(alive) > left:
                break
            for _ in range(worlds):
                world = turn.sample_world(self.rng)
                for i in alive:
                    totals[i] += self._simulate(world, cands[i], turn.seat)
                    counts[i] += 1
            left -= worlds * len(alive)
            means = totals[alive] / counts[alive]
            # stable: equal means keep the earlier candidate (drawing, then the oracle's order)
            order = sorted(range(len(alive)), key=lambda j: -means[j])
            alive = [alive[j] for j in sorted(order[: max(1, math.ceil(len(alive) / 2))])]
        spent = self.sims - left
        self.last_sims = spent
        self.total_sims += spent
        mean = np.where(counts > 0, totals / np.maximum(counts, 1), -np.inf)
        self.last_values = [(cands[i], float(mean[i]), int(counts[i])) for i in range(k)]
        if spent == 0:  # budget below the candidate count: the first candidate
            return 0
        # the winner among the last survivors (they have the most simulations)
        return max(alive, key=lambda i: (mean[i], -i))

    def _simulate(self, world: game.State, action: np.ndarray, me: int) -> float:
        """Play ``action`` in ``world``, then ``rollout`` for ``me`` and ``opponents`` for the other seats;
        the value for ``me``."""
        state = game.step(world, action)
        start_game = world.game
        scores0 = world.scores
        mine, theirs, depth = self._policy, self._opp_policy, self.depth
        moves = 0
        while not state.done and state.game == start_game and moves < depth:
            state = game.step(state, (mine if state.current == me else theirs)(state))
            moves += 1
        n = state.players
        if state.game != start_game:  # match play: a game ended; compare what it added to the totals
            return _share_below(state.scores - scores0, me)
        if state.done and not state.truncated:
            if state.rules.match_target > 0:
                return _share_below(state.scores - scores0, me)
            if state.winner == me:
                return 1.0
            return 1.0 / n if state.winner < 0 else 0.0
        pts = state.hands @ legal.rules_info(state.rules).points
        return _share_below(pts, me)


def _share_below(points: np.ndarray, me: int) -> float:
    """Fraction of the opponents holding more points than ``me`` (ties half): 1 best, 0 worst."""
    mine = points[me]
    others = np.delete(points, me)
    return float(((others > mine).sum() + 0.5 * (others == mine).sum()) / others.size)
