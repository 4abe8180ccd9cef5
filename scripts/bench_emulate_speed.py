#!/usr/bin/env python3
"""How fast a plain emulated link carries a kernel's bulk transfer.

scenarios/emu-path.toml between two real hosts (namespaces `snd` and
`rcv`), the link set to RATE, 1 ms one way and a 1000-packet queue, one
iperf3 transfer of SECONDS with 1500-byte packets (the host's default
congestion control), for each TUN mode (`--tun-offload off|read|rw`) and
rate, RUNS times, interleaved (mode after mode, then the next run) so that
the machine's load falls on every mode alike. Prints a Markdown table:
goodput (iperf3's receiver), datagrams from and to the kernels, TUN reads
and writes, event lateness, and the 1-minute load average before and
after each run (the machine is shared). Needs root and iperf3.

    cargo build --release -p airtcp-emu
    python3 scripts/bench_emulate_speed.py --runs 2 --seconds 8 --rates 10Gbps,1Gbps
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("AIRTCP_EMULATE") or os.path.join(ROOT, "target", "release", "airtcp-emulate")
SCEN = os.path.join(ROOT, "scenarios", "emu-path.toml")


def load1():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def run(mode, rate, seconds, out):
    cmd = [
        BIN, SCEN, "--out", out, "--real", "snd,rcv", "--tun-offload", mode,
        "--set", f"links.0.rate={rate}", "--set", "links.0.delay=1ms", "--set", "links.0.queue_packets=1000",
        "--set", f"sim.duration={seconds + 10}s",
        "--serve", "rcv: iperf3 -s -1",
        "--exec", f"snd: sleep 0.3; iperf3 -c rcv -t {seconds} -J",
    ]
    before = load1()
    p = subprocess.run(cmd, capture_output=True, text=True)
    after = load1()
    if p.returncode not in (0, 3):
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr}")
    with open(os.path.join(out, "summary.json")) as f:
        e = json.load(f)["emulation"]
    with open(os.path.join(out, "exec", "exec0-snd.log")) as f:
        ip = json.load(f)
    w, lat = e["wire"], e["lateness"]
    return {
        "mode": mode, "rate": rate,
        "goodput": ip["end"]["sum_received"]["bits_per_second"] / 1e6,
        "from": w["from_kernel_packets"], "to": w["to_kernel_packets"],
        "reads": w["reads"], "writes": w["writes"], "super": w["super_packets"],
        "mean_us": lat["mean_us"], "p99_us": lat["p99_us"], "late": lat["late_over_1ms"],
        "overloaded": e["overloaded"], "load": (before, after),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--seconds", type=int, default=8)
    ap.add_argument("--rates", default="10Gbps,1Gbps")
    ap.add_argument("--modes", default="off,read,rw")
    ap.add_argument("--raw", help="append each run as a JSON line to this file")
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="airtcp-speed-") as tmp:
        for rate in a.rates.split(","):
            for r in range(a.runs):
                for mode in a.modes.split(","):
                    out = os.path.join(tmp, f"{rate}-{mode}-{r}")
                    row = run(mode, rate, a.seconds, out)
                    rows.append(row)
                    print(json.dumps(row), file=sys.stderr, flush=True)
                    if a.raw:
                        with open(a.raw, "a") as f:
                            f.write(json.dumps(row) + "\n")
    print("| link | TUNs | goodput (Mb/s) | datagrams from / to the kernels | reads | writes (super-packets) | "
          "mean lateness | p99 | late > 1 ms | load average before / after |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for x in sorted(rows, key=lambda x: (x["rate"], ["off", "read", "rw"].index(x["mode"]))):
        print(f"| {x['rate']} | {x['mode']} | {x['goodput']:,.0f} | {x['from']:,} / {x['to']:,} | {x['reads']:,} | "
              f"{x['writes']:,} ({x['super']:,}) | {x['mean_us']:.0f} µs | {x['p99_us']:.0f} µs | {x['late']:,} | "
              f"{x['load'][0]:.1f} / {x['load'][1]:.1f} |")


if __name__ == "__main__":
    main()
