"""Fixtures shared by the test modules."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="session")
def load_benchmark() -> Iterator[Callable[[str], ModuleType]]:
    """``load_benchmark("tail")``: ``benchmarks/tail.py`` loaded afresh as the module ``bench_tail``,
    registered in ``sys.modules`` (dataclasses look their module up there), with ``benchmarks/`` on
    ``sys.path`` (the scripts import each other); both undone when the session ends."""
    loaded: list[str] = []
    sys.path.insert(0, str(BENCHMARKS))

    def load(name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
        assert spec is not None and spec.loader is not None, name
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        loaded.append(spec.name)
        spec.loader.exec_module(module)
        return module

    try:
        yield load
    finally:
        sys.path.remove(str(BENCHMARKS))
        for name in loaded:
            sys.modules.pop(name, None)
