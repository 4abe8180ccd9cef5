#!/usr/bin/env python3
"""Seed checks with real kernels (root, iperf3; docs/emulate.md).

zwa:   seed 000 on a real sender. A kernel Reno sender (SACK off, window
       scaling off, IW 1 through `ip route ... initcwnd 1`, 40,000-byte
       socket buffer) in cn sends to the kernel of mn across the SDN network
       of scenarios/sdn-zwa.toml, through the 2 s handoff at 10 s; once with
       the controller's ZWA module and once without (bare TCP). Reports the
       sender's retransmissions, timeouts and window probes (TcpExt
       TCPWinProbe), its TCP_INFO (ss -ti) around the handoff and the
       receiver's delivery interruption (python/airtcp/emulate_zwa.py).

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
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "airtcp-emulate")

sys.path.insert(0, os.path.join(ROOT, "python"))
from airtcp import emulate_zwa  # noqa: E402 - the zwa check's code, shared with `airtcp reproduce sdn-zwa --emulate`


def run(args):
    try:
        return emulate_zwa.run_emulator(BIN, args)
    except emulate_zwa.EmulateError as e:
        sys.exit(str(e))


kernel = emulate_zwa.kernel_counters


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
            res = emulate_zwa.run_both(BIN, base)
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
