"""The ``machiavelli`` command line: ``solve`` (single, --json, --play, --batch), errors, imports."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from machiavelli_env import cli
from machiavelli_env.cards import JOKER, parse_cards
from machiavelli_env.melds import is_valid_meld
from machiavelli_env.rules import Rules

ROOT = Path(__file__).resolve().parent.parent

try:
    from machiavelli_env.oracle import dp as _dp  # noqa: F401

    HAVE_DP = True
except ImportError:  # the compiled backend is not built yet
    HAVE_DP = False

needs_oracle = pytest.mark.skipif(not HAVE_DP, reason="oracle backend (machiavelli_env.oracle.dp) not built")

KINGS_TABLE = "KH KC KD QH QC QD JH JC JD"
TENS_TABLE = "10H 10S 10D JH JS JD QH QC QD"


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``machiavelli ARGV`` in-process; returns (exit code, stdout, stderr)."""
    try:
        rc = cli.main(list(argv))
    except SystemExit as exc:  # argparse errors and --help
        rc = int(exc.code or 0)
    out, err = capsys.readouterr()
    return rc, out, err


def run_module(*argv: str, stdin: str | None = None, extra_path: str | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m machiavelli_env ARGV`` in a fresh interpreter."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (extra_path, str(ROOT), env.get("PYTHONPATH")) if p)
    return subprocess.run(
        [sys.executable, "-m", "machiavelli_env", *argv],
        input=stdin, capture_output=True, text=True, cwd=ROOT, env=env, timeout=120,
    )


def assert_arrangement(melds: list[list[str]], cards: str | list[str], rules: Rules) -> None:
    """The melds are valid under ``rules`` and hold exactly ``cards``."""
    assert all(is_valid_meld(parse_cards(m), rules) for m in melds), melds
    assert Counter(c for m in melds for c in parse_cards(m)) == Counter(parse_cards(cards))


# ============================================================== parser and errors (no oracle needed)
def test_parser_has_solve_and_subcommands_are_registered():
    assert {"solve", "eval", "play", "train", "league", "replay"} <= {s.name for s in cli.SUBCOMMANDS}
    parser = cli.build_parser()
    args = parser.parse_args(["solve", "--hand", "AS"])
    assert args.command == "solve" and args._runner == "machiavelli_env.cli:run_solve"


def test_solve_never_imports_torch_or_the_training_stack():
    code = (
        "import sys; from machiavelli_env.cli import main; "
        "rc = main(['solve', '--table', '7S 7H 7D', '--hand', '7C 2S']); "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'ray', 'openskill', 'matplotlib')); "
        "print(rc, bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "0 []"


def test_no_subcommand_is_a_usage_error(capsys):
    rc, _, err = run_cli(capsys)
    assert rc == 2 and "COMMAND" in err and err.count("\n") == 1


def test_solve_help(capsys):
    rc, out, _ = run_cli(capsys, "solve", "--help")
    assert rc == 0 and "--batch" in out and "--play" in out and "--symbols" in out


def test_hand_and_play_are_exclusive(capsys):
    rc, _, err = run_cli(capsys, "solve", "--hand", "AS", "--play", "AS")
    assert rc == 2 and "not allowed" in err and err.count("\n") == 1


def test_solve_needs_a_question(capsys):
    rc, _, err = run_cli(capsys, "solve", "--table", KINGS_TABLE)
    assert rc == 2 and "--hand" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--table", KINGS_TABLE, "--hand", "AC ZZ"], "'ZZ'"),
        (["--table", "KH KC XD", "--hand", "AC"], "--table"),
        (["--table", KINGS_TABLE, "--play", "11X"], "--play"),
        (["--table", KINGS_TABLE, "--play", ""], "at least one card"),
        (["--table", KINGS_TABLE, "--hand", "AC", "--rules", "no_such_preset"], "no_such_preset"),
        (["--table", KINGS_TABLE, "--hand", "AC", "--rules", '{"ace": "sideways"}'], "'ace'"),
        (["--table", KINGS_TABLE, "--hand", "AC", "--rules", '{"ace": '], "JSON"),
        (["--table", KINGS_TABLE, "--hand", "AC", "--rules", "missing/file.yaml"], "not found"),
        (["--batch", "/no/such/file.jsonl"], "/no/such/file.jsonl"),
        (["--batch", "-", "--table", "KH"], "--table"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, needle):
    rc, out, err = run_cli(capsys, "solve", *argv)
    assert rc == 2
    assert out == ""
    assert err.startswith("machiavelli solve: error:") and err.count("\n") == 1
    assert needle in err


