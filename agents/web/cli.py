"""``machiavelli serve``: arguments and runner (Starlette and uvicorn are imported only when it runs)."""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
from pathlib import Path

from machiavelli_env.cli import UsageError, int_arg

from ..registry import split_specs
from .games import DEFAULT_MAX_GAMES, DEFAULT_OPPONENTS, DEFAULT_TTL

__all__ = ["INSTALL_HINT", "add_serve_arguments", "run_serve"]

INSTALL_HINT = "machiavelli serve needs the web extra: pip install -e '.[web]' (starlette and uvicorn)"


def add_serve_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``machiavelli serve``."""
    p.description = (
        "Serve a page where a person plays against the agents in a browser (rules preset, players, opponents). "
        "Every finished game is appended to DIR/records.jsonl (machiavelli replay, league ratings). See docs/WEB.md."
    )
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1: this machine only; 0.0.0.0 serves the network)")
    p.add_argument("--port", type=int_arg(0, 65535), default=8000, help="TCP port (default 8000; 0 picks a free one)")
    p.add_argument("--records", metavar="DIR", default="web-records",
                   help="folder of the finished games' records, DIR/records.jsonl (default ./web-records)")
    p.add_argument("--opponents", metavar="A,B,...", default=None,
                   help="the agent specs a game may choose (default: every registry agent: "
                        f"{', '.join(DEFAULT_OPPONENTS)}); e.g. 'greedy,search[sims=32],ppo:run/final.safetensors'")
    p.add_argument("--max-games", type=int_arg(1, 100_000), default=DEFAULT_MAX_GAMES,
                   help=f"most games held at once (default {DEFAULT_MAX_GAMES})")
    p.add_argument("--idle-minutes", type=float, default=DEFAULT_TTL / 60,
                   help=f"a game untouched this long expires (default {DEFAULT_TTL / 60:g})")
    p.add_argument("--pace-ms", type=int_arg(0, 10_000), default=800,
                   help="the page's default pause between opponent moves, in milliseconds (default 800)")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _check_opponents(specs: list[str]) -> None:
    """Refuse a bad ``--opponents`` entry now rather than on a player's first game (ppo loads lazily)."""
    from machiavelli_env.rules import Rules

    from ..registry import AgentSpecError, make_agent

    rules = Rules.load("classic")
    for spec in specs:
        if spec == "human" or spec.startswith("human["):
            raise UsageError("--opponents: 'human' is the person at the page, not an opponent")
        if spec.split("[")[0].split(":")[0] == "ppo":
            path = spec.partition(":")[2]
            if path and not Path(path).is_file():
                raise UsageError(f"--opponents: {spec}: no such checkpoint file")
            continue
        try:
            make_agent(spec, rules)
        except (AgentSpecError, ValueError) as exc:
            raise UsageError(f"--opponents: {exc}") from None


def run_serve(args: argparse.Namespace) -> int:
    """Run ``machiavelli serve`` until interrupted."""
    try:
        import uvicorn

        from .app import create_app
    except ImportError as exc:
        sys.stderr.write(f"machiavelli serve: error: {INSTALL_HINT} ({exc})\n")
        return 1
    from .games import GameStore

    if not 0 < args.idle_minutes <= 7 * 24 * 60:  # NaN fails too
        raise UsageError(f"--idle-minutes must be > 0 (and at most a week), got {args.idle_minutes}")
    opponents = split_specs(args.opponents) if args.opponents is not None else list(DEFAULT_OPPONENTS)
    if not opponents:
        raise UsageError("--opponents lists no agent")
    _check_opponents(opponents)
    try:
        store = GameStore(args.records, ttl=args.idle_minutes * 60, max_games=args.max_games, opponents=opponents)
    except OSError as exc:
        raise UsageError(f"--records: cannot use {args.records}: {exc.strerror or exc}") from None
    loopback = _is_loopback(args.host)
    app = create_app(store, loopback_only=loopback, pace_ms=args.pace_ms)
    sock = _listen(args.host, args.port)  # bound here: a busy port is a one-line error, port 0 a known port
    port = sock.getsockname()[1]
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"machiavelli serve: http://{shown}:{port}/  (records: {store.writer.path if store.writer else '-'}; "
          f"Ctrl-C stops)", flush=True)
    if not loopback:
        print("machiavelli serve: warning: listening beyond this machine; anyone who reaches the port can play",
              file=sys.stderr)
    config = uvicorn.Config(app, log_level="warning", timeout_keep_alive=5, limit_concurrency=256)
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def _listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (:class:`UsageError` naming the problem)."""
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(128)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock
