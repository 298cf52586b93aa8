"""The extension's enumeration of a legal-play list gives what the Python enumeration gives.

``legal._C_ENUMERATION`` runs a list's depth-first pass (and, with help cards, the search for the
groups that hold the help copies) in the extension; False runs the Python pass. Bounded lists must
list the same plays in the same order after the same oracle work; exact lists the same plays in the
same order (the extension asks the LP relaxation first, so its questions differ). On every kind of
position: crowded tables, big hands, jokers, opening requirements, help cards, tight and default
budgets, and joker lists short enough to skip the per-card pass.
"""

from __future__ import annotations

import numpy as np
import pytest
from game_positions import big_hand_positions, crowded_positions
from machiavelli_env.agents.base import PLAY_LIST_BUDGET, turn_from_state
from machiavelli_env.agents.registry import make_agent

from machiavelli_env import game, legal, oracle
from machiavelli_env.oracle import dp
from machiavelli_env.rules import Rules

TIGHT = legal.ListBudget(nodes=7, question_work=50, by_card_work=300, points_work=100, total_work=900)
WIDE = legal.ListBudget(nodes=200, question_work=2_000, total_work=60_000)
BUDGETS = (PLAY_LIST_BUDGET, TIGHT, WIDE)
ENUMERATED: list[int] = []  # a list whose pass the extension ran (some lists need no pass)


def _both(monkeypatch: pytest.MonkeyPatch, *args, **kwargs) -> tuple[tuple[list[bytes], int], ...]:
    """(plays, work) of the same list from the extension's pass and from the Python one, each from
    cleared list caches."""
    out = []
    calls = []
    real = oracle.api.enumerate_plays_within
    monkeypatch.setattr(oracle.api, "enumerate_plays_within", lambda *a, **k: calls.append(1) or real(*a, **k))
    for in_c in (True, False):
        monkeypatch.setattr(legal, "_C_ENUMERATION", in_c)
        legal.clear_caches()
        before = dp.work()
        plays = legal.legal_plays(*args, **kwargs)
        out.append(([p.tobytes() for p in plays], dp.work() - before))
        if not in_c:
            assert not calls  # the Python pass asked the extension for none
        elif len(calls) == 1:
            ENUMERATED.append(1)
        calls.clear()
    monkeypatch.setattr(oracle.api, "enumerate_plays_within", real)
    return tuple(out)


@pytest.mark.parametrize("preset", ["classic", "jokers2", "ace_both_ends", "ace_wrap"])
def test_the_extension_lists_what_the_python_enumeration_lists_on_crowded_tables(
    monkeypatch: pytest.MonkeyPatch, preset: str
) -> None:
    positions = crowded_positions(preset, games=2, seed=6300, other="hoarder", every=3, min_table=12)
    assert len(positions) >= 5
    bound = 0
    ENUMERATED.clear()
    for table, hand, rules in positions:
        for limit in (32, 6):
            exact = [p.tobytes() for p in legal.legal_plays(table, hand, rules, limit=limit)]
            for budget in BUDGETS:
                c, py = _both(monkeypatch, table, hand, rules, limit=limit, budget=budget)
                assert c == py
                bound += c[0] != exact
    assert bound > 0  # some budget binds: the pass's give-up paths are compared too
    assert ENUMERATED


@pytest.mark.parametrize("preset", ["opening_points36", "opening_group", "help_cards", "spanish_maquiavelo_help"])
def test_the_extension_lists_what_the_python_enumeration_lists_for_openings_and_help_cards(
    monkeypatch: pytest.MonkeyPatch, preset: str
) -> None:
    rules = Rules.load(preset)
    kinds = ["greedy", "random", "hoarder"][: rules.players]
    agents = [make_agent(kind, rules, seed=i) for i, kind in enumerate(kinds)]
    unopened = with_help = 0
    ENUMERATED.clear()
    for seed in (7200, 7201):
        state = game.new_game(rules, seed)
        moves = 0
        while not state.done and moves < 90:
            p = state.current
            if moves % 2 == 0:
                help_ = state.help if game.help_usable(state, p) else None
                unopened += not state.opened[p]
                with_help += help_ is not None and bool(help_.any())
                for budget in (PLAY_LIST_BUDGET, TIGHT, None):
                    c, py = _both(monkeypatch, state.table, state.hands[p], rules, opened=bool(state.opened[p]),
                                  limit=32, help=help_, budget=budget)
                    # bounded lists: the same plays after the same work; exact lists: the same plays
                    assert c == py if budget is not None else c[0] == py[0]
            monkeypatch.setattr(legal, "_C_ENUMERATION", True)
            state = game.step(state, np.asarray(agents[p].act(turn_from_state(state, p)), dtype=np.int64))
            moves += 1
    assert unopened > 0
    assert ENUMERATED
    if "help" in preset:
        assert with_help >= 5


