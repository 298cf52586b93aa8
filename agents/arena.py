"""Playing games between agents: one game (:func:`play_game`), seat-rotated series (:func:`evaluate`).

Games run on the pure engine (:mod:`machiavelli_env.game`), the same dynamics as the AEC env.
A game is fully determined by its rules, its deal seed, the agents and their seeds, so every
result can be replayed from a :class:`GameRecord` (actions and public events, JSON-serialisable).

Seat rotation (:func:`evaluate`): with ``n`` agents, games come in blocks of ``n`` that share one
deal; in block game ``k`` the agent listed ``i``-th sits in seat ``(i + k) mod n``. Every agent
therefore sits in every seat equally often and plays every hand of every deal (duplicate format),
which removes most of the luck of the deal from comparisons.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import IO, Any

import numpy as np

from machiavelli_env import game, legal
from machiavelli_env.cards import format_cards, from_counts
from machiavelli_env.rules import Rules

from .base import Agent, turn_from_state

ENV_ID = "machiavelli_v0"


@dataclass
class GameResult:
    """Outcome of one game (or match): seats are engine player indices.

    ``winner`` -1 means no winner (a draw or truncation); ``penalty_points`` per seat (hand points
    left, or the match totals in match play); ``ranks`` per seat, 0 = first: the winner first, then
    by penalty points (equal points share a rank); ``result`` how the game ended.
    """

    seed: int
    seats: list[str]
    winner: int
    result: str
    penalty_points: list[int]
    ranks: list[int]
    turns: int
    rewards: list[float]
    record: dict[str, Any] | None = field(default=None, repr=False)


def finishing_ranks(winner: int, penalty_points: Sequence[int]) -> list[int]:
    """Ranks (0 = best) from a winner (-1: none) and penalty points; ties share the better rank."""
    keys = [(0 if s == winner else 1, int(p)) for s, p in enumerate(penalty_points)]
    return [sum(1 for other in keys if other < k) for k in keys]


def penalty_points(state: game.State) -> list[int]:
    """Each seat's penalty points at the end of a game (match scores under ``match_target``)."""
    if state.rules.match_target > 0:
        return [int(x) for x in state.scores]
    return [state.hand_points(p) for p in range(state.players)]


def play_game(
    rules: Rules,
    agents: Sequence[Agent],
    seed: int,
    *,
    agent_seeds: Sequence[int | None] | None = None,
    limit: int = 32,
    record: bool = False,
    on_step: Callable[[game.State, game.State, np.ndarray], None] | None = None,
    list_budget: legal.ListBudget | None = None,
) -> GameResult:
    """Play one game (a match under ``match_target``) with ``agents[i]`` in seat ``i``.

    ``limit`` is the number of legal plays offered to agents (bounded by ``list_budget`` when
    given, see :class:`machiavelli_env.legal.ListBudget`; otherwise each agent reads its own lists:
    ``random`` and ``ppo`` within :data:`agents.base.PLAY_LIST_BUDGET` unless built with
    ``exact_lists``); ``record`` keeps every action and
    public event (see :func:`replay_states`); ``on_step(before, after, action)`` is called after
    each move.
    """
    if len(agents) != rules.players:
        raise ValueError(f"{rules.players} players need {rules.players} agents, got {len(agents)}")
    seeds = list(agent_seeds) if agent_seeds is not None else [None] * len(agents)
    for agent, s in zip(agents, seeds, strict=True):
        agent.reset(s)
    state = game.new_game(rules, seed)
    moves: list[dict[str, Any]] = []
    while not state.done:
        p = state.current
        action = np.asarray(agents[p].act(turn_from_state(state, p, limit=limit, list_budget=list_budget)),
                            dtype=np.int64)
        after = game.step(state, action)
        if record:
            moves.append(
                {"turn": state.turn, "player": p, "action": format_cards(from_counts(action)), "event": after.event}
            )
        if on_step is not None:
            on_step(state, after, action)
        state = after
    points = penalty_points(state)
    names = [a.name for a in agents]
    rec = game_record(rules, seed, names, moves, state) if record else None
    return GameResult(
        seed=int(seed), seats=names, winner=state.winner, result=state.result, penalty_points=points,
        ranks=finishing_ranks(state.winner, points), turns=state.turn,
        rewards=[float(x) for x in state.rewards], record=rec,
    )


