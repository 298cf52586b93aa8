"""The PPO agent: a candidate-scoring policy network, its features, and checkpoint loading.

Machiavelli's action space (a multiset of up to ~100 cards) is far too large to enumerate, so the
policy scores *candidates* instead, as DouZero and PerfectDou do for card games with huge action
spaces: the exact oracle lists up to ``limit`` legal plays (:attr:`agents.base.Turn.legal_plays`),
each play is encoded as a feature vector, and a network scores every candidate against an encoding
of the state. Drawing is candidate 0 (masked out when ``must_play_if_able`` forbids it). A softmax
over the unmasked scores is the policy; a value head on the state encoding is the critic.

Features (:func:`encode_turn`, numpy only):

* **state** (``869 + 8``, ``+ 6`` with ``stock_clock``): the observation vector
  (:mod:`machiavelli_env.observation`: card planes and scalars), then every seat's hand size (own
  first, ``/ 20``, clipped to 1), the number of candidates ``/ limit`` and the largest play's size
  ``/`` own hand size; with ``stock_clock``, a one-hot of the seat (counted from this player, 0 =
  itself) that draws the stock's last card if every player draws from now on (all zeros with an
  empty stock). It is ``(stock size - 1) mod players``, which the stock-size scalar holds only as a
  fraction; when nobody lays down, it fixes who moves first once the stock is empty, and laying
  down instead of drawing moves it back one seat;
* **candidate** (``53 + 53 + 12``): the cards played and the hand left after the play (counts
  divided by the copies in the pack), then 12 scalars: is-draw, cards played ``/ 13``, fraction of
  the hand played, goes out (empties the hand), points played ``/ 100``, cards left ``/ 20``,
  points left ``/ 200``, is a largest play, largest size minus this size ``/ 13``, position in the
  oracle's list ``/ limit``, help cards used ``/ 4``, and (with ``lookahead``) the fraction of the
  cards left that the oracle could lay down on the table after this play (``0`` without it).

Winning moves (``take_wins``, on by default): a play that empties the hand ends the game with a
win, the highest return under the ``win_loss`` and ``placement`` rewards, so when the agent plays
(evaluation, leagues, ``machiavelli eval``) and the candidates hold one, the mask keeps only such
plays. It is a rule applied at decision time on top of the learned policy: training rollouts
(:mod:`training.rollout`) sample the learner and its policy opponents from the unmasked policy, so
runs made before the rule existed reproduce exactly.

Network (:class:`CandidatePolicy`): ``state -> MLP -> s`` (``hidden``), ``candidate -> MLP -> c``
(``cand_hidden``), ``score_i = MLP([s, c_i])``, ``value = MLP(s)``.

Candidate lists: a policy whose spec names a ``list_budget`` (a
:class:`machiavelli_env.legal.ListBudget`, set in a training config's ``policy`` section and stored
with the checkpoint) trains and plays on lists bounded by it, unless the turn sets its own. Training
with a spec that names none uses exact lists, and the agent plays such a policy on exact lists too
(its full strength); ``ppo[exact_lists=0]`` bounds them by :data:`agents.base.PLAY_LIST_BUDGET`.

Checkpoints are safetensors files (weights only, never pickled code) with a JSON side file of the
architecture (``model.safetensors`` + ``model.json``; the same JSON is also stored in the
safetensors header, so the side file is optional). :func:`load_ppo_agent` reads them; ``ppo``
without a path loads the checkpoint shipped in ``agents/checkpoints/`` for the player count.
Training checkpoints (``checkpoint.pt``, written by ``training.ppo``) load with
``torch.load(weights_only=True)``.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from machiavelli_env import game, legal, observation
from machiavelli_env.cards import NUM_TYPES
from machiavelli_env.records import loads, printable, read_capped
from machiavelli_env.rules import Rules

from .base import DRAW, PLAY_LIST_BUDGET, Agent, Turn

FORMAT = "machiavelli-ppo"
FORMAT_VERSION = 1
EXTRA_STATE = 8
CAND_SCALARS = 12
STATE_DIM = observation.OBS_SIZE + EXTRA_STATE  # without the stock clock (see state_dim)
STOCK_CLOCK = observation.MAX_PLAYERS
CAND_DIM = 2 * NUM_TYPES + CAND_SCALARS
CHECKPOINT_DIR = Path(__file__).resolve().parent / "checkpoints"
#: Bounds on a checkpoint's architecture, checked before anything is built (the shipped ones use
#: limit 32, hidden 256, cand_hidden 128).
MAX_LIMIT = 1024
MAX_HIDDEN = 4096
#: Largest JSON side file read (a side file is about 1 KB).
MAX_META_BYTES = 1024 * 1024

__all__ = [
    "CAND_DIM",
    "STATE_DIM",
    "CandidatePolicy",
    "CheckpointError",
    "PPOAgent",
    "PolicySpec",
    "encode_turn",
    "expected_shapes",
    "load_checkpoint",
    "load_ppo_agent",
    "save_checkpoint",
    "shipped_checkpoint",
    "state_dim",
    "widen_state_dict",
]


class CheckpointError(ValueError):
    """A checkpoint that cannot be loaded: missing, not a PPO checkpoint, or not matching its architecture."""


@dataclass(frozen=True)
class PolicySpec:
    """Architecture of a :class:`CandidatePolicy` (stored with every checkpoint)."""

    limit: int = 32
    hidden: int = 256
    cand_hidden: int = 128
    lookahead: bool = False
    take_wins: bool = True  # a play that empties the hand wins at once: it is then the only candidate
    stock_clock: bool = False  # state features: which seat draws the stock's last card (see the module docstring)
    # the candidates' bound (a legal.ListBudget, or a mapping of its fields); None: exact lists. Not
    # architecture: a policy plays with the lists it was trained on, and a fine-tune may change it
    list_budget: legal.ListBudget | None = None

    def __post_init__(self) -> None:
        for name, hi in (("limit", MAX_LIMIT), ("hidden", MAX_HIDDEN), ("cand_hidden", MAX_HIDDEN)):
            v = getattr(self, name)
            if type(v) is not int or not 1 <= v <= hi:
                shown = repr(v) if len(repr(v)) <= 30 else repr(v)[:30] + "..."
                raise ValueError(f"policy {name} must be an integer in 1..{hi}, got {shown}")
        for name in ("lookahead", "take_wins", "stock_clock"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"policy {name} must be true or false, got {getattr(self, name)!r}")
        budget = self.list_budget
        if isinstance(budget, dict):
            try:
                budget = legal.ListBudget.from_mapping(budget)
            except ValueError as exc:
                raise ValueError(f"policy {exc}") from None
            object.__setattr__(self, "list_budget", budget)
        if budget is not None and not isinstance(budget, legal.ListBudget):
            raise ValueError(f"policy list_budget must be a mapping of ListBudget fields, got {budget!r}")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PolicySpec:
        """Build from a dict, naming unknown keys."""
        if not isinstance(data, dict):
            raise ValueError(f"policy settings must be an object, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(k)[:30] for k in set(data) - known)
        if unknown:
            raise ValueError(f"unknown policy settings: {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        if self.list_budget is None:  # exact lists: the settings of checkpoints made before the option
            del out["list_budget"]
        return out


def state_dim(spec: PolicySpec) -> int:
    """Length of the state features of a policy of ``spec``."""
    return STATE_DIM + (STOCK_CLOCK if spec.stock_clock else 0)


# ---------------------------------------------------------------------------------------------- features
_RULES_CACHE: dict[int, tuple[Rules, np.ndarray, np.ndarray]] = {}


def _rules_arrays(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """``(1 / copies, card points)`` of the rules (cached)."""
    hit = _RULES_CACHE.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1], hit[2]
    copies = game.pack_counts(rules).astype(np.float32)
    copies[-1] = max(rules.jokers, 1)
    pts = np.array([rules.card_points(c) for c in range(NUM_TYPES)], dtype=np.float32)
    if len(_RULES_CACHE) > 64:
        _RULES_CACHE.clear()
    _RULES_CACHE[id(rules)] = (rules, 1.0 / copies, pts)
    return 1.0 / copies, pts


def encode_turn(
    turn: Turn, spec: PolicySpec, *, take_wins: bool | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """Features of a turn: ``(state (state_dim(spec),), candidates (limit + 1, CAND_DIM), mask (limit + 1,), plays)``.

    Row 0 of the candidates is drawing (allowed when ``turn.draw_allowed``); row ``i >= 1`` is
    ``plays[i - 1]``; rows past the plays are zero and masked out. ``take_wins`` (default:
    ``spec.take_wins``) keeps only the winning plays in the mask when there are any. See the
    module docstring.
    """
    k_max = spec.limit
    turn.default_lists(spec.list_budget)  # the lists the policy was trained on
    plays = turn.legal_plays_up_to(k_max)[:k_max]
    norm, pts = _rules_arrays(turn.rules)
    hand = np.asarray(turn.hand, dtype=np.int64)
    n_hand = int(hand.sum())
    k = len(plays)

    obs = np.asarray(turn.observation["observation"], dtype=np.float32)
    state = np.zeros(state_dim(spec), dtype=np.float32)
    state[: obs.size] = obs
    ex = observation.OBS_SIZE
    for i, hs in enumerate(turn.hand_sizes[: observation.MAX_PLAYERS]):
        state[ex + i] = min(hs / 20.0, 1.0)
    state[ex + 6] = k / k_max
    sizes = np.array([int(p.sum()) for p in plays], dtype=np.int64)
    max_size = int(sizes.max()) if k else 0
    state[ex + 7] = max_size / max(n_hand, 1)
    if spec.stock_clock and turn.stock_size > 0:
        state[STATE_DIM + (turn.stock_size - 1) % turn.rules.players] = 1.0

    cands = np.zeros((k_max + 1, CAND_DIM), dtype=np.float32)
    mask = np.zeros(k_max + 1, dtype=bool)
    mask[0] = bool(turn.draw_allowed) or k == 0
    hand_f = hand.astype(np.float32)
    # draw row: nothing played, the whole hand kept
    cands[0, NUM_TYPES:2 * NUM_TYPES] = hand_f * norm
    s0 = 2 * NUM_TYPES
    cands[0, s0 + 0] = 1.0
    cands[0, s0 + 5] = min(n_hand / 20.0, 1.0)
    cands[0, s0 + 6] = min(float(pts @ hand_f) / 200.0, 1.0)
    cands[0, s0 + 8] = max_size / 13.0
    if k:
        P = np.stack(plays).astype(np.int64)
        from_hand = np.minimum(P, hand)
        after = (hand - from_hand).astype(np.float32)
        Pf = P.astype(np.float32)
        rows = slice(1, k + 1)
        cands[rows, :NUM_TYPES] = Pf * norm
        cands[rows, NUM_TYPES:2 * NUM_TYPES] = after * norm
        left = after.sum(axis=1)
        cands[rows, s0 + 1] = np.minimum(sizes / 13.0, 1.0)
        cands[rows, s0 + 2] = sizes / max(n_hand, 1)
        cands[rows, s0 + 3] = (left == 0).astype(np.float32)
        cands[rows, s0 + 4] = np.minimum(Pf @ pts / 100.0, 1.0)
        cands[rows, s0 + 5] = np.minimum(left / 20.0, 1.0)
        cands[rows, s0 + 6] = np.minimum(after @ pts / 200.0, 1.0)
        cands[rows, s0 + 7] = (sizes == max_size).astype(np.float32)
        cands[rows, s0 + 8] = (max_size - sizes) / 13.0
        cands[rows, s0 + 9] = np.arange(k, dtype=np.float32) / k_max
        cands[rows, s0 + 10] = np.minimum((P - from_hand).sum(axis=1) / 4.0, 1.0)
        if spec.lookahead:
            cands[rows, s0 + 11] = _lookahead(turn, P, hand - from_hand, norm)
        mask[1:k + 1] = True
        if (spec.take_wins if take_wins is None else take_wins) and (left == 0).any():
            mask[:] = False
            mask[1:k + 1] = left == 0
    return state, cands, mask, list(plays)


def _lookahead(turn: Turn, plays: np.ndarray, after: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """Per play: the fraction of the cards left that the oracle could lay down next on table + play."""
    table = np.rint(np.asarray(turn.observation["observation"][NUM_TYPES:2 * NUM_TYPES]) / norm).astype(np.int64)
    out = np.zeros(len(plays), dtype=np.float32)
    for i, (p, rest) in enumerate(zip(plays, after, strict=True)):
        n = int(rest.sum())
        if n == 0:
            out[i] = 1.0
            continue
        nxt = legal.best_play(table + p, rest, turn.rules, opened=True)
        out[i] = float(nxt.sum()) / n
    return out


# ---------------------------------------------------------------------------------------------- network
def _layer(n_in: int, n_out: int, std: float = float(np.sqrt(2))) -> nn.Linear:
    layer = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(layer.weight, std)
    nn.init.zeros_(layer.bias)
    return layer


class CandidatePolicy(nn.Module):
    """Scores each candidate against the state; a value head on the state (see the module docstring)."""

    def __init__(self, spec: PolicySpec):
        super().__init__()
        self.spec = spec
        h, c = spec.hidden, spec.cand_hidden
        self.state_net = nn.Sequential(_layer(state_dim(spec), h), nn.ReLU(), _layer(h, h), nn.ReLU())
        self.cand_net = nn.Sequential(_layer(CAND_DIM, c), nn.ReLU(), _layer(c, c), nn.ReLU())
        self.score_net = nn.Sequential(_layer(h + c, c), nn.ReLU(), _layer(c, 1, std=0.01))
        self.value_net = nn.Sequential(_layer(h, c), nn.ReLU(), _layer(c, 1, std=1.0))

    def forward(
        self, state: torch.Tensor, cands: torch.Tensor, mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``(masked logits (B, K), value (B,))`` for states (B, S), candidates (B, K, C), mask (B, K) bool."""
        s = self.state_net(state)
        c = self.cand_net(cands)
        x = torch.cat([s.unsqueeze(1).expand(-1, c.shape[1], -1), c], dim=-1)
        logits = self.score_net(x).squeeze(-1)
        logits = logits.masked_fill(~mask, -1e9)
        return logits, self.value_net(s).squeeze(-1)

    def value(self, state: torch.Tensor) -> torch.Tensor:
        """The critic's value of states (B, S)."""
        return self.value_net(self.state_net(state)).squeeze(-1)

    def scores(self, state: torch.Tensor, cands: torch.Tensor) -> torch.Tensor:
        """Unmasked logits (K,) of one turn's candidates (K, C) against its state (S,): :meth:`forward`'s
        for a batch of one, without the mask or the value head (what acting needs)."""
        s = self.state_net(state)
        c = self.cand_net(cands)
        return self.score_net(torch.cat([s.expand(c.shape[0], -1), c], dim=-1)).squeeze(-1)


