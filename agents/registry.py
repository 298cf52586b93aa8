"""Agents by name: ``make_agent("greedy")``, ``make_agent("ppo:runs/x/final.safetensors")``.

Names: ``random``, ``greedy``, ``greedy_points``, ``patient``, ``hoarder``, ``human``, ``ppo`` (the shipped
checkpoint for the player count) and ``ppo:PATH``. Options may follow in brackets for the
heuristics, e.g. ``patient[min_cards=4,danger=3]``. torch is imported only for ``ppo``.
"""

from __future__ import annotations

import re

from machiavelli_env.rules import Rules

from .base import Agent
from .heuristic import GreedyAgent, GreedyPointsAgent, HoarderAgent, PatientAgent, RandomAgent

AGENT_NAMES = ("random", "greedy", "greedy_points", "patient", "hoarder", "human", "ppo")

_SPEC = re.compile(r"^(?P<kind>[a-z_]+)(?:\[(?P<opts>[^\]]*)\])?(?::(?P<path>.+))?$")


class AgentSpecError(ValueError):
    """An agent name that cannot be built; the message names it and lists the known agents."""


def _options(text: str | None, spec: str) -> dict[str, int]:
    out: dict[str, int] = {}
    if not text:
        return out
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if not sep or not value.strip().lstrip("-").isdigit():
            raise AgentSpecError(f"agent {spec!r}: option {item!r} must look like name=integer")
        out[key.strip()] = int(value)
    return out


def make_agent(spec: str, rules: Rules | None = None, seed: int | None = None) -> Agent:
    """Build an agent from its name (see the module docstring); ``rules`` picks the ppo checkpoint."""
    m = _SPEC.match(spec.strip())
    if not m or m["kind"] not in AGENT_NAMES:
        raise AgentSpecError(f"unknown agent {spec!r}; known agents: {', '.join(AGENT_NAMES)} (ppo:PATH for a file)")
    kind, opts, path = m["kind"], _options(m["opts"], spec), m["path"]
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
