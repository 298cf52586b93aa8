"""League ratings: openskill's Plackett-Luce model over each game's finishing order, and the tables.

Every game updates the ratings of its players once, in game-index order: each seat is a team of
one, ranked by :func:`agents.arena.finishing_ranks` (the winner first, the rest by penalty points,
equal points share a rank). The model is ``openskill.models.PlackettLuce()`` with its defaults
(mu 25, sigma 25/3, beta 25/6, tau 25/300); ``ordinal`` is ``mu - 3 sigma``, a conservative skill
estimate used to order the table. Because the updates run in game order from the game records
alone, ratings computed after a resumed or distributed league equal those of a single local run.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from machiavelli_env.agents.arena import wilson_interval


def _model() -> Any:
    try:
        from openskill.models import PlackettLuce
    except ImportError as exc:
        raise ImportError(f"league ratings need openskill: pip install -e '.[league]' ({exc})") from None
    return PlackettLuce()


@dataclass
class AgentRating:
    """One agent's rating and record over a league."""

    name: str
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    draws: int = 0
    penalty_points: float = 0.0
    by_players: dict[int, list[int]] = field(default_factory=dict)  # n -> [games, wins]

    @property
    def ordinal(self) -> float:
        return self.mu - 3.0 * self.sigma

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass
class LeagueRatings:
    """Final ratings (pool order) and the history: ``history[t, a] = (mu, sigma)`` after ``t`` games."""

    agents: list[AgentRating]
    history: np.ndarray

    def ranked(self) -> list[AgentRating]:
        """Agents by ordinal, best first (ties: by name)."""
        return sorted(self.agents, key=lambda a: (-a.ordinal, a.name))


def compute_ratings(pool: Sequence[str], games: Iterable[Mapping[str, Any]]) -> LeagueRatings:
    """Rate ``games`` (``games.jsonl`` lines: ``seats`` and ``result`` with ``winner``, ``penalty_points``,
    ``ranks``) in the order given."""
    model = _model()
    index = {name: i for i, name in enumerate(pool)}
    current = [model.rating(name=name) for name in pool]
    out = [AgentRating(name, float(r.mu), float(r.sigma)) for name, r in zip(pool, current, strict=True)]
    history = [[(r.mu, r.sigma) for r in current]]
    for line in games:
        seats, res = line["seats"], line["result"]
        unknown = [s for s in seats if s not in index]
        if unknown:
            raise ValueError(f"game {line.get('game')}: agent(s) {unknown} are not in the pool {list(pool)}")
        ids = [index[s] for s in seats]
        rated = model.rate([[current[i]] for i in ids], ranks=[int(r) for r in res["ranks"]])
        n = len(seats)
        for seat, i in enumerate(ids):
            current[i] = rated[seat][0]
            a = out[i]
            a.games += 1
            won = int(res["winner"] == seat)
            a.wins += won
            a.draws += int(res["winner"] < 0)
            a.penalty_points += float(res["penalty_points"][seat])
            counts = a.by_players.setdefault(n, [0, 0])
            counts[0] += 1
            counts[1] += won
        history.append([(r.mu, r.sigma) for r in current])
    for a, r in zip(out, current, strict=True):
        a.mu, a.sigma = float(r.mu), float(r.sigma)
    return LeagueRatings(out, np.asarray(history, dtype=np.float64).reshape(-1, len(pool), 2))


def write_csv(ratings: LeagueRatings, path: Path) -> None:
    """``agent, mu, sigma, ordinal, games, win_rate``, best ordinal first."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["agent", "mu", "sigma", "ordinal", "games", "win_rate"])
        for a in ratings.ranked():
            w.writerow([a.name, f"{a.mu:.4f}", f"{a.sigma:.4f}", f"{a.ordinal:.4f}", a.games, f"{a.win_rate:.4f}"])


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def ratings_table(ratings: LeagueRatings) -> str:
    """The Markdown table of ``ratings.md`` (also used in BENCHMARK.md)."""
    rows = [
        "| rank | agent | ordinal | mu | sigma | games | wins | win rate (95% CI) | mean penalty points |",
        "|---:|---|---:|---:|---:|---:|---:|---|---:|",
    ]
    for k, a in enumerate(ratings.ranked(), 1):
        lo, hi = wilson_interval(a.wins, a.games)
        mean_pp = a.penalty_points / a.games if a.games else math.nan
        rows.append(
            f"| {k} | {a.name} | {a.ordinal:.2f} | {a.mu:.2f} | {a.sigma:.2f} | {a.games} | {a.wins} | "
            f"{_pct(a.win_rate)} ({_pct(lo)}–{_pct(hi)}) | {mean_pp:.1f} |"
        )
    return "\n".join(rows)


def players_table(ratings: LeagueRatings) -> str:
    """Win rate per player count (Markdown): ``wins/games (rate)``; a fair share is ``1/n``."""
    counts = sorted({n for a in ratings.agents for n in a.by_players})
    rows = ["| agent | " + " | ".join(f"{n} players (fair {_pct(1 / n)})" for n in counts) + " |"]
    rows.append("|---|" + "---:|" * len(counts))
    for a in ratings.ranked():
        cells = []
        for n in counts:
            g, w = a.by_players.get(n, (0, 0))
            cells.append(f"{w}/{g} ({_pct(w / g)})" if g else "–")
        rows.append(f"| {a.name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def write_markdown(ratings: LeagueRatings, path: Path, header: str = "") -> None:
    """``ratings.md``: an optional header, the ratings table and the per-player-count win rates."""
    games = ratings.history.shape[0] - 1
    parts = [header.rstrip() + "\n"] if header else []
    parts.append(f"Ratings after {games} games (openskill Plackett-Luce; ordinal = mu - 3 sigma).\n")
    parts.append(ratings_table(ratings) + "\n")
    parts.append("Win rate by player count:\n")
    parts.append(players_table(ratings) + "\n")
    path.write_text("\n".join(parts), encoding="utf-8")


def plot(ratings: LeagueRatings, path: Path, title: str = "League ratings") -> None:
    """``ratings.png``: each agent's mu over games played, shaded mu ± sigma."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(f"the ratings plot needs matplotlib: pip install -e '.[league]' ({exc})") from None
    h = ratings.history
    x = np.arange(h.shape[0])
    fig, ax = plt.subplots(figsize=(8, 4.8), dpi=120)
    for a, agent in sorted(enumerate(ratings.agents), key=lambda t: -t[1].ordinal):
        mu, sigma = h[:, a, 0], h[:, a, 1]
        (line,) = ax.plot(x, mu, lw=1.6, label=f"{agent.name} ({agent.mu:.1f} ± {agent.sigma:.1f})")
        ax.fill_between(x, mu - sigma, mu + sigma, color=line.get_color(), alpha=0.18, lw=0)
    ax.set_xlabel("games played")
    ax.set_ylabel("rating mu (band: mu ± sigma)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
