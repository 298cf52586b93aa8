"""What the oracle is asked: a :class:`Question` and a :class:`Budget`.

Every public function of :mod:`.api` turns its arguments into one question and one budget and hands
them to :func:`machiavelli_env.oracle.pipeline.answer`; :mod:`.dp` reads a question's fields when it
calls the extension. A question is immutable and its arrays are trusted (valid int64 count vectors,
checked by :mod:`.api` or by the caller).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..rules import Rules

#: question kinds: a box ``lo <= x <= hi`` (solve, feasible, repack, best play containing a card,
#: opening lay-down); the best play from a hand (``lo`` the table, ``hi`` the table plus the hand),
#: which the extension answers with its own schedule first; the best play holding each card type
BOX, BEST, BY_CARD = "box", "best", "by_card"


class Question(NamedTuple):
    """Choose counts ``lo <= x <= hi`` maximising ``weights @ (x - lo)`` such that ``x`` partitions into
    valid melds of ``rules`` (with a group when ``need_group``, worth ``min_open`` opening points or
    more when that is positive).

    ``kind`` is :data:`BOX`, :data:`BEST` or :data:`BY_CARD`. ``down``: the search sweeps from the king
    first (the rank-reversed position; never with opening points). ``counts_only``: the caller needs
    the counts alone (a feasibility question may then be answered by the LP relaxation's point).
    ``melds``: build the arrangement (searches given a work count, and the per-card pass, may skip it).
    ``objective``: the name of the objective the weights are (the extension's direct best-play entry
    takes the name). A tuple, so that building one costs little: the oracle asks many.
    """

    kind: str
    lo: np.ndarray
    hi: np.ndarray
    weights: np.ndarray
    rules: Rules
    need_group: bool = False
    min_open: int = 0
    down: bool = False
    counts_only: bool = False
    melds: bool = True
    objective: str = "cards"

    @property
    def mirrorable(self) -> bool:
        """The rank-reversed position asks the same question (not with opening points, whose card
        values the reversal would change)."""
        return not self.min_open


#: budget modes: the full schedule, exact on any position; the extension's search alone, giving
#: up past a work count; every search given a work count, then the exact steps that need none
EXACT, CAPPED, BOUNDED = "exact", "capped", "bounded"


class Budget(NamedTuple):
    """How much a question may cost, in the search's work count (never time).

    ``mode`` :data:`EXACT`: the whole schedule (``raced``: its first steps have already run in the
    extension and settled nothing: the race and the LP refuter of an exact legal-play list's branch
    question, or the per-card pass of its list). :data:`CAPPED`: the
    search alone within ``work``, its per-suit relaxation charged too (``fresh``: from a fresh
    start, so that giving up depends on the question alone); it may give up. :data:`BOUNDED`: each
    search within ``work``, then the relaxation and the integer programme, which take no count:
    exact, of equally good answers perhaps another.
    """

    mode: str = EXACT
    work: int = 0
    fresh: bool = True
    raced: bool = False


FULL = Budget()
AFTER_RACE = Budget(raced=True)


def capped(work: int, fresh: bool = True) -> Budget:
    """A :data:`CAPPED` budget of ``work`` (at least 1)."""
    if work < 1:
        raise ValueError(f"cap must be at least 1, got {work}")
    return Budget(CAPPED, work, fresh)


def bounded(work: int) -> Budget:
    """A :data:`BOUNDED` budget of ``work`` per search."""
    return Budget(BOUNDED, int(work))