# ---------------------------------------------------------------------------------------------- agent
class PPOAgent(Agent):
    """Plays with a :class:`CandidatePolicy`: the highest-scoring candidate, or a sample when ``sample``.

    Candidate lists: the turn's own budget when it sets one, else the policy spec's
    ``list_budget`` (the lists it was trained on), else exact lists; ``exact_lists=False`` bounds
    them by :data:`~agents.base.PLAY_LIST_BUDGET` instead (faster on crowded joker tables, and
    a little weaker: the shipped policies were trained on exact lists).
    """

    name = "ppo"

    def __init__(
        self,
        policy: CandidatePolicy,
        *,
        sample: bool = False,
        seed: int | None = None,
        take_wins: bool | None = None,
        exact_lists: bool = True,
    ):
        self.policy = policy.eval()
        self.spec = policy.spec
        self.sample = bool(sample)
        self.take_wins = take_wins  # None: the policy's spec decides
        self.rng = np.random.default_rng(seed)
        # a turn's own budget first, then the spec's (the lists it was trained on), then this
        self.list_budget = None if exact_lists or policy.spec.list_budget is not None else PLAY_LIST_BUDGET

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, turn: Turn) -> np.ndarray:
        turn.default_lists(self.list_budget)
        state, cands, mask, plays = encode_turn(turn, self.spec, take_wins=self.take_wins)
        with torch.inference_mode():
            scores = self.policy.scores(torch.from_numpy(state), torch.from_numpy(cands))
        logits = np.where(mask, scores.double().numpy(), -1e9)  # forward()'s masked logits
        if self.sample:
            p = np.exp(logits - logits.max())
            p[~mask] = 0.0
            idx = int(self.rng.choice(len(p), p=p / p.sum()))
        else:
            idx = int(np.argmax(np.where(mask, logits, -np.inf)))
        if idx == 0 or idx > len(plays):
            return DRAW.copy()
        return plays[idx - 1].copy()


