"""Study ``drive-test``: seed 003 (Singh, Chaudhary, Batra, "Analyzing
Performance of TCP during Handoff in Real Mobile Networks", IIT Delhi) in
simulation.

The seed drove a car through a 3G network three times per phase, once per
congestion control, with an iperf bulk transfer and tcpprobe, and found that
Veno and Westwood keep the window open through fading and handoffs where
Cubic collapses (phase 1: Cubic 49, Veno 59.6, Westwood 55 KB/s; phase 2:
Cubic 80, Veno 196, Westwood 195 KB/s).

Here the drive is a real drive log replayed as the radio link, identical for
every algorithm and seed::

    server --100 Mb/s, 40 ms-- bs ==radio: trace downlink, 2 Mb/s uplink, 20 ms== mobile

and one bulk flow server -> mobile per run. Every parameter is in
``DEFAULTS`` with its source; the mapping from signal to capacity and loss
and the handoff outage are the trace models' documented defaults
(``crates/sim/src/trace``). Per run we keep goodput, handoffs, timeouts,
retransmissions, the radio link's drops by cause (queue overflow = congestion,
loss curve = random loss at weak signal, handoff outage) and, from the cwnd
series, each entry into fast recovery classified by ssthresh / cwnd (Veno:
4/5 = "random", 1/2 = "congestive").

Outputs in ``--out``: ``table.csv`` (mean and sd over seeds per log and
algorithm, the seed's figures beside), ``runs.csv`` (every run),
``report.md``, ``scenarios/*.json`` and ``plots/*.png`` (one seed per log).
"""

from __future__ import annotations

import csv
import json
import math
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

def _repo() -> Path:
    """The source tree (for tests/data/traces and ../shared): this file's
    checkout when run from it, else the working directory."""
    here = Path(__file__).resolve().parents[3]
    for cand in (here, Path.cwd()):
        if (cand / "tests" / "data" / "traces").is_dir():
            return cand
    return here


REPO = _repo()

#: Linux TCP_INFINITE_SSTHRESH (include/net/tcp.h).
INFINITE_SSTHRESH = 0x7FFFFFFF
#: iperf's "KBytes" are 1024 bytes (iperf -f K), the unit of the seed's table.
KB = 1024.0


@dataclass(frozen=True)
class DriveLog:
    name: str
    #: path relative to the traces directory (or absolute)
    rel: str
    about: str
    #: extra [links.trace] keys (format selection, offset)
    keys: tuple = ()
    #: True: the file is in this repository (tests/data/traces), not ../shared
    in_repo: bool = False


#: Shared drive logs with handoffs (see each folder's SOURCES.md).
LOGS = {
    "ucc": DriveLog(
        "ucc",
        "cellular_5g_ucc_driving/B_2020.02.14_12.58.17.csv",
        "UCC 5G dataset (Raca et al., MMSys 2020), operator B, Cork: 16.6 min drive, "
        "mostly HSPA+ (652 of 960 rows, the closest to the seed's 3G), 13 cell changes",
    ),
    "imc23": DriveLog(
        "imc23",
        "cellular_handover_logs_imc23/lv_to_slc__12041FDD4002ET_1660105596.9522562.out",
        "IMC'23 (Ghoshal et al.), T-Mobile LTE near Salt Lake City: 11.3 min, "
        "RSRP -117..-63 dBm (the widest range of the three phones), 21 PCI changes",
    ),
    "feup": DriveLog(
        "feup",
        "wifi_vehicular_feup/final-exp-log.csv",
        "FEUP vehicular 802.11n (adamiaonr/wifi-vehicles, CC BY 4.0): virtual client roaming "
        "over 4 APs by RSSI with 5 dB hysteresis (synthetic handoffs between measured APs)",
    ),
    # In-repo excerpt (300 rows of the UCC 2019-12-14 log) so --quick runs without ../shared.
    "ucc-excerpt": DriveLog(
        "ucc-excerpt",
        "cellular_5g_ucc_driving/B_2019.12.14_10.16.30.rows450-749.csv",
        "UCC operator B 2019-12-14, rows 450-749 (5 min, 5G/LTE/HSPA+), in tests/data/traces",
        in_repo=True,
    ),
}
FULL_LOGS = ["ucc", "imc23", "feup"]
QUICK_LOGS = ["ucc-excerpt"]
ALGORITHMS = ["cubic", "veno", "westwood", "reno", "bbr"]

