"""What the drive-test study measures: the metrics of one run (goodput,
handoffs, timeouts, the radio link's drops by cause, each entry into fast
recovery classified by ssthresh / cwnd), the plots of a kept run, the
progress line of a run, and the per-log table (mean and sd over seeds)."""

from __future__ import annotations

from ...metrics import recovery_cuts
import math
import statistics

from ..reporting import mean_sd
from .setup import KB, SEED

def classify_recoveries(ts) -> dict:
    """Entries into Recovery (ca_state 3) with ssthresh / cwnd just before:
    ~4/5 is Veno's "random loss" cut, ~1/2 the Reno/"congestive" cut (Cubic's
    is 717/1024 = 0.70; tcp_veno.c, tcp_cubic.c). Westwood+ takes Reno's
    ssthresh on entry and applies its real cut (BWE x RTTmin) when recovery
    completes, so its entries always read as 1/2 here."""
    ratios = recovery_cuts(ts)
    return {
        "recoveries": len(ratios),
        "cuts_4_5": sum(1 for r in ratios if 0.75 <= r <= 0.85),
        "cuts_1_2": sum(1 for r in ratios if 0.45 <= r <= 0.55),
        "cut_ratio_mean": statistics.fmean(ratios) if ratios else math.nan,
    }


def metrics(result) -> dict:
    f = result.flows[0]
    link = result.summary["links"][1]
    # The drive log drives whichever radio direction the data takes.
    key = "ab" if "trace_ab" in link else "ba"
    ab, tr = link[key], link[f"trace_{key}"]
    m = {
        "goodput_kBps": f["goodput_bps"] / 8 / KB,
        "handoffs": tr["handoffs"],
        "timeouts": f["timeouts"],
        "retransmissions": f["retransmissions"],
        "fast_recoveries": f["fast_recoveries"],
        "queue_drops": ab["queue_drops"],
        "wired_queue_drops": result.summary["links"][0][key]["queue_drops"],
        "loss_drops": ab["loss_drops"],
        "outage_drops": ab["outage_drops"],
        "capacity_kBps": tr["mean_capacity_bps"] / 8 / KB,
        "srtt_mean_ms": (f["srtt_mean_s"] or math.nan) * 1000,
        "run_wall_s": result.run_wall_s,
    }
    m.update(classify_recoveries(result.timeseries(0)))
    return m


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
                mean, sd = mean_sd([r[k] for r in rs])
                row[f"{k}_mean"] = mean
                row[f"{k}_sd"] = sd
            seed = SEED.get(alg, {})
            row["seed_phase1_kBps"] = seed.get("p1", "")
            row["seed_phase2_kBps"] = seed.get("p2", "")
            row["seed_phase1_handoffs"] = seed.get("p1_handoffs", "")
            row["seed_phase2_handoffs"] = seed.get("p2_handoffs", "")
            rows.append(row)
    return rows


def measure(task, result) -> dict:
    return metrics(result)


def keep_run(task, result, d) -> list:
    """The seed's two plots of a kept run (seed 1 of the first variant and
    stack), written into the study's ``plots/``."""
    from .plots import plot_run

    log, alg = task.labels["log"], task.labels["algorithm"]
    (d / "plots").mkdir(exist_ok=True)
    return plot_run(result, d / "plots", f"{log}_{alg}", f"{alg} on {log} (seed 1)")


def describe(m: dict) -> str:
    return f"{m['stack']} {m['variant']} {m['log']} {m['algorithm']} seed {m['seed']}: {m['goodput_kBps']:.1f} KB/s, {m['timeouts']} timeouts"
