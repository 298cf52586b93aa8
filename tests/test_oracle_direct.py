"""The oracle's direct path: ``best_play`` and ``repack`` make one call into the extension, which
finds the rules' arguments by the object's identity and builds the ``Play`` itself; anything else
takes the general path. Both paths must give the same answers and the same errors."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from machiavelli_env.cards import NUM_TYPES, to_counts
from machiavelli_env.oracle import OracleError, Play, best_play, dp, pipeline, repack
from machiavelli_env.oracle.question import BEST, Question
from machiavelli_env.rules import Rules

DATA = Path(__file__).parent / "data" / "oracle_cases" / "cases.jsonl"
CASES = [json.loads(line) for line in DATA.open() if line.strip()][::6]


def _same(a: Play, b: Play) -> None:
    assert a.value == b.value
    assert np.array_equal(a.counts, b.counts)
    assert a.melds == b.melds


def test_direct_and_general_paths_give_the_same_plays_and_arrangements() -> None:
    """Arrays take the direct path, lists the general one: same play, value and arrangement for
    both objectives, and the same repack of the probe play."""
    for c in CASES:
        rules = Rules.from_dict(c["rules"])
        table, hand, probe = to_counts(c["table"]), to_counts(c["hand"]), to_counts(c["probe"]["play"])
        for objective in ("cards", "points"):
            direct = best_play(table, hand, rules, objective)
            general = best_play(table.tolist(), hand.tolist(), rules, objective)
            assert type(direct) is Play and type(general) is Play
            _same(direct, general)
        assert repack(table, probe, rules) == repack(table.tolist(), probe.tolist(), rules)


def test_rules_objects_sharing_a_slot_keep_their_own_arguments() -> None:
    """Thousands of rules objects (more than the 512 slots) of different ace rules, joker counts
    and point schemes, registered and evicted in turn: each query is answered with its own rules,
    as the general path (the extension called with explicit arguments) answers it."""
    table = to_counts("5H 6H 7H 2S 3S 4S")
    hand = to_counts("8H AS 5S JK KS AH")
    variants = [
        dict(ace=ace, jokers=j, points=pts)
        for ace in ("low", "high", "low_or_high", "wrap")
        for j in (0, 2)
        for pts in ("ace11", "ace1")
    ]
    objects = [Rules.load("classic", **variants[i % len(variants)]) for i in range(1500)]
    for rep in range(2):
        for i, rules in enumerate(objects if rep == 0 else objects[::-7]):
            h = hand if rules.jokers else hand * (np.arange(NUM_TYPES) != 52)
            objective = "points" if i % 2 else "cards"
            got = best_play(table, h, rules, objective)
            hit = dp.rules_args(rules)
            want = pipeline.answer(Question(BEST, table, table + h, hit.weights_for(objective), rules))
            assert got.value == want[0], (rules.ace, rules.jokers, rules.points, objective)
            assert np.array_equal(got.counts, np.frombuffer(want[1], dtype=np.int64))


def test_objective_strings_are_matched_by_value() -> None:
    """An objective built at run time (not the interned literal) takes the direct path too and
    gets the same answer; an unknown one is an error naming it."""
    rules = Rules.load("classic")
    table, hand = to_counts("KH KC KD"), to_counts("KS AS 2H")
    points = "".join(["poi", "nts"])
    assert best_play(table, hand, rules, points).value == best_play(table, hand, rules, "points").value == 10
    with pytest.raises(OracleError, match="unknown objective 'score'"):
        best_play(table, hand, rules, "score")


def test_bad_input_gets_the_general_paths_errors() -> None:
    """A negative count, a wrong shape and more copies than the pack are named as before; a table
    that cannot be arranged is an OracleError on both paths."""
    rules = Rules.load("classic")
    table, hand = to_counts("KH KC KD"), to_counts("AS")
    bad = hand.copy()
    bad[3] = -1
    with pytest.raises(OracleError, match="hand"):
        best_play(table, bad, rules)
    with pytest.raises(OracleError):
        best_play(table, hand[:52], rules)
    with pytest.raises(OracleError, match="more copies than the pack"):
        best_play(table, to_counts("KH KH"), rules)
    with pytest.raises(OracleError, match="play"):
        repack(table, bad, rules)
    broken = to_counts("KH KC")
    for t in (broken, broken.tolist()):
        with pytest.raises(OracleError, match="cannot be arranged"):
            best_play(t, hand, rules)
        assert repack(t, np.zeros(NUM_TYPES, dtype=np.int64), rules) is None


def test_plays_from_the_direct_path_are_read_only_and_pickle() -> None:
    rules = Rules.load("classic")
    play = best_play(to_counts("KH KC KD"), to_counts("KS 5C"), rules)
    assert type(play) is Play and play.value == 1
    with pytest.raises(AttributeError):
        play.value = 3  # type: ignore[misc]
    _same(pickle.loads(pickle.dumps(play)), play)


def test_a_new_rules_object_with_registered_values_is_recognised_by_the_extension() -> None:
    """Once one rules object is registered, another with the same oracle fields (a fresh object,
    as a caller making rules per position has) is registered by the extension on its first call;
    one that differs in a field the oracle reads (the point scheme) is not mistaken for it."""
    from machiavelli_env.oracle import _dp  # type: ignore[attr-defined]

    table, hand = to_counts("KH KC KD"), to_counts("KS AS 2H")
    first = Rules.load("classic", ace="low", jokers=1, name="first")
    best_play(table, hand, first)
    twin = Rules.load("classic", ace="low", jokers=1, name="twin")
    assert twin is not first and not _dp.registered(twin)
    assert _dp.best_play(table, hand, twin, "points").value == 10
    assert _dp.registered(twin)
    run, ace = to_counts("2H 3H 4H"), to_counts("AH")
    assert best_play(run, ace, twin, "points").value == 11
    other = Rules.load("classic", ace="low", jokers=1, points="ace1")
    assert _dp.best_play(run, ace, other, "points") is NotImplemented
    assert best_play(run, ace, other, "points").value == 1


def test_arrays_of_other_integer_types_and_byte_orders_give_the_same_answers() -> None:
    """int32, uint8, bool and byte-swapped int64 arrays are read as the counts they hold (the
    extension reads this machine's byte order only; others take the general path)."""
    rules = Rules.load("classic")
    table, hand = to_counts("KH KC KD 5H 6H 7H"), to_counts("KS 8H 9H 2C")
    want = best_play(table, hand, rules)
    swapped = table.astype(table.dtype.newbyteorder())
    for t, h in ((table.astype(np.int32), hand.astype(np.uint8)), (swapped, hand), (table, hand.astype(bool) * 1),
                 (table, hand.astype(hand.dtype.newbyteorder()))):
        _same(best_play(t, h, rules), want)
    assert repack(swapped, to_counts("8H"), rules) == repack(table, to_counts("8H"), rules)


def test_only_arrays_take_the_direct_path() -> None:
    """Other buffers go through the general path, which reads them as numpy does: bytes get its
    shape error, as before; a bytearray or memoryview of 53 bytes is 53 counts."""
    rules = Rules.load("classic")
    for ok in (bytearray(53), memoryview(bytes(53))):
        assert repack(to_counts("KH KC KD"), ok, rules) == [[25, 38, 51]]
    with pytest.raises(OracleError, match="shape"):
        best_play(bytes(53), to_counts("AS"), rules)
    with pytest.raises(OracleError, match="shape"):
        repack(to_counts("KH KC KD"), bytes(53), rules)


def test_repack_returns_the_arrangement_of_a_mirrored_retry(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the memo runs out, the general path asks the mirrored position, whose answer carries
    its melds as lists (not encoded): repack returns them as they are."""
    from machiavelli_env.oracle import api

    rules = Rules.load("classic", ace="low")
    table, play = to_counts("5H 6H 7H KC KD"), to_counts("8H KS")
    monkeypatch.setattr(api, "_direct_repack", lambda *args: NotImplemented)
    monkeypatch.setattr(api, "answer", lambda q, *budget: dp.search(q, 0, mirrored=True))
    melds = repack(table, play, rules)
    assert melds is not None
    assert sorted(c for m in melds for c in m) == sorted(np.repeat(np.arange(NUM_TYPES), table + play).tolist())


def test_work_is_a_count_that_repeats_exactly_for_the_same_queries() -> None:
    """``dp.work()`` counts search steps, not time: the same queries add the same work, a crowded
    joker position adds some, and ``stats()`` reports the same total."""
    r = Rules.load("classic", jokers=2)
    table = to_counts("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 5S 5D 5C JK 7S 8S 9S 3C 3D 3S JK 10D JD QD")
    hand = to_counts("KD 4C 4D 9H 2S 2C JS QS")
    added = []
    for _ in range(3):
        dp._dp.clear_caches()
        before = dp.work()
        answers = [best_play(table, hand, r, objective).counts.tobytes() for objective in ("cards", "points")]
        added.append((dp.work() - before, answers))
    assert added[0][0] > 0
    assert added[0] == added[1] == added[2]
    assert dp.stats()["work"] == dp.work()
