"""Leagues: the scheduler, config errors, ratings from finishing orders, output files, resume, Ray."""

from __future__ import annotations

import csv
import importlib.util
import itertools
import json
import operator
from collections import Counter
from pathlib import Path

import pytest
from machiavelli_env.training.league import LeagueError, config_from_dict, load_config, read_games, run_league
from machiavelli_env.training.ratings import compute_ratings
from machiavelli_env.training.schedule import Schedule

from machiavelli_env import cli

# Ratings need the `league` extra (openskill, matplotlib, pyyaml); the scheduler and configs do not.
needs_league = pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("openskill", "matplotlib", "yaml")),
    reason="pip install -e '.[league]'",
)

ROOT = Path(__file__).resolve().parent.parent
POOL = ["random", "greedy", "greedy_points", "patient"]


def small_config(games: int = 8, **kw):
    data = {"name": "t", "pool": ["greedy", "patient", "greedy_points"], "players": [2, 3], "rules": ["classic"],
            "games": games, "seed": 3}
    data.update(kw)
    return config_from_dict(data)


# ------------------------------------------------------------------------------------------- schedule
def test_schedule_every_agent_meets_every_other_and_sits_in_every_seat_within_one_cycle():
    s = Schedule(POOL, [2, 3, 4], ["classic"], seed=11)
    assert s.cycle_length == 6 * 2 + 4 * 3 + 1 * 4
    fixtures = s.fixtures(0, s.cycle_length)
    met = {frozenset(p) for f in fixtures for p in itertools.combinations(f.seats, 2)}
    assert met == {frozenset(p) for p in itertools.combinations(POOL, 2)}
    seats = Counter((f.players, seat, name) for f in fixtures for seat, name in enumerate(f.seats))
    for n, games_per_agent in ((2, 3), (3, 3), (4, 1)):  # C(3,1), C(3,2), C(3,3) tables hold a given agent
        for seat in range(n):
            for name in POOL:
                assert seats[(n, seat, name)] == games_per_agent, (n, seat, name)
    assert all(len(set(f.seats)) == f.players for f in fixtures)


def test_schedule_blocks_share_one_deal_and_rotate_the_seats():
    s = Schedule(POOL, [3], ["classic"], seed=5)
    by_block: dict[int, list] = {}
    for f in s.fixtures(0, 2 * s.cycle_length):
        by_block.setdefault(f.block, []).append(f)
    assert len(by_block) == 2 * s.blocks_per_cycle
    for games in by_block.values():
        assert len(games) == 3 and len({g.seed for g in games}) == 1
        first = games[0].seats
        for k, g in enumerate(games):
            assert g.seats == tuple(first[(i - k) % 3] for i in range(3))
    assert len({g.seed for gs in by_block.values() for g in gs}) == len(by_block)


def test_schedule_is_a_function_of_its_seed():
    a = Schedule(POOL, [2, 4], ["classic"], seed=1).fixtures(0, 40)
    b = Schedule(POOL, [2, 4], ["classic"], seed=1).fixtures(0, 40)
    c = Schedule(POOL, [2, 4], ["classic"], seed=2).fixtures(0, 40)
    assert a == b
    assert [f.seed for f in a] != [f.seed for f in c]
    assert Schedule(POOL, [2, 4], ["classic"], seed=1).fixture(37) == a[37]  # random access equals the sequence


def test_schedule_rejects_tables_larger_than_the_pool_and_bad_counts():
    with pytest.raises(ValueError, match="4-player games need 4 distinct agents but the pool has 3"):
        Schedule(["a", "b", "c"], [2, 4], ["classic"], 0)
    with pytest.raises(ValueError, match="2..6"):
        Schedule(["a", "b"], [1], ["classic"], 0)


# ------------------------------------------------------------------------------------------- config
@pytest.mark.parametrize(
    "change, message",
    [
        ({"colour": 1}, "unknown key"),
        ({"players": [2, 7]}, "players must be whole numbers 2..6"),
        ({"players": [4]}, "4-player games need 4 distinct agents"),
        ({"games": -1}, "games must be a whole number"),
        ({"rules": ["no_such_preset"]}, "rules 'no_such_preset' for 2 players"),
        ({"pool": ["greedy", "greedy", "patient"]}, "appears twice"),
        ({"pool": [["greedy"]]}, "must be an agent spec"),
        ({"pool": []}, "pool is empty"),
    ],
)
def test_config_errors_name_the_bad_field(change, message):
    with pytest.raises(LeagueError, match=message):
        small_config(**change)


