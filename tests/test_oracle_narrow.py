"""best_play's LP narrowing: hand card types the LP relaxation proves to be in no play are taken out
of the question before the search. The value never changes (checked against the search alone and
the integer programme), the narrowing does take types out, which play is returned depends on the
question alone (never on the questions asked before), and ``arrange=False`` answers the same counts,
without an arrangement and, on a table arranged before with nothing to play, without a search."""

from __future__ import annotations

import numpy as np
import pytest
from machiavelli_env.agents.base import turn_from_state
from machiavelli_env.agents.registry import make_agent
from oracle_params import search_params

from machiavelli_env import game
from machiavelli_env.cards import from_counts, to_counts
from machiavelli_env.melds import is_valid_meld
from machiavelli_env.oracle import _dp, dp, ilp
from machiavelli_env.oracle import api as oracle
from machiavelli_env.oracle.result import OracleError
from machiavelli_env.rules import Rules


def _greedy_questions(preset: str, games: int, seed: int, min_table: int = 30) -> list[tuple[np.ndarray, np.ndarray]]:
    """(table, hand) of greedy self-play turns with a joker among the cards and a table of at least
    ``min_table`` cards: the questions the narrowing is asked of (small hands on crowded tables)."""
    rules = Rules.load(preset)
    agents = [make_agent("greedy", rules) for _ in range(rules.players)]
    out = []
    for g in range(games):
        state = game.new_game(rules, seed + g)
        while not state.done:
            turn = turn_from_state(state, state.current)
            t, h = state.table, turn.hand
            if t.sum() >= min_table and h.any() and t[52] + h[52] > 0:
                out.append((t.copy(), h.copy()))
            state = game.step(state, np.asarray(agents[state.current].act(turn), dtype=np.int64))
    return out


_DEFAULT_NARROW = _dp.set_params()["lp_narrow"]


def _narrowing(on: bool) -> int:
    """Turn the narrowing on (its default threshold) or off; returns the previous threshold."""
    old = _dp.set_params()["lp_narrow"]
    _dp.set_params(lp_narrow=_DEFAULT_NARROW if on else 0)
    return old


@pytest.fixture(scope="module")
def questions() -> dict[str, list[tuple[np.ndarray, np.ndarray]]]:
    return {p: _greedy_questions(p, games=4, seed=9500) for p in ("classic_jokers", "jokers2", "spanish_comodines")}


@pytest.mark.parametrize("preset", ["classic_jokers", "jokers2", "spanish_comodines"])
def test_narrowing_changes_no_value_and_takes_types_out(preset: str, questions: dict) -> None:
    rules = Rules.load(preset)
    qs = questions[preset]
    assert len(qs) >= 20
    old = _narrowing(False)
    try:
        alone = [oracle.best_play(t, h, rules) for t, h in qs]
    finally:
        _dp.set_params(lp_narrow=old)
    before = dp.stats()["lp_narrowed"]
    narrowed = [oracle.best_play(t, h, rules) for t, h in qs]
    assert dp.stats()["lp_narrowed"] > before  # a narrowing that never narrows fails here
    for (t, h), a, b in zip(qs, alone, narrowed, strict=True):
        assert a.value == b.value
        assert np.all(b.counts >= 0) and np.all(b.counts <= h)
        # the arrangement (from the search, or a repack of a play the relaxation proved) holds
        # exactly the table and the play, in valid melds
        held = np.bincount([c for m in b.melds for c in m], minlength=53)
        assert (held == t + b.counts).all()
        assert all(is_valid_meld(m, rules) for m in b.melds)


@pytest.mark.parametrize("preset", ["classic_jokers", "spanish_comodines"])
def test_narrowed_values_are_the_integer_programmes(preset: str, questions: dict) -> None:
    rules = Rules.load(preset)
    w = oracle.objective_weights("cards", rules)
    for t, h in questions[preset][::4]:
        ref = ilp.solve_bounds(t, t + h, w, rules)
        assert ref is not None
        assert oracle.best_play(t, h, rules).value == ref.value


def test_the_play_depends_on_the_question_alone(questions: dict) -> None:
    rules = Rules.load("classic_jokers")
    qs = questions["classic_jokers"]
    first = [oracle.best_play(t, h, rules).counts.tolist() for t, h in qs]
    # other questions in between move the LP's warm start and fill the oracle's caches
    other = Rules.load("jokers2")
    for t, h in questions["jokers2"][:10]:
        oracle.best_play(t, h, other)
        oracle.feasible(t, t + h, other, sweep="down")
    again = [oracle.best_play(t, h, rules).counts.tolist() for t, h in reversed(qs)][::-1]
    assert first == again