def test_bad_card_exit_code_of_the_process():
    proc = run_module("solve", "--table", KINGS_TABLE, "--hand", "AC QX")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
    assert "'QX'" in proc.stderr and "not a card" in proc.stderr


def test_python_dash_m_works():
    proc = run_module("solve", "--help")
    assert proc.returncode == 0 and "machiavelli solve" in proc.stdout


def test_solve_never_imports_torch(tmp_path):
    # A stand-in ``torch`` on the path: any import of torch would land in sys.modules.
    (tmp_path / "torch.py").write_text("MARK = 'fake torch'\n")
    code = textwrap.dedent(
        f"""
        import sys
        from machiavelli_env.cli import main
        rcs = [main(["solve", "--table", {KINGS_TABLE!r}, "--hand", "AC 9S", "--json"]),
               main(["solve", "--table", {KINGS_TABLE!r}, "--play", "AC"]),
               main(["solve", "--table", "KH", "--hand", "ZZ"])]
        sys.stdin = __import__("io").StringIO('{{"id": 1, "table": [], "hand": ["AS"]}}\\n')
        rcs.append(main(["solve", "--batch", "-"]))
        print("RCS", rcs, file=sys.stderr)
        print("TORCH", "torch" in sys.modules, sorted(m for m in sys.modules if m.startswith("torch")), file=sys.stderr)
        """
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT)])
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert "TORCH False []" in proc.stderr, proc.stderr
    expected = "[0, 0, 2, 0]" if HAVE_DP else "[1, 1, 2, 1]"
    assert f"RCS {expected}" in proc.stderr, proc.stderr


def test_missing_backend_is_exit_1(capsys, monkeypatch):
    def unavailable():
        raise cli.OracleUnavailable("the oracle backend machiavelli_env.oracle.dp is not available (test)")

    monkeypatch.setattr(cli, "_oracle", unavailable)
    rc, out, err = run_cli(capsys, "solve", "--table", KINGS_TABLE, "--hand", "AC")
    assert rc == 1 and out == "" and "not available" in err and err.count("\n") == 1


# ============================================================== rules argument
def test_parse_rules_arg_by_name_yaml_path_and_json(tmp_path):
    assert cli.parse_rules_arg("ace_low").ace == "low"
    assert cli.parse_rules_arg("classic") == Rules()
    path = tmp_path / "mine.yaml"
    path.write_text("# my rules\nace: high\njokers: 2\n")
    r = cli.parse_rules_arg(str(path))
    assert (r.ace, r.jokers, r.name) == ("high", 2, "mine")
    r = cli.parse_rules_arg('{"ace": "wrap", "failed_play_penalty": 3}')
    assert (r.ace, r.failed_play_penalty, r.decks) == ("wrap", 3, 2)
    with pytest.raises(cli.UsageError, match="--rules"):
        cli.parse_rules_arg('{"colour": "red"}')


# ============================================================== meld display order
@pytest.mark.parametrize(
    "cards, ace, expected",
    [
        ("QC AC KC", "low_or_high", "QC KC AC"),
        ("3S AS 2S", "low_or_high", "AS 2S 3S"),
        ("AS 3S JK", "low_or_high", "AS JK 3S"),
        ("KH QH JK", "low_or_high", "QH KH JK"),
        ("KH JK QH AH", "both_ends", "JK QH KH AH"),
        ("2D KD AD", "wrap", "KD AD 2D"),
        ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", "both_ends",
         "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH"),
        ("8C 8S JK 8H", "low_or_high", "8S 8H 8C JK"),
        ("9S 10S JS", "low", "9S 10S JS"),
    ],
)
def test_order_meld(cards, ace, expected):
    ordered = cli.order_meld(parse_cards(cards)[::-1], ace)
    assert ordered == parse_cards(expected)
    assert sorted(ordered) == sorted(parse_cards(cards))