@needs_league
def test_config_missing_keys_and_unknown_agents_are_reported(tmp_path):
    with pytest.raises(LeagueError, match="missing key"):
        config_from_dict({"pool": ["greedy", "patient"], "players": [2]})
    bad = tmp_path / "bad.yaml"
    bad.write_text("pool: [greedy, wizard]\nplayers: [2]\ngames: 2\nseed: 0\n")
    with pytest.raises(LeagueError, match="wizard"):
        run_league(load_config(bad), tmp_path / "out", progress=False)
    bad.write_text("pool: [greedy, patient]\nplayers: [2]\ngames: 2\nseed: 0\n")  # fixed: the folder is usable
    assert run_league(load_config(bad), tmp_path / "out", progress=False).played == 2
    with pytest.raises(LeagueError, match="not found"):
        load_config(tmp_path / "nope.yaml")


def test_the_same_agent_can_play_under_two_names():
    cfg = small_config(pool=[{"name": "g1", "agent": "greedy"}, {"name": "g2", "agent": "greedy"}], players=[2])
    assert cfg.pool == {"g1": "greedy", "g2": "greedy"}


@needs_league
def test_shipped_league_configs_load():
    for path in sorted((ROOT / "configs" / "league").glob("*.yaml")):
        cfg = load_config(path)
        assert cfg.games > 0 and len(cfg.pool) >= max(cfg.players), path.name


def test_rules_for_player_counts_use_the_shipped_per_count_preset():
    cfg = small_config()
    assert cfg.rules_for("classic", 3).players == 3
    six = config_from_dict({"pool": list("abcdef"), "players": [6], "games": 0, "seed": 0}, name="x")
    assert six.rules_for("classic", 6).decks == 3  # classic_6p, not classic with players=6


# ------------------------------------------------------------------------------------------- ratings
def _line(g: int, seats: list[str], winner: int, points: list[int]) -> dict:
    from machiavelli_env.agents.arena import finishing_ranks

    return {"game": g, "seats": seats, "result": {"winner": winner, "penalty_points": points,
                                                  "ranks": finishing_ranks(winner, points)}}


@needs_league
def test_ratings_follow_the_finishing_order_winner_first_then_penalty_points():
    games = []
    for g in range(30):
        seats = ["a", "b", "c"] if g % 2 else ["c", "b", "a"]
        pts = {"a": 0, "b": 10, "c": 40}
        games.append(_line(g, seats, seats.index("a"), [pts[s] for s in seats]))
    r = compute_ratings(["a", "b", "c"], games)
    by = {x.name: x for x in r.agents}
    assert by["a"].mu > by["b"].mu > by["c"].mu
    assert by["a"].wins == 30 and by["b"].wins == 0 and by["a"].win_rate == 1.0
    assert r.history.shape == (31, 3, 2)
    assert [x.name for x in r.ranked()] == ["a", "b", "c"]


@needs_league
def test_ratings_treat_equal_penalty_points_as_a_tie():
    tie = compute_ratings(["a", "b"], [_line(0, ["a", "b"], -1, [5, 5])])
    assert tie.agents[0].mu == pytest.approx(tie.agents[1].mu)
    assert tie.agents[0].draws == 1


@needs_league
def test_ratings_depend_on_game_order_so_they_are_applied_in_index_order():
    games = [_line(0, ["a", "b"], 0, [0, 9]), _line(1, ["a", "b"], 1, [9, 0])]
    forward = compute_ratings(["a", "b"], games).agents[0].mu
    backward = compute_ratings(["a", "b"], games[::-1]).agents[0].mu
    assert forward != backward  # so a distributed league must sort before rating, as run_league does


