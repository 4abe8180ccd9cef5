"""The one runner of sweeps and studies (airtcp.runner): the staged output
directory, the output check, the task order and error handling (with a
stand-in for ``airtcp.run``), the progress line, the value converter, and
the native validation that replaced zero-length runs."""

import io

import pytest

import airtcp
from airtcp.runner import outdir
from airtcp.runner import study as runner
from airtcp.runner.progress import Progress
from airtcp.runner.values import parse_value, set_text


def test_staged_dir_replaces_an_earlier_output(tmp_path):
    out = tmp_path / "study"
    out.mkdir()
    (out / "report.md").write_text("old")
    (out / "stale.csv").write_text("old")
    with outdir.staged_dir(out) as d:
        assert d.parent == tmp_path and d != out
        (d / "report.md").write_text("new")
        assert (out / "report.md").read_text() == "old"  # untouched until the end
    assert sorted(p.name for p in out.iterdir()) == ["report.md"]
    assert (out / "report.md").read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["study"]  # no temporary left


def test_staged_dir_failure_leaves_nothing(tmp_path):
    out = tmp_path / "a" / "b" / "study"
    with pytest.raises(RuntimeError):
        with outdir.staged_dir(out) as d:
            (d / "table.csv").write_text("half")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []  # not even the parents it created


def test_check_out_refuses_a_foreign_directory(tmp_path):
    runner.check_out(tmp_path / "missing")
    runner.check_out(tmp_path)  # empty
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(runner.StudyError, match="not a study's output"):
        runner.check_out(tmp_path)
    f = tmp_path / "notes.txt"
    with pytest.raises(runner.StudyError, match="not a directory"):
        runner.check_out(f)


def test_write_csv_formats_floats_and_missing(tmp_path):
    p = tmp_path / "x.csv"
    runner.write_csv(p, [{"a": 1, "b": 0.123456789, "c": None}, {"a": 2, "b": 3.0, "c": "s"}])
    assert p.read_text().splitlines() == ["a,b,c", "1,0.123457,", "2,3,s"]


class _FakeResult:
    def __init__(self, sc, seed):
        self.sc, self.seed = sc, seed


def test_run_tasks_keeps_task_order_and_labels(monkeypatch):
    import threading
    import time

    threads = set()

    def fake_run(sc, seed=None, **kw):
        threads.add(threading.get_ident())
        time.sleep(0.002 * (5 - seed))  # later tasks finish first
        return _FakeResult(sc, seed)

    monkeypatch.setattr(airtcp, "run", fake_run)
    tasks = [runner.Task({"arm": "x", "seed": s}, {"k": s}, s, keep=s == 2) for s in range(1, 5)]
    rows, kept = runner.run_tasks(
        tasks,
        lambda t, r: [{"v": r.sc["k"] * 10}, {"v": r.seed}],
        jobs=3,
        keep=lambda t, r: ("kept", r.seed),
    )
    assert [(r["seed"], r["v"]) for r in rows] == [(1, 10), (1, 1), (2, 20), (2, 2), (3, 30), (3, 3), (4, 40), (4, 4)]
    assert list(rows[0]) == ["arm", "seed", "v"]
    assert kept == [("kept", 2)]
    assert len(threads) > 1


def test_run_tasks_reraises_the_first_failure(monkeypatch):
    def fake_run(sc, seed=None, **kw):
        if seed == 3:
            raise airtcp.SimError("broken")
        return _FakeResult(sc, seed)

    monkeypatch.setattr(airtcp, "run", fake_run)
    tasks = [runner.Task({"seed": s}, {}, s) for s in range(1, 6)]
    with pytest.raises(airtcp.SimError, match="broken"):
        runner.run_tasks(tasks, lambda t, r: {}, jobs=2)


def test_run_study_writes_nothing_when_a_run_fails(monkeypatch, tmp_path):
    def fake_run(sc, seed=None, **kw):
        if seed == 2 and not kw.get("overrides"):
            raise airtcp.SimError("broken")
        return _FakeResult(sc, seed)

    monkeypatch.setattr(airtcp, "run", fake_run)
    tasks = [runner.Task({"seed": s}, {"s": s}, s) for s in (1, 2)]
    with pytest.raises(airtcp.SimError):
        runner.run_study(tmp_path / "out", tasks, lambda t, r: {}, lambda d, sr: None, quiet=True, validate=False)
    assert list(tmp_path.iterdir()) == []


def test_progress_off_a_terminal_prints_every_tenth():
    buf = io.StringIO()
    p = Progress(40, stream=buf)
    for i in range(40):
        p.update(f"run {i}")
    lines = buf.getvalue().splitlines()
    assert len(lines) == 10 and lines[-1] == "[40/40] run 39"
    quiet = io.StringIO()
    q = Progress(3, quiet=True, stream=quiet)
    q.update("x")
    assert quiet.getvalue() == ""


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_on_a_terminal_shows_rate_eta_failures_and_the_run():
    s = _Tty()
    p = Progress(4, stream=s)
    p.update("a", failed=True)
    assert "1/4  25% " in s.getvalue() and " (1 failed) a" in s.getvalue()
    assert "1/4  25% 1.0 runs/s ETA 0:03 (1 failed)" in p.line(1.0)
    for t in "bcd":
        p.update(t)
    assert "4/4 100%" in s.getvalue() and s.getvalue().endswith("\n")


