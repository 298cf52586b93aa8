"""Several seeds of one training config, reported as papers need it (``machiavelli train --seeds N``).

A single run's curve says little: runs of one recipe can end far apart. :func:`run_seeds` trains the
config with seeds ``seed, seed + 1, ..., seed + N - 1`` into ``OUT/seed_S`` (a finished seed is kept, an
interrupted one resumed), and :func:`summarize` reads their evaluations (``eval.jsonl``) and writes

* ``OUT/seeds.csv``: for every evaluation point (update) and opponent, the mean win rate over the
  seeds with a 95% bootstrap interval of that mean, and each seed's win rate;
* ``OUT/seeds_final.csv``: for every opponent, each seed's final win rate (the run's last
  evaluation), their mean, median and interquartile mean (IQM: the mean of the middle half, a
  quarter of the seeds trimmed at each end, as in rliable) with a 95% bootstrap interval of the IQM;
* ``OUT/seeds.png``: the mean curves with their intervals and every seed's curve faintly.

The bootstrap resamples seeds with replacement (percentile interval, 2,000 resamples from a fixed
generator), so the same runs always give the same figures (Agarwal et al., "Deep reinforcement
learning at the edge of the statistical precipice", NeurIPS 2021).
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from .config import TrainConfig
from .plotting import read_jsonl

RESAMPLES = 2000
BOOTSTRAP_SEED = 20211206


def iqm(values: Sequence[float]) -> float:
    """The interquartile mean: the mean after ``floor(n / 4)`` values are dropped at each end."""
    x = np.sort(np.asarray(values, dtype=float))
    if x.size == 0:
        raise ValueError("iqm of no values")
    k = x.size // 4
    return float(x[k:x.size - k].mean())


def bootstrap_interval(values: Sequence[float], stat: Callable[[Sequence[float]], float] = np.mean,
                       resamples: int = RESAMPLES, seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """95% percentile bootstrap interval of ``stat`` over ``values`` resampled with replacement."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        raise ValueError("bootstrap of no values")
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, x.size, size=(resamples, x.size))
    stats = np.array([stat(x[row]) for row in draws])
    lo, hi = np.percentile(stats, [2.5, 97.5])
    return float(lo), float(hi)


def seed_dirs(out: str | Path) -> list[Path]:
    """The ``seed_S`` run directories under ``out`` that hold evaluations, by seed."""
    dirs = [p for p in Path(out).glob("seed_*") if p.is_dir() and (p / "eval.jsonl").is_file()]
    return sorted(dirs, key=lambda p: int(p.name.split("_", 1)[1]))


def run_seeds(cfg: TrainConfig, out: str | Path, seeds: int, *, progress_bar: bool = True,
              log: Any = print) -> dict[str, Any]:
    """Train ``cfg`` with ``seeds`` consecutive seeds from ``cfg.seed`` into ``out/seed_S`` (a seed
    whose run has finished is kept, one with a checkpoint is resumed), then :func:`summarize`."""
    from .ppo import train

    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise ValueError(f"seeds must be a positive integer, got {seeds!r}")
    out = Path(out)
    for s in range(cfg.seed, cfg.seed + seeds):
        run = out / f"seed_{s}"
        if (run / "summary.json").is_file():
            log(f"seed {s}: finished before, kept ({run})")
            continue
        log(f"seed {s}: training into {run}")
        # a run that started writes config.json first; train() resumes it from its checkpoint, or
        # starts it again when it stopped before the first one
        train(replace(cfg, seed=s), run, resume=(run / "config.json").is_file(),
              progress_bar=progress_bar, log=log)
    return summarize(out, title=f"{cfg.name}, {seeds} seeds")


def summarize(out: str | Path, title: str = "") -> dict[str, Any]:
    """Aggregate the ``seed_S`` runs under ``out`` into ``seeds.csv``, ``seeds_final.csv`` and
    ``seeds.png`` (see the module docstring); returns the final win rates per opponent."""
    out = Path(out)
    runs = {int(p.name.split("_", 1)[1]): read_jsonl(p / "eval.jsonl") for p in seed_dirs(out)}
    if not runs:
        raise FileNotFoundError(f"no seed_S runs with evaluations under {out}")
    opponents = sorted({r["opponent"] for rows in runs.values() for r in rows})
    curve_rows, final = [], {}
    for opp in opponents:
        per_seed = {s: {r["update"]: r["win_rate"] for r in rows if r["opponent"] == opp} for s, rows in runs.items()}
        updates = sorted(set.intersection(*(set(v) for v in per_seed.values())))
        for u in updates:
            values = [per_seed[s][u] for s in sorted(per_seed)]
            lo, hi = bootstrap_interval(values)
            curve_rows.append({"opponent": opp, "update": u, "seeds": len(values), "mean": float(np.mean(values)),
                               "ci95_low": lo, "ci95_high": hi,
                               **{f"seed_{s}": per_seed[s][u] for s in sorted(per_seed)}})
        last = {s: v[max(v)] for s, v in per_seed.items() if v}
        values = [last[s] for s in sorted(last)]
        lo, hi = bootstrap_interval(values, iqm)
        final[opp] = {"seeds": sorted(last), "win_rates": values, "mean": float(np.mean(values)),
                      "median": float(np.median(values)), "iqm": iqm(values), "iqm_ci95": [lo, hi]}
    _write_csv(out / "seeds.csv", curve_rows)
    _write_csv(out / "seeds_final.csv", [
        {"opponent": opp, "seeds": len(f["win_rates"]), "mean": f["mean"], "median": f["median"], "iqm": f["iqm"],
         "iqm_ci95_low": f["iqm_ci95"][0], "iqm_ci95_high": f["iqm_ci95"][1],
         **{f"seed_{s}": w for s, w in zip(f["seeds"], f["win_rates"], strict=True)}}
        for opp, f in final.items()])
    try:
        _plot(out / "seeds.png", curve_rows, final, title or out.name)
    except ImportError:  # matplotlib missing: the CSV files are the result
        pass
    return final


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    fields: list[str] = []
    for row in rows:
        fields += [k for k in row if k not in fields]
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in row.items()})


def _plot(png: Path, rows: list[dict[str, Any]], final: dict[str, dict], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    for i, opp in enumerate(sorted({r["opponent"] for r in rows})):
        colour = plt.get_cmap("tab10")(i % 10)
        pts = [r for r in rows if r["opponent"] == opp]
        x = [r["update"] for r in pts]
        for key in (k for k in pts[0] if k.startswith("seed_")):
            ax.plot(x, [r[key] for r in pts], color=colour, lw=0.7, alpha=0.3)
        f = final[opp]
        label = (f"vs {opp}: mean of {len(f['win_rates'])} seeds, 95% bootstrap CI "
                 f"(final IQM {f['iqm']:.1%} [{f['iqm_ci95'][0]:.1%}, {f['iqm_ci95'][1]:.1%}])")
        ax.plot(x, [r["mean"] for r in pts], color=colour, marker="o", lw=2, label=label)
        ax.fill_between(x, [r["ci95_low"] for r in pts], [r["ci95_high"] for r in pts], color=colour, alpha=0.2)
    ax.set_xlabel("PPO update")
    ax.set_ylabel("win rate (seat-rotated evaluation games)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.set_title(title)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(png)
    plt.close(fig)