# ---------------------------------------------------------------------------------------------- checkpoints
def save_checkpoint(policy: CandidatePolicy, path: str | Path, info: dict[str, Any] | None = None) -> Path:
    """Write ``path`` (``.safetensors``) and its ``.json`` side file; returns the safetensors path."""
    from safetensors.torch import save_file

    path = Path(path)
    if path.suffix != ".safetensors":
        path = path.with_suffix(".safetensors")
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"format": FORMAT, "version": FORMAT_VERSION, "policy": policy.spec.to_dict(), "info": info or {}}
    tensors = {k: v.detach().cpu().contiguous() for k, v in policy.state_dict().items()}
    save_file(tensors, str(path), metadata={"machiavelli": json.dumps(meta)})
    path.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    return path


def _check_meta(meta: Any, where: str) -> PolicySpec:
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(f"{where}: not a machiavelli PPO checkpoint (no {FORMAT!r} metadata)")
    if meta.get("version") != FORMAT_VERSION or type(meta.get("version")) is not int:
        shown = printable(repr(meta.get("version")), 30)
        raise CheckpointError(f"{where}: checkpoint format version {shown}, expected {FORMAT_VERSION}")
    try:
        return PolicySpec.from_dict(meta.get("policy", {}))
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"{where}: bad architecture metadata: {exc}") from None