def test_the_extensions_enumeration_rejects_bad_arguments() -> None:
    rules = Rules.load("classic")
    zero = np.zeros(53, dtype=np.int64)
    common = dict(max_nodes=5, question_work=10, left=100, fresh=False, limit=4, asked=False, guaranteed=[],
                  points=lambda left, fresh: (None, left, fresh))
    with pytest.raises(ValueError, match="types must be card indices"):
        oracle.api.enumerate_plays_within(zero, zero, [53], zero, rules, **common)
    with pytest.raises(ValueError, match="must be 53 integers"):
        oracle.api.enumerate_plays_within(zero[:5], zero, [0], zero, rules, **common)
    with pytest.raises(TypeError, match="points must be callable"):
        oracle.api.enumerate_plays_within(zero, zero, [0], zero, rules, **{**common, "points": None})


def _exact_both(monkeypatch: pytest.MonkeyPatch, *args, **kwargs) -> tuple[list[bytes], list[bytes]]:
    """The same exact list from the extension's pass and from the Python one (their questions, and so
    their work, differ: the extension asks the LP relaxation first)."""
    (c, _), (py, _) = _both(monkeypatch, *args, **kwargs)
    monkeypatch.setattr(legal, "_C_ENUMERATION", True)
    return c, py


@pytest.mark.parametrize("preset", ["classic", "classic_jokers", "spanish_comodines", "ace_wrap", "jokers2"])
def test_exact_lists_from_the_extension_equal_the_python_enumeration(monkeypatch: pytest.MonkeyPatch,
                                                                    preset: str) -> None:
    # crowded tables and big hands, so that lists are full, questions reach the LP and the rest of
    # the oracle's schedule, and joker lists take the short pass as well as the per-card one
    positions = big_hand_positions(preset, games=2, seed=6400, extra=6)
    assert len(positions) >= 4
    calls = []
    real_short = legal._short_list
    monkeypatch.setattr(legal, "_short_list", lambda *a: calls.append(1) or real_short(*a))
    full = 0
    for table, hand, rules in positions:
        for limit in (32, 6):
            # the extension's whole list, the Python steps around the extension's pass, the Python pass
            c, py = _exact_both(monkeypatch, table, hand, rules, limit=limit)
            monkeypatch.setattr(legal, "_C_LIST", False)
            legal.clear_caches()
            steps = [p.tobytes() for p in legal.legal_plays(table, hand, rules, limit=limit)]
            monkeypatch.setattr(legal, "_C_LIST", True)
            assert c == py == steps
            full += len(c) == limit
    assert full > 0
    # lists of hands of few card types try the short pass first (counted on the Python steps)
    most = legal._SHORT_FIRST if Rules.load(preset).jokers else legal._SHORT_FIRST_NO_JOKERS
    short = [np.count_nonzero(hand) <= most for _, hand, _ in positions]
    assert len(calls) == 2 * sum(short)  # two limits, the extension's pass only


