#!/usr/bin/env python3
"""Kernel TCP against airtcp's model on the same emulated path.

For each congestion control (reno, cubic) and uniform loss p on the data
direction, run N real-time emulations of scenarios/emu-path.toml with the
kernels of two namespaces (iperf3, one bulk transfer) and N simulations of
the same scenario with airtcp's own TCP (`--clock virtual`, the same engine),
and print a Markdown table: goodput, mean smoothed RTT, retransmissions,
timeouts and recoveries, mean and spread over the runs, plus the emulator's
event lateness. Needs root (namespaces, TUN) and iperf3.

    cargo build --release -p airtcp-emu
    sudo python3 scripts/bench_emulate.py --runs 5 --seconds 20 > table.md

Kernel counters: goodput from iperf3's receiver, mean RTT from iperf3's
sender (TCP_INFO tcpi_rtt sampled each interval), retransmissions
(Tcp.RetransSegs), timeouts (TcpExt.TCPTimeouts) and recoveries
(TcpExt.TCPSackRecovery + TCPRenoRecovery) from the sender namespace's
/proc/net/snmp and /proc/net/netstat, which the emulator records.
"""

import argparse
import csv
import json
import warnings
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("AIRTCP_EMULATE") or os.path.join(ROOT, "target", "release", "airtcp-emulate")
SCEN = os.path.join(ROOT, "scenarios", "emu-path.toml")


def emulate(cc, p, seed, seconds, out, ns_cc, sysctls=(), paced=False, rcv_setup=()):
    # iperf3 (3.12) sets TCP_CONGESTION after connect(): the socket starts
    # with the namespace's default algorithm and is switched to `cc` when
    # established. If that default is BBR (this host's), bbr_init has set
    # sk_pacing_status = SK_PACING_NEEDED, which no later algorithm clears,
    # and the kernel then paces the Reno/Cubic flow itself at
    # tcp_pacing_ca_ratio = 120 % of cwnd/srtt (tcp_update_pacing_rate):
    # cwnd is not filled at each ACK, about 8 % less goodput under loss.
    # So the namespaces' default is set to Reno (no init hook, no pacing; a
    # namespace other than the host's may only choose a non-restricted
    # algorithm, and Reno always is), unless asked otherwise.
    setup = []
    if ns_cc != "host":
        for node in ("snd", "rcv"):
            setup += ["--setup", f"{node}: sysctl -qw net.ipv4.tcp_congestion_control={ns_cc}"]
    # Switches for finding a mechanism: sysctls of the sender's namespace,
    # and pacing. This kernel has no sch_fq, so pacing is the kernel's
    # internal one, which SO_MAX_PACING_RATE turns on (iperf3 --fq-rate;
    # sock_setsockopt sets SK_PACING_NEEDED): the rate the kernel computes
    # for every flow, 200 % of cwnd/srtt in slow start and 120 % after
    # (tcp_update_pacing_rate), capped at 1 Gb/s here.
    for kv in sysctls:
        setup += ["--setup", f"snd: sysctl -qw net.ipv4.{kv}"]
    for c in rcv_setup:
        setup += ["--setup", f"rcv: {c}"]
    pace = " --fq-rate 1G" if paced else ""
    cmd = [
        BIN, SCEN, "--out", out, "--real", "snd,rcv", "--seed", str(seed),
        "--set", f"links.0.loss_ab.p={p}", "--set", f"sim.duration={seconds + 10}s",
        *setup,
        "--serve", "rcv: iperf3 -s -1",
        "--exec", f"snd: sleep 0.5; iperf3 -c rcv -t {seconds} -C {cc}{pace} -J > {out}/iperf.json",
    ]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode not in (0, 3):
        sys.exit(f"emulation failed ({r.returncode}): {r.stderr}")
    s = json.load(open(os.path.join(out, "summary.json")))
    ip = json.load(open(os.path.join(out, "iperf.json")))
    e = s["emulation"]
    k = e["kernel_counters"]["snd"]
    snd = ip["end"]["streams"][0]["sender"]
    return {
        "goodput": ip["end"]["sum_received"]["bits_per_second"],
        "srtt_ms": snd["mean_rtt"] / 1000.0,
        "retrans": k.get("Tcp.RetransSegs", 0),
        "timeouts": k.get("TcpExt.TCPTimeouts", 0),
        "recoveries": k.get("TcpExt.TCPSackRecovery", 0) + k.get("TcpExt.TCPRenoRecovery", 0),
        "late_mean_us": e["lateness"]["mean_us"],
        "late_p99_us": e["lateness"]["p99_us"],
        "overloaded": e["overloaded"],
    }


