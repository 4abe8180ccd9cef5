#!/usr/bin/env python3
"""Seed checks with real kernels (root, iperf3; docs/emulate.md).

zwa:   seed 000 on a real sender. A kernel Reno sender (SACK off, window
       scaling off, IW 1 through `ip route ... initcwnd 1`, 40,000-byte
       socket buffer) in cn sends to the kernel of mn across the SDN network
       of scenarios/sdn-zwa.toml, through the 2 s handoff at 10 s; once with
       the controller's ZWA module and once without (bare TCP). Reports the
       sender's retransmissions, timeouts and window probes (TcpExt
       TCPWinProbe) and its TCP_INFO (ss -ti) around the handoff.

snoop: seed 004 on a real sender. The kernel in `server` sends 100,000
       bytes to the kernel in m1 through Snoop over the PEG's 30 % data
       drops (scenarios/snoop-s2-download.toml), once with Snoop and once
       with the PEG alone. Reports Snoop's counters and the kernel's
       retransmissions and timeouts.

    cargo build --release -p airtcp-emu
    sudo python3 scripts/emulate_checks.py zwa
    sudo python3 scripts/emulate_checks.py snoop
"""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "airtcp-emulate")

SAMPLER = "while true; do echo \"t=$(date +%s.%N)\"; ss -tin state established; sleep 0.1; done > {log}"


def run(args):
    r = subprocess.run([BIN, *args], capture_output=True, text=True)
    if r.returncode not in (0, 3):
        sys.exit(f"airtcp-emulate failed ({r.returncode}): {r.stderr}")
    return r


def kernel(summary, node):
    k = summary["emulation"]["kernel_counters"][node]
    return {
        "retrans": k.get("Tcp.RetransSegs", 0),
        "timeouts": k.get("TcpExt.TCPTimeouts", 0),
        "win_probes": k.get("TcpExt.TCPWinProbe", 0),
        "out_segs": k.get("Tcp.OutSegs", 0),
    }


def zwa_arm(zwa, d):
    apps = '["mobility", "statistics", "zwa", "forwarding"]' if zwa else '["mobility", "statistics", "forwarding"]'
    setup_common = "sysctl -qw net.ipv4.tcp_sack=0 net.ipv4.tcp_window_scaling=0 net.ipv4.tcp_timestamps=1"
    run([
        os.path.join(ROOT, "scenarios", "sdn-zwa.toml"), "--out", d, "--real", "cn,mn",
        "--set", "sim.duration=22s", "--set", f"sdn.applications={apps}",
        "--setup", f"cn: {setup_common} net.ipv4.tcp_congestion_control=reno; ip route change default dev eth0 initcwnd 1",
        "--setup", f"mn: {setup_common}",
        "--serve", "mn: iperf3 -s -1",
        "--serve", "cn: " + SAMPLER.format(log=f"{d}/ss.log"),
        "--exec", f"cn: sleep 1; iperf3 -c mn -t 19 -w 40000 -J > {d}/iperf.json",
    ])
    s = json.load(open(os.path.join(d, "summary.json")))
    out = kernel(s, "cn")
    out["sdn"] = {k: v for k, v in (s.get("sdn") or {}).items() if isinstance(v, (int, float))}
    out["lateness"] = s["emulation"]["lateness"]
    # TCP_INFO lines with a backoff or probes during the handoff.
    lines = open(os.path.join(d, "ss.log")).read().split("t=")
    out["ss_backoff_max"] = 0
    for block in lines:
        for tok in block.split():
            if tok.startswith("backoff:"):
                out["ss_backoff_max"] = max(out["ss_backoff_max"], int(tok.split(":")[1]))
    try:
        ip = json.load(open(os.path.join(d, "iperf.json")))
        out["goodput_bps"] = ip["end"]["sum_received"]["bits_per_second"]
    except Exception as e:  # noqa: BLE001 - reported, not hidden
        out["goodput_bps"] = f"iperf3 output unreadable: {e}"
    return out


def snoop_arm(snoop, d):
    args = [
        os.path.join(ROOT, "scenarios", "snoop-s2-download.toml"), "--out", d, "--real", "server,m1",
        "--set", "sim.duration=120s",
        "--setup", "server: sysctl -qw net.ipv4.tcp_congestion_control=reno",
        "--serve", "m1: iperf3 -s -1",
        "--exec", f"server: sleep 0.5; iperf3 -c m1 -n 100000 -J > {d}/iperf.json",
    ]
    if not snoop:
        args += ["--set", 'agents=[{node = "server", kind = "peg", send_data_drop_rate = 0.3, '
                 'recv_data_drop_rate = 0.3, data_only = true}]']
    run(args)
    s = json.load(open(os.path.join(d, "summary.json")))
    out = kernel(s, "server")
    out["agents"] = [{"kind": a.get("kind"), **{k: v for k, v in a.items() if isinstance(v, int)}}
                     for a in s.get("agents", [])]
    out["stopped_at_s"] = s["emulation"]["stopped_at_s"]
    out["lateness"] = s["emulation"]["lateness"]
    return out


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "zwa"
    with tempfile.TemporaryDirectory() as base:
        if what == "zwa":
            res = {"zwa": zwa_arm(True, os.path.join(base, "zwa")), "bare": zwa_arm(False, os.path.join(base, "bare"))}
        elif what == "snoop":
            res = {"snoop": snoop_arm(True, os.path.join(base, "snoop")), "peg_only": snoop_arm(False, os.path.join(base, "peg"))}
        else:
            sys.exit("usage: emulate_checks.py zwa|snoop")
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
