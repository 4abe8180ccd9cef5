"""The runner every study shares.

A study turns its arguments into a list of :class:`Task` (a scenario dict,
a seed and the labels that identify the run), says how to measure a run
(``measure(task, result) -> dict | list[dict]``: metric rows) and how to
write its outputs, and :func:`run_study` does the rest:

1. every distinct scenario is validated (a zero-length run) before anything
   is written, so a bad input exits with status 2 and leaves nothing behind;
2. the runs go to the executor of :mod:`airtcp.sweep_exec` — by default
   ``--jobs`` threads of this process (the simulation releases the GIL);
   with ``--scheduler local`` a local Dask cluster of ``--jobs`` worker
   processes, with ``--scheduler tcp://host:8786`` (or a scheduler file) an
   existing Dask cluster — with a progress line on a terminal;
3. everything is built in a temporary sibling of ``--out`` that is renamed
   into place at the end: a failed or interrupted study leaves no
   half-written directory, and a previous study's directory stays whole
   until the new one replaces it.

Also here: the arguments every study takes (:func:`add_common_arguments`),
their checks, CSV writing, and the mapping of errors to exit statuses.
"""

from __future__ import annotations

import contextvars
import os
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path


class StudyError(Exception):
    """Bad study arguments or inputs (exit status 2)."""


def repo_root() -> Path:
    """The source tree (scenarios/, tests/data/, and ../shared beside it):
    this file's checkout when run from it, else the working directory."""
    here = Path(__file__).resolve().parents[3]
    for cand in (here, Path.cwd()):
        if (cand / "tests" / "data" / "traces").is_dir() or (cand / "scenarios").is_dir():
            return cand
    return here


# --- arguments --------------------------------------------------------------


def add_common_arguments(p, *, quick: str, seeds: str, plots: str = "skip the PNG plots") -> None:
    """The arguments every study takes: --out, --quick, --seeds, --jobs,
    --no-plots, --quiet. `quick` and `seeds` are the study's help texts."""
    p.add_argument(
        "--out", "-o", required=True, metavar="DIR", help="output directory (replaced if it holds an earlier study)"
    )
    p.add_argument("--quick", action="store_true", help=quick)
    p.add_argument("--seeds", type=int, metavar="N", help=seeds)
    p.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=1,
        metavar="N",
        help="runs in parallel: threads, or worker processes with --scheduler local (default 1)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on Dask: 'local' (a local cluster of --jobs processes), tcp://host:8786 or a scheduler "
        "file (.json) of an existing cluster; default: threads of this process",
    )
    p.add_argument("--no-plots", action="store_true", help=plots)
    p.add_argument("--quiet", "-q", action="store_true", help="no progress line and no final summary")


def check_common(args) -> None:
    """Checks of the common arguments; raises :class:`StudyError`."""
    if args.seeds is not None and args.seeds < 1:
        raise StudyError("--seeds must be at least 1")
    if args.jobs < 1:
        raise StudyError("--jobs must be at least 1")
    from ..sweep_exec import SchedulerSpecError, check_scheduler

    try:
        check_scheduler(getattr(args, "scheduler", None))
    except SchedulerSpecError as e:
        raise StudyError(str(e)) from None
    check_out(Path(args.out))


#: Files whose presence marks a directory as an earlier study's output.
STUDY_MARKERS = ("report.md", "table.csv", "runs.csv")


def check_out(out: Path) -> None:
    """`out` may be created or replaced: it is missing, an empty directory or
    an earlier study's output. Anything else is refused rather than deleted."""
    if not out.exists():
        return
    if not out.is_dir():
        raise StudyError(f"--out {out}: exists and is not a directory")
    entries = os.listdir(out)
    if entries and not any(m in entries for m in STUDY_MARKERS):
        raise StudyError(f"--out {out}: a non-empty directory that is not a study's output; refusing to replace it")


# --- tasks and running --------------------------------------------------------


@dataclass
class Task:
    """One run: `labels` identify it (they become the first columns of its
    rows in runs.csv, in order), `scenario` is the dict ``airtcp.run``
    takes, `seed` the master seed. `keep` asks for the study's `keep`
    callback to see the full result (plots of selected runs)."""

    labels: dict
    scenario: dict
    seed: int
    keep: bool = False


