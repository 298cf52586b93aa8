"""Baseline agents, the agent registry, the arena (seat rotation, records, replay) and the eval/play CLI."""

from __future__ import annotations

import io
import json
import sys

import numpy as np
import pytest
from machiavelli_env.agents.arena import evaluate, finishing_ranks, play_game, replay_states, wilson_interval
from machiavelli_env.agents.base import DRAW, turn_from_state
from machiavelli_env.agents.heuristic import (
    GreedyAgent,
    GreedyPointsAgent,
    HoarderAgent,
    PatientAgent,
    RandomAgent,
    TempoAgent,
)
from machiavelli_env.agents.human import HumanAgent, QuitGame
from machiavelli_env.agents.registry import AgentSpecError, make_agent

from machiavelli_env import game
from machiavelli_env.cards import to_counts
from machiavelli_env.cli import main
from machiavelli_env.rules import Rules

CLASSIC = Rules.load("classic")


def _state(table: str, hand: str, rules: Rules = CLASSIC) -> game.State:
    """A two-player position: the table (melds separated by ';'), player 0's hand, player 1 holds KS KS."""
    melds = [m for m in table.split(";") if m.strip()]
    return game.new_state_from(
        rules.replace(players=2), hands=[hand, "KS KS"], table=" ".join(melds), melds=melds or None, seed=1,
    )


def test_every_baseline_returns_a_legal_action_or_a_draw_in_every_turn():
    rules = CLASSIC.replace(players=3)
    agents = [RandomAgent(1), GreedyAgent(), PatientAgent()]
    checked = 0

    def check(before, after, action):
        nonlocal checked
        assert after.event.split(":")[0] != "failed", "a baseline made a failed play"
        if not action.any():
            assert game.draw_allowed(before)
        checked += 1

    play_game(rules, agents, seed=5, on_step=check)
    assert checked > 10


def test_greedy_plays_a_max_cards_play_and_greedy_points_a_max_points_play():
    pts = np.array([CLASSIC.card_points(c) for c in range(53)])
    for table, hand in [("", "AH 2H 3H AS AD 9C"), ("7S 7H 7D;9S 10S JS", "7C 8S QS AS 2C 3C KD KH"),
                        ("4D 5D 6D", "3D 7D 8D 8C 8H AD 2D")]:
        turn = turn_from_state(_state(table, hand), limit=10**6)
        plays = turn.legal_plays
        assert plays, (table, hand)
        cards, points = GreedyAgent().act(turn), GreedyPointsAgent().act(turn)
        assert any(np.array_equal(cards, p) for p in plays) and any(np.array_equal(points, p) for p in plays)
        assert cards.sum() == max(p.sum() for p in plays)
        assert points @ pts == max(p @ pts for p in plays)


def test_a_turn_arranges_the_table_only_when_its_melds_are_read():
    before = _state("4D 5D 6D;7S 7H 7C", "3D 7D QS")
    play = GreedyAgent().act(turn_from_state(before))
    after = game.step(before, play)
    assert game._raw_melds(after) is None  # a known-legal play leaves the arrangement to be made
    turn = turn_from_state(after)
    GreedyAgent().act(turn)
    assert game._raw_melds(after) is None, "an agent that never reads the melds made the table be arranged"
    melds = turn.melds
    assert melds == after.melds and sorted(c for m in melds for c in m) == sorted(
        c for c in range(53) for _ in range(int(after.table[c])))


def test_greedy_draws_when_no_play_exists():
    s = _state("", "2S 7H 9D KC")
    assert not GreedyAgent().act(turn_from_state(s)).any()


def test_patient_holds_back_a_small_play_and_plays_a_big_one():
    small = _state("", "3H 4H 5H 9C 10D JS QS KD 2C AD 7S 8C")
    assert not PatientAgent(min_cards=4, danger=0).act(turn_from_state(small)).any()
    assert PatientAgent(min_cards=3, danger=0).act(turn_from_state(small)).sum() == 3


def test_patient_plays_when_an_opponent_is_close_to_going_out():
    s = _state("", "3H 4H 5H 9C 10D JS QS KD 2C AD 7S 8C")  # opponent holds 2 cards
    assert PatientAgent(min_cards=10, danger=2).act(turn_from_state(s)).sum() == 3
    assert not PatientAgent(min_cards=10, danger=1).act(turn_from_state(s)).any()


def test_patient_goes_out_even_with_a_small_play():
    s = _state("", "3H 4H 5H")
    assert PatientAgent(min_cards=10, danger=0).act(turn_from_state(s)).sum() == 3


def test_hoarder_draws_until_it_can_go_out():
    s = _state("", "3H 4H 5H 9C 10D JS QS KD 2C AD 7S 8C")
    assert not HoarderAgent().act(turn_from_state(s)).any()  # 3H 4H 5H alone would not empty the hand
    assert HoarderAgent().act(turn_from_state(_state("7S 8S 9S", "3H 4H 5H 10S"))).sum() == 4


