"""Self-play leagues: a pool of agents plays a seeded schedule of games; openskill ratings.

A league is configured by a YAML file (``configs/league/*.yaml``; see docs/LEAGUE.md)::

    pool: [random, greedy, patient, ppo]   # agent specs (agents.registry), or {name: ..., agent: ...}
    players: [2, 3, 4]                      # player counts, 2..6
    rules: [classic]                        # rules presets (``classic`` -> ``classic_4p`` for 4 players)
    games: 600
    seed: 1
    exact_lists: true                       # false: random and ppo on bounded lists, hoarder's search bounded

:func:`run_league` plays the games of :class:`training.schedule.Schedule` (every agent meets every
other and sits in every seat), locally or as Ray tasks, appends one line per game to
``DIR/games.jsonl`` and rewrites ``ratings.csv``, ``ratings.md`` and ``ratings.png`` from all
the games in game order (:mod:`training.ratings`). A game depends only on its fixture (rules,
deal seed, agents and their seeds), so the Ray engine plays exactly the games of the local one,
and running again with a larger ``games`` resumes: the games already in ``games.jsonl`` are
checked against the schedule and kept, the rest are played and appended.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from machiavelli_env.agents.arena import ENV_ID, play_game
from machiavelli_env.agents.base import Agent
from machiavelli_env.agents.registry import AgentSpecError, make_agent

from machiavelli_env.records import loads
from machiavelli_env.rules import Rules, RulesError, preset_names

from .ratings import LeagueRatings, compute_ratings, plot, write_csv, write_markdown
from .schedule import Fixture, Schedule

CONFIG_KEYS = ("name", "pool", "players", "rules", "games", "seed", "limit", "exact_lists")


class LeagueError(ValueError):
    """A bad league config or output directory; the message says what is wrong."""


@dataclass
class LeagueConfig:
    """A league: ``pool`` maps names to agent specs (in order); see the module docstring."""

    pool: dict[str, str]
    players: list[int]
    rules: list[str]
    games: int
    seed: int
    limit: int = 32
    name: str = "league"
    exact_lists: bool = True  # make_agent(exact_lists=); False: the faster variants (bounded lists and search)
    _rules_cache: dict[tuple[str, int], Rules] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.pool:
            raise LeagueError("league config: the pool is empty")
        if not isinstance(self.games, int) or isinstance(self.games, bool) or self.games < 0:
            raise LeagueError(f"league config: games must be a whole number >= 0, got {self.games!r}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or self.seed < 0:
            raise LeagueError(f"league config: seed must be a whole number >= 0, got {self.seed!r}")
        if not isinstance(self.limit, int) or self.limit < 1:
            raise LeagueError(f"league config: limit must be a whole number >= 1, got {self.limit!r}")
        if not isinstance(self.exact_lists, bool):
            raise LeagueError(f"league config: exact_lists must be true or false, got {self.exact_lists!r}")
        for n in self.players:
            if not isinstance(n, int) or isinstance(n, bool) or not 2 <= n <= 6:
                raise LeagueError(f"league config: players must be whole numbers 2..6, got {n!r}")
        try:
            self.schedule()
        except ValueError as exc:
            raise LeagueError(f"league config: {exc}") from None
        for preset in self.rules:
            for n in self.players:
                self.rules_for(preset, n)

    def schedule(self) -> Schedule:
        return Schedule(list(self.pool), self.players, self.rules, self.seed)

    def rules_for(self, preset: str, players: int) -> Rules:
        """The rules of ``preset`` for ``players``: the preset ``{preset}_{players}p`` when shipped
        (``classic_6p`` has three decks), else ``preset`` with ``players`` set."""
        key = (preset, players)
        if key not in self._rules_cache:
            try:
                specific = f"{preset}_{players}p"
                if specific in preset_names():
                    rules = Rules.load(specific)
                else:
                    rules = Rules.load(preset, players=players)
            except RulesError as exc:
                raise LeagueError(f"league config: rules {preset!r} for {players} players: {exc}") from None
            self._rules_cache[key] = rules
        return self._rules_cache[key]

    def identity(self) -> dict[str, Any]:
        """What fixes the games (everything but ``games`` and ``name``): stored as ``DIR/league.json``."""
        return {"env": ENV_ID, "pool": dict(self.pool), "players": sorted(set(self.players)),
                "rules": list(dict.fromkeys(self.rules)), "seed": self.seed, "limit": self.limit,
                "exact_lists": self.exact_lists}


def _as_list(value: Any, key: str) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, (str, int)):
        return [value]
    raise LeagueError(f"league config: {key} must be a list, got {type(value).__name__}")


def config_from_dict(data: Mapping[str, Any], name: str = "league") -> LeagueConfig:
    """A :class:`LeagueConfig` from a parsed YAML mapping (errors name the bad field)."""
    if not isinstance(data, Mapping):
        raise LeagueError(f"league config must be a mapping of {', '.join(CONFIG_KEYS)}, got {type(data).__name__}")
    unknown = sorted(set(data) - set(CONFIG_KEYS))
    if unknown:
        raise LeagueError(
            f"league config: unknown key(s) {', '.join(map(str, unknown))}; known: {', '.join(CONFIG_KEYS)}"
        )
    missing = [k for k in ("pool", "players", "games", "seed") if k not in data]
    if missing:
        raise LeagueError(f"league config: missing key(s) {', '.join(missing)}")
    pool: dict[str, str] = {}
    for entry in _as_list(data["pool"], "pool"):
        if isinstance(entry, str):
            alias, spec = entry.strip(), entry.strip()
        elif isinstance(entry, Mapping) and set(entry) == {"name", "agent"}:
            alias, spec = str(entry["name"]).strip(), str(entry["agent"]).strip()
        else:
            raise LeagueError(f"league config: pool entry {entry!r} must be an agent spec or {{name: ..., agent: ...}}")
        if alias in pool:
            raise LeagueError(f"league config: pool name {alias!r} appears twice; give one of them another name")
        pool[alias] = spec
    return LeagueConfig(
        pool=pool,
        players=_as_list(data["players"], "players"),
        rules=[str(r) for r in _as_list(data.get("rules", ["classic"]), "rules")],
        games=data["games"],
        seed=data["seed"],
        limit=data.get("limit", 32),
        name=str(data.get("name", name)),
        exact_lists=data.get("exact_lists", True),
    )


def load_config(path: str | os.PathLike[str]) -> LeagueConfig:
    """Read a league YAML file."""
    try:
        import yaml
    except ImportError:
        raise LeagueError("league configs need pyyaml: pip install -e '.[league]'") from None
    p = Path(path)
    if not p.is_file():
        raise LeagueError(f"league config not found: {path}")
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise LeagueError(f"league config {path} is not valid YAML: {exc}") from None
    return config_from_dict(data or {}, name=p.stem)


# ================================================================================ playing one game
_AGENTS: dict[tuple[str, str, str, bool], Agent] = {}  # per process: built once, reset (reseeded) every game


def _agent(name: str, spec: str, rules: Rules, exact_lists: bool = True) -> Agent:
    key = (name, spec, json.dumps(rules.to_dict(), sort_keys=True), exact_lists)
    if key not in _AGENTS:
        try:
            agent = make_agent(spec, rules, exact_lists=exact_lists)
        except AgentSpecError:
            raise
        except (ImportError, OSError, ValueError) as exc:
            raise LeagueError(f"agent {name!r} ({spec}) cannot be built for {rules.players} players: {exc}") from None
        agent.name = name
        _AGENTS[key] = agent
    return _AGENTS[key]


def build_agents(config: LeagueConfig) -> None:
    """Build every agent for every rules preset and player count (fails early on a bad spec)."""
    for preset in config.rules:
        for n in config.players:
            rules = config.rules_for(preset, n)
            for name, spec in config.pool.items():
                try:
                    _agent(name, spec, rules, config.exact_lists)
                except AgentSpecError as exc:
                    raise LeagueError(f"league config: pool entry {name!r}: {exc}") from None


def play_fixture(fixture: Fixture, config: LeagueConfig, record: bool = False) -> dict[str, Any]:
    """Play one scheduled game; returns its ``games.jsonl`` line (with ``"record"`` when asked)."""
    rules = config.rules_for(fixture.rules, fixture.players)
    agents = [_agent(name, config.pool[name], rules, config.exact_lists) for name in fixture.seats]
    try:
        res = play_game(rules, agents, fixture.seed, agent_seeds=list(fixture.agent_seeds),
                        limit=config.limit, record=record)
    except Exception as exc:
        raise RuntimeError(f"league game {fixture.game} ({', '.join(fixture.seats)}; seed {fixture.seed}) "
                           f"failed: {type(exc).__name__}: {exc}") from exc
    line: dict[str, Any] = {
        "game": fixture.game, "block": fixture.block, "rules": fixture.rules, "players": fixture.players,
        "seed": fixture.seed, "agent_seeds": list(fixture.agent_seeds), "seats": list(fixture.seats),
        "result": {"winner": res.winner, "result": res.result, "penalty_points": res.penalty_points,
                   "ranks": res.ranks, "turns": res.turns},
    }
    if record and res.record is not None:
        line["record"] = {"game": fixture.game, "league": config.name, **res.record}
    return line


def _play_task(fixture: Fixture, config: LeagueConfig, record: bool) -> dict[str, Any]:
    """Ray task body (module level so workers import it by name)."""
    return play_fixture(fixture, config, record)


# ================================================================================ the output folder
def _check_identity(out: Path, config: LeagueConfig) -> None:
    """Refuse a folder whose games were played under another config (``league.json`` differs)."""
    path = out / "league.json"
    if not path.exists():
        return
    ident = config.identity()
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise LeagueError(f"{path} is not valid JSON ({exc}); remove it or use another --out") from None
    diff = [k for k in sorted(set(ident) | set(old)) if old.get(k) != ident.get(k)]
    if diff:
        what = "; ".join(f"{k}: {old.get(k)!r} there, {ident.get(k)!r} now" for k in diff)
        raise LeagueError(f"{out} holds a league with another config ({what}); use another --out")


def read_games(path: Path, schedule: Schedule | None = None) -> list[dict[str, Any]]:
    """The lines of ``games.jsonl``, checked against ``schedule``; an unfinished last line is dropped
    (and cut from the file), any other bad line is an error."""
    if not path.exists():
        return []
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LeagueError(f"{path}: not UTF-8 text (at byte {exc.start}); remove it or use another --out") from None
    raw = text.split("\n")
    complete = raw[:-1]  # text after the last newline is an interrupted write
    lines: list[dict[str, Any]] = []
    for i, s in enumerate(complete):
        if not s.strip():
            continue
        try:
            line = loads(s)  # strict JSON, nesting bounded (machiavelli_env.records)
        except ValueError as exc:
            msg = f"{path}:{i + 1}: not a JSON line ({exc}); remove the line or use another --out"
            raise LeagueError(msg) from None
        if not isinstance(line, dict) or not {"game", "seed", "seats", "result"} <= set(line):
            raise LeagueError(f"{path}:{i + 1}: not a league game line (needs game, seed, seats, result)")
        if line["game"] != len(lines):
            raise LeagueError(f"{path}:{i + 1}: game {line['game']} where game {len(lines)} was expected")
        if schedule is not None:
            f = schedule.fixture(line["game"])
            if (line["seed"], list(line["seats"]), line.get("rules"), line.get("players")) != (
                f.seed, list(f.seats), f.rules, f.players
            ):
                raise LeagueError(f"{path}:{i + 1}: game {line['game']} is not the scheduled one "
                                  f"(seats {line['seats']}, seed {line['seed']}); use another --out")
        lines.append(line)
    if raw[-1].strip():
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n".join(complete) + ("\n" if complete else ""))
    return lines


@dataclass
class LeagueRun:
    """What :func:`run_league` did: games played now, games in the folder, the ratings."""

    played: int
    total: int
    ratings: LeagueRatings
    files: list[Path]


def run_league(
    config: LeagueConfig,
    out: str | os.PathLike[str],
    *,
    engine: str = "local",
    address: str | None = None,
    num_cpus: int | None = None,
    records: str | os.PathLike[str] | None = None,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
) -> LeagueRun:
    """Play the league's missing games into ``out`` and rewrite the ratings files (module docstring)."""
    if engine not in ("local", "ray"):
        raise LeagueError(f"engine must be local or ray, got {engine!r}")
    say = log or (lambda _msg: None)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    schedule = config.schedule()
    games_path = out / "games.jsonl"
    if games_path.exists() and games_path.stat().st_size > 0:
        _check_identity(out, config)
    done = read_games(games_path, schedule)
    say(schedule.describe())
    if len(done) > config.games:
        say(f"{games_path} holds {len(done)} games; rating the first {config.games}")
    todo = schedule.fixtures(len(done), config.games)
    if todo:
        say(f"playing games {len(done)}..{config.games - 1} ({len(todo)} games, engine {engine})")
        build_agents(config)  # a bad agent spec fails here, before anything is written
        (out / "league.json").write_text(json.dumps(config.identity(), indent=2) + "\n", encoding="utf-8")
        want_records = records is not None
        rec_fh = open(records, "a", encoding="utf-8") if want_records else None  # noqa: SIM115
        bar = _progress_bar(config.games, len(done), progress)
        try:
            with open(games_path, "a", encoding="utf-8") as fh:
                pending: dict[int, dict[str, Any]] = {}
                next_game = [len(done)]

                def emit(line: dict[str, Any]) -> None:
                    rec = line.pop("record", None)
                    fh.write(json.dumps(line, separators=(",", ":")) + "\n")
                    fh.flush()
                    if rec_fh is not None and rec is not None:
                        rec_fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
                        rec_fh.flush()
                    done.append(line)

                def finished(_i: int, line: dict[str, Any]) -> None:
                    pending[line["game"]] = line
                    while next_game[0] in pending:  # write in game order whatever order tasks finish in
                        emit(pending.pop(next_game[0]))
                        next_game[0] += 1
                    bar.update(1)

                if engine == "local":
                    for f in todo:
                        finished(f.game, play_fixture(f, config, want_records))
                else:
                    from .ray_rollouts import ray_map

                    ray_map(_play_task, todo, config, want_records, address=address, num_cpus=num_cpus,
                            on_result=finished)
        finally:
            bar.close()
            if rec_fh is not None:
                rec_fh.close()
    rated = done[: config.games]
    ratings = compute_ratings(list(config.pool), rated)
    files = write_outputs(config, out, ratings, schedule)
    return LeagueRun(played=len(todo), total=len(rated), ratings=ratings, files=files)


