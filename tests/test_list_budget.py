"""Bounded legal-play lists (legal.ListBudget) and the capped oracle questions behind them."""

from __future__ import annotations

import numpy as np
import pytest
from game_positions import crowded_positions
from machiavelli_env.agents.base import DRAW, turn_from_state
from machiavelli_env.agents.registry import make_agent

from machiavelli_env import game, legal, oracle
from machiavelli_env.cards import to_counts
from machiavelli_env.oracle import dp, pipeline
from machiavelli_env.oracle.question import BOX, Question, capped
from machiavelli_env.rules import Rules

ROOMY = legal.ListBudget(nodes=10**9, question_work=10**9, by_card_work=10**9, points_work=10**9, total_work=10**12)
TIGHT = legal.ListBudget(nodes=12, question_work=40, by_card_work=300, points_work=100)


def _positions(preset: str, seed: int) -> list[tuple[np.ndarray, np.ndarray, Rules]]:
    return crowded_positions(preset, games=2, seed=seed, other="hoarder", every=3, min_table=12)


def _keys(plays: list[np.ndarray]) -> list[bytes]:
    return [p.tobytes() for p in plays]


@pytest.mark.parametrize("preset", ["classic", "jokers2", "opening_points36"])
def test_a_budget_with_room_to_spare_lists_exactly_the_unbounded_list(preset: str) -> None:
    positions = _positions(preset, seed=6100)
    assert len(positions) >= 10
    for table, hand, rules in positions:
        for limit in (4, 32):
            legal.clear_caches()
            exact = legal.legal_plays(table, hand, rules, limit=limit)
            legal.clear_caches()
            assert _keys(legal.legal_plays(table, hand, rules, limit=limit, budget=ROOMY)) == _keys(exact)


def test_a_budget_with_room_to_spare_lists_exactly_with_help_cards() -> None:
    rules = Rules.load("help_cards")
    checked = 0
    for seed in (6200, 6201):
        state = game.new_game(rules, seed)
        while not state.done and checked < 40:
            p = state.current
            help_ = state.help if game.help_usable(state, p) else None
            args = (state.table, state.hands[p], rules)
            exact = legal.legal_plays(*args, opened=bool(state.opened[p]), limit=32, help=help_)
            legal.clear_caches()
            roomy = legal.legal_plays(*args, opened=bool(state.opened[p]), limit=32, help=help_, budget=ROOMY)
            assert _keys(roomy) == _keys(exact)
            checked += help_ is not None
            play = exact[0] if exact else np.zeros(53, dtype=np.int64)
            state = game.step(state, play)
    assert checked >= 10


@pytest.mark.parametrize("preset", ["classic", "jokers2", "spanish_comodines", "opening_group"])
def test_a_tight_budget_lists_distinct_legal_plays_in_the_documented_order(preset: str) -> None:
    shorter = 0
    for table, hand, rules in _positions(preset, seed=6300):
        legal.clear_caches()
        plays = legal.legal_plays(table, hand, rules, limit=32, budget=TIGHT)
        exact = legal.legal_plays(table, hand, rules, limit=32)
        assert len(set(_keys(plays))) == len(plays) <= 32
        for p in plays:
            assert (p <= hand).all() and p.any()
            assert legal.arrange_play(table, hand, p, rules) is not None
        points = legal.rules_info(rules).points
        order = [(-int(p.sum()), -int(points @ p), (-p).tolist()) for p in plays]
        assert order == sorted(order)
        shorter += len(plays) < len(exact)
    assert shorter > 0  # the budget binds on these positions: a bound that never bites fails here


def test_a_budgeted_list_does_not_depend_on_the_questions_asked_before() -> None:
    positions = _positions("jokers2", seed=6400)
    budget = legal.ListBudget(nodes=30, question_work=200, by_card_work=2_000, points_work=800)

    def lists() -> list[list[bytes]]:
        return [_keys(legal.legal_plays(t, h, r, limit=16, budget=budget)) for t, h, r in positions]

    legal.clear_caches()
    dp._dp.clear_caches()
    first = lists()
    # another history: exact lists and best plays in the reverse order, caches kept
    for t, h, r in positions[::-1]:
        legal.legal_plays(t, h, r, limit=8)
        legal.best_play(t, h, r)
    legal.clear_caches()
    assert lists() == first


