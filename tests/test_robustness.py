"""Bad input: one bad batch line costs only itself, data never names a file, states are checked on the way in.

One section per class of the robustness contract (docs/ROBUSTNESS.md): the JSON Lines reader and
``solve --batch``; rules given as data versus files; type-exact, bounded rules validation; state
validation on every way in; the command line's one error path (checkpoints: test_robustness_ppo.py).
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from machiavelli_env import cli, game
from machiavelli_env import rules as rules_mod
from machiavelli_env.cards import CARD_TYPES, parse_card
from machiavelli_env.env import raw_env
from machiavelli_env.records import JSONInputError, Line, dumps, loads, printable, read_jsonl
from machiavelli_env.rules import Rules, RulesError

ROOT = Path(__file__).resolve().parent.parent
SECRET = "SECRET_7f3a9"


def strict_json(text: str) -> object:
    """Parse text as strict JSON (NaN / Infinity rejected), as other tools would."""
    def no_constants(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=no_constants)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        rc = cli.main(list(argv))
    except SystemExit as exc:
        rc = int(exc.code or 0)
    out, err = capsys.readouterr()
    return rc, out, err


def one_error_line(err: str, command: str) -> None:
    assert err.startswith(f"machiavelli {command}: error: "), err
    assert err.count("\n") == 1 and "Traceback" not in err, err


class StubOracle:
    """Answers like the oracle API but instantly; ``fail`` makes a hand holding that card raise."""

    OracleError = ValueError

    def __init__(self, fail: dict[int, BaseException] | None = None) -> None:
        self.fail = fail or {}

    def _maybe_fail(self, cards: np.ndarray) -> None:
        for c, exc in self.fail.items():
            if cards[c]:
                raise exc

    def best_play(self, table, hand, rules, objective="cards"):
        self._maybe_fail(hand)
        return SimpleNamespace(counts=hand.copy(), value=int(hand.sum()), melds=[[0, 1, 2]])

    def repack(self, table, play, rules):
        self._maybe_fail(play)
        return [[0, 1, 2]]


def batch(data: bytes | str, api=None, **kw) -> list[dict]:
    """Run solve_batch on ``data`` (bytes: a binary stream; str: a text stream); the parsed answers."""
    stream = io.BytesIO(data) if isinstance(data, bytes) else io.StringIO(data)
    buf = io.StringIO()
    old = sys.stdout
    sys.stdout = buf
    try:
        assert cli.solve_batch(stream, api or StubOracle(), **kw) == 0
    finally:
        sys.stdout = old
    return [strict_json(x) for x in buf.getvalue().splitlines()]


GOOD = b'{"id": "g", "table": [], "hand": ["AS", "2S", "3S"]}'


# ====================================================================== 1. the JSON Lines reader
@pytest.mark.parametrize(
    "raw, message",
    [
        (b'{"id": 1, "hand": ["AS\xff"]}', "not UTF-8"),
        (b"[" * 1000 + b"]" * 1000, "nested deeper than 64"),
        (b'{"a": ' + b"{" * 65 + b"}" * 65 + b"}", "nested deeper than 64"),
        (b'{"id": NaN}', "NaN is not a JSON number"),
        (b'{"id": -Infinity}', "-Infinity is not a JSON number"),
        (b'{"seed": 1e999}', "out of range"),
        (b'{"id": "\\ud800"}', "lone UTF-16 surrogate"),
        (b'{"id": "\\udc00x", "k": 1}', "lone UTF-16 surrogate"),
        (b'{"id": 1,', "Expecting"),
        (b'{"n": ' + b"9" * 5000 + b"}", "digits"),
    ],
)
def test_bad_lines_become_errors_and_reading_goes_on(raw, message):
    lines = list(read_jsonl(io.BytesIO(GOOD + b"\n" + raw + b"\n" + GOOD + b"\n")))
    assert [x.number for x in lines] == [1, 2, 3]
    assert lines[0].value["id"] == "g" and lines[2].value["id"] == "g"
    assert lines[1].value is None and lines[1].error.startswith("bad JSON: ") and message in lines[1].error


def test_nesting_within_the_bound_and_brackets_inside_strings_are_fine():
    assert loads("[" * 64 + "]" * 64) == eval("[" * 64 + "]" * 64)  # noqa: S307 - a literal
    assert loads(json.dumps({"s": "[" * 500})) == {"s": "[" * 500}
    assert loads('"\\ud83d\\ude00"') == "\U0001f600"  # a surrogate pair is a character


def test_line_ends_the_same_in_file_and_stdin_mode():
    data = b'{"id": 1,\r "table": []}\r\n\r\n  \n{"id": 2}\n{"id": 3}'
    as_bytes = list(read_jsonl(io.BytesIO(data)))
    as_text = list(read_jsonl(io.StringIO(data.decode())))
    as_lines = list(read_jsonl(data.split(b"\n")))
    assert as_bytes == as_text == as_lines
    assert [(x.number, x.value) for x in as_bytes] == [(1, {"id": 1, "table": []}), (4, {"id": 2}), (5, {"id": 3})]


def test_a_byte_order_mark_and_a_long_line():
    lines = list(read_jsonl(io.BytesIO(b"\xef\xbb\xbf" + GOOD + b"\n" + b'"' + b"x" * 100 + b'"\n' + GOOD),
                            max_line_bytes=80))
    assert lines[0].value["id"] == "g" and "longer than 80 bytes" in lines[1].error and lines[2].value["id"] == "g"


def test_loads_raises_a_value_error_naming_the_problem():
    with pytest.raises(JSONInputError, match="NaN"):
        loads("NaN")
    with pytest.raises(JSONInputError, match="surrogate"):
        loads('"\udcff"')
    assert issubclass(JSONInputError, ValueError)


def test_dumps_is_always_valid_json_and_utf8():
    text = dumps({"a": float("nan"), "b": [float("inf")], "c": "\ud800", "d": "♠"})
    assert strict_json(text) == {"a": None, "b": [None], "c": "?", "d": "♠"}
    text.encode("utf-8")
    assert dumps({"id": 1, "us": 2.5}) == json.dumps({"id": 1, "us": 2.5}, ensure_ascii=False)
    for sep in ("\x85", "\u2028", "\u2029"):  # line ends for str.splitlines: escaped
        assert len(dumps({"id": f"a{sep}b"}).splitlines()) == 1 and strict_json(dumps([sep])) == [sep]


def test_printable_escapes_terminal_controls():
    assert printable("\x1b[31mred\x07\r\n") == "\\x1b[31mred\\x07\\x0d\\x0a"
    assert printable("a\u202eb\ud800") == "a\\u202eb\\ud800"
    assert printable("10♥ J♥") == "10♥ J♥"
    assert printable("x" * 50, 10) == "x" * 10 + "..."


# ====================================================================== 1. solve --batch
def test_every_line_gets_one_answer_in_order_whatever_it_holds():
    bad = [
        b'{"id": 1, "table": [], "hand": ["AS\xff"]}',
        b"[" * 5000 + b"]" * 5000,
        b'{"id": "\\ud800", "table": [], "hand": ["AS"]}',
        b'{"id": NaN, "table": [], "hand": ["AS"]}',
        b'{"id": 5, "table": [],\r "hand": ["AS"]}',
        b'{"id": 6, "rules": "/etc/passwd", "table": [], "hand": ["AS"]}',
        b'"just a string"',
        b'{"id": 8, "table": {}, "hand": ["AS"]}',
        b'{"id": 9, "table": [], "hand": ["' + b'ZZ", "' * 50 + b'AS"]}',
    ]
    data = b"\n".join(x for b in bad for x in (GOOD, b)) + b"\n" + GOOD + b"\n"
    answers = batch(data)
    assert len(answers) == 2 * len(bad) + 1
    assert all(a["id"] == "g" and a["value"] == 3 for a in answers[::2])
    errors = answers[1::2]
    assert errors[4] == {"id": 5, "value": 1, "play": ["AS"], "melds": [["AS", "2S", "3S"]], "us": errors[4]["us"]}
    for i in (0, 1, 2, 3):
        assert errors[i]["id"] is None and errors[i]["error"].startswith("bad JSON")
    assert "cannot name a file" in errors[5]["error"] and "root" not in errors[5]["error"]
    assert "JSON object" in errors[6]["error"]
    assert "table" in errors[7]["error"] and errors[7]["id"] == 8
    assert "and 40 more" in errors[8]["error"]


def test_text_streams_are_read_like_bytes():
    data = GOOD + b"\n" + b'{"id": 2, "table": [],\r "hand": ["AS"]}\r\n' + b'{"id": NaN}\n'

    def strip(answers):
        return [{k: v for k, v in a.items() if k != "us"} for a in answers]

    assert strip(batch(data.decode())) == strip(batch(data))
    assert [a["id"] for a in batch(data)] == ["g", 2, None]


def test_an_oracle_failure_costs_only_its_line():
    api = StubOracle({parse_card("KS"): MemoryError(), parse_card("QS"): RuntimeError("boom")})
    lines = [GOOD, b'{"id": "m", "table": [], "hand": ["KS"]}', GOOD,
             b'{"id": "r", "table": [], "play": ["QS"]}', GOOD]
    answers = batch(b"\n".join(lines), api)
    assert [a["id"] for a in answers] == ["g", "m", "g", "r", "g"]
    assert answers[1]["error"] == "out of memory answering this line"
    assert answers[3]["error"] == "internal error: RuntimeError: boom"


def test_lone_cr_and_crlf_give_the_same_answers_from_a_file_and_stdin(tmp_path, capsys, monkeypatch):
    from machiavelli_env.oracle import api  # noqa: F401 - the real oracle

    data = (GOOD + b"\r\n" + b'{"id": 2, "table": ["KH", "KC", "KD"],\r "hand": ["KS"]}\n'
            + b'{"id": 3, "hand": ["AS"]}\r' + b"\n" + b'{"id": "\\ud800"}\n')
    path = tmp_path / "q.jsonl"
    path.write_bytes(data)
    rc, out_file, err = run_cli(capsys, "solve", "--batch", str(path))
    assert rc == 0 and err == ""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    rc, out_stdin, _ = run_cli(capsys, "solve", "--batch", "-")
    assert rc == 0

    def no_time(out):
        return [{k: v for k, v in strict_json(x).items() if k != "us"} for x in out.splitlines()]

    assert no_time(out_file) == no_time(out_stdin)
    answers = no_time(out_file)
    assert [a["id"] for a in answers] == ["g", 2, 3, None]
    assert answers[1]["value"] == 1 and "table" in answers[2]["error"] and "surrogate" in answers[3]["error"]


def test_default_rules_from_a_file_apply_to_lines_without_rules(tmp_path, capsys):
    path = tmp_path / "low.yaml"
    path.write_text("ace: low\n")
    lines = tmp_path / "q.jsonl"
    lines.write_text(json.dumps({"id": 1, "table": ["KH", "KC", "KD", "QH", "QC", "QD", "JH", "JC", "JD"],
                                 "hand": ["AC"]}) + "\n")
    rc, out, _ = run_cli(capsys, "solve", "--batch", str(lines), "--rules", str(path))
    assert rc == 0 and json.loads(out)["value"] == 0  # the ace cannot go high under ace: low


# ---------------------------------------------------------------------- property: random input
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
card_names = st.sampled_from(list(CARD_TYPES) + ["ZZ", "10X", "", "AS AS"])
questions = st.fixed_dictionaries(
    {"table": st.lists(card_names, max_size=6) | json_values},
    optional={
        "id": json_values, "hand": st.lists(card_names, max_size=8) | json_values,
        "play": st.lists(card_names, max_size=4), "objective": st.sampled_from(["cards", "points", "x", 1]),
        "rules": st.sampled_from([{"jokers": 2}, {"decks": True}, "ace_low", "x.yaml", "/etc/passwd", 3, None]),
    },
)
raw_lines = st.binary(max_size=60).map(lambda b: b.replace(b"\n", b" "))
batch_lines = st.lists(
    st.one_of(raw_lines, json_values.map(lambda v: json.dumps(v).encode()),
              questions.map(lambda q: json.dumps(q).encode())),
    max_size=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=batch_lines, as_text=st.booleans())
def test_property_random_bytes_and_json_one_valid_answer_per_line(lines, as_text):
    data = b"\n".join(lines) + b"\n"
    expected = sum(1 for x in lines if x.strip())
    source: bytes | str = data.decode("utf-8", "surrogateescape") if as_text else data
    answers = batch(source)  # parses every answer strictly
    assert len(answers) == expected
    for a in answers:
        assert isinstance(a, dict) and "id" in a
        assert ("error" in a) != ("us" in a)
        dumps(a).encode("utf-8")


# ====================================================================== 2. data never names a file
@pytest.fixture
def secret_file(tmp_path) -> Path:
    path = tmp_path / "secret.yaml"
    path.write_text(f"ace: low\n{SECRET}: 1\n")
    return path


@pytest.mark.parametrize("spec", ["/etc/passwd", "/proc/self/environ", "rules.yaml", "a/b", "../x.yml"])
def test_rules_given_as_data_never_open_a_file(spec, monkeypatch):
    def no_file(path):
        raise AssertionError(f"opened {path}")

    monkeypatch.setattr(rules_mod, "_load_file", no_file)
    with pytest.raises(RulesError, match="cannot name a file"):
        Rules.from_data(spec)
    with pytest.raises(RulesError, match="cannot name a file"):
        Rules.from_data(Path(spec))
    answer = batch(json.dumps({"id": 1, "rules": spec, "table": [], "hand": ["AS"]}))[0]
    assert "cannot name a file" in answer["error"]


def test_batch_and_records_do_not_read_a_real_rules_file(secret_file, tmp_path, capsys):
    answer = batch(json.dumps({"id": 1, "rules": str(secret_file), "table": [], "hand": ["AS"]}))[0]
    assert SECRET not in json.dumps(answer) and "cannot name a file" in answer["error"]
    rec = {"env": "machiavelli_v0", "rules": str(secret_file), "seed": 0, "seats": ["a", "b"], "moves": []}
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    rc, out, err = run_cli(capsys, "replay", str(path))
    assert rc == 2 and SECRET not in out + err and "cannot name a file" in err


def test_preset_names_are_names(monkeypatch):
    for bad in ("..", "classic\n", "clas sic", "x" * 100, "\x1b[2J"):
        with pytest.raises(RulesError, match="unknown rules preset") as exc:
            Rules.from_data(bad)
        assert "\x1b" not in str(exc.value)
    assert Rules.from_data("ace_low").ace == "low"
    assert Rules.from_data('{"ace": "wrap"}').ace == "wrap"
    with pytest.raises(RulesError, match="nested deeper"):
        Rules.from_data('{"ace": ' + "[" * 100 + "]" * 100 + "}")


def test_rules_file_errors_give_path_and_line_never_content(tmp_path):
    cases = {
        "unknown.yaml": (f"ace: low\n{SECRET}: 1\n", "unknown.yaml: unknown rules field on line 2"),
        "value.yaml": (f"ace: {SECRET}\n", "value.yaml:1: rules field 'ace' must be one of"),
        "garbage.yaml": (f"ace: low\n{SECRET} without a colon\n", "garbage.yaml:2: expected 'field: value'"),
        "twice.yaml": (f"{SECRET}: 1\n{SECRET}: 2\n", "twice.yaml:2: a field given twice"),
        "binary.yaml": (None, "is not UTF-8 text"),
        "big.yaml": ("# " + "x" * 70_000 + "\n", "larger than 64 KiB"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        if text is None:
            path.write_bytes(b"ace: low\n\xff" + SECRET.encode())
        else:
            path.write_text(text)
        with pytest.raises(RulesError) as exc:
            Rules.load(str(path))
        assert message in str(exc.value), exc.value
        assert SECRET not in str(exc.value)
    with pytest.raises(RulesError, match="not found"):
        Rules.load(str(tmp_path))  # a folder is not a rules file


def test_solve_rules_file_error_on_the_command_line_quotes_nothing(secret_file, capsys):
    secret_file.write_text(f"{SECRET}=1\n")
    rc, out, err = run_cli(capsys, "solve", "--hand", "AS", "--rules", str(secret_file))
    assert rc == 2 and out == "" and SECRET not in err and "secret.yaml:1" in err
    one_error_line(err, "solve")


def test_rules_files_still_load_explicitly(tmp_path):
    path = tmp_path / "mine.yml"
    path.write_text("# mine\r\nace: high\r\njokers: 2\r\n")
    r = Rules.load(path)
    assert (r.ace, r.jokers, r.name) == ("high", 2, "mine")
    assert Rules.load(str(path)) == r


# ====================================================================== 3. type-exact, bounded validation
def test_rules_answers_do_not_depend_on_line_order():
    specs = [{"decks": 1}, {"decks": True}, {"decks": 1.0}, {"jokers": 0}, {"jokers": False}]
    lines = [json.dumps({"id": i, "rules": s, "table": [], "hand": ["AS"]}) for i, s in enumerate(specs)]
    together = batch("\n".join(lines))
    alone = [batch(x)[0] for x in lines]
    backwards = batch("\n".join(lines[::-1]))[::-1]

    def strip(a):
        return {k: v for k, v in a.items() if k != "us"}

    assert [strip(a) for a in together] == [strip(a) for a in alone] == [strip(a) for a in backwards]
    assert "error" not in together[0] and "error" not in together[3]
    for i in (1, 2, 4):
        assert "must be an integer" in together[i]["error"]


@pytest.mark.parametrize("opening", ["points:3000000000", "points:10001", "points:30\n", "points:\u0663", " group",
                                     "points:-1", "points:1e3"])
def test_opening_points_are_bounded(opening):
    with pytest.raises(RulesError, match="'opening'"):
        Rules(opening=opening)


def test_opening_points_in_range_and_other_bounds():
    assert Rules(opening="points:10000").opening_points == 10000
    assert Rules(opening="points:36").opening_points == 36
    for field, value in (("players", 7), ("decks", 2.0), ("max_turns", 10**7), ("hand_size", True),
                         ("name", "a\x1bb"), ("name", ""), ("name", 5), ("ace", ["low"])):
        with pytest.raises(RulesError, match=f"'{field}'"):
            Rules(**{field: value})


# ====================================================================== 4. states
@pytest.fixture(scope="module")
def mid_state() -> game.State:
    """A classic state some turns in: cards on the table, a failed play's known cards."""
    s = game.new_game("classic", 11)
    rng = np.random.default_rng(3)
    while s.turn < 30 or not s.table.any() or not s.known.any():
        plays = game.legal_plays(s, limit=4)
        if s.turn % 7 == 3:  # a failed play: a lone card
            a = np.zeros(53, np.int64)
            a[int(np.flatnonzero(s.hands[s.current])[0])] = 1
        else:
            a = plays[int(rng.integers(len(plays)))] if plays else np.zeros(53, np.int64)
        s = game.step(s, a)
        assert not s.done
    return s