def test_a_short_joker_list_is_every_legal_play_and_a_long_one_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    # the short pass lists every play when they fit in the list, and gives up (None) when they do
    # not; either way legal_plays gives what the per-card path gives
    positions = big_hand_positions("classic_jokers", games=1, seed=6500, extra=3, every=2)
    short = fell_back = 0
    for table, hand, rules in positions:
        for limit in (32, 4):
            legal.clear_caches()
            got = legal._short_list(table, hand, rules, legal.rules_info(rules), limit)
            monkeypatch.setattr(legal, "_SHORT_FIRST", 0)  # the per-card path in both passes
            c, py = _exact_both(monkeypatch, table, hand, rules, limit=limit)
            monkeypatch.undo()
            assert c == py
            if got is None:
                fell_back += 1
                assert len(c) == limit
            else:
                short += 1
                assert [p.tobytes() for p in got] == c and len(c) <= limit
    assert short > 0 and fell_back > 0


def test_an_exact_pass_raises_what_its_feasibility_callback_raises() -> None:
    rules = Rules.load("classic_jokers")
    table = np.zeros(53, dtype=np.int64)
    hand = np.zeros(53, dtype=np.int64)
    hand[[0, 1, 2, 3, 13, 26, 52]] = 1

    def refuse(lo: np.ndarray, hi: np.ndarray) -> None:
        raise RuntimeError("no answer here")

    old = oracle.lp.set_race_work(0)  # every question goes to the callback
    try:
        with pytest.raises(RuntimeError, match="no answer here"):
            oracle.api.enumerate_plays(table, hand, [0, 1, 2, 3, 13, 26, 52], np.zeros(53, dtype=np.int64), rules,
                                       limit=8, asked=True, guaranteed=[],
                                       points=lambda left, fresh: (None, left, fresh), feasible=refuse)
    finally:
        oracle.lp.set_race_work(old)


def _lists_with_and_without(param: str, counter: str, positions: list) -> tuple[bool, int]:
    """Whether the exact lists (limits 32 and 6) of ``positions`` are the same with the extension's
    setting ``param`` on and off, and how many questions its ``counter`` (a ``_dp.stats()`` entry)
    counted with it on (none with it off)."""
    from machiavelli_env.oracle import _dp

    lists, counted = {}, 0
    try:
        for on in (True, False):
            _dp.set_params(**{param: on})
            before = _dp.stats()[counter]
            got = []
            for table, hand, rules in positions:
                for limit in (32, 6):
                    legal.clear_caches()
                    got.append([p.tobytes() for p in legal.legal_plays(table, hand, rules, limit=limit)])
            lists[on] = got
            if on:
                counted = _dp.stats()[counter] - before
            else:
                assert _dp.stats()[counter] == before
    finally:
        _dp.set_params(**{param: True})
    return lists[True] == lists[False], counted


@pytest.mark.parametrize("preset", ["classic", "classic_jokers", "ace_wrap"])
def test_kept_certificates_refute_branch_questions_and_leave_exact_lists_unchanged(preset: str) -> None:
    # an exact list's pass keeps the LP's Farkas certificates and tries them on later branch boxes
    # that fit under a kept one's box: the same lists as with every question asked of the LP
    positions = big_hand_positions(preset, games=1, seed=6600, extra=4, every=2)
    assert len(positions) >= 4
    same, refuted = _lists_with_and_without("kept_certs", "lp_kept_refuted", positions)
    assert same and refuted > 0


@pytest.mark.parametrize("preset", ["classic", "ace_both_ends", "classic_jokers"])
def test_the_meld_count_refutes_branch_questions_and_leaves_exact_lists_unchanged(preset: str) -> None:
    # an exact list's branch question first counts the melds each fixed card needs
    # (_dp.support_refutes): the same lists as with every question asked of the LP
    positions = big_hand_positions(preset, games=1, seed=6700, extra=4, every=2)
    assert len(positions) >= 4
    same, refuted = _lists_with_and_without("support", "list_by_support", positions)
    # a joker table's boxes hold jokers, which the count seldom beats
    assert same and (refuted > 0 or preset == "classic_jokers")


