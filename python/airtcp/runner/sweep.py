"""``airtcp sweep`` and ``airtcp.sweep``: the cartesian product of grids of
scenario values, each point run for each seed, on a Dask cluster (local or
remote) or a thread pool, resumable and safe to interrupt.

Output directory::

    sweep.json          what was asked (scenario, grid, overrides, seeds, version)
    runs/<key>.json     one row per finished run, written atomically as it arrives
    runs.parquet        every run of this sweep, in plan order (grid order, then seed)
    runs.csv            the same
    aggregate.parquet   per grid point: n, errors, mean and 95 % interval of the metrics
    aggregate.csv       the same
    series/<key>/       with keep_series: the run's full outputs (as `airtcp run --out`)

A run's key is a hash of the resolved scenario (every default filled in, as
in summary.json), the run's duration, the overrides, the seed and the
airtcp version. Rerunning a sweep skips the keys whose row is already in
``runs/``. A failed run keeps its error in its row; a rerun runs it again
unless the failure is the simulation's own (``SimError``, which would
repeat): a lost worker, a worker with another airtcp version or a trace file
missing on a worker are the environment's. Rows never depend on the number
of workers or the order runs finish: the only wall-clock column is
``run_wall_s`` (:data:`WALL_COLUMNS`).

Only the standard library is imported here at module level; pandas, pyarrow
and Dask are loaded when a sweep runs.
"""

from __future__ import annotations

import math
import os
import time

from .outdir import SWEEP_MARKERS, OutDirError, write_atomic
from .outdir import check_out as _check_out
from .values import parse_value, set_text, split_values

#: Columns that depend on the machine and load, not on the run.
WALL_COLUMNS = ("run_wall_s",)

#: Per-flow metrics summarised in the aggregate table (besides every agent counter).
FLOW_METRICS = (
    "goodput_bps",
    "bytes_delivered",
    "retransmissions",
    "timeouts",
    "fast_retransmits",
    "response_time_s",
    "srtt_min_s",
    "srtt_mean_s",
)

ROW_FORMAT = 1


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


class SweepError(ValueError):
    """Bad sweep input (exit status 2, one line)."""


# --- grid parsing ------------------------------------------------------------------


def parse_grid(grid) -> list[tuple[str, list[str]]]:
    """``["path=v1,v2", ...]`` or ``{"path": [v1, v2]}`` -> ``[(path, [text, ...])]``
    in the given order. Raises :class:`SweepError` for an empty grid, a
    missing ``=``, or a path given twice; repeated values are dropped."""
    if grid is None:
        return []
    items = []
    if isinstance(grid, dict):
        for path, values in grid.items():
            if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
                values = [values]
            items.append((str(path).strip(), [set_text(v) for v in values], f"{path}={values!r}"))
    else:
        if isinstance(grid, str):
            grid = [grid]
        for g in grid:
            path, sep, rest = str(g).partition("=")
            if not sep or not path.strip():
                raise SweepError(f"--grid {g}: expected path=v1,v2,...")
            vals = split_values(rest) if rest.strip() else []
            if any(v == "" for v in vals):
                raise SweepError(f"--grid {g}: empty value")
            items.append((path.strip(), vals, g))
    seen, out = set(), []
    for path, vals, shown in items:
        if not vals:
            raise SweepError(f"--grid {shown}: no values")
        if path in seen:
            raise SweepError(f"--grid {path}: given twice")
        seen.add(path)
        uniq = []
        for v in vals:
            if v not in uniq:
                uniq.append(v)
        out.append((path, uniq))
    return out


def column_values(texts: list[str]) -> list:
    """The values a grid's column holds: numbers when every value is a
    number (floats if any is), booleans when all are, else the texts."""
    vals = [parse_value(t) for t in texts]
    if all(isinstance(v, bool) for v in vals):
        return vals
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        if any(isinstance(v, float) for v in vals):
            return [float(v) for v in vals]
        return vals
    return list(texts) if not all(isinstance(v, str) for v in vals) else vals