def tampered(state: game.State, edit) -> str:
    d = json.loads(game.state_to_json(state))
    edit(d)
    return json.dumps(d)


def _three_as(d):
    d["hands"][0][0] = 3


def _negative(d):
    d["hands"][0][5] = -1


def _truncated(d):
    d["stock"] = d["stock"][:-3]


def _table_not_melds(d):  # move two cards of a hand to the table as a two-card "meld": cards conserved
    hand, known = d["hands"][d["current"]], d["known"][d["current"]]
    cards = [c for c in range(52) if hand[c] > known[c]][:2]
    for c in cards:
        hand[c] -= 1
        d["table"][c] += 1
    d["melds"].append(cards)


def _current(d):
    d["current"] = 7


def _known_not_held(d):
    p = 1 - d["current"]
    c = next(c for c in range(53) if d["hands"][p][c] == 0)
    d["known"][p][c] = 1


def _bool_current(d):
    d["current"] = True


def _float_hand(d):
    d["hands"][0][1] = 0.5


def _string_stock(d):
    d["stock"][0] = "AS"


def _stock_index(d):
    d["stock"][0] = 60


def _passes(d):
    d["passes"] = 1


def _winner_not_done(d):
    d["winner"] = 1


def _truncated_not_done(d):
    d["truncated"] = True


