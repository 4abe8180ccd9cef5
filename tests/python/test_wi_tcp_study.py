"""`airtcp reproduce wi-tcp` (seed 001): the scenario builder, argument
checks, and the quick study end to end (a few seconds)."""

import csv

import pytest

from airtcp.studies import runner, wi_tcp, wi_tcp_setup

from conftest import run_cli


def test_scenario_variants_toggle_the_agents():
    mip = wi_tcp_setup.scenario("mip", "tahoe", 20)
    wi = wi_tcp_setup.scenario("witcp", "newreno", 10)
    kinds = [a["kind"] for a in mip["agents"]]
    assert kinds == ["correspondent", "home_agent", "foreign_agent", "foreign_agent", "mobile_node"]
    assert not any(a.get("route_optimization") for a in mip["agents"])
    assert mip["agents"][4]["smooth_handoff"] is False
    assert all(a["route_optimization"] and a["witcp"] for a in wi["agents"][1:4])
    assert mip["flows"][0]["tcp"]["recovery"] == "tahoe" and mip["flows"][0]["tcp"]["witcp"] is False
    assert wi["flows"][0]["tcp"]["witcp"] is True
    assert mip["links"][2]["delay"] == "15ms" and wi["links"][3]["delay"] == "5ms"
    with pytest.raises(runner.StudyError):
        wi_tcp_setup.scenario("mip", "cubic", 10)


def test_delays_are_checked():
    assert wi_tcp.parse_delays("20, 10,20") == [10, 20]
    for bad in ["x", "5", "10.5"]:
        with pytest.raises(runner.StudyError):
            wi_tcp.parse_delays(bad)


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("witcp") / "q"
    proc = run_cli("reproduce", "wi-tcp", "--out", out, "--quick", "--quiet")
    with open(out / "table.csv") as fh:
        rows = list(csv.DictReader(fh))
    with open(out / "runs.csv") as fh:
        runs = list(csv.DictReader(fh))
    return out, rows, runs, proc


def test_quick_study_writes_every_output(quick):
    out, rows, runs, proc = quick
    assert proc.stdout == "" and proc.stderr == ""
    assert [(r["mode"], r["variant"], r["hafa_ms"]) for r in rows] == [(m, "newreno", "10") for m in ("mip", "romip", "witcp", "freeze")]
    assert len(runs) == 8
    for name in ["report.md", "scenarios/witcp_newreno_10ms.json", "plots/fig12_throughput_vs_delay.png", "plots/seq_newreno.png", "plots/cwnd_newreno.png"]:
        assert (out / name).stat().st_size > 0, name
    report = (out / "report.md").read_text()
    assert "+38 %" in report and "Wi-TCP over MIP" in report


def test_quick_study_shows_the_mechanisms(quick):
    _, rows, runs, _ = quick
    by = {r["mode"]: r for r in rows}
    # Route optimisation: the home agent is bypassed, the correspondent tunnels.
    assert float(by["romip"]["ha_tunnelled_mean"]) * 20 < float(by["mip"]["ha_tunnelled_mean"])
    assert float(by["romip"]["cn_tunnelled_mean"]) > 1000
    # Wi-TCP: four freezes, no RTO, more goodput than either.
    assert float(by["witcp"]["freezes_mean"]) == 4
    assert float(by["witcp"]["timeouts_mean"]) == 0
    assert float(by["witcp"]["goodput_mean_bps"]) > float(by["romip"]["goodput_mean_bps"])
    assert float(by["witcp"]["goodput_mean_bps"]) > float(by["mip"]["goodput_mean_bps"])
    # Freeze-TCP (an oracle warning before each move): fewer RTOs than
    # route-optimised MIP, below Wi-TCP's goodput.
    assert float(by["freeze"]["timeouts_mean"]) < float(by["romip"]["timeouts_mean"])
    assert float(by["freeze"]["goodput_mean_bps"]) < float(by["witcp"]["goodput_mean_bps"])