def write_outputs(config: LeagueConfig, out: Path, ratings: LeagueRatings, schedule: Schedule) -> list[Path]:
    """``ratings.csv``, ``ratings.md`` and ``ratings.png`` in ``out``."""
    games = ratings.history.shape[0] - 1
    cycles = games / schedule.cycle_length
    header = (
        f"# League {config.name}\n\n"
        f"Pool: {', '.join(f'{k} ({v})' if k != v else k for k, v in config.pool.items())}. "
        f"Rules: {', '.join(config.rules)}; players: {', '.join(map(str, sorted(set(config.players))))}; "
        f"seed {config.seed}; env {ENV_ID}.\n\n"
        f"Schedule: {schedule.describe()}; {games} games = {cycles:.2f} cycles.\n"
    )
    paths = [out / "ratings.csv", out / "ratings.md", out / "ratings.png"]
    write_csv(ratings, paths[0])
    write_markdown(ratings, paths[1], header)
    plot(ratings, paths[2], title=f"League {config.name}: {games} games")
    return paths


class _NoBar:
    def update(self, _n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar(total: int, initial: int, enabled: bool) -> Any:
    if not enabled:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoBar()
    interval = 0.1 if sys.stderr.isatty() else 30.0  # a log file gets a line every 30 s, not a stream of them
    return tqdm(total=total, initial=initial, unit="game", desc="league", dynamic_ncols=True, mininterval=interval)
