"""Property tests: the DP oracle (``api.solve``) and the meld ILP (``ilp.solve_bounds``) agree.

Both are exact, so on every random position of every variant (decks 2 and 3, 0/2/4 jokers with
1 to 3 per meld, all five ace modes) they must find the same optimum, the same feasibility and
the same answer under the opening constraints; every arrangement either returns is checked meld
by meld and card by card. Positions are realistic: the table is built from random valid melds
(so it is always arrangeable) and the hand favours cards near the table.

The default run takes a few examples per variant; the ``heavy`` profile (``pytest -m heavy``)
runs many more, on crowded tables as well.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_oracle_cases import _run_windows, assert_partition, independent_valid_meld

from machiavelli_env.cards import JOKER, NUM_TYPES
from machiavelli_env.oracle import api, objective_weights
from machiavelli_env.rules import ACE_MODES, Rules, opening_rank_points

pytest.importorskip("highspy")
from machiavelli_env.oracle import ilp  # noqa: E402

COMBOS = ((2, 0, 1), (3, 0, 1), (2, 2, 1), (2, 4, 1), (2, 2, 2), (3, 4, 2), (2, 4, 3))
VARIANTS = [
    Rules(decks=d, jokers=j, max_jokers_per_meld=m, ace=a, players=2) for a in ACE_MODES for d, j, m in COMBOS
]
IDS = [f"{r.ace}-d{r.decks}-j{r.jokers}-m{r.max_jokers_per_meld}" for r in VARIANTS]
seeds = st.integers(0, 2**32 - 1)
ZERO = np.zeros(NUM_TYPES, dtype=np.int64)
QUICK = settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MANY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
variant = pytest.mark.parametrize("rules", VARIANTS, ids=IDS)


def random_meld(rules: Rules, rng: np.random.Generator) -> list[int]:
    """A random valid group or run, with jokers at random positions (up to the per-meld limit)."""
    if rng.random() < 0.35:
        rank = int(rng.integers(13))
        meld = [int(s) * 13 + rank for s in rng.permutation(4)[: int(rng.integers(3, 5))]]
    else:
        size = int(rng.choice([3, 3, 4, 4, 5, 6, 7, 9, 13, 14]))
        windows = _run_windows(rules.ace, size) or _run_windows(rules.ace, 3)
        suit = int(rng.integers(4))
        meld = [suit * 13 + r for r in windows[int(rng.integers(len(windows)))]]
    if rules.jokers:
        most = min(rules.max_jokers_per_meld, len(meld) - 1)  # keep a real card
        for i in rng.permutation(len(meld))[: int(rng.integers(0, most + 1))]:
            meld[i] = JOKER
    assert independent_valid_meld(meld, rules)
    return meld


def random_position(
    rules: Rules, seed: int, melds: tuple[int, int], hand: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """(table, hand): a table of random valid melds within the pack, a hand drawn mostly near it."""
    rng = np.random.default_rng(seed)
    pack = np.array([rules.copies(c) for c in range(NUM_TYPES)])
    table = np.zeros(NUM_TYPES, dtype=np.int64)
    for _ in range(int(rng.integers(*melds))):
        counts = np.bincount(random_meld(rules, rng), minlength=NUM_TYPES)
        if (table + counts <= pack).all():
            table += counts
    left = pack - table
    near = np.zeros(NUM_TYPES)
    for c in np.flatnonzero(table[:52]):
        s, r = divmod(int(c), 13)
        near[[s * 13 + (r + d) % 13 for d in (-2, -1, 1, 2)]] += 1
        near[[t * 13 + r for t in range(4)]] += 1
    near[JOKER] = 1
    deck = np.repeat(np.arange(NUM_TYPES), left)
    p = (1.0 + 4.0 * (near[deck] > 0)) / (1.0 + 4.0 * (near[deck] > 0)).sum()
    size = min(int(rng.integers(*hand)), len(deck))
    cards = rng.choice(deck, size=size, replace=False, p=p)
    return table, np.bincount(cards, minlength=NUM_TYPES).astype(np.int64)


def max_open_value(meld: list[int], rules: Rules) -> int:
    """Opening points of a meld: A = 1, J/Q/K = 10, a joker the card it stands for (best reading)."""
    real = [c for c in meld if c != JOKER]
    best = 0
    if len(meld) <= 4 and len({c % 13 for c in real}) == 1 and len({c // 13 for c in real}) == len(real):
        best = len(meld) * opening_rank_points(real[0] % 13)
    if len({c // 13 for c in real}) == 1:
        ranks = [c % 13 for c in real]
        for w in _run_windows(rules.ace, len(meld)):
            if all(ranks.count(r) <= w.count(r) for r in ranks):
                best = max(best, sum(opening_rank_points(r) for r in w))
    return best


def assert_same(dp: api.Play | None, ref: api.Play | None, lo: np.ndarray, hi: np.ndarray, rules: Rules) -> None:
    """Same feasibility and optimum; both plays lie in the bounds and their arrangements hold x."""
    assert (dp is None) == (ref is None)
    if dp is None or ref is None:
        return
    assert dp.value == ref.value
    for play in (dp, ref):
        x = lo + play.counts
        assert ((x >= lo) & (x <= hi)).all()
        assert_partition(play.melds, x, rules)


def check_best_play(rules: Rules, seed: int, melds: tuple[int, int], hand: tuple[int, int]) -> None:
    table, hnd = random_position(rules, seed, melds=melds, hand=hand)
    for objective in api.OBJECTIVES:
        w = objective_weights(objective, rules)
        dp = api.solve(table, table + hnd, w, rules)
        assert dp is not None, "a table of valid melds is always arrangeable"
        assert dp.value == int(w @ dp.counts)
        assert_same(dp, ilp.solve_bounds(table, table + hnd, w, rules), table, table + hnd, rules)


def check_repack(rules: Rules, seed: int, melds: tuple[int, int], hand: tuple[int, int]) -> None:
    table, hnd = random_position(rules, seed, melds=melds, hand=hand)
    play = np.random.default_rng(seed + 1).binomial(hnd, 0.6)
    total = table + play
    melds_dp = api.repack(table, play, rules)
    ref = ilp.solve_bounds(total, total, ZERO, rules)
    assert (melds_dp is None) == (ref is None)
    if melds_dp is not None and ref is not None:
        assert_partition(melds_dp, total, rules)
        assert_partition(ref.melds, total, rules)


def check_opening(rules: Rules, seed: int, need_group: bool, open_points: int) -> None:
    # A hand of 8-15 cards made of meld material: draw it "near" a random table, then drop the table.
    _, hand = random_position(rules, seed, melds=(2, 6), hand=(8, 16))
    for objective in api.OBJECTIVES:
        w = objective_weights(objective, rules)
        kw = {"need_group": need_group, "min_open_points": open_points}
        dp = api.solve(ZERO, hand, w, rules, **kw)
        assert_same(dp, ilp.solve_bounds(ZERO, hand, w, rules, **kw), ZERO, hand, rules)
        if dp is not None:
            if need_group:
                assert any(len({c % 13 for c in m if c != JOKER}) == 1 and len(m) <= 4 for m in dp.melds)
            assert sum(max_open_value(m, rules) for m in dp.melds) >= open_points


@variant
@QUICK
@given(seed=seeds)
def test_best_play_agrees_with_the_ilp(rules: Rules, seed: int) -> None:
    check_best_play(rules, seed, melds=(1, 9), hand=(1, 13))


@variant
@QUICK
@given(seed=seeds)
def test_repack_feasibility_agrees_with_the_ilp(rules: Rules, seed: int) -> None:
    check_repack(rules, seed, melds=(1, 9), hand=(1, 8))


@variant
@QUICK
@given(seed=seeds, need_group=st.booleans(), open_points=st.sampled_from([0, 24, 36, 60]))
def test_opening_constraints_agree_with_the_ilp(rules: Rules, seed: int, need_group: bool, open_points: int) -> None:
    check_opening(rules, seed, need_group, open_points)


@settings(max_examples=10, deadline=None)
@given(rules=st.sampled_from(VARIANTS), seed=seeds, need_group=st.booleans(), open_points=st.sampled_from([0, 36]))
def test_ilp_without_splittable_runs_is_exact(rules: Rules, seed: int, need_group: bool, open_points: int) -> None:
    table, hand = random_position(rules, seed, melds=(0, 5), hand=(3, 12))
    lo = table if not (need_group or open_points) else ZERO
    w = objective_weights("points", rules)
    kw = {"need_group": need_group, "min_open_points": open_points}
    fast = ilp.solve_bounds(lo, table + hand, w, rules, **kw)
    full = ilp.solve_bounds(lo, table + hand, w, rules, all_melds=True, **kw)
    assert_same(fast, full, lo, table + hand, rules)


# ---------------------------------------------------------------- heavy profile
@pytest.mark.heavy
@variant
@MANY
@given(seed=seeds)
def test_best_play_agrees_with_the_ilp_many(rules: Rules, seed: int) -> None:
    check_best_play(rules, seed, melds=(1, 9), hand=(1, 16))


@pytest.mark.heavy
@variant
@MANY
@given(seed=seeds)
def test_best_play_agrees_with_the_ilp_on_crowded_tables(rules: Rules, seed: int) -> None:
    check_best_play(rules, seed, melds=(8, 30), hand=(3, 16))


@pytest.mark.heavy
@variant
@MANY
@given(seed=seeds)
def test_repack_feasibility_agrees_with_the_ilp_many(rules: Rules, seed: int) -> None:
    check_repack(rules, seed, melds=(1, 30), hand=(1, 10))


@pytest.mark.heavy
@variant
@MANY
@given(seed=seeds, need_group=st.booleans(), open_points=st.sampled_from([0, 24, 36, 60, 130]))
def test_opening_constraints_agree_with_the_ilp_many(
    rules: Rules, seed: int, need_group: bool, open_points: int
) -> None:
    check_opening(rules, seed, need_group, open_points)


# ---------------------------------------------------------------- joker-heavy, crowded, big hands
# Where the joker-aware bounds (the jokers shared out among suits, group cards charged their least
# joker share) change the search: many jokers, crowded tables, big hands.
JOKER_HEAVY = [
    Rules(decks=d, jokers=j, max_jokers_per_meld=m, ace=a, players=2)
    for a in ("low_or_high", "wrap", "both_ends")
    for d, j, m in ((2, 4, 1), (2, 4, 2), (2, 4, 3), (3, 4, 1), (3, 4, 2))
]
JOKER_IDS = [f"{r.ace}-d{r.decks}-j{r.jokers}-m{r.max_jokers_per_meld}" for r in JOKER_HEAVY]
joker_heavy = pytest.mark.parametrize("rules", JOKER_HEAVY, ids=JOKER_IDS)
PROFILES = {"crowded": ((12, 26), (2, 8)), "big_hand": ((2, 8), (14, 26)), "both": ((10, 22), (10, 20))}


@joker_heavy
@pytest.mark.parametrize("profile", sorted(PROFILES))
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
def test_joker_heavy_positions_agree_with_the_ilp(rules: Rules, profile: str, seed: int) -> None:
    melds, hand = PROFILES[profile]
    check_best_play(rules, seed, melds=melds, hand=hand)
    check_repack(rules, seed, melds=melds, hand=hand)


@joker_heavy
@pytest.mark.parametrize("profile", sorted(PROFILES))
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
def test_joker_aware_bounds_change_no_value(rules: Rules, profile: str, seed: int) -> None:
    from machiavelli_env.oracle import _dp

    melds, hand = PROFILES[profile]
    table, hnd = random_position(rules, seed, melds=melds, hand=hand)
    saved = _dp.set_params()
    try:
        values = []
        for split, charge in ((0, 0), (1, 0), (0, 1), (1, 1)):
            _dp.set_params(jsplit=split, gjc=charge)
            values.append([None if (p := api.solve(table, table + hnd, objective_weights(o, rules), rules)) is None
                           else p.value for o in api.OBJECTIVES])
    finally:
        _dp.set_params(**saved)
    assert values[0] == values[1] == values[2] == values[3]


@joker_heavy
@pytest.mark.parametrize("profile", sorted(PROFILES))
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds)
def test_branch_feasibility_agrees_with_the_ilp_at_every_first_level_budget(
    rules: Rules, profile: str, seed: int
) -> None:
    """legal_plays' branch questions: part of the hand fixed, the rest optional, no weights (any
    arrangement answers). The answer is the ILP's whatever the first depth-first level's budget
    of such questions (``fprobe``; 0: the weighted questions' budget)."""
    from machiavelli_env.oracle import _dp

    melds, hand = PROFILES[profile]
    table, hnd = random_position(rules, seed, melds=melds, hand=hand)
    fixed = np.random.default_rng(seed + 2).binomial(hnd, 0.8)  # about half of these are infeasible
    lo, hi = table + fixed, table + hnd
    ref = ilp.solve_bounds(lo, hi, ZERO, rules)
    saved = _dp.set_params()
    try:
        for fprobe in (0, 30, 300):
            _dp.set_params(fprobe=fprobe)
            dp = api.solve(lo, hi, ZERO, rules)
            assert (dp is None) == (ref is None), f"fprobe={fprobe}"
            if dp is not None:
                assert_partition(dp.melds, lo + dp.counts, rules)
                assert ((dp.counts >= 0) & (lo + dp.counts <= hi)).all()
    finally:
        _dp.set_params(**saved)


@pytest.mark.heavy
@joker_heavy
@pytest.mark.parametrize("profile", sorted(PROFILES))
@MANY
@given(seed=seeds)
def test_joker_heavy_positions_agree_with_the_ilp_many(rules: Rules, profile: str, seed: int) -> None:
    melds, hand = PROFILES[profile]
    check_best_play(rules, seed, melds=melds, hand=hand)
    check_repack(rules, seed, melds=melds, hand=hand)