def _rules_path(d):
    d["rules"] = "/etc/passwd"


def _rules_bad(d):
    d["rules"]["decks"] = True


def _event(d):
    d["event"] = "\x1b[2Jteleport"


def _missing(d):
    del d["turn"]


def _extra(d):
    d["bogus"] = 1


def _ragged(d):
    d["hands"][0] = d["hands"][0][:10]


def _huge(d):
    d["seed"] = 10**40


@pytest.mark.parametrize("edit, message", [
    (_three_as, "cards lost or duplicated: AS"), (_negative, "negative counts"),
    (_truncated, "cards lost or duplicated"), (_table_not_melds, "not a valid meld"),
    (_current, "'current' must be a player 0..1"), (_known_not_held, "known to be in player"),
    (_bool_current, "'current' must be an integer"), (_float_hand, "'hands' must hold integers"),
    (_string_stock, "'stock' must hold integers"), (_stock_index, "outside 0..52"),
    (_passes, "'passes'"), (_winner_not_done, "no winner"), (_truncated_not_done, "truncated"),
    (_rules_path, "'rules' must be an object"), (_rules_bad, "'decks'"), (_event, "not an event"),
    (_missing, "misses key(s): turn"), (_extra, "unknown key(s): bogus"), (_ragged, "'hands'"),
    (_huge, "'seed' must be in"),
])
def test_tampered_state_json_is_rejected_naming_the_problem(mid_state, edit, message):
    with pytest.raises(game.StateError, match=None) as exc:
        game.state_from_json(tampered(mid_state, edit))
    assert message in str(exc.value), exc.value
    assert "\x1b" not in str(exc.value)