def test_list_budget_rejects_what_is_not_a_positive_count() -> None:
    with pytest.raises(ValueError, match="ListBudget.nodes must be a positive integer"):
        legal.ListBudget(nodes=0)
    with pytest.raises(ValueError, match="ListBudget.question_work"):
        legal.ListBudget(question_work=2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="ListBudget.points_work"):
        legal.ListBudget(points_work=True)
    table, hand, rules = _positions("classic", seed=6500)[0]
    with pytest.raises(TypeError, match="budget must be a ListBudget"):
        legal.legal_plays(table, hand, rules, budget=100)  # type: ignore[arg-type]


def test_capped_questions_answer_as_the_exact_oracle_or_give_up() -> None:
    gave_up = 0
    for table, hand, rules in _positions("jokers2", seed=6600)[:12]:
        hi = table + hand
        w = oracle.objective_weights("cards", rules)
        exact = oracle.solve(table, hi, w, rules)
        assert oracle.solve_within(table, hi, w, rules, 10**9).value == exact.value
        by_card = {c: p.counts for c, p in oracle.best_plays_by_card(table, hand, rules).items()}
        within = oracle.best_plays_by_card_within(table, hi, rules, 10**9)
        assert sorted(within) == sorted(by_card)
        assert all(int(within[c].sum()) == int(by_card[c].sum()) for c in by_card)
        with pytest.raises(oracle.WorkLimitReached):
            oracle.solve_within(table, hi, w, rules, 1)
        try:
            oracle.best_plays_by_card_within(table, hi, rules, 1)
        except oracle.WorkLimitReached:
            gave_up += 1
        before = oracle.search_work()
        oracle.solve_within(table, hi, w, rules, 10**9)
        assert oracle.search_work() > before
    assert gave_up >= 6


# a 57-card joker table and a 47-card hand where one stage of the forward pass holds tens of thousands of
# entries: a best-plays-by-card question capped at 10,000 units had run to 55,292 before giving up
_BIG_STAGE = (
    "AS 2S 3S 3S 4S 4S 5S 5S 6S 6S 7S 8S 9S 10S 10S JS AH 2H 2H 3H 5H 6H 7H 8H 9H 10H 10H AD 2D 3D 4D 5D 7D "
    "7D 8D 9D 10D JD KD KD AC 3C 4C 6C 6C 7C 8C 8C 9C 9C 10C 10C JC KC KC JK JK",
    "AS 2S 7S 8S 9S JS QS QS KS KS AH 3H 4H 4H 6H 7H 8H 9H JH JH QH KH KH 2D 3D 4D 5D 6D 6D 8D 9D 10D JD QD "
    "QD AC 2C 2C 3C 5C 5C 7C JC QC QC JK JK",
)


def test_a_capped_question_gives_up_close_to_its_cap_and_a_list_close_to_its_total() -> None:
    rules = Rules.load("classic_jokers")
    table, hand = (to_counts(text) for text in _BIG_STAGE)
    for cap in (600, 3_000, 10_000):
        before = dp.work()
        with pytest.raises(oracle.WorkLimitReached):
            oracle.best_plays_by_card_within(table, table + hand, rules, cap)
        assert cap < dp.work() - before <= cap + 100  # the entries of one expansion past the cap at most
    budget = legal.ListBudget()
    legal.clear_caches()
    before = dp.work()
    legal.legal_plays(table, hand, rules, limit=32, budget=budget)
    assert dp.work() - before <= budget.total_work + 100


def _capped(lo: np.ndarray, hi: np.ndarray, w: np.ndarray, rules: Rules) -> object:
    """The box question capped at 10**9 work, the relaxation charged from a fresh start."""
    return pipeline.answer(Question(BOX, lo, hi, w, rules), capped(10**9))