def expected_shapes(spec: PolicySpec) -> dict[str, tuple[int, ...]]:
    """The name and shape of every tensor of a :class:`CandidatePolicy` of ``spec`` (computed, nothing built)."""
    h, c = spec.hidden, spec.cand_hidden
    layers = {
        "state_net.0": (h, state_dim(spec)), "state_net.2": (h, h),
        "cand_net.0": (c, CAND_DIM), "cand_net.2": (c, c),
        "score_net.0": (c, h + c), "score_net.2": (1, c),
        "value_net.0": (c, h), "value_net.2": (1, c),
    }
    out: dict[str, tuple[int, ...]] = {}
    for name, (n_out, n_in) in layers.items():
        out[f"{name}.weight"] = (n_out, n_in)
        out[f"{name}.bias"] = (n_out,)
    return out


def widen_state_dict(policy: CandidatePolicy, spec: PolicySpec) -> dict[str, torch.Tensor]:
    """``policy``'s weights for a network of ``spec``, which may add the ``stock_clock`` inputs (and
    name another ``list_budget``, which is not architecture).

    The new inputs get zero weights, so the widened network scores every turn exactly as
    ``policy`` does until training changes them. Any other difference of architecture raises
    :class:`CheckpointError`.
    """
    old = policy.spec
    if replace(old, stock_clock=spec.stock_clock, list_budget=spec.list_budget) != spec or (
        old.stock_clock and not spec.stock_clock
    ):
        raise CheckpointError(f"architecture {old.to_dict()} cannot initialise {spec.to_dict()}")
    weights = {k: v.detach().clone() for k, v in policy.state_dict().items()}
    w = weights["state_net.0.weight"]
    extra = state_dim(spec) - w.shape[1]
    if extra:
        weights["state_net.0.weight"] = torch.cat([w, w.new_zeros(w.shape[0], extra)], dim=1)
    return weights