# ============================================================== batch mechanics with a stub oracle
class _StubOracle:
    """Answers like the oracle API but instantly (checks batch plumbing, not the oracle)."""

    OracleError = ValueError

    def __init__(self) -> None:
        self.calls: list[str] = []

    def best_play(self, table, hand, rules, objective="cards"):
        self.calls.append("best")
        counts = hand.copy()
        return SimpleNamespace(counts=counts, value=int(counts.sum()), melds=[[0, 1, 2]])

    def repack(self, table, play, rules):
        self.calls.append("repack")
        return None if play[JOKER] else [[0, 1, 2]]


def test_solve_batch_plumbing_with_stub(capsys):
    lines = [
        '{"id": "a", "table": [], "hand": ["AS", "2S"]}',
        "",
        '{"id": "b", "rules": {"jokers": 2}, "table": "AS 2S 3S", "play": ["JK"]}',
        '{"id": "c", "table": [], "play": ["4S"], "rules": {"ace": "low"}}',
        '{"id": "d", "table": [], "hand": ["AS"], "objective": "stars"}',
        '{"id": "e", "table": [], "hand": ["AS"], "play": ["2S"]}',
    ]
    stub = _StubOracle()
    assert cli.solve_batch(io.StringIO("\n".join(lines) + "\n"), stub) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [o["id"] for o in out] == ["a", "b", "c", "d", "e"]
    assert out[0]["value"] == 2 and out[0]["play"] == ["AS", "2S"] and out[0]["melds"] == [["AS", "2S", "3S"]]
    assert isinstance(out[0]["us"], float)
    assert out[1]["feasible"] is False and out[1]["melds"] is None
    assert out[2]["feasible"] is True
    assert "objective" in out[3]["error"]
    assert "not in 'hand'" in out[4]["error"] and "2S" in out[4]["error"]


def test_rules_cache_parses_each_rule_set_once(monkeypatch):
    calls = []
    real_from_data = Rules.from_data

    def counting_from_data(spec):
        calls.append(spec)
        return real_from_data(spec)

    monkeypatch.setattr(Rules, "from_data", staticmethod(counting_from_data))
    cache = cli._RulesCache()
    for _ in range(5):
        assert cache.get({"ace": "low", "jokers": 2}).jokers == 2
        assert cache.get({"jokers": 2, "ace": "low"}).ace == "low"
        assert cache.get("ace_wrap").ace == "wrap"
    assert len(calls) == 2


# ============================================================== with the real oracle
@needs_oracle
def test_solve_text_worked_example(capsys):
    rc, out, err = run_cli(capsys, "solve", "--table", KINGS_TABLE, "--hand", "AC 9S")
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("best play (1 card): AC")
    melds = sorted(line.split() for line in lines[1:])
    assert melds == sorted([["JH", "QH", "KH"], ["JD", "QD", "KD"], ["JC", "QC", "KC", "AC"]])


@needs_oracle
def test_solve_json_worked_example(capsys):
    rc, out, _ = run_cli(capsys, "solve", "--table", KINGS_TABLE, "--hand", "AC 9S", "--json")
    assert rc == 0
    res = json.loads(out)
    assert res["value"] == 1 and res["play"] == ["AC"] and res["objective"] == "cards" and res["rules"] == "classic"
    assert ["JC", "QC", "KC", "AC"] in res["melds"]
    assert_arrangement(res["melds"], KINGS_TABLE + " AC", Rules())
    assert isinstance(res["us"], float) and res["us"] >= 0