def test_hoarder_plays_when_an_opponent_is_close_or_the_stock_is_empty():
    from dataclasses import replace

    s = _state("", "3H 4H 5H 9C 10D JS QS KD 2C AD 7S 8C")  # opponent holds 2 cards
    assert HoarderAgent(danger=2).act(turn_from_state(s)).sum() == 3
    empty = replace(s, stock=s.stock[:0])
    assert HoarderAgent().act(turn_from_state(empty)).sum() == 3
    with pytest.raises(ValueError, match="hoarder needs danger >= 0"):
        make_agent("hoarder[danger=-1]")


@pytest.mark.parametrize("preset", ["classic", "jokers2", "opening_points36", "spanish_maquiavelo_help"])
def test_hoarder_acts_as_the_max_cards_rule_it_states(preset):
    # HoarderAgent asks one repack of the whole hand instead of the max-cards play: the actions
    # must be those of PatientAgent with no play big enough short of going out
    rules = Rules.load(preset)
    rule = PatientAgent(min_cards=sys.maxsize, danger=0)
    seen = 0
    for g in range(2):
        agents = [make_agent(k, rules, seed=g) for k in ("hoarder", "random")]
        state = game.new_game(rules, 4100 + g)
        while not state.done:
            turn = turn_from_state(state)
            action = agents[state.current].act(turn)
            if state.current == 0:
                assert np.array_equal(action, rule.act(turn_from_state(state)))
                seen += 1
            state = game.step(state, np.asarray(action, dtype=np.int64))
    assert seen > 20


def _five(stock: str, opened: bool = False, hand: str = "3H 4H 5H 6H 9C 10D JS QS KD 2C AD 7S 8C") -> game.State:
    """Five players, player 0 to move with ``hand``, an empty table and ``stock`` (top first)."""
    return game.new_state_from(Rules.load("classic_5p"), [hand, "KS KS", "QD QD", "2S 2S", "9H 9H"], "",
                               stock=stock, opened=[False] + [opened] * 4)


def test_tempo_lays_down_its_smallest_play_until_the_next_seat_draws_the_last_card():
    # 3 cards left: if everybody drew, player 2 would draw the last one; laying down moves it to player 1
    play = TempoAgent().act(turn_from_state(_five("2H 3D 4C")))
    assert game.format_cards(game.from_counts(play)) == "4H 5H 6H"  # three cards, the most points
    assert not TempoAgent().act(turn_from_state(_five("2H 3D"))).any()  # player 1 draws the last card: draw
    assert not TempoAgent(last=2).act(turn_from_state(_five("2H 3D 4C"))).any()
    assert not TempoAgent(last=0).act(turn_from_state(_five("2H 3D 4C"))).any()


def test_tempo_draws_once_an_opponent_has_laid_down_and_holds_back_with_an_empty_stock():
    assert not TempoAgent().act(turn_from_state(_five("2H 3D 4C", opened=True))).any()
    assert not TempoAgent().act(turn_from_state(_five(""))).any()  # with an empty stock: pass, keep the cards
    assert TempoAgent().act(turn_from_state(_five("", hand="3H 4H 5H 6H"))).sum() == 4  # goes out
    with pytest.raises(ValueError, match="tempo needs last >= 0"):
        make_agent("tempo[last=-1]")


def test_random_agent_only_chooses_among_legal_plays_and_draw_and_is_seeded():
    s = _state("7S 7H 7D", "7C 8C 9C 10C KD")
    turn = turn_from_state(s, limit=64)
    legal = {tuple(p) for p in turn.legal_plays} | {tuple(DRAW)}
    picks = [tuple(RandomAgent(seed).act(turn_from_state(s, limit=64))) for seed in range(40)]
    assert set(picks) <= legal
    assert len(set(picks)) > 2
    again = [tuple(RandomAgent(seed).act(turn_from_state(s, limit=64))) for seed in range(40)]
    assert picks == again


def test_registry_builds_every_heuristic_and_names_bad_specs():
    for name in ("random", "greedy", "greedy_points", "patient", "patient[min_cards=4,danger=2]", "hoarder",
                 "hoarder[danger=3]", "tempo", "tempo[last=2]"):
        assert make_agent(name).name == name
    with pytest.raises(AgentSpecError, match="unknown agent 'grredy'"):
        make_agent("grredy")
    with pytest.raises(AgentSpecError, match="only ppo takes a path"):
        make_agent("greedy:foo.pt")
    with pytest.raises(AgentSpecError, match="name=integer"):
        make_agent("patient[min_cards]")
    with pytest.raises(AgentSpecError, match="patient"):
        make_agent("patient[speed=3]")


def test_finishing_ranks_put_the_winner_first_then_fewest_penalty_points_with_ties_shared():
    assert finishing_ranks(2, [10, 5, 30, 5]) == [3, 1, 0, 1]
    assert finishing_ranks(-1, [4, 4, 1]) == [1, 1, 0]


def test_wilson_interval_matches_known_values():
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(10, 10)
    assert hi == pytest.approx(1.0) and lo == pytest.approx(0.7225, abs=1e-3)


