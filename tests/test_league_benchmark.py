"""benchmarks/baselines.py: the one command that regenerates BENCHMARK.md's table, deterministically."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "baselines.py"

pytestmark = pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("openskill", "matplotlib", "yaml")),
    reason="pip install -e '.[league]'",
)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, timeout=600)


def test_benchmark_md_has_one_table_block_and_names_the_command():
    text = (ROOT / "BENCHMARK.md").read_text()
    assert text.count("<!-- baselines:begin -->") == 1 and text.count("<!-- baselines:end -->") == 1
    assert "python benchmarks/baselines.py" in text and "machiavelli_v0" in text


def test_baselines_rewrite_only_the_marked_table_and_check_agrees(tmp_path):
    doc = tmp_path / "B.md"
    doc.write_text("intro\n<!-- baselines:begin -->\nold table\n<!-- baselines:end -->\noutro\n")
    cache = tmp_path / "cache"
    res = run("--quick", "--workers", "1", "--file", str(doc), "--cache", str(cache))
    assert res.returncode == 0, res.stderr
    text = doc.read_text()
    assert text.startswith("intro\n<!-- baselines:begin -->\n") and text.endswith("<!-- baselines:end -->\noutro\n")
    assert "old table" not in text
    for needle in ("| random | greedy |", "| patient | random |", "| hoarder | patient |", "**Four players**",
                   "| rank | agent | ordinal", "**Summary**"):
        assert needle in text
    # every 2-player candidate/opponent cell is there once: 7 candidates x 4 standard opponents less
    # the 4 self-pairs, and search/ppo both ways (without ppo: 6 x 4 - 4)
    rows = [line for line in text.splitlines() if line.startswith("| ") and " | " in line]
    two_player = [r for r in rows if "--rules classic_2p" in r]
    pairs = {tuple(r.split(" | ")[:2]) for r in two_player}
    assert len(pairs) == len(two_player)
    assert len(two_player) in (26, 20)  # ppo rows only when its checkpoint loads
    assert ("| search | ppo |" in text) == (len(two_player) == 26)
    for r in two_player:  # each row prints the command of its series (--quick: search's spec in brackets)
        agent, opponent = (re.escape(x) for x in r[2:].split(" | ")[:2])
        assert re.search(rf"`machiavelli eval --agents '?{agent}(\[[^]]*\])?,{opponent}(\[[^]]*\])?'? "
                         rf"--rules classic_2p --games \d+ --seed 1000`", r), r
    exploit_rows = [r for r in rows if "`machiavelli exploit --agent" in r]
    assert len(exploit_rows) in (0, 6, 7)  # no exploitability without torch
    again = run("--quick", "--workers", "2", "--file", str(doc), "--check")
    assert again.returncode == 0, again.stderr  # same table with another worker count
    cached = list(cache.glob("*.json"))
    resumed = run("--quick", "--workers", "1", "--file", str(doc), "--check", "--cache", str(cache))
    assert resumed.returncode == 0, resumed.stderr  # the kept series give the same table
    assert f"{len(cached)} of {len(cached)} series from" in resumed.stderr


def test_table_splicing_keeps_the_text_around_the_markers(load_benchmark):
    mod = load_benchmark("baselines")
    text = "a\n<!-- baselines:begin -->\nx\n<!-- baselines:end -->\nb\n"
    new = mod.splice(text, "T1\nT2", Path("B.md"))
    assert new == "a\n<!-- baselines:begin -->\nT1\nT2\n<!-- baselines:end -->\nb\n"
    assert mod.table_in(new) == "T1\nT2" and mod.table_in("no markers") is None
    with pytest.raises(SystemExit, match="needs exactly one"):
        mod.splice(text + text, "T", Path("B.md"))


def test_quick_run_refuses_to_overwrite_the_real_benchmark():
    res = run("--quick")
    assert res.returncode == 2 and "--quick would overwrite BENCHMARK.md" in res.stderr
