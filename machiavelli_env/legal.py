"""Legal plays: which multisets of cards a player may lay down on a table.

Pure functions of count vectors (no game state), so that the engine, the environments, agents and
the CLI share them. A *play* is a count vector (53,) of the cards taken from the hand (and, with
``help_cards``, from the face-up help pile); it is legal when the table plus the play partitions
into valid melds (:func:`arrange_play` states every rule exactly).

Rules applied here:

* **opening** (``group`` / ``points:N``): before a player has opened, a play must be melds from the
  hand alone (table untouched) meeting the requirement; help cards may not be used in it.
* **help cards** (face-up side pile, usable only in a group): a play names a multiset; the copies
  a player holds are taken from the hand first and only the excess from the help pile (so a help
  copy of a card type is never used while the player holds that type). Every help copy used must
  lie in a group of the new arrangement, and a play needs at least one card from the hand. The
  oracle has no group-membership bound, so the group condition is checked exactly here by trying
  every choice of groups that cover the help copies and repacking the rest with the oracle.
  Once on the table, help cards are ordinary table cards.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from .cards import JOKER, NUM_SUITS, NUM_TYPES, as_counts, make_card, rank_of, suit_of
from .melds import is_valid_meld
from .oracle import api as oracle
from .rules import Rules

Counts = Sequence[int] | np.ndarray
Melds = list[list[int]]

_ZERO = np.zeros(NUM_TYPES, dtype=np.int64)


def needs_opening(rules: Rules, opened: bool) -> bool:
    """True when the next play of a player must be an opening lay-down (table untouched)."""
    return rules.opening != "none" and not opened


def split_play(play: Counts, hand: Counts) -> tuple[np.ndarray, np.ndarray]:
    """Split a named multiset into ``(from_hand, from_help)``: hand copies first, the excess from help."""
    p = np.asarray(play, dtype=np.int64)
    from_hand = np.minimum(p, np.asarray(hand, dtype=np.int64))
    return from_hand, p - from_hand


def _points(rules: Rules) -> np.ndarray:
    return np.array([rules.card_points(c) for c in range(NUM_TYPES)], dtype=np.int64)


def help_repack(table: Counts, play: Counts, help_used: Counts, rules: Rules) -> Melds | None:
    """An arrangement of ``table + play + help_used`` in which every help copy lies in a group.

    Exact: tries every group (3-4 cards of the help card's rank, distinct suits, jokers within
    ``max_jokers_per_meld``) holding an uncovered help copy, recursively, and repacks what is left
    with the oracle. ``None`` when no such arrangement exists.
    """
    avail = as_counts(table, "table") + as_counts(play, "play") + as_counts(help_used, "help_used")
    need = as_counts(help_used, "help_used").copy()
    failed: set[tuple[bytes, bytes]] = set()
    jmax = rules.max_jokers_per_meld if rules.jokers else 0

    def cover(avail: np.ndarray, need: np.ndarray) -> Melds | None:
        if not need.any():
            return oracle.repack(avail, _ZERO, rules)
        key = (avail.tobytes(), need.tobytes())
        if key in failed:
            return None
        c = int(np.flatnonzero(need)[0])
        r, s0 = rank_of(c), suit_of(c)
        others = [make_card(r, s) for s in range(NUM_SUITS) if s != s0 and avail[make_card(r, s)] > 0]
        for k in range(len(others), -1, -1):
            for subset in itertools.combinations(others, k):
                for j in range(min(jmax, int(avail[JOKER])) + 1):
                    group = [c, *subset] + [JOKER] * j
                    if not 3 <= len(group) <= 4 or not is_valid_meld(group, rules):
                        continue
                    a2, n2 = avail.copy(), need.copy()
                    for g in group:
                        a2[g] -= 1
                        if g != JOKER and n2[g] > 0:
                            n2[g] -= 1
                    rest = cover(a2, n2)
                    if rest is not None:
                        return [group, *rest]
        failed.add(key)
        return None

    return cover(avail, need)


def arrange_play(
    table: Counts, hand: Counts, play: Counts, rules: Rules, *, opened: bool = True, help: Counts | None = None
) -> Melds | None:
    """The melds of the table after a legal ``play``, or ``None`` when the play fails.

    ``play`` names the multiset laid down (hand copies first, the excess from ``help``); the
    caller has checked that it is held. For an opening lay-down the result is only the new melds
    (the table's arrangement is untouched); otherwise it is an arrangement of the whole table.
    """
    t, h, p = as_counts(table, "table"), as_counts(hand, "hand"), as_counts(play, "play")
    from_hand, from_help = split_play(p, h)
    if not from_hand.any():
        return None
    if help is not None and (from_help > as_counts(help, "help")).any():
        return None
    if needs_opening(rules, opened):
        if from_help.any():
            return None
        res = oracle.solve(
            from_hand, from_hand, _ZERO, rules,
            need_group=rules.opening == "group", min_open_points=rules.opening_points,
        )
        return None if res is None else res.melds
    if from_help.any():
        return help_repack(t, from_hand, from_help, rules)
    return oracle.repack(t, from_hand, rules)


def best_play(
    table: Counts, hand: Counts, rules: Rules, *, opened: bool = True, objective: str = "cards"
) -> np.ndarray:
    """The oracle's optimal play from the hand (hand cards only), or zeros when there is none."""
    t, h = as_counts(table, "table"), as_counts(hand, "hand")
    if needs_opening(rules, opened):
        res = oracle.opening_play(h, rules, objective)
        return _ZERO.copy() if res is None else res.counts.astype(np.int64)
    return oracle.best_play(t, h, rules, objective).counts.astype(np.int64)


def has_play(table: Counts, hand: Counts, rules: Rules, *, opened: bool = True, help: Counts | None = None) -> bool:
    """True when at least one legal play exists (used by ``must_play_if_able``)."""
    if best_play(table, hand, rules, opened=opened).any():
        return True
    if help is not None and as_counts(help, "help").any() and not needs_opening(rules, opened):
        return bool(legal_plays(table, hand, rules, opened=opened, limit=1, help=help))
    return False


def _order_key(x: np.ndarray, pts: np.ndarray) -> tuple:
    return (-int(x.sum()), -int(pts @ x), tuple(int(v) for v in -x))


def legal_plays(
    table: Counts,
    hand: Counts,
    rules: Rules,
    *,
    opened: bool = True,
    limit: int = 64,
    help: Counts | None = None,
) -> list[np.ndarray]:
    """Distinct legal plays (count vectors), most cards first, then most hand points.

    All of them when there are at most ``limit``. Otherwise a deterministic subset of ``limit``
    plays made of, in this priority: a max-cards play, a max-points play, for each playable hand
    card type (in card order) a max-cards play containing it, then the first plays found by a
    depth-first search that tries card types in card order and larger counts first.

    With ``help`` (the help pile, when the player may use it) plays may also name help cards;
    the guaranteed entries above are then computed over hand cards only.
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    t, h = as_counts(table, "table"), as_counts(hand, "hand")
    opening = needs_opening(rules, opened)
    hp = _ZERO if help is None or opening else as_counts(help, "help")
    base = _ZERO if opening else t
    kw = {"need_group": rules.opening == "group", "min_open_points": rules.opening_points} if opening else {}
    pts = _points(rules)
    ones = np.ones(NUM_TYPES, dtype=np.int64)

    # guaranteed plays (hand cards only): max cards, max points, one containing each playable type
    guaranteed: list[np.ndarray] = []
    playable = np.zeros(NUM_TYPES, dtype=bool)
    root: np.ndarray | None = None
    for w in (ones, pts):
        res = oracle.solve(base, base + h, w, rules, **kw)
        if res is not None:
            root = res.counts.astype(np.int64)
            if root.any():
                guaranteed.append(root)
                playable |= root > 0
    for c in np.flatnonzero((h > 0) & ~playable):
        lo = base.copy()
        lo[c] += 1
        res = oracle.solve(lo, base + h, ones, rules, **kw)
        if res is None:
            continue
        x = res.counts.astype(np.int64)
        x[c] += 1
        playable |= x > 0
        guaranteed.append(x)

    # depth-first search over the card types that can take part in a play, larger counts first;
    # a feasible query's solution (a witness) makes the child that agrees with it free
    avail = h + hp
    if hp.any():
        types = [int(c) for c in np.flatnonzero(avail > 0)]
        res = oracle.solve(base, base + avail, ones, rules, **kw)
        root = None if res is None else res.counts.astype(np.int64)
    else:
        types = [int(c) for c in np.flatnonzero(playable)]
    found: list[np.ndarray] = []
    seen: set[bytes] = set()

    def emit(x: np.ndarray) -> None:
        key = x.tobytes()
        if key in seen:
            return
        from_hand, from_help = split_play(x, h)
        if not from_hand.any():
            return
        if from_help.any() and help_repack(t, from_hand, from_help, rules) is None:
            return
        seen.add(key)
        found.append(x.copy())

    x = _ZERO.copy()
    rest = np.zeros(NUM_TYPES, dtype=np.int64)
    for c in types:
        rest[c] = avail[c]

    def dfs(i: int, witness: np.ndarray) -> bool:  # returns True to stop
        if i == len(types):
            if x.any():
                emit(x)
            return len(found) > limit
        c = types[i]
        rest[c] = 0
        stop = False
        for k in range(int(avail[c]), -1, -1):
            x[c] = k
            if k == witness[c]:
                child = witness
            else:
                res = oracle.solve(base + x, base + x + rest, ones, rules, **kw)
                if res is None:
                    continue
                child = x + res.counts
            if dfs(i + 1, child):
                stop = True
                break
        x[c] = 0
        rest[c] = avail[c]
        return stop

    if types and root is not None:
        dfs(0, root)

    if len(found) <= limit:
        plays = found
    else:
        plays, keys = [], set()
        for y in guaranteed + found:
            k = y.tobytes()
            if k not in keys and len(plays) < limit:
                keys.add(k)
                plays.append(y)
    plays.sort(key=lambda y: _order_key(y, pts))
    return plays
