"""Every ``machiavelli eval`` / ``exploit`` / ``league`` command printed in README.md and BENCHMARK.md
runs, in a short version (a game per seat, one PPO update, two league games), and plays what it
names: the agents, the preset, the seed. The README's win rates are the benchmark tables' rows of
the same commands. (The full series are BENCHMARK.md's; ``python benchmarks/baselines.py --check``
replays its tables.)"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from machiavelli_env import cli
from machiavelli_env.rules import Rules

ROOT = Path(__file__).resolve().parent.parent
PAGES = ("README.md", "BENCHMARK.md")
_CODE = re.compile(r"`(machiavelli (?:eval|exploit|league) [^`]+)`")
_PLACEHOLDER = re.compile(r"\b[A-Z][A-Z_]{2,}\b")  # AGENT, SPEC, COPY.yaml: a template, not a command


def printed_commands() -> list[str]:
    """The distinct runnable commands of the pages, in order of appearance."""
    seen: dict[str, None] = {}
    for page in PAGES:
        for cmd in _CODE.findall((ROOT / page).read_text(encoding="utf-8")):
            if not _PLACEHOLDER.search(cmd):
                seen.setdefault(cmd.strip(), None)
    return list(seen)


def _option(argv: list[str], name: str, default: str | None = None) -> str | None:
    return argv[argv.index(name) + 1] if name in argv else default


def _replace(argv: list[str], name: str, value: str) -> list[str]:
    out = list(argv)
    if name in out:
        out[out.index(name) + 1] = value
    else:
        out += [name, value]
    return out


def test_the_pages_print_the_commands_of_their_tables() -> None:
    cmds = printed_commands()
    evals = [c for c in cmds if c.startswith("machiavelli eval")]
    assert len(evals) >= 30 and any("exploit" in c for c in cmds) and any("league" in c for c in cmds)


@pytest.mark.parametrize("command", printed_commands())
def test_a_printed_command_runs_short_and_plays_what_it_names(command: str, tmp_path, capsys) -> None:
    argv = shlex.split(command)[1:]
    kind = argv[0]
    if kind == "eval":
        from machiavelli_env.agents.registry import split_specs

        specs = split_specs(_option(argv, "--agents"))
        games = 1 if any(s.startswith("search") for s in specs) else len(specs)
        short = _replace(argv, "--games", str(games)) + ["--json"]
        assert cli.main(short) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["games"] == games and [a["name"] for a in report["agents"]] == specs
        assert report["seed"] == int(_option(argv, "--seed", "0"))
        preset = _option(argv, "--rules")
        if preset is not None:
            assert Rules.load(preset).to_dict() == Rules.load(report["rules"]).to_dict()
    elif kind == "exploit":
        pytest.importorskip("torch")
        short = _replace(_replace(_replace(argv, "--updates", "1"), "--games", "2"), "--out", str(tmp_path / "x"))
        assert cli.main([*short, "--curve-games", "2", "--json", "--no-progress"]) == 0
        report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert report["agent"] == _option(argv, "--agent") and report["games"] == 2
    else:
        pytest.importorskip("openskill")
        pytest.importorskip("torch")
        short = _replace(_replace(argv, "--games", "2"), "--out", str(tmp_path / "league"))
        assert cli.main([*short, "--no-progress"]) == 0
        assert len((tmp_path / "league" / "games.jsonl").read_text().splitlines()) == 2


def _benchmark_rates() -> dict[str, str]:
    """Each command of BENCHMARK.md's two- and four-player tables -> its win-rate cell."""
    out = {}
    for line in (ROOT / "BENCHMARK.md").read_text(encoding="utf-8").splitlines():
        m = _CODE.search(line)
        if m and line.startswith("|") and m.group(1).startswith("machiavelli eval"):
            rates = re.findall(r"\| (\d+\.\d%) \|", line)
            out[m.group(1)] = rates[0]
    return out


def test_the_readme_win_rates_are_the_benchmark_rows_of_the_same_commands() -> None:
    bench = _benchmark_rates()
    shared = 0
    for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        m = _CODE.search(line)
        if m and line.startswith("|") and m.group(1) in bench:
            assert f"| {bench[m.group(1)]} |" in line, (line, bench[m.group(1)])
            shared += 1
    assert shared >= 6
