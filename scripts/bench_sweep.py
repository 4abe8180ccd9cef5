#!/usr/bin/env python3
"""Benchmark of `airtcp.sweep` against a plain `airtcp.run` loop.

    .venv/bin/python scripts/bench_sweep.py [--runs 1000] [--duration 60s] [--workers 1,2] [--threads]

The same N runs of scenarios/bulk-lossy.toml (4 loss rates x N/4 seeds, the
scenario's 60 s simulated by default) are run

* in a loop of ``airtcp.run`` (the summary of each kept, nothing written),
* by ``airtcp.sweep`` on a local Dask cluster of 1, 2, ... worker processes
  (and with ``--threads`` on 2 threads of the client process),

each configuration in a fresh Python process so that its peak resident
memory (``getrusage``: the client, which also hosts the local cluster's
scheduler; the workers are separate processes) is its own. Reported: wall
time of the whole call (imports, validation, cluster start-up, runs,
writing runs.parquet/csv and the aggregate, cluster shut-down), the runs
phase alone (first task submitted to last row written), the fixed cost (the
difference), the speed-up against the loop, the per-run overhead
((sweep wall x workers - loop wall) / N: the extra core time per run, fixed
costs included) and the client's peak RSS. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCENARIO = REPO / "scenarios" / "bulk-lossy.toml"
RATES = ["0.01", "0.02", "0.05", "0.1"]


def plan(n: int) -> tuple[list[str], int]:
    per = max(1, n // len(RATES))
    return RATES, per


def child(mode: str, n: int, duration: str, workers: int, out: str) -> dict:
    import airtcp

    rates, seeds = plan(n)
    t0 = time.perf_counter()
    if mode == "loop":
        rows = []
        for p in rates:
            for s in range(1, seeds + 1):
                r = airtcp.run(SCENARIO, seed=s, overrides={"sim.duration": duration, "links.1.loss_ab.p": p})
                rows.append(r.summary["flows"][0]["goodput_bps"])
        runs_s = time.perf_counter() - t0
        done = len(rows)
    else:
        from airtcp.runner.sweep import run_sweep

        res = run_sweep(
            SCENARIO,
            [f"links.1.loss_ab.p={','.join(rates)}"],
            out=out,
            seeds=seeds,
            overrides={"sim.duration": duration},
            jobs=workers,
            scheduler="threads" if mode == "threads" else "local",
        )
        runs_s = res.runs_s
        done = res.ran
        assert res.failed == 0
    wall = time.perf_counter() - t0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"mode": mode, "workers": workers, "runs": done, "wall_s": wall, "runs_s": runs_s, "rss_mb": rss_mb}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--duration", default="60s", help="simulated time per run (default 60s)")
    ap.add_argument("--workers", default="1,2", help="local cluster sizes to measure (default 1,2)")
    ap.add_argument("--threads", action="store_true", help="also measure scheduler='threads' with 2 threads")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        w = int(a.workers)
        print(json.dumps(child(a.child, a.runs, a.duration, w, a.out)))
        return 0

    configs = [("loop", 1)] + [("local", int(w)) for w in a.workers.split(",")]
    if a.threads:
        configs.append(("threads", 2))
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-sweep-") as tmp:
        for mode, w in configs:
            out = os.path.join(tmp, f"{mode}{w}")
            cmd = [sys.executable, __file__, "--child", mode, "--runs", str(a.runs), "--duration", a.duration]
            cmd += ["--workers", str(w), "--out", out]
            got = subprocess.run(cmd, capture_output=True, text=True, check=True)
            r = json.loads(got.stdout.strip().splitlines()[-1])
            results.append(r)
            print(f"  {mode} x{w}: {r['wall_s']:.2f} s", file=sys.stderr, flush=True)
    loop = results[0]
    n = loop["runs"]
    load = os.getloadavg()[0]
    print(f"{n} runs of bulk-lossy ({a.duration} simulated), {os.cpu_count()} cores, load average {load:.1f}\n")
    print(
        "| configuration | wall (s) | runs phase (s) | fixed cost (s) | speed-up vs loop "
        "| overhead per run (ms of core time) | client peak RSS (MB) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in results:
        name = {
            "loop": "`airtcp.run` loop",
            "local": f"`airtcp.sweep`, local cluster, {r['workers']} worker(s)",
            "threads": f"`airtcp.sweep`, {r['workers']} threads",
        }[r["mode"]]
        ov = "-" if r["mode"] == "loop" else f"{(r['wall_s'] * r['workers'] - loop['wall_s']) / n * 1e3:.2f}"
        print(
            f"| {name} | {r['wall_s']:.2f} | {r['runs_s']:.2f} | {r['wall_s'] - r['runs_s']:.2f} "
            f"| {loop['wall_s'] / r['wall_s']:.2f} | {ov} | {r['rss_mb']:.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