def test_capped_questions_count_the_relaxation_the_same_after_any_history() -> None:
    # on joker tables the per-suit relaxation can cost more than the search it bounds: a capped
    # question's work counts both, computed afresh, so the count depends on the question alone
    charged = 0
    for table, hand, rules in _positions("jokers2", seed=6600)[:12]:
        ace, mjpm, decks, jokers = dp.rules_params(rules)
        c = int(np.flatnonzero(hand)[0])
        lo = table.copy()
        lo[c] += 1  # a branch question: some play holding card c
        hi = table + hand
        for w in (np.zeros(53, dtype=np.int64), oracle.objective_weights("cards", rules)):
            before = dp.work()
            capped = _capped(lo, hi, w, rules)
            total = dp.work() - before
            before = dp.work()
            plain = dp._dp.solve(lo, hi, w, ace, mjpm, 0, 0, decks, jokers, 10**9)  # not charged
            search = dp.work() - before
            assert (plain is None) == (capped is None)
            if plain is not None:
                assert plain[0] == capped[0]
            assert total >= search
            charged += total > search
            legal.legal_plays(table, hand, rules, limit=8)  # other questions fill the kept relaxation
            legal.best_play(table, hand, rules)
            before = dp.work()
            _capped(lo, hi, w, rules)
            assert dp.work() - before == total
    assert charged >= 12


def _asked(question, *args, **kwargs) -> tuple[object, int]:
    """A capped question's answer (counts as a list, None, or "gave up") and the work it took."""
    before = oracle.search_work()
    try:
        got = question(*args, **kwargs)
    except oracle.WorkLimitReached:
        return "gave up", oracle.search_work() - before
    counts = None if got is None else np.asarray(getattr(got, "counts", got)).tolist()
    return counts, oracle.search_work() - before


@pytest.mark.parametrize("preset", ["jokers2", "opening_points36"])
def test_feasible_within_answers_and_gives_up_as_solve_within(preset: str) -> None:
    zero = np.zeros(53, dtype=np.int64)
    compared = gave_up = 0
    for table, hand, rules in _positions(preset, seed=6700)[:10]:
        boxes = []
        for c in np.flatnonzero(hand)[:4]:
            lo = table.copy()
            lo[c] += 1
            boxes.append((lo, table + hand, {}))
        if rules.opening_points:  # an opening question: hand cards only, not mirrored
            boxes.append((zero, hand, {"min_open_points": rules.opening_points}))
        for lo, hi, kw in boxes:
            for cap in (30, 10**9):
                within = _asked(oracle.feasible_within, lo, hi, rules, cap, **kw)
                solved = _asked(oracle.solve_within, lo, hi, zero, rules, cap, sweep="down", arrange=False, **kw)
                assert within == solved
                compared += 1
                gave_up += within[0] == "gave up"
    assert compared >= 40 and gave_up > 0


def test_candidate_wrappers_list_the_budgeted_plays() -> None:
    from pettingzoo.test import api_test

    import machiavelli_env
    from machiavelli_env.wrappers import CandidatePlays, SingleAgentEnv

    budget = legal.ListBudget(nodes=20, question_work=200)
    env = CandidatePlays(machiavelli_env.env(), 16, budget=budget)
    env.reset(seed=5)
    state = env.unwrapped.game_state
    expected = game.legal_plays(state, state.current, 16, budget)
    assert _keys(env.candidates()) == _keys(expected)
    api_test(CandidatePlays(machiavelli_env.env(), 16, budget=budget), num_cycles=20)
    with pytest.raises(TypeError, match="budget must be a legal.ListBudget"):
        CandidatePlays(machiavelli_env.env(), 16, budget={"nodes": 20})  # type: ignore[arg-type]

    single = SingleAgentEnv({"candidates": 16, "list_budget": {"nodes": 20, "question_work": 200}})
    assert single.list_budget == budget
    single.reset(seed=5)
    s = single.state
    assert _keys(single.legal_plays()) == _keys(game.legal_plays(s, single.seat, 16, budget))
    with pytest.raises(ValueError, match="list_budget has no field 'node'"):
        SingleAgentEnv(candidates=16, list_budget={"node": 20})


def test_going_out_is_listed_even_when_the_budget_leaves_everything_else_out() -> None:
    from machiavelli_env.cards import to_counts

    rules = Rules.load("classic")
    table, hand = to_counts("7S 8S 9S KH KC KD"), to_counts("3H 4H 5H 10S JS QS 5C 5D 5S")
    starved = legal.ListBudget(nodes=1, by_card_work=1, points_work=1)
    plays = legal.legal_plays(table, hand, rules, limit=32, budget=starved)
    assert [p.tobytes() for p in plays] == [hand.tobytes()]
    assert legal.arrange_play(table, hand, hand, rules) is not None
    # a hand that cannot go out: nothing is claimed for it
    stuck = hand.copy()
    stuck[to_counts("2C").argmax()] += 1
    assert all(int(p.sum()) < int(stuck.sum()) for p in legal.legal_plays(table, stuck, rules, budget=starved))