def test_state_json_round_trips_and_out_of_play_is_kept(mid_state):
    assert game.state_from_json(game.state_to_json(mid_state)) == mid_state
    puzzle = game.new_state_from("classic", ["7S 8S", "KD"], "4H 5H 6H", stock="9S 2C")
    text = game.state_to_json(puzzle)
    assert "out_of_play" in json.loads(text)
    assert game.state_from_json(text) == puzzle
    d = json.loads(text)
    d["stock"] = d["stock"][:1]
    with pytest.raises(game.StateError, match="lost or duplicated"):
        game.state_from_dict(d)
    d["out_of_play"][parse_card("2C")] += 1  # a consistent edit: one more card out of play
    assert game.state_from_dict(d).stock.tolist() == [parse_card("9S")]
    with pytest.raises(game.StateError, match="does not parse"):
        game.state_from_json("[" * 100 + "]" * 100)
    with pytest.raises(game.StateError, match="JSON object"):
        game.state_from_json("[1]")


def test_state_constructor_checks_structure(mid_state):
    fields = {f.name: getattr(mid_state, f.name) for f in dataclasses.fields(game.State)}
    for change, message in (
        ({"current": 9}, "'current'"), ({"hands": mid_state.hands[:1]}, "'hands' must have shape"),
        ({"hands": mid_state.hands + 0.5}, "'hands' must hold integers"), ({"stock": [99]}, "outside 0..52"),
        ({"last_action": [9, 0]}, "'last_action'"), ({"done": "yes"}, "'done'"), ({"result": "won"}, "'result'"),
        ({"rules": "classic"}, "'rules' must be a Rules"), ({"table": [[1]]}, "'table' must have shape"),
    ):
        with pytest.raises(game.StateError, match=None) as exc:
            game.State(**{**fields, **change})
        assert message in str(exc.value), (change, exc.value)


