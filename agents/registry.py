"""Agents by name: ``make_agent("greedy")``, ``make_agent("ppo:runs/x/final.safetensors")``.

Names: ``random``, ``greedy``, ``greedy_points``, ``patient``, ``hoarder``, ``tempo``, ``human``, ``ppo`` (the shipped
checkpoint for the player count), ``ppo:PATH`` and ``search`` (determinized search, :mod:`agents.search`).
Options may follow in brackets, e.g. ``patient[min_cards=4,danger=3]`` or
``search[sims=64,rollout=hoarder,seed=0]``; values are integers, except ``search``'s ``rollout`` and
``opponents`` (names). torch is imported only for ``ppo``.

A name is one player wherever it appears (``machiavelli eval``, ``play``, ``league``, ``serve``,
BENCHMARK.md, :func:`agents.interop.win_rate`, and for ``random`` and ``greedy`` the opponents of
``SingleAgentEnv``): ``random`` and ``ppo`` read exact legal-play lists and ``hoarder`` asks the
oracle's own max-cards schedule. Faster variants are options: ``random[exact_lists=0]`` and
``ppo[exact_lists=0]`` read lists bounded by :data:`agents.base.PLAY_LIST_BUDGET`,
``hoarder[search_work=40000]`` bounds its max-cards search.
"""

from __future__ import annotations

import re

from machiavelli_env.rules import Rules

from .base import Agent
from .heuristic import (
    HOARDER_SEARCH_WORK,
    GreedyAgent,
    GreedyPointsAgent,
    HoarderAgent,
    PatientAgent,
    RandomAgent,
    TempoAgent,
)

AGENT_NAMES = ("random", "greedy", "greedy_points", "patient", "hoarder", "tempo", "human", "ppo", "search")
_NAMED_OPTIONS = {"search": ("rollout", "opponents")}  # options whose value is a name, not an integer

_SPEC = re.compile(r"^(?P<kind>[a-z_]+)(?:\[(?P<opts>[^\]]*)\])?(?::(?P<path>.+))?$")


class AgentSpecError(ValueError):
    """An agent name that cannot be built; the message names it and lists the known agents."""


def _options(text: str | None, spec: str, kind: str = "") -> dict[str, int | str]:
    out: dict[str, int | str] = {}
    if not text:
        return out
    named = _NAMED_OPTIONS.get(kind, ())
    for item in text.split(","):
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if sep and key in named and re.fullmatch(r"[a-z_]+", value):
            out[key] = value
            continue
        if not sep or not value.lstrip("-").isdigit():
            raise AgentSpecError(f"agent {spec!r}: option {item!r} must look like name=integer")
        out[key] = int(value)
    return out


def split_specs(text: str) -> list[str]:
    """Split a comma-separated list of agent specs, keeping commas inside brackets (``a[x=1,y=2],b``)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return [s.strip() for s in out if s.strip()]


def make_agent(spec: str, rules: Rules | None = None, seed: int | None = None, *, exact_lists: bool = True) -> Agent:
    """Build an agent from its name (see the module docstring); ``rules`` picks the ppo checkpoint.

    ``exact_lists=False`` builds the faster variants where the spec does not say otherwise:
    ``random`` and ``ppo`` on lists bounded by :data:`agents.base.PLAY_LIST_BUDGET`
    (``[exact_lists=0]``) and ``hoarder`` with its max-cards search bounded by
    :data:`agents.heuristic.HOARDER_SEARCH_WORK` (``[search_work=40000]``)."""
    m = _SPEC.match(spec.strip())
    if not m or m["kind"] not in AGENT_NAMES:
        raise AgentSpecError(f"unknown agent {spec!r}; known agents: {', '.join(AGENT_NAMES)} (ppo:PATH for a file)")
    kind, path = m["kind"], m["path"]
    opts = _options(m["opts"], spec, kind)
    if not exact_lists and kind in ("random", "ppo"):
        opts.setdefault("exact_lists", 0)
    if not exact_lists and kind == "hoarder":
        opts.setdefault("search_work", HOARDER_SEARCH_WORK)
    if path is not None and kind != "ppo":
        raise AgentSpecError(f"agent {spec!r}: only ppo takes a path (ppo:PATH)")
    try:
        if kind == "random":
            agent: Agent = RandomAgent(seed, **opts)
        elif kind == "greedy":
            agent = GreedyAgent(**opts)
        elif kind == "greedy_points":
            agent = GreedyPointsAgent(**opts)
        elif kind == "patient":
            agent = PatientAgent(**opts)
        elif kind == "hoarder":
            agent = HoarderAgent(**opts)
        elif kind == "tempo":
            agent = TempoAgent(**opts)
        elif kind == "search":
            from .search import SearchAgent

            try:
                agent = SearchAgent(opts.pop("seed", seed), **opts)
            except ValueError as exc:
                raise AgentSpecError(f"agent {spec!r}: {exc}") from None
        elif kind == "human":
            from .human import HumanAgent

            agent = HumanAgent(**opts)
        else:
            from .ppo import load_ppo_agent

            agent = load_ppo_agent(path, rules=rules, seed=seed, **opts)
    except TypeError as exc:
        raise AgentSpecError(f"agent {spec!r}: {exc}") from None
    agent.name = spec.strip()
    return agent
