"""The oracle against the exact answers of the shared cases (tests/data/oracle_cases/*.jsonl).

Each case gives a table, a hand, the best play's size (``max_cards``) and hand points
(``max_points``, ``rules.card_points``), and a probe play with its feasibility. Every returned
arrangement is checked with :func:`melds.is_valid_meld` and with :func:`independent_valid_meld`,
a small validator written here from RULES.md alone.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from oracle_params import search_params

from machiavelli_env.cards import JOKER, NUM_TYPES, to_counts
from machiavelli_env.melds import is_valid_meld
from machiavelli_env.oracle import best_play, objective_weights, repack
from machiavelli_env.rules import Rules

DATA = Path(__file__).parent / "data" / "oracle_cases"
_RAW = [json.loads(line) for path in sorted(DATA.glob("*.jsonl")) for line in path.open() if line.strip()]
# Ids listed in heavy_ids.txt (none at present: every case takes well under a second) are marked
# `heavy`, deselected by default, run with `pytest -m heavy`.
HEAVY = set((DATA / "heavy_ids.txt").read_text().split())


CASES = [pytest.param(c, marks=pytest.mark.heavy) if c["id"] in HEAVY else c for c in _RAW]


def _run_windows(ace: str, n: int) -> list[list[int]]:
    """Rank indices (A = 0 .. K = 12) of every run window of ``n`` cards allowed by the ace mode."""
    if ace == "wrap":
        return [[(s + k) % 13 for k in range(n)] for s in range(13)] if n <= 13 else []
    first, last = {"low": (1, 13), "high": (2, 14)}.get(ace, (1, 14))  # A low = 1, K = 13, A high = 14
    if ace == "low_or_high" and n == 14:
        return []
    return [[(p - 1) % 13 for p in range(s, s + n)] for s in range(first, last - n + 2)]


def independent_valid_meld(cards: Sequence[int], rules: Rules) -> bool:
    """RULES.md meld validity by brute force: a group, or the real ranks fit inside a run window."""
    real = [c for c in cards if c != JOKER]
    jokers = len(cards) - len(real)
    if len(cards) < 3 or not real or jokers > (rules.max_jokers_per_meld if rules.jokers else 0):
        return False
    ranks, suits = [c % 13 for c in real], [c // 13 for c in real]
    if len(cards) <= 4 and len(set(ranks)) == 1 and len(set(suits)) == len(suits):
        return True
    if len(set(suits)) != 1:
        return False
    return any(not Counter(ranks) - Counter(w) for w in _run_windows(rules.ace, len(cards)))


def assert_partition(melds: list[list[int]], x: np.ndarray, rules: Rules) -> None:
    """Every meld is valid (both validators) and together the melds hold exactly ``x``."""
    for m in melds:
        assert is_valid_meld(m, rules), f"invalid meld {m}"
        assert independent_valid_meld(m, rules), f"invalid meld {m} (independent validator)"
    held = np.bincount([c for m in melds for c in m], minlength=NUM_TYPES)
    assert (held == x).all(), "the arrangement is not exactly the cards"


def _case(c: dict) -> tuple[Rules, np.ndarray, np.ndarray, np.ndarray]:
    return Rules.from_dict(c["rules"]), to_counts(c["table"]), to_counts(c["hand"]), to_counts(c["probe"]["play"])


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in _RAW])
def test_best_play_reaches_the_known_optimum_with_a_valid_arrangement(case: dict) -> None:
    rules, table, hand, _ = _case(case)
    for objective, want in (("cards", case["max_cards"]), ("points", case["max_points"])):
        play = best_play(table, hand, rules, objective)
        assert play.value == want, objective
        assert (play.counts <= hand).all(), "the play holds cards not in the hand"
        assert play.value == int(objective_weights(objective, rules) @ play.counts)
        assert_partition(play.melds, table + play.counts, rules)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in _RAW])
def test_repack_decides_the_probe_play_like_the_case(case: dict) -> None:
    rules, table, _, probe = _case(case)
    melds = repack(table, probe, rules)
    assert (melds is not None) == case["probe"]["feasible"]
    if melds is not None:
        assert_partition(melds, table + probe, rules)


ILP_CASES = _RAW[::5]


@pytest.mark.parametrize("case", ILP_CASES, ids=[c["id"] for c in ILP_CASES])
def test_ilp_backend_agrees_with_the_known_answers(case: dict) -> None:
    pytest.importorskip("highspy")
    from machiavelli_env.oracle import ilp

    rules, table, hand, probe = _case(case)
    for objective, want in (("cards", case["max_cards"]), ("points", case["max_points"])):
        play = ilp.solve_bounds(table, table + hand, objective_weights(objective, rules), rules)
        assert play is not None and play.value == want, objective
        assert ((play.counts >= 0) & (play.counts <= hand)).all()
        assert_partition(play.melds, table + play.counts, rules)
    total = table + probe
    res = ilp.solve_bounds(total, total, np.zeros(NUM_TYPES, dtype=np.int64), rules)
    assert (res is not None) == case["probe"]["feasible"]
    if res is not None:
        assert res.size == 0 and res.value == 0
        assert_partition(res.melds, total, rules)


def test_depth_first_answers_do_not_depend_on_the_previous_queries() -> None:
    """The depth-first memo is cleared between queries (by a generation stamp): interleaved and
    repeated queries, each after a different predecessor, give the known optima."""
    cases = [c for c in _RAW if c["id"] not in HEAVY][::9][:30]
    with search_params(force=2):
        for order in (cases, cases[::-1], cases[::2] + cases[1::2]):
            for c in order:
                rules, table, hand, _ = _case(c)
                play = best_play(table, hand, rules, "cards")
                assert play.value == c["max_cards"], c["id"]


# whole-hand plays where the probe runs: jokers among the cards
FULL_CASES = [
    c for c in _RAW
    if c["id"] not in HEAVY and c["hand"] and c["max_cards"] == len(c["hand"]) and "JK" in c["table"] + c["hand"]
]


@pytest.mark.parametrize("case", FULL_CASES[::3], ids=[c["id"] for c in FULL_CASES[::3]])
def test_whole_hand_plays_are_the_same_with_and_without_the_whole_hand_probe(case: dict) -> None:
    """When the whole hand can be played, the probe (no bounds, stops at the first arrangement)
    and the bounded search give the same play, and the probe's arrangement is valid."""
    rules, table, hand, _ = _case(case)
    # the search's own probe: the LP's narrowing off (it would settle some of these first)
    with search_params(full=0, lp_narrow=0):
        without = best_play(table, hand, rules, "cards")
    with search_params(full=100_000, lp_narrow=0) as _dp:
        with_probe = best_play(table, hand, rules, "cards")
        assert _dp.stats()["last_method"] == 3, "the probe did not find the whole-hand play"
    assert without.value == with_probe.value == len(case["hand"])
    assert (with_probe.counts == hand).all() and (without.counts == hand).all()
    assert_partition(with_probe.melds, table + hand, rules)


