"""How a study runs on the runner.

A study turns its arguments into a list of :class:`Task` (a scenario dict,
a seed and the labels that identify the run), says how to measure a run
(``measure(task, result) -> dict | list[dict]``: metric rows) and how to
write its outputs, and :func:`run_study` does the rest:

1. every distinct scenario is validated natively (:func:`airtcp.validate`:
   parsed and built, not run) before anything is written, so a bad input
   exits with status 2 and leaves nothing behind;
2. the runs go through :func:`airtcp.runner.execute.execute`, the loop
   sweeps use too — by default ``--jobs`` threads of this process (the
   simulation releases the GIL); with ``--scheduler local`` a local Dask
   cluster of ``--jobs`` worker processes, with ``--scheduler
   tcp://host:8786`` (or a scheduler file) an existing Dask cluster — with
   the one progress line of :mod:`airtcp.runner.progress`;
3. everything is built in a temporary sibling of ``--out`` that is renamed
   into place at the end (:func:`airtcp.runner.outdir.staged_dir`): a
   failed or interrupted study leaves no half-written directory, and a
   previous study's directory stays whole until the new one replaces it.

Also here: the arguments every study takes (:func:`add_common_arguments`),
their checks, CSV writing, and the mapping of errors to exit statuses.
"""

from __future__ import annotations

import contextvars
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .outdir import STUDY_MARKERS, OutDirError, staged_dir
from .outdir import check_out as _check_out
from .progress import Progress


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
    from .executor import SchedulerSpecError, check_scheduler

    try:
        check_scheduler(getattr(args, "scheduler", None))
    except SchedulerSpecError as e:
        raise StudyError(str(e)) from None
    check_out(Path(args.out))


def number_list(text: str, convert, not_a: str, check) -> list:
    """A study's comma-separated option ("0,0.05,0.1") as a sorted list
    without repeats. ``convert`` reads one item (``float``, ``int``); an
    item it refuses raises :class:`StudyError` with ``not_a`` (formatted
    with ``part``, the stripped item); ``check(value, part)`` returns the
    message for a value out of range, or None."""
    out = []
    for part in text.split(","):
        part = part.strip()
        try:
            v = convert(part)
        except ValueError:
            raise StudyError(not_a.format(part=part)) from None
        bad = check(v, part)
        if bad:
            raise StudyError(bad)
        if v not in out:
            out.append(v)
    return sorted(out)


def seeds_of(args, *, quick: int, full: int) -> int:
    """The seeds per point: ``--seeds``, else the study's default for
    ``--quick`` or for a full run."""
    if args.seeds is not None:
        return args.seeds
    return quick if args.quick else full


def study_main(args, main) -> int:
    """Run a study's ``main(args)`` as ``airtcp reproduce`` does: the common
    arguments checked first (:func:`check_common`), its failures mapped to
    exit statuses (:func:`exit_status`)."""

    def body() -> int:
        check_common(args)
        return main(args)

    return exit_status(body)


def check_out(out: Path) -> None:
    """`out` may be created or replaced: it is missing, an empty directory or
    an earlier study's output (:data:`STUDY_MARKERS`). Anything else is
    refused rather than deleted (:class:`StudyError`)."""
    try:
        _check_out(out, STUDY_MARKERS, "a study's output", "replace")
    except OutDirError as e:
        raise StudyError(str(e)) from None


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
    """The study a callback belongs to: the name its package's ``STUDY``
    declares (``airtcp.studies.wi_tcp.measure`` gives ``wi-tcp``); empty
    when unknown. The package is found by its name, so the runner imports
    no study (the studies import the runner)."""
    import importlib

    parts = (getattr(fn, "__module__", "") or "").split(".")
    if parts[:2] != ["airtcp", "studies"] or len(parts) < 3:
        return ""
    try:
        package = importlib.import_module(".".join(parts[:3]))
    except ImportError:
        return ""
    return getattr(getattr(package, "STUDY", None), "name", "")


def validate_scenarios(scenarios, names=None) -> None:
    """Validate every distinct scenario dict natively (:func:`airtcp.validate`:
    parsed and its network, hosts and agents built, nothing run): a bad one
    raises ``airtcp.ScenarioError`` (or ``SimError`` for a model the
    simulator cannot build), named by `names` (the study, arm and seed),
    before any simulation of the study starts or anything is written."""
    import json

    from .. import validate

    seen = set()
    names = iter(names) if names is not None else None
    for sc in scenarios:
        name = next(names) if names is not None else None
        key = json.dumps(sc, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        validate(sc, name=name)


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


def _run_one(task: Task, measure, keep, study: str | None = None):
    """One task, where the executor runs it (a thread or a Dask worker)."""
    from .. import run

    name = task_name(study if study is not None else study_of(measure), task)
    result = run(task.scenario, seed=task.seed, name=name)
    got = measure(task, result)
    rows = [{**task.labels, **r} for r in (got if isinstance(got, list) else [got])]
    kept = keep(task, result) if (keep is not None and task.keep) else None
    return rows, kept


def run_tasks(
    tasks: list[Task],
    measure,
    *,
    jobs: int = 1,
    progress=None,
    describe=None,
    keep=None,
    scheduler=None,
    study: str | None = None,
):
    """Run every task through :func:`airtcp.runner.execute.execute`:
    `jobs` threads of this process when `scheduler` is None (or
    ``"threads"``), a local Dask cluster of `jobs` processes for
    ``"local"``, an existing Dask cluster for an address. Returns (rows,
    kept): `rows` the metric rows (labels first) in task order, `kept` what
    ``keep(task, result)`` returned for each task with ``keep=True``, in
    task order. On Dask, `measure` and `keep` run on the workers (and must
    pickle; a `keep` that writes files needs a file system the workers
    share). The first failure cancels the runs not yet done and is
    re-raised. `study` names the runs in errors (default: the package of
    `measure`, see :func:`study_of`). `progress`: a :class:`airtcp.runner.progress.Progress`,
    its text ``describe(first row)``."""
    from functools import partial

    from .execute import execute
    from .executor import THREADS

    outcomes: list = [None] * len(tasks)

    def arrived(o):
        if not o.ok:
            raise o.value
        outcomes[o.key] = o.value
        first = o.value[0]
        return describe(first[0]) if describe and first else ""

    fn = partial(_run_one, measure=measure, keep=keep, study=study)
    execute(
        fn,
        enumerate(tasks),
        arrived,
        scheduler=THREADS if scheduler is None else scheduler,
        jobs=max(1, jobs),
        retries=0,
        total=len(tasks),
        progress=progress,
    )
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
    study: str | None = None,
) -> StudyRun:
    """Validate, run every task, and let ``write(dir, study_run)`` write the
    outputs into a staging directory that replaces `out` at the end.
    ``keep(task, result, dir)`` (called in the worker for tasks with
    ``keep=True``) may write into the staging directory too, e.g. plots.
    `scheduler`: see :func:`run_tasks`; None takes the one of the enclosing
    :func:`executor_options` (the CLI's ``--scheduler``). `study`: the
    study's name in error messages (default: from `measure`'s package)."""
    if scheduler is None:
        scheduler = _SCHEDULER.get()
    out = Path(out)
    check_out(out)
    if study is None:
        study = study_of(measure)
    if validate:
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
            study=study,
        )
        sr = StudyRun(rows, kept, time.perf_counter() - t0, jobs)
        write(tmp, sr)
    return sr


def _keep_in(keep, d: Path, task: Task, result):
    return keep(task, result, d)


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
    from .executor import ExecutorError

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
