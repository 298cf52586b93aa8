"""``machiavelli league``: arguments and runner (imports openskill, matplotlib and Ray only when run).

Exit codes: 0 done, 2 bad config or arguments, 1 a game or the Ray engine failed.
"""

from __future__ import annotations

import argparse
import sys

from machiavelli_env.cli import int_arg


def add_league_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``machiavelli league``."""
    p.description = (
        "Play a seeded league between agents (every agent meets every other and sits in every seat), rate them "
        "with openskill's Plackett-Luce model, and write DIR/games.jsonl, ratings.csv, ratings.md and ratings.png. "
        "Running again with more games resumes. See docs/LEAGUE.md."
    )
    p.add_argument("--config", required=True, metavar="FILE.yaml", help="league config (e.g. configs/league/*.yaml)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created; an existing league resumes)")
    p.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="play games in this process (local) or as Ray tasks (ray); same games and ratings")
    p.add_argument("--address", metavar="ADDR", default=None,
                   help="Ray cluster address (e.g. auto, ray://host:10001); default: start a local Ray instance")
    p.add_argument("--num-cpus", type=int_arg(1, 4096), default=None, metavar="N",
                   help="CPUs of a local Ray instance (default: all)")
    p.add_argument("--games", type=int_arg(0, 10**9), default=None, metavar="G",
                   help="number of games (overrides the config)")
    p.add_argument("--records", metavar="FILE.jsonl", default=None,
                   help="also append every game played now as a full record (machiavelli replay FILE)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def run_league_cli(args: argparse.Namespace) -> int:
    """Run ``machiavelli league``."""
    from machiavelli_env.cli import UsageError

    from .league import LeagueError, load_config, run_league

    if args.address and args.engine != "ray":
        raise UsageError("--address is for --engine ray")
    if args.num_cpus is not None and (args.engine != "ray" or args.num_cpus < 1):
        raise UsageError("--num-cpus is for --engine ray and must be at least 1")
    if args.games is not None and args.games < 0:
        raise UsageError(f"--games must be >= 0, got {args.games}")
    try:
        config = load_config(args.config)
        if args.games is not None:
            config.games = args.games
        run = run_league(
            config, args.out, engine=args.engine, address=args.address, num_cpus=args.num_cpus,
            records=args.records, progress=not args.no_progress, log=lambda m: print(m, file=sys.stderr),
        )
    except LeagueError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot write {exc.filename or args.out}: {exc.strerror or exc}") from None
    except ImportError as exc:
        print(f"machiavelli league: {exc}", file=sys.stderr)
        return 1
    except RuntimeError as exc:  # a game failed, or Ray could not start
        print(f"machiavelli league: {exc}", file=sys.stderr)
        return 1
    from .ratings import ratings_table

    print(f"{run.total} games ({run.played} played now) in {args.out}")
    print(ratings_table(run.ratings))
    print("wrote " + ", ".join(str(p) for p in run.files))
    return 0
