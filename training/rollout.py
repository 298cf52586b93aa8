"""Rollouts: many games stepped together against the opponent pool, in one or more worker processes.

A :class:`RolloutWorker` keeps ``games`` games in progress. In each of them the learner sits in a
random seat and the other seats are opponents from :mod:`training.pool`; between two learner moves
the opponents play on (so every row of a batch is one learner decision). Per step the worker
encodes the learner's turn in every game (:func:`agents.ppo.encode_turn`), runs the policy once on
the whole batch (one torch thread), samples the moves, and plays them. Finished games are dealt
again at once, with a new seat and new opponents. Opponents (``random``, and ``ppo`` policies whose
spec names no ``list_budget``) read exact legal-play lists here, as in runs made before bounded lists
became the agents' default, so a config trains the same policy it did.

:class:`~machiavelli_env.training.workers.WorkerGroup` runs ``workers`` of them, in processes or
Ray actors. Every worker's random numbers come from ``SeedSequence([seed, worker, first_update])``,
so a run is reproducible for a given seed and worker count, and gives the same weights on either
engine.

Rewards: the engine's (the rules' ``reward``), or with ``placement`` a reward for the learner's
finishing place at the end of each game: the winner first, the others by fewest penalty points
(:func:`agents.arena.finishing_ranks`, the order the league rates), worth ``1 - 2 * rank / (n - 1)``
(+1 first, -1 last; equal with two players to ``win_loss``); 0 when the game is truncated.
With ``placement_weight`` w < 1 the two are mixed: ``(1 - w) * engine + w * placement``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from machiavelli_env.agents.arena import evaluate, finishing_ranks, penalty_points
from machiavelli_env.agents.base import DRAW, Agent, turn_from_state
from machiavelli_env.agents.ppo import CAND_DIM, CandidatePolicy, PolicySpec, PPOAgent, encode_turn, state_dim
from machiavelli_env.agents.registry import make_agent

from machiavelli_env import game
from machiavelli_env.rules import Rules

from . import pool


def to_numpy(state_dict: dict[str, torch.Tensor]) -> dict[str, np.ndarray]:
    """Weights as numpy arrays (to send to worker processes)."""
    return {k: v.detach().cpu().numpy().copy() for k, v in state_dict.items()}


def from_numpy(weights: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    return {k: torch.from_numpy(np.asarray(v)) for k, v in weights.items()}


@dataclass
class _Slot:
    """One game in progress."""

    state: game.State
    seat: int
    opponents: dict[int, str]
    encoded: tuple | None = None  # the learner's encoded turn, when already computed


def _rng_state(rng: np.random.Generator) -> dict[str, Any]:
    """A generator's state as plain values (its bit generator's ``state`` dict)."""
    return rng.bit_generator.state


def _set_rng_state(rng: np.random.Generator, state: dict[str, Any]) -> None:
    rng.bit_generator.state = state


def placement_reward(state: game.State, seat: int) -> float:
    """The ``placement`` reward of ``seat`` in a finished game (see the module docstring)."""
    if state.truncated:
        return 0.0
    ranks = finishing_ranks(state.winner, penalty_points(state))
    return 1.0 - 2.0 * ranks[seat] / (state.players - 1)


class RolloutWorker:
    """Steps ``games`` games together (see the module docstring)."""

    def __init__(
        self,
        rules: Rules,
        spec: PolicySpec,
        games: int,
        seed: int,
        worker: int,
        first_update: int,
        heuristics: dict[str, float],
        latest: float,
        gamma: float,
        shaping: float,
        reward: str = "env",
        placement_weight: float = 1.0,
        take_wins: bool = False,
    ):
        torch.set_num_threads(1)
        self.rules, self.spec = rules, spec
        self.rng = np.random.default_rng(np.random.SeedSequence([int(seed), int(worker), int(first_update)]))
        self.policy = CandidatePolicy(spec).eval()
        self.heuristics, self.latest, self.gamma, self.shaping = dict(heuristics), float(latest), gamma, shaping
        self.placement_weight = float(placement_weight) if reward == "placement" else 0.0
        self.bots: dict[str, Agent] = {
            name: make_agent(name, rules, seed=int(self.rng.integers(2**31)), exact_lists=True) for name in heuristics
        }
        # take_wins off: the learner and its policy opponents sample the unmasked policy (runs made before
        # the option reproduce); on: a winning play, when there is one, is the only candidate, as in evaluation
        self.take_wins: bool | None = None if take_wins else False  # None: as the policy's spec says
        self.latest_agent = PPOAgent(self.policy, sample=True, seed=int(self.rng.integers(2**31)),
                                     take_wins=self.take_wins, exact_lists=True)
        self.snapshots: dict[int, PPOAgent] = {}
        self.pool_ids: list[int] = []  # the current pool (self.snapshots may also hold retired ids in use)
        self.p_policy = 0.0
        self.slots = [self._deal() for _ in range(games)]

    # ------------------------------------------------------------------ weights and pool
    def set_weights(self, weights: dict[str, np.ndarray]) -> None:
        self.policy.load_state_dict(from_numpy(weights))

    def sync_snapshots(self, snapshots: dict[int, dict[str, np.ndarray] | None]) -> None:
        """Keep the snapshot ids given, plus those still seated in an unfinished game (dropped once
        their games end); weights come with the ids this worker has not seen."""
        in_use = {
            int(key[len(pool.SNAPSHOT):])
            for slot in self.slots
            for key in slot.opponents.values()
            if key.startswith(pool.SNAPSHOT)
        }
        for sid in list(self.snapshots):
            if sid not in snapshots and sid not in in_use:
                del self.snapshots[sid]
        self.pool_ids = sorted(snapshots)
        for sid, weights in snapshots.items():
            if sid not in self.snapshots:
                if weights is None:
                    raise ValueError(f"snapshot {sid} is new to this worker but came without weights")
                net = CandidatePolicy(self.spec)
                net.load_state_dict(from_numpy(weights))
                self.snapshots[sid] = PPOAgent(net, sample=True, seed=int(self.rng.integers(2**31)),
                                               take_wins=self.take_wins, exact_lists=True)

    def _agent(self, key: str) -> Agent:
        if key == pool.LATEST:
            return self.latest_agent
        if key.startswith(pool.SNAPSHOT):
            return self.snapshots[int(key[len(pool.SNAPSHOT):])]
        return self.bots[key]

    # ------------------------------------------------------------------ resumable state
    def get_state(self) -> dict[str, Any]:
        """What a resumed run needs to go on exactly as this worker would: its random streams (its
        own, and each opponent agent's), the games in progress and the snapshot policies seated in
        them, as plain values and arrays (a training checkpoint stores them; see :meth:`set_state`).
        The learner's weights are not included: the trainer sends them before every update."""
        return {
            "rng": _rng_state(self.rng),
            "bots": {name: _rng_state(agent.rng) for name, agent in self.bots.items() if hasattr(agent, "rng")},
            "latest": _rng_state(self.latest_agent.rng),
            "snapshots": {str(sid): {"rng": _rng_state(agent.rng), "weights": to_numpy(agent.policy.state_dict())}
                          for sid, agent in self.snapshots.items()},
            "pool_ids": list(self.pool_ids),
            "p_policy": self.p_policy,
            "slots": [{"state": game.state_to_json(slot.state), "seat": slot.seat,
                       "opponents": {str(q): key for q, key in slot.opponents.items()}} for slot in self.slots],
        }

    def set_state(self, data: dict[str, Any]) -> None:
        """Continue from :meth:`get_state`'s record of a worker built with the same arguments
        (``ValueError`` when it does not fit this worker: another number of games or players)."""
        slots = data["slots"]
        if len(slots) != len(self.slots):
            raise ValueError(f"the saved worker held {len(slots)} games, this one {len(self.slots)}")
        snapshots: dict[int, PPOAgent] = {}
        for sid, item in data["snapshots"].items():
            net = CandidatePolicy(self.spec)
            net.load_state_dict(from_numpy(item["weights"]))
            agent = PPOAgent(net, sample=True, seed=0, take_wins=self.take_wins, exact_lists=True)
            _set_rng_state(agent.rng, item["rng"])
            snapshots[int(sid)] = agent
        restored = []
        for item in slots:
            state = game.state_from_json(item["state"])
            if state.rules != self.rules:
                raise ValueError("the saved games were played under other rules")
            restored.append(_Slot(state, int(item["seat"]), {int(q): str(k) for q, k in item["opponents"].items()}))
        _set_rng_state(self.rng, data["rng"])
        for name, state in data["bots"].items():
            _set_rng_state(self.bots[name].rng, state)
        _set_rng_state(self.latest_agent.rng, data["latest"])
        self.snapshots = snapshots
        self.pool_ids = [int(i) for i in data["pool_ids"]]
        self.p_policy = float(data["p_policy"])
        self.slots = restored

    # ------------------------------------------------------------------ games
    def _deal(self) -> _Slot:
        n = self.rules.players
        for _ in range(100):
            state = game.new_game(self.rules, int(self.rng.integers(2**62)))
            seat = int(self.rng.integers(n))
            opponents = {
                q: pool.sample_opponent(self.rng, self.heuristics, self.p_policy, self.latest, self.pool_ids)
                for q in range(n) if q != seat
            }
            slot = _Slot(state, seat, opponents)
            self._advance(slot)
            if not slot.state.done:
                return slot
        raise RuntimeError("100 deals in a row ended before the learner moved")

    def _advance(self, slot: _Slot) -> float:
        """Opponents move until the learner is to move or the game is over; the learner's rewards."""
        reward = 0.0
        s = slot.state
        while not s.done and s.current != slot.seat:
            q = s.current
            action = self._agent(slot.opponents[q]).act(turn_from_state(s, q, limit=self.spec.limit))
            s = game.step(s, action)
            reward += float(s.rewards[slot.seat])
        slot.state = s
        slot.encoded = None
        return reward

    def _encode(self, slot: _Slot) -> tuple:
        if slot.encoded is None:
            turn = turn_from_state(slot.state, slot.seat, limit=self.spec.limit)
            slot.encoded = encode_turn(turn, self.spec, take_wins=self.take_wins)
        return slot.encoded

    def _potential(self, slot: _Slot) -> float:
        if self.shaping <= 0 or slot.state.done:
            return 0.0
        return -self.shaping * float(slot.state.hands[slot.seat].sum()) / self.rules.hand_size

    def _forward(self, encoded: list[tuple]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        states = np.stack([e[0] for e in encoded])
        cands = np.stack([e[1] for e in encoded])
        masks = np.stack([e[2] for e in encoded])
        with torch.no_grad():
            logits, values = self.policy(torch.from_numpy(states), torch.from_numpy(cands), torch.from_numpy(masks))
        return states, cands, masks, logits.double().numpy(), values.numpy()

    def collect(self, steps: int, p_policy: float) -> dict[str, Any]:
        """Play ``steps`` learner moves in every game; the batch (arrays shaped (steps, games, ...))."""
        self.p_policy = float(p_policy)
        g = len(self.slots)
        out = {
            "states": np.zeros((steps, g, state_dim(self.spec)), dtype=np.float32),
            "cands": np.zeros((steps, g, self.spec.limit + 1, CAND_DIM), dtype=np.float32),
            "masks": np.zeros((steps, g, self.spec.limit + 1), dtype=bool),
            "actions": np.zeros((steps, g), dtype=np.int64),
            "logprobs": np.zeros((steps, g), dtype=np.float32),
            "values": np.zeros((steps, g), dtype=np.float32),
            "rewards": np.zeros((steps, g), dtype=np.float32),
            "ends": np.zeros((steps, g), dtype=np.float32),
        }
        episodes: list[dict[str, Any]] = []
        for t in range(steps):
            encoded = [self._encode(s) for s in self.slots]
            states, cands, masks, logits, values = self._forward(encoded)
            out["states"][t], out["cands"][t], out["masks"][t], out["values"][t] = states, cands, masks, values
            for i, slot in enumerate(self.slots):
                z = np.where(masks[i], logits[i], -np.inf)
                p = np.exp(z - z.max())
                p /= p.sum()
                a = int(self.rng.choice(p.size, p=p))
                out["actions"][t, i] = a
                out["logprobs"][t, i] = float(np.log(p[a]))
                plays = encoded[i][3]
                action = DRAW if a == 0 else plays[a - 1]
                phi0 = self._potential(slot)
                slot.state = game.step(slot.state, action)
                reward = float(slot.state.rewards[slot.seat]) + self._advance(slot)
                if self.placement_weight:
                    place = placement_reward(slot.state, slot.seat) if slot.state.done else 0.0
                    reward = (1.0 - self.placement_weight) * reward + self.placement_weight * place
                reward += self.gamma * self._potential(slot) - phi0
                out["rewards"][t, i] = reward
                if slot.state.done:
                    out["ends"][t, i] = 1.0
                    st = slot.state
                    episodes.append({
                        "opponents": sorted({pool.kind_of(k) for k in slot.opponents.values()}),
                        "win": int(st.winner == slot.seat),
                        "draw": int(st.winner < 0),
                        "turns": int(st.turn),
                        "result": st.result,
                    })
                    self.slots[i] = self._deal()
        _, _, _, _, last_values = self._forward([self._encode(s) for s in self.slots])
        out["last_values"] = last_values.astype(np.float32)
        out["episodes"] = episodes
        return out

    def evaluate(self, opponent: str, games: int, seed: int, sample: bool = False) -> dict[str, Any]:
        """Seat-rotated games of the current policy (best-scoring moves, or sampled) against ``opponent``."""
        n = self.rules.players
        me = PPOAgent(self.policy, sample=sample, seed=seed, exact_lists=True)
        others = [make_agent(opponent, self.rules, seed=seed + i, exact_lists=True) for i in range(1, n)]
        res = evaluate([me, *others], self.rules, games, seed, limit=self.spec.limit)
        a = res["agents"][0]
        return {"games": res["games"], "wins": a["wins"], "draws": a["draws"],
                "penalty": a["mean_penalty_points"] * res["games"]}


class WorkerError(RuntimeError):
    """A rollout worker failed; the message carries its traceback."""
