"""The `airtcp` console script: run, plot, errors, --version."""

import csv
import json
import subprocess
import sys

import pytest

import airtcp
from conftest import run_cli


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """One `airtcp run` shared by the output checks (it is the slow part)."""
    from conftest import BULK_LOSSY, SMALL_TOML

    d = tmp_path_factory.mktemp("cli")
    if BULK_LOSSY.exists():
        scenario, extra = BULK_LOSSY, ["--set", "sim.duration=5s"]
    else:
        scenario = d / "small.toml"
        scenario.write_text(SMALL_TOML)
        extra = []
    out = d / "out"
    proc = run_cli("run", scenario, "--out", out, "--seed", "3", *extra)
    return out, proc


def read_csv_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_run_prints_per_flow_summary(run_dir):
    out, proc = run_dir
    assert "seed 3" in proc.stdout
    assert "goodput" in proc.stdout and "retransmissions" in proc.stdout and "timeouts" in proc.stdout
    assert proc.stderr == ""  # no progress bar when stderr is not a terminal


def test_run_writes_summary(run_dir):
    out, _ = run_dir
    s = json.loads((out / "summary.json").read_text())
    assert s["seed"] == 3
    assert s["flows"][0]["bytes_delivered"] > 0
    assert "run_wall_s" in json.dumps(s)


