"""Faults a training run survives: the trainer killed with SIGKILL, and a rollout worker process killed.

A run resumed with ``--resume`` from its last checkpoint ends with the same weights as the run that was
never interrupted (same seed and worker count): the checkpoint keeps every rollout worker's random
streams and games in progress, and the trainer's torch random state. A rollout worker that dies stops
the run with one line that names it and says to resume, and the resumed run ends as above.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("safetensors")

from safetensors.torch import load_file  # noqa: E402

CONFIG = """\
name: faults
seed: 3
rules: classic
players: 2
updates: 6
save_every: 1
rollout: {{workers: {workers}, games: 3, steps: 8, take_wins: true}}
policy: {{limit: 8, hidden: 32, cand_hidden: 16, lookahead: false}}
ppo: {{lr: 1.0e-3, gamma: 0.995, gae_lambda: 0.95, clip: 0.2, epochs: 2, minibatches: 2, ent_coef: 0.003, shaping: 0.0}}
pool: {{heuristics: {{random: 1, greedy: 1, patient: 1}}, self_play: [0.2, 0.6], latest: 0.5, snapshot_every: 2,
       max_snapshots: 1}}
eval: {{every: 3, games: 2, opponents: [random]}}
"""


def _config(tmp_path: Path, workers: int) -> Path:
    path = tmp_path / f"faults_{workers}.yaml"
    path.write_text(CONFIG.format(workers=workers))
    return path


def _train(config: Path, out: Path, *extra: str, **kw) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "machiavelli_env", "train", "--config", str(config), "--out", str(out),
           "--no-progress", *extra]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def _finish(proc: subprocess.Popen) -> tuple[int, str]:
    _, err = proc.communicate(timeout=600)
    return proc.returncode, err


def _updates_logged(out: Path) -> int:
    try:
        return (out / "train.jsonl").read_text().count('"update"')
    except FileNotFoundError:
        return 0


def _wait_for(condition, proc: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + 300
    while not condition():
        assert proc.poll() is None, f"the run ended before {what}"
        assert time.monotonic() < deadline, f"no {what} after 300 s"
        time.sleep(0.01)


def _weights(out: Path) -> dict:
    return load_file(str(out / "final.safetensors"))


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict]:
    """The final weights of runs never interrupted, with 1 and 2 rollout workers."""
    root = tmp_path_factory.mktemp("uninterrupted")
    weights = {}
    for workers in (1, 2):
        out = root / f"w{workers}"
        code, err = _finish(_train(_config(root, workers), out))
        assert code == 0, err
        weights[workers] = _weights(out)
    return weights


@pytest.mark.parametrize("workers", [1, 2])
def test_a_run_killed_with_sigkill_and_resumed_ends_with_the_uninterrupted_weights(
    tmp_path: Path, uninterrupted: dict[int, dict], workers: int
) -> None:
    config, out = _config(tmp_path, workers), tmp_path / "run"
    moment = random.Random(1000 + workers)
    after = moment.randint(1, 4)  # killed once this many updates are logged, then a little later still
    proc = _train(config, out, start_new_session=True)
    _wait_for(lambda: _updates_logged(out) >= after, proc, f"update {after}")
    time.sleep(moment.uniform(0.0, 0.05))
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the trainer and its rollout workers, with no chance to clean up
    except ProcessLookupError:  # it had finished: the resumed run has nothing left to do
        pass
    proc.communicate(timeout=60)
    assert not (out / "final.safetensors").exists() or _updates_logged(out) == 6
    code, err = _finish(_train(config, out, "--resume"))
    assert code == 0, err
    assert _same(_weights(out), uninterrupted[workers])
    logged = [line for line in (out / "train.jsonl").read_text().splitlines() if line]
    assert [int(line.split('"update": ')[1].split(",")[0]) for line in logged] == [1, 2, 3, 4, 5, 6]


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the worker processes through /proc")
def test_a_killed_rollout_worker_stops_the_run_with_a_line_and_resume_recovers(
    tmp_path: Path, uninterrupted: dict[int, dict]
) -> None:
    config, out = _config(tmp_path, 2), tmp_path / "run"
    proc = _train(config, out)
    _wait_for(lambda: _updates_logged(out) >= 2, proc, "update 2")
    workers = [pid for pid in _children(proc.pid) if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text()]
    assert len(workers) == 2, "the two rollout worker processes"
    os.kill(workers[-1], signal.SIGKILL)
    code, err = _finish(proc)
    assert code == 1, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "rollout worker" in lines[0] and "--resume" in lines[0], err
    assert "Traceback" not in err
    code, err = _finish(_train(config, out, "--resume"))
    assert code == 0, err
    assert _same(_weights(out), uninterrupted[2])


def test_resume_of_a_run_stopped_before_its_first_checkpoint_starts_it_again(
    tmp_path: Path, uninterrupted: dict[int, dict]
) -> None:
    config, out = _config(tmp_path, 1), tmp_path / "run"
    out.mkdir()
    (out / "config.json").write_text("{}\n")  # what a run writes first, before any update
    (out / "train.jsonl").write_text('{"update": 1}\n')
    code, err = _finish(_train(config, out, "--resume"))
    assert code == 0, err
    assert _same(_weights(out), uninterrupted[1])


def test_resume_where_no_run_started_is_refused(tmp_path: Path) -> None:
    code, err = _finish(_train(_config(tmp_path, 1), tmp_path / "nothing", "--resume"))
    assert code == 2 and "no checkpoint.pt" in err