#: Scenario parameters and where they come from.
DEFAULTS = {
    # Seed 003 §5.1: each drive took 600-700 s.
    "duration_s": 600.0,
    # Internet path from the fixed server (agni.iitd.ac.in) to the operator's
    # core: assumption. 100 Mb/s never limits; 40 ms one way plus 20 ms on
    # the radio gives a 120 ms base RTT, inside the range of the IMC'23 logs'
    # 200-ms pings (median RTT 75.6 / 94.7 / 111 ms for the three operators,
    # ../shared/traces/cellular_handover_logs_imc23/SOURCES.md).
    "wired_rate": "100Mbps",
    "wired_delay": "40ms",
    # The server's own interface queue: Linux's default txqueuelen of 1000
    # packets. A shallower first hop drops the line-rate burst Westwood+
    # sends when it raises cwnd to BWE x RTTmin at the end of a recovery
    # (tcp_westwood.c, CA_EVENT_COMPLETE_CWR), a loss the radio-only drop
    # counts would hide (crates/sim/tests/cc_sanity.rs shows the effect).
    "wired_queue_packets": 1000,
    "radio_delay": "20ms",
    # The uplink carries only ACKs; 2 Mb/s (HSUPA-class) never limits them.
    "uplink_rate": "2Mbps",
    # Base-station (RNC/eNodeB) buffer, 200 packets = 300 KB. Cellular
    # buffers are large (Jiang et al., "Tackling Bufferbloat in 3G/4G
    # Networks", IMC 2012, measured RTTs of seconds); 200 packets is a
    # conservative choice that still lets a bulk flow overflow it.
    "queue_packets": 200,
    # Sender as Linux: MSS 1448 (1500-byte MTU with timestamps), RTO floor
    # TCP_RTO_MIN = 200 ms (include/net/tcp.h), buffers at the tcp_wmem /
    # tcp_rmem maxima of Linux 3.16 (4 MiB / 6 MiB, the seed's kernel).
    "mss": 1448,
    "min_rto": "200ms",
    # Linux's RTO estimator (tcp_rtt_estimator: RTO >= SRTT + 200 ms, timer
    # restarted when the head is retransmitted), not RFC 6298's: behind a
    # full 200-packet buffer the RFC timer fires spuriously.
    "rto_timer": "linux",
    "snd_buf": 4 * 1024 * 1024,
    "rcv_buf": 6 * 1024 * 1024,
    # 10 ms sampling of cwnd/ssthresh (an RTT is >= 120 ms).
    "series_interval": "10ms",
}

#: The seed's table (KB/s and handoffs per drive), §5.1 and §5.2.
SEED = {
    "cubic": {"p1": 49.0, "p2": 80.0, "p1_handoffs": 6, "p2_handoffs": 15},
    "veno": {"p1": 59.6, "p2": 196.0, "p1_handoffs": 6, "p2_handoffs": 14},
    "westwood": {"p1": 55.0, "p2": 195.0, "p1_handoffs": 17, "p2_handoffs": 13},
}


class StudyError(Exception):
    """Bad study arguments (exit status 2)."""