@needs_oracle
def test_solve_symbols(capsys):
    rc, out, _ = run_cli(capsys, "solve", "--table", KINGS_TABLE, "--hand", "AC", "--symbols")
    assert rc == 0 and "J\u2663 Q\u2663 K\u2663 A\u2663" in out


@needs_oracle
def test_solve_points_objective(capsys):
    argv = ["--table", "10H JH QH", "--hand", "9H JH KH", "--objective", "points", "--json"]
    rc, out, _ = run_cli(capsys, "solve", *argv)
    res = json.loads(out)
    assert rc == 0 and res["value"] == 9 + 10 + 10 and sorted(res["play"]) == sorted(["9H", "JH", "KH"])
    assert_arrangement(res["melds"], "10H JH QH 9H JH KH", Rules())


@needs_oracle
def test_solve_nothing_playable(capsys):
    rc, out, _ = run_cli(capsys, "solve", "--table", KINGS_TABLE, "--hand", "5S 9D")
    assert rc == 0 and out.startswith("no play")
    rc, out, _ = run_cli(capsys, "solve", "--table", KINGS_TABLE, "--hand", "5S 9D", "--json")
    assert json.loads(out)["value"] == 0 and json.loads(out)["play"] == []


@needs_oracle
def test_play_feasibility_worked_examples(capsys):
    rc, out, _ = run_cli(capsys, "solve", "--table", TENS_TABLE, "--play", "9S")
    assert rc == 0 and "failed play" in out and out.count("\n") == 1
    rc, out, _ = run_cli(capsys, "solve", "--table", TENS_TABLE, "--play", "9S QD QS")
    assert rc == 0 and "feasible" in out
    melds = [line.split() for line in out.splitlines()[1:]]
    assert_arrangement(melds, TENS_TABLE + " 9S QD QS", Rules())
    rc, out, _ = run_cli(capsys, "solve", "--table", TENS_TABLE, "--play", "9S", "--json")
    expected = {"rules": "classic", "play": ["9S"], "feasible": False, "melds": None, "us": 0}
    assert json.loads(out) | {"us": 0} == expected


@needs_oracle
def test_rules_by_preset_yaml_and_json_change_the_answer(capsys, tmp_path):
    yaml_path = tmp_path / "lowaces.yaml"
    yaml_path.write_text("# aces low only\nace: low\n")
    for spec in ("classic", "ace_low", str(yaml_path), '{"ace": "low"}', "portuguese"):
        rc, out, err = run_cli(capsys, "solve", "--table", KINGS_TABLE, "--play", "AC", "--rules", spec, "--json")
        assert rc == 0, err
        assert json.loads(out)["feasible"] is (spec == "classic"), spec


@needs_oracle
def test_table_that_cannot_be_arranged(capsys):
    rc, out, err = run_cli(capsys, "solve", "--table", "10H JH", "--hand", "9H")
    assert rc == 2 and out == "" and "cannot be arranged" in err and err.count("\n") == 1
    rc, _, err = run_cli(capsys, "solve", "--table", "10H JH", "--play", "9H")
    assert rc == 2 and "cannot be arranged" in err


@needs_oracle
def test_more_copies_than_the_pack_is_bad_input(capsys):
    rc, _, err = run_cli(capsys, "solve", "--table", "KS KS KS", "--hand", "AS")
    assert rc == 2 and "KS" in err and err.count("\n") == 1


BATCH_LINES = [
    {"id": 1, "table": KINGS_TABLE.split(), "hand": ["AC", "9S"]},
    {"id": "low", "rules": {"ace": "low"}, "table": KINGS_TABLE.split(), "play": ["AC"]},
    "this is not json",
    {"id": 3, "table": TENS_TABLE, "play": "9S QD QS"},
    {"id": 4, "table": [], "hand": ["9H", "ZZ"]},
    {"id": 5, "rules": {"colour": "red"}, "table": [], "hand": ["AS"]},
    {"id": 6, "hand": ["AS"]},
    {"id": 7, "table": TENS_TABLE.split(), "play": ["9S"]},
    {"id": 8, "table": ["10H", "JH", "QH"], "hand": ["9H", "JH", "KH"], "objective": "points",
     "rules": {"points": "ace1"}},
    {"id": 9, "table": ["10H", "JH"], "hand": ["5S", "9H"], "play": ["5S"]},
    {"id": 10, "rules": "classic_jokers", "table": ["5H", "6H", "7H"], "hand": ["JK", "9H", "KS"]},
]


