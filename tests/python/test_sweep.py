"""`airtcp sweep`, `airtcp.sweep` and the executor the study runner shares.

Parsing and bad input need no cluster. Then one small plan (bulk-lossy cut
to 600 s, cc x loss x 4 seeds) is run on threads (the reference), on a
LocalCluster of 1 and of 2 worker processes, interrupted and resumed, with a
worker killed mid-sweep, and against a scheduler and workers started as
separate processes; every runs table must equal the reference row for row
(the wall-clock column ``run_wall_s`` left out)."""

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

import airtcp
from airtcp import cli
from airtcp.runner import executor
from airtcp.runner import study as runner
from airtcp.runner import sweep as sweeps

from conftest import BULK_LOSSY, airtcp_cmd, run_cli

pytestmark = pytest.mark.skipif(not BULK_LOSSY.exists(), reason="needs scenarios/bulk-lossy.toml")

GRID = {"flows.0.tcp.cc": ["reno", "cubic"], "links.1.loss_ab.p": [0.01, 0.05]}
GRID_ARGS = ["--grid", "flows.0.tcp.cc=reno,cubic", "--grid", "links.1.loss_ab.p=0.01,0.05"]
SETS = {"sim.duration": "600s", "sim.series_interval": "0s"}
SET_ARGS = ["--set", "sim.duration=600s", "--set", "sim.series_interval=0s"]
SEEDS = 4
N_RUNS = 2 * 2 * SEEDS


def comparable(df: pd.DataFrame) -> pd.DataFrame:
    """The runs table without wall-clock columns, rows sorted by key."""
    df = df.drop(columns=[c for c in sweeps.WALL_COLUMNS if c in df.columns])
    return df.sort_values("key").reset_index(drop=True)


