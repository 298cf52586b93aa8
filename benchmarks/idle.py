"""How a ``best_play`` call slows down with the time since the oracle last ran.

``benchmarks/oracle.py`` reports two latencies per position: "warm" (the same query repeated back
to back) and "first" (the first call on the position, in a loop where each call follows the other
solvers' calls). This script separates the two effects behind the gap. Each shared 2-deck ace-low
case is solved once, then solved again after a pause of a given length, and only the second call
is timed. Two kinds of pause:

- ``spin``: a busy loop of pure Python that touches almost no memory (it reads the clock);
- ``sleep``: ``time.sleep`` (the process gives up the CPU).

Where the slowdown grows with the pause itself, and not with how much memory the pause touched,
a first call's cost measures the time since the oracle last ran on this machine (its caches and
predictors fading while other work runs) as much as the oracle's own work. When
``rummikub-solver`` is importable (see ``benchmarks/README.md``), a third row times the call right
after one rummikub-solver (GLPK_MI) solve of the same position, as ``oracle.py``'s first calls are.

    python benchmarks/idle.py                 # about 30 s
    .bench-venv/bin/python benchmarks/idle.py # with the rummikub-solver row
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import oracle as bench  # noqa: E402  (benchmarks/oracle.py: the cases and the rummikub-solver adapter)

from machiavelli_env.oracle import api  # noqa: E402

PAUSES_MS = (0.0, 0.02, 0.1, 0.3, 1.0, 4.0, 16.0)


def spin(seconds: float) -> None:
    """Busy-wait in Python for ``seconds`` (no allocation, no system call)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def pause(kind: str, seconds: float) -> None:
    """One pause of the given kind (no pause at all for 0 s)."""
    if seconds <= 0:
        return
    if kind == "spin":
        spin(seconds)
    else:
        time.sleep(seconds)


def timed_after(queries: list[bench.Query], conditions: dict[str, Callable[[bench.Query], None]], reps: int,
                seed: int = 0) -> dict[str, float]:
    """Median µs of ``best_play`` on each query under each condition: ``before(q)`` runs between a
    first, untimed call on q and the timed one. The conditions take turns on every query, in an
    order shuffled each time, so that drifts of the machine's speed hit them alike."""
    rng = np.random.default_rng(seed)
    names = list(conditions)
    times: dict[str, list[int]] = {name: [] for name in names}
    for _ in range(reps):
        for q in queries:
            for i in rng.permutation(len(names)):
                name = names[i]
                api.best_play(q.table, q.hand, q.rules)
                conditions[name](q)
                t0 = time.perf_counter_ns()
                api.best_play(q.table, q.hand, q.rules)
                times[name].append(time.perf_counter_ns() - t0)
    return {name: float(np.median(t)) / 1e3 for name, t in times.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=Path, default=bench.DEFAULT_CASES, help="oracle cases (JSON lines)")
    ap.add_argument("--reps", type=int, default=3, help="passes over the cases per pause")
    ap.add_argument("--pauses-ms", default=",".join(str(p) for p in PAUSES_MS),
                    help="comma-separated pause lengths in milliseconds")
    args = ap.parse_args(argv)
    pauses = [float(x) for x in args.pauses_ms.split(",")]
    if args.reps < 1 or any(p < 0 for p in pauses):
        ap.error("--reps must be at least 1 and the pauses non-negative")
    queries = [q for q in bench.load_cases(args.cases, quick=False) if q.acelow2]
    if not queries:
        ap.error(f"no 2-deck ace-low cases in {args.cases}")
    for q in queries:  # the transitions of every position cached: only the pause differs below
        api.best_play(q.table, q.hand, q.rules)
    conditions: dict[str, Callable[[bench.Query], None]] = {}
    for ms in pauses:
        for kind in ("spin", "sleep"):
            conditions[f"{kind} {ms:g}"] = lambda q, k=kind, sec=ms / 1e3: pause(k, sec)
    rs_times: list[int] = []
    backends, note = bench.rummikub_backends(["GLPK_MI"])
    if "GLPK_MI" in backends:
        rs = backends["GLPK_MI"]
        with bench.quiet_stdout():
            for q in queries:
                rs.prepare(q)

        def after_rs(q: bench.Query) -> None:
            with bench.quiet_stdout():
                t0 = time.perf_counter_ns()
                rs(q)
                rs_times.append(time.perf_counter_ns() - t0)

        conditions["rs"] = after_rs
    med = timed_after(queries, conditions, args.reps)
    print(f"best_play on {len(queries)} shared 2-deck ace-low cases: median µs of the call after a pause "
          f"({args.reps} passes; load average {', '.join(f'{x:.2f}' for x in os.getloadavg())})")
    print(f"  {'pause':>8} {'spin':>8} {'sleep':>8}")
    base = med[f"spin {pauses[0]:g}"]
    for ms in pauses:
        sp, sl = med[f"spin {ms:g}"], med[f"sleep {ms:g}"]
        print(f"  {ms:>6g}ms {sp:>8.1f} {sl:>8.1f}   (spin: {sp / base:.1f}x the first row)")
    if rs_times:
        rs_us = float(np.median(rs_times)) / 1e3
        print(f"  after a rummikub-solver (GLPK_MI) solve, {rs_us / 1e3:.2f} ms at the median: {med['rs']:.1f} µs "
              f"({rs_us / med['rs']:.0f}x faster)")
    else:
        print(f"  (no rummikub-solver row: {note or 'its GLPK_MI backend is not available'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
