"""Where the runs of a sweep or a study execute.

:class:`Executor` hands independent calls ``fn(arg)`` to one of three
backends and streams their outcomes back as they finish:

``"local"``
    a Dask ``LocalCluster`` of worker *processes* on this machine (``jobs``
    of them, one thread each; default one per core);
``"threads"``
    a thread pool in this process (no Dask; the simulation releases the GIL,
    and a monkeypatched ``airtcp.run`` is seen by the runs);
an address
    an existing Dask scheduler: ``tcp://host:8786`` (or ``host:8786``,
    ``tls://...``), a scheduler file ``*.json`` as written by
    ``dask scheduler --scheduler-file``, a ``distributed.Client`` or any
    cluster object with a ``scheduler_address`` (e.g. a dask-jobqueue
    ``SLURMCluster``).

Only ``threads`` works without Dask installed; ``distributed`` is imported
when a Dask backend starts.

Calls are sent in batches (several runs per Dask task when runs are short,
sized from the measured run time so a task lasts ~0.2 s) with a bounded
number of tasks in flight, so memory stays flat however many runs there
are. An exception raised by ``fn`` is returned as that call's outcome, the
other calls go on. A worker that dies mid-task has its tasks rescheduled by
the Dask scheduler on the other workers; a task that kills workers again
and again (``distributed.scheduler.allowed-failures``, default 3) comes back
as a ``lost`` outcome.
"""

from __future__ import annotations

import os
import time

LOCAL = "local"
THREADS = "threads"

#: How long a batched task should last (seconds) once the run time is known.
TARGET_TASK_S = 0.2
#: Most runs per task.
MAX_BATCH = 64


class ExecutorError(RuntimeError):
    """The executor could not start (scheduler unreachable, no Dask, ...)."""


class SchedulerSpecError(ValueError):
    """A malformed ``--scheduler`` value (bad input: exit status 2)."""