def test_progress_closes_an_interrupted_terminal_line():
    s = _Tty()
    p = Progress(4, stream=s)
    p.update("a")
    p.close()
    assert s.getvalue().endswith("\n")
    plain = io.StringIO()
    q = Progress(4, stream=plain)
    q.update("a")
    q.close()
    assert plain.getvalue() == "[1/4] a\n"


def test_check_out_names_the_kind_of_output_it_expects(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(outdir.OutDirError, match="not a sweep's output; refusing to use it"):
        outdir.check_out(tmp_path, outdir.SWEEP_MARKERS, "a sweep's output", "use")
    (tmp_path / "runs").mkdir()
    outdir.check_out(tmp_path, outdir.SWEEP_MARKERS, "a sweep's output", "use")


def test_set_text_is_the_one_converter_of_python_values():
    assert [set_text(v) for v in (True, False, 3, 0.05, "reno")] == ["true", "false", "3", "0.05", "reno"]
    assert set_text([1, 2]) == "[1, 2]" and set_text(("a", "b")) == '["a", "b"]'
    assert set_text({"model": "uniform", "p": 0.1}) == '{model = "uniform", p = 0.1}'
    for v in (True, 7, 0.25, [1, 2], ["x"], {"model": "uniform", "p": 0.1}):
        assert parse_value(set_text(v)) == v


def test_run_overrides_take_inline_tables_as_the_sweep_grid_does(small_scenario):
    # A dict in `overrides` is a TOML inline table, as in a sweep's grid.
    r = airtcp.validate(small_scenario, overrides={"links.0.loss_ab": {"model": "uniform", "p": 0.25}})
    assert r["links"][0]["loss_ab"]["p"] == 0.25


# --- native validation ------------------------------------------------------------


def test_validate_returns_the_resolved_scenario_of_a_run(small_scenario):
    resolved = airtcp.validate(small_scenario)
    ran = airtcp.run(small_scenario, overrides={"sim.duration": "50ms"}).summary["scenario"]
    assert resolved["sim"].pop("duration") == "3s" and ran["sim"].pop("duration") == "50ms"
    assert resolved == ran


def test_validate_accepts_a_flow_starting_after_a_zero_length_run(small_scenario):
    # The 1-ns runs that validated studies before rejected every flow that
    # starts later ("start ... is not before the end of the run").
    small_scenario["flows"][0]["start"] = "1s"
    assert airtcp.validate(small_scenario)["flows"][0]["start"] == "1s"
    small_scenario["flows"][0]["start"] = "3s"
    with pytest.raises(airtcp.ScenarioError, match="not before the end of the run"):
        airtcp.validate(small_scenario)


def test_validate_names_a_studys_scenario_by_study_arm_and_seed(small_scenario, tmp_path):
    small_scenario["links"][0]["delay"] = "-5ms"
    task = runner.Task(labels={"arm": "zwa", "hops": 2}, scenario=small_scenario, seed=3)
    with pytest.raises(airtcp.ScenarioError) as ei:
        runner.run_study(tmp_path / "out", [task], lambda t, r: {}, lambda d, sr: None, quiet=True, study="sdn-zwa")
    assert str(ei.value).startswith("<sdn-zwa arm=zwa hops=2 seed=3>: links[0].delay: ")
    assert not (tmp_path / "out").exists()


def test_a_failed_run_of_a_study_is_named_by_study_arm_and_seed(small_scenario, monkeypatch, tmp_path, capsys):
    # A simulator failure (here a stand-in for an internal error) names the
    # run as a bad scenario would, on one line ending in a newline.
    from airtcp import _native

    def broken(*a, **kw):
        raise airtcp.SimError("internal error (a bug in airtcp): boom")

    monkeypatch.setattr(_native, "run", broken)
    task = runner.Task(labels={"arm": "zwa", "hops": 2}, scenario=small_scenario, seed=3)
    status = runner.exit_status(
        lambda: runner.run_study(tmp_path / "out", [task], lambda t, r: {}, lambda d, sr: None, quiet=True, study="sdn-zwa")
    )
    assert status == 1
    assert capsys.readouterr().err == "airtcp: run failed: <sdn-zwa arm=zwa hops=2 seed=3>: internal error (a bug in airtcp): boom\n"
    assert not (tmp_path / "out").exists()


def test_validate_runs_nothing(small_scenario, monkeypatch):
    from airtcp import _native

    def no_run(*a, **kw):
        raise AssertionError("validate ran the simulation")

    monkeypatch.setattr(_native, "run", no_run)
    assert airtcp.validate(small_scenario)["nodes"][0]["name"] == "server"
