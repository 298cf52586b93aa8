"""Exact legal-play lists are the same lists, in the same order, as the recorded ones.

``benchmarks/list_digest.py`` lists every position of seeded games on every preset (greedy, hoarder
and random seats; help piles and openings included) with ``limit`` 32 and 6 and hashes the
positions and lists. The digests in ``tests/data/list_digest.json`` were recorded before exact
lists' depth-first pass moved into the extension; this runs the short one.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import list_digest  # noqa: E402


def test_exact_lists_match_the_recorded_digest_on_every_preset(capsys) -> None:
    assert list_digest.main(["--games", "2", "--every", "3", "--seed", "4200", "--check"]) == 0
    assert "same as recorded" in capsys.readouterr().out
