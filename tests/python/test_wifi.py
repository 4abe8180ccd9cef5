"""802.11 in the Python layer: ``Result.radios``, ``radio_signal``,
``wifi_events`` and ``handoffs`` on a shortened run of the roaming example,
the event-log parsing on hand-written events, ``airtcp plot`` of a wireless
run, and the snoop study's 802.11 DCF variant."""

import csv
import json
import math

import pytest

import airtcp
from airtcp import _api, plot
from airtcp.studies.snoop import setup as snoop_setup
from airtcp.studies.snoop.setup import SETUPS

from conftest import REPO, run_cli

ROAMING = REPO / "scenarios" / "wifi-roaming.toml"


@pytest.fixture(scope="module")
def roam(tmp_path_factory):
    """wifi-roaming.toml cut to 25 s: one handoff ap1 -> ap2 near t = 14 s."""
    out = tmp_path_factory.mktemp("roam") / "run"
    return airtcp.run(ROAMING, overrides={"sim.duration": "25s"}, out=out)


# --- the Result API ----------------------------------------------------------------


def test_radios_lists_every_radio(roam):
    radios = roam.radios
    assert [(r["node"], r["mode"]) for r in radios] == [
        ("ap1", "ap"),
        ("ap2", "ap"),
        ("ap3", "ap"),
        ("sta", "station"),
    ]
    sta = radios[3]
    assert sta["associated_ap"] == "ap2"
    assert sta["counters"]["acked"] > 0 and "retries" in sta["counters"]
    assert airtcp.run(REPO / "scenarios" / "bulk-lossy.toml", overrides={"sim.duration": "1s"}).radios == []


def test_radio_signal_by_index_or_node(roam):
    df = roam.radio_signal(3)
    assert list(df.columns) == ["t_s", "dbm", "ap"]
    assert len(df) > 200 and df["t_s"].is_monotonic_increasing
    # beacons every 102.4 ms; the samples are of the current AP
    assert df["t_s"].diff().dropna().median() == pytest.approx(0.1024, abs=1e-3)
    assert set(df["ap"]) == {"ap1", "ap2"}
    before, after = df[df["t_s"] < 14.0], df[df["t_s"] > 14.5]
    assert set(before["ap"]) == {"ap1"} and set(after["ap"]) == {"ap2"}
    # leaving ap1 below the -70 dBm threshold, joining ap2 above it
    assert before["dbm"].iloc[-1] < -70 < after["dbm"].iloc[0]
    assert roam.radio_signal("sta").equals(df)
    assert roam.radio_signal(0).empty  # an AP has no beacon samples
    with pytest.raises(IndexError, match="out of range: the run has 4 radio"):
        roam.radio_signal(4)
    with pytest.raises(IndexError, match="no radio on that node"):
        roam.radio_signal("server")


def test_wifi_events_parse_the_detail(roam):
    ev = roam.wifi_events()
    assert list(ev.columns) == ["t_s", "kind", "sta", "ap", "trigger", "detail"]
    assert ev["kind"].str.startswith("wifi_").all() and ev["t_s"].is_monotonic_increasing
    first = ev.iloc[0]
    assert (first["t_s"], first["kind"], first["sta"], first["ap"]) == (0.0, "wifi_associated", "sta", "ap1")
    lost = ev[ev["kind"] == "wifi_link_lost"]
    assert len(lost) == 1
    assert (lost.iloc[0]["ap"], lost.iloc[0]["trigger"]) == ("ap1", "signal")
    scans = ev[ev["kind"] == "wifi_scan_start"]
    assert (scans["trigger"] == "signal").all()
    # every scan that found nothing better ends in wifi_stayed
    assert len(ev[ev["kind"] == "wifi_stayed"]) == len(scans) - 1