def test_the_narrowing_starts_from_the_tables_own_basis(questions: dict) -> None:
    # the simplex's path, counted in iterations, is the same whatever was asked just before: each
    # narrowing starts from a basis of the table alone, never from the last question's
    rules, other = Rules.load("classic_jokers"), Rules.load("jokers2")
    qs, others = questions["classic_jokers"], questions["jokers2"]
    stepped = 0
    for i, (t, h) in enumerate(qs[:8]):
        oracle.best_play(t, h, rules)  # its table's basis computed (and kept)
        paths = []
        for a in (others[i], others[-1 - i]):
            oracle.best_play(*a, other)
            oracle.feasible(a[0], a[0] + a[1], other, sweep="down")
            s0 = dp.stats()
            oracle.best_play(t, h, rules)
            s1 = dp.stats()
            paths.append((s1["lp_calls"] - s0["lp_calls"], s1["lp_iterations"] - s0["lp_iterations"]))
        assert paths[0] == paths[1]
        stepped += paths[0][1] > 0
    assert stepped > 0


@pytest.mark.parametrize("preset", ["jokers2", "classic_jokers"])
def test_arrange_false_gives_the_same_counts_without_melds(preset: str, questions: dict) -> None:
    rules = Rules.load(preset)
    nothing = everything = 0
    old = _dp.set_params()["lp_race"]
    _dp.set_params(lp_race=0)  # the LP at once: no search first, so that "no search" shows
    try:
        for t, h in questions[preset]:
            full = oracle.best_play(t, h, rules)
            w0 = dp.work()
            bare = oracle.best_play(t, h, rules, arrange=False)
            if dp.work() == w0:  # answered without a search
                nothing += not bare.counts.any()
                everything += bare.counts.any()
            assert bare.value == full.value and bare.counts.tolist() == full.counts.tolist()
            assert bare.melds is None or bare.melds == full.melds
    finally:
        _dp.set_params(lp_race=old)
    # nothing to play on a table arranged by the call before, and everything the narrowing left
    # arranged off the LP's point: both happen on these games
    assert nothing > 0 and everything > 0


def test_what_the_search_settles_in_the_race_keeps_its_own_answer(questions: dict) -> None:
    # with a race (lp_race > 0; off by default), a question the search answers within lp_race
    # expansions gets the search's answer: the same as with the narrowing off
    quick = []
    old_race = _dp.set_params()["lp_race"]
    _dp.set_params(lp_race=300)
    try:
        for preset, qs in questions.items():
            rules = Rules.load(preset)
            for t, h in qs:
                s0, r0, w0 = dp.stats()["lp_calls"], dp.stats()["best_recalled"], dp.work()
                play = oracle.best_play(t, h, rules)
                # (a question answered from an earlier answer, see test_oracle_recall.py, asks no LP either)
                if dp.stats()["lp_calls"] == s0 and dp.stats()["best_recalled"] == r0:
                    assert dp.work() - w0 <= 300 + 1
                    quick.append((t, h, rules, play.counts.tolist()))
    finally:
        _dp.set_params(lp_race=old_race)
    assert len(quick) >= 10
    old = _narrowing(False)
    try:
        assert [oracle.best_play(t, h, r).counts.tolist() for t, h, r, _ in quick] == [c for *_, c in quick]
    finally:
        _dp.set_params(lp_narrow=old)


def test_a_refutation_certificate_cuts_later_types_exactly(questions: dict) -> None:
    # a narrowing reuses the certificate of an earlier type's refutation on the types after it
    # (an exact integer check, no simplex run); the types it cuts are in no play, so the value is
    # the integer programme's, and the search rises from nothing (lp_rise on) or asks for its bound
    # first (lp_rise off) to the same value
    before = dp.stats()["lp_cert_reused"]
    reused = []
    for preset in ("classic_jokers", "spanish_comodines"):
        rules = Rules.load(preset)
        for t, h in questions[preset]:
            r0 = dp.stats()["lp_cert_reused"]
            play = oracle.best_play(t, h, rules)
            if dp.stats()["lp_cert_reused"] > r0:
                reused.append((t, h, rules, play.value))
    assert dp.stats()["lp_cert_reused"] > before and reused  # a reuse that never happens fails here
    for t, h, rules, value in reused[:12]:
        w = oracle.objective_weights("cards", rules)
        assert ilp.solve_bounds(t, t + h, w, rules).value == value
    old = _dp.set_params()["lp_rise"]
    _dp.set_params(lp_rise=1 - old)
    try:
        assert [oracle.best_play(t, h, r).value for t, h, r, _ in reused] == [v for *_, v in reused]
    finally:
        _dp.set_params(lp_rise=old)


