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
       drops (scenarios/snoop-s2-download.toml), with Snoop (its fixed 1 s
       local timer, then the adaptive one) and with the PEG alone, seeds
       1..N; further arguments are sysctls for both namespaces. Reports
       Snoop's counters and the kernel's retransmissions and timeouts.

    cargo build --release -p airtcp-emu
    sudo python3 scripts/emulate_checks.py zwa
    sudo python3 scripts/emulate_checks.py snoop 8 [net.ipv4.tcp_sack=0 ...]
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "airtcp-emulate")

SAMPLER = "while true; do echo \"t=$(date +%s.%N)\"; ss -tino state established; sleep 0.1; done > {log}"


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
        "--exec", f"cn: sleep 1; iperf3 -c mn -t 15 -w 40000 -J > {d}/iperf.json",
    ])
    s = json.load(open(os.path.join(d, "summary.json")))
    out = kernel(s, "cn")
    out["sdn"] = {k: v for k, v in (s.get("sdn") or {}).items() if isinstance(v, (int, float))}
    out["lateness"] = s["emulation"]["lateness"]
    # TCP_INFO lines with a backoff or probes during the handoff.
    lines = open(os.path.join(d, "ss.log")).read().split("t=")
    out["ss_backoff_max"] = 0
    out["ss_samples_in_persist"] = 0
    out["ss_samples_in_rto_backoff"] = 0
    for block in lines:
        backoff = 0
        for tok in block.split():
            if tok.startswith("backoff:"):
                backoff = int(tok.split(":")[1])
                out["ss_backoff_max"] = max(out["ss_backoff_max"], backoff)
        out["ss_samples_in_persist"] += "timer:(persist" in block
        out["ss_samples_in_rto_backoff"] += "timer:(on" in block and backoff > 0
    try:
        ip = json.load(open(os.path.join(d, "iperf.json")))
        out["goodput_bps"] = ip["end"]["sum_sent"]["bits_per_second"]
    except Exception as e:  # noqa: BLE001 - reported, not hidden
        out["goodput_bps"] = f"iperf3 output unreadable: {e}"
    return out


RECEIVER = """import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("", 5001))
s.listen()
c, _ = s.accept()
n = 0
while True:
    b = c.recv(65536)
    if not b:
        break
    n += len(b)
print(n)
"""

SENDER = """import socket, sys, time
s = socket.create_connection(("m1", 5001))
t = time.time()
s.sendall(b"x" * int(sys.argv[1]))
s.shutdown(socket.SHUT_WR)
s.recv(1)
print("%.3f" % (time.time() - t))
"""


def snoop_arm(arm, d, seed=1, sysctls=()):
    """arm: "snoop" (the seed's fixed 1 s local timer), "snoop_adaptive"
    (the local timer from wireless-hop RTT samples) or "peg_only"."""
    # iperf3's control connection does not survive 30 % data drops: a plain
    # socket sends the seed's 100,000 bytes and times the transfer.
    open(os.path.join(d, "recv.py"), "w").write(RECEIVER)
    open(os.path.join(d, "send.py"), "w").write(SENDER)
    args = [
        os.path.join(ROOT, "scenarios", "snoop-s2-download.toml"), "--out", d, "--real", "server,m1",
        "--set", "sim.duration=300s", "--seed", str(seed),
        "--setup", "server: sysctl -qw net.ipv4.tcp_congestion_control=reno " + " ".join(sysctls),
        "--setup", "m1: sysctl -qw net.ipv4.tcp_congestion_control=reno " + " ".join(sysctls),
        "--serve", f"m1: python3 {d}/recv.py > {d}/received.txt",
        "--exec", f"server: sleep 0.3; python3 {d}/send.py 100000 > {d}/elapsed.txt",
    ]
    if arm == "peg_only":
        args += ["--set", 'agents=[{node = "server", kind = "peg", send_data_drop_rate = 0.3, '
                 'recv_data_drop_rate = 0.3, data_only = true}]']
    elif arm == "snoop_adaptive":
        args += ["--set", "agents.0.timer=adaptive"]
    run(args)
    s = json.load(open(os.path.join(d, "summary.json")))
    out = kernel(s, "server")
    out["agents"] = {a["kind"]: a.get("counters") for a in s.get("agents", [])}
    out["transfer_s"] = open(os.path.join(d, "elapsed.txt")).read().strip()
    out["received_bytes"] = open(os.path.join(d, "received.txt")).read().strip()
    out["lateness"] = s["emulation"]["lateness"]
    return out


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "zwa"
    with tempfile.TemporaryDirectory() as base:
        if what == "zwa":
            res = {"zwa": zwa_arm(True, os.path.join(base, "zwa")), "bare": zwa_arm(False, os.path.join(base, "bare"))}
        elif what == "snoop":
            runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
            # Further arguments are sysctls set in both namespaces, e.g.
            # net.ipv4.tcp_sack=0 (the seed's sender had no SACK).
            sysctls = sys.argv[3:]
            arms = ("snoop", "snoop_adaptive", "peg_only")
            res = {arm: [] for arm in arms}
            for seed in range(1, runs + 1):
                for arm in arms:
                    d = os.path.join(base, f"{arm}{seed}")
                    os.makedirs(d)
                    res[arm].append(snoop_arm(arm, d, seed, sysctls))
            for arm in arms:
                rs = res[arm]
                res[arm + "_mean"] = {
                    k: sum(float(r[k]) for r in rs) / len(rs) for k in ("retrans", "timeouts", "transfer_s")
                }
                res[arm + "_mean"]["transfer_s_median"] = statistics.median(float(r["transfer_s"]) for r in rs)
                if arm != "peg_only":
                    res[arm + "_mean"]["local_retransmissions"] = sum(r["agents"]["snoop"]["local_retransmissions"] for r in rs) / len(rs)
        else:
            sys.exit("usage: emulate_checks.py zwa|snoop")
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