def _check_shapes(spec: PolicySpec, shapes: dict[str, tuple[int, ...] | None], where: str) -> None:
    """:class:`CheckpointError` unless the tensors' names and shapes are those of ``spec`` (``None``: not a tensor)."""
    expected = expected_shapes(spec)
    missing = sorted(set(expected) - set(shapes))
    unexpected = sorted(printable(k, 60) for k in set(shapes) - set(expected))
    if missing or unexpected:
        raise CheckpointError(
            f"{where}: weights do not match the architecture {spec.to_dict()}"
            f" (missing: {', '.join(missing) or 'none'}; unexpected: {', '.join(unexpected[:10]) or 'none'})"
        )
    for name, want in expected.items():
        got = shapes[name]
        if got != want:
            shown = "not a tensor" if got is None else f"shape {got}"
            raise CheckpointError(f"{where}: tensor {name} has {shown}, the architecture needs {want}")


def policy_from_state_dict(spec: PolicySpec, weights: dict[str, torch.Tensor], where: str) -> CandidatePolicy:
    """A :class:`CandidatePolicy` of ``spec`` with ``weights``; :class:`CheckpointError` when they do not fit.

    Names and shapes are checked against :func:`expected_shapes` before the network is built.
    """
    if not isinstance(weights, dict):
        raise CheckpointError(f"{where}: the weights are not a mapping of tensor names to tensors")
    _check_shapes(
        spec, {k: tuple(w.shape) if isinstance(w, torch.Tensor) else None for k, w in weights.items()}, where)
    for name, w in weights.items():
        if not torch.isfinite(w).all():
            raise CheckpointError(f"{where}: tensor {name} holds NaN or infinite values")
    policy = CandidatePolicy(spec)
    policy.load_state_dict({k: v.float() for k, v in weights.items()})
    return policy.eval()


