"""`airtcp reproduce wi-tcp` (seed 001): the scenario builder, argument
checks, and the quick study end to end (a few seconds)."""

import csv

import pytest

from airtcp.runner import study as runner
from airtcp.studies.wi_tcp import run as wi_tcp
from airtcp.studies.wi_tcp import setup as wi_tcp_setup

from conftest import run_cli


def test_scenario_variants_toggle_the_agents():
    mip = wi_tcp_setup.scenario("mip", "tahoe", 20)
    wi = wi_tcp_setup.scenario("witcp", "newreno", 10)
    kinds = [a["kind"] for a in mip["agents"]]
    assert kinds == ["correspondent", "home_agent", "foreign_agent", "foreign_agent", "mobile_node"]
    assert not any(a.get("route_optimization") for a in mip["agents"])
    assert mip["agents"][4]["smooth_handoff"] is False
    assert all(a["route_optimization"] and a["witcp"] for a in wi["agents"][1:4])
    # The seed's stack: ns-2's agents, 1000 + 40 B packets, window 20.
    assert mip["flows"][0]["tcp"] == {"profile": "ns2-tahoe", "packet_size": 1000, "window": 20, "witcp": False, "ehn": False}
    assert wi["flows"][0]["tcp"]["profile"] == "ns2-newreno" and wi["flows"][0]["tcp"]["witcp"] is True
    assert mip["links"][2]["delay"] == "15ms" and wi["links"][3]["delay"] == "5ms"
    with pytest.raises(runner.StudyError):
        wi_tcp_setup.scenario("mip", "cubic", 10)
    with pytest.raises(runner.StudyError):
        wi_tcp_setup.scenario("mip", "reno", 10, link="ethernet")


def test_ehn_arm_and_p2p_link():
    e = wi_tcp_setup.scenario("ehn", "reno", 10, link="p2p", seed=3, away_s=2.0)
    assert e["wifi"]["medium"] == "p2p"
    assert e["agents"][4]["ehn"] is True and e["flows"][0]["tcp"]["ehn"] is True
    assert not any(a.get("witcp") for a in e["agents"][1:4]) and e["flows"][0]["tcp"]["witcp"] is False
    assert all(a["route_optimization"] for a in e["agents"][1:4])
    moves = next(r for r in e["radios"] if r["node"] == "mh")["roam_at"]
    # The seed's schedule: HA->FA1 with the host about 4 s out of coverage, FA1->FA2.
    assert [m[1:] for m in moves] == [["fa1", "3.5s"], ["fa2", "2s"]]
    base = [t for t, _, _ in wi_tcp_setup.HANDOFFS]
    assert all(0 <= m[0] - b < 1 for m, b in zip(moves, base)) and [m[0] for m in moves] != base
    assert [m[0] for m in wi_tcp_setup.p2p_moves(1, 1.0)] == base, "seed 1: the shipped times"
    assert wi_tcp_setup.p2p_moves(3, 1.0) == wi_tcp_setup.p2p_moves(3, 1.0)
    with pytest.raises(runner.StudyError):
        wi_tcp_setup.scenario("ehn", "reno", 10, link="p2p", away_s=3.5)
    four = wi_tcp_setup.scenario("ehn", "reno", 10, link="p2p", seed=3, away_s=2.0, schedule="four-moves")
    assert [m[1:] for m in next(r for r in four["radios"] if r["node"] == "mh")["roam_at"]] == [["fa1", "2s"], ["ha", "2s"], ["fa1", "2s"], ["fa2", "2s"]]
    with pytest.raises(runner.StudyError):
        wi_tcp_setup.scenario("ehn", "reno", 10, schedule="five-moves")


def test_stacks_set_the_flow_tcp():
    lx = wi_tcp_setup.scenario("witcp", "cubic", 10, stack="linux")["flows"][0]["tcp"]
    assert lx == {"profile": "linux", "mss": 1000, "rcv_buf": 20_000, "witcp": True, "ehn": False, "freeze": False}
    nf = wi_tcp_setup.scenario("romip", "cubic", 10, stack="linux-nofrto")["flows"][0]["tcp"]
    assert nf["profile"] == "linux" and nf["frto"] is False
    # Freeze-TCP cannot run on ns-2's agents: the nearest Linux-endpoint keys.
    fz = wi_tcp_setup.scenario("freeze", "reno", 10, stack="ns2")["flows"][0]["tcp"]
    assert (fz["profile"], fz["recovery"], fz["initial_cwnd"], fz["min_rto"], fz["freeze"]) == ("rfc", "reno", 2, "200ms", True)
    with pytest.raises(runner.StudyError, match="stack linux"):
        wi_tcp_setup.scenario("mip", "newreno", 10, stack="linux")
    with pytest.raises(runner.StudyError, match="unknown TCP stack"):
        wi_tcp_setup.scenario("mip", "newreno", 10, stack="bsd")


def test_rates_and_the_seed_schedule_over_802_11():
    one = wi_tcp_setup.scenario("romip", "reno", 10, rate_mbps=1)
    assert one["wifi"]["rate"] == "1Mbps"
    pts = next(r for r in one["radios"] if r["node"] == "mh")["waypoints"]
    # Home until 11.5 s, 3 km away (no cell) until 15 s, fa1 until 42.5 s, then fa2.
    assert pts[:5] == [[0, 0.0, 0.0], [11.5, 0.0, 0.0], [11.51, 500.0, 3000.0], [15.0, 500.0, 3000.0], [15.01, 500.0, 0.0]]
    assert pts[-1] == [42.51, 1000.0, 0.0]
    assert wi_tcp.parse_rates("2,1") == [1, 2]
    with pytest.raises(runner.StudyError):
        wi_tcp.parse_rates("11")