def test_arrange_false_still_rejects_a_table_that_cannot_be_arranged() -> None:
    rules = Rules.load("classic_jokers")
    table = np.zeros(53, dtype=np.int64)
    table[[0, 1, 2, 13, 14, 15, 26, 27, 28, 39, 40, 41]] = 1  # four runs of ace, 2, 3
    table[[6, 52]] = 1  # a 7 and a joker: no meld
    table[[30, 33]] = 1
    hand = np.zeros(53, dtype=np.int64)
    hand[[19, 45]] = 1
    for arrange in (True, False):
        with pytest.raises(OracleError, match="cannot be arranged"):
            oracle.best_play(table, hand, rules, arrange=arrange)


#: positions of recorded greedy games where the relaxation's point for "everything the narrowing
#: left" has no whole-meld arrangement and the dive (lp_dive) finds one: (preset, table, hand)
_DIVE_POSITIONS = [
    ("classic_jokers",
     "AS 2S 5S 6S 7S 7S 8S 8S 9S JS QS QS AH AH 2H 3H 3H 4H 5H 6H 6H JH JH QH KH AD 2D 3D 5D 6D 7D 9D "
     "JD QD KD AC 3C 4C 5C 5C 6C 6C 7C 8C 9C 10C JC QC QC KC JK JK JK", "4S 10C"),
    ("spanish_comodines",
     "3S 4S 5S 7S 8S 8S 10S JS JS QS QS KS 2H 3H 5H 5H 6H 6H 7H 8H 8H 9H 9H 10H JH KH 2D 3D 5D 5D 7D 8D "
     "9D JD QD KD 2C 3C 4C 5C 7C 8C QC JK JK JK JK", "4S AD 10C"),
    ("jokers2",
     "AS 2S 3S 3S 4S 5S 5S 6S 7S 8S 9S JS JS QS KS AH AH 3H 5H 8H 9H 10H JH QH QH KH AD 3D 5D 6D 7D 7D "
     "8D 9D 9D 10D JD QD KD AC 4C 5C 6C 7C 8C 9C 10C JC QC JK", "2D 2D 4D"),
]


@pytest.mark.parametrize("preset, table, hand", _DIVE_POSITIONS, ids=[p[0] for p in _DIVE_POSITIONS])
def test_a_dive_arranges_what_the_relaxations_point_does_not(preset: str, table: str, hand: str) -> None:
    # the dive takes the point's whole melds and then one fractional meld at a time, asking the
    # relaxation again of what is left; what it finds is a partition into valid melds, so the
    # value is the integer programme's and the same as without the dive (the search alone).
    # Without group branching, which on some of these positions takes out a hand card before
    # the dive is asked
    with search_params(lp_branch=0):
        _assert_the_dive_arranges(Rules.load(preset), to_counts(table), to_counts(hand))


def _assert_the_dive_arranges(rules: Rules, t: np.ndarray, h: np.ndarray) -> None:
    _dp.clear_caches()
    before = dp.stats()["lp_dives_found"]
    bare = oracle.best_play(t, h, rules, arrange=False)
    assert dp.stats()["lp_dives_found"] == before + 1
    w = oracle.objective_weights("cards", rules)
    assert bare.value == ilp.solve_bounds(t, t + h, w, rules).value
    full = oracle.best_play(t, h, rules)
    assert full.counts.tolist() == bare.counts.tolist()
    assert all(is_valid_meld(m, rules) for m in full.melds)
    assert sorted(c for m in full.melds for c in m) == sorted(from_counts(t + full.counts))
    old = _dp.set_params()["lp_dive"]
    _dp.set_params(lp_dive=0)
    try:
        _dp.clear_caches()
        before = dp.stats()["lp_dives"]
        assert oracle.best_play(t, h, rules, arrange=False).value == bare.value
        assert dp.stats()["lp_dives"] == before
    finally:
        _dp.set_params(lp_dive=old)