def default_jobs() -> int:
    """Cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def describe_scheduler(scheduler) -> str:
    if scheduler is None or scheduler == LOCAL:
        return "local Dask cluster"
    if scheduler == THREADS:
        return "threads"
    if isinstance(scheduler, str):
        return scheduler
    addr = getattr(scheduler, "scheduler_address", None) or getattr(
        getattr(scheduler, "scheduler", None), "address", None
    )
    return str(addr or type(scheduler).__name__)


def check_scheduler(scheduler) -> None:
    """Reject an obviously malformed scheduler string before anything runs."""
    if scheduler is None or not isinstance(scheduler, str):
        return
    s = scheduler.strip()
    if s in (LOCAL, THREADS):
        return
    if s.endswith(".json"):
        return
    if "://" in s:
        proto, _, rest = s.partition("://")
        if proto in ("tcp", "tls", "ucx", "ws", "wss", "inproc") and rest:
            return
        raise SchedulerSpecError(f"--scheduler {scheduler}: unknown protocol {proto!r} (tcp://host:port)")
    host, sep, port = s.rpartition(":")
    if sep and host and port.isdigit():
        return
    raise SchedulerSpecError(
        f"--scheduler {scheduler}: expected 'local', 'threads', tcp://HOST:PORT or a scheduler file (.json)"
    )


def _call_batch(fn, args: list) -> list:
    """Run on a worker: ``fn`` on each argument, every exception caught.
    Returns ``[(ok, value, seconds), ...]``."""
    out = []
    for a in args:
        t0 = time.perf_counter()
        try:
            v = fn(a)
            ok = True
        except Exception as e:  # noqa: BLE001 - the outcome of this call
            v, ok = _portable_exception(e), False
        out.append((ok, v, time.perf_counter() - t0))
    return out


def _portable_exception(e: BaseException) -> BaseException:
    """`e` if it survives pickling, else a RuntimeError with its text."""
    import pickle

    try:
        pickle.loads(pickle.dumps(e))
        return e
    except Exception:  # noqa: BLE001
        return RuntimeError(f"{type(e).__name__}: {e}")


class Outcome:
    """One call's result: ``key``, ``ok``, ``value`` (the return value, or
    the exception), ``lost`` (True when the Dask task failed as a whole,
    e.g. its workers kept dying), ``seconds`` (time of the call on the
    worker)."""

    __slots__ = ("key", "lost", "ok", "seconds", "value")

    def __init__(self, key, ok, value, lost=False, seconds=0.0):
        self.key, self.ok, self.value, self.lost, self.seconds = key, ok, value, lost, seconds

    def __repr__(self) -> str:
        return f"Outcome({self.key!r}, ok={self.ok}, lost={self.lost})"


class Executor:
    """Context manager: ``with Executor(scheduler, jobs) as ex: for o in
    ex.map(fn, items): ...``. See the module documentation for the
    backends."""

    def __init__(self, scheduler=None, jobs: int | None = None, *, retries: int = 2, quiet: bool = True):
        check_scheduler(scheduler)
        self.scheduler = LOCAL if scheduler is None else scheduler
        self.jobs = jobs
        self.retries = retries
        self.quiet = quiet
        self.kind = THREADS if self.scheduler == THREADS else "dask"
        self._client = None
        self._own_client = False
        self._cluster = None
        self._pool = None
        self._inflight: set = set()

    # --- life cycle -----------------------------------------------------------

    def __enter__(self) -> Executor:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self) -> None:
        if self.kind == THREADS:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=max(1, self.jobs or 1))
            return
        try:
            import distributed
        except ImportError as e:  # pragma: no cover - dask is a dependency
            raise ExecutorError(f"the Dask backends need `distributed` (pip install 'dask[distributed]'): {e}") from e
        s = self.scheduler
        try:
            if s == LOCAL:
                import logging

                n = self.jobs or default_jobs()
                self._cluster = distributed.LocalCluster(
                    n_workers=n,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                )
                self._client = distributed.Client(self._cluster, set_as_default=False)
                self._own_client = True
            elif isinstance(s, distributed.Client):
                self._client = s
            elif isinstance(s, str):
                s = s.strip()
                if s.endswith(".json"):
                    self._client = distributed.Client(scheduler_file=s, timeout="20s", set_as_default=False)
                else:
                    self._client = distributed.Client(s, timeout="20s", set_as_default=False)
                self._own_client = True
            elif getattr(s, "scheduler_address", None):
                self._client = distributed.Client(s, set_as_default=False)
                self._own_client = True
            else:
                raise ExecutorError(f"scheduler: cannot use a {type(s).__name__}")
        except ExecutorError:
            self.close()
            raise
        except (OSError, TimeoutError, ValueError) as e:
            self.close()
            raise ExecutorError(f"cannot reach the Dask scheduler {describe_scheduler(s)}: {e}") from e

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._client is not None:
            if self._inflight:
                try:
                    self._client.cancel(list(self._inflight))
                except Exception:  # noqa: BLE001, S110 - best effort while closing
                    pass
            if self._own_client:
                self._client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None
        self._inflight = set()

    @property
    def client(self):
        """The ``distributed.Client`` (None for threads)."""
        return self._client

    def nthreads(self) -> int:
        """Worker threads available now (at least 1)."""
        if self.kind == THREADS:
            return max(1, self.jobs or 1)
        try:
            return max(1, sum(self._client.nthreads().values()))
        except Exception:  # noqa: BLE001
            return 1

    # --- running ---------------------------------------------------------------

    def map(self, fn, items, *, batch: int | None = None, total: int | None = None):
        """Call ``fn(arg)`` for every ``(key, arg)`` of `items`; yield an
        :class:`Outcome` per call as calls finish (any order). `batch`: runs
        per task (None: adapt to the run time; threads always 1). `total`:
        the number of items, if known (to keep the last tasks small)."""
        if self.kind == THREADS:
            yield from self._map_threads(fn, items)
        else:
            yield from self._map_dask(fn, items, batch, total)

    def _map_threads(self, fn, items):
        from concurrent.futures import FIRST_COMPLETED, wait

        it = iter(items)
        window = 2 * self.nthreads() + 2
        pending: dict = {}
        exhausted = False
        while True:
            while not exhausted and len(pending) < window:
                try:
                    key, arg = next(it)
                except StopIteration:
                    exhausted = True
                    break
                pending[self._pool.submit(_call_batch, fn, [arg])] = key
            if not pending:
                return
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                key = pending.pop(f)
                ((ok, v, sec),) = f.result()
                yield Outcome(key, ok, v, False, sec)

    def _map_dask(self, fn, items, batch, total):
        import uuid

        from distributed import as_completed

        client = self._client
        it = iter(items)
        exhausted = False
        submitted = 0
        per_run = None  # measured seconds per call (EMA)
        keys_of: dict = {}
        ac = as_completed(loop=client.loop)
        threads = self.nthreads()
        last_refresh = time.monotonic()

        def next_size() -> int:
            if batch is not None:
                return max(1, int(batch))
            if per_run is None:
                return 1
            n = int(TARGET_TASK_S / max(per_run, 1e-6))
            if total is not None:  # keep the tail balanced over the workers
                n = min(n, max(1, (total - submitted) // (2 * threads)))
            return max(1, min(MAX_BATCH, n))

        def fill() -> None:
            nonlocal exhausted, submitted
            window = 2 * threads + 2
            while not exhausted and len(self._inflight) < window:
                keys, args = [], []
                size = next_size()
                while len(keys) < size:
                    try:
                        k, a = next(it)
                    except StopIteration:
                        exhausted = True
                        break
                    keys.append(k)
                    args.append(a)
                if not keys:
                    break
                fut = client.submit(
                    _call_batch,
                    fn,
                    args,
                    key=f"airtcp-{keys[0]}-{len(keys)}-{uuid.uuid4().hex[:8]}",
                    pure=False,
                    retries=self.retries,
                )
                submitted += len(keys)
                keys_of[fut.key] = keys
                self._inflight.add(fut)
                ac.add(fut)

        fill()
        for fut in ac:
            keys = keys_of.pop(fut.key)
            self._inflight.discard(fut)
            try:
                got = fut.result()
            except Exception as e:  # noqa: BLE001 - the task failed as a whole
                from distributed import KilledWorker

                lost = isinstance(e, KilledWorker)
                for k in keys:
                    yield Outcome(k, False, e, lost, 0.0)
            else:
                for k, (ok, v, sec) in zip(keys, got):
                    per_run = sec if per_run is None else 0.8 * per_run + 0.2 * sec
                    yield Outcome(k, ok, v, False, sec)
            fut.release()
            if time.monotonic() - last_refresh > 2.0:  # clusters that scale
                threads = self.nthreads()
                last_refresh = time.monotonic()
            fill()
