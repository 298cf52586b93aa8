"""``machiavelli train``: PPO self-play training from a YAML config (see :mod:`training.ppo`).

``machiavelli train`` alone runs the small ``default`` config (a few minutes on two CPU cores);
``--config`` takes a file (``configs/train/ppo_2p_classic.yaml``) or the name of a shipped config
(``ppo_2p_classic``). Output goes to ``--out`` (default ``runs/NAME``); ``--resume`` continues a run
from its ``checkpoint.pt``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from machiavelli_env.cli import int_arg

#: Folder of the shipped training configs (``configs/train`` in a checkout, ``training/configs`` when installed).
_HERE = Path(__file__).resolve().parent
CONFIG_DIR = next((d for d in (_HERE.parent / "configs" / "train", _HERE / "configs") if d.is_dir()),
                  _HERE.parent / "configs" / "train")


def config_names() -> list[str]:
    """Names of the configs in ``configs/train``."""
    return sorted(p.stem for p in CONFIG_DIR.glob("*.yaml")) if CONFIG_DIR.is_dir() else []


def resolve_config(spec: str) -> Path:
    """A config file from a path or a config name; ``FileNotFoundError`` naming the known configs."""
    path = Path(spec)
    if path.is_file():
        return path
    named = CONFIG_DIR / f"{spec}.yaml"
    if path.suffix == "" and named.is_file():
        return named
    raise FileNotFoundError(f"no config file {spec!r} (configs in {CONFIG_DIR}: {', '.join(config_names()) or 'none'})")


def add_train_args(p: argparse.ArgumentParser) -> None:
    """Arguments of ``machiavelli train``."""
    p.description = (
        "PPO self-play training of the candidate-scoring policy against a pool of bots and past "
        "snapshots; writes checkpoints, TensorBoard logs, evaluations with 95% intervals and a "
        "learning-curve PNG to --out."
    )
    p.add_argument("--config", default="default", metavar="FILE|NAME",
                   help="training config YAML, or a name in configs/train (default: default)")
    p.add_argument("--out", default=None, metavar="DIR", help="output directory (default: runs/NAME)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its checkpoint.pt")
    p.add_argument("--workers", type=int_arg(1, 256), default=None, metavar="N",
                   help="rollout worker processes (overrides the config; results depend on it)")
    p.add_argument("--updates", type=int_arg(1, 10**9), default=None, metavar="N",
                   help="number of PPO updates (overrides)")
    p.add_argument("--seed", type=int_arg(0), default=None, metavar="S",
                   help="random seed, >= 0 (overrides the config)")
    p.add_argument("--seeds", type=int_arg(1, 1000), default=None, metavar="N",
                   help="train N seeds (--seed, --seed + 1, ...) into --out/seed_S and write the mean learning "
                        "curve with 95%% bootstrap intervals and the IQM of the final win rates (seeds.csv, "
                        "seeds_final.csv, seeds.png); finished seeds are kept, interrupted ones resumed")
    p.add_argument("--engine", choices=("local", "ray"), default=None,
                   help="rollout workers as local processes or Ray actors (overrides rollout.engine; "
                        "the same weights either way)")
    p.add_argument("--address", default=None, metavar="ADDR",
                   help="Ray cluster for the rollout workers, e.g. auto or ray://HEAD:10001 (implies --engine ray)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def run_train(args: argparse.Namespace) -> int:
    """Run ``machiavelli train``; bad input raises the CLI's ``UsageError``."""
    from machiavelli_env.cli import RunStopped, UsageError

    from .config import ConfigError, config_from_dict, load_config

    try:
        cfg = load_config(resolve_config(args.config))
        overrides = {k: getattr(args, k) for k in ("updates", "seed") if getattr(args, k) is not None}
        engine, address = getattr(args, "engine", None), getattr(args, "address", None)
        if address is not None and engine == "local":
            raise ConfigError("--address names a Ray cluster: it needs --engine ray (or no --engine)")
        if overrides or args.workers is not None or engine is not None or address is not None:
            data = cfg.to_dict()
            data.update(overrides)
            if args.workers is not None:
                data["rollout"]["workers"] = args.workers
            if address is not None:
                data["rollout"].update(engine="ray", address=address)
            elif engine is not None:
                data["rollout"].update(engine=engine, address=None if engine == "local" else data["rollout"]["address"])
            cfg = config_from_dict(data)
    except (ConfigError, FileNotFoundError) as exc:
        raise UsageError(str(exc)) from None
    from machiavelli_env.agents.ppo import CheckpointError

    from .ppo import train
    from .ray_rollouts import RayUnavailable
    from .workers import WorkerError

    seeds = getattr(args, "seeds", None)
    out = Path(args.out) if args.out else Path("runs") / (cfg.name if seeds is None else f"{cfg.name}_seeds")
    if seeds is not None:
        from .multiseed import run_seeds

        try:
            final = run_seeds(cfg, out, seeds, progress_bar=not args.no_progress)
        except (FileExistsError, FileNotFoundError, RayUnavailable) as exc:
            raise UsageError(str(exc)) from None
        except CheckpointError as exc:
            raise UsageError(f"init: {exc}") from None
        except WorkerError as exc:
            raise RunStopped(f"{exc} (the finished seeds are kept: run the same command again)") from None
        for opp, f in final.items():
            print(json.dumps({"opponent": opp, "seeds": f["seeds"], "win_rates": [round(w, 4) for w in f["win_rates"]],
                              "iqm": round(f["iqm"], 4), "iqm_ci95": [round(x, 4) for x in f["iqm_ci95"]]}))
        print(f"curves: {out / 'seeds.csv'}, {out / 'seeds_final.csv'}, {out / 'seeds.png'}")
        return 0
    try:
        summary = train(cfg, out, resume=args.resume, progress_bar=not args.no_progress)
    except (FileExistsError, FileNotFoundError, RayUnavailable) as exc:
        raise UsageError(str(exc)) from None
    except CheckpointError as exc:
        raise UsageError(f"init: {exc}") from None
    except WorkerError as exc:  # a rollout worker died: one line, exit 1; --resume continues the run
        raise RunStopped(str(exc)) from None
    print(f"done in {summary['elapsed_s']:.0f} s: {summary['updates']} updates, {summary['games_trained']} games; "
          f"weights {summary['final']}, curve {out / 'learning_curve.png'}")
    for row in summary["final_eval"]:
        print(json.dumps({k: row[k] for k in ("opponent", "games", "wins", "win_rate", "ci95")}))
    return 0