def test_cwnd_plot_draws_the_series_in_packets():
    """The flow series counts cwnd in packets: the plot draws it as such
    (divided by the MSS every line was at zero)."""
    import pandas as pd

    from airtcp.studies.wi_tcp import plots as wi_tcp_plots

    kept = [{"labels": {"variant": "reno", "link": "wlan", "rate_mbps": 2, "mode": m, "schedule": "seed"}, "series": pd.DataFrame({"t_s": [0.0, 1.0, 2.0, 3.0], "cwnd": c})} for m, c in (("romip", [10, 1, 2, 4]), ("witcp", [10, 10, 10, 12]))]
    lines = wi_tcp_plots.cwnd_lines(kept, "reno", "wlan", 2)
    assert [m for m, _, _ in lines] == ["romip", "witcp"]
    for (_, _, y), k in zip(lines, kept):
        assert y == list(k["series"]["cwnd"])
        assert len(set(y)) > 1, "a series that varies is drawn varying"


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
    arms = {"wlan": ("mip", "romip", "witcp", "ehn", "freeze"), "p2p": ("mip", "romip", "witcp", "ehn")}
    want = [(s, link, m, v, "10") for s, v in (("ns2", "newreno"), ("linux", "cubic")) for link in ("wlan", "p2p") for m in arms[link]]
    assert [(r["stack"], r["link"], r["mode"], r["variant"], r["hafa_ms"]) for r in rows] == want
    assert len(runs) == 36
    for name in [
        "report.md",
        "scenarios/ns2_wlan_2mbps_witcp_newreno_10ms.json",
        "scenarios/ns2_p2p_2mbps_ehn_newreno_10ms.json",
        "scenarios/linux_wlan_2mbps_freeze_cubic_10ms.json",
        "plots/fig12_throughput_vs_delay.png",
        "plots/fig12_throughput_vs_delay_p2p.png",
        "plots/seq_newreno.png",
        "plots/seq_newreno_p2p.png",
        "plots/cwnd_newreno.png",
    ]:
        assert (out / name).stat().st_size > 0, name
    report = (out / "report.md").read_text()
    # The report opens with the stack and the claims on both stacks.
    assert report.splitlines()[2] == "## The TCP stack, and whether each claim holds on both"
    assert "**Stack: ns-2 2.35's one-way agents**" in report and "**Sensitivity arm: `linux`**" in report
    assert "+38 %" in report and "Wi-TCP over MIP (plain p2p)" in report and "Wi-TCP over EHN [8] (802.11b)" in report
    assert "Delay analysis (eqs. 1–4)" in report


def test_quick_study_shows_the_mechanisms(quick):
    _, rows, runs, _ = quick
    for link, stack in [(k, s) for s in ("ns2", "linux") for k in ("wlan", "p2p")]:
        by = {r["mode"]: r for r in rows if r["link"] == link and r["stack"] == stack}
        # Route optimisation: the home agent is bypassed, the correspondent tunnels.
        assert float(by["romip"]["ha_tunnelled_mean"]) * 20 < float(by["mip"]["ha_tunnelled_mean"])
        assert float(by["romip"]["cn_tunnelled_mean"]) > 1000
        # Wi-TCP: a freeze per handoff (two), no RTO, more goodput than either.
        assert float(by["witcp"]["freezes_mean"]) == 2
        assert float(by["witcp"]["timeouts_mean"]) == 0
        assert float(by["witcp"]["goodput_mean_bps"]) > float(by["romip"]["goodput_mean_bps"])
        assert float(by["witcp"]["goodput_mean_bps"]) > float(by["mip"]["goodput_mean_bps"])
        # EHN: a notification per handoff, obeyed after the host left.
        # (Not a third when two broadcast advertisements are lost and the
        # mobile hears its own agent again: no handover.)
        assert float(by["ehn"]["ehn_notifications_mean"]) == 2
        assert float(by["ehn"]["t_notified_s_mean"]) > 0
        # The delay analysis from the freeze/resume events (eq. 4 within the trips).
        w = by["witcp"]
        assert 0 < float(w["t_eho_trip_s_mean"]) < 0.05 and 0 < float(w["t_ehc_trip_s_mean"]) < 0.05
        assert float(w["eq4_residual_s_mean"]) < 0.05
        assert float(w["t_ideal_fafa_s_mean"]) > float(w["t_newfa_oldfa_s_mean"]) > 0
    # Freeze-TCP (an oracle warning before each move, 802.11 only): fewer
    # RTOs than route-optimised MIP, below Wi-TCP's goodput.
    wlan = {r["mode"]: r for r in rows if r["link"] == "wlan" and r["stack"] == "ns2"}
    assert float(wlan["freeze"]["timeouts_mean"]) < float(wlan["romip"]["timeouts_mean"])
    assert float(wlan["freeze"]["goodput_mean_bps"]) < float(wlan["witcp"]["goodput_mean_bps"])
    p2p = {r["mode"]: r for r in rows if r["link"] == "p2p" and r["stack"] == "ns2"}
    assert 0.02 < float(p2p["witcp"]["alpha_s_mean"]) < 0.03, "7 attempts of 4.16 ms, the first begun before"
