"""airtcp.run and its Result, through the native module."""

import json
import subprocess
import sys

import pytest

import airtcp

SERIES_COLUMNS = ["t_s", "cwnd", "ssthresh", "srtt_s", "rto_s", "snd_una", "snd_nxt", "bytes_delivered", "ca_state"]
SEGMENT_COLUMNS = ["t_s", "seq", "len", "retransmission"]
FLOW_KEYS = {"goodput_bps", "bytes_delivered", "retransmissions", "timeouts", "fast_retransmits"}


def test_run_dict_gives_summary_and_dataframes(small_scenario):
    r = airtcp.run(small_scenario)
    s = r.summary
    assert s["seed"] == 7
    assert r.seed == 7
    assert len(r.flows) == 1 == r.n_flows
    flow = r.flows[0]
    assert FLOW_KEYS <= set(flow), sorted(flow)
    assert flow["bytes_delivered"] > 0
    # 10 Mb/s bottleneck: goodput is positive and below capacity.
    assert 0 < flow["goodput_bps"] < 10e6
    assert r.events_executed > 0
    assert r.run_wall_s >= 0

    ts = r.timeseries(0)
    assert list(ts.columns) == SERIES_COLUMNS
    assert len(ts) > 10
    assert ts["t_s"].is_monotonic_increasing
    assert ts["bytes_delivered"].is_monotonic_increasing
    assert ts["bytes_delivered"].iloc[-1] == flow["bytes_delivered"]
    assert (ts["cwnd"] > 0).all()

    seg = r.segments(0)
    assert list(seg.columns) == SEGMENT_COLUMNS
    assert len(seg) > 0
    assert seg["retransmission"].sum() == flow["retransmissions"]


def test_seed_changes_and_reproduces(small_scenario):
    a = airtcp.run(small_scenario, seed=1)
    b = airtcp.run(small_scenario, seed=1)
    c = airtcp.run(small_scenario, seed=2)
    assert a.summary["seed"] == 1
    assert a.flows == b.flows
    assert a.timeseries(0).equals(b.timeseries(0))
    assert a.segments(0).equals(c.segments(0)) is False


def test_path_and_dict_agree(small_scenario, small_toml):
    by_path = airtcp.run(small_toml)
    by_dict = airtcp.run(small_scenario)
    assert by_path.flows == by_dict.flows


def test_overrides_dict_and_list(small_scenario):
    r = airtcp.run(small_scenario, overrides={"sim.duration": "1s", "flows.0.tcp.cc": "reno"})
    r2 = airtcp.run(small_scenario, overrides=["sim.duration=1s", "flows.0.tcp.cc=reno"])
    assert r.flows == r2.flows
    assert r.timeseries(0)["t_s"].max() <= 1.0
    assert r.summary["scenario"]["flows"][0]["tcp"]["cc"] == "reno"
    assert r.summary["scenario"]["sim"]["duration"] == "1s"


def test_bad_scenario_raises_scenario_error(small_scenario):
    small_scenario["links"][0]["delay"] = "-5ms"
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.run(small_scenario)
    e = ei.value
    assert isinstance(e, ValueError)
    assert e.file == "<dict>"
    assert e.key == "links[0].delay"
    assert str(e).startswith("<dict>: links[0].delay: ")


def test_named_dict_scenario_is_named_in_errors(small_scenario):
    # A study's scenario built in Python: the study and arm, not "<dict>".
    small_scenario["links"][0]["delay"] = "-5ms"
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.run(small_scenario, name="snoop s1 arm=tcp")
    assert ei.value.file == "<snoop s1 arm=tcp>"
    assert str(ei.value) == '<snoop s1 arm=tcp>: links[0].delay: negative duration "-5ms"'
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.run(small_scenario, name="<wi-tcp\nwlan>", overrides={"sim.duration": "1s"})
    assert str(ei.value).startswith("<wi-tcp wlan>: links[0].delay: ")
    with pytest.raises(ValueError, match="name must not be empty"):
        airtcp.run(small_scenario, name=" ")


def test_bad_toml_names_file_line_and_key(small_toml):
    text = small_toml.read_text().replace('rate = "10Mbps"', 'rate = "0Mbps"')
    small_toml.write_text(text)
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.run(small_toml)
    line = text.splitlines().index('rate = "0Mbps"') + 1
    assert str(ei.value).startswith(f"{small_toml}:{line}: links[0].rate: "), str(ei.value)
    assert ei.value.line == line


def test_bad_override_is_scenario_error(small_scenario):
    with pytest.raises(airtcp.ScenarioError, match="expected path=value"):
        airtcp.run(small_scenario, overrides=["sim.duration"])
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.run(small_scenario, overrides={"links.0.loss_ab.p": 1.5})
    assert ei.value.override == "links.0.loss_ab.p=1.5"


def test_flow_index_checked(small_scenario):
    r = airtcp.run(small_scenario, overrides={"sim.duration": "100ms"})
    with pytest.raises(IndexError, match="flow 1 out of range"):
        r.timeseries(1)


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        airtcp.run("/nonexistent/scenario.toml")


def test_out_writes_files(small_scenario, tmp_path):
    out = tmp_path / "o"
    r = airtcp.run(small_scenario, out=out, overrides={"sim.duration": "1s"})
    assert r.out == str(out)
    assert json.loads((out / "summary.json").read_text()) == r.summary
    events = r.events
    assert isinstance(events, list)
    assert all(isinstance(e, dict) for e in events)
    assert len(r.events_df()) == len(events)


def test_import_is_light():
    """`import airtcp` loads neither the native module nor pandas/numpy."""
    code = (
        "import sys, airtcp; "
        "heavy = [m for m in ('pandas', 'numpy', 'matplotlib', 'airtcp._native', 'json') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_versions_agree():
    from importlib.metadata import version

    from airtcp import _native

    assert airtcp.__version__ == _native.__version__ == version("airtcp")


def test_agents_and_their_series(small_scenario):
    """A Snoop and a packet error generator at the server: counters in the
    summary, the cache level as a DataFrame, a bad index named."""
    sc = dict(small_scenario)
    sc["links"] = [dict(sc["links"][0], name="wl")]
    sc["links"][0].pop("loss_ab", None)
    sc["agents"] = [
        {"node": "server", "kind": "snoop", "wireless": "wl"},
        {"node": "server", "kind": "peg", "send_data_drop_rate": 0.1},
    ]
    r = airtcp.run(sc)
    kinds = [(a["node"], a["kind"]) for a in r.agents]
    assert kinds == [("server", "snoop"), ("server", "peg")]
    snoop, peg = r.agents
    assert peg["counters"]["send_dropped"] > 0
    assert peg["dropped_packets"] == peg["counters"]["send_dropped"] + peg["counters"]["recv_dropped"]
    assert snoop["counters"]["local_retransmissions"] > 0
    df = r.agent_series(0)
    assert list(df.columns) == ["t_s", "value"]
    assert len(df) > 100 and df["value"].max() > 0
    assert r.agent_series(1).empty, "the PEG has no level to sample"
    with pytest.raises(IndexError, match="agent 2 out of range: the run has 2 agent"):
        r.agent_series(2)


def test_unknown_agent_kind_is_a_scenario_error(small_scenario):
    sc = dict(small_scenario, agents=[{"node": "server", "kind": "snooop"}])
    with pytest.raises(airtcp.ScenarioError) as e:
        airtcp.run(sc)
    assert e.value.key == "agents[0].kind"
    assert 'unknown agent kind "snooop" (known: peg, snoop, itcp, home_agent, foreign_agent, mobile_node, correspondent, mtcp)' in str(e.value)


def test_a_study_run_is_named_by_study_labels_and_seed(small_scenario, tmp_path):
    # The study runner names each dict scenario in errors: the study (from
    # the package of its measure callback), the task's labels, its seed.
    from airtcp.runner import study as runner

    small_scenario["links"][0]["delay"] = "-5ms"
    task = runner.Task(labels={"arm": "tcp", "loss": 0.3}, scenario=small_scenario, seed=4)

    def measure(task, result):
        return {}

    measure.__module__ = "airtcp.studies.snoop.measure"
    with pytest.raises(airtcp.ScenarioError) as ei:
        runner.run_study(tmp_path / "out", [task], measure, lambda d, sr: None, quiet=True)
    assert str(ei.value).startswith("<snoop arm=tcp loss=0.3 seed=4>: links[0].delay: ")
    assert not (tmp_path / "out").exists()
    with pytest.raises(airtcp.ScenarioError) as ei:
        runner._run_one(task, measure, None)
    assert ei.value.file == "<snoop arm=tcp loss=0.3 seed=4>"