def test_every_case_keeps_its_optimum_without_the_whole_hand_probe() -> None:
    """The bounded search alone (probe off) still reaches every known optimum."""
    with search_params(full=0) as _dp:
        for c in _RAW[::4]:
            if c["id"] in HEAVY:
                continue
            rules, table, hand, _ = _case(c)
            assert best_play(table, hand, rules, "cards").value == c["max_cards"], c["id"]
            assert _dp.stats()["last_method"] != 3


def test_whole_hand_probe_is_skipped_when_a_hand_card_fits_no_meld() -> None:
    """A card with no group partner and no run neighbours (KS here: no spades near it, one other
    king, one joker per meld) rules out the whole hand at once; the rest of the hand is still
    found. With every card fitting somewhere, the probe runs and finds the whole hand."""
    from machiavelli_env.oracle import _dp  # type: ignore[attr-defined]

    rules = Rules.load("classic", ace="low", jokers=2)
    table = to_counts("3H 4H 5H 6H 9C 9D 9S")
    hand = to_counts("7H KS 9H JK")
    play = best_play(table, hand, rules, "cards")
    assert _dp.stats()["last_probe"] == 0
    assert play.value == 3 and (play.counts == to_counts("7H 9H JK")).all()
    assert_partition(play.melds, table + play.counts, rules)

    play = best_play(table, to_counts("7H 9H 8H JK"), rules, "cards")
    assert _dp.stats()["last_method"] == 3 and _dp.stats()["last_probe"] > 0
    assert play.value == 4
    assert_partition(play.melds, table + play.counts, rules)