def test_env_rejects_bad_states_and_keeps_its_own(mid_state):
    bad = dataclasses.replace(mid_state, hands=mid_state.hands + np.eye(2, 53, dtype=np.int64) * 2)
    e = raw_env()
    e.reset(seed=5)
    before = e.game_state
    for call in (lambda: e.restore_state(bad), lambda: e.reset(seed=9, options={"state": bad})):
        with pytest.raises(ValueError, match="more copies than the pack holds"):
            call()
        assert e.game_state is before
    e.reset()  # unseeded: the stream seeded by reset(seed=5), untouched by the rejected reset(seed=9)
    twin = raw_env()
    twin.reset(seed=5)
    twin.reset()
    assert e.game_state == twin.game_state
    e.restore_state(mid_state)
    assert e.game_state is mid_state
    with pytest.raises(TypeError):
        e.restore_state("not a state")


def test_engine_states_pass_validation_and_invariants():
    for name in ("classic", "classic_jokers", "help_cards", "match100", "opening_points36"):
        s = game.new_game(name, 2)
        for _ in range(120):
            game.validate_state(dataclasses.replace(s))  # a fresh object: checked in full
            game.check_invariants(s)
            if s.done:
                break
            plays = game.legal_plays(s, limit=4)
            s = game.step(s, plays[0] if plays else np.zeros(53, np.int64))
    truncated = game.new_game("classic", 1, max_turns=3)
    for _ in range(3):
        truncated = game.step(truncated, np.zeros(53, np.int64))
    assert truncated.truncated
    game.validate_state(dataclasses.replace(truncated))
    with pytest.raises(AssertionError, match="lost or duplicated"):
        game.check_invariants(dataclasses.replace(truncated, stock=truncated.stock[1:]))


