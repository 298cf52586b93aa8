"""benchmarks/env.py's gin workers: a worker that dies reports why, once, instead of hanging or recursing."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def bench_env(load_benchmark):
    return load_benchmark("env")


def _fake_python(tmp_path: Path, body: str) -> Path:
    """An executable standing in for the gin venv's python (it ignores the script and arguments)."""
    path = tmp_path / "python"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a_worker_that_dies_while_playing_reports_its_last_error_line(bench_env, tmp_path):
    python = _fake_python(tmp_path, "read line\necho 'Traceback' >&2\necho 'ImportError: no gin here' >&2\nexit 3\n")
    worker = bench_env.Worker(python, "gin_pettingzoo")
    try:
        assert worker.run(0.1, 0) == {"error": "ImportError: no gin here"}
        assert worker.run(0.1, 1) == {"error": "ImportError: no gin here"}  # and stays dead
    finally:
        worker.close()


def test_a_worker_that_exits_before_reading_reports_its_exit_status(bench_env, tmp_path):
    worker = bench_env.Worker(_fake_python(tmp_path, "exec 0<&-\nexit 5\n"), "gin_openspiel")
    try:
        assert worker.run(0.1, 0) == {"error": "exited with 5"}
    finally:
        worker.close()


def test_a_worker_that_cannot_start_reports_the_os_error(bench_env, tmp_path):
    worker = bench_env.Worker(tmp_path / "missing" / "python", "gin_pettingzoo")
    assert "missing" in worker.run(0.1, 0)["error"]


def test_an_unknown_worker_name_is_refused(bench_env):
    with pytest.raises(ValueError, match="unknown gin worker 'gin_rummy_v4'; the workers are gin_pettingzoo"):
        bench_env.Worker(Path("python"), "gin_rummy_v4")


def test_a_live_worker_answers_with_its_figures(bench_env, tmp_path):
    python = _fake_python(tmp_path, 'while read line; do echo \'{"steps": 7}\'; done\n')
    worker = bench_env.Worker(python, "gin_pettingzoo")
    try:
        assert worker.run(0.1, 0) == {"steps": 7}
        assert worker.run(0.1, 1) == {"steps": 7}
    finally:
        worker.close()
