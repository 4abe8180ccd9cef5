"""Seed 000's handoff on a real Linux sender, through ``airtcp-emulate``.

A kernel Reno sender (SACK off, window scaling off, IW 1 through
``ip route ... initcwnd 1``, a 40,000-byte socket buffer) in ``cn`` sends
with iperf3 to the kernel of ``mn`` across the SDN network of
``scenarios/sdn-zwa.toml``, through its 2 s handoff at 10 s; once with the
controller's ZWA module (``zwa_arm(..., zwa=True)``) and once without it
(bare TCP). Both ``scripts/emulate_checks.py zwa`` and
``airtcp reproduce sdn-zwa --emulate`` run it from here.

Needs root (network namespaces), iproute2, iperf3 and the release build of
``airtcp-emulate`` (``cargo build --release -p airtcp-emu``);
:func:`require` names what is missing in one line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "sdn-zwa.toml"

#: Samples every established socket's TCP_INFO (``ss -ti``) about every
#: 0.1 s, each sample preceded by its wall-clock time.
SAMPLER = 'while true; do echo "t=$(date +%s.%N)"; ss -tino state established; sleep 0.1; done > {log}'
#: The iperf3 data port: the data connection is the one that moved the most bytes.
IPERF_PORT = ":5201"


class EmulateError(RuntimeError):
    """The real-kernel run cannot start or failed; ``str(e)`` is one line."""


def emulator_path() -> str | None:
    """airtcp-emulate: ``$AIRTCP_EMULATE``, on PATH, or this checkout's
    target/release (None when none exists)."""
    exe = os.environ.get("AIRTCP_EMULATE") or shutil.which("airtcp-emulate")
    if exe is None:
        cand = ROOT / "target" / "release" / "airtcp-emulate"
        if cand.exists():
            exe = str(cand)
    return exe


def require() -> str:
    """The emulator's path, once everything the run needs is there; else
    :class:`EmulateError` naming the first thing missing."""
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        raise EmulateError("the real-kernel arms need root (they create network namespaces); rerun as root")
    exe = emulator_path()
    if exe is None or not os.access(exe, os.X_OK):
        raise EmulateError("airtcp-emulate not found (set $AIRTCP_EMULATE or run: cargo build --release -p airtcp-emu)")
    for tool, package in (("ip", "iproute2"), ("ss", "iproute2"), ("iperf3", "iperf3")):
        if shutil.which(tool) is None:
            raise EmulateError(f"{tool} not found on PATH (install {package})")
    return exe


def run_emulator(exe: str, args: list[str]) -> subprocess.CompletedProcess:
    """Run airtcp-emulate; exit status 3 (the run overloaded: events more
    than 1 ms late) still leaves valid outputs and is reported by the
    caller through ``lateness``."""
    r = subprocess.run([exe, *args], capture_output=True, text=True)
    if r.returncode not in (0, 3):
        last = (r.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise EmulateError(f"airtcp-emulate failed (exit status {r.returncode}): {last}")
    return r


def kernel_counters(summary: dict, node: str) -> dict:
    """The sender's counters from its namespace's /proc/net/{snmp,netstat}."""
    k = summary["emulation"]["kernel_counters"][node]
    return {
        "retrans": k.get("Tcp.RetransSegs", 0),
        "timeouts": k.get("TcpExt.TCPTimeouts", 0),
        "win_probes": k.get("TcpExt.TCPWinProbe", 0),
        "out_segs": k.get("Tcp.OutSegs", 0),
    }


def parse_ss_log(text: str) -> list[tuple[float, list[str]]]:
    """``(wall time, [one socket's ss line + its TCP_INFO line, ...])`` per
    sample of :data:`SAMPLER`'s log."""
    samples = []
    blocks = text.split("\nt=")
    blocks[0] = blocks[0].removeprefix("t=")
    for block in blocks:
        lines = block.splitlines()
        # A sample is its time then ss's header; the run's end may cut the
        # last one anywhere, even mid-time.
        if len(lines) < 2 or not lines[1].startswith("Recv-Q"):
            continue
        try:
            t = float(lines[0])
        except ValueError:
            continue
        socks, cur = [], None
        for line in lines[2:]:
            if line[:1].isspace():
                if cur is not None:
                    socks.append(cur + " " + line.strip())
                    cur = None
            else:
                cur = line
        samples.append((t, socks))
    return samples


def _field(sock: str, name: str) -> int:
    for tok in sock.split():
        if tok.startswith(name + ":"):
            return int(float(tok.split(":")[1]))
    return 0


def tcp_info_states(samples) -> dict:
    """Over the sender's samples: the largest RTO backoff TCP_INFO showed,
    and how many samples had a socket in persist (window probes) or in RTO
    backoff (retransmission timer on, backoff > 0)."""
    out = {"ss_backoff_max": 0, "ss_samples_in_persist": 0, "ss_samples_in_rto_backoff": 0}
    for _, socks in samples:
        text = " ".join(socks)
        backoff = max((_field(s, "backoff") for s in socks), default=0)
        out["ss_backoff_max"] = max(out["ss_backoff_max"], backoff)
        out["ss_samples_in_persist"] += "timer:(persist" in text
        out["ss_samples_in_rto_backoff"] += "timer:(on" in text and backoff > 0
    return out


def delivery_interruption(samples, t0_s: float, field: str = "bytes_received") -> float | None:
    """The seed's "interruption in data transfer" as the receiver's kernel
    saw it: from the last sample whose `field` of the iperf3 data socket
    grew before T0 (`t0_s`, run time) to the first that grew after it
    (``airtcp.metrics.interruption_around``).
    Run time is the wall time since the sampler's first sample (it starts
    with the run), so the figure is good to about the 0.1 s sampling step.
    None when delivery never resumed in the log."""
    if not samples:
        return None
    start = samples[0][0]
    series = []
    for t, socks in samples:
        data = [_field(s, field) for s in socks if IPERF_PORT in s]
        series.append((t - start, max(data, default=0)))
    from .metrics import interruption_around

    gap_start, gap_end = interruption_around([t for t, _ in series], [v for _, v in series], t0_s)
    return gap_end - gap_start if gap_start is not None and gap_end is not None else None


def _first_event(summary_dir: Path, kind: str) -> float | None:
    with open(summary_dir / "events.jsonl") as f:
        for line in f:
            e = json.loads(line)
            if e["kind"] == kind and e["t_s"] > 1.0:
                return e["t_s"]
    return None


def zwa_arm(exe: str, zwa: bool, d: str | os.PathLike) -> dict:
    """One run (22 s of real time) with or without the ZWA module; outputs
    in `d`. Returns the sender's kernel counters, its TCP_INFO states, the
    receiver's delivery interruption, the controller's counts, iperf3's
    goodput and the run's lateness."""
    d = Path(d)
    d.mkdir(parents=True, exist_ok=True)
    apps = '["mobility", "statistics", "zwa", "forwarding"]' if zwa else '["mobility", "statistics", "forwarding"]'
    setup_common = "sysctl -qw net.ipv4.tcp_sack=0 net.ipv4.tcp_window_scaling=0 net.ipv4.tcp_timestamps=1"
    run_emulator(exe, [
        str(SCENARIO), "--out", str(d), "--real", "cn,mn",
        "--set", "sim.duration=22s", "--set", f"sdn.applications={apps}",
        # Reno set in the namespace, not by iperf3 after connect(): a socket
        # born under the host's BBR stays paced (docs/emulate.md).
        "--setup", f"cn: {setup_common} net.ipv4.tcp_congestion_control=reno; ip route change default dev eth0 initcwnd 1",
        "--setup", f"mn: {setup_common}",
        "--serve", "mn: iperf3 -s -1",
        "--serve", "cn: " + SAMPLER.format(log=d / "ss.log"),
        "--serve", "mn: " + SAMPLER.format(log=d / "ss-mn.log"),
        "--exec", f"cn: sleep 1; iperf3 -c mn -t 15 -w 40000 -J > {d}/iperf.json",
    ])
    s = json.loads((d / "summary.json").read_text())
    out = kernel_counters(s, "cn")
    out["sdn"] = {k: v for k, v in (s.get("sdn") or {}).items() if isinstance(v, (int, float))}
    out["lateness"] = s["emulation"]["lateness"]
    out.update(tcp_info_states(parse_ss_log((d / "ss.log").read_text())))
    t0 = _first_event(d, "sdn_t0_disassociated")
    out["t0_s"] = t0
    mn_log = d / "ss-mn.log"
    out["interruption_s"] = delivery_interruption(parse_ss_log(mn_log.read_text()), t0) if t0 is not None and mn_log.exists() else None
    try:
        ip = json.loads((d / "iperf.json").read_text())
        out["goodput_bps"] = ip["end"]["sum_sent"]["bits_per_second"]
    except (OSError, ValueError, KeyError) as e:
        out["goodput_bps"] = f"iperf3 output unreadable: {e}"
    return out


def run_both(exe: str, base: str | os.PathLike) -> dict:
    """The ZWA arm, then bare TCP, each once (about 45 s of real time)."""
    base = Path(base)
    return {"zwa": zwa_arm(exe, True, base / "zwa"), "bare": zwa_arm(exe, False, base / "bare")}