# ---------------------------------------------------------------------- property: random states
def _mutations(state_dict: dict) -> st.SearchStrategy:
    @st.composite
    def mutate(draw):
        d = json.loads(json.dumps(state_dict))
        for _ in range(draw(st.integers(1, 3))):
            key = draw(st.sampled_from(sorted(d)))
            v = d[key]
            if isinstance(v, list) and v and draw(st.booleans()):
                i = draw(st.integers(0, len(v) - 1))
                if isinstance(v[i], list) and v[i] and draw(st.booleans()):
                    v[i][draw(st.integers(0, len(v[i]) - 1))] = draw(st.integers(-2, 3) | json_values)
                else:
                    v[i] = draw(st.integers(-2, 60) | json_values)
            elif draw(st.booleans()):
                d[key] = draw(json_values)
            else:
                del d[key]
        return d

    return mutate()


@pytest.fixture(scope="module")
def state_dict(mid_state) -> dict:
    return json.loads(game.state_to_json(mid_state))


def _accepted_or_rejected(value) -> None:
    try:
        s = game.state_from_json(value) if isinstance(value, str) else game.state_from_dict(value)
    except game.StateError:
        return
    game.validate_state(dataclasses.replace(s), game.pack_counts(s.rules))  # accepted: valid, cards conserved
    assert game.state_from_json(game.state_to_json(s)) == s


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_property_state_loader_accepts_valid_states_or_rejects(state_dict, data):
    choice = data.draw(st.integers(0, 2))
    if choice == 0:
        value = data.draw(_mutations(state_dict))
    elif choice == 1:
        value = data.draw(json_values)
    else:
        value = data.draw(st.binary(max_size=80)).decode("utf-8", "replace")
    _accepted_or_rejected(value)