def parse_seeds(seeds) -> list[int] | None:
    """None (the scenario's seed), N (seeds 1..N) or an iterable of seeds."""
    if seeds is None:
        return None
    if isinstance(seeds, bool):
        raise SweepError("--seeds: expected a number")
    if isinstance(seeds, int):
        if seeds < 1:
            raise SweepError("--seeds must be at least 1")
        return list(range(1, seeds + 1))
    if isinstance(seeds, str):
        seeds = [s for s in seeds.split(",")]
    out = []
    for s in seeds:
        try:
            v = int(str(s).strip())
        except ValueError:
            raise SweepError(f"--seed-list: {s!r} is not an integer") from None
        if not 0 <= v < 2**64:
            raise SweepError(f"--seed-list: seed {v} is outside 0..2^64-1")
        if v not in out:
            out.append(v)
    if not out:
        raise SweepError("--seed-list: no seeds")
    return out


_UNITS_NS = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9, "min": 60 * 10**9, "h": 3600 * 10**9}


def duration_ns(v) -> int | None:
    """A scenario duration (``"60s"``, ``"1.5min"``, a bare number of
    seconds) in nanoseconds; None if it is not one."""
    import re

    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return round(v * 1e9) if v > 0 else None
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(ns|us|ms|s|min|h)?\s*", str(v))
    if not m:
        return None
    ns = round(float(m.group(1)) * _UNITS_NS[m.group(2) or "s"])
    return ns if ns > 0 else None


# --- the plan -----------------------------------------------------------------------


class Source:
    """A scenario as the simulator reads it: text, origin, format."""

    def __init__(self, scenario):
        import json

        if isinstance(scenario, dict):
            self.text, self.origin, self.fmt = json.dumps(scenario), "<dict>", "json"
            self.name = "<dict>"
            self.doc = scenario
        elif isinstance(scenario, (str, os.PathLike)):
            path = os.path.abspath(os.fspath(scenario))
            if not os.path.isfile(path):
                raise FileNotFoundError(f"{os.fspath(scenario)}: no such scenario file")
            with open(path, encoding="utf-8") as fh:
                self.text = fh.read()
            self.origin = os.fspath(scenario)
            self.fmt = "json" if path.endswith(".json") else "toml"
            self.name = os.path.basename(path)
            self.path = path
            if self.fmt == "json":
                self.doc = json.loads(self.text)
            else:
                import tomllib

                try:
                    self.doc = tomllib.loads(self.text)
                except tomllib.TOMLDecodeError:
                    self.doc = {}  # the simulator reports it with its line
        else:
            raise TypeError(f"scenario must be a path or a dict, not {type(scenario).__name__}")

    def worker_origin(self) -> str:
        # Trace files are found relative to the origin's directory: give the
        # workers the absolute path (a shared file system is assumed for traces).
        return getattr(self, "path", self.origin)


def _simulate(text, origin, fmt, seed, pairs, out=None):
    from .. import _native
    from .._api import Result

    return Result(_native.run(text, origin, fmt, seed, list(pairs), out, False, False), out)


def _validate(text, origin, fmt, pairs) -> dict:
    """The scenario with every default filled in (as in summary.json), once
    the simulator parsed it and built its model without running it."""
    import json

    from .. import _native

    return json.loads(_native.validate(text, origin, fmt, list(pairs)))


class Run:
    """One run of the plan."""

    __slots__ = ("key", "labels", "pairs", "point", "seed")

    def __init__(self, key, point, labels, seed, pairs):
        self.key, self.point, self.labels, self.seed, self.pairs = key, point, labels, seed, pairs


class Plan:
    def __init__(self, source: Source, grid, overrides, seeds, version):
        self.source, self.grid, self.overrides, self.seeds, self.version = source, grid, overrides, seeds, version
        self.runs: list[Run] = []
        self.points: list[tuple[str, dict]] = []


def _grid_error(e, grid_paths: set[str]):
    """A ScenarioError from a grid value reads ``--grid path=value``."""
    ov = getattr(e, "override", None)
    if ov and ov.partition("=")[0].strip() in grid_paths:
        msg = str(e).replace(f"--set {ov}", f"--grid {ov}", 1)
        new = type(e)(msg)
        for a in ("file", "line", "key", "message", "override"):
            setattr(new, a, getattr(e, a, None))
        return new
    return e