def game_record(rules: Rules, seed: int, seats: Sequence[str], moves: list[dict[str, Any]],
                final: game.State) -> dict[str, Any]:
    """The record of a finished game (the one format of ``eval``/``league --records`` and ``serve``).

    ``moves`` holds each move's ``turn``, ``player``, ``action`` (card string) and public ``event``.
    The ``result`` carries ``winner``, ``result``, ``penalty_points``, ``ranks``
    (:func:`finishing_ranks`) and ``turns``, the fields a league's ``games.jsonl`` line rates, so a
    records file can be rated as it is (``training.ratings.compute_ratings``).
    """
    points = penalty_points(final)
    return {
        "env": ENV_ID,
        "rules": rules.to_dict(),
        "seed": int(seed),
        "seats": [str(s) for s in seats],
        "moves": moves,
        "result": {"winner": final.winner, "result": final.result, "penalty_points": points,
                   "ranks": finishing_ranks(final.winner, points), "turns": final.turn},
    }


def replay_states(record: dict[str, Any]) -> list[game.State]:
    """Every state of a recorded game, re-simulated from its rules, seed and actions.

    Raises ``ValueError`` when the record does not replay (another env version, edited moves).
    """
    if record.get("env") != ENV_ID:
        raise ValueError(f"record is for env {record.get('env')!r}, this is {ENV_ID}")
    state = game.new_game(Rules.from_data(record["rules"]), int(record["seed"]))
    states = [state]
    for i, move in enumerate(record["moves"]):
        if state.done or move["player"] != state.current:
            raise ValueError(f"move {i} does not replay: player {move['player']} is not to move")
        try:
            state = game.step(state, move["action"])
        except ValueError as exc:
            raise ValueError(f"move {i} does not replay: {exc}") from None
        if state.event != move["event"]:
            raise ValueError(f"move {i} does not replay: event {state.event!r}, recorded {move['event']!r}")
        states.append(state)
    return states


def wilson_interval(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (``(0, 1)`` when ``n`` is 0)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def deal_seed(seed: int, block: int) -> int:
    """The deal seed of block ``block`` of a series started with ``seed``."""
    return int(np.random.SeedSequence([int(seed), int(block)]).generate_state(1, dtype=np.uint64)[0] >> 1)


@dataclass
class AgentStats:
    """Per listed agent: games, wins, draws (no winner), win rate with its 95% CI, mean penalty points."""

    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    penalty_points: float = 0.0

    def summary(self) -> dict[str, Any]:
        lo, hi = wilson_interval(self.wins, self.games)
        return {
            "name": self.name,
            "wins": self.wins,
            "draws": self.draws,
            "win_rate": self.wins / self.games if self.games else 0.0,
            "ci95": [round(lo, 4), round(hi, 4)],
            "mean_penalty_points": self.penalty_points / self.games if self.games else 0.0,
        }


def evaluate(
    agents: Sequence[Agent],
    rules: Rules,
    games: int,
    seed: int,
    *,
    limit: int = 32,
    progress: Callable[[int, GameResult], None] | None = None,
    records: IO[str] | None = None,
    list_budget: legal.ListBudget | None = None,
) -> dict[str, Any]:
    """Play ``games`` seat-rotated games (see the module docstring); ``{"games", "agents": [...]}``.

    ``agents`` are listed once per seat (``len(agents) == rules.players``); each entry's stats
    follow :meth:`AgentStats.summary`. ``records``: a text stream that receives one JSON line per
    game (the game record plus its index ``game``), replayable with :func:`replay_states`.
    """
    n = rules.players
    if len(agents) != n:
        raise ValueError(f"{n} players need {n} agents, got {len(agents)} ({', '.join(a.name for a in agents)})")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    stats = [AgentStats(a.name) for a in agents]
    for g in range(games):
        block, k = divmod(g, n)
        seating = [0] * n  # seat -> listed agent
        for i in range(n):
            seating[(i + k) % n] = i
        seeds = [deal_seed(seed, g) % (2**31) + s for s in range(n)]
        res = play_game(
            rules, [agents[i] for i in seating], deal_seed(seed, block), agent_seeds=seeds, limit=limit,
            record=records is not None, list_budget=list_budget,
        )
        if records is not None and res.record is not None:
            records.write(json.dumps({"game": g, **res.record}) + "\n")
        for s, i in enumerate(seating):
            st = stats[i]
            st.games += 1
            st.wins += int(res.winner == s)
            st.draws += int(res.winner < 0)
            st.penalty_points += res.penalty_points[s]
        if progress is not None:
            progress(g, res)
    return {"games": games, "agents": [s.summary() for s in stats]}


def result_to_dict(result: GameResult) -> dict[str, Any]:
    """A JSON-serialisable dict of a :class:`GameResult` (without the record)."""
    out = asdict(result)
    out.pop("record", None)
    return out
