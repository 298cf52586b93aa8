"""Legal play lists (machiavelli_env.legal): exactness against brute force, order, the limit subset."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from machiavelli_env import game, legal
from machiavelli_env.cards import NUM_TYPES, to_counts
from machiavelli_env.oracle import api as oracle
from machiavelli_env.rules import Rules


def _brute(table, hand, rules, opened=True, help=None):
    avail = hand + (0 if help is None else help)
    idx = np.flatnonzero(avail)
    out = set()
    for combo in itertools.product(*[range(int(avail[i]) + 1) for i in idx]):
        x = np.zeros(NUM_TYPES, dtype=np.int64)
        x[idx] = combo
        if x.any() and legal.arrange_play(table, hand, x, rules, opened=opened, help=help) is not None:
            out.add(x.tobytes())
    return out


def _short_game(r, game_seed, rng, min_turns, play_share):
    """The state after ``rng.integers(min_turns, 30)`` turns of a game where each turn plays the
    oracle's best play with probability ``play_share`` (always at 1, without drawing from ``rng``)
    and draws otherwise."""
    s = game.new_game(r, game_seed)
    for _ in range(int(rng.integers(min_turns, 30))):
        if s.done:
            break
        play = play_share >= 1 or rng.random() < play_share
        s = game.step(s, game.best_play(s) if play else np.zeros(NUM_TYPES, dtype=np.int64))
    return s


def _positions(kw, n, hand_cards=6, seed=0):
    """Tables from short random games, with a random small hand from the unseen cards."""
    r = Rules.load("classic", **kw)
    rng = np.random.default_rng(seed)
    out = []
    g = 0
    while len(out) < n:
        s = _short_game(r, seed * 1000 + g, rng, 4, 0.6)
        g += 1
        if s.done:
            continue
        p = s.current
        hand = np.zeros(NUM_TYPES, dtype=np.int64)
        np.add.at(hand, rng.permutation(np.repeat(np.arange(NUM_TYPES), s.hands[p]))[:hand_cards], 1)
        out.append((s.table.copy(), hand, r, bool(s.opened[p]), s.help.copy() if s.help.any() else None))
    return out


VARIANTS = [
    {},
    {"jokers": 2},
    {"ace": "wrap"},
    {"ace": "low"},
    {"opening": "group"},
    {"opening": "points:36"},
    {"help_cards": 4, "hand_size": 8},
]


@pytest.mark.parametrize("kw", VARIANTS, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()) or "classic")
def test_legal_plays_match_brute_force(kw):
    for table, hand, r, opened, help in _positions(kw, 6, hand_cards=7):
        usable = None if help is None or legal.needs_opening(r, opened) else help
        expected = _brute(table, hand, r, opened, usable)
        got = legal.legal_plays(table, hand, r, opened=opened, limit=200, help=usable)
        assert len({x.tobytes() for x in got}) == len(got)
        assert {x.tobytes() for x in got} == expected


def test_order_most_cards_then_points():
    r = Rules.load("classic")
    table = to_counts("10H JH QH 5S 5D 5C")
    hand = to_counts("9H KH JH 5H AH 2C 8H")
    plays = legal.legal_plays(table, hand, r)
    pts = np.array([r.card_points(c) for c in range(NUM_TYPES)])
    keys = [(-int(p.sum()), -int(pts @ p)) for p in plays]
    assert keys == sorted(keys)
    assert plays[0].sum() == oracle.best_play(table, hand, r).value


def test_limit_subset_guarantees():
    r = Rules.load("classic", jokers=2)
    table = to_counts("10H JH QH 5S 5D 5C 2S 3S 4S 8C 9C 10C")
    hand = to_counts("9H KH JH 5H AS 5S JK 7C JC 8D 8S 8H")
    full = legal.legal_plays(table, hand, r, limit=10_000)
    assert len(full) > 20
    limit = 16
    sub = legal.legal_plays(table, hand, r, limit=limit)
    assert len(sub) == limit
    assert {x.tobytes() for x in sub} <= {x.tobytes() for x in full}
    assert [x.tobytes() for x in sub] == [x.tobytes() for x in legal.legal_plays(table, hand, r, limit=limit)]
    best_cards = oracle.best_play(table, hand, r, "cards").value
    best_points = oracle.best_play(table, hand, r, "points").value
    pts = np.array([r.card_points(c) for c in range(NUM_TYPES)])
    assert max(int(x.sum()) for x in sub) == best_cards
    assert max(int(pts @ x) for x in sub) == best_points
    playable = oracle.playable_cards(table, hand, r)
    for c in np.flatnonzero(playable):
        assert any(x[c] > 0 for x in sub), f"no play holds card {c}"


def test_no_plays_and_validation():
    r = Rules.load("classic")
    assert legal.legal_plays(to_counts("10H JH QH"), to_counts("2C 7D"), r) == []
    with pytest.raises(ValueError):
        legal.legal_plays(to_counts("10H JH QH"), to_counts("2C 7D"), r, limit=0)


def test_has_play_and_best_play():
    r = Rules.load("classic", opening="points:36")
    hand = to_counts("10H JH QH KS KH KD 2C")
    assert legal.has_play(np.zeros(NUM_TYPES, dtype=np.int64), hand, r, opened=False)
    assert legal.best_play(np.zeros(NUM_TYPES, dtype=np.int64), hand, r, opened=False).sum() == 6
    assert not legal.has_play(np.zeros(NUM_TYPES, dtype=np.int64), to_counts("10H JH QH 2C"), r, opened=False)


def test_help_repack_exact():
    r = Rules.load("classic", help_cards=4)
    # 8D must be in a group: 8S 8H 8D works even though 8D could also extend 6D 7D
    melds = legal.help_repack(to_counts("6D 7D 5D"), to_counts("8S 8H"), to_counts("8D"), r)
    assert melds is not None and any(sorted(m) == sorted(to_counts("8S 8H 8D").nonzero()[0]) for m in melds)
    # 8D only fits a run here
    assert legal.help_repack(to_counts("6D 7D 5D"), to_counts("9D"), to_counts("8D"), r) is None


def test_subset_holds_a_max_cards_play_for_every_playable_card():
    r = Rules.load("classic", jokers=2)
    table = to_counts("10H JH QH 5S 5D 5C 2S 3S 4S 8C 9C 10C")
    hand = to_counts("9H KH JH 5H AS 5S JK 7C JC 8D 8S 8H")
    sub = legal.legal_plays(table, hand, r, limit=20)
    assert len(sub) == 20
    for c in np.flatnonzero(oracle.playable_cards(table, hand, r)):
        best = oracle.best_play_containing(table, hand, int(c), r)
        assert max(int(x.sum()) for x in sub if x[c] > 0) == best.size
    for x in sub:  # every returned play is legal
        assert legal.arrange_play(table, hand, x, r) is not None


def test_answers_do_not_depend_on_the_caches():
    positions = _positions({}, 8, hand_cards=9, seed=3) + _positions({"opening": "points:36"}, 4, 9, seed=4)
    for table, hand, r, opened, _help in positions:
        legal.clear_caches()
        cold = [x.tobytes() for x in legal.legal_plays(table, hand, r, opened=opened, limit=8)]
        best = legal.best_play(table, hand, r, opened=opened)
        warm = [x.tobytes() for x in legal.legal_plays(table, hand, r, opened=opened, limit=8)]
        assert cold == warm
        # a play known legal from an answer and the same play checked from scratch agree
        for x in [best, *legal.legal_plays(table, hand, r, opened=opened, limit=8)]:
            if not x.any():
                continue
            assert legal.check_play(table, hand, x, r, opened=opened)[0]
            legal.clear_caches()
            ok, _ = legal.check_play(table, hand, x, r, opened=opened)
            assert ok and legal.arrange_play(table, hand, x, r, opened=opened) is not None


def test_returned_plays_are_fresh_arrays():
    r = Rules.load("classic")
    table, hand = to_counts("10H JH QH"), to_counts("9H KH 2C")
    first = legal.legal_plays(table, hand, r)
    first[0][:] = 0
    assert all(x.any() for x in legal.legal_plays(table, hand, r))  # the cache was not changed


def _rich_positions(kw, n, seed):
    """Tables from short greedy games and hands with many legal plays: up to 7 unseen cards that
    each fit the table alone, and 2 other unseen cards."""
    r = Rules.load("classic", **kw)
    rng = np.random.default_rng(seed)
    out, g = [], 0
    while len(out) < n:
        s = _short_game(r, seed * 1000 + g, rng, 6, 1.0)
        g += 1
        if s.done or not s.table.any():
            continue
        unseen = np.array([r.copies(c) for c in range(NUM_TYPES)], dtype=np.int64) - s.table
        types = rng.permutation(np.flatnonzero(unseen > 0))
        one = np.eye(NUM_TYPES, dtype=np.int64)
        fits = [int(c) for c in types if oracle.best_play_containing(s.table, one[c], int(c), r)]
        others = [int(c) for c in types if int(c) not in fits]
        hand = np.zeros(NUM_TYPES, dtype=np.int64)
        for c in fits[:7] + others[:2]:
            hand[c] += 1
        if len(fits) >= 4:
            out.append((s.table.copy(), hand, r))
    return out


def _documented_subset(table, hand, r, limit):
    """The subset rule of ``legal_plays`` rebuilt from every legal play (brute force, opened, no
    help): the guaranteed entries (the oracle's max-cards, max-points and per-card plays), then the
    legal plays in the enumeration's order (playable types in card order, larger counts first),
    the first ``limit`` distinct ones, sorted most cards first, then most points, then counts."""
    every = [np.frombuffer(b, dtype=np.int64) for b in _brute(table, hand, r)]
    pts = np.array([r.card_points(c) for c in range(NUM_TYPES)])
    if len(every) <= limit:
        return sorted((x.tobytes() for x in every), key=lambda b: legal._order_key(np.frombuffer(b, np.int64), pts))
    by_card = oracle.best_plays_by_card(table, hand, r, "cards")
    playable = sorted(by_card)
    root = max((by_card[c].counts for c in playable), key=lambda x: int(x.sum()))
    guaranteed = [root, oracle.best_play(table, hand, r, "points").counts, *(by_card[c].counts for c in playable)]
    enumeration = sorted(every, key=lambda x: [-int(x[c]) for c in playable])
    out: list[bytes] = []
    for x in guaranteed + enumeration:
        if x.any() and x.tobytes() not in out and len(out) < limit:
            out.append(x.tobytes())
    return sorted(out, key=lambda b: legal._order_key(np.frombuffer(b, np.int64), pts))


@pytest.mark.parametrize("kw", [{}, {"jokers": 2}, {"jokers": 4, "max_jokers_per_meld": 2}, {"ace": "wrap"}],
                         ids=["classic", "jokers=2", "jokers=4,mjpm=2", "ace=wrap"])
def test_limit_subset_is_the_documented_one_for_every_limit(kw):
    # the enumeration stops as soon as the first `limit` plays are settled; whatever the limit,
    # the list is the documented subset of every legal play
    checked = 0
    for table, hand, r in _rich_positions(kw, 4, seed=7):
        total = len(_brute(table, hand, r))
        assert total >= 8
        for limit in sorted({1, 2, 3, 5, 8, 13, max(1, total - 1), max(1, total), total + 1}):
            legal.clear_caches()
            got = [x.tobytes() for x in legal.legal_plays(table, hand, r, limit=limit)]
            assert got == _documented_subset(table, hand, r, limit), f"limit {limit}"
            checked += 1
    assert checked >= 10


def test_branch_answers_are_reused_across_calls_without_changing_any_list(monkeypatch):
    # another limit on the same position, and the same position after a draw, ask many of the same
    # branch questions; the cache answers them, and every list equals the one computed from scratch.
    # The Python pass asks each branch question through _feasible_query (the extension's pass asks
    # only those its first steps leave open, through the same cache)
    monkeypatch.setattr(legal, "_C_ENUMERATION", False)
    asked = []
    real, real_feasible = legal._query, legal._feasible_query

    def counted(lo, hi, w, rules, kw):
        asked.append(1)
        return real(lo, hi, w, rules, kw)

    def counted_feasible(lo, hi, rules, kw):
        asked.append(1)
        return real_feasible(lo, hi, rules, kw)

    monkeypatch.setattr(legal, "_query", counted)
    monkeypatch.setattr(legal, "_feasible_query", counted_feasible)
    cases = []
    for table, hand, r in _rich_positions({"jokers": 2}, 3, seed=11) + _rich_positions({}, 3, seed=12):
        cases += [(table, hand, r, 8), (table, hand, r, 32)]
        room = [int(c) for c in np.flatnonzero(hand) if table[c] + hand[c] < r.copies(int(c))]
        if room:  # one more copy of the lowest card type the pack still has
            drawn = hand.copy()
            drawn[room[0]] += 1
            cases.append((table, drawn, r, 32))
    legal.clear_caches()
    asked.clear()
    warm = [[x.tobytes() for x in legal.legal_plays(t, h, r, limit=k)] for t, h, r, k in cases]
    warm_questions = len(asked)
    cold, asked[:] = [], []
    for t, h, r, k in cases:
        legal.clear_caches()
        cold.append([x.tobytes() for x in legal.legal_plays(t, h, r, limit=k)])
    assert warm == cold
    assert warm_questions < len(asked)