def traces_dir(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    env = os.environ.get("AIRTCP_TRACES")
    if env:
        return Path(env)
    return REPO.parent / "shared" / "traces"


def log_path(log: DriveLog, traces: Path) -> Path:
    p = Path(log.rel)
    if p.is_absolute():
        return p
    base = REPO / "tests" / "data" / "traces" if log.in_repo else traces
    return base / p


def resolve_logs(names: list[str], traces: Path) -> list[tuple[DriveLog, Path]]:
    out = []
    for n in names:
        if n in LOGS:
            log = LOGS[n]
        elif os.path.isfile(n):
            log = DriveLog(Path(n).stem, os.path.abspath(n), f"drive log {n}")
        else:
            raise StudyError(f"unknown drive log {n!r} (known: {', '.join(LOGS)}, or a file path)")
        path = log_path(log, traces)
        if not path.is_file():
            raise StudyError(f"drive log {n!r} not found at {path} (set --traces or AIRTCP_TRACES)")
        out.append((log, path))
    return out


#: Capacity ends of the default mappings (crates/sim/src/trace/mapping.rs):
#: Shannon over 10 MHz (cellular), 802.11n MCS 0 / MCS 7 PHY rates (Wi-Fi).
SHANNON_BANDWIDTH_HZ = 10e6
WIFI_CAP_LO_BPS, WIFI_CAP_HI_BPS = 6.5e6, 65e6


def capacity_keys(log_file: Path, scale: float) -> dict:
    """`[links.trace.capacity]` that multiplies the default mapping's
    capacity by `scale` (both mappings are linear in these parameters)."""
    if scale == 1.0:
        return {}
    with open(log_file, encoding="utf-8", errors="replace") as fh:
        wifi = fh.readline().startswith("senderId,receiverId,systime")
    if wifi:
        return {"capacity": {"kind": "linear", "cap_lo_bps": WIFI_CAP_LO_BPS * scale, "cap_hi_bps": WIFI_CAP_HI_BPS * scale}}
    return {"capacity": {"kind": "shannon", "bandwidth_hz": SHANNON_BANDWIDTH_HZ * scale}}


def scenario(
    log_file: Path, cc: str, duration_s: float, handoff_drops: bool, extra_keys=(), capacity_scale: float = 1.0
) -> dict:
    """The scenario of one run, as the dict ``airtcp.run`` takes."""
    d = DEFAULTS
    trace = {"kind": "drive", "file": str(log_file), "handoff_drops": handoff_drops}
    trace.update(dict(extra_keys))
    trace.update(capacity_keys(log_file, capacity_scale))
    return {
        "sim": {"duration": f"{duration_s:g}s", "series_interval": d["series_interval"]},
        "nodes": [{"name": "server"}, {"name": "bs"}, {"name": "mobile"}],
        "links": [
            {
                "name": "internet",
                "a": "server",
                "b": "bs",
                "rate": d["wired_rate"],
                "delay": d["wired_delay"],
                "queue_packets": d["wired_queue_packets"],
            },
            {
                "name": "radio",
                "a": "bs",
                "b": "mobile",
                "delay": d["radio_delay"],
                "queue_packets": d["queue_packets"],
                "rate_ba": d["uplink_rate"],
                "trace_ab": trace,
            },
        ],
        "flows": [
            {
                "name": "iperf",
                "from": "server",
                "to": "mobile",
                "app": "bulk",
                "tcp": {
                    "cc": cc,
                    "mss": d["mss"],
                    "min_rto": d["min_rto"],
                    "rto_timer": d["rto_timer"],
                    "snd_buf": d["snd_buf"],
                    "rcv_buf": d["rcv_buf"],
                },
            }
        ],
    }


def classify_recoveries(ts) -> dict:
    """Entries into Recovery (ca_state 3) with ssthresh / cwnd just before:
    ~4/5 is Veno's "random loss" cut, ~1/2 the Reno/"congestive" cut (Cubic's
    is 717/1024 = 0.70; tcp_veno.c, tcp_cubic.c). Westwood+ takes Reno's
    ssthresh on entry and applies its real cut (BWE x RTTmin) when recovery
    completes, so its entries always read as 1/2 here."""
    # The column holds names ("Recovery") or codes (3, Linux TCP_CA_Recovery).
    st = [x in (3, "Recovery") for x in ts["ca_state"].tolist()]
    cw = ts["cwnd"].to_numpy()
    ss = ts["ssthresh"].to_numpy()
    ratios = []
    for i in range(1, len(st)):
        if st[i] and not st[i - 1] and cw[i - 1] > 0 and ss[i] < INFINITE_SSTHRESH:
            ratios.append(ss[i] / cw[i - 1])
    return {
        "recoveries": len(ratios),
        "cuts_4_5": sum(1 for r in ratios if 0.75 <= r <= 0.85),
        "cuts_1_2": sum(1 for r in ratios if 0.45 <= r <= 0.55),
        "cut_ratio_mean": statistics.fmean(ratios) if ratios else math.nan,
    }


def metrics(result) -> dict:
    f = result.flows[0]
    link = result.summary["links"][1]
    ab, tr = link["ab"], link["trace_ab"]
    m = {
        "goodput_kBps": f["goodput_bps"] / 8 / KB,
        "handoffs": tr["handoffs"],
        "timeouts": f["timeouts"],
        "retransmissions": f["retransmissions"],
        "fast_recoveries": f["fast_recoveries"],
        "queue_drops": ab["queue_drops"],
        "wired_queue_drops": result.summary["links"][0]["ab"]["queue_drops"],
        "loss_drops": ab["loss_drops"],
        "outage_drops": ab["outage_drops"],
        "capacity_kBps": tr["mean_capacity_bps"] / 8 / KB,
        "srtt_mean_ms": (f["srtt_mean_s"] or math.nan) * 1000,
        "run_wall_s": result.run_wall_s,
    }
    m.update(classify_recoveries(result.timeseries(0)))
    return m


def _mean_sd(xs: list[float]) -> tuple[float, float]:
    xs = [x for x in xs if not (isinstance(x, float) and math.isnan(x))]
    if not xs:
        return math.nan, math.nan
    return statistics.fmean(xs), (statistics.stdev(xs) if len(xs) > 1 else 0.0)


TABLE_METRICS = [
    "goodput_kBps",
    "handoffs",
    "timeouts",
    "retransmissions",
    "fast_recoveries",
    "cuts_4_5",
    "cuts_1_2",
    "queue_drops",
    "wired_queue_drops",
    "loss_drops",
    "outage_drops",
    "capacity_kBps",
    "srtt_mean_ms",
]


def aggregate(runs: list[dict], logs: list[str], algs: list[str]) -> list[dict]:
    rows = []
    for log in logs:
        for alg in algs:
            rs = [r for r in runs if r["log"] == log and r["algorithm"] == alg]
            if not rs:
                continue
            row = {"log": log, "algorithm": alg, "seeds": len(rs)}
            for k in TABLE_METRICS:
                mean, sd = _mean_sd([r[k] for r in rs])
                row[f"{k}_mean"] = mean
                row[f"{k}_sd"] = sd
            seed = SEED.get(alg, {})
            row["seed_phase1_kBps"] = seed.get("p1", "")
            row["seed_phase2_kBps"] = seed.get("p2", "")
            row["seed_phase1_handoffs"] = seed.get("p1_handoffs", "")
            row["seed_phase2_handoffs"] = seed.get("p2_handoffs", "")
            rows.append(row)
    return rows


def _write_csv(path: Path, rows: list[dict]) -> None:
    if not rows:
        return
    cols = list(rows[0])
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})