@dataclass
class StudyRun:
    """What :func:`run_study` hands to the study's writer and returns."""

    #: Metric rows of every run, labels first, in task order.
    runs: list[dict]
    #: What `keep` returned for each kept task, in task order.
    kept: list = field(default_factory=list)
    #: Wall time of the runs (seconds).
    wall_s: float = 0.0
    jobs: int = 1


def task_name(study: str, task: "Task") -> str:
    """How errors name a study's run: the study, then its labels and seed,
    e.g. ``snoop arm=tcp loss=0.3 seed=4``."""
    parts = [study] if study else []
    parts += [f"{k}={v}" for k, v in task.labels.items()]
    if "seed" not in task.labels:
        parts.append(f"seed={task.seed}")
    return " ".join(parts)


def study_of(fn) -> str:
    """The study a callback belongs to, from its module
    (``airtcp.studies.wi_tcp`` gives ``wi-tcp``); empty when unknown."""
    mod = getattr(fn, "__module__", "") or ""
    if not mod.startswith("airtcp.studies."):
        return ""
    return mod.rsplit(".", 1)[-1].replace("_", "-")


def validate_scenarios(scenarios, names=None) -> None:
    """Validate every distinct scenario dict with a run of zero length
    (``sim.duration = 1ns``): a bad one raises ``airtcp.ScenarioError``
    before any simulation of the study starts or anything is written."""
    import json

    from .. import run

    seen = set()
    names = iter(names) if names is not None else None
    for sc in scenarios:
        name = next(names) if names is not None else None
        key = json.dumps(sc, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        run(sc, seed=1, overrides={"sim.duration": "1ns"}, name=name)


class Progress:
    """``[i/n] what`` on stderr: one line rewritten in place on a terminal,
    a line per tenth of the runs otherwise, nothing when quiet."""

    def __init__(self, n: int, quiet: bool = False, stream=None):
        self.n = n
        self.stream = stream or sys.stderr
        self.quiet = quiet or n == 0
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.t0 = time.perf_counter()
        self.done = 0
        self._width = 0

    def update(self, text: str) -> None:
        self.done += 1
        if self.quiet:
            return
        i, n = self.done, self.n
        if self.tty:
            el = time.perf_counter() - self.t0
            eta = el / i * (n - i)
            line = f"[{i}/{n}] {text}  ({el:.0f} s, ~{eta:.0f} s left)"
            pad = max(0, self._width - len(line))
            self._width = len(line)
            self.stream.write("\r" + line + " " * pad + ("\n" if i == n else ""))
            self.stream.flush()
        elif i == n or i % max(1, n // 10) == 0:
            print(f"[{i}/{n}] {text}", file=self.stream, flush=True)


#: The scheduler of the studies run by ``airtcp reproduce`` (set by the CLI
#: around a study, read by :func:`run_study` when none is passed).
_SCHEDULER: contextvars.ContextVar = contextvars.ContextVar("airtcp_study_scheduler", default=None)


@contextmanager
def executor_options(scheduler=None):
    """Within the block, studies run on `scheduler` (see :func:`run_tasks`)
    unless their call says otherwise."""
    token = _SCHEDULER.set(scheduler)
    try:
        yield
    finally:
        _SCHEDULER.reset(token)


def _run_one(task: Task, measure, keep):
    """One task, where the executor runs it (a thread or a Dask worker)."""
    from .. import run

    result = run(task.scenario, seed=task.seed, name=task_name(study_of(measure), task))
    got = measure(task, result)
    rows = [{**task.labels, **r} for r in (got if isinstance(got, list) else [got])]
    kept = keep(task, result) if (keep is not None and task.keep) else None
    return rows, kept


def run_tasks(
    tasks: list[Task],
    measure,
    *,
    jobs: int = 1,
    progress: Progress | None = None,
    describe=None,
    keep=None,
    scheduler=None,
):
    """Run every task on the executor (:class:`airtcp.sweep_exec.Executor`):
    `jobs` threads of this process when `scheduler` is None (or
    ``"threads"``), a local Dask cluster of `jobs` processes for
    ``"local"``, an existing Dask cluster for an address. Returns (rows,
    kept): `rows` the metric rows (labels first) in task order, `kept` what
    ``keep(task, result)`` returned for each task with ``keep=True``, in
    task order. On Dask, `measure` and `keep` run on the workers (and must
    pickle; a `keep` that writes files needs a file system the workers
    share). The first failure cancels the runs not yet done and is
    re-raised."""
    from functools import partial

    from ..sweep_exec import THREADS, Executor

    outcomes: list = [None] * len(tasks)
    fn = partial(_run_one, measure=measure, keep=keep)
    with Executor(THREADS if scheduler is None else scheduler, max(1, jobs), retries=0) as ex:
        for o in ex.map(fn, enumerate(tasks), total=len(tasks)):
            if not o.ok:
                raise o.value
            outcomes[o.key] = o.value
            if progress is not None:
                first = o.value[0]
                progress.update(describe(first[0]) if describe and first else "")
    rows = [r for rs, _ in outcomes for r in rs]
    kept = [k for t, (_, k) in zip(tasks, outcomes) if t.keep and keep is not None]
    return rows, kept


def run_study(
    out: Path,
    tasks: list[Task],
    measure,
    write,
    *,
    jobs: int = 1,
    quiet: bool = False,
    describe=None,
    keep=None,
    validate: bool = True,
    scheduler=None,
) -> StudyRun:
    """Validate, run every task, and let ``write(dir, study_run)`` write the
    outputs into a staging directory that replaces `out` at the end.
    ``keep(task, result, dir)`` (called in the worker for tasks with
    ``keep=True``) may write into the staging directory too, e.g. plots.
    `scheduler`: see :func:`run_tasks`; None takes the one of the enclosing
    :func:`executor_options` (the CLI's ``--scheduler``)."""
    if scheduler is None:
        scheduler = _SCHEDULER.get()
    out = Path(out)
    check_out(out)
    if validate:
        study = study_of(measure)
        validate_scenarios((t.scenario for t in tasks), names=(task_name(study, t) for t in tasks))
    from functools import partial

    with staged_dir(out) as tmp:
        t0 = time.perf_counter()
        rows, kept = run_tasks(
            tasks,
            measure,
            jobs=jobs,
            progress=Progress(len(tasks), quiet),
            describe=describe,
            keep=partial(_keep_in, keep, tmp) if keep else None,
            scheduler=scheduler,
        )
        sr = StudyRun(rows, kept, time.perf_counter() - t0, jobs)
        write(tmp, sr)
    return sr


def _keep_in(keep, d: Path, task: Task, result):
    return keep(task, result, d)


# --- output directory ---------------------------------------------------------


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def staged_dir(out: Path):
    """Yield a fresh temporary sibling of `out`; on success rename it to
    `out` (replacing an earlier directory there), on any failure remove it
    and any parent directory this call created."""
    import shutil
    import tempfile

    out = Path(out).absolute()
    created = []
    p = out.parent
    while not p.exists():
        created.append(p)
        p = p.parent
    for d in reversed(created):
        d.mkdir()
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
        os.chmod(tmp, 0o777 & ~_umask())
    except BaseException:
        _remove_created(created)
        raise
    try:
        yield tmp
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            os.rename(out, old / "d")
        os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        _remove_created(created)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _remove_created(created: list[Path]) -> None:
    for d in created:  # deepest first
        try:
            d.rmdir()
        except OSError:
            break


# --- CSV and exit statuses ------------------------------------------------------


def csv_value(v):
    """How a value is written to CSV: floats with 6 significant digits,
    None as an empty field."""
    if isinstance(v, float):
        return f"{v:.6g}"
    return "" if v is None else v


def write_csv(path: Path, rows: list[dict], columns: list[str] | None = None) -> None:
    """Rows as CSV with a header (`columns`, or the first row's keys)."""
    import csv

    if not rows:
        return
    cols = columns or list(rows[0])
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({k: csv_value(r.get(k)) for k in cols})


def exit_status(body) -> int:
    """Call `body()` and map the study's failures to exit statuses: bad
    arguments or an invalid scenario 2 (one line on stderr, nothing
    written), a failed run 1."""
    from .._errors import ScenarioError, SimError
    from ..sweep_exec import ExecutorError

    try:
        return body()
    except ExecutorError as e:
        print(f"airtcp: {e}", file=sys.stderr)
        return 1
    except StudyError as e:
        print(f"airtcp: {e}", file=sys.stderr)
        return 2
    except ScenarioError as e:
        print(str(e), file=sys.stderr)
        return 2
    except SimError as e:
        print(f"airtcp: run failed: {e}", file=sys.stderr)
        return 1
