"""Multi-seed reporting (``machiavelli train --seeds N``): the mean learning curve with a 95% bootstrap
interval and the interquartile mean of the final win rates, as CSV and PNG."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("matplotlib")

from machiavelli_env.training.multiseed import bootstrap_interval, iqm, summarize  # noqa: E402

from machiavelli_env.cli import main  # noqa: E402


def test_the_interquartile_mean_drops_a_quarter_of_the_values_at_each_end() -> None:
    assert iqm([4, 1, 3, 2]) == pytest.approx(2.5)
    assert iqm([0.1, 1.0, 0.6, 0.5, 0.7]) == pytest.approx(0.6)  # 5 values: one dropped at each end
    assert iqm([0.9]) == pytest.approx(0.9)
    with pytest.raises(ValueError):
        iqm([])


def test_the_bootstrap_interval_is_reproducible_and_brackets_the_statistic() -> None:
    values = [0.62, 0.71, 0.55, 0.80, 0.68]
    lo, hi = bootstrap_interval(values)
    assert (lo, hi) == bootstrap_interval(values)
    assert lo < np.mean(values) < hi and min(values) <= lo and hi <= max(values)
    assert bootstrap_interval([0.5, 0.5, 0.5], iqm) == (0.5, 0.5)


def _fake_run(root: Path, seed: int, rates: dict[str, list[float]]) -> None:
    run = root / f"seed_{seed}"
    run.mkdir(parents=True)
    rows = [{"opponent": opp, "update": 10 * (i + 1), "games": 100, "win_rate": w, "ci95": [0, 1]}
            for opp, ws in rates.items() for i, w in enumerate(ws)]
    (run / "eval.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_summarize_writes_the_mean_curve_and_the_final_iqm(tmp_path: Path) -> None:
    finals = [0.5, 0.9, 0.7, 0.8]
    for seed, last in zip((3, 1, 2, 4), finals, strict=True):
        _fake_run(tmp_path, seed, {"random": [0.6, last], "greedy": [0.4, last - 0.1]})
    final = summarize(tmp_path)
    assert final["random"]["seeds"] == [1, 2, 3, 4]
    assert final["random"]["win_rates"] == [0.9, 0.7, 0.5, 0.8]
    assert final["random"]["iqm"] == pytest.approx(0.75)  # 0.7 and 0.8
    assert final["greedy"]["iqm"] == pytest.approx(0.65)
    with (tmp_path / "seeds.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["opponent"], int(r["update"])) for r in rows] == [("greedy", 10), ("greedy", 20), ("random", 10),
                                                                 ("random", 20)]
    last = rows[-1]
    assert float(last["mean"]) == pytest.approx(np.mean(finals), abs=1e-4)
    assert float(last["ci95_low"]) <= float(last["mean"]) <= float(last["ci95_high"])
    assert float(last["seed_3"]) == 0.5
    with (tmp_path / "seeds_final.csv").open() as f:
        assert [r["opponent"] for r in csv.DictReader(f)] == ["greedy", "random"]
    assert (tmp_path / "seeds.png").stat().st_size > 10_000


TINY = """\
name: tiny_seeds
seed: 7
rules: classic
players: 2
updates: 2
save_every: 1
rollout: {workers: 1, games: 2, steps: 4, take_wins: true}
policy: {limit: 8, hidden: 16, cand_hidden: 8}
ppo: {minibatches: 2, epochs: 1}
pool: {heuristics: {random: 1, greedy: 1}, self_play: [0.0, 0.0]}
eval: {every: 1, games: 2, opponents: [random]}
"""


def test_train_seeds_runs_each_seed_once_and_reports_them(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    cfg = tmp_path / "tiny.yaml"
    cfg.write_text(TINY)
    args = ["train", "--config", str(cfg), "--seeds", "2", "--out", str(tmp_path / "runs"), "--no-progress"]
    assert main(args) == 0
    out = capsys.readouterr().out
    line = json.loads(next(ln for ln in out.splitlines() if ln.startswith("{")))
    assert line["opponent"] == "random" and line["seeds"] == [7, 8] and len(line["win_rates"]) == 2
    assert {p.name for p in (tmp_path / "runs").iterdir()} >= {"seed_7", "seed_8", "seeds.csv", "seeds_final.csv",
                                                               "seeds.png"}
    weights = (tmp_path / "runs" / "seed_8" / "final.safetensors").read_bytes()
    assert main(args) == 0  # again: the finished seeds are kept, not trained again
    assert "finished before, kept" in capsys.readouterr().out
    assert (tmp_path / "runs" / "seed_8" / "final.safetensors").read_bytes() == weights
