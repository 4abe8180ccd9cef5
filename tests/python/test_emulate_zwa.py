"""`airtcp reproduce sdn-zwa --emulate` (the real-kernel arm) and the
log reading it shares with scripts/emulate_checks.py. These need no root:
the real runs themselves are scripts/emulate_checks.py zwa (about 45 s)."""

import os

import pytest

from airtcp import emulate_zwa

from conftest import run_cli

# Two samples of `ss -tino state established` as the sampler logs them.
SS_LOG = """t=100.00
Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess
0      0          172.16.0.4:5201   10.0.0.41:42368
\t ts reno rto:204 cwnd:10 bytes_received:181
0      0          172.16.0.4:5201   10.0.0.41:42370
\t ts reno rto:1788 cwnd:4 bytes_received:2934
t=100.50
Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess
0      0          172.16.0.4:5201   10.0.0.41:42370 timer:(on,1.5sec,2)
\t ts reno backoff:2 rto:4000 cwnd:1 bytes_received:8725
t=101.00
Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess
0      0          172.16.0.4:5201   10.0.0.41:42370 timer:(persist,200ms,0)
\t ts reno rto:4000 cwnd:1 bytes_received:8725
t=103.70
Recv-Q Send-Q Local Address:Port  Peer Address:PortProcess
0      0          172.16.0.4:5201   10.0.0.41:42370
\t ts reno rto:4000 cwnd:1 bytes_received:10173
t=10"""


def test_ss_log_samples_pair_each_socket_with_its_tcp_info():
    samples = emulate_zwa.parse_ss_log(SS_LOG)
    # The last block was cut mid-line by the end of the run: dropped.
    assert [t for t, _ in samples] == [100.0, 100.5, 101.0, 103.7]
    assert len(samples[0][1]) == 2
    assert samples[1][1][0].endswith("bytes_received:8725")


def test_tcp_info_states_count_persist_and_backoff_samples():
    st = emulate_zwa.tcp_info_states(emulate_zwa.parse_ss_log(SS_LOG))
    assert st == {"ss_backoff_max": 2, "ss_samples_in_persist": 1, "ss_samples_in_rto_backoff": 1}


def test_delivery_interruption_spans_the_stall_around_t0():
    samples = emulate_zwa.parse_ss_log(SS_LOG)
    # Run time 0.5 s: last growth; 3.7 s: first growth after T0 = 1 s.
    assert emulate_zwa.delivery_interruption(samples, 1.0) == pytest.approx(3.2)
    # Delivery never resumes after a T0 past the last growth.
    assert emulate_zwa.delivery_interruption(samples, 3.8) is None


def test_require_names_root_first(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(emulate_zwa.EmulateError, match="need root"):
        emulate_zwa.require()


def test_emulate_without_prerequisites_is_one_line_and_writes_nothing(tmp_path):
    out = tmp_path / "study"
    env_before = os.environ.get("AIRTCP_EMULATE")
    os.environ["AIRTCP_EMULATE"] = str(tmp_path / "no-such-airtcp-emulate")
    try:
        proc = run_cli("reproduce", "sdn-zwa", "--quick", "--out", out, "--emulate", check=False)
    finally:
        if env_before is None:
            del os.environ["AIRTCP_EMULATE"]
        else:
            os.environ["AIRTCP_EMULATE"] = env_before
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    want = "airtcp-emulate not found" if os.geteuid() == 0 else "need root"
    assert lines[0].startswith("airtcp: --emulate: ") and want in lines[0]
    assert not out.exists()