def test_the_list_order_of_the_extension_is_the_order_key() -> None:
    # oracle.order_plays (in C) sorts as legal._order_key: most cards, most points, then more
    # copies of lower card types first; equal plays keep their order, the objects are the same
    rules = Rules.load("classic_jokers")
    pts = legal.rules_info(rules).points
    rng = np.random.default_rng(6800)
    for n in (0, 1, 2, 5, 33, 80):
        plays = [rng.integers(0, 3, 53).astype(np.int64) for _ in range(n)]
        plays += [p.copy() for p in plays[: n // 3]]  # equal plays, other objects
        rng.shuffle(plays)  # type: ignore[arg-type]
        want = sorted(plays, key=lambda x: legal._order_key(x, pts))
        got = oracle.api.order_plays(plays, pts)
        assert [id(x) for x in got] == [id(x) for x in want]
    with pytest.raises(ValueError):
        oracle.api.order_plays([np.zeros(52, dtype=np.int64)], pts)


def test_a_listed_play_is_checked_without_asking_the_oracle(monkeypatch: pytest.MonkeyPatch) -> None:
    # every play of an exact list is known legal on its table: playing one asks nothing more,
    # and clearing the caches forgets it (the answer is then asked of the oracle, and the same)
    positions = big_hand_positions("classic", games=1, seed=6900, extra=2, every=3)
    table, hand, rules = positions[0]
    plays = legal.legal_plays(table, hand, rules, limit=12)
    assert plays
    calls = []
    real = legal._query
    monkeypatch.setattr(legal, "_query", lambda *a: calls.append(1) or real(*a))
    for x in plays:
        assert legal.check_play(table, hand, x, rules) == (True, None)
    assert not calls
    legal.clear_caches()
    ok, melds = legal.check_play(table, hand, plays[-1], rules)
    assert ok and melds is not None and calls


@pytest.mark.parametrize("preset", ["classic", "classic_jokers", "six_players_three_decks"])
def test_the_extensions_whole_list_equals_the_python_steps_at_every_limit(monkeypatch: pytest.MonkeyPatch,
                                                                           preset: str) -> None:
    # oracle.api.exact_list builds the list in one call: the short pass, the per-card pass, the
    # max-points entry and which guaranteed entries a short limit keeps, as _legal_plays' steps do
    positions = big_hand_positions(preset, games=2, seed=7300, extra=5, every=3)
    assert len(positions) >= 4
    cut = 0
    for table, hand, rules in positions:
        for limit in (1, 2, 3, 5, 9, 32):
            lists = []
            for whole in (True, False):
                monkeypatch.setattr(legal, "_C_LIST", whole)
                legal.clear_caches()
                lists.append([p.tobytes() for p in legal.legal_plays(table, hand, rules, limit=limit)])
            assert lists[0] == lists[1]
            cut += len(lists[0]) == limit
    assert cut > 0


def test_the_extensions_whole_list_asks_the_whole_schedule_when_its_pass_cannot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # with a memo too small for the per-card searches, by_card() (the oracle's schedule: mirrored,
    # then one question per card) answers; a table that cannot be arranged raises as the Python
    # steps do
    from machiavelli_env.oracle import _dp

    table, hand, rules = big_hand_positions("classic", games=1, seed=7400, extra=8, every=4)[0]
    want = [p.tobytes() for p in legal.legal_plays(table, hand, rules, limit=12)]
    asked = []
    real = oracle.api.best_counts_by_card
    monkeypatch.setattr(oracle.api, "best_counts_by_card", lambda *a, **k: asked.append(1) or real(*a, **k))
    saved = _dp.set_params()
    try:
        _dp.set_params(memo_limit=40, force=2)  # the per-card searches, not the forward pass
        legal.clear_caches()
        got = [p.tobytes() for p in legal.legal_plays(table, hand, rules, limit=12)]
    finally:
        _dp.set_params(**saved)
    assert got == want and asked
    from machiavelli_env.cards import to_counts

    for whole in (True, False):  # a table of two cards that form no meld, a hand of many types
        monkeypatch.setattr(legal, "_C_LIST", whole)
        legal.clear_caches()
        with pytest.raises(oracle.OracleError, match="cannot be arranged"):
            legal.legal_plays(to_counts("AS 9D"), to_counts("5H 6H 7H 2C 3C 4C 6C 8C 9C QD KD"), rules, limit=12)