def test_joker_cases_keep_their_optimum_whichever_search_goes_first() -> None:
    """Joker questions start with the depth-first search on any table (jcrowd 0); starting with the
    forward pass on tables under 40 cards (jcrowd 40, an earlier schedule) or on every table (jcrowd
    beyond any table) reaches the same optimum with a valid arrangement."""
    cases = [c for c in _RAW if c["id"] not in HEAVY and "JK" in c["table"] + c["hand"]][::3]
    assert cases
    for jcrowd in (0, 40, 1000):
        with search_params(jcrowd=jcrowd):
            for c in cases:
                rules, table, hand, _ = _case(c)
                play = best_play(table, hand, rules, "cards")
                assert play.value == c["max_cards"], (jcrowd, c["id"])
                assert_partition(play.melds, table + play.counts, rules)


def test_answers_found_by_the_mirrored_sweep_keep_the_known_optima() -> None:
    """With tiny budgets (20 forward entries, 20 expansions) the first level of the search runs out
    on most cases, and the two sweep directions then take turns: every case still gets its known
    optimum of cards and of points with a valid arrangement, whichever direction answered, and the
    mirrored sweep answers a good share of them."""
    cases = [c for c in _RAW if c["id"] not in HEAVY][::3]
    mirrored = 0
    with search_params(budget=20, probe=20, rise_probe=20, full=0, lp_narrow=0) as _dp:
        for c in cases:
            rules, table, hand, _ = _case(c)
            for objective, key in (("cards", "max_cards"), ("points", "max_points")):
                play = best_play(table, hand, rules, objective)
                assert play.value == c[key], (c["id"], objective)
                assert (play.counts <= hand).all()
                assert_partition(play.melds, table + play.counts, rules)
                mirrored += _dp.stats()["last_mirrored"]
    assert mirrored > len(cases) // 4, mirrored


def test_best_plays_by_card_are_exact_when_the_sweeps_race() -> None:
    """The per-card searches of large positions race too: with tiny budgets every card's best play
    has the value and holds the card as with the default budgets, and its arrangement is valid."""
    from machiavelli_env.oracle import best_plays_by_card

    cases = [c for c in _RAW if c["id"] not in HEAVY and c["hand"]][::25]
    for c in cases:
        rules, table, hand, _ = _case(c)
        expected = {card: play.value for card, play in best_plays_by_card(table, hand, rules).items()}
        with search_params(budget=20, probe=20, full=0):
            raced = best_plays_by_card(table, hand, rules)
        assert {card: play.value for card, play in raced.items()} == expected, c["id"]
        for card, play in raced.items():
            assert play.counts[card] > 0
            assert_partition(play.melds, table + play.counts, rules)


def test_the_race_is_off_for_opening_points_and_can_be_switched_off() -> None:
    """Opening points are valued by rank, which the mirror would change: such queries never race.
    With race=0 no query is answered by the mirrored sweep."""
    from machiavelli_env.oracle import opening_play

    rules = Rules.load("classic", opening="points:36")
    hand = to_counts("10H JH QH KH 10S 10D 10C 5C 6C 7C 2S")
    with search_params(budget=1, probe=1, full=0) as _dp:
        play = opening_play(hand, rules)
        assert play is not None and _dp.stats()["last_mirrored"] == 0
        assert_partition(play.melds, play.counts, rules)
    cases = [c for c in _RAW if c["id"] not in HEAVY][::20]
    with search_params(budget=20, probe=20, rise_probe=20, full=0, race=0) as _dp:
        for c in cases:
            rules, table, hand, _ = _case(c)
            assert best_play(table, hand, rules, "cards").value == c["max_cards"], c["id"]
            assert _dp.stats()["last_mirrored"] == 0


