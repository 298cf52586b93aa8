"""benchmarks/idle.py: latency of best_play after pauses of given lengths (a smoke test of the script)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def idle(load_benchmark):
    return load_benchmark("idle")


def test_idle_prints_one_row_per_pause(idle, capsys):
    assert idle.main(["--reps", "1", "--pauses-ms", "0,0.05"]) == 0
    out = capsys.readouterr().out
    assert "60 shared 2-deck ace-low cases" in out
    rows = [line.split() for line in out.splitlines() if line.strip().endswith("the first row)")]
    assert [r[0] for r in rows] == ["0ms", "0.05ms"]
    assert all(float(r[1]) > 0 and float(r[2]) > 0 for r in rows)


def test_idle_rejects_a_negative_pause(idle, capsys):
    with pytest.raises(SystemExit) as exc:
        idle.main(["--pauses-ms", "0,-1"])
    assert exc.value.code == 2
    assert "non-negative" in capsys.readouterr().err