def build_plan(scenario, grid=None, *, overrides=None, seeds=None, version: str | None = None) -> Plan:
    """Validate every grid point (natively: parsed and built, not run) and
    key every run.
    Raises :class:`SweepError` or ``airtcp.ScenarioError`` before anything
    runs."""
    import hashlib
    import itertools
    import json

    from .. import __version__
    from .._api import _overrides_list

    version = version or __version__
    source = Source(scenario)
    grid = parse_grid(grid)
    base = _overrides_list(overrides)
    seed_list = parse_seeds(seeds)
    set_paths = {p for p, _ in base}
    for path, _ in grid:
        if path in set_paths:
            raise SweepError(f"--grid {path}: also given with --set")
    grid_paths = {p for p, _ in grid}
    columns = {path: column_values(vals) for path, vals in grid}
    plan = Plan(source, grid, base, seed_list, version)
    doc_duration = (source.doc.get("sim") or {}).get("duration") if isinstance(source.doc, dict) else None
    ranges = [range(len(vals)) for _, vals in grid]
    for idx in itertools.product(*ranges):
        pairs = list(base) + [(grid[g][0], grid[g][1][i]) for g, i in enumerate(idx)]
        labels = {grid[g][0]: columns[grid[g][0]][i] for g, i in enumerate(idx)}
        try:
            resolved = _validate(source.text, source.origin, source.fmt, pairs)
        except Exception as e:
            from .._errors import ScenarioError

            if isinstance(e, ScenarioError):
                raise _grid_error(e, grid_paths) from None
            raise
        dur = doc_duration
        for p, v in pairs:
            if p == "sim.duration":
                dur = parse_value(v)
        ns = duration_ns(dur)
        if ns is None:
            where = next(
                (f"--{'grid' if p in grid_paths else 'set'} {p}={v}" for p, v in pairs if p == "sim.duration"), None
            )
            from .._errors import ScenarioError

            e = ScenarioError(
                f"{source.origin}: " + (f"{where}: " if where else "") + f"sim.duration: not a duration: {dur!r}"
            )
            e.file, e.key, e.message = source.origin, "sim.duration", f"not a duration: {dur!r}"
            raise e
        sim = dict(resolved.get("sim", {}))
        point_seed = sim.pop("seed", None)
        sim.pop("duration", None)
        resolved = {**resolved, "sim": sim}
        ident = {"resolved": resolved, "duration_ns": ns, "overrides": pairs, "airtcp": version}
        point = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]
        plan.points.append((point, labels))
        for seed in seed_list if seed_list is not None else [point_seed]:
            key = hashlib.sha256(json.dumps({**ident, "seed": seed}, sort_keys=True).encode()).hexdigest()[:20]
            plan.runs.append(Run(key, point, labels, seed, pairs))
    seen = set()
    plan.runs = [r for r in plan.runs if not (r.key in seen or seen.add(r.key))]
    return plan


# --- one run (on a worker) ------------------------------------------------------------


def flatten_summary(s: dict) -> dict:
    """The scalar metrics of a run's summary as one flat row:
    ``flow<i>_<metric>`` (and ``flow<i>_sender_<x>``, ``flow<i>_receiver_<x>``),
    ``link<i>_<ab|ba>_<x>``, ``agent<i>_<counter>``, ``run_<x>`` and
    ``run_events_<kind>``. ``run_wall_s`` is left out (see WALL_COLUMNS)."""
    row: dict = {}

    def put(prefix, d):
        for k, v in d.items():
            if isinstance(v, dict):
                put(f"{prefix}{k}_", v)
            elif v is None or isinstance(v, (bool, int, float)):
                row[f"{prefix}{k}"] = v

    for i, f in enumerate(s.get("flows", [])):
        put(f"flow{i}_", f)
    for i, ln in enumerate(s.get("links", [])):
        for d in ("ab", "ba"):
            if isinstance(ln.get(d), dict):
                put(f"link{i}_{d}_", ln[d])
    for i, a in enumerate(s.get("agents", [])):
        put(f"agent{i}_", a.get("counters", {}))
        if "dropped_packets" in a:
            row[f"agent{i}_dropped_packets"] = a["dropped_packets"]
    run = dict(s.get("run", {}))
    run.pop("run_wall_s", None)
    ev = run.pop("events_by_kind", None) or {}
    put("run_", run)
    for k, v in ev.items():
        row[f"run_events_{k}"] = v
    return row