#: crowded joker tables of recorded greedy games where the relaxation has a point for the box that
#: holds the last card, but the groups cannot be whole: (preset, table, hand, optimum)
_GROUP_BRANCH_POSITIONS = [
    ("spanish_comodines",
     "AS AS 2S 3S 3S 4S 5S 5S 6S 7S 8S 9S 10S 10S JS JS QS KS AH AH 2H 3H 3H 4H 5H 6H 7H 7H 8H 9H 10H "
     "JH JH QH KH KH AD AD 2D 3D 4D 6D 6D 8D 9D 10D QD KD AC AC 2C 3C 4C 5C 6C 6C 7C 7C 8C 9C JC JC QC "
     "QC KC JK", "QD 4C JK", 2),
    ("jokers2",
     "AS AS 2S 2S 3S 4S 4S 6S 6S 8S 8S 9S 9S 10S JS QS KS KS AH AH 2H 3H 3H 4H 4H 5H 5H 6H 6H 7H 7H 8H "
     "8H 10H 10H JH QH QH KH AD AD 2D 2D 3D 4D 4D 6D 7D 7D 8D 8D 9D 9D 10D 10D JD QD KD AC AC 2C 3C 3C "
     "4C 5C 5C 6C 7C 8C 8C 9C JC QC KC KC JK JK", "JC", 0),
    # three decks and four jokers (benchmarks/tail.py's stress_3decks_4jokers): a 99-card table,
    # branched on since tables of up to 39 cards a deck are (on two decks, 79)
    ("classic:decks=3,jokers=4",
     "AS AS AS 2S 3S 4S 5S 5S 5S 6S 6S 6S 8S 8S 10S 10S 10S JS JS JS QS QS QS KS KS AH 2H 2H 3H 3H 4H "
     "4H 4H 5H 5H 5H 6H 7H 7H 8H 9H 9H 10H JH JH QH KH KH KH AD AD AD 2D 2D 3D 3D 4D 4D 4D 5D 5D 6D 6D "
     "6D 7D 7D 8D 8D 10D 10D JD JD QD KD AC AC AC 2C 2C 2C 3C 3C 3C 4C 4C 5C 5C 6C 6C 6C 8C 8C 9C 10C "
     "JC QC KC JK JK", "9H JH", 0),
]


def _rules(spec: str) -> Rules:
    """A preset, or ``preset:field=value,...`` with integer fields changed."""
    name, _, fields = spec.partition(":")
    return Rules.load(name, **{k: int(v) for k, v in (f.split("=") for f in fields.split(",") if f)})


@pytest.mark.parametrize("preset, table, hand, optimum", _GROUP_BRANCH_POSITIONS,
                         ids=[p[0] for p in _GROUP_BRANCH_POSITIONS])
def test_group_branching_refutes_the_box_the_relaxation_leaves_open(
    preset: str, table: str, hand: str, optimum: int
) -> None:
    # branching on the relaxation's fractional groups (y_m = 0 or y_m >= 1, each leaf refuted with
    # its own certificate) proves that no play holds one card more, which the relaxation alone
    # cannot; the optimum is the integer programme's with or without it, and the depth-first
    # search no longer has to refute that card (on the first two: 246,940 and 279,885 units without)
    rules = _rules(preset)
    t, h = to_counts(table), to_counts(hand)
    w = oracle.objective_weights("cards", rules)
    assert ilp.solve_bounds(t, t + h, w, rules).value == optimum
    work = {}
    for branch in (31, 0):
        with search_params(lp_branch=branch):
            _dp.clear_caches()
            before, w0 = dp.stats()["lp_branch_refuted"], dp.work()
            play = oracle.best_play(t, h, rules)
            work[branch] = dp.work() - w0
            assert (dp.stats()["lp_branch_refuted"] > before) == (branch > 0)
        assert play.value == optimum
        assert all(is_valid_meld(m, rules) for m in play.melds)
        assert sorted(c for m in play.melds for c in m) == sorted(from_counts(t + play.counts))
    assert work[31] * 10 < work[0]


@pytest.mark.parametrize("preset", ["spanish_comodines", "jokers2"])
def test_group_branching_keeps_best_play_exact_on_greedy_games(preset: str) -> None:
    # every crowded-table question of a few greedy games on which a branching refutation took a
    # hand card out or closed a size: the optimum is the integer programme's
    rules = Rules.load(preset)
    w = oracle.objective_weights("cards", rules)
    checked = 0
    for t, h in _greedy_questions(preset, 40, 4242, min_table=45):
        before = dp.stats()["lp_branch_refuted"]
        value = oracle.best_play(t, h, rules, arrange=False).value
        if dp.stats()["lp_branch_refuted"] == before:
            continue
        assert value == ilp.solve_bounds(t, t + h, w, rules).value
        checked += 1
        if checked == 25:
            break
    assert checked >= 5  # branching that never acts here checks nothing
