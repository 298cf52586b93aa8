"""Machiavelli, the open-table Italian rummy, as a reinforcement-learning environment.

``machiavelli_env.env(rules="classic", **overrides)`` is the PettingZoo AEC environment;
:mod:`machiavelli_env.game` the pure engine; :mod:`machiavelli_env.wrappers` the candidate-play
and single-agent (Gymnasium) wrappers. Environment modules are imported lazily, so the engine
and the oracle work without PettingZoo.

Importing the package registers the single-agent environment with Gymnasium (the entry point is
a string, so nothing more is imported until an environment is made)::

    gymnasium.make("Machiavelli-v1")                        # SingleAgentEnv(): card-count actions
    gymnasium.make("MachiavelliCandidates-v1", players=3)   # SingleAgentEnv(candidates=64, players=3)
    gymnasium.make_vec("MachiavelliCandidates-v1", num_envs=8)

In a process that has not imported the package, ``gymnasium.make("machiavelli_env:Machiavelli-v1")``
imports it first.
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _dist_version
from typing import Any

from .rules import Rules

try:  # pyproject.toml's version, the one place it is written
    __version__ = _dist_version("machiavelli-env")
except PackageNotFoundError:  # a source tree on sys.path, never installed
    __version__ = "0+unknown"

_LAZY = {
    "env": ("env", "env"),
    "raw_env": ("env", "raw_env"),
    "CandidatePlays": ("wrappers", "CandidatePlays"),
    "SingleAgentEnv": ("wrappers", "SingleAgentEnv"),
    "legal_plays": ("legal", "legal_plays"),
    "ListBudget": ("legal", "ListBudget"),
    "State": ("game", "State"),
    "new_game": ("game", "new_game"),
    "new_state_from": ("game", "new_state_from"),
    "step": ("game", "step"),
    "state_to_json": ("game", "state_to_json"),
    "state_from_json": ("game", "state_from_json"),
}

__all__ = ["GYMNASIUM_IDS", "Rules", "__version__", *_LAZY]

#: Gymnasium ids registered on import, with their default keyword arguments.
GYMNASIUM_IDS: dict[str, dict[str, Any]] = {"Machiavelli-v1": {}, "MachiavelliCandidates-v1": {"candidates": 64}}


def _register_gymnasium() -> None:
    try:
        from gymnasium.envs.registration import register, registry
    except ImportError:  # the engine works without Gymnasium
        return
    for env_id, kwargs in GYMNASIUM_IDS.items():
        if env_id not in registry:
            register(id=env_id, entry_point="machiavelli_env.wrappers:SingleAgentEnv", kwargs=dict(kwargs))


_register_gymnasium()


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(import_module(f".{module}", __name__), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