def run_spec(spec: dict) -> dict:
    """Run one sweep run (called on a worker). Raises what the run raises."""
    from .. import __version__

    if spec["version"] != __version__:
        raise RuntimeError(f"worker runs airtcp {__version__}, the sweep was planned with {spec['version']}")
    out = spec.get("series_dir")
    if out:
        import shutil

        out = os.path.join(out, spec["key"])
        if os.path.exists(out):  # left by a worker killed while writing it
            shutil.rmtree(out)
    res = _simulate(spec["text"], spec["origin"], spec["fmt"], spec["seed"], spec["pairs"], out)
    s = res.summary
    return {
        "metrics": flatten_summary(s),
        "run_wall_s": res.run_wall_s,
        "airtcp_version": (s.get("versions") or {}).get("airtcp", __version__),
    }


# --- rows on disk ------------------------------------------------------------------------


def _row(plan: Plan, run: Run, outcome) -> dict:
    row = {"key": run.key, "point": run.point, "scenario": plan.source.name}
    row.update(run.labels)
    row["seed"] = run.seed
    if outcome.ok:
        v = outcome.value
        row["error"] = None
        row["airtcp_version"] = v["airtcp_version"]
        row.update(v["metrics"])
        row["run_wall_s"] = v["run_wall_s"]
    else:
        e = outcome.value
        text = f"{type(e).__name__}: {e}".splitlines()[0] if str(e) else type(e).__name__
        row["error"] = ("worker lost: " + text) if outcome.lost else text
        row["airtcp_version"] = plan.version
    return row


def _retry(outcome) -> bool:
    """Whether a rerun of the sweep runs this again: every failure except
    the simulation's own (``SimError``), which a rerun would repeat. A
    worker loss, a worker with another airtcp version, a scenario or trace
    the worker cannot read are the environment's, not the run's."""
    from .._errors import SimError

    return not outcome.ok and not isinstance(outcome.value, SimError)


def _load_row(path: str) -> dict | None:
    import json

    try:
        with open(path, encoding="utf-8") as fh:
            rec = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(rec, dict) or rec.get("format") != ROW_FORMAT or "row" not in rec:
        return None
    return rec


# --- output directory ------------------------------------------------------------------------

def check_out(out: str) -> None:
    """`out` is missing, empty or an earlier sweep's output (resumed);
    anything else raises :class:`SweepError`."""
    try:
        _check_out(out, SWEEP_MARKERS, "a sweep's output", "use")
    except OutDirError as e:
        raise SweepError(str(e)) from None


def _write_frame(df, path_base: str) -> None:
    import io

    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    write_atomic(path_base + ".parquet", buf.getvalue(), fsync=True)
    write_atomic(path_base + ".csv", df.to_csv(index=False).encode(), fsync=True)


def aggregate(runs, grid_columns: list[str], metrics: list[str] | None = None):
    """Per grid point (in plan order): the grid values, ``n`` runs,
    ``errors``, and for each metric ``<m>_mean``, ``<m>_ci95_lo``,
    ``<m>_ci95_hi`` (Student's t over the runs that have a value)."""
    import pandas as pd

    from ..studies.reporting import summarize

    if metrics is None:
        metrics = [
            c
            for c in runs.columns
            if (c.startswith("flow") and c.partition("_")[2] in FLOW_METRICS) or c.startswith("agent")
        ]
    out = []
    if len(runs):
        for point, g in runs.groupby("point", sort=False):
            row = {"point": point}
            for c in grid_columns:
                row[c] = g[c].iloc[0]
            row["n"] = len(g)
            row["errors"] = int(g["error"].notna().sum())
            for m in metrics:
                if m not in g:
                    continue
                vals = [float(x) for x in g[m] if not _missing(x)]
                st = summarize(vals)
                row[f"{m}_mean"] = st.mean
                row[f"{m}_ci95_lo"] = st.lo
                row[f"{m}_ci95_hi"] = st.hi
            out.append(row)
    return pd.DataFrame(out)


