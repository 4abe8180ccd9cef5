"""``airtcp analyze`` and ``airtcp.analyze``: a run's capture analysed
agrees with its summary; DataFrames; bad input gives an error naming the
packet and byte offset, and nothing is written."""

import json
from pathlib import Path

import pytest

import airtcp

from conftest import REPO, run_cli

RTO_CAPTURE = REPO / "crates" / "analyze" / "tests" / "data" / "tcp_retransmissions.pcapng"


def test_capture_of_a_run_agrees_with_its_summary(tmp_path):
    run = airtcp.run(REPO / "scenarios" / "bulk-lossy.toml", overrides={"sim.duration": "5s"}, out=tmp_path / "run", pcap=True)
    flow = run.summary["flows"][0]
    analyses = airtcp.analyze(tmp_path / "run", out=tmp_path / "an")
    sender_side = next(a for a in analyses if "snd-rtr" in a.capture)
    c = sender_side.connections
    fwd = c[c["dir"] == "fwd"].iloc[0]
    assert fwd["retransmissions"] == flow["retransmissions"]
    assert fwd["timeouts"] == flow["timeouts"]
    s = sender_side.timeseries(0)
    # A run's columns first, in its order, then the capture's own.
    assert list(s.columns[:9]) == list(run.timeseries(0).columns)
    assert list(s.columns[9:14]) == ["conn", "dir", "sent_bytes", "delivered_bytes", "goodput_bps"]
    assert s["delivered_bytes"].sum() == fwd["bytes_delivered"]
    assert s["bytes_delivered"].iloc[-1] == fwd["bytes_delivered"]
    assert s["cwnd"].isna().all()
    assert list(sender_side.events_df().columns[:5]) == list(run.events_df().columns)
    assert list(sender_side.interruptions(0).columns) == list(run.interruptions(0).columns)
    # summary.json's analysis (the client socket) and the sender's link
    # capture: the same retransmissions by the same code.
    assert run.analysis(0)["retransmissions"] == fwd["retransmissions"] == flow["retransmissions"]


def test_public_capture_rto_chain():
    a = airtcp.analyze(RTO_CAPTURE)
    fwd = a.summary["connections"][0]["fwd"]
    assert fwd["timeouts"] == 5
    gaps = [round((b - x) / 1e9, 3) for x, b in zip(fwd["rto_chains"][0]["times_ns"], fwd["rto_chains"][0]["times_ns"][1:])]
    assert gaps == [0.6, 1.2, 2.4, 4.805]
    ev = a.events
    assert list(ev[ev["kind"] == "retransmission"]["packet"]) == [2, 3, 4, 5, 6]


def test_cli_corrupt_capture_names_packet_and_offset(tmp_path):
    data = bytearray(RTO_CAPTURE.read_bytes())
    bad = tmp_path / "bad.pcapng"
    # Break the first packet block's length (after SHB and IDB).
    shb = int.from_bytes(data[4:8], "little")
    idb = int.from_bytes(data[shb + 4 : shb + 8], "little")
    at = shb + idb
    data[at + 4 : at + 8] = (0x7FFFFFF0).to_bytes(4, "little")
    bad.write_bytes(bytes(data))
    p = run_cli("analyze", bad, "--out", tmp_path / "out", check=False)
    assert p.returncode == 1
    assert f"packet 1 (byte offset {at})" in p.stderr
    assert not (tmp_path / "out" / "summary.json").exists()


def test_cli_writes_the_output_files(tmp_path):
    p = run_cli("analyze", RTO_CAPTURE, "--out", tmp_path / "out")
    assert "6 packets, 6 TCP, 1 connections" in p.stdout
    for name in ("connections.csv", "series.csv", "events.csv", "rtt.csv", "summary.json"):
        assert (tmp_path / "out" / name).exists(), name
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["capture"]["packets"] == 6


def test_analyze_error_is_raised_for_a_file_that_is_not_a_capture(tmp_path):
    f = tmp_path / "x.pcap"
    f.write_text("not a capture")
    with pytest.raises(airtcp.AnalyzeError, match=r"packet 1 \(byte offset 0\): not a pcap or pcapng file"):
        airtcp.analyze(f)