def test_handoffs_one_row_per_new_association(roam):
    h = roam.handoffs()
    assert list(h.columns) == _api.HANDOFF_COLUMNS
    assert len(h) == 1
    row = h.iloc[0]
    assert (row["sta"], row["from_ap"], row["to_ap"]) == ("sta", "ap1", "ap2")
    assert 13.5 < row["t0"] < 14.5
    # the roam scans first, then leaves ap1: t0 is the scan start
    assert row["t0"] == row["scan_start"] <= row["scan_end"] == row["link_lost"]
    assert row["scan_end"] <= row["auth_start"] <= row["authenticated"] <= row["assoc_start"] <= row["associated"]
    assert row["scan_s"] == pytest.approx(row["scan_end"] - row["scan_start"])
    assert row["auth_s"] == pytest.approx(row["authenticated"] - row["auth_start"])
    assert row["assoc_s"] == pytest.approx(row["associated"] - row["assoc_start"])
    assert row["total_s"] == pytest.approx(row["associated"] - row["t0"])
    assert 0.05 < row["total_s"] < 0.5 and row["auth_s"] < 0.01


def _ev(t, kind, detail):
    return {"t_s": t, "kind": kind, "flow": None, "link": None, "detail": detail}


def test_handoff_rows_from_link_loss_and_without_scan():
    events = [
        _ev(0.0, "wifi_associated", "sta=a ap=x aid=1 reassoc=false"),
        _ev(0.0, "wifi_associated", "sta=b ap=x aid=2 reassoc=false"),
        _ev(1.0, "connected", "client"),
        # beacon loss: link lost first, then the scan (t0 = link lost)
        _ev(2.0, "wifi_link_lost", "sta=a ap=x trigger=beacon_loss"),
        _ev(2.1, "wifi_scan_start", "sta=a trigger=link_lost"),
        _ev(2.3, "wifi_scan_end", "sta=a best=y signal_dbm=-60.0"),
        _ev(2.3, "wifi_auth_start", "sta=a ap=y"),
        _ev(2.31, "wifi_authenticated", "sta=a ap=y"),
        _ev(2.31, "wifi_assoc_start", "sta=a ap=y reassoc=true"),
        _ev(2.32, "wifi_associated", "sta=a ap=y aid=1 reassoc=true"),
        # a scan that keeps the AP is no handoff
        _ev(3.0, "wifi_scan_start", "sta=b trigger=signal"),
        _ev(3.1, "wifi_scan_end", "sta=b best=x signal_dbm=-71.0"),
        _ev(3.1, "wifi_stayed", "sta=b ap=x"),
        # a scripted handoff to a named AP: no scan
        _ev(4.0, "wifi_auth_start", "sta=b ap=y"),
        _ev(4.01, "wifi_authenticated", "sta=b ap=y"),
        _ev(4.01, "wifi_assoc_start", "sta=b ap=y reassoc=true"),
        _ev(4.02, "wifi_associated", "sta=b ap=y aid=2 reassoc=true"),
        # a station joining by scanning: not a handoff
        _ev(5.0, "wifi_scan_start", "sta=c trigger=join"),
        _ev(5.2, "wifi_associated", "sta=c ap=y aid=3 reassoc=false"),
    ]
    rows = _api.handoff_rows(events)
    assert [(r["sta"], r["from_ap"], r["to_ap"]) for r in rows] == [("a", "x", "y"), ("b", "x", "y")]
    a, b = rows
    assert (a["t0"], a["link_lost"], a["scan_start"]) == (2.0, 2.0, 2.1)
    assert a["total_s"] == pytest.approx(0.32) and a["scan_s"] == pytest.approx(0.2)
    assert b["t0"] == 4.0 and math.isnan(b["scan_start"]) and math.isnan(b["scan_s"])
    assert b["total_s"] == pytest.approx(0.02)
    assert _api.parse_detail("sta=a ap=x junk") == {"sta": "a", "ap": "x"}


# --- airtcp plot --------------------------------------------------------------------


