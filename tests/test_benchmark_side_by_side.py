"""benchmarks/side_by_side.py: figures of a benchmark on two trees, and the baseline's worktree always
removed (the build and the runs are replaced by stand-ins here; no benchmark runs)."""

from __future__ import annotations

import shutil
import signal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def sbs(monkeypatch, tmp_path, load_benchmark):
    handler = signal.getsignal(signal.SIGTERM)
    try:
        mod = load_benchmark("side_by_side")
        work = tmp_path / "side_by_side_tmp"
        work.mkdir()
        monkeypatch.setattr(mod.tempfile, "mkdtemp", lambda prefix="": str(work))
        removed: list[Path] = []

        def remove_base(path: Path) -> None:
            removed.append(path)
            shutil.rmtree(path)

        monkeypatch.setattr(mod.train_speed, "remove_base", remove_base)
        yield mod, work, removed
    finally:
        signal.signal(signal.SIGTERM, handler)


def test_flatten_names_list_items_and_skips_flags(sbs):
    mod, _, _ = sbs
    flat = mod.flatten({"rows": [{"config": "classic", "p99_ms": 2.5, "stress": False}, {"x": 1}], "n": 3})
    assert flat == {"rows.classic.p99_ms": 2.5, "rows.1.x": 1.0, "n": 3.0}


def test_a_failed_base_build_removes_the_worktree_and_the_temporary_folder(sbs, tmp_path, monkeypatch):
    mod, work, removed = sbs

    def failing_build(rev, tmp):
        (tmp / "base").mkdir()
        raise RuntimeError("base build failed")

    monkeypatch.setattr(mod.train_speed, "make_base", failing_build)
    with pytest.raises(RuntimeError, match="base build failed"):
        mod.main(["--baseline", "HEAD", "--log", str(tmp_path / "log"), "tail.py"])
    assert removed == [work / "base"]
    assert not work.exists()


def test_figures_side_by_side_with_the_runs_kept_in_log(sbs, tmp_path, capsys, monkeypatch):
    mod, work, removed = sbs

    def build(rev, tmp):
        path = tmp / "base"
        (path / "benchmarks").mkdir(parents=True)
        (path / "benchmarks" / "tail.py").write_bytes((ROOT / "benchmarks" / "tail.py").read_bytes())
        return mod.train_speed.Tree("base", path, "b" * 40)

    calls = []

    def run(tree, script, args, out, log):
        calls.append((tree.label, script, args, out.name))
        log.write_text("ran")
        return {"rows.classic.p99_ms": 4.0 if tree.label == "base" else 2.0, "rows.classic.moves": 300.0}

    monkeypatch.setattr(mod.train_speed, "make_base", build)
    monkeypatch.setattr(mod, "run", run)
    log = tmp_path / "log"
    assert mod.main(["--baseline", "HEAD", "--rounds", "2", "--keys", "p99", "--log", str(log), "tail.py",
                     "--games", "1"]) == 0
    assert [c[0] for c in calls] == ["base", "this", "this", "base"]
    assert all(c[1:3] == ("tail.py", ["--games", "1"]) for c in calls)
    assert sorted(p.name for p in log.iterdir()) == ["r1_base.log", "r1_this.log", "r2_base.log", "r2_this.log"]
    out = capsys.readouterr().out
    assert "differs between the two trees" not in out
    row = next(line for line in out.splitlines() if line.startswith("rows.classic.p99_ms"))
    assert row.split()[1:] == ["4", "2", "0.500"]
    assert "rows.classic.moves" not in out  # not matched by --keys
    assert removed == [work / "base"] and not work.exists()
