"""The learning-curve PNG of a run: evaluation win rates with 95% intervals against training progress."""

from __future__ import annotations

import json
from pathlib import Path


def read_jsonl(path: str | Path) -> list[dict]:
    """The rows of a JSON Lines file (empty when it does not exist)."""
    path = Path(path)
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def eval_label(opponent: str, rows: list[dict]) -> str:
    """Legend text of one opponent's evaluation curve, with the games per point (a range when the
    final evaluation played more games than the periodic ones)."""
    sizes = sorted({int(r["games"]) for r in rows})
    per_point = str(sizes[0]) if len(sizes) == 1 else f"{sizes[0]}-{sizes[-1]}"
    return f"eval vs {opponent} ({per_point} games/point)"


def plot_learning_curve(run: str | Path, png: str | Path, title: str = "") -> Path:
    """Plot ``run/eval.jsonl`` (win rate per opponent, shaded 95% CI) and the rollout win rates of
    ``run/train.jsonl`` against training games; returns the PNG path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run = Path(run)
    evals = read_jsonl(run / "eval.jsonl")
    train = read_jsonl(run / "train.jsonl")
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    names = sorted({r["opponent"] for r in evals} | {k[len("rollout_win_rate_vs_"):] for r in train for k in r
                                                       if k.startswith("rollout_win_rate_vs_")})
    colour = {n: plt.get_cmap("tab10")(i % 10) for i, n in enumerate(names)}
    for opp in sorted({r["opponent"] for r in evals}):
        rows = sorted((r for r in evals if r["opponent"] == opp), key=lambda r: r["games_trained"])
        x = [r["games_trained"] for r in rows]
        y = [r["win_rate"] for r in rows]
        ax.plot(x, y, marker="o", color=colour[opp], label=eval_label(opp, rows))
        ax.fill_between(x, [r["ci95"][0] for r in rows], [r["ci95"][1] for r in rows], color=colour[opp], alpha=0.2)
    players = evals[0].get("players") if evals else None
    if players:
        ax.axhline(1 / players, color="grey", ls=":", lw=1, label=f"fair share (1/{players})")
    if train:
        keys = sorted({k for r in train for k in r if k.startswith("rollout_win_rate_vs_")})
        for k in keys:
            if k.endswith(("_latest", "_snapshot")):  # self-play is about even by construction
                continue
            pts = [(r["games_trained"], r[k]) for r in train if k in r]
            if len(pts) >= 5:
                w = max(3, len(pts) // 10)
                xs = [pts[i][0] for i in range(w - 1, len(pts))]
                ys = [sum(p[1] for p in pts[i - w + 1:i + 1]) / w for i in range(w - 1, len(pts))]
                opp = k[len("rollout_win_rate_vs_"):]
                ax.plot(xs, ys, lw=0.8, alpha=0.6, ls="--", color=colour[opp],
                        label=f"training games vs {opp} (sampled moves, moving average)")
    ax.set_xlabel("training games played")
    ax.set_ylabel("win rate of the learner")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.set_title(title or run.name)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    png = Path(png)
    fig.savefig(png)
    plt.close(fig)
    return png
