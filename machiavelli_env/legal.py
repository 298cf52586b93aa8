"""Legal plays: which multisets of cards a player may lay down on a table.

Pure functions of count vectors (no game state), so that the engine, the environments, agents and
the CLI share them. A *play* is a count vector (53,) of the cards taken from the hand (and, with
``help_cards``, from the face-up help pile); it is legal when the table plus the play partitions
into valid melds (:func:`arrange_play` states every rule exactly). ``table`` arguments must be
a valid table (partitionable into melds), as the engine guarantees.

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

Speed (every answer stays exact; the oracle decides every legality question):

* :func:`legal_plays` asks the oracle's :func:`~machiavelli_env.oracle.api.best_plays_by_card`
  once (one forward/backward pass of its DP) for the playable card types and a play per card,
  then enumerates plays depth-first over those types only, each feasible answer serving as a
  witness that spares the queries it already settles. The enumeration fixes the types in card
  order, so its deep branches differ in the top ranks: their questions are swept from the king
  down (``solve(..., sweep="down")``), which refutes them sooner;
* the enumeration runs in the oracle's extension, with the help-card group search of
  :func:`_help_cover`, so that a branch question costs no Python call. A list bounded by a
  :class:`ListBudget` (:func:`~machiavelli_env.oracle.api.enumerate_plays_within`) asks the same
  capped questions in the same order as the Python enumeration (``_C_ENUMERATION = False``); an
  exact list (:func:`~machiavelli_env.oracle.api.enumerate_plays`) asks the LP relaxation first,
  and only the questions it leaves go through the oracle's full schedule: the same plays;
* an exact list whose hand holds few card types first looks for every legal play without the
  per-card pass (:func:`_short_list`): when they fit in ``limit`` they are the list, whatever the
  pass would answer (the pass costs milliseconds on joker tables);
* an opened player's exact list without help cards is built by the extension in one call
  (:func:`_exact_list`, :func:`~machiavelli_env.oracle.api.exact_list`): the same steps, the Python
  ones only for the max-points entry and the questions the extension leaves (``_C_LIST = False``
  builds it here, step by step: the tests compare them);
* small caches (cleared when full) hold recent :func:`legal_plays` answers, the answers to its
  branch questions (the same box comes back with another ``limit``, or after a draw that changed
  the hand only in card types the branch fixes), and which plays are known to be legal on which
  table, so that the engine's :func:`check_play` after a :func:`best_play` / :func:`legal_plays`
  answer needs no second oracle call.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .cards import JOKER, NUM_SUITS, NUM_TYPES, as_counts, make_card, rank_of, suit_of
from .melds import is_valid_meld
from .oracle import api as oracle
from .rules import Rules

Counts = Sequence[int] | np.ndarray
Melds = list[list[int]]

_ZERO = np.zeros(NUM_TYPES, dtype=np.int64)
_ZERO.setflags(write=False)
_KNOWN_SIZE = 4096  # (table, play) -> legal: about 1 kB each
_PLAYS_SIZE = 256  # (table, hand, limit) -> plays: up to `limit` vectors each
_LISTED_SIZE = 256  # (table) -> the plays of its last exact list (the same bytes as _PLAYS holds)
_BRANCH_SIZE = 8192  # (lo, hi) -> a solution or none: about 1.4 kB each
#: lists run their enumeration in the extension (bounded ones
#: :func:`~machiavelli_env.oracle.api.enumerate_plays_within`, exact ones
#: :func:`~machiavelli_env.oracle.api.enumerate_plays`), which gives the same plays as the Python
#: ``dfs`` without a Python call per branch question; False runs the Python one (the tests compare them)
_C_ENUMERATION = True
#: an exact list of an opened player without help cards is built by the extension in one call
#: (:func:`~machiavelli_env.oracle.api.exact_list`: the steps below, the same plays); False builds it
#: here, each step one call (the tests compare them)
_C_LIST = True


@dataclass(frozen=True)
class ListBudget:
    """Bounds on the oracle's effort for one :func:`legal_plays` list; counts, never time.

    Work is the exact search's count (:func:`machiavelli_env.oracle.api.search_work`: forward-pass
    entries plus expansions, and the per-suit relaxation's vectors and the transitions they read,
    which a list's questions share from a fresh start, so that the count depends on the list's own
    questions alone; about 50-500 ns a unit on a current x86 core). A question that would
    need more than its cap, or than what is left of ``total_work``, gives up, and the list goes on
    without its answer. The list first asks whether the whole hand is a legal play (one repack
    question, capped as a branch question): when it is, that play (going out) is listed even if the
    per-card pass gives up. Then:

    * ``by_card_work``: the one pass that finds, for every hand card type, a max-cards play holding
      it (entries 1 and 3 of :func:`legal_plays`; without it the enumeration runs over every held
      type and starts from no play);
    * ``points_work``: the max-points play (entry 2);
    * ``nodes``: branches the enumeration (entry 4) considers, feasible or not;
    * ``question_work``: each branch's feasibility question;
    * ``total_work``: all of a list's questions together.

    So a list costs at most about ``total_work`` work plus the enumeration's own steps (``nodes`` at
    most), whatever the position. Every play listed is legal (each comes from an answered
    question). When no question gives up and the enumeration ends within ``nodes``, the list is
    the unbounded one. With the defaults the shipped ``ppo`` policies kept their strength
    (``docs/RESULTS.md``, "Bounded legal-play lists").
    """

    nodes: int = 60
    question_work: int = 600
    by_card_work: int = 10_000
    points_work: int = 3_000
    total_work: int = 20_000

    def __post_init__(self) -> None:
        for name in ("nodes", "question_work", "by_card_work", "points_work", "total_work"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"ListBudget.{name} must be a positive integer, got {value!r}")

    @classmethod
    def from_mapping(cls, fields: Mapping[str, Any]) -> ListBudget:
        """A budget from a mapping of its fields (a config's); ``ValueError`` naming a bad one."""
        unknown = sorted(str(k) for k in set(fields) - {f.name for f in dataclasses.fields(cls)})
        if unknown:
            raise ValueError(f"list_budget has no field {unknown[0]!r}")
        return cls(**fields)

    @classmethod
    def from_text(cls, text: str) -> ListBudget:
        """A budget from a command line's text: ``default``, or a JSON object of its fields."""
        fields = {} if text == "default" else json.loads(text)  # json's errors are ValueErrors
        if not isinstance(fields, Mapping):
            raise ValueError("expected a JSON object of ListBudget fields or 'default'")
        return cls.from_mapping(fields)


# ---------------------------------------------------------------------------------------------- per-rules facts
@dataclass(frozen=True, eq=False)
class RulesInfo:
    """Per-rules constants, computed once per distinct :class:`Rules` value (see :func:`rules_info`)."""

    key: int  # small id of the rules value (equal rules share it)
    points: np.ndarray  # (53,) hand points of each card type
    pack: np.ndarray  # (53,) copies of each card type in the pack
    ones: np.ndarray  # (53,) weights of the "cards" objective


_INFO_BY_ID: dict[int, tuple[Rules, RulesInfo]] = {}
_INFO_BY_VALUE: dict[Rules, RulesInfo] = {}


def rules_info(rules: Rules) -> RulesInfo:
    """Constants of a rules value (cached; equal rules values share one entry)."""
    hit = _INFO_BY_ID.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    info = _INFO_BY_VALUE.get(rules)
    if info is None:
        pack = np.array([rules.copies(c) for c in range(NUM_TYPES)], dtype=np.int64)
        pack.setflags(write=False)
        # the oracle's own (read-only) weight arrays
        points, ones = oracle.objective_weights("points", rules), oracle.objective_weights("cards", rules)
        info = RulesInfo(len(_INFO_BY_VALUE), points, pack, ones)
        _INFO_BY_VALUE[rules] = info
    if len(_INFO_BY_ID) > 256:
        _INFO_BY_ID.clear()
    _INFO_BY_ID[id(rules)] = (rules, info)
    return info


def needs_opening(rules: Rules, opened: bool) -> bool:
    """True when the next play of a player must be an opening lay-down (table untouched)."""
    return rules.opening != "none" and not opened


def split_play(play: Counts, hand: Counts) -> tuple[np.ndarray, np.ndarray]:
    """Split a named multiset into ``(from_hand, from_help)``: hand copies first, the excess from help."""
    p = np.asarray(play, dtype=np.int64)
    from_hand = np.minimum(p, np.asarray(hand, dtype=np.int64))
    return from_hand, p - from_hand


def _opening_kw(rules: Rules, opening: bool) -> dict[str, int | bool]:
    if not opening:
        return {}
    return {"need_group": rules.opening == "group", "min_open_points": rules.opening_points}


def _query(lo: np.ndarray, hi: np.ndarray, w: np.ndarray, rules: Rules, kw: dict) -> oracle.Play | None:
    """The oracle's bounded question (:func:`machiavelli_env.oracle.api.solve`): ``counts`` = x - lo."""
    return oracle.solve(lo, hi, w, rules, **kw)


def _feasible_query(lo: np.ndarray, hi: np.ndarray, rules: Rules, kw: dict) -> np.ndarray | None:
    """The oracle's feasibility question (:func:`machiavelli_env.oracle.api.feasible`) swept from the
    king down: some partition's counts over ``lo`` in the box, or None."""
    return oracle.feasible(lo, hi, rules, **kw, sweep="down")


# ---------------------------------------------------------------------------------------------- known plays
_KNOWN: dict[tuple, bool] = {}
#: plays of recent exact lists, known legal: (rules key, opening, table bytes) -> the plays' bytes
_LISTED: dict[tuple, tuple[bytes, ...]] = {}


def _known_key(info: RulesInfo, opening: bool, table: np.ndarray, play: np.ndarray) -> tuple:
    return (info.key, opening, table.tobytes(), play.tobytes())


def _remember(info: RulesInfo, opening: bool, table: np.ndarray, play: np.ndarray, legal: bool) -> None:
    if len(_KNOWN) >= _KNOWN_SIZE:
        _KNOWN.clear()
    _KNOWN[_known_key(info, opening, table, play)] = legal


def _remember_listed(info: RulesInfo, opening: bool, table: np.ndarray, plays: tuple[bytes, ...]) -> None:
    """Record every play of a list (as bytes) as legal on ``table``: one entry for the whole list."""
    if len(_LISTED) >= _LISTED_SIZE:
        _LISTED.clear()
    _LISTED[(info.key, opening, table.tobytes())] = plays


def clear_caches() -> None:
    """Drop the caches of this module (answers never depend on them)."""
    _KNOWN.clear()
    _LISTED.clear()
    _PLAYS.clear()
    _BRANCH.clear()
    _LAST_BEST.clear()


# ---------------------------------------------------------------------------------------------- legality
def help_repack(table: Counts, play: Counts, help_used: Counts, rules: Rules) -> Melds | None:
    """An arrangement of ``table + play + help_used`` in which every help copy lies in a group.

    Exact: tries every group (3-4 cards of the help card's rank, distinct suits, jokers within
    ``max_jokers_per_meld``) holding an uncovered help copy, recursively, and repacks what is left
    with the oracle. ``None`` when no such arrangement exists.
    """
    avail = as_counts(table, "table") + as_counts(play, "play") + as_counts(help_used, "help_used")
    found = _help_cover(avail, avail, as_counts(help_used, "help_used").copy(), rules, set())
    return None if found is None else found[1]


def _help_cover(
    lo: np.ndarray, hi: np.ndarray, need: np.ndarray, rules: Rules, failed: set[tuple[bytes, bytes, bytes]],
    question: Callable[[np.ndarray, np.ndarray], np.ndarray | None] | None = None,
) -> tuple[np.ndarray, Melds] | None:
    """A multiset ``x`` with ``lo <= x <= hi`` that partitions into valid melds with the ``need``
    copies (help cards) in groups, and that arrangement; ``None`` if there is none. Every group
    that can hold the first needed copy is tried (its cards taken from what must be placed first),
    then the rest is the oracle's bounded question. ``failed`` remembers what has no solution.
    :func:`help_repack` is the case ``lo = hi``. ``question(lo, hi)``: the repack question of what is
    left (counts over ``lo`` or None; no melds then), instead of the oracle's exact one."""
    if not need.any():
        if question is not None:
            x = question(lo, hi)
            return None if x is None else (lo + x, [])
        res = _query(lo, hi, _ZERO, rules, {})
        return None if res is None else (lo + res.counts, res.melds)
    key = (lo.tobytes(), hi.tobytes(), need.tobytes())
    if key in failed:
        return None
    c = int(np.flatnonzero(need)[0])
    r, s0 = rank_of(c), suit_of(c)
    others = [make_card(r, s) for s in range(NUM_SUITS) if s != s0 and hi[make_card(r, s)] > 0]
    jmax = min(rules.max_jokers_per_meld if rules.jokers else 0, int(hi[JOKER]))
    for k in range(len(others), -1, -1):
        for subset in itertools.combinations(others, k):
            for j in range(jmax + 1):
                group = [c, *subset] + [JOKER] * j
                if not 3 <= len(group) <= 4 or not is_valid_meld(group, rules):
                    continue
                g = np.bincount(group, minlength=NUM_TYPES)
                n2 = need.copy()
                for card in group:
                    if card != JOKER and n2[card] > 0:
                        n2[card] -= 1
                sub = _help_cover(np.maximum(lo - g, 0), hi - g, n2, rules, failed, question)
                if sub is not None:
                    return sub[0] + g, [group, *sub[1]]
    failed.add(key)
    return None


def check_play(
    table: Counts, hand: Counts, play: Counts, rules: Rules, *, opened: bool = True, help: Counts | None = None
) -> tuple[bool, Melds | None]:
    """Whether ``play`` is legal, and the new table's arrangement when it was computed.

    The arrangement (as :func:`arrange_play` gives it) comes only when it was computed here: help
    plays, and plays not already known to be legal from an earlier :func:`best_play` or
    :func:`legal_plays` answer; otherwise ``None``. Same rules as :func:`arrange_play`.
    """
    t, h, p = as_counts(table, "table"), as_counts(hand, "hand"), as_counts(play, "play")
    hp = None if help is None else as_counts(help, "help")
    from_hand, from_help = split_play(p, h)
    return check_split_play(t, p, from_hand, from_help, rules, needs_opening(rules, opened), hp)


def check_split_play(
    table: np.ndarray,
    play: np.ndarray,
    from_hand: np.ndarray,
    from_help: np.ndarray,
    rules: Rules,
    opening: bool,
    help: np.ndarray | None,
) -> tuple[bool, Melds | None]:
    """:func:`check_play` on validated int64 vectors, the play already split (see :func:`split_play`)."""
    if not np.count_nonzero(from_hand):
        return False, None
    uses_help = np.count_nonzero(from_help) > 0
    if not uses_help:
        info = rules_info(rules)
        key = _known_key(info, opening, table, play)
        known = _KNOWN.get(key)
        if known is not None:
            return known, None
        listed = _LISTED.get(key[:3])
        if listed is not None and key[3] in listed:
            return True, None
        if opening:
            res = _query(play, play, _ZERO, rules, _opening_kw(rules, True))
        else:
            total = table + play
            res = _query(total, total, _ZERO, rules, {})
        legal = res is not None
        _remember(info, opening, table, play, legal)
        return legal, None if res is None else res.melds
    if opening or help is None or np.count_nonzero(from_help > help):
        return False, None
    melds = help_repack(table, from_hand, from_help, rules)
    return melds is not None, melds


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
        res = _query(from_hand, from_hand, _ZERO, rules, _opening_kw(rules, True))
        return None if res is None else res.melds
    if from_help.any():
        return help_repack(t, from_hand, from_help, rules)
    total = t + from_hand
    res = _query(total, total, _ZERO, rules, {})
    return None if res is None else res.melds


# ---------------------------------------------------------------------------------------------- best plays
def best_play(
    table: Counts, hand: Counts, rules: Rules, *, opened: bool = True, objective: str = "cards",
    search_work: int | None = None,
) -> np.ndarray:
    """The oracle's optimal play from the hand (hand cards only), or zeros when there is none.

    ``search_work`` bounds the exact search: it gets that much work, then as much again swept
    the other way (not with opening points), and past that the integer programme answers
    (:func:`machiavelli_env.oracle.api.best_play_then_ilp`, or for an opening lay-down
    :func:`~machiavelli_env.oracle.api.solve_then_ilp`; exact too, of equally good plays perhaps
    another). ``None``: the oracle's own schedule."""
    if search_work is not None and (isinstance(search_work, bool) or not isinstance(search_work, (int, np.integer))
                                    or search_work < 1):
        raise ValueError(f"search_work must be a positive integer or None, got {search_work!r}")
    return best_play_counts(as_counts(table, "table"), as_counts(hand, "hand"), rules, opened, objective, search_work)


def best_play_counts(
    table: np.ndarray, hand: np.ndarray, rules: Rules, opened: bool, objective: str, search_work: int | None = None
) -> np.ndarray:
    """:func:`best_play` on int64 count vectors (and a ``search_work``) already known to be valid."""
    info = rules_info(rules)
    opening = rules.opening != "none" and not opened
    if search_work is None:
        # the question just asked, asked again (under must_play_if_able: whether drawing is
        # allowed, for the turn and again by the engine's step, then a list's fallback play) is
        # answered from here: the full schedule's answer is a function of the question. Only the
        # last one is kept: a cache of many would answer a replayed game from memory
        key = (info.key, opening, objective, b"" if opening else table.tobytes(), hand.tobytes())
        if _LAST_BEST and _LAST_BEST[0] == key:
            return np.frombuffer(_LAST_BEST[1], dtype=np.int64).copy()
    if opening:
        w = info.ones if objective == "cards" else oracle.objective_weights(objective, rules)
        kw = _opening_kw(rules, True)
        res = (_query(_ZERO, hand, w, rules, kw) if search_work is None
               else oracle.solve_then_ilp(_ZERO, hand, w, rules, int(search_work), **kw))
        x = _ZERO.copy() if res is None else res.counts
    elif search_work is None:  # raises OracleError when the table itself cannot be arranged
        x = oracle.best_play(table, hand, rules, objective, arrange=False).counts
    else:
        x = oracle.best_play_then_ilp(table, hand, rules, objective, int(search_work)).counts
    if search_work is None:
        _LAST_BEST[:] = [key, x.tobytes()]
    if np.count_nonzero(x):
        _remember(info, opening, table, x, True)
    return x


def has_play(table: Counts, hand: Counts, rules: Rules, *, opened: bool = True, help: Counts | None = None) -> bool:
    """True when at least one legal play exists (used by ``must_play_if_able``)."""
    if best_play(table, hand, rules, opened=opened).any():
        return True
    if help is not None and as_counts(help, "help").any() and not needs_opening(rules, opened):
        return bool(legal_plays(table, hand, rules, opened=opened, limit=1, help=help))
    return False


# ---------------------------------------------------------------------------------------------- legal plays
_PLAYS: dict[tuple, tuple[bytes, ...]] = {}
_LAST_BEST: list = []  # [key, answer] of the last full-schedule best_play question
# the enumeration's branch questions and their answers (a solution's counts over lo, or None), so
# that a later call asking the same box (another limit on the same position, or the same branch of
# a hand that changed elsewhere) does not ask the oracle again; the answers are the oracle's own
_BRANCH: dict[tuple, bytes | None] = {}


def _feasible_in(
    lo: np.ndarray, hi: np.ndarray, rules: Rules, info: RulesInfo, kw: dict, raced: bool = False
) -> np.ndarray | None:
    """:func:`_feasible_query`'s answer (a fresh array), or None; cached. Swept from the king down:
    see the module's notes on speed. ``raced``: the question's first steps have run in the
    extension and settled nothing (:func:`~machiavelli_env.oracle.api.feasible_after_race`)."""
    key = (info.key, bool(kw), lo.tobytes() + hi.tobytes())  # kw follows from the rules and opening
    if key in _BRANCH:
        hit = _BRANCH[key]
        return None if hit is None else np.frombuffer(hit, dtype=np.int64).copy()
    counts = oracle.feasible_after_race(lo, hi, rules, **kw) if raced else _feasible_query(lo, hi, rules, kw)
    if len(_BRANCH) >= _BRANCH_SIZE:
        _BRANCH.clear()
    _BRANCH[key] = None if counts is None else counts.tobytes()
    return counts


class _Questions:
    """The oracle questions of one :func:`legal_plays` list: exact, or capped by a :class:`ListBudget`
    (a question that gives up answers ``None`` and sets ``gave_up``)."""

    __slots__ = ("rules", "kw", "budget", "gave_up", "cover", "left", "fresh")

    def __init__(self, rules: Rules, kw: dict, budget: ListBudget | None) -> None:
        self.rules, self.kw, self.budget = rules, kw, budget
        self.gave_up = False
        # the list's first capped question starts a fresh relaxation, which the others then share
        # (their work, and so where the list gives up, depends on this list's questions alone)
        self.fresh = True
        self.left = 0 if budget is None else budget.total_work  # work left to the list's questions
        # the repack question of _help_cover: its own exact one, or this list's capped feasibility
        self.cover = None if budget is None else self.feasible

    def _capped(self, ask: Callable[[int, bool], object], cap: int) -> object | None:
        """``ask(cap, fresh)`` within ``cap`` and what is left of the list's work; None when it gives up."""
        cap = min(cap, self.left)
        if cap < 1:
            self.gave_up = True
            return None
        before = oracle.search_work()
        fresh, self.fresh = self.fresh, False
        try:
            return ask(cap, fresh)
        except oracle.WorkLimitReached:
            self.gave_up = True
            return None
        finally:
            self.left -= oracle.search_work() - before

    def by_card(self, base: np.ndarray, h: np.ndarray) -> dict[int, np.ndarray] | None:
        """For each playable hand card type, a max-cards play holding it; None when it gives up."""
        if self.budget is None:
            return oracle.best_counts_by_card(base, h, self.rules, **self.kw)
        res = self._capped(lambda cap, fresh: oracle.best_plays_by_card_within(base, base + h, self.rules, cap,
                                                                               fresh=fresh, **self.kw),
                           self.budget.by_card_work)
        return res  # type: ignore[return-value]

    def optimum(self, lo: np.ndarray, hi: np.ndarray, w: np.ndarray) -> np.ndarray | None:
        """An optimal play's counts over ``lo`` (capped by ``points_work``), or None."""
        if self.budget is None:
            res = _query(lo, hi, w, self.rules, self.kw)
        else:
            res = self._capped(lambda cap, fresh: oracle.solve_within(lo, hi, w, self.rules, cap, fresh=fresh,
                                                                      arrange=False, **self.kw),
                               self.budget.points_work)
        return None if res is None else res.counts  # type: ignore[union-attr]

    def feasible(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray | None:
        """Some partition's counts over ``lo`` in the box (capped by ``question_work``), or None."""
        if self.budget is None:
            return _feasible_query(lo, hi, self.rules, self.kw)
        return self._capped(lambda cap, fresh: oracle.feasible_within(lo, hi, self.rules, cap, fresh=fresh,
                                                                      **self.kw),
                            self.budget.question_work)  # type: ignore[return-value]


def _order_key(x: np.ndarray, pts: np.ndarray) -> tuple:
    """The list's order as a sort key (what :func:`machiavelli_env.oracle.api.order_plays` sorts by)."""
    return (-int(x.sum()), -int(pts @ x), (-x).tolist())


def _finish(plays: list[np.ndarray], info: RulesInfo) -> list[np.ndarray]:
    """``plays`` in the list's order (:func:`_order_key`, sorted by the extension)."""
    return oracle.order_plays(plays, info.points) if len(plays) > 1 else plays


def legal_plays(
    table: Counts,
    hand: Counts,
    rules: Rules,
    *,
    opened: bool = True,
    limit: int = 64,
    help: Counts | None = None,
    budget: ListBudget | None = None,
) -> list[np.ndarray]:
    """Distinct legal plays (count vectors), most cards first, then most hand points.

    Ties are broken by the count vectors (more copies of lower card types first), so the order
    is total. All legal plays when there are at most ``limit``. Otherwise a deterministic subset of
    ``limit`` plays made of, in this priority:

    1. a max-cards play (the first, in card order, of the plays of 3 with the most cards),
    2. a max-points play (the oracle's ``best_play(..., "points")``),
    3. for each playable hand card type, in card order, a max-cards play containing it (the
       oracle's :func:`~machiavelli_env.oracle.api.best_plays_by_card`),
    4. then the first plays of a depth-first enumeration that tries the playable card types in
       card order and, for each, larger counts first,

    without repeats, then sorted as above. The guarantees of 1-3 hold whenever ``limit`` is at
    least 2 plus the number of playable card types. With ``help`` (the help pile, when the
    player may use it) plays may also name help cards; the guaranteed entries are computed over
    hand cards only.

    ``budget`` (a :class:`ListBudget`) bounds the oracle's effort: each question gets a work cap,
    the enumeration a number of branches, and what does not fit is left out, so a list's cost is
    bounded on any position, and it is the same list on every machine and after any history of
    calls. Left out are the entries 1-3 whose question gave up and the plays past the last branch
    considered (or beneath a branch whose question gave up); the rest of the order above holds.
    The default (``None``) lists exactly as described, which on a crowded table with a big hand
    (jokers, several decks) can take hundreds of milliseconds.

    Args:
        table: card counts (53,) of the table, a valid table (it partitions into melds).
        hand: card counts (53,) of the player's hand.
        rules: the rules the plays must follow.
        opened: whether the player has made the opening lay-down (under an opening rule, a player
            who has not may only lay down melds from the hand, table untouched).
        limit: the most plays listed (at least 1).
        help: the face-up help pile (53,) when the player may use it, else ``None``.
        budget: a :class:`ListBudget` bounding the oracle's effort, or ``None`` for the exact list.

    Returns:
        The plays as count vectors (53,) of int64, most cards first (see the order above).

    Raises:
        ValueError: ``limit`` below 1 or a bad count vector.
        TypeError: ``budget`` is not a :class:`ListBudget`.
    """
    t, h = as_counts(table, "table"), as_counts(hand, "hand")
    hp = None if help is None or needs_opening(rules, opened) else as_counts(help, "help")
    return legal_plays_counts(t, h, rules, opened, limit, hp, budget)


def legal_plays_counts(
    t: np.ndarray, h: np.ndarray, rules: Rules, opened: bool, limit: int, help: np.ndarray | None,
    budget: ListBudget | None,
) -> list[np.ndarray]:
    """:func:`legal_plays` of int64 count vectors already known to be valid (a game state's table,
    hand and help pile, as :func:`machiavelli_env.game.legal_plays` passes them); ``limit`` and
    ``budget`` are checked here."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    if budget is not None and not isinstance(budget, ListBudget):
        raise TypeError(f"budget must be a ListBudget or None, got {type(budget).__name__}")
    info = rules_info(rules)
    opening = needs_opening(rules, opened)
    hp = None if help is None or opening or not help.any() else help
    key = (info.key, opening, t.tobytes(), h.tobytes(), b"" if hp is None else hp.tobytes(), int(limit), budget)
    hit = _PLAYS.get(key)
    if hit is not None:
        if hp is None and hit:
            _remember_listed(info, opening, t, hit)
        return [np.frombuffer(b, dtype=np.int64).copy() for b in hit]
    plays = _legal_plays(t, h, hp, rules, info, opening, int(limit), budget)
    if len(_PLAYS) >= _PLAYS_SIZE:
        _PLAYS.clear()
    blobs = _PLAYS[key] = tuple(x.tobytes() for x in plays)
    if hp is None and blobs:  # each listed play is legal: playing it asks the oracle nothing
        _remember_listed(info, opening, t, blobs)
    return plays


#: exact lists (no help pile, no opening) of hands of at most this many card types first try
#: :func:`_short_list`, on joker tables and on others; 0 never (the lists are the same either way).
#: The per-card pass it may spare costs 1-6 ms on joker tables, about 0.1 ms on others, and on hands
#: of more types most lists are full (the short pass is then wasted). Measured in instructions
#: (callgrind) on lists recorded from random play and from PPO rollouts: 3.4x fewer on random
#: play of the joker presets and 2.0x on classic, 1.5% more on the PPO rollouts' big classic hands
_SHORT_FIRST = 14
_SHORT_FIRST_NO_JOKERS = 8


def _short_list(t: np.ndarray, h: np.ndarray, rules: Rules, info: RulesInfo, limit: int) -> list[np.ndarray] | None:
    """Every legal play, sorted, when there are at most ``limit`` of them; ``None`` when there are
    more (the list is then :func:`legal_plays`' subset, which needs the oracle's per-card pass).

    When all legal plays fit in the list, the list is all of them whatever the per-card pass would
    answer, so they are found by the extension's depth-first pass alone, over every held card type
    from the empty play (the table is a partition), each branch question exact; it stops at the
    ``limit + 1``-th play found."""
    types = np.flatnonzero(h).tolist()
    if not types:
        return []
    found, stopped = oracle.enumerate_plays(
        t, h, types, _ZERO, rules, limit=limit + 1, asked=True, guaranteed=[], points=_NO_POINTS,
        feasible=lambda lo, hi: _feasible_in(lo, hi, rules, info, {}, raced=True))
    if stopped:
        return None
    return _finish(found, info)  # each play its own array (over its own buffer)


def _NO_POINTS(left: int, fresh: bool) -> tuple[None, int, bool]:  # never called: `asked` is set
    raise AssertionError("the max-points play is not asked for in a short list")


def _exact_list(t: np.ndarray, h: np.ndarray, rules: Rules, info: RulesInfo, limit: int) -> list[np.ndarray]:
    """The exact list of an opened player without help cards, built by the extension in one call
    (:func:`~machiavelli_env.oracle.api.exact_list`): the steps of :func:`_legal_plays`, the same plays."""
    def best_points(hi: np.ndarray) -> np.ndarray | None:
        res = _query(t, hi, info.points, rules, {})
        return None if res is None or not res.counts.any() else res.counts

    return oracle.exact_list(
        t, h, rules, limit=limit, short_types=_SHORT_FIRST if rules.jokers else _SHORT_FIRST_NO_JOKERS,
        points=info.points, by_card=lambda: oracle.best_counts_by_card(t, h, rules, after_pass=True),
        best_points=best_points,
        feasible=lambda lo, hi: _feasible_in(lo, hi, rules, info, {}, raced=True))


def _legal_plays(
    t: np.ndarray, h: np.ndarray, hp: np.ndarray | None, rules: Rules, info: RulesInfo, opening: bool, limit: int,
    budget: ListBudget | None,
) -> list[np.ndarray]:
    if budget is None and hp is None and not opening and _C_ENUMERATION and _C_LIST:
        return _exact_list(t, h, rules, info, limit)
    if (budget is None and hp is None and not opening and _C_ENUMERATION
            and np.count_nonzero(h) <= (_SHORT_FIRST if rules.jokers else _SHORT_FIRST_NO_JOKERS)):
        short = _short_list(t, h, rules, info, limit)
        if short is not None:
            return short
    base = _ZERO if opening else t
    kw = _opening_kw(rules, opening)
    ones = info.ones
    ask = _Questions(rules, kw, budget)

    # one forward/backward pass of the oracle: for every playable hand card type, a max-cards play
    # containing it; the first of those with the most cards is a max-cards play overall
    # with a budget, first whether the whole hand is a legal play (one repack): it is then the only
    # max-cards play, the entry that matters most (going out), listed even if the pass gives up
    whole = budget is not None and hp is None and h.any() and ask.feasible(base + h, base + h) is not None
    answered = ask.by_card(base, h)
    by_card = {} if answered is None else answered  # None: the pass gave up (budget)
    playable = sorted(by_card)
    root = max((by_card[c] for c in playable), key=lambda x: int(x.sum()), default=None)
    if whole and answered is None:
        root = h.copy()
    if hp is None and root is None and answered is not None:
        return []

    # depth-first enumeration. Whether a branch holds a legal play does not depend on which witness
    # was found, so the branch queries ask for any arrangement (no weights: no optimum to prove) and
    # the plays listed are the same; a feasible query's solution (a witness) makes the child that agrees
    # with it free. With help cards every held or help type takes part and each leaf is checked.
    if hp is None and answered is not None:
        avail = np.zeros(NUM_TYPES, dtype=np.int64)
        avail[playable] = h[playable]
        types = playable
        top = root
    else:  # help cards, or no playable types known: every held (or help) type, from a witness
        avail = h if hp is None else h + hp
        types = [int(c) for c in np.flatnonzero(avail)]
        top = ask.optimum(base, base + avail, ones) if budget is None else ask.feasible(base, base + avail)
    # the guaranteed entries (hand cards only): max cards, max points (asked for only when the list
    # might be long enough to need it), one per playable card
    guaranteed: list[np.ndarray] = [] if root is None else [root, *(by_card[c] for c in playable)]
    g_keys = {y.tobytes() for y in guaranteed}
    points_play: list[np.ndarray] = []  # filled by ask_points
    asked = root is None and answered is not None

    def ask_points() -> None:
        nonlocal asked, extra
        asked = True
        hand_only = base + avail if hp is None else base + h
        x = ask.optimum(base, hand_only, info.points)
        if x is not None and x.any():
            points_play.append(x)
            k = x.tobytes()
            if k not in g_keys:
                g_keys.add(k)
                extra -= k in seen

    def enough() -> bool:
        # at least `limit` distinct legal plays are known: the guaranteed ones (the points play
        # included) and the plays found so far. The answer is then the first `limit` of the
        # guaranteed entries followed by the enumeration's plays in its order, which the plays
        # still to be found cannot change
        if not asked and len(g_keys) + extra >= limit - 1:
            ask_points()
        return asked and len(g_keys) + extra >= limit

    found: list[np.ndarray] = []
    seen: set[bytes] = set()
    extra = 0  # plays found that are not guaranteed entries

    def emit(x: np.ndarray) -> None:
        nonlocal extra
        k = x.tobytes()
        if k in seen:
            return
        if hp is not None:
            from_hand, from_help = split_play(x, h)
            if not from_hand.any():
                return
            if from_help.any():
                whole = t + from_hand + from_help
                if _help_cover(whole, whole, from_help.copy(), rules, set(), ask.cover) is None:
                    return
        seen.add(k)
        found.append(x.copy())
        extra += k not in g_keys

    x = _ZERO.copy()
    rest = np.zeros(NUM_TYPES, dtype=np.int64)
    rest[types] = avail[types]
    n_types = len(types)
    failed: set[tuple[bytes, bytes, bytes]] = set()

    def branch(lo: np.ndarray, hi: np.ndarray) -> np.ndarray | None:
        # a solution x of the branch (counts over base), or None. With help cards the help copies
        # the branch has fixed must lie in groups, as they must in every play below it: a branch
        # that cannot do that holds no legal play, and asking so keeps the enumeration from
        # visiting every subset beneath it
        need = None if hp is None else np.maximum(x - h, 0)
        if need is None or not need.any():
            sol = _feasible_in(lo, hi, rules, info, kw) if budget is None else ask.feasible(lo, hi)
            return None if sol is None else lo - base + sol
        sol = _help_cover(lo, hi, need, rules, failed, ask.cover)
        return None if sol is None else sol[0] - base

    nodes = 0  # branches considered
    max_nodes = 0 if budget is None else budget.nodes

    def dfs(i: int, witness: np.ndarray) -> bool:  # True: stop (more than `limit` found, or no branches left)
        nonlocal nodes
        if i == n_types:
            if x.any():
                emit(x)
            return enough()
        c = types[i]
        rest[c] = 0
        stop = False
        for k in range(int(avail[c]), -1, -1):
            if max_nodes:
                if nodes >= max_nodes or ask.left < 1:
                    stop = ask.gave_up = True
                    break
                nodes += 1
            x[c] = k
            if k == witness[c]:
                child = witness
            else:
                lo = base + x
                child = branch(lo, lo + rest)
                if child is None:
                    continue
            if dfs(i + 1, child):
                stop = True
                break
        x[c] = 0
        rest[c] = avail[c]
        return stop

    def bounded_dfs() -> bool:
        # dfs(0, top) for a bounded list, run by the extension (the same branches, questions, work and
        # plays; see _C_ENUMERATION)
        def points(left: int, fresh: bool) -> tuple[np.ndarray | None, int, bool]:
            ask.left, ask.fresh = left, fresh
            ask_points()
            return (points_play[0] if points_play else None), ask.left, ask.fresh

        assert budget is not None
        more, stop, gave_up, ask.left, ask.fresh = oracle.enumerate_plays_within(
            base, avail, types, top, rules, max_nodes=budget.nodes, question_work=budget.question_work,
            left=ask.left, fresh=ask.fresh, limit=limit, asked=asked, guaranteed=[*guaranteed, *points_play],
            points=points, hand=None if hp is None else h, **kw)
        found.extend(more)
        ask.gave_up = ask.gave_up or gave_up
        return stop

    def exact_dfs() -> bool:
        # dfs(0, top) for an exact list, run by the extension (the same branches and plays; the
        # questions its own first steps leave come back to _feasible_in)
        def points(left: int, fresh: bool) -> tuple[np.ndarray | None, int, bool]:
            ask_points()
            return (points_play[0] if points_play else None), left, fresh

        more, stop = oracle.enumerate_plays(
            base, avail, types, top, rules, limit=limit, asked=asked, guaranteed=[*guaranteed, *points_play],
            points=points, feasible=lambda lo, hi: _feasible_in(lo, hi, rules, info, kw, raced=True),
            hand=None if hp is None else h, **kw)
        found.extend(more)
        return stop

    # more than `limit` plays may be known before the enumeration starts (the guaranteed entries)
    stopped = enough()
    if not stopped and types and top is not None:
        if not _C_ENUMERATION:
            stopped = dfs(0, top)
        else:
            stopped = bounded_dfs() if budget is not None else exact_dfs()

    if not stopped and not ask.gave_up:
        plays = found  # every legal play (at most `limit`)
    else:
        if not asked:  # the budget left plays out: the max-points play is listed all the same
            ask_points()
        guaranteed[1:1] = points_play
        plays, keys = [], set()
        for y in guaranteed + found:
            k = y.tobytes()
            if k not in keys and len(plays) < limit:
                keys.add(k)
                plays.append(y)
    return _finish(plays, info)
