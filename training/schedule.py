"""The league scheduler: which agents play game ``g``, in which seats, on which deal.

A league has a pool of ``A`` named agents, player counts ``N`` (each 2..6, at most ``A``), rules
presets ``R`` and a seed. The scheduler is a deterministic function of these alone, so game ``g``
is the same game whether a league runs locally, on Ray, or is resumed.

**Blocks.** A *block* is one deal played ``n`` times by one table of ``n`` distinct agents, with
the seats rotated (duplicate format, as :func:`agents.arena.evaluate`): in block game ``k`` the
agent listed ``i``-th sits in seat ``(i + k) mod n``. Within a block every agent sits in every
seat once and plays every hand of the deal, which cancels most of the luck of the deal.

**Cycles.** One *cycle* holds one block for every (rules preset, player count, subset of ``n``
agents) combination: ``sum over n in N of C(A, n) * n`` games per preset. After a full cycle
every agent has met every other agent at every player count (as long as ``n <= A``) and has sat
in every seat of every player count it plays. Within cycle ``c`` the blocks come in an order
shuffled by ``SeedSequence([seed, c])`` (so a league cut short mid-cycle is still mixed), and
each block's listing order is shuffled too, so that across cycles the agents also meet in
different cyclic orders (who plays after whom), not only in different seats.

**Seeds.** Block ``b`` (counted over the whole league) deals with
``arena.deal_seed(seed, b)``; the agents of game ``g`` are reset with seeds drawn from
``SeedSequence([seed, 1, g])`` (one per seat), so stochastic agents are reproducible too.

The player counts in a cycle are therefore weighted by ``C(A, n) * n`` games: with 4 agents and
player counts 2, 3, 4 a cycle is 12 two-player, 12 three-player and 4 four-player games.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from machiavelli_env.agents.arena import deal_seed


@dataclass(frozen=True)
class Fixture:
    """One scheduled game: its index, block, rules preset, seats (pool names) and seeds."""

    game: int
    block: int
    rules: str
    players: int
    seats: tuple[str, ...]
    seed: int
    agent_seeds: tuple[int, ...]


@dataclass(frozen=True)
class _Block:
    rules: str
    players: int
    agents: tuple[int, ...]  # pool indices, canonical (sorted) order


class Schedule:
    """The league's games in order (see the module docstring); ``fixture(g)`` is game ``g``."""

    def __init__(self, pool: Sequence[str], player_counts: Sequence[int], rules: Sequence[str], seed: int):
        pool = list(pool)
        if len(set(pool)) != len(pool):
            raise ValueError(f"pool names must be distinct, got {pool}")
        if not rules:
            raise ValueError("a league needs at least one rules preset")
        if not player_counts:
            raise ValueError("a league needs at least one player count")
        for n in player_counts:
            if not 2 <= int(n) <= 6:
                raise ValueError(f"player counts must be 2..6, got {n}")
            if int(n) > len(pool):
                raise ValueError(
                    f"{n}-player games need {n} distinct agents but the pool has {len(pool)} "
                    f"({', '.join(pool)}); add agents (the same agent may be listed under another name)"
                )
        self.pool = pool
        self.player_counts = sorted({int(n) for n in player_counts})
        self.rules = list(dict.fromkeys(rules))
        self.seed = int(seed)
        self._blocks = [
            _Block(r, n, combo)
            for r in self.rules
            for n in self.player_counts
            for combo in itertools.combinations(range(len(pool)), n)
        ]
        self.blocks_per_cycle = len(self._blocks)
        self.cycle_length = sum(b.players for b in self._blocks)
        self._cycle_cache: dict[int, tuple[list[_Block], list[int]]] = {}

    def _cycle(self, c: int) -> tuple[list[_Block], list[int]]:
        """The blocks of cycle ``c`` in play order (listing orders shuffled) and their start offsets."""
        if c not in self._cycle_cache:
            rng = np.random.default_rng(np.random.SeedSequence([self.seed, 0, c]))
            order = rng.permutation(len(self._blocks))
            blocks = []
            for i in order:
                b = self._blocks[int(i)]
                listing = tuple(b.agents[int(j)] for j in rng.permutation(b.players))
                blocks.append(_Block(b.rules, b.players, listing))
            starts = [0, *itertools.accumulate(b.players for b in blocks)][:-1]
            if len(self._cycle_cache) > 4:
                self._cycle_cache.clear()
            self._cycle_cache[c] = (blocks, starts)
        return self._cycle_cache[c]

    def fixture(self, g: int) -> Fixture:
        """Game ``g`` (0-based) of the league."""
        if g < 0:
            raise ValueError(f"game index must be >= 0, got {g}")
        c, offset = divmod(int(g), self.cycle_length)
        blocks, starts = self._cycle(c)
        pos = bisect.bisect_right(starts, offset) - 1
        block, k = blocks[pos], offset - starts[pos]
        n = block.players
        seats = [""] * n
        for i, a in enumerate(block.agents):
            seats[(i + k) % n] = self.pool[a]
        seeds = np.random.SeedSequence([self.seed, 1, int(g)]).generate_state(n, dtype=np.uint32) % (2**31)
        b_index = c * self.blocks_per_cycle + pos
        return Fixture(
            game=int(g), block=b_index, rules=block.rules, players=n, seats=tuple(seats),
            seed=deal_seed(self.seed, b_index), agent_seeds=tuple(int(s) for s in seeds),
        )

    def fixtures(self, start: int, stop: int) -> list[Fixture]:
        """Games ``start`` .. ``stop - 1``."""
        return [self.fixture(g) for g in range(start, stop)]

    def describe(self) -> str:
        """One line: the cycle's size and its games per player count."""
        per = {n: len(self.rules) * math.comb(len(self.pool), n) * n for n in self.player_counts}
        mix = ", ".join(f"{g} {n}-player" for n, g in per.items())
        return (
            f"{len(self.pool)} agents, presets {', '.join(self.rules)}: a cycle is {self.blocks_per_cycle} "
            f"blocks = {self.cycle_length} games ({mix}) in which every agent meets every other and sits in every seat"
        )