def _batch_text() -> str:
    return "\n".join(x if isinstance(x, str) else json.dumps(x) for x in BATCH_LINES) + "\n\n"


def _check_batch_answers(out: str) -> None:
    answers = [json.loads(x) for x in out.splitlines()]
    assert len(answers) == len(BATCH_LINES)
    assert [a["id"] for a in answers] == [1, "low", None, 3, 4, 5, 6, 7, 8, 9, 10]
    a = {x["id"]: x for x in answers if x["id"] is not None}
    assert a[1]["value"] == 1 and a[1]["play"] == ["AC"] and set(a[1]) == {"id", "value", "play", "melds", "us"}
    assert_arrangement(a[1]["melds"], KINGS_TABLE + " AC", Rules())
    assert a["low"]["feasible"] is False and a["low"]["melds"] is None
    assert set(a["low"]) == {"id", "feasible", "melds", "us"}
    assert "error" in answers[2] and "JSON" in answers[2]["error"]
    assert a[3]["feasible"] is True
    assert_arrangement(a[3]["melds"], TENS_TABLE + " 9S QD QS", Rules())
    assert "'ZZ'" in a[4]["error"]
    assert "colour" in a[5]["error"]
    assert "table" in a[6]["error"]
    assert a[7]["feasible"] is False
    assert a[8]["value"] == 29
    assert "cannot be arranged" in a[9]["error"]
    jokers = Rules.load("classic_jokers")
    assert a[10]["value"] == 2 and sorted(a[10]["play"]) == ["9H", "JK"]
    assert_arrangement(a[10]["melds"], "5H 6H 7H JK 9H", jokers)
    for x in answers:
        assert ("error" in x) != ("us" in x)
        if "us" in x:
            assert isinstance(x["us"], float) and x["us"] >= 0


@needs_oracle
def test_batch_file(capsys, tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(_batch_text())
    rc, out, err = run_cli(capsys, "solve", "--batch", str(path))
    assert rc == 0 and err == ""
    _check_batch_answers(out)


@needs_oracle
def test_batch_stdin(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(_batch_text()))
    rc, out, _ = run_cli(capsys, "solve", "--batch", "-")
    assert rc == 0
    _check_batch_answers(out)


@needs_oracle
def test_batch_in_a_subprocess_and_default_rules():
    proc = run_module("solve", "--batch", "-", "--rules", "ace_low", stdin=json.dumps(
        {"id": "x", "table": KINGS_TABLE.split(), "hand": ["AC"]}) + "\n")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["value"] == 0


@needs_oracle
def test_batch_agrees_with_the_api():
    from machiavelli_env.oracle import api

    rng = np.random.default_rng(7)
    rules = Rules(jokers=2)
    lines, expected = [], []
    for i in range(20):
        pool = ["AS", "2S", "3S", "4S", "5S", "5H", "5D", "5C", "KS", "QS", "JK"] * 2  # at most 2 copies each
        hand = [str(c) for c in rng.choice(pool, 7, replace=False)]
        lines.append(json.dumps({"id": i, "table": [], "hand": hand, "rules": {"jokers": 2}}))
        expected.append(api.best_play(np.zeros(53, np.int64), _counts(hand), rules).value)
    proc = run_module("solve", "--batch", "-", stdin="\n".join(lines) + "\n")
    got = [json.loads(x)["value"] for x in proc.stdout.splitlines()]
    assert got == expected


def _counts(cards: list[str]) -> np.ndarray:
    counts = np.zeros(53, np.int64)
    for c in parse_cards(cards):
        counts[c] += 1
    return counts