def assert_same_runs(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(comparable(a), comparable(b), check_dtype=False)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "sweep"
    df = airtcp.sweep(BULK_LOSSY, GRID, out=out, seeds=SEEDS, overrides=SETS, scheduler="threads", jobs=2)
    return df


# --- parsing and bad input -----------------------------------------------------------


def test_grid_values_split_and_type_like_set():
    assert sweeps.split_values("reno, cubic") == ["reno", "cubic"]
    assert sweeps.split_values('[1, 2],[3],"a,b"') == ["[1, 2]", "[3]", '"a,b"']
    assert sweeps.column_values(["0", "0.05"]) == [0.0, 0.05]
    assert sweeps.column_values(["1", "2"]) == [1, 2]
    assert sweeps.column_values(["true", "false"]) == [True, False]
    assert sweeps.column_values(["reno", "cubic"]) == ["reno", "cubic"]
    assert sweeps.column_values(["1", "x"]) == ["1", "x"]  # mixed: the texts
    assert sweeps.parse_grid({"a.b": [0.1, True, "x"]}) == [("a.b", ["0.1", "true", "x"])]
    assert sweeps.parse_grid(["p=1,1,2"]) == [("p", ["1", "2"])]
    assert sweeps.parse_seeds(3) == [1, 2, 3] and sweeps.parse_seeds("5,2,5") == [5, 2]
    assert sweeps.duration_ns("1.5min") == 90 * 10**9 and sweeps.duration_ns(60) == 60 * 10**9
    assert sweeps.duration_ns("-1s") is None and sweeps.duration_ns("abc") is None


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--grid", "flows.0.tcp.nope=1,2"], "--grid flows.0.tcp.nope=1: flows[0].tcp.nope: unknown key"),
        (["--grid", "flows.0.tcp.cc=reno,3"], "--grid flows.0.tcp.cc=3: flows[0].tcp.cc: expected a string"),
        (["--grid", "links.1.loss_ab.p=0.1,2"], "links[1].loss_ab.p: probability 2 is outside [0, 1]"),
        (["--grid", "flows.0.tcp.cc="], "airtcp: --grid flows.0.tcp.cc=: no values"),
        (["--grid", "flows.0.tcp.cc"], "airtcp: --grid flows.0.tcp.cc: expected path=v1,v2,..."),
        (["--grid", "sim.duration=5s,abc"], "--grid sim.duration=abc: sim.duration: unknown duration unit in \"abc\""),
        (["--grid", "flows.0.tcp.cc=reno", "--grid", "flows.0.tcp.cc=cubic"], "given twice"),
        (["--grid", "flows.0.tcp.cc=reno", "--set", "flows.0.tcp.cc=cubic"], "also given with --set"),
        (["--seeds", "0"], "airtcp: --seeds must be at least 1"),
        (["--seed-list", "1,x"], "--seed-list: 'x' is not an integer"),
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["--scheduler", "nowhere"], "--scheduler nowhere: expected"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, capsys, extra, message):
    out = tmp_path / "sw"
    assert cli.main(["sweep", str(BULK_LOSSY), "--out", str(out), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert not out.exists()


def test_foreign_output_directory_is_refused(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    assert cli.main(["sweep", str(BULK_LOSSY), "--out", str(tmp_path), "--grid", "flows.0.tcp.cc=reno"]) == 2
    assert "not a sweep's output" in capsys.readouterr().err


def test_keys_follow_the_resolved_scenario_not_its_spelling():
    a = sweeps.build_plan(BULK_LOSSY, {"sim.duration": ["60s"]}, seeds=2)
    b = sweeps.build_plan(BULK_LOSSY, {"sim.duration": ["60s"]}, seeds=2)
    c = sweeps.build_plan(BULK_LOSSY, {"sim.duration": ["61s"]}, seeds=2)
    d = sweeps.build_plan(BULK_LOSSY, {"sim.duration": ["60s"]}, seeds=2, version="9.9.9")
    ka = [r.key for r in a.runs]
    assert ka == [r.key for r in b.runs] and len(set(ka)) == 2
    assert not set(ka) & {r.key for r in c.runs} and not set(ka) & {r.key for r in d.runs}
    # without seeds, a point runs its scenario's own seed
    assert [r.seed for r in sweeps.build_plan(BULK_LOSSY, {"flows.0.tcp.cc": ["reno"]}).runs] == [1]


# --- threads: the reference, failures, resuming --------------------------------------


def test_reference_rows_are_the_runs_of_airtcp_run(reference, tmp_path):
    df = reference
    assert len(df) == N_RUNS and df["key"].is_unique and df["error"].isna().all()
    assert list(df.columns[:6]) == ["key", "point", "scenario", "flows.0.tcp.cc", "links.1.loss_ab.p", "seed"]
    assert df.columns[-1] == "run_wall_s"
    assert df["links.1.loss_ab.p"].dtype == float and set(df["flows.0.tcp.cc"]) == {"reno", "cubic"}
    assert list(df["seed"][:SEEDS]) == [1, 2, 3, 4]  # plan order: grid order, then seed
    row = df[(df["flows.0.tcp.cc"] == "cubic") & (df["links.1.loss_ab.p"] == 0.05) & (df["seed"] == 3)].iloc[0]
    r = airtcp.run(BULK_LOSSY, seed=3, overrides={**SETS, "flows.0.tcp.cc": "cubic", "links.1.loss_ab.p": 0.05})
    f = r.flows[0]
    assert row["flow0_goodput_bps"] == f["goodput_bps"] and row["flow0_retransmissions"] == f["retransmissions"]
    assert row["airtcp_version"] == airtcp.__version__


def test_outputs_on_disk_and_aggregate(reference, tmp_path):
    out = tmp_path / "sw"
    df = airtcp.sweep(BULK_LOSSY, GRID, out=out, seeds=SEEDS, overrides=SETS, scheduler="threads", jobs=2)
    assert sorted(os.listdir(out)) == [
        "aggregate.csv",
        "aggregate.parquet",
        "runs",
        "runs.csv",
        "runs.parquet",
        "sweep.json",
    ]
    assert len(os.listdir(out / "runs")) == N_RUNS
    assert_same_runs(pd.read_parquet(out / "runs.parquet"), df)
    csv = pd.read_csv(out / "runs.csv")
    assert csv["error"].isna().all()
    assert_same_runs(csv.drop(columns=["error"]), df.drop(columns=["error"]))
    agg = pd.read_parquet(out / "aggregate.parquet")
    assert len(agg) == 4 and (agg["n"] == SEEDS).all() and (agg["errors"] == 0).all()
    first = agg.iloc[0]
    vals = df[df["point"] == first["point"]]["flow0_goodput_bps"]
    assert first["flow0_goodput_bps_mean"] == pytest.approx(vals.mean())
    assert first["flow0_goodput_bps_ci95_lo"] < first["flow0_goodput_bps_mean"] < first["flow0_goodput_bps_ci95_hi"]
    assert json.loads((out / "sweep.json").read_text())["runs"] == N_RUNS


def test_a_failed_run_records_its_error_and_the_sweep_goes_on(tmp_path, monkeypatch):
    real = sweeps._simulate
    calls = []

    def flaky(text, origin, fmt, seed, pairs, out=None):
        if seed is not None:
            calls.append(seed)
        if seed == 2:
            raise airtcp.SimError("disk on fire")
        return real(text, origin, fmt, seed, pairs, out)

    monkeypatch.setattr(sweeps, "_simulate", flaky)
    out = tmp_path / "sw"
    grid = {"flows.0.tcp.cc": ["reno", "cubic"]}
    df = airtcp.sweep(BULK_LOSSY, grid, out=out, seeds=3, overrides={"sim.duration": "5s"}, scheduler="threads")
    assert len(df) == 6
    bad = df[df["error"].notna()]
    assert list(bad["seed"]) == [2, 2] and (bad["error"] == "SimError: disk on fire").all()
    assert bad["flow0_goodput_bps"].isna().all() and df[df["error"].isna()]["flow0_goodput_bps"].notna().all()
    # rerun: everything is done (a simulation error is an outcome), nothing runs
    calls.clear()
    res = sweeps.run_sweep(
        BULK_LOSSY, grid, out=out, seeds=3, overrides={"sim.duration": "5s"}, scheduler="threads"
    )
    assert calls == [] and (res.skipped, res.ran, res.failed) == (6, 0, 2)
    # the CLI exits 1 when runs failed (after writing everything)
    args = ["sweep", str(BULK_LOSSY), "--out", str(out), "--grid", "flows.0.tcp.cc=reno,cubic", "--seeds", "3"]
    assert cli.main(args + ["--set", "sim.duration=5s", "--scheduler", "threads", "-q"]) == 1


def test_resume_reruns_only_missing_and_lost_rows(reference, tmp_path, monkeypatch):
    out = tmp_path / "sw"
    kw = {"out": out, "seeds": SEEDS, "overrides": SETS, "scheduler": "threads", "jobs": 2}
    airtcp.sweep(BULK_LOSSY, GRID, **kw)
    files = sorted((out / "runs").iterdir())
    files[0].unlink()  # never finished
    files[1].write_text('{"format": 1, "ro')  # torn (cannot happen with os.replace, but harmless)
    rec = json.loads(files[2].read_text())  # a worker loss is retried
    rec.update(retry=True, row={**rec["row"], "error": "worker lost: KilledWorker"})
    files[2].write_text(json.dumps(rec))
    (out / "runs" / ".tmp-abc").write_text("partial")  # a temp file left by a kill
    real = sweeps._simulate
    seen = []

    def counting(text, origin, fmt, seed, pairs, o=None):
        seen.append(seed)
        return real(text, origin, fmt, seed, pairs, o)

    monkeypatch.setattr(sweeps, "_simulate", counting)
    res = sweeps.run_sweep(BULK_LOSSY, GRID, **kw)
    assert (res.skipped, res.ran) == (N_RUNS - 3, 3)
    assert len([s for s in seen if s is not None]) == 3
    assert_same_runs(res.runs, reference)


def test_keep_series_writes_each_runs_outputs(tmp_path):
    out = tmp_path / "sw"
    df = airtcp.sweep(
        BULK_LOSSY,
        ["flows.0.tcp.cc=reno"],
        out=out,
        seeds=2,
        overrides={"sim.duration": "3s"},
        scheduler="threads",
        keep_series=True,
    )
    for key in df["key"]:
        d = out / "series" / key
        assert (d / "summary.json").exists() and (d / "flow0.csv").exists()


# --- Dask: local cluster, interruption, killed worker, separate processes ------------


@pytest.mark.parametrize("jobs", [1, 2])
def test_local_cluster_gives_the_reference_table(reference, tmp_path, jobs):
    df = airtcp.sweep(BULK_LOSSY, GRID, out=tmp_path / "sw", seeds=SEEDS, overrides=SETS, jobs=jobs)
    assert_same_runs(df, reference)


def _rows(out: Path) -> int:
    d = out / "runs"
    return len([f for f in os.listdir(d) if f.endswith(".json")]) if d.is_dir() else 0


def test_interrupted_sweep_resumes_to_the_same_table(reference, tmp_path):
    out = tmp_path / "sw"
    args = ["sweep", BULK_LOSSY, "--out", out, *GRID_ARGS, "--seeds", SEEDS, *SET_ARGS, "--jobs", "1"]
    cmd = airtcp_cmd() + [str(a) for a in args] + ["--batch", "1", "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while _rows(out) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    done = _rows(out)
    assert proc.returncode == 130, err
    assert "rerun to resume" in err
    assert 2 <= done < N_RUNS
    assert not (out / "runs.parquet").exists()
    res = run_cli(*args, "--scheduler", "threads")
    assert f"({done} already done, {N_RUNS - done} run, 0 failed)" in res.stdout
    assert_same_runs(pd.read_parquet(out / "runs.parquet"), reference)


def test_a_killed_worker_is_retried_and_every_run_is_there_once(tmp_path):
    import logging

    from distributed import Client, LocalCluster

    out = tmp_path / "sw"
    sets = {"sim.duration": "3600s", "sim.series_interval": "0s"}  # ~0.3 s per run
    grid = {"flows.0.tcp.cc": ["reno", "cubic"]}
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
        ) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        got = {}

        def go():
            try:
                got["df"] = airtcp.sweep(BULK_LOSSY, grid, out=out, seeds=4, overrides=sets, scheduler=cluster, batch=1)
            except BaseException as e:  # noqa: BLE001 - reported below
                got["error"] = e

        t = threading.Thread(target=go)
        t.start()
        victim = None
        deadline = time.monotonic() + 60
        while victim is None and t.is_alive() and time.monotonic() < deadline:
            busy = [w for w, ks in client.processing().items() if ks]
            if busy and _rows(out) >= 1:
                victim = busy[0]
            else:
                time.sleep(0.01)
        assert victim is not None, "the sweep finished before a worker could be killed"
        pid = client.run(os.getpid, workers=[victim])[victim]
        os.kill(pid, signal.SIGKILL)  # the worker process dies mid-run; its nanny starts a new one
        t.join(120)
        assert not t.is_alive()
        assert "error" not in got, got.get("error")
        assert victim not in client.scheduler_info()["workers"]
    df = got["df"]
    assert len(df) == 8 and df["key"].is_unique and df["error"].isna().all()
    assert _rows(out) == 8
    assert sorted(df["seed"]) == [1, 1, 2, 2, 3, 3, 4, 4]


@pytest.fixture
def dask_processes(tmp_path):
    """A scheduler and two single-thread workers as separate processes;
    yields the scheduler file and address."""
    bindir = Path(sys.executable).parent
    dask = [str(bindir / "dask")] if (bindir / "dask").exists() else [sys.executable, "-m", "dask"]
    sfile = tmp_path / "scheduler.json"
    log = open(tmp_path / "dask.log", "w")  # noqa: SIM115 - open while the processes run
    procs = [
        subprocess.Popen(
            dask
            + ["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(sfile)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    ]
    try:
        deadline = time.monotonic() + 30
        while not sfile.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sfile.exists(), (tmp_path / "dask.log").read_text()
        procs.append(
            subprocess.Popen(
                dask
                + ["worker", "--scheduler-file", str(sfile), "--nworkers", "2", "--nthreads", "1", "--no-dashboard"],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
        from distributed import Client

        with Client(scheduler_file=str(sfile), timeout="30s", set_as_default=False) as c:
            c.wait_for_workers(2, timeout=30)
        address = json.loads(sfile.read_text())["address"]
        yield sfile, address
    finally:
        if sfile.exists():  # scheduler.shutdown() closes the workers too, faster than SIGTERM
            try:
                from distributed import Client

                with Client(scheduler_file=str(sfile), timeout="5s", set_as_default=False) as c:
                    c.shutdown()
            except Exception:  # noqa: BLE001, S110 - the signals below take over
                pass
        for p in reversed(procs):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.terminate()
        for p in reversed(procs):
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
        log.close()


def test_sweep_and_study_on_a_scheduler_in_separate_processes(reference, tmp_path, dask_processes):
    sfile, address = dask_processes
    assert address.startswith("tcp://127.0.0.1:")
    out = tmp_path / "sw"
    args = ["sweep", BULK_LOSSY, "--out", out, *GRID_ARGS, "--seeds", SEEDS, *SET_ARGS]
    res = run_cli(*args, "--scheduler", address)
    assert f"{N_RUNS} runs (0 already done, {N_RUNS} run, 0 failed)" in res.stdout
    assert_same_runs(pd.read_parquet(out / "runs.parquet"), reference)
    # the same through the scheduler file; everything is already done
    res = run_cli(*args, "--scheduler", sfile)
    assert f"({N_RUNS} already done, 0 run" in res.stdout
    # a study on the cluster gives the study's own threads result
    study = ["reproduce", "snoop", "--quick", "--seeds", "1", "--scenarios", "s1", "--arms", "tcp", "snoop", "-q"]
    run_cli(*study, "--out", tmp_path / "st-threads", "--no-plots")
    run_cli(*study, "--out", tmp_path / "st-dask", "--scheduler", address)
    a = pd.read_csv(tmp_path / "st-threads" / "runs.csv").drop(columns=["run_wall_s"])
    b = pd.read_csv(tmp_path / "st-dask" / "runs.csv").drop(columns=["run_wall_s"])
    pd.testing.assert_frame_equal(a, b)
    assert (tmp_path / "st-dask" / "plots").is_dir() and any((tmp_path / "st-dask" / "plots").iterdir())


def test_study_runner_uses_the_executor_and_the_clis_scheduler(monkeypatch):
    seen = []

    class Fake:
        def __init__(self, sc, seed):
            self.sc, self.seed = sc, seed

    monkeypatch.setattr(airtcp, "run", lambda sc, seed=None, **kw: Fake(sc, seed))
    real = executor.Executor

    def spy(scheduler=None, jobs=None, **kw):
        seen.append((scheduler, jobs))
        return real(scheduler, jobs, **kw)

    monkeypatch.setattr(executor, "Executor", spy)
    tasks = [runner.Task({"seed": s}, {"k": s}, s) for s in (1, 2, 3)]
    rows, _ = runner.run_tasks(tasks, lambda t, r: {"v": r.sc["k"]}, jobs=2)
    assert [r["v"] for r in rows] == [1, 2, 3] and seen[-1] == ("threads", 2)
    with runner.executor_options(scheduler="threads"):
        assert runner._SCHEDULER.get() == "threads"
    assert runner._SCHEDULER.get() is None