def test_eval_plays_on_bounded_lists_when_asked(capsys) -> None:
    import json

    from machiavelli_env.cli import main

    argv = ["eval", "--agents", "random,greedy", "--games", "4", "--seed", "3", "--json"]
    assert main([*argv, "--list-budget", '{"nodes": 3, "by_card_work": 50}']) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["list_budget"]["nodes"] == 3 and report["games"] == 4
    assert main(argv) == 0
    assert "list_budget" not in json.loads(capsys.readouterr().out)
    assert main([*argv, "--list-budget", '{"node": 3}']) == 2
    assert "--list-budget" in capsys.readouterr().err


def _crowded_turn() -> tuple[game.State, legal.ListBudget]:
    """A classic position whose exact list and PLAY_LIST_BUDGET list differ."""
    from machiavelli_env.agents.base import PLAY_LIST_BUDGET

    rules = Rules.load("classic")
    for seed in range(40):
        state = game.new_game(rules, seed)
        greedy = [make_agent("greedy", rules) for _ in range(rules.players)]
        while not state.done:
            p = state.current
            exact = game.legal_plays(state, p, 32)
            bounded = game.legal_plays(state, p, 32, PLAY_LIST_BUDGET)
            if _keys(exact) != _keys(bounded) and bounded:
                return state, PLAY_LIST_BUDGET
            state = game.step(state, greedy[p].act(turn_from_state(state)))
    raise AssertionError("no position where the default budget changes the list")


def test_random_and_ppo_read_exact_lists_unless_built_with_exact_lists_off() -> None:
    import importlib.util

    state, budget = _crowded_turn()
    p = state.current
    bounded = _keys(game.legal_plays(state, p, 32, budget))
    names = ["random"] + (["ppo"] if importlib.util.find_spec("torch") else [])
    for name in names:
        for agent in (make_agent(name, state.rules, seed=1, exact_lists=False),
                      make_agent(f"{name}[exact_lists=0]", state.rules, seed=1)):
            turn = turn_from_state(state)
            action = agent.act(turn)
            assert turn.list_budget == budget and _keys(turn.legal_plays) == bounded
            assert not action.any() or action.tobytes() in bounded
        exact_turn = turn_from_state(state)
        for agent in (make_agent(name, state.rules, seed=1),
                      make_agent(f"{name}[exact_lists=1]", state.rules, seed=1)):
            agent.act(exact_turn)
            assert exact_turn.list_budget is None
        assert _keys(exact_turn.legal_plays) == _keys(game.legal_plays(state, p, 32))
        own = legal.ListBudget(nodes=5)
        chosen = turn_from_state(state, list_budget=own)  # a turn's own budget comes first
        make_agent(name, state.rules, seed=1).act(chosen)
        assert chosen.list_budget == own
    with pytest.raises(ValueError, match="exact_lists must be 0 or 1"):
        make_agent("random[exact_lists=2]")


def test_random_picks_only_from_the_bounded_list_or_draws() -> None:
    state, budget = _crowded_turn()
    allowed = _keys(game.legal_plays(state, state.current, 32, budget)) + [DRAW.tobytes()]
    picks = {make_agent("random[exact_lists=0]", state.rules, seed=s).act(turn_from_state(state)).tobytes()
             for s in range(30)}
    assert picks <= set(allowed) and len(picks) > 1


def test_league_config_exact_lists_reaches_the_agents() -> None:
    from machiavelli_env.training import league

    cfg = league.config_from_dict({"pool": ["random", "greedy"], "players": [2], "games": 2, "seed": 0,
                                   "exact_lists": True})
    rules = cfg.rules_for("classic", 2)
    assert league._agent("random", "random", rules, cfg.exact_lists).list_budget is None
    assert league._agent("random", "random", rules, False).list_budget is not None
    default = league.config_from_dict({"pool": ["random", "greedy"], "players": [2], "games": 2, "seed": 0})
    assert default.exact_lists is True  # the names' one meaning, as in eval
    with pytest.raises(league.LeagueError, match="exact_lists must be true or false"):
        league.config_from_dict({"pool": ["random"], "players": [2], "games": 2, "seed": 0, "exact_lists": "yes"})
