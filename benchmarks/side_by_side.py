"""Run one benchmark script on a previous commit and on the working tree, side by side.

Usage::

    python benchmarks/side_by_side.py --baseline REV [--rounds N] [--keys REGEX] SCRIPT [ARGS ...]

``REV`` is checked out in a temporary git worktree and built there as ``benchmarks/train_speed.py``
does (``--baseline``). Then, for ``--rounds`` rounds (default 2), ``python benchmarks/SCRIPT ARGS --json
OUT`` runs in each tree, base first in odd rounds and this first in even ones, so that the machine's
drift falls on both alike; each run is a fresh process with ``PYTHONPATH`` set to its tree. Each side
runs its own copy of ``SCRIPT``; a warning says when the two copies differ (then the timed code is not
the same).

The numeric figures of the JSON files whose dotted path matches ``--keys`` (a regular expression,
searched) are printed per side as the median over the rounds, with the ratio this/base. The script's
own output goes to ``--log DIR`` (default: a temporary folder, printed and kept), one file per run. The
worktree is removed at the end, also after a failed build, an error or SIGTERM::

    python benchmarks/side_by_side.py --baseline HEAD~1 --keys 'dp\\.warm_median_us' oracle.py --quick
    python benchmarks/side_by_side.py --baseline HEAD~1 --keys 'p99_ms|max_ms' tail.py --games 6
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import train_speed  # noqa: E402  (the worktree and build of the baseline)


def _label(item: Any, index: int) -> str:
    """A list item's name in a path: its ``config``, ``preset`` or ``name`` field, else its index."""
    if isinstance(item, dict):
        for field in ("config", "preset", "name"):
            if isinstance(item.get(field), str):
                return item[field]
    return str(index)


def flatten(obj: Any, prefix: str = "") -> dict[str, float]:
    """Every numeric leaf of a JSON value, by its dotted path (list items by name or index)."""
    out: dict[str, float] = {}
    if isinstance(obj, dict):
        items: Any = obj.items()
    elif isinstance(obj, list):
        items = ((_label(v, i), v) for i, v in enumerate(obj))
    else:
        items = ()
    for key, value in items:
        path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, bool):
            continue
        if isinstance(value, (int, float)):
            out[path] = float(value)
        else:
            out.update(flatten(value, path))
    return out


def run(tree: train_speed.Tree, script: str, args: list[str], out: Path, log: Path) -> dict[str, float]:
    """``SCRIPT ARGS --json OUT`` in ``tree``; its figures, flattened."""
    cmd = [sys.executable, str(tree.path / "benchmarks" / script), *args, "--json", str(out)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=tree.path, env=tree.env(), capture_output=True, text=True)
    log.write_text(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        raise RuntimeError(f"{tree.label}: {' '.join(cmd[1:])} failed (log {log}):\n{proc.stderr[-2000:]}")
    print(f"  {tree.label}: {time.perf_counter() - t0:.0f} s", flush=True)
    return flatten(json.loads(out.read_text()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", required=True, help="the commit to compare with (built in a temporary worktree)")
    ap.add_argument("--rounds", type=int, default=2, help="interleaved rounds (default 2)")
    ap.add_argument("--keys", default=".", help="regular expression of the figures to print (dotted JSON paths)")
    ap.add_argument("--log", type=Path, help="folder for each run's output and JSON (default: a temporary one)")
    ap.add_argument("script", help="a script of benchmarks/ that takes --json OUT")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    keys = re.compile(args.keys)
    tmp = Path(tempfile.mkdtemp(prefix="side_by_side_"))
    log = args.log or tmp / "runs"
    log.mkdir(parents=True, exist_ok=True)
    this = train_speed.Tree("this", ROOT, train_speed._git("rev-parse", "HEAD"))
    # SIGTERM: leave through the finally below (the worktree removed)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        base = train_speed.make_base(args.baseline, tmp)
        if (base.path / "benchmarks" / args.script).read_bytes() != (ROOT / "benchmarks" / args.script).read_bytes():
            print(f"warning: benchmarks/{args.script} differs between the two trees", flush=True)
        figures: dict[str, list[dict[str, float]]] = {"base": [], "this": []}
        for r in range(1, args.rounds + 1):
            print(f"round {r}", flush=True)
            for tree in ((base, this) if r % 2 else (this, base)):
                stem = f"r{r}_{tree.label}"
                figures[tree.label].append(run(tree, args.script, args.args, log / f"{stem}.json",
                                               log / f"{stem}.log"))
    finally:
        if (tmp / "base").exists():  # also after a failed build
            train_speed.remove_base(tmp / "base")
        if args.log is not None:  # the runs went to --log: nothing is left in the temporary folder
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"\nbase {base.commit[:10]}, this {this.commit[:10]} (working tree); median of {args.rounds} "
          f"round(s); runs in {log}")
    names = sorted(k for k in set(figures["base"][0]) & set(figures["this"][0]) if keys.search(k))
    width = max((len(n) for n in names), default=10)
    print(f"{'figure':<{width}}  {'base':>12}  {'this':>12}  {'this/base':>9}")
    for name in names:
        b = statistics.median(f[name] for f in figures["base"] if name in f)
        t = statistics.median(f[name] for f in figures["this"] if name in f)
        ratio = f"{t / b:9.3f}" if b else "        -"
        print(f"{name:<{width}}  {b:12.4g}  {t:12.4g}  {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
