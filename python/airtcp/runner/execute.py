"""The loop every sweep and study runs its simulations through: one
:class:`~airtcp.runner.executor.Executor` (threads of this process, a
local Dask cluster or an existing one), outcomes handed to the caller as
they arrive, and the one :class:`~airtcp.runner.progress.Progress`
updated after each."""

from __future__ import annotations

import time


def execute(
    fn,
    items,
    on_outcome,
    *,
    scheduler=None,
    jobs: int | None = None,
    retries: int = 0,
    batch: int | None = None,
    total: int | None = None,
    progress=None,
    on_start=None,
) -> float:
    """Call ``fn(arg)`` for every ``(key, arg)`` of `items` on the executor
    of `scheduler` (see :mod:`airtcp.runner.executor`) and
    ``on_outcome(outcome)`` for each :class:`Outcome` as it arrives; what
    ``on_outcome`` returns is the run's text on the progress line.
    ``on_start()`` runs once the executor is up (before any call), so a
    caller can write its first files only when the backend started.
    `retries`: Dask task retries. Returns the executor's start-up time
    (seconds). An exception from ``on_outcome`` stops the runs not yet done
    (the executor cancels them) and propagates."""
    from . import executor

    t0 = time.perf_counter()
    try:
        with executor.Executor(scheduler, jobs, retries=retries) as ex:
            start_s = time.perf_counter() - t0
            if on_start is not None:
                on_start()
            for o in ex.map(fn, items, batch=batch, total=total):
                text = on_outcome(o)
                if progress is not None:
                    progress.update(text or "", failed=not o.ok)
    finally:
        if progress is not None:
            progress.close()
    return start_s