def test_evaluate_rotates_seats_so_identical_agents_split_evenly():
    rules = CLASSIC.replace(players=2)
    report = evaluate([GreedyAgent(), GreedyAgent()], rules, games=10, seed=3)
    a, b = report["agents"]
    # the same deal is played from both seats by identical deterministic agents: results mirror
    assert a["wins"] == b["wins"]
    assert a["mean_penalty_points"] == pytest.approx(b["mean_penalty_points"])


def test_evaluate_is_reproducible_from_its_seed():
    rules = CLASSIC.replace(players=3)

    def run(seed):
        return evaluate([RandomAgent(), GreedyAgent(), PatientAgent()], rules, games=6, seed=seed)

    assert run(11) == run(11)
    assert run(11) != run(12)


def test_game_records_replay_to_the_same_result():
    rules = CLASSIC.replace(players=3, jokers=2)
    res = play_game(rules, [RandomAgent(1), GreedyAgent(), PatientAgent()], seed=9, record=True)
    rec = json.loads(json.dumps(res.record))
    states = replay_states(rec)
    assert states[-1].done and states[-1].winner == res.winner
    assert len(states) == len(rec["moves"]) + 1
    rec["moves"][3]["action"] = "AS AS AS"
    with pytest.raises(ValueError, match="move 3"):
        replay_states(rec)


def test_eval_cli_prints_the_documented_json(capsys, tmp_path):
    records = tmp_path / "games.jsonl"
    rc = main(["eval", "--agents", "greedy,random", "--games", "4", "--seed", "2", "--json", "--records", str(records)])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 4
    assert [a["name"] for a in out["agents"]] == ["greedy", "random"]
    for a in out["agents"]:
        assert set(a) >= {"name", "wins", "draws", "win_rate", "ci95", "mean_penalty_points"}
        assert 0 <= a["ci95"][0] <= a["win_rate"] <= a["ci95"][1] <= 1
    lines = records.read_text().splitlines()
    assert len(lines) == 4 and replay_states(json.loads(lines[0]))


def test_eval_cli_rejects_bad_agents_and_counts(capsys):
    assert main(["eval", "--agents", "greedy,nobody", "--games", "2"]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err
    assert main(["eval", "--agents", "greedy,random", "--players", "3", "--games", "2"]) == 2
    assert "one agent per seat" in capsys.readouterr().err
    assert main(["eval", "--agents", "greedy,random", "--games", "0"]) == 2


def _human(lines: str) -> tuple[HumanAgent, io.StringIO]:
    out = io.StringIO()
    return HumanAgent(stdin=io.StringIO(lines), stdout=out, color=False), out


def test_human_agent_explains_typos_missing_cards_and_illegal_plays_then_plays():
    s = _state("7S 7H 7D", "7C 8C 9C 10C KD")
    agent, out = _human("7X\n7C 7C\n8C 9C\nhint\n7C\n")
    play = agent.act(turn_from_state(s))
    text = out.getvalue()
    assert "not understood" in text and "7X" in text
    assert "you do not hold: 7C" in text
    assert "cannot be arranged" in text
    assert "hint: " in text
    assert np.array_equal(play, to_counts("7C"))


def test_human_agent_draws_on_enter_forces_with_bang_and_quits():
    s = _state("7S 7H 7D", "7C 8C 9C 10C KD")
    agent, _ = _human("\n")
    assert not agent.act(turn_from_state(s)).any()
    agent, _ = _human("8C 9C!\n")
    assert np.array_equal(agent.act(turn_from_state(s)), to_counts("8C 9C"))
    agent, _ = _human("quit\n")
    with pytest.raises(QuitGame):
        agent.act(turn_from_state(s))


def test_play_cli_runs_a_game_against_a_bot_from_scripted_input(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("help\n" + "draw\n" * 200))
    rc = main(["play", "--opponents", "greedy", "--seed", "4", "--no-color"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "you are player_0" in out and "won" in out or "no winner" in out


def test_a_bounded_list_that_gives_up_offers_the_max_cards_play_when_drawing_is_not_allowed() -> None:
    import importlib.util

    from machiavelli_env import legal

    rules = Rules.load("must_play")
    nothing = legal.ListBudget(nodes=1, question_work=1, by_card_work=1, points_work=1, total_work=1)
    names = ["random"] + (["ppo"] if importlib.util.find_spec("torch") else [])
    checked = 0
    for seed in range(4):
        state = game.new_game(rules, seed)
        greedy = make_agent("greedy", rules)
        while not state.done and checked < 12:
            p = state.current
            turn = turn_from_state(state, list_budget=nothing)
            bounded = game.legal_plays(state, p, 32, nothing)
            if not turn.draw_allowed and not bounded:  # the budget gave up before finding a play
                plays = turn.legal_plays
                assert plays and all(turn.is_legal(x) for x in plays)
                best = game.best_play(state, p, "cards")  # one exact question, not the exact list
                if best.any():
                    assert [x.tobytes() for x in plays] == [best.tobytes()]
                for name in names:
                    action = make_agent(name, rules, seed=seed).act(turn_from_state(state, list_budget=nothing))
                    game.check_action(state, action)  # a legal play, not a draw
                checked += 1
            state = game.step(state, greedy.act(turn_from_state(state)))
    assert checked >= 12