# ====================================================================== 6. the command line
@pytest.fixture(scope="module")
def record() -> dict:
    from machiavelli_env.agents.arena import play_game
    from machiavelli_env.agents.registry import make_agent

    return play_game(Rules(), [make_agent("greedy"), make_agent("random", seed=1)], 5, record=True).record


def _write(tmp_path: Path, name: str, lines: list) -> Path:
    path = tmp_path / name
    path.write_bytes(b"".join((x if isinstance(x, bytes) else json.dumps(x).encode()) + b"\n" for x in lines))
    return path


@pytest.mark.parametrize("edit, message", [
    (lambda r: b'{"env": ' + b"[" * 3000 + b"]" * 3000 + b"}", "nested deeper"),
    (lambda r: json.dumps(r).replace('"seed": 5', '"seed": 1e999').encode(), "out of range"),
    (lambda r: {**r, "seed": -1}, "'seed'"),
    (lambda r: {**r, "moves": [{k: v for k, v in r["moves"][0].items() if k != "turn"}] + r["moves"][1:]},
     "move 0 has no 'turn'"),
    (lambda r: {**r, "moves": [{**r["moves"][0], "player": 5}] + r["moves"][1:]}, "'player' must be a seat"),
    (lambda r: {**r, "seats": []}, "'seats' must list 2"),
    (lambda r: {**r, "result": "x"}, "'result' must be an object"),
    (lambda r: {**r, "result": {"winner": "x"}}, "'result.winner'"),
    (lambda r: {**r, "rules": {"decks": 1.0}}, "'decks'"),
    (lambda r: {**r, "game": True}, "'game'"),
    (lambda r: b"\xff\xfe", "not UTF-8"),
])
def test_tampered_records_are_usage_errors(tmp_path, capsys, record, edit, message):
    path = _write(tmp_path, "bad.jsonl", [edit(record)])
    for extra in ((), ("--list",), ("--game", "0")):
        rc, out, err = run_cli(capsys, "replay", str(path), *extra)
        assert rc == 2 and out == "" and message in err, (extra, err)
        one_error_line(err, "replay")


def test_a_bad_record_costs_only_its_line(tmp_path, capsys, record):
    path = _write(tmp_path, "mixed.jsonl", [{**record, "seats": []}, b"{oops", {**record, "game": 2}])
    rc, out, err = run_cli(capsys, "replay", str(path), "--list")
    lines = out.splitlines()
    assert rc == 0 and len(lines) == 3
    assert lines[0].startswith("game 0: line 1 is not a good record: field 'seats'")
    assert lines[1].startswith("game 1: line 2 is not a good record: not a JSON line")
    assert lines[2].startswith("game 2: custom, greedy, random;")
    rc, out, _ = run_cli(capsys, "replay", str(path))  # the first good game
    assert rc == 0 and out.startswith("game 2:")
    rc, _, err = run_cli(capsys, "replay", str(path), "--game", "0")
    assert rc == 2 and "mixed.jsonl:1: field 'seats'" in err


def test_seat_names_with_terminal_escapes_are_printed_escaped(tmp_path, capsys, record):
    evil = "\x1b[31mevil\x1b]0;title\x07"
    path = _write(tmp_path, "evil.jsonl", [{**record, "seats": [evil, "b\r"]}])
    for extra in ((), ("--list",)):
        rc, out, _ = run_cli(capsys, "replay", str(path), *extra)
        assert rc == 0 and "\x1b" not in out and "\x07" not in out and "\r" not in out
        assert "\\x1b[31mevil" in out