# ------------------------------------------------------------------------------------------- running
@needs_league
def test_league_writes_games_ratings_and_plot(tmp_path):
    run = run_league(small_config(10), tmp_path, progress=False)
    assert run.played == 10 and run.total == 10
    lines = [json.loads(x) for x in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert [x["game"] for x in lines] == list(range(10))
    assert {"seed", "seats", "result"} <= set(lines[0]) and {"winner", "ranks", "penalty_points"} <= set(
        lines[0]["result"])
    rows = list(csv.DictReader(open(tmp_path / "ratings.csv")))
    assert list(rows[0]) == ["agent", "mu", "sigma", "ordinal", "games", "win_rate"]
    assert sorted(r["agent"] for r in rows) == ["greedy", "greedy_points", "patient"]
    assert sum(int(r["games"]) for r in rows) == sum(x["players"] for x in lines)
    ordinals = [float(r["ordinal"]) for r in rows]
    assert ordinals == sorted(ordinals, reverse=True)
    md = (tmp_path / "ratings.md").read_text()
    assert "| rank | agent | ordinal" in md and "2 players" in md
    assert (tmp_path / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@needs_league
def test_rerunning_with_more_games_resumes_and_equals_a_single_run(tmp_path):
    run_league(small_config(5), tmp_path / "a", progress=False)
    more = run_league(small_config(11), tmp_path / "a", progress=False)
    assert more.played == 6
    run_league(small_config(11), tmp_path / "b", progress=False)
    for name in ("games.jsonl", "ratings.csv"):
        assert (tmp_path / "a" / name).read_text() == (tmp_path / "b" / name).read_text()
    again = run_league(small_config(11), tmp_path / "a", progress=False)
    assert again.played == 0


@needs_league
def test_fewer_games_than_recorded_rates_the_first_ones(tmp_path):
    run_league(small_config(9), tmp_path / "a", progress=False)
    fewer = run_league(small_config(4), tmp_path / "a", progress=False)
    single = run_league(small_config(4), tmp_path / "b", progress=False)
    assert fewer.played == 0 and fewer.total == 4
    assert (tmp_path / "a" / "ratings.csv").read_text() == (tmp_path / "b" / "ratings.csv").read_text()
    assert single.total == 4


@needs_league
def test_an_interrupted_last_line_is_dropped_and_played_again(tmp_path):
    run_league(small_config(4), tmp_path, progress=False)
    path = tmp_path / "games.jsonl"
    text = path.read_text()
    path.write_text(text + text.splitlines()[0][:25])  # a write cut short
    assert len(read_games(path)) == 4
    assert path.read_text() == text
    run = run_league(small_config(6), tmp_path, progress=False)
    assert run.played == 2


@needs_league
def test_a_folder_of_another_league_is_refused(tmp_path):
    run_league(small_config(2), tmp_path, progress=False)
    with pytest.raises(LeagueError, match="another config.*seed: 3 there, 4 now"):
        run_league(small_config(4, seed=4), tmp_path, progress=False)


@needs_league
def test_edited_games_file_is_refused(tmp_path):
    run_league(small_config(3), tmp_path, progress=False)
    path = tmp_path / "games.jsonl"
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    first["seed"] += 1
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    with pytest.raises(LeagueError, match="not the scheduled one"):
        run_league(small_config(3), tmp_path, progress=False)
    path.write_text("{oops\n")
    with pytest.raises(LeagueError, match="games.jsonl:1: not a JSON line"):
        run_league(small_config(3), tmp_path, progress=False)


@needs_league
def test_league_records_replay_to_the_recorded_results(tmp_path):
    from machiavelli_env.agents.arena import replay_states
    from machiavelli_env.agents.replay import read_records

    run_league(small_config(4), tmp_path, records=tmp_path / "rec.jsonl", progress=False)
    recs = read_records(tmp_path / "rec.jsonl")
    games = [json.loads(x) for x in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert [r["game"] for r in recs] == [0, 1, 2, 3]
    for rec, line in zip(recs, games, strict=True):
        final = replay_states(rec)[-1]
        assert rec["seats"] == line["seats"] and rec["seed"] == line["seed"]
        assert final.winner == line["result"]["winner"] and final.turn == line["result"]["turns"]


@needs_league
def test_league_cli_runs_and_reports_bad_configs(tmp_path, capsys):
    cfg = tmp_path / "l.yaml"
    cfg.write_text("pool: [greedy, patient]\nplayers: [2]\ngames: 2\nseed: 0\n")
    assert cli.main(["league", "--config", str(cfg), "--out", str(tmp_path / "o"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "2 games (2 played now)" in out and "| rank | agent" in out
    cfg.write_text("pool: [greedy, patient]\nplayers: [2]\ngames: 2\n")
    assert cli.main(["league", "--config", str(cfg), "--out", str(tmp_path / "p")]) == 2
    assert "missing key(s) seed" in capsys.readouterr().err
    assert cli.main(["league", "--config", str(cfg), "--out", str(tmp_path / "p"), "--address", "auto"]) == 2
    assert "--address is for --engine ray" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------- Ray
@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    from machiavelli_env.training.ray_rollouts import ensure_ray

    ensure_ray(num_cpus=2)
    yield ray
    ray.shutdown()


def test_ray_map_returns_results_in_item_order_with_shared_arguments(local_ray):
    from machiavelli_env.training.ray_rollouts import ray_map

    seen = []
    weights = {"w": 3}  # a closure, as a PPO rollout function over policy weights would be
    assert ray_map(lambda seed, k: seed * weights["w"] + k, [3, 1, 2], 10, on_result=lambda i, r: seen.append(i)) == [
        19, 13, 16]
    assert sorted(seen) == [0, 1, 2]
    assert ray_map(operator.add, [1, 2], 5) == [6, 7]
    with pytest.raises(RuntimeError, match=r"item \[\] failed: IndexError"):
        ray_map(operator.getitem, [[1], []], 0)


@needs_league
def test_ray_engine_plays_the_same_games_and_ratings_as_local(tmp_path, local_ray):
    cfg = dict(pool=["random", "greedy", "patient"], players=[2, 3])
    run_league(small_config(9, **cfg), tmp_path / "local", progress=False)
    run_league(small_config(9, **cfg), tmp_path / "ray", engine="ray", progress=False)
    for name in ("games.jsonl", "ratings.csv", "ratings.md"):
        assert (tmp_path / "local" / name).read_text() == (tmp_path / "ray" / name).read_text(), name
