"""Captures written by `airtcp run --pcap` open in tshark with every IPv4 and
TCP checksum good and no malformed packet. Skipped without tshark (CI
installs it: see scripts/test.sh)."""

import shutil
import struct
import subprocess

import pytest

from conftest import run_cli

tshark = shutil.which("tshark")
pytestmark = pytest.mark.skipif(tshark is None, reason="tshark not installed")

# Wireshark epan/proto.h: PROTO_CHECKSUM_E_BAD = 0, _GOOD = 1, _UNVERIFIED = 2.
GOOD = "1"


def tshark_fields(path, *fields):
    cmd = [tshark, "-r", str(path), "-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE", "-T", "fields"]
    for f in fields:
        cmd += ["-e", f]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return [line.split("\t") for line in proc.stdout.splitlines()]


def test_pcap_files_valid_in_tshark(tmp_path, small_toml):
    out = tmp_path / "o"
    run_cli("run", small_toml, "--out", out, "--pcap", "--quiet", "--set", "sim.duration=1s")
    pcaps = sorted(out.rglob("*.pcap"))
    assert pcaps, f"no pcap written in {sorted(p.name for p in out.rglob('*'))}"
    total = 0
    for p in pcaps:
        head = p.read_bytes()[:24]
        # Little-endian nanosecond magic, version 2.4, LINKTYPE_RAW.
        assert struct.unpack("<IHHiIII", head)[0] == 0xA1B23C4D
        assert struct.unpack("<IHHiIII", head)[6] == 101
        rows = tshark_fields(p, "ip.checksum.status", "tcp.checksum.status", "_ws.malformed", "_ws.expert.message")
        for r in rows:
            assert r[0] == GOOD and r[1] == GOOD, (p.name, r)
            assert r[2] == "", (p.name, r)
        total += len(rows)
    assert total > 100


def test_pcap_flags_handshake_and_data(tmp_path, small_toml):
    out = tmp_path / "o"
    run_cli("run", small_toml, "--out", out, "--pcap", "--quiet", "--set", "sim.duration=1s")
    p = sorted(out.rglob("*.pcap"))[0]
    rows = tshark_fields(p, "tcp.flags.syn", "tcp.flags.ack", "tcp.len")
    syn = [r for r in rows if r[0] in ("1", "True")]
    assert syn, "the capture shows the SYN"
    assert any(int(r[2]) > 0 for r in rows if r[2]), "the capture shows data"