def run_study(
    out: Path,
    logs: list[tuple[DriveLog, Path]],
    algs: list[str],
    seeds: int,
    duration_s: float,
    handoff_drops: bool,
    jobs: int = 1,
    plots: bool = True,
    quiet: bool = False,
    capacity_scale: float = 1.0,
) -> dict:
    """Run every (log, algorithm, seed), write the outputs, return a summary."""
    from .. import run

    out.mkdir(parents=True, exist_ok=True)
    (out / "scenarios").mkdir(exist_ok=True)
    if plots:
        (out / "plots").mkdir(exist_ok=True)
    tasks = []
    for log, path in logs:
        for alg in algs:
            sc = scenario(path, alg, duration_s, handoff_drops, log.keys, capacity_scale)
            with open(out / "scenarios" / f"{log.name}_{alg}.json", "w") as fh:
                json.dump(sc, fh, indent=1)
            for seed in range(1, seeds + 1):
                tasks.append((log, alg, seed, sc))

    plotted: list[str] = []

    def one(task):
        log, alg, seed, sc = task
        res = run(sc, seed=seed)
        m = metrics(res)
        m.update({"log": log.name, "algorithm": alg, "seed": seed})
        pngs = []
        if plots and seed == 1:
            from .drive_test_plots import plot_run

            pngs = plot_run(res, out / "plots", f"{log.name}_{alg}", f"{alg} on {log.name} (seed 1)")
        return m, pngs

    t0 = time.perf_counter()
    runs: list[dict] = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        for i, (m, pngs) in enumerate(ex.map(one, tasks), 1):
            runs.append(m)
            plotted.extend(pngs)
            if not quiet:
                print(
                    f"[{i}/{len(tasks)}] {m['log']} {m['algorithm']} seed {m['seed']}: "
                    f"{m['goodput_kBps']:.1f} KB/s, {m['timeouts']} timeouts",
                    file=sys.stderr,
                )
    wall = time.perf_counter() - t0
    key = ["log", "algorithm", "seed"]
    runs_rows = [{**{k: r[k] for k in key}, **{k: v for k, v in r.items() if k not in key}} for r in runs]
    _write_csv(out / "runs.csv", runs_rows)
    table = aggregate(runs, [lg.name for lg, _ in logs], algs)
    _write_csv(out / "table.csv", table)
    from .drive_test_report import write_report

    write_report(
        out / "report.md",
        table=table,
        runs=runs,
        logs=logs,
        algs=algs,
        seeds=seeds,
        duration_s=duration_s,
        handoff_drops=handoff_drops,
        wall_s=wall,
        jobs=jobs,
        plots=sorted(os.path.relpath(p, out) for p in plotted),
        capacity_scale=capacity_scale,
    )
    return {"runs": len(runs), "wall_s": wall, "table": table}


