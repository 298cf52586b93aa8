"""Training configuration: a YAML file (``configs/train/*.yaml``) loaded into :class:`TrainConfig`.

Every section and key is optional (missing ones take the defaults below); unknown keys and bad
values raise :class:`ConfigError` naming them. Example (``configs/train/ppo_2p_classic.yaml``)::

    seed: 1
    rules: classic          # a preset name, a rules YAML file, or a mapping of rules fields
    players: 2              # overrides rules.players
    updates: 200            # PPO updates; each collects workers * games * steps learner moves
    rollout: {workers: 2, games: 16, steps: 32}
    policy: {limit: 32, hidden: 256, cand_hidden: 128, lookahead: false}
    ppo: {lr: 3.0e-4, gamma: 0.995, gae_lambda: 0.95, clip: 0.2, epochs: 4, minibatches: 4}
    pool: {heuristics: {random: 1, greedy: 1}, self_play: [0.0, 0.5], latest: 0.5}
    eval: {every: 20, games: 100, opponents: [random, greedy]}
    imitate: {teacher: null}  # behaviour cloning of an agent before the PPO updates (training.imitate)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from machiavelli_env.agents.ppo import PolicySpec
from machiavelli_env.agents.registry import AGENT_NAMES

from machiavelli_env.rules import Rules, RulesError

HEURISTICS = tuple(n for n in AGENT_NAMES if n not in ("human", "ppo"))
REWARDS = ("env", "placement")  # ppo.reward: the terminal reward the learner is trained on
ENGINES = ("local", "ray")  # rollout.engine (see training.workers.WorkerGroup)


class ConfigError(ValueError):
    """A training configuration that is not valid; the message names the key."""


@dataclass
class RolloutConfig:
    """``workers`` processes (1: in the main process), each stepping ``games`` games together;
    ``steps`` learner moves per game per update. ``take_wins``: the learner and its policy opponents
    apply the policy's ``take_wins`` rule in rollouts too (a play that empties the hand is then the only
    candidate, as in evaluation); off, they sample the unmasked policy (runs made before the option).
    ``engine``: ``local`` (processes on this machine) or ``ray`` (one Ray actor per worker, on a local
    Ray instance or the cluster at ``address``, e.g. ``"auto"`` or ``"ray://head:10001"``); the same
    weights either way for the same seed and worker count."""

    workers: int = 1
    games: int = 16
    steps: int = 32
    take_wins: bool = False
    engine: str = "local"
    address: str | None = None


@dataclass
class PPOConfig:
    """Clipped-objective PPO hyper-parameters (CleanRL names)."""

    lr: float = 3.0e-4
    anneal_lr: bool = True
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip: float = 0.2
    clip_value: bool = True
    epochs: int = 4
    minibatches: int = 4
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = 0.05
    shaping: float = 0.0  # potential-based reward shaping on the learner's hand size (0: off)
    reward: str = "env"  # "env": the rules' reward; "placement": by finishing place (see training.rollout)
    placement_weight: float = 1.0  # with reward "placement": (1 - w) * the rules' reward + w * the placement reward


@dataclass
class PoolConfig:
    """Opponent pool and its sampling schedule (see :mod:`training.pool`)."""

    heuristics: dict[str, float] = field(default_factory=lambda: {"random": 1.0, "greedy": 1.0})
    self_play: list[float] = field(default_factory=lambda: [0.0, 0.5])
    latest: float = 0.5
    snapshot_every: int = 10
    max_snapshots: int = 8


@dataclass
class EvalConfig:
    """Periodic evaluation: ``games`` seat-rotated games against each opponent, every ``every`` updates."""

    every: int = 20
    games: int = 100
    opponents: list[str] = field(default_factory=lambda: ["random", "greedy"])
    seed: int = 12345
    final_games: int = 0  # games per opponent in the final evaluation (0: same as ``games``)
    at_start: bool = False  # also evaluate the untrained policy (its argmax moves may draw forever: slow)
    sample: bool = False  # sample the policy's moves in evaluation games (default: its best-scoring move)


@dataclass
class ImitateConfig:
    """Behaviour cloning of ``teacher`` before the PPO updates (see :mod:`training.imitate`; off without a
    teacher). ``opponents``: bot weights, one kind drawn per game for every other seat (default:
    ``pool.heuristics``)."""

    teacher: str | None = None
    games: int = 1000
    opponents: dict[str, float] = field(default_factory=dict)
    epochs: int = 8
    lr: float = 1.0e-3
    batch: int = 256


@dataclass
class TrainConfig:
    """A whole training run (see the module docstring)."""

    name: str = "ppo"
    seed: int = 1
    rules: Any = "classic"
    players: int | None = None
    updates: int = 100
    save_every: int = 10
    init: str | None = None  # a checkpoint (.safetensors, .pt or a run directory) to start from
    rollout: RolloutConfig = field(default_factory=RolloutConfig)
    policy: dict[str, Any] = field(default_factory=dict)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    pool: PoolConfig = field(default_factory=PoolConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    imitate: ImitateConfig = field(default_factory=ImitateConfig)

    # ------------------------------------------------------------------ derived
    def load_rules(self) -> Rules:
        """The rules of the run (``players`` applied)."""
        try:
            base = Rules.load(self.rules)
            return base.replace(players=self.players) if self.players is not None else base
        except (RulesError, ValueError) as exc:
            raise ConfigError(f"rules: {exc}") from None

    def policy_spec(self) -> PolicySpec:
        try:
            return PolicySpec.from_dict(self.policy)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"policy: {exc}") from None

    @property
    def batch_size(self) -> int:
        """Learner moves per update."""
        r = self.rollout
        return r.workers * r.games * r.steps

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def validate(self) -> TrainConfig:
        """Check every value; returns ``self``; raises :class:`ConfigError`."""
        self.load_rules()
        self.policy_spec()
        _positive(self, ("save_every",), "")
        if self.updates != 0 or self.imitate.teacher is None:  # updates: 0 keeps a behaviour-cloned policy
            _positive(self, ("updates",), "")
        self._validate_imitate()
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ConfigError(f"seed must be a non-negative integer, got {self.seed!r}")
        _positive(self.rollout, ("workers", "games", "steps"), "rollout.")
        if not isinstance(self.rollout.take_wins, bool):
            raise ConfigError(f"rollout.take_wins must be true or false, got {self.rollout.take_wins!r}")
        if self.rollout.engine not in ENGINES:
            raise ConfigError(f"rollout.engine must be one of {', '.join(ENGINES)}, got {self.rollout.engine!r}")
        address = self.rollout.address
        if address is not None and (not isinstance(address, str) or not address.strip()):
            raise ConfigError(f"rollout.address must be a Ray address string or null, got {address!r}")
        if address is not None and self.rollout.engine != "ray":
            raise ConfigError("rollout.address applies only with rollout.engine: ray")
        p = self.ppo
        _positive(p, ("epochs", "minibatches"), "ppo.")
        if self.batch_size % p.minibatches:
            raise ConfigError(
                f"ppo.minibatches ({p.minibatches}) must divide the batch (workers * games * steps = {self.batch_size})"
            )
        for name in ("lr", "clip", "max_grad_norm"):
            if not getattr(p, name) > 0:
                raise ConfigError(f"ppo.{name} must be positive, got {getattr(p, name)!r}")
        for name in ("gamma", "gae_lambda"):
            if not 0 <= getattr(p, name) <= 1:
                raise ConfigError(f"ppo.{name} must be in [0, 1], got {getattr(p, name)!r}")
        if p.reward not in REWARDS:
            raise ConfigError(f"ppo.reward must be one of {', '.join(REWARDS)}, got {p.reward!r}")
        if not 0 <= p.placement_weight <= 1:
            raise ConfigError(f"ppo.placement_weight must be in [0, 1], got {p.placement_weight!r}")
        if p.reward != "placement" and p.placement_weight != 1.0:
            raise ConfigError("ppo.placement_weight applies only with ppo.reward: placement")
        for name in ("ent_coef", "vf_coef", "shaping"):
            if getattr(p, name) < 0:
                raise ConfigError(f"ppo.{name} must be non-negative, got {getattr(p, name)!r}")
        pool = self.pool
        if not pool.heuristics or not isinstance(pool.heuristics, dict):
            raise ConfigError("pool.heuristics must map at least one bot name to a weight")
        for name, w in pool.heuristics.items():
            if name not in HEURISTICS:
                raise ConfigError(f"pool.heuristics: unknown bot {name!r} (known: {', '.join(HEURISTICS)})")
            if not isinstance(w, (int, float)) or isinstance(w, bool) or w < 0:
                raise ConfigError(f"pool.heuristics.{name}: weight must be a non-negative number, got {w!r}")
        if sum(pool.heuristics.values()) <= 0:
            raise ConfigError("pool.heuristics: the weights must not all be zero")
        sp = pool.self_play
        if not (isinstance(sp, list) and len(sp) == 2 and all(isinstance(x, (int, float)) and 0 <= x <= 1 for x in sp)):
            raise ConfigError(f"pool.self_play must be [start, end] probabilities in [0, 1], got {sp!r}")
        if not 0 <= pool.latest <= 1:
            raise ConfigError(f"pool.latest must be in [0, 1], got {pool.latest!r}")
        _positive(pool, ("snapshot_every", "max_snapshots"), "pool.")
        e = self.eval
        _positive(e, ("every", "games"), "eval.")
        if e.final_games < 0:
            raise ConfigError(f"eval.final_games must be non-negative, got {e.final_games!r}")
        for name in e.opponents:
            if name not in HEURISTICS:
                raise ConfigError(f"eval.opponents: unknown bot {name!r} (known: {', '.join(HEURISTICS)})")
        return self


    def _validate_imitate(self) -> None:
        im = self.imitate
        if im.teacher is None:
            return
        from machiavelli_env.agents.registry import AgentSpecError, make_agent

        if not isinstance(im.teacher, str) or im.teacher.split("[")[0].split(":")[0] == "human":
            raise ConfigError(f"imitate.teacher must name an agent other than human, got {im.teacher!r}")
        try:
            make_agent(im.teacher, self.load_rules())
        except (AgentSpecError, ValueError) as exc:
            raise ConfigError(f"imitate.teacher: {exc}") from None
        _positive(im, ("games", "epochs", "batch"), "imitate.")
        if not isinstance(im.lr, (int, float)) or isinstance(im.lr, bool) or not im.lr > 0:
            raise ConfigError(f"imitate.lr must be positive, got {im.lr!r}")
        if not isinstance(im.opponents, dict):
            raise ConfigError(f"imitate.opponents must map bot names to weights, got {im.opponents!r}")
        for name, w in im.opponents.items():
            if name not in HEURISTICS:
                raise ConfigError(f"imitate.opponents: unknown bot {name!r} (known: {', '.join(HEURISTICS)})")
            if not isinstance(w, (int, float)) or isinstance(w, bool) or w < 0:
                raise ConfigError(f"imitate.opponents.{name}: weight must be a non-negative number, got {w!r}")
        if im.opponents and sum(im.opponents.values()) <= 0:
            raise ConfigError("imitate.opponents: the weights must not all be zero")


def _positive(obj: Any, names: tuple[str, ...], prefix: str) -> None:
    for name in names:
        v = getattr(obj, name)
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ConfigError(f"{prefix}{name} must be a positive integer, got {v!r}")


_SECTIONS = {"rollout": RolloutConfig, "ppo": PPOConfig, "pool": PoolConfig, "eval": EvalConfig,
             "imitate": ImitateConfig}


def _build(cls: type, data: dict[str, Any], where: str) -> Any:
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"{where}unknown keys: {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    return cls(**data)


def config_from_dict(data: dict[str, Any]) -> TrainConfig:
    """A validated :class:`TrainConfig` from a dict (the parsed YAML)."""
    if not isinstance(data, dict):
        raise ConfigError(f"a training config must be a mapping, got {type(data).__name__}")
    data = dict(data)
    for key, cls in _SECTIONS.items():
        if key in data:
            section = data[key] if data[key] is not None else {}
            if not isinstance(section, dict):
                raise ConfigError(f"{key} must be a mapping, got {section!r}")
            data[key] = _build(cls, section, f"{key}: ")
    if "policy" in data and not isinstance(data["policy"], dict):
        raise ConfigError(f"policy must be a mapping, got {data['policy']!r}")
    try:
        return _build(TrainConfig, data, "").validate()
    except TypeError as exc:
        raise ConfigError(str(exc)) from None


def load_config(path: str | Path) -> TrainConfig:
    """Read and validate a training config YAML file."""
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    try:
        return config_from_dict(data or {})
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