def srtt_each_second(series_csv, seconds):
    """The model's smoothed RTT read the way iperf3 reads the kernel's: the
    mean of one value at the end of each 1-s interval (iperf3's `mean_rtt`
    is the mean of `tcpi_rtt` read once per interval), from the flow's
    series (one row per series interval, 0.1 s here)."""
    at = {}
    with open(series_csv) as fh:
        for row in csv.DictReader(fh):
            at[round(float(row["t_s"]), 3)] = float(row["srtt_s"])
    # A read before the first RTT sample (the SYN lost: the model's flow
    # starts a timeout later) is no SRTT; iperf3's kernel socket always
    # has one, from its handshake, before the first interval.
    reads = [at[float(k)] for k in range(1, seconds + 1) if at.get(float(k), 0.0) > 0.0]
    return 1000.0 * sum(reads) / len(reads) if reads else float("nan")


def simulate(cc, p, seed, seconds, out, model_set=()):
    cmd = [
        BIN, SCEN, "--out", out, "--clock", "virtual", "--seed", str(seed),
        "--set", f"links.0.loss_ab.p={p}", "--set", f"sim.duration={seconds}s",
        "--set", f"flows.0.tcp.cc={cc}",
        *[x for kv in model_set for x in ("--set", kv)],
    ]
    subprocess.run(cmd, check=True, capture_output=True)
    f = json.load(open(os.path.join(out, "summary.json")))["flows"][0]
    return {
        "goodput": f["goodput_bps"],
        "srtt_ms": (f["srtt_mean_s"] or 0) * 1000.0,
        "srtt_1s_ms": srtt_each_second(os.path.join(out, "flow0.csv"), seconds),
        "retrans": f["retransmissions"],
        "timeouts": f["timeouts"],
        "recoveries": f["fast_recoveries"],
    }


# The kernel's half of a split run, as a Python program in its namespace.
# Sender: Congestion control chosen before connect() (so no pacing state is
# inherited), bulk writes for `seconds`, then shutdown and wait for the
# simulated receiver's FIN: everything written was delivered. Prints the
# bytes and the seconds from connect to that FIN.
# A kernel receiver started with --serve may not listen yet: retry.
KERNEL_SENDER = """import socket, time
for _ in range(100):
    s = socket.socket(); s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b'{cc}')
    try:
        s.connect(('rcv', 1024)); break
    except ConnectionRefusedError:
        s.close(); time.sleep(0.05)
t0 = time.monotonic(); buf = b'x' * {write}; n = 0
while time.monotonic() - t0 < {seconds}:
    n += s.send(buf)
s.shutdown(socket.SHUT_WR); s.recv(1)
print('sent', n, time.monotonic() - t0, flush=True)"""
# Receiver: reads whatever arrives until the run ends.
KERNEL_RECEIVER = """import socket
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); l.bind(('0.0.0.0', 1024)); l.listen(1)
s, _ = l.accept()
while s.recv(1 << 20):
    pass"""