@pytest.mark.parametrize("argv, needle", [
    (["eval", "--agents", "ppo:/no/such.safetensors,greedy", "--games", "1"], "no such checkpoint file"),
    (["eval", "--agents", "greedy,greedy", "--games", "1", "--records", "/no/such/dir/x.jsonl"], "--records"),
    (["eval", "--agents", "greedy,random", "--limit", "0"], "argument --limit"),
    (["eval", "--agents", "greedy,random", "--seed", "-1"], "argument --seed"),
    (["eval", "--agents", "greedy,random", "--games", "x"], "argument --games"),
    (["eval", "--agents", "greedy,random", "--rules", "/etc/passwd"], "unknown rules field on line"),
    (["play", "--seed", "-1"], "argument --seed"),
    (["play", "--seat", "9"], "argument --seat"),
    (["replay", "/no/such.jsonl"], "no such records file"),
    (["replay", "README.md", "--delay", "nan"], "--delay"),
    (["train", "--workers", "0"], "argument --workers"),
    (["train", "--config", "/no/such.yaml"], "no config file"),
    (["league", "--config", "x.yaml", "--out", "o", "--games", "-1"], "argument --games"),
    (["solve", "--hand", "AS", "--rules", "points:1"], "unknown rules preset"),
    (["solve", "--hand", "AS", "--rules", '{"opening": "points:3000000000"}'], "'opening'"),
])
def test_bad_input_is_one_error_line_with_exit_2(capsys, argv, needle):
    rc, out, err = run_cli(capsys, *argv)
    assert rc == 2, err
    one_error_line(err, argv[0])
    assert needle in err and "root:" not in err


@pytest.mark.parametrize("command", [s.name for s in cli.SUBCOMMANDS])
def test_every_help_documents_the_error_path(capsys, command):
    rc, out, _ = run_cli(capsys, command, "--help")
    flat = " ".join(out.split())
    assert rc == 0 and "exit status: 0 done; 2 bad input" in flat and "machiavelli COMMAND: error: MESSAGE" in flat


def test_internal_errors_are_one_line_with_exit_1(capsys, monkeypatch):
    def boom(args):
        raise RuntimeError("something broke\x1b[2J")

    monkeypatch.setattr(cli, "run_solve", boom)
    monkeypatch.delenv("MACHIAVELLI_DEBUG", raising=False)
    rc, _, err = run_cli(capsys, "solve", "--hand", "AS")
    assert rc == 1 and err == "machiavelli solve: error: internal error: RuntimeError: something broke\\x1b[2J\n"
    monkeypatch.setenv("MACHIAVELLI_DEBUG", "1")
    rc, _, err = run_cli(capsys, "solve", "--hand", "AS")
    assert rc == 1 and "Traceback" in err and "boom" in err


def test_int_arg_bounds():
    parse = cli.int_arg(1, 5)
    assert parse("3") == 3
    for bad in ("0", "6", "x", "1.5", ""):
        with pytest.raises(Exception, match="must be an integer in 1..5"):
            parse(bad)
    assert cli.int_arg(0)("123456789012345678901234567890") == 123456789012345678901234567890


def test_nothing_escapes_is_documented():
    text = (ROOT / "docs" / "ROBUSTNESS.md").read_text()
    assert "Security and robustness" in text
    assert "ROBUSTNESS.md" in (ROOT / "docs" / "ENV.md").read_text()


def test_json_input_error_messages_are_bounded():
    with pytest.raises(JSONInputError) as exc:
        loads('{"x": 1e' + "9" * 400 + "}")
    assert len(str(exc.value)) < 120 and "out of range" in str(exc.value)
    assert math.isfinite(loads("1e308"))
    assert list(read_jsonl([b'{"x": 1e' + b"9" * 400 + b"}"])) == [Line(1, error=f"bad JSON: {exc.value}")]


def test_a_tampered_league_games_file_is_a_league_error(tmp_path):
    from machiavelli_env.training.league import LeagueError, read_games

    path = tmp_path / "games.jsonl"
    for data, message in ((b"[" * 3000 + b"]" * 3000 + b"\n", "not a JSON line"), (b'{"game": 0}\xff\n', "not UTF-8"),
                          (b'{"game": NaN}\n', "not a JSON line")):
        path.write_bytes(data)
        with pytest.raises(LeagueError, match=message):
            read_games(path)
