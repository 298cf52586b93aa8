"""Run a function over many seeds (or other items) on Ray workers, results in input order.

Ray is an optional extra (``pip install -e ".[ray]"``). Used by ``machiavelli league --engine ray``
(one task per game, :func:`ray_map`) and by PPO training's ``rollout.engine: ray``
(:class:`RayWorkerGroup`: one actor per rollout worker, each holding a
:class:`~machiavelli_env.training.rollout.RolloutWorker`)::

    from machiavelli_env.training.ray_rollouts import ray_map

    results = ray_map(collect_rollout, seeds, policy_state, address=None)
    # == [collect_rollout(seed, policy_state) for seed in seeds], computed on Ray workers

``ray_map(fn, items, *shared, ...)`` calls ``fn(item, *shared)`` for every item. ``shared``
arguments (e.g. policy weights) are put into Ray's object store once and passed to every task.
``fn`` is shipped with cloudpickle, so closures and lambdas work; the module that defines it must
be importable on the workers (true on a local instance; on a cluster install this package on
every node or pass ``runtime_env``). Every task sets torch to ``torch_threads`` threads (when
torch is imported on the worker), so a worker is one CPU and results do not depend on how many
threads a machine has.

Ray starts locally (``ray.init()``, the machine's CPUs or ``num_cpus``) unless ``address`` names a
cluster (``"auto"``, ``"ray://host:10001"``). An instance already running in this process is used
as it is.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


class RayUnavailable(RuntimeError):
    """Ray is not installed (``pip install -e ".[ray]"``) or could not connect/start."""


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise RayUnavailable(
            f"the ray engine needs Ray: pip install -e '.[ray]' (or pip install ray) ({exc})"
        ) from None
    return ray


def ensure_ray(address: str | None = None, num_cpus: int | None = None) -> Any:
    """The ``ray`` module, initialised: connected to ``address`` or a new local instance."""
    ray = _ray()
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": "ERROR"}
        if address:
            kwargs["address"] = address
        else:
            # "local": always a new instance, never a cluster that an earlier run left recorded in
            # Ray's temp folder (ray.init() would try to join it, and reject num_cpus)
            kwargs["address"] = "local"
            if num_cpus is not None:
                kwargs["num_cpus"] = num_cpus
        try:
            ray.init(**kwargs)
        except Exception as exc:  # ray raises ConnectionError, RuntimeError, ValueError, ...
            where = f"the Ray cluster at {address!r}" if address else "a local Ray instance"
            raise RayUnavailable(f"cannot start or connect to {where}: {exc}") from None
    return ray


class _RolloutActor:
    """One :class:`~machiavelli_env.training.rollout.RolloutWorker` in a Ray actor (one CPU, one torch thread)."""

    def __init__(self, kwargs: dict[str, Any]):
        import torch

        from .rollout import RolloutWorker

        torch.set_num_threads(1)
        self.worker = RolloutWorker(**kwargs)

    def ready(self) -> bool:
        return True

    def call(self, cmd: str, args: dict[str, Any]) -> Any:
        return getattr(self.worker, cmd)(**args)


class RayWorkerGroup:
    """``workers`` rollout workers as Ray actors, on a local instance or the cluster at ``address``.

    The same interface as :class:`~machiavelli_env.training.workers.WorkerGroup` (``n``, ``local``
    (always ``None``), ``call``, ``close``); worker ``w`` gets the same arguments and seeds as the
    local engine's worker ``w``, so a run gives the same weights on either engine for the same seed
    and worker count. A worker's exception is raised as ``WorkerError`` with its traceback.
    """

    def __init__(self, workers: int, *, address: str | None = None, num_cpus: int | None = None, **kwargs: Any):
        from .rollout import WorkerError

        self._error = WorkerError
        self.ray = ensure_ray(address, num_cpus)
        self.n = workers
        self.local = None
        actor = self.ray.remote(num_cpus=1, max_restarts=0)(_RolloutActor)
        self.actors = [actor.remote({**kwargs, "worker": w}) for w in range(workers)]
        self._get([a.ready.remote() for a in self.actors])

    def _get(self, refs: list[Any]) -> list[Any]:
        try:
            return self.ray.get(refs)
        except self.ray.exceptions.RayError as exc:
            self.close()
            raise self._error(f"rollout worker failed on Ray (the run's last checkpoint is intact: continue it "
                              f"with --resume):\n{exc}") from None

    def call(self, cmd: str, args: list[dict[str, Any]]) -> list[Any]:
        """Run ``cmd`` on every worker (``args[w]`` for worker ``w``); the results in worker order."""
        return self._get([a.call.remote(cmd, x) for a, x in zip(self.actors, args, strict=True)])

    def close(self) -> None:
        for a in self.actors:
            try:
                self.ray.kill(a)
            except Exception:  # already gone
                pass
        self.actors = []


def _call(fn: Callable[..., T], item: Any, torch_threads: int, *shared: Any) -> T:
    torch = sys.modules.get("torch")
    if torch is not None and torch_threads > 0:
        torch.set_num_threads(torch_threads)
    return fn(item, *shared)


def ray_map(
    fn: Callable[..., T],
    items: Sequence[Any],
    *shared: Any,
    address: str | None = None,
    num_cpus: int | None = None,
    torch_threads: int = 1,
    on_result: Callable[[int, T], None] | None = None,
) -> list[T]:
    """``[fn(item, *shared) for item in items]`` computed as Ray tasks; results in ``items`` order.

    ``on_result(index, result)`` is called as each task finishes (completion order, for progress
    bars). A task's exception is raised here as ``RuntimeError`` naming the item.
    """
    ray = ensure_ray(address, num_cpus)
    remote = ray.remote(num_cpus=1)(_call)
    fn_ref = ray.put(fn)  # shipped once, not once per task
    shared_refs = [ray.put(s) for s in shared]
    refs = [remote.remote(fn_ref, item, torch_threads, *shared_refs) for item in items]
    index = {ref: i for i, ref in enumerate(refs)}
    results: list[Any] = [None] * len(refs)
    pending = list(refs)
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        for ref in done:
            i = index[ref]
            try:
                results[i] = ray.get(ref)
            except ray.exceptions.RayTaskError as exc:
                for r in pending:
                    ray.cancel(r)
                cause = exc.cause if getattr(exc, "cause", None) is not None else exc
                raise RuntimeError(f"ray task for item {items[i]!r} failed: {type(cause).__name__}: {cause}") from None
            if on_result is not None:
                on_result(i, results[i])
    return results