def test_csv_and_parquet_have_same_rows(run_dir):
    pq = pytest.importorskip("pyarrow.parquet")
    out, _ = run_dir
    rows = read_csv_rows(out / "flow0.csv")
    assert rows and list(rows[0]) == [
        "t_s", "cwnd", "ssthresh", "srtt_s", "rto_s", "snd_una", "snd_nxt", "bytes_delivered", "ca_state",
    ]
    table = pq.read_table(out / "flow0.parquet")
    assert table.num_rows == len(rows)
    assert table.column_names == list(rows[0])
    got = table.to_pylist()
    for i in (0, len(rows) // 2, len(rows) - 1):
        for k, v in rows[i].items():
            p = got[i][k]
            if isinstance(p, float):
                assert float(v) == pytest.approx(p, rel=1e-9), (i, k)
            else:
                assert str(p).lower() == v.lower(), (i, k)


def test_segments_csv_and_events(run_dir):
    out, _ = run_dir
    segs = read_csv_rows(out / "flow0_segments.csv")
    assert segs and set(segs[0]) >= {"t_s", "seq", "len", "retransmission"}
    lines = (out / "events.jsonl").read_text().splitlines()
    for line in lines:
        assert isinstance(json.loads(line), dict)


def test_set_override_visible_in_summary(tmp_path, cli_scenario):
    scenario, extra = cli_scenario
    out = tmp_path / "o"
    run_cli("run", scenario, "--out", out, "--quiet", *extra, "--set", "flows.0.tcp.cc=reno")
    s = json.loads((out / "summary.json").read_text())
    assert s["scenario"]["flows"][0]["tcp"]["cc"] == "reno"


def test_bad_scenario_exit_2_writes_nothing(tmp_path, small_toml):
    small_toml.write_text(small_toml.read_text().replace('delay = "10ms"', 'delay = "-10ms"'))
    out = tmp_path / "never"
    proc = run_cli("run", small_toml, "--out", out, check=False)
    assert proc.returncode == 2
    msg = proc.stderr.strip()
    assert len(msg.splitlines()) == 1
    assert msg.startswith(f"{small_toml}:") and "links[0].delay" in msg, msg
    assert proc.stdout == ""
    assert not out.exists()


UCC_HEADER = (
    "Timestamp,Longitude,Latitude,Speed,Operatorname,CellID,NetworkMode,RSRP,RSRQ,SNR,CQI,RSSI,DL_bitrate,"
    "UL_bitrate,State,PINGAVG,PINGMIN,PINGMAX,PINGSTDEV,PINGLOSS,CELLHEX,NODEHEX,LACHEX,RAWCELLID,NRxRSRP,NRxRSRQ"
)


def test_drive_log_not_utf8_names_its_line(tmp_path):
    # A drive log with a Latin-1 byte on line 3: the log's file:LINE, one
    # line ending in a newline, exit 2, nothing written.
    rows = [
        f"2019.12.14_10.24.{s:02},-8.41,51.92,52,B,1,LTE,{rsrp},-9,-,15,-74,100,200,D,-,-,-,-,-,C,A99B,9CBA,11115276,-90.0,-13.0"
        for s, rsrp in ((0, "-90"), (1, "-91\xb0"), (2, "-92"))
    ]
    log = tmp_path / "drive.csv"
    log.write_bytes((UCC_HEADER + "\n" + "\n".join(rows) + "\n").encode("latin-1"))
    scenario = tmp_path / "drive.toml"
    scenario.write_text(
        '[sim]\nduration = "2s"\n[[nodes]]\nname = "bs"\n[[nodes]]\nname = "mobile"\n'
        '[[links]]\na = "bs"\nb = "mobile"\ndelay = "20ms"\nrate_ba = "2Mbps"\n'
        '[links.trace_ab]\nkind = "drive"\nfile = "drive.csv"\n'
        '[[flows]]\nfrom = "bs"\nto = "mobile"\n'
    )
    out = tmp_path / "never"
    proc = run_cli("run", scenario, "--out", out, check=False)
    assert proc.returncode == 2
    col = rows[1].index("\xb0") + 1
    assert proc.stderr == (
        f"{scenario}:14: links[0].trace_ab.file: bad trace: {log}:3: not valid UTF-8 (byte 0xb0 at column {col})\n"
    )
    assert not out.exists()


def test_bad_override_exit_2(tmp_path, small_toml):
    out = tmp_path / "never"
    proc = run_cli("run", small_toml, "--out", out, "--set", "links.0.loss_ab.p=2", check=False)
    assert proc.returncode == 2
    assert "--set links.0.loss_ab.p=2" in proc.stderr
    assert not out.exists()


def test_unknown_key_exit_2(tmp_path, small_toml):
    small_toml.write_text(small_toml.read_text() + 'colour = "blue"\n')
    proc = run_cli("run", small_toml, "--out", tmp_path / "x", check=False)
    assert proc.returncode == 2
    assert "colour" in proc.stderr


def test_missing_scenario_file_exit_2(tmp_path):
    proc = run_cli("run", tmp_path / "nope.toml", "--out", tmp_path / "x", check=False)
    assert proc.returncode == 2
    assert "nope.toml" in proc.stderr
    assert not (tmp_path / "x").exists()


def test_plot_writes_three_pngs_per_flow(run_dir):
    out, _ = run_dir
    proc = run_cli("plot", out)
    n_flows = len(json.loads((out / "summary.json").read_text())["flows"])
    pngs = sorted((out / "plots").glob("*.png"))
    assert len(pngs) == 3 * n_flows
    for i in range(n_flows):
        for kind in ("cwnd", "seq", "throughput"):
            p = out / "plots" / f"flow{i}_{kind}.png"
            assert p.exists() and p.stat().st_size > 1000
            assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            assert str(p) in proc.stdout


def test_plot_on_empty_dir_fails_cleanly(tmp_path):
    proc = run_cli("plot", tmp_path, check=False)
    assert proc.returncode == 2
    assert "no flow<i>.csv" in proc.stderr


def test_version():
    proc = run_cli("--version")
    assert proc.stdout.strip() == f"airtcp {airtcp.__version__}"


def test_run_does_not_import_heavy_modules(tmp_path, small_toml):
    """`airtcp run` must not pay for pandas/numpy/matplotlib at start-up."""
    code = (
        "import sys; from airtcp.cli import main; "
        f"rc = main(['run', {str(small_toml)!r}, '--out', {str(tmp_path / 'o')!r}, '--quiet', "
        "'--set', 'sim.duration=100ms']); "
        "heavy = [m for m in ('pandas', 'numpy', 'matplotlib') if m in sys.modules]; "
        "print(rc, ','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0", out.stdout + out.stderr


def test_progress_bar_only_on_a_terminal(tmp_path, small_toml):
    """With stderr on a pseudo-terminal the run draws a bar (and erases it)."""
    import os
    import pty

    from conftest import airtcp_cmd

    master, slave = pty.openpty()
    try:
        proc = subprocess.run(
            airtcp_cmd() + ["run", str(small_toml), "--out", str(tmp_path / "o")],
            stdout=subprocess.PIPE, stderr=slave, text=True, timeout=300,
        )
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO once the other side is closed and drained
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
    assert proc.returncode == 0
    err = b"".join(chunks).decode()
    assert "100%" in err and "[" + "#" * 40 + "]" in err
    assert "goodput" in proc.stdout


def test_unwritable_out_exit_1(tmp_path, small_toml):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    proc = run_cli("run", small_toml, "--out", blocker / "o", "--quiet", check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith("airtcp: run failed: ") and str(blocker) in proc.stderr, proc.stderr


def test_emulate_runs_the_emulator_binary_with_the_arguments(tmp_path, monkeypatch):
    # `airtcp emulate` hands its arguments to airtcp-emulate (crates/emu)
    # and returns its exit status: a stand-in records what it was given.
    record = tmp_path / "args.txt"
    fake = tmp_path / "airtcp-emulate"
    fake.write_text(f"#!/bin/sh\necho \"$@\" > {record}\nexit 7\n")
    fake.chmod(0o755)
    monkeypatch.setenv("AIRTCP_EMULATE", str(fake))
    from airtcp.cli import main

    assert main(["emulate", "s.toml", "--out", "o", "--real", "cn,mn"]) == 7
    assert record.read_text().strip() == "s.toml --out o --real cn,mn"