# --- the sweep -----------------------------------------------------------------------------------


class SweepResult:
    """What :func:`run_sweep` did: the runs DataFrame (`runs`), the aggregate
    (`aggregate`), how many runs there are (`total`), were already done
    (`skipped`), ran now (`ran`), failed (`failed`), the wall time of the
    runs phase (`wall_s`: the executor's start-up `start_s`, the runs
    `runs_s` — first task submitted to last row written — and the
    executor's shut-down)."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def run_sweep(
    scenario,
    grid=None,
    *,
    out,
    seeds=None,
    overrides=None,
    jobs: int | None = None,
    scheduler=None,
    keep_series: bool = False,
    progress: bool = False,
    retries: int = 2,
    batch: int | None = None,
    metrics: list[str] | None = None,
) -> SweepResult:
    """:func:`sweep` with the details (counts, aggregate) for the CLI."""
    import json

    from .execute import execute
    from .executor import check_scheduler
    from .progress import Progress

    if jobs is not None and jobs < 1:
        raise SweepError("--jobs must be at least 1")
    check_scheduler(scheduler)
    out = os.fspath(out)
    check_out(out)
    plan = build_plan(scenario, grid, overrides=overrides, seeds=seeds)
    rows_dir = os.path.join(out, "runs")
    present = set(os.listdir(rows_dir)) if os.path.isdir(rows_dir) else set()
    todo, skipped = [], 0
    for r in plan.runs:
        if f"{r.key}.json" in present:
            rec = _load_row(os.path.join(rows_dir, f"{r.key}.json"))
            if rec is not None and not rec.get("retry"):
                skipped += 1
                continue
        todo.append(r)

    t0 = time.perf_counter()
    failed = 0
    start_s = runs_s = 0.0
    if todo:
        src = plan.source
        series_dir = os.path.abspath(os.path.join(out, "series")) if keep_series else None

        def specs():
            for r in todo:
                yield (
                    r.key,
                    {
                        "key": r.key,
                        "text": src.text,
                        "origin": src.worker_origin(),
                        "fmt": src.fmt,
                        "seed": r.seed,
                        "pairs": r.pairs,
                        "series_dir": series_dir,
                        "version": plan.version,
                    },
                )

        by_key = {r.key: r for r in todo}
        last_row = t0

        def started() -> None:
            os.makedirs(rows_dir, exist_ok=True)
            if series_dir:
                os.makedirs(series_dir, exist_ok=True)
            manifest = {
                "scenario": src.origin,
                "grid": [[p, v] for p, v in plan.grid],
                "overrides": [f"{p}={v}" for p, v in plan.overrides],
                "seeds": plan.seeds,
                "runs": len(plan.runs),
                "airtcp_version": plan.version,
            }
            write_atomic(os.path.join(out, "sweep.json"), (json.dumps(manifest, indent=1) + "\n").encode())

        def arrived(o) -> str:
            nonlocal failed, last_row
            run = by_key[o.key]
            row = _row(plan, run, o)
            rec = {"format": ROW_FORMAT, "retry": _retry(o), "row": row}
            write_atomic(os.path.join(rows_dir, f"{o.key}.json"), json.dumps(rec).encode())
            failed += row["error"] is not None
            last_row = time.perf_counter()
            return " ".join([*(f"{k}={v}" for k, v in run.labels.items()), f"seed={run.seed}"])

        start_s = execute(
            run_spec,
            specs(),
            arrived,
            scheduler=scheduler,
            jobs=jobs,
            retries=retries,
            batch=batch,
            total=len(todo),
            progress=Progress(len(todo), quiet=not progress),
            on_start=started,
        )
        runs_s = max(0.0, last_row - t0 - start_s)
    wall = time.perf_counter() - t0
    runs, agg = _finish(plan, out, metrics)
    return SweepResult(
        runs=runs,
        aggregate=agg,
        total=len(plan.runs),
        skipped=skipped,
        ran=len(todo),
        failed=int(runs["error"].notna().sum()) if len(runs) else 0,
        failed_now=failed,
        wall_s=wall,
        start_s=start_s,
        runs_s=runs_s,
        out=out,
    )


def _tidy(df):
    """Metric columns that hold only numbers and missing values (a flow's
    response time when no transfer finished, a counter of failed runs)
    become float columns with NaN, as they read back from Parquet or CSV."""
    import pandas as pd

    for c in df.columns:
        if c in ("error", "key", "point", "scenario", "airtcp_version") or df[c].dtype != object:
            continue
        vals = [v for v in df[c] if not _missing(v)]
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
            df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
    return df


def _finish(plan: Plan, out: str, metrics):
    """runs.parquet/.csv and aggregate.parquet/.csv from the rows on disk,
    in plan order, each file replaced atomically."""
    import pandas as pd

    rows_dir = os.path.join(out, "runs")
    rows, missing = [], 0
    for r in plan.runs:
        rec = _load_row(os.path.join(rows_dir, f"{r.key}.json"))
        if rec is None:
            missing += 1
            continue
        rows.append(rec["row"])
    if missing:  # cannot happen unless runs/ is edited while we run
        raise RuntimeError(f"{missing} run(s) have no row in {rows_dir}")
    df = _tidy(pd.DataFrame(rows))
    if len(df):  # wall-clock column last
        cols = [c for c in df.columns if c not in WALL_COLUMNS] + [c for c in WALL_COLUMNS if c in df.columns]
        df = df[cols]
    os.makedirs(out, exist_ok=True)
    grid_cols = [p for p, _ in plan.grid]
    agg = aggregate(df, grid_cols, metrics)
    _write_frame(df, os.path.join(out, "runs"))
    _write_frame(agg, os.path.join(out, "aggregate"))
    return df, agg


def sweep(
    scenario,
    grid=None,
    *,
    out,
    seeds=None,
    overrides=None,
    jobs: int | None = None,
    scheduler=None,
    keep_series: bool = False,
    progress: bool = False,
    retries: int = 2,
    batch: int | None = None,
):
    """Run `scenario` at every point of the cartesian product of `grid`,
    each point for each seed, and return the runs as a pandas DataFrame
    (one row per run, plan order: grid order, then seed).

    ``grid``: ``{"flows.0.tcp.cc": ["reno", "cubic"], "links.1.loss_ab.p":
    [0.01, 0.05]}`` or a list of ``"path=v1,v2,..."`` strings (values read
    like ``--set``). ``seeds``: N (seeds 1..N), a list of seeds, or None
    (each point's scenario seed). ``overrides``: applied to every point,
    like ``airtcp.run``'s. ``out``: the sweep directory (see
    :mod:`airtcp.runner.sweep`); runs already there are not run again.
    ``scheduler``: None or ``"local"`` (a local Dask cluster of ``jobs``
    worker processes, default one per core), ``"threads"`` (this process),
    a scheduler address ``tcp://host:8786`` or file ``*.json``, a
    ``distributed.Client`` or a cluster object (dask-jobqueue).
    ``keep_series``: also write each run's full outputs to
    ``out/series/<key>/``. ``progress``: a bar on stderr when it is a
    terminal.

    A run that fails has its error in the ``error`` column; the others go
    on. Raises ``airtcp.ScenarioError`` / ``ValueError`` for bad input before
    anything runs.
    """
    return run_sweep(
        scenario,
        grid,
        out=out,
        seeds=seeds,
        overrides=overrides,
        jobs=jobs,
        scheduler=scheduler,
        keep_series=keep_series,
        progress=progress,
        retries=retries,
        batch=batch,
    ).runs
