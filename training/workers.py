"""Rollout workers in processes or Ray actors: :class:`WorkerGroup`.

A group runs ``workers`` :class:`~machiavelli_env.training.rollout.RolloutWorker` objects: in this
process when ``workers == 1``, else one spawned process each (pipes carry weights in and numpy
batches out); with ``engine="ray"`` one Ray actor each, on a local Ray instance or the cluster at
``address`` (:class:`~machiavelli_env.training.ray_rollouts.RayWorkerGroup`). Worker ``w`` gets the
same arguments on every engine, so a run gives the same weights on either.

Layers: this module imports :mod:`.rollout` and :mod:`.ray_rollouts`; neither imports it.
"""

from __future__ import annotations

import multiprocessing as mp
import traceback
from typing import Any

import torch

from .rollout import RolloutWorker, WorkerError

__all__ = ["ENGINES", "WorkerError", "WorkerGroup"]


# ---------------------------------------------------------------------------------------------- processes
def _worker_main(conn: Any, kwargs: dict[str, Any]) -> None:
    torch.set_num_threads(1)
    try:
        worker = RolloutWorker(**kwargs)
        conn.send(("ok", None))
    except Exception:
        conn.send(("error", traceback.format_exc()))
        return
    while True:
        cmd, args = conn.recv()
        if cmd == "close":
            break
        try:
            conn.send(("ok", getattr(worker, cmd)(**args)))
        except Exception:
            conn.send(("error", traceback.format_exc()))


ENGINES = ("local", "ray")


class WorkerGroup:
    """``workers`` rollout workers (in this process when ``workers == 1``); see the module docstring.

    ``engine="ray"`` returns a :class:`~machiavelli_env.training.ray_rollouts.RayWorkerGroup` (same
    interface) on the Ray cluster at ``address`` (default: a local instance).
    """

    def __new__(cls, workers: int, *, engine: str = "local", address: str | None = None, **kwargs: Any) -> Any:
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
        if engine == "ray":
            from .ray_rollouts import RayWorkerGroup  # imports Ray only when asked for

            return RayWorkerGroup(workers, address=address, **kwargs)
        if address is not None:
            raise ValueError("address applies only to engine='ray'")
        return super().__new__(cls)

    def __init__(self, workers: int, *, engine: str = "local", address: str | None = None, **kwargs: Any):
        self.n = workers
        self.local: RolloutWorker | None = None
        self.procs: list[Any] = []
        self.conns: list[Any] = []
        if workers == 1:
            self.local = RolloutWorker(worker=0, **kwargs)
            return
        ctx = mp.get_context("spawn")
        for w in range(workers):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_worker_main, args=(child, {**kwargs, "worker": w}), daemon=True)
            proc.start()
            self.procs.append(proc)
            self.conns.append(parent)
        self._gather()

    def _gather(self) -> list[Any]:
        out = []
        for w, conn in enumerate(self.conns):
            try:
                status, value = conn.recv()
            except (EOFError, OSError):  # the process is gone (killed, out of memory, ...)
                proc = self.procs[w]
                proc.join(timeout=5)
                self.close()
                raise WorkerError(
                    f"rollout worker {w} (process {proc.pid}) stopped with exit code {proc.exitcode} in the middle "
                    f"of an update; the run's last checkpoint is intact: continue it with --resume"
                ) from None
            if status != "ok":
                self.close()
                raise WorkerError(f"rollout worker failed:\n{value}")
            out.append(value)
        return out

    def call(self, cmd: str, args: list[dict[str, Any]]) -> list[Any]:
        """Run ``cmd`` on every worker (``args[w]`` for worker ``w``); the results in worker order."""
        if self.local is not None:
            return [getattr(self.local, cmd)(**args[0])]
        for w, (conn, a) in enumerate(zip(self.conns, args, strict=True)):
            try:
                conn.send((cmd, a))
            except OSError:  # a broken pipe: the process is gone; _gather names it
                if self.procs[w].is_alive():
                    raise
        return self._gather()

    def close(self) -> None:
        for conn in self.conns:
            try:
                conn.send(("close", {}))
            except (BrokenPipeError, OSError):
                pass
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
        self.conns, self.procs = [], []