def _read_meta(side: Path, header: dict[str, str], where: str) -> Any:
    """The checkpoint's metadata: the JSON side file if there is one, else the safetensors header's copy."""
    if side.is_file():
        try:
            raw = read_capped(side, MAX_META_BYTES)
        except OSError as exc:
            raise CheckpointError(f"{side}: cannot read: {exc.strerror or type(exc).__name__}") from None
        if raw is None:
            raise CheckpointError(f"{side}: larger than {MAX_META_BYTES // 1024} KiB (not a checkpoint's side file)")
        source: str | bytes = raw
        named = str(side)
    else:
        source = header.get("machiavelli", "null")
        named = where
    try:
        return loads(source)
    except ValueError as exc:
        raise CheckpointError(f"{named}: bad JSON metadata: {exc}") from None


def load_checkpoint(path: str | Path) -> tuple[CandidatePolicy, dict[str, Any]]:
    """Load a policy from a ``.safetensors`` checkpoint (or a training ``.pt``); returns ``(policy, metadata)``.

    Nothing in the file is trusted: the metadata is strict JSON with the architecture within
    :data:`MAX_LIMIT` / :data:`MAX_HIDDEN`, and every tensor's name and shape is checked against
    it before a tensor is read (safetensors) or the network is built. ``.pt`` files load with
    ``torch.load(weights_only=True)``. Raises :class:`CheckpointError` with the file name and
    the problem when it cannot be loaded.
    """
    path = Path(path)
    where = printable(str(path), 200)
    if path.is_dir():
        for name in ("final.safetensors", "checkpoint.pt"):
            if (path / name).is_file():
                return load_checkpoint(path / name)
        raise CheckpointError(f"{where}: a directory without final.safetensors or checkpoint.pt")
    if not path.is_file():
        raise CheckpointError(f"{where}: no such checkpoint file")
    if path.suffix == ".pt":
        try:
            data = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as exc:  # torch raises several types for corrupt or unsafe files
            raise CheckpointError(f"{where}: cannot be read as a weights-only torch checkpoint: {exc}") from None
        if not isinstance(data, dict) or "model" not in data:
            raise CheckpointError(f"{where}: not a machiavelli training checkpoint (no 'model' entry)")
        meta = data.get("meta")
        spec = _check_meta(meta, where)
        return policy_from_state_dict(spec, data["model"], where), meta
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(str(path), framework="pt") as f:
            header = f.metadata() or {}
            meta = _read_meta(path.with_suffix(".json"), header, where)
            spec = _check_meta(meta, where)
            _check_shapes(spec, {k: tuple(f.get_slice(k).get_shape()) for k in f.keys()}, where)
            weights = {k: f.get_tensor(k) for k in f.keys()}
    except (SafetensorError, OSError, ValueError) as exc:
        if isinstance(exc, CheckpointError):
            raise
        raise CheckpointError(f"{where}: not a readable safetensors file: {exc}") from None
    return policy_from_state_dict(spec, weights, where), meta


