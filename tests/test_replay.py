"""``machiavelli replay``: records re-simulated move by move with the public table; bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from machiavelli_env.agents.arena import play_game
from machiavelli_env.agents.registry import make_agent
from machiavelli_env.agents.replay import RecordError, read_records, replay_text, select_record

from machiavelli_env import cli
from machiavelli_env.rules import Rules


@pytest.fixture(scope="module")
def records_file(tmp_path_factory) -> tuple[Path, list[dict]]:
    rules = Rules.load("classic_3p")
    recs = []
    for g in range(2):
        agents = [make_agent(n, rules, seed=g) for n in ("greedy", "patient", "random")]
        res = play_game(rules, agents, seed=40 + g, agent_seeds=[1, 2, 3], record=True)
        recs.append({"game": g, **res.record})
    path = tmp_path_factory.mktemp("rec") / "games.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path, recs


def run(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main(["replay", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_replay_prints_every_move_with_the_table_and_the_outcome(records_file, capsys):
    path, recs = records_file
    code, out, err = run(capsys, path, "--game", 1)
    assert code == 0, err
    rec = recs[1]
    assert out.count("\nturn ") == len(rec["moves"])
    assert "player_0 = greedy, player_1 = patient, player_2 = random" in out
    assert out.count("table:") == len(rec["moves"]) + 1  # the deal, then after every move
    w = rec["result"]["winner"]
    last = out.strip().splitlines()[-1]
    assert (f"player_{w} ({rec['seats'][w]}) wins" in last) if w >= 0 else ("no winner" in last)
    first_play = next(m for m in rec["moves"] if m["event"].startswith("play"))
    assert f"player_{first_play['player']} ({rec['seats'][first_play['player']]}) plays {first_play['action']}" in out
    assert "\x1b[" not in out  # no colour codes when stdout is not a terminal


def test_replay_shows_the_public_table_only_unless_asked_for_hands(records_file, capsys):
    path, _ = records_file
    public = run(capsys, path)[1]
    hands = run(capsys, path, "--hands")[1]
    deal_public = public.split("\nturn ")[0]
    deal_hands = hands.split("\nturn ")[0]
    assert "13 cards)\n" in deal_public + "\n" and "13 cards): " not in deal_public
    assert deal_hands.count("13 cards): ") == 3


def test_replay_defaults_to_the_first_game_and_lists_games(records_file, capsys):
    path, recs = records_file
    code, out, _ = run(capsys, path)
    assert code == 0 and out.startswith("game 0:") and "[game 0 of 2" in out
    code, out, _ = run(capsys, path, "--list")
    assert code == 0 and out.splitlines()[1].startswith("game 1: classic_3p, greedy, patient, random;")


def test_replay_text_matches_the_engine_states(records_file):
    _, recs = records_file
    blocks = list(replay_text(recs[0]))
    assert len(blocks) == 2 + len(recs[0]["moves"]) + 1


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json\n", "1: not a JSON line"),
        ("[1, 2]\n", "a record is a JSON object"),
        ('{"game": 0, "seed": 1, "seats": ["a", "b"], "result": {}}\n', "looks like a league games.jsonl line"),
        ("\n\n", "holds no game records"),
    ],
)
def test_bad_records_files_get_clear_errors(tmp_path, capsys, content, message):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content)
    code, out, err = run(capsys, bad)
    assert code == 2 and message in err and out == ""


def test_missing_file_folder_and_game_are_named(tmp_path, records_file, capsys):
    path, _ = records_file
    assert run(capsys, tmp_path / "nope.jsonl")[2].endswith(f"no such records file: {tmp_path / 'nope.jsonl'}\n")
    assert "is a folder" in run(capsys, tmp_path)[2]
    code, _, err = run(capsys, path, "--game", 7)
    assert code == 2 and "has no game 7; it holds games 0, 1" in err
    assert "--delay must be >= 0" in run(capsys, path, "--delay", -1)[2]


def test_edited_or_foreign_records_do_not_replay(tmp_path, records_file, capsys):
    _, recs = records_file
    edited = json.loads(json.dumps(recs[0]))
    i = next(k for k, m in enumerate(edited["moves"]) if m["event"] == "draw")
    edited["moves"][i]["event"] = "play"
    foreign = {**recs[0], "game": 1, "env": "machiavelli_v9"}
    path = tmp_path / "edited.jsonl"
    path.write_text(json.dumps(edited) + "\n" + json.dumps(foreign) + "\n")
    code, out, err = run(capsys, path, "--game", 0)
    assert code == 2 and out == "" and f"move {i} does not replay" in err
    assert "record is for env 'machiavelli_v9'" in run(capsys, path, "--game", 1)[2]


def test_records_without_a_game_index_are_numbered_by_position(tmp_path, records_file):
    _, recs = records_file
    path = tmp_path / "plain.jsonl"
    path.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "game"}) + "\n" for r in recs))
    read = read_records(path)
    assert [r["game"] for r in read] == [0, 1]
    assert select_record(read, 1)["seed"] == recs[1]["seed"]
    with pytest.raises(RecordError):
        select_record(read, 5)
