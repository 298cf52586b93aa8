"""Test helper: the oracle extension with some search settings changed, restored afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def search_params(**params: int) -> Iterator[Any]:
    """The extension with some search settings changed (``_dp.set_params``), restored afterwards."""
    from machiavelli_env.oracle import _dp  # type: ignore[attr-defined]

    saved = _dp.set_params()
    _dp.set_params(**params)
    try:
        yield _dp
    finally:
        _dp.set_params(**saved)