def shipped_checkpoint(players: int) -> Path:
    """Path of the checkpoint shipped for ``players`` players (classic rules).

    Without one for exactly that count, the nearest shipped player count is used (ties: the
    larger): observations are seat-relative and padded to six players, so any checkpoint plays
    any table size, though it was trained for one.
    """
    path = CHECKPOINT_DIR / f"ppo_classic_{players}p.safetensors"
    if path.is_file():
        return path
    shipped = CHECKPOINT_DIR.glob("ppo_classic_*p.safetensors") if CHECKPOINT_DIR.is_dir() else []
    counts = {int(m[1]): p for p in shipped if (m := re.fullmatch(r"ppo_classic_(\d+)p", p.stem))}
    if not counts:
        raise CheckpointError(
            f"no shipped PPO checkpoint for {players} players (shipped: none); use ppo:PATH with a trained checkpoint"
        )
    return counts[min(counts, key=lambda n: (abs(n - players), -n))]


def load_ppo_agent(
    path: str | Path | None = None,
    *,
    rules: Rules | None = None,
    seed: int | None = None,
    sample: int = 0,
    exact_lists: int = 1,
) -> PPOAgent:
    """The ``ppo`` agent of :func:`agents.registry.make_agent`.

    ``path`` a checkpoint (``.safetensors``, a training ``.pt``, or a run directory); ``None`` the
    shipped one for ``rules.players`` (classic 2 players without rules). ``sample=1`` samples from
    the policy instead of taking its best-scoring candidate; ``exact_lists=0`` bounds its candidate
    lists where its checkpoint names no ``list_budget`` (see :class:`PPOAgent`).
    """
    for name, value in (("sample", sample), ("exact_lists", exact_lists)):
        if value not in (0, 1):
            raise ValueError(f"ppo: {name} must be 0 or 1, got {value!r}")
    torch.set_num_threads(1)
    if path is None:
        path = shipped_checkpoint(rules.players if rules is not None else 2)
    policy, _ = load_checkpoint(path)
    return PPOAgent(policy, sample=bool(sample), seed=seed, exact_lists=bool(exact_lists))
