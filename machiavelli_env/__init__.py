"""Machiavelli, the open-table Italian rummy, as a reinforcement-learning environment.

``machiavelli_env.env(rules="classic", **overrides)`` is the PettingZoo AEC environment;
:mod:`machiavelli_env.game` the pure engine; :mod:`machiavelli_env.wrappers` the candidate-play
and single-agent (Gymnasium) wrappers. Environment modules are imported lazily, so the engine
and the oracle work without PettingZoo.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from .rules import Rules

__version__ = "0.1.0"

_LAZY = {
    "env": ("env", "env"),
    "raw_env": ("env", "raw_env"),
    "CandidatePlays": ("wrappers", "CandidatePlays"),
    "SingleAgentEnv": ("wrappers", "SingleAgentEnv"),
    "legal_plays": ("legal", "legal_plays"),
    "State": ("game", "State"),
    "new_game": ("game", "new_game"),
    "new_state_from": ("game", "new_state_from"),
    "step": ("game", "step"),
    "state_to_json": ("game", "state_to_json"),
    "state_from_json": ("game", "state_from_json"),
}

__all__ = ["Rules", "__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(import_module(f".{module}", __name__), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