def split(cc, p, seed, seconds, out, ns_cc, kernel_sends, kernel_receives, model_set=(), pcap=False, write=65536):
    """One run with the kernel at one or both ends, with the same two
    programs at the kernel's ends whichever the other end is (the simulated
    endpoints talk to real hosts): the kernel sends to the model's receiver,
    the model sends to the kernel's receiver, or the kernel to the kernel.
    Returns the goodput (b/s) and whether the run was overloaded."""
    real = ",".join(n for n, k in (("snd", kernel_sends), ("rcv", kernel_receives)) if k)
    cmd = [
        BIN, SCEN, "--out", out, "--real", real, "--seed", str(seed),
        "--set", f"links.0.loss_ab.p={p}", "--set", f"flows.0.tcp.cc={cc}",
        *[x for kv in model_set for x in ("--set", kv)],
    ]
    if pcap:
        cmd.append("--pcap")
    if ns_cc != "host":
        for n in real.split(","):
            cmd += ["--setup", f"{n}: sysctl -qw net.ipv4.tcp_congestion_control={ns_cc}"]
    if kernel_receives:
        cmd += ["--serve", f"rcv: python3 -c \"{KERNEL_RECEIVER}\""]
    if kernel_sends:
        py = KERNEL_SENDER.format(cc=cc, seconds=seconds, write=write)
        cmd += ["--set", f"sim.duration={seconds + 15}s", "--exec", f"snd: sleep 0.3; python3 -c \"{py}\""]
    else:
        # The model's sender starts at 0 (the clock waits for the listener)
        # and sends for `seconds`.
        cmd += ["--set", f"sim.duration={seconds}s"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode not in (0, 3):
        sys.exit(f"emulation failed ({r.returncode}): {r.stderr}")
    e = json.load(open(os.path.join(out, "summary.json")))["emulation"]
    if kernel_sends:
        log = open(os.path.join(out, "exec", "exec0-snd.log")).read().split()
        i = log.index("sent")
        return int(log[i + 1]) * 8 / float(log[i + 2]), e["overloaded"]
    return e["simulated_ends"][0]["bytes_acked_by_kernel"] * 8 / seconds, e["overloaded"]


def ms(xs):
    m = statistics.mean(xs)
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return m, sd


def pool(raw, resimulate=False, model_set=()):
    """The table from the runs a file of --raw lines records (later lines of
    the same cc, p and seed replace earlier ones), with the confidence
    interval of the SRTT difference: the check asks for the mean smoothed
    RTTs within 1 ms, and with a few runs the run-to-run spread of the
    kernel's alone is of that size."""
    from scipy import stats

    runs = {}
    with open(raw) as fh:
        for n, line in enumerate(fh, 1):
            try:
                r = json.loads(line)
                runs[(r["cc"], r["p"], r["seed"])] = (r["kernel"], r["model"], r["seconds"])
            except (ValueError, KeyError) as e:
                sys.exit(f"{raw}:{n}: not a run of the table ({e})")
    if resimulate:
        # The kernel's runs as recorded, the model's run again by today's
        # build (same scenario, seed and length): a model change is
        # measured against kernel runs already made.
        with tempfile.TemporaryDirectory() as d:
            for (cc, p, seed), (k, _, secs) in runs.items():
                runs[(cc, p, seed)] = (k, simulate(cc, p, seed, secs, os.path.join(d, f"{cc}-{p}-{seed}"), model_set), secs)
    print("| cc | p | runs | goodput kernel (Mb/s) | goodput model | diff | srtt kernel (ms) | srtt model (1-s reads) "
          "| srtt diff, 95 % CI (ms) | retrans k / m | timeouts k / m | recoveries k / m |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for cc, p in sorted({(c, q) for c, q, _ in runs}, key=lambda k: (k[0] != "reno", float(k[1]))):
        rs = [v for (c, q, _), v in sorted(runs.items()) if (c, q) == (cc, p)]
        kern, model = [k for k, _, _ in rs], [m for _, m, _ in rs]
        gk = statistics.mean(r["goodput"] for r in kern) / 1e6
        gm = statistics.mean(r["goodput"] for r in model) / 1e6
        sk = [r["srtt_ms"] for r in kern]
        sm = [r["srtt_1s_ms"] for r in model]
        d = statistics.mean(sk) - statistics.mean(sm)
        if len(rs) > 1:
            with warnings.catch_warnings():
                # A loss-free model is deterministic: every run reads the
                # same SRTT, and scipy warns of the zero variance.
                warnings.simplefilter("ignore", RuntimeWarning)
                t = stats.ttest_ind(sk, sm, equal_var=False)
            lo, hi = t.confidence_interval(0.95)
            ci = f"{d:+.2f} [{lo:+.2f}, {hi:+.2f}]"
        else:
            ci = f"{d:+.2f}"
        def pair(key):
            return f"{statistics.mean(r[key] for r in kern):.1f} / {statistics.mean(r[key] for r in model):.1f}"
        print(f"| {cc} | {p} | {len(rs)} | {gk:.3f} | {gm:.3f} | {100 * (gk - gm) / gm:+.1f} % | {statistics.mean(sk):.1f} | "
              f"{statistics.mean(sm):.1f} | {ci} | {pair('retrans')} | {pair('timeouts')} | {pair('recoveries')} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--cc", default="reno,cubic")
    ap.add_argument("--loss", default="0,0.01,0.05")
    ap.add_argument("--ns-cc", default="reno",
                    help="the namespaces' default congestion control, which iperf3's socket starts with "
                         "before -C switches it: reno (default), or 'host' to inherit this host's "
                         "(bbr here, which leaves the flow paced)")
    ap.add_argument("--sysctl", action="append", default=[], metavar="KEY=VALUE",
                    help="a net.ipv4 sysctl set in the sender's namespace (tcp_frto=0, tcp_recovery=0, ...); repeatable")
    ap.add_argument("--rcv-setup", action="append", default=[], metavar="CMD",
                    help="a command run in the receiver's namespace before the clock "
                         "('sysctl -qw net.ipv4.tcp_comp_sack_nr=0', 'ip route change default dev eth0 quickack 1'); repeatable")
    ap.add_argument("--paced", action="store_true", help="the kernel's internal pacing on (iperf3 --fq-rate 1G)")
    ap.add_argument("--model-set", action="append", default=[], metavar="KEY=VALUE",
                    help="a scenario key for the model's runs (flows.0.tcp.frto=false, ...); repeatable")
    ap.add_argument("--raw", help="append each run's results as a JSON line to this file (the table's runs: "
                                  "kernel and model figures; split runs: their goodputs in Mb/s)")
    ap.add_argument("--pool", metavar="RAW",
                    help="no runs: the table's figures pooled over every run recorded in RAW by --raw, with the "
                         "95 %% confidence interval (Welch's t) of the kernel-minus-model difference of the mean "
                         "smoothed RTT, both read once a second")
    ap.add_argument("--resimulate", action="store_true",
                    help="with --pool: run the model's side again with today's build (and --model-set) "
                         "instead of the recorded figures")
    ap.add_argument("--model-only", action="store_true", help="only the model's runs (no root needed)")
    ap.add_argument("--modes", default="kk,ks,kr", help="which split runs: kk (kernel to kernel), ks (kernel sender), kr (kernel receiver)")
    ap.add_argument("--first-seed", type=int, default=1, help="seeds first-seed .. first-seed + runs - 1")
    ap.add_argument("--keep", metavar="DIR",
                    help="with --split: keep each run's outputs, with captures, in DIR/<cc>-<p>-<seed>-<kk|ks|kr> "
                         "(for crates/tcp/examples/ack_replay.rs)")
    ap.add_argument("--write-bytes", type=int, default=65536,
                    help="with --split: the size of each send() of the kernel's sender (its PSH flags fall where "
                         "a write ends or waits for buffer space)")
    ap.add_argument("--split", action="store_true",
                    help="instead of the table: goodput of the kernel sender against the model's receiver "
                         "and of the model's sender against the kernel's receiver")
    a = ap.parse_args()
    if a.pool:
        pool(a.pool, a.resimulate, a.model_set)
        return
    if a.model_only:
        print("| cc | p | model goodput (Mb/s), mean ± sd | srtt (ms): every sample / 1-s reads | runs |")
        print("|---|---|---|---|---|")
        for cc in a.cc.split(","):
            for p in a.loss.split(","):
                with tempfile.TemporaryDirectory() as d:
                    rs = [simulate(cc, p, i + a.first_seed, a.seconds, os.path.join(d, str(i)), a.model_set)
                          for i in range(a.runs)]
                g = [r["goodput"] / 1e6 for r in rs]
                s_all = statistics.mean(r["srtt_ms"] for r in rs)
                s_1s = statistics.mean(r["srtt_1s_ms"] for r in rs)
                print(f"| {cc} | {p} | {'%.3f ± %.3f' % ms(g)} | {s_all:.1f} / {s_1s:.1f} | {a.runs} |", flush=True)
        return
    if a.split:
        print("| cc | p | kernel -> kernel (Mb/s) | kernel sender -> model receiver | model sender -> kernel receiver | model -> model |")
        print("|---|---|---|---|---|---|")
        for cc in a.cc.split(","):
            for p in a.loss.split(","):
                cols, over = [[], [], [], []], 0
                for i in range(a.runs):
                    with tempfile.TemporaryDirectory() as d:
                        for c, (ks, kr) in enumerate(((True, True), (True, False), (False, True))):
                            mode = ("kk", "ks", "kr")[c]
                            if mode not in a.modes.split(","):
                                cols[c].append(float("nan"))
                                continue
                            out = os.path.join(a.keep, f"{cc}-{p}-{i + a.first_seed}-{mode}") if a.keep else os.path.join(d, str(c))
                            g, o = split(cc, p, i + a.first_seed, a.seconds, out, a.ns_cc, ks, kr, a.model_set, pcap=bool(a.keep), write=a.write_bytes)
                            cols[c].append(g / 1e6)
                            over += o
                        cols[3].append(simulate(cc, p, i + a.first_seed, a.seconds, os.path.join(d, "s"), a.model_set)["goodput"] / 1e6)
                    if a.raw:
                        with open(a.raw, "a") as f:
                            f.write(json.dumps({"cc": cc, "p": p, "seed": i + a.first_seed, "kk": cols[0][-1],
                                                "ks": cols[1][-1], "kr": cols[2][-1], "mm": cols[3][-1]}) + "\n")
                cells = " | ".join("%.3f ± %.3f" % ms(xs) if xs and xs[0] == xs[0] else "-" for xs in cols)
                print(f"| {cc} | {p} | {cells} |{' (' + str(over) + ' runs overloaded)' if over else ''}", flush=True)
        return
    print("| cc | p | goodput kernel (Mb/s) | goodput model | diff | srtt kernel (ms) | srtt model: every sample / 1-s reads | "
          "retrans k / m | timeouts k / m | recoveries k / m | lateness mean / p99 (µs) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for cc in a.cc.split(","):
        for p in a.loss.split(","):
            kern, model = [], []
            for i in range(a.runs):
                with tempfile.TemporaryDirectory() as d:
                    kern.append(emulate(cc, p, i + a.first_seed, a.seconds, os.path.join(d, "e"), a.ns_cc, a.sysctl, a.paced, a.rcv_setup))
                    model.append(simulate(cc, p, i + a.first_seed, a.seconds, os.path.join(d, "s"), a.model_set))
                if a.raw:
                    with open(a.raw, "a") as f:
                        f.write(json.dumps({"cc": cc, "p": p, "seed": i + a.first_seed, "seconds": a.seconds,
                                            "kernel": kern[-1], "model": model[-1]}) + "\n")
            gk, gks = ms([r["goodput"] / 1e6 for r in kern])
            gm, gms = ms([r["goodput"] / 1e6 for r in model])
            sk, _ = ms([r["srtt_ms"] for r in kern])
            sm, _ = ms([r["srtt_ms"] for r in model])
            sm1, _ = ms([r["srtt_1s_ms"] for r in model])
            def pair(key):
                return f"{statistics.mean(r[key] for r in kern):.1f} / {statistics.mean(r[key] for r in model):.1f}"
            lm = statistics.mean(r["late_mean_us"] for r in kern)
            lp = max(r["late_p99_us"] for r in kern)
            over = sum(r["overloaded"] for r in kern)
            print(f"| {cc} | {p} | {gk:.3f} ± {gks:.3f} | {gm:.3f} ± {gms:.3f} | {100 * (gk - gm) / gm:+.1f} % | "
                  f"{sk:.1f} | {sm:.1f} / {sm1:.1f} | {pair('retrans')} | {pair('timeouts')} | {pair('recoveries')} | "
                  f"{lm:.0f} / {lp:.0f}{' (overloaded ' + str(over) + ')' if over else ''} |", flush=True)


if __name__ == "__main__":
    main()