def test_plot_of_a_wireless_run(roam):
    written = plot.plot_dir(roam.out)
    names = [p.rsplit("/", 1)[1] for p in written]
    assert names == ["flow0_cwnd.png", "flow0_seq.png", "flow0_throughput.png", "radio3_signal.png"]
    for p in written:
        with open(p, "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
    w = plot.read_wifi(roam.out)
    assert [(h["from_ap"], h["to_ap"]) for h in w.handoffs_of_flow(0)] == [("ap1", "ap2")]


def test_plot_of_a_wired_run_has_no_wifi_parts(tmp_path):
    airtcp.run(REPO / "scenarios" / "bulk-lossy.toml", overrides={"sim.duration": "1s"}, out=tmp_path)
    assert plot.read_wifi(str(tmp_path)) is None
    names = [p.rsplit("/", 1)[1] for p in plot.plot_dir(str(tmp_path))]
    assert names == ["flow0_cwnd.png", "flow0_seq.png", "flow0_throughput.png"]


# --- the snoop study on the 802.11 DCF MAC ---------------------------------------------


def test_snoop_80211_scenario_has_radios_and_no_wireless_links():
    sc = snoop_setup.scenario(SETUPS["s3"], "snoop", 0.3, mac="80211")
    assert [ln["name"] for ln in sc["links"]] == ["server-ap"]
    assert sc["wifi"] == {"standard": "b", "rate": "11Mbps", "queue_packets": 50}
    assert [(r["node"], r["mode"], r.get("ap")) for r in sc["radios"]] == [
        ("ap", "ap", None),
        ("m1", "station", "ap"),
        ("m2", "station", "ap"),
    ]
    assert [(a["node"], a["kind"], a.get("wireless"), a.get("iface")) for a in sc["agents"]] == [
        ("m2", "snoop", "radio", None),
        ("server", "peg", None, None),
    ]
    s1 = snoop_setup.scenario(SETUPS["s1"], "snoop", 0.3, mac="80211")
    assert [(a["kind"], a.get("wireless"), a.get("iface")) for a in s1["agents"]] == [
        ("snoop", "radio", None),
        ("peg", None, "radio"),
    ]
    itcp = snoop_setup.scenario(SETUPS["s2"], "itcp", 0.3, mac="80211")
    assert [(a["node"], a["kind"], a.get("wireless")) for a in itcp["agents"]] == [
        ("server", "peg", None),
        ("ap", "itcp", "radio"),
    ]
    # the point-to-point variant is unchanged (its shipped TOMLs still match)
    assert snoop_setup.scenario(SETUPS["s1"], "snoop", 0.3) == snoop_setup.scenario(
        SETUPS["s1"], "snoop", 0.3, mac="p2p"
    )
    with pytest.raises(ValueError, match="mac"):
        snoop_setup.scenario(SETUPS["s1"], "tcp", 0.3, mac="ether")


def test_snoop_study_80211_quick_rows(tmp_path):
    out = tmp_path / "q"
    proc = run_cli(
        "reproduce", "snoop", "--out", out, "--quick", "--mac", "both", "--scenarios", "s1", "s3",
        "--arms", "tcp", "snoop", "--rates", "0,0.3", "--quiet",
    )  # fmt: skip
    assert proc.stdout == "" and proc.stderr == ""
    with open(out / "table.csv") as fh:
        rows = list(csv.DictReader(fh))
    keys = [(r["scenario"], r["mac"], r["arm"], r["mobile"], r["drop_rate"]) for r in rows]
    assert ("s1", "80211", "snoop", "m1", "0.3") in keys and ("s3", "80211", "snoop", "m2", "0.3") in keys
    assert len(keys) == len(set(keys)) == 2 * (2 * 2 * 1 + 2 * 2 * 2)  # 2 macs x (s1 + s3 with 2 mobiles)
    for r in rows:
        assert r["n"] == "2" and r["finished"] == "2", r
        if r["mac"] == "p2p":
            assert r["mac_retries_mean"] == ""
        else:
            assert float(r["mac_retries_mean"]) >= 0
    t = {(r["scenario"], r["mac"], r["arm"], r["mobile"], r["drop_rate"]): r for r in rows}
    s1 = t["s1", "80211", "snoop", "m1", "0.3"]
    assert float(s1["snoop_local_retransmissions_mean"]) > 0
    assert float(s1["response_time_mean"]) < float(t["s1", "80211", "tcp", "m1", "0.3"]["response_time_mean"])
    report = (out / "report.md").read_text()
    assert "## The 802.11 DCF MAC beside the point-to-point link" in report
    assert "### The seed's claims on the point-to-point variant" in report  # the 802.11 MAC is the primary
    for png in ["s1_80211_response_time.png", "s3_mac_response_time.png", "s1_80211_drop0.3_seed1_cwnd.png"]:
        assert (out / "plots" / png).stat().st_size > 10_000, png
    sc = json.loads((out / "scenarios" / "s3_80211_snoop.json").read_text())
    assert sc["radios"][0]["mode"] == "ap"