def cli(args) -> int:
    quick = bool(args.quick)
    seeds = args.seeds if args.seeds is not None else (2 if quick else 10)
    duration = args.duration if args.duration is not None else (60.0 if quick else DEFAULTS["duration_s"])
    names = args.logs or (QUICK_LOGS if quick else FULL_LOGS)
    algs = args.algorithms or ALGORITHMS
    if seeds < 1:
        print("airtcp: --seeds must be at least 1", file=sys.stderr)
        return 2
    if not args.capacity_scale > 0:
        print("airtcp: --capacity-scale must be positive", file=sys.stderr)
        return 2
    if duration <= 0:
        print("airtcp: --duration must be positive", file=sys.stderr)
        return 2
    from .._errors import ScenarioError, SimError

    try:
        logs = resolve_logs(names, traces_dir(args.traces))
        s = run_study(
            Path(args.out),
            logs,
            algs,
            seeds,
            duration,
            handoff_drops=args.handoff_mode == "drop",
            jobs=args.jobs,
            plots=not args.no_plots,
            quiet=args.quiet,
            capacity_scale=args.capacity_scale,
        )
    except StudyError as e:
        print(f"airtcp: {e}", file=sys.stderr)
        return 2
    except ScenarioError as e:
        print(str(e), file=sys.stderr)
        return 2
    except SimError as e:
        print(f"airtcp: run failed: {e}", file=sys.stderr)
        return 1
    if not args.quiet:
        print(f"{s['runs']} runs in {s['wall_s']:.1f} s -> {args.out}/table.csv, report.md")
    return 0
