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

    server --100 Mb/s, 40 ms-- bs ==radio: trace uplink, 2 Mb/s downlink (ACKs), 20 ms== mobile

and one bulk flow mobile -> server per run: an upload, as the seed's iperf
client ran on the laptop (``--direction download`` turns it round). The
report has three variants of every run: the logs' mapped capacity, the same
at the seed's 3G rates, and the seed rates with random loss from the signal. Every parameter is in
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

from pathlib import Path

from ...runner import study as runner
from ...runner.plan import Plan, grid
from .setup import (
    ALGORITHMS,
    DEFAULTS,
    DIRECTIONS,
    SEED_RATE_SCALE,
    DEFAULT_STACKS,
    STACKS,
    FULL_LOGS,
    QUICK_LOGS,
    DriveLog,
    StudyError,
    resolve_logs,
    scenario,
    traces_dir,
)
from .measure import aggregate, describe, keep_run, measure


def add_arguments(p) -> None:
    """Arguments of ``airtcp reproduce drive-test``."""
    runner.add_common_arguments(
        p,
        quick="short version (60 s, 2 seeds, one in-repo log excerpt, the seed-rate variants)",
        seeds="seeds 1..N per algorithm and log (default 10; quick 2)",
    )
    p.add_argument("--logs", nargs="+", metavar="LOG", help="log names (ucc, imc23, feup, ucc-excerpt) or drive-log paths")
    p.add_argument("--algorithms", nargs="+", metavar="CC", help="congestion controls (default cubic veno westwood reno bbr)")
    p.add_argument("--duration", type=float, metavar="S", help="simulated seconds per run (default 600; quick 60)")
    p.add_argument(
        "--handoff-mode",
        choices=["drop", "stall"],
        default="drop",
        help="drop: frames ending in a handoff outage are lost (default); stall: the radio queue waits",
    )
    p.add_argument(
        "--capacity-scale",
        type=float,
        default=None,
        metavar="X",
        help="run only this capacity scale (e.g. 0.0625 for the seed's 3G rates) instead of the default variants",
    )
    p.add_argument(
        "--direction",
        choices=list(DIRECTIONS),
        default="upload",
        help="upload: mobile -> server, as the seed's iperf client on the laptop (default); download: server -> mobile",
    )
    p.add_argument(
        "--variants",
        nargs="+",
        choices=list(VARIANTS),
        metavar="V",
        help=f"runs of the report (default all: {' '.join(VARIANTS)}; ignored with --capacity-scale)",
    )
    p.add_argument(
        "--stacks",
        nargs="+",
        choices=list(STACKS),
        metavar="STACK",
        help=f"TCP stacks every run is repeated on (default {' '.join(DEFAULT_STACKS)}: the seed's kernel and today's; "
        "linux-rack-off adds today's kernel without RACK)",
    )
    p.add_argument("--traces", metavar="DIR", help="shared traces directory (default $AIRTCP_TRACES or ../shared/traces)")


#: The report's variants: (capacity scale, random-loss arm, what it is).
VARIANTS = {
    "full-rate": (1.0, False, "the logs' mapped capacity"),
    "seed-rate": (SEED_RATE_SCALE, False, f"capacity x{SEED_RATE_SCALE:g}: the seed's 3G rates"),
    "random-loss": (SEED_RATE_SCALE, True, f"capacity x{SEED_RATE_SCALE:g} and random loss of 0.1-3 % from the signal (stated mapping)"),
}


#: --quick: the two seed-rate variants (full rate is the slow one).
QUICK_VARIANTS = ["seed-rate", "random-loss"]
#: --quick: the seed's kernel alone (the linux arm doubles the runs; the
#: report's stack section is tested on its own).
QUICK_STACKS = ["linux-3.16"]


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
    capacity_scale: float | None = None,
    direction: str = "upload",
    variants: list[str] | None = None,
    stacks: list[str] | None = None,
) -> dict:
    """Run every (variant, log, algorithm, seed), write the outputs, return a
    summary. `capacity_scale` runs that one scale alone (variant "custom")."""
    import json

    if capacity_scale is not None:
        chosen = {"custom": (capacity_scale, False, f"capacity x{capacity_scale:g}")}
    else:
        chosen = {v: VARIANTS[v] for v in (variants or list(VARIANTS))}
    stacks = list(stacks or DEFAULT_STACKS)
    paths = {log.name: (log, path) for log, path in logs}

    def build(r: dict) -> dict:
        scale, loss, _ = chosen[r["variant"]]
        log, path = paths[r["log"]]
        return scenario(path, r["algorithm"], duration_s, handoff_drops, log.keys, scale, direction=direction, random_loss=loss, stack=r["stack"])

    points = grid(stack=stacks, variant=list(chosen), log=[log.name for log, _ in logs], algorithm=algs)
    plan = Plan(build)
    # Plots: seed 1 of the first variant on the first stack.
    plan.add(points, seeds, keep=lambda r: plots and r["seed"] == 1 and r["variant"] == next(iter(chosen)) and r["stack"] == stacks[0])
    scenarios = {"_".join(p.values()): build(p) for p in points}

    table: list[dict] = []

    def write(d: Path, sr: runner.StudyRun) -> None:
        from .report import write_report

        (d / "scenarios").mkdir()
        for name, sc in scenarios.items():
            with open(d / "scenarios" / f"{name}.json", "w") as fh:
                json.dump(sc, fh, indent=1)
        if plots:
            (d / "plots").mkdir(exist_ok=True)
        runner.write_csv(d / "runs.csv", sr.runs)
        for stack in stacks:
            for v in chosen:
                rs = [r for r in sr.runs if r["variant"] == v and r["stack"] == stack]
                for row in aggregate(rs, [lg.name for lg, _ in logs], algs):
                    table.append({"stack": stack, "variant": v, **row})
        runner.write_csv(d / "table.csv", table)
        write_report(
            d / "report.md",
            table=table,
            runs=sr.runs,
            logs=logs,
            algs=algs,
            seeds=seeds,
            duration_s=duration_s,
            handoff_drops=handoff_drops,
            wall_s=sr.wall_s,
            jobs=jobs,
            plots=sorted(str(p.relative_to(d)) for pngs in sr.kept for p in pngs),
            variants={v: (scale, loss, about) for v, (scale, loss, about) in chosen.items()},
            direction=direction,
            stacks=stacks,
        )

    sr = runner.run_study(out, plan.tasks, measure, write, jobs=jobs, quiet=quiet, describe=describe, keep=keep_run)
    return {"runs": len(sr.runs), "wall_s": sr.wall_s, "table": table}


def main(args) -> int:
    """The study with parsed arguments (the runner has checked the common ones)."""
    quick = bool(args.quick)
    seeds = runner.seeds_of(args, quick=2, full=10)
    duration = args.duration if args.duration is not None else (60.0 if quick else DEFAULTS["duration_s"])
    names = args.logs or (QUICK_LOGS if quick else FULL_LOGS)
    variants = args.variants or (QUICK_VARIANTS if quick else None)
    algs = args.algorithms or ALGORITHMS
    if args.capacity_scale is not None and not args.capacity_scale > 0:
        raise StudyError("--capacity-scale must be positive")
    if duration <= 0:
        raise StudyError("--duration must be positive")
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
        direction=args.direction,
        variants=variants,
        stacks=args.stacks or (QUICK_STACKS if quick else None),
    )
    if not args.quiet:
        print(f"{s['runs']} runs in {s['wall_s']:.1f} s -> {args.out}/table.csv, report.md")
    return 0