def test_a_whole_hand_probe_out_of_expansions_tries_the_mirrored_position_next() -> None:
    """Case s1-42 (80 table cards, 20 in hand, 4 jokers): the whole hand goes down, but the sweep
    from the ace up runs its probe out of expansions; the mirrored probe, tried next, finds the
    arrangement. Switched off, the bounded search finds the same play."""
    case = next(c for c in _RAW if c["id"] == "s1-42")
    rules, table, hand, _ = _case(case)
    with search_params(mirror_probe=1, lp_narrow=0) as _dp:
        play = best_play(table, hand, rules, "cards")
        stats = _dp.stats()
    assert (stats["last_method"], stats["last_mirrored"]) == (3, 1)
    with search_params(mirror_probe=0, lp_narrow=0) as _dp:
        bounded = best_play(table, hand, rules, "cards")
        assert _dp.stats()["last_method"] != 3
    assert play.value == bounded.value == case["max_cards"] == len(case["hand"])
    assert (play.counts == hand).all() and (bounded.counts == hand).all()
    assert_partition(play.melds, table + hand, rules)


def test_every_case_keeps_its_plays_with_and_without_the_mirrored_whole_hand_probe() -> None:
    """The mirrored probe only ever finds the whole hand, which the bounded search would also find
    (a play of every card is optimal when it exists): every case's best play of cards and of points
    is the same with it on or off, and its arrangement is valid."""
    for c in _RAW:
        if c["id"] in HEAVY:
            continue
        rules, table, hand, _ = _case(c)
        for objective in ("cards", "points"):
            with search_params(mirror_probe=0):
                off = best_play(table, hand, rules, objective)
            with search_params(mirror_probe=1):
                on = best_play(table, hand, rules, objective)
            assert on.value == off.value, (c["id"], objective)
            assert (on.counts == off.counts).all(), (c["id"], objective)
            assert_partition(on.melds, table + on.counts, rules)


def test_repack_probe_decides_every_probe_like_the_bounded_search() -> None:
    """A repack (every card must be placed) is first asked of the depth-first search without
    bounds; when it finishes, its answer is final. With the probe off, with a budget so small that
    it gives up on the larger tables, and with the default budget, every probe of the cases gets
    its known feasibility and a valid arrangement; the probe settles a good share of them."""
    cases = [c for c in _RAW if c["id"] not in HEAVY]
    settled = 0
    for repack_full in (0, 5, 3000):
        with search_params(repack_full=repack_full) as _dp:
            for c in cases:
                rules, table, _, probe = _case(c)
                melds = repack(table, probe, rules)
                assert (melds is not None) == c["probe"]["feasible"], (repack_full, c["id"])
                if melds is not None:
                    assert_partition(melds, table + probe, rules)
                if repack_full == 3000:
                    settled += _dp.stats()["last_method"] == 4
                elif repack_full == 0:
                    assert _dp.stats()["last_method"] != 4
    assert settled > len(cases) // 5, settled


def test_repack_is_ruled_out_at_once_when_a_card_fits_no_meld() -> None:
    """KS with no spade near it and no other king (the one joker cannot make up two cards) fits no
    meld: the repack probe answers None without expanding a node; with 7H instead it repacks."""
    from machiavelli_env.oracle import _dp  # type: ignore[attr-defined]

    rules = Rules.load("classic", ace="low", jokers=2)
    table = to_counts("3H 4H 5H 6H 9C 9D 9S JK")
    assert repack(table, to_counts("KS"), rules) is None
    assert _dp.stats()["last_method"] == 4 and _dp.stats()["last_probe"] == 0
    melds = repack(table, to_counts("7H"), rules)
    assert melds is not None
    assert_partition(melds, table + to_counts("7H"), rules)
