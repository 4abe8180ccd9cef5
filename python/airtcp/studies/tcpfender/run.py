"""Study ``tcpfender``: seed 002 (TCPFender: TCP over MORE-style
opportunistic forwarding with network coding, ns-2) in simulation.

An 8-node 802.11 mesh at 1 Mb/s with per-link loss rates of 10-60 %
(:mod:`.setup`; the seed's Fig. 1 is not in its text, so the topology
is ours and drawn in the report), source and destination at opposite ends,
one bulk FTP-like TCP flow for 100 s, 10 seeds per arm. Reproduces Fig. 2
(packets delivered to TCP against time, every run), Fig. 3 (congestion
window), Figs. 4-5 (per-segment delay against sequence number) and the
seed's headline, TCPFender's throughput gain over TCP/IP (about 80 %).

Outputs in ``--out``: ``runs.csv`` (one row per run), ``table.csv`` (per
arm: mean and 95 % interval), ``report.md``, ``scenarios/*.json`` and
``plots/*.png``.
"""

from __future__ import annotations

from pathlib import Path

from ...runner import study as runner
from ...runner.plan import Plan, grid
from .measure import aggregate, describe, keep_run, measure
from .setup import ARMS, CODED_DEFAULTS, DEFAULT_STACK, FULL_DURATION_S, QUICK_DURATION_S, STACKS, batches_spanned, measured_delivery, scenario

FULL_SEEDS = 10
QUICK_SEEDS = 2
#: Beyond the seed: TCPFender's batch size and pipelining depth (seeds 1..SWEEP_SEEDS each).
#: Depths run from 1 to the most batches a 20-packet window can span
#: (``batches_spanned``): a deeper pipeline never holds more batches, so
#: running it would repeat the same simulation under another label.
SWEEP_BETAS = (16, 32, 50)
SWEEP_SEEDS = 3
#: Sensitivity: every arm without RTS/CTS (seeds 1..SENS_SEEDS).
SENS_SEEDS = 5
#: Beyond the seed: every link's loss rate scaled (the liveness check).
LOSS_SCALES = (0.0, 0.5)
LOSS_ARMS = ("tcpip", "tcpfender", "tcpfender-literal")
#: The `linux` stack again with one behaviour switched off, to measure what
#: makes the two stacks' results differ: name -> (what, [flows.tcp] keys,
#: arms). Under TCPFender most module ACKs die on four lossy unicast hops,
#: so each one that arrives acknowledges many packets: Linux's slow start
#: adds one segment per packet acknowledged, ns-2's (and RFC 5681's) one
#: per ACK. `cc = "newreno"` is the RFC's per-ACK rule on the Linux
#: endpoint; `ns2-start` adds ns-2's initial window and initial RTO to it.
SWITCHES: dict[str, tuple[str, dict, tuple[str, ...]]] = {
    "per-packet-growth": ("growth per packet acked (per ACK instead)", {"cc": "newreno"}, tuple(ARMS)),
    "ns2-start": ("growth per packet acked, IW 10, 1 s initial RTO (ns-2's per ACK, 2, 3 s instead)", {"cc": "newreno", "initial_cwnd": 2, "initial_rto": "3s"}, tuple(ARMS)),
}


def add_arguments(p) -> None:
    """Arguments of ``airtcp reproduce tcpfender``."""
    runner.add_common_arguments(
        p,
        quick=f"short version: {QUICK_DURATION_S:g}-s runs, {QUICK_SEEDS} seeds per arm",
        seeds=f"seeds 1..N per arm (default {FULL_SEEDS}; quick {QUICK_SEEDS})",
    )
    p.add_argument("--arms", nargs="+", choices=list(ARMS), metavar="ARM", help=f"arms to run (default all: {' '.join(ARMS)})")
    p.add_argument("--no-sweep", action="store_true", help="skip the parts beyond the seed: the sweep of β and pipelining depth, the arms without RTS/CTS and the loss scales (always skipped with --quick)")


# --- the study ---------------------------------------------------------------------------


def sweep_points() -> list[tuple[int, int]]:
    """(β, depth) of the sweep: every depth a 20-packet window can use
    (a deeper one would hold no more batches: the same simulation)."""
    return [(beta, d) for beta in SWEEP_BETAS for d in range(1, batches_spanned(beta) + 1)]


def build_tasks(arms, seeds: int, duration_s: float, plots: bool, delivery, sweep: bool) -> list:
    """The main runs (every arm at its defaults with RTS/CTS on the seed's
    stack, seeds 1..N, kept for the plots), the same on `linux` (the
    sensitivity stack), the `linux` runs again with each behaviour of
    :data:`SWITCHES` off (what makes the stacks differ), and, with `sweep`,
    the parts beyond the seed on every stack: every arm without RTS/CTS,
    TCPFender over β and depth, and three arms with every link's loss rate
    scaled down."""

    def kept(r: dict) -> bool:
        return plots and r["part"] == "main"

    def build(r: dict) -> dict:
        extra = SWITCHES[r["switch"]][1] if r["switch"] else None
        return scenario(r["arm"], duration_s, delivery=delivery, beta=r["beta"], pipeline=r["pipeline"], rts=r["rts"], loss_scale=r["loss_scale"], series=kept(r) or r["part"] == "loss", stack=r["stack"], tcp_extra=extra)

    def coded(i: int):
        """A coded arm's default batch size (0) or depth (1); None for the others."""
        return lambda p: CODED_DEFAULTS.get(p["arm"], (None, None))[i]

    def depths(p: dict) -> list[int]:
        return [d for b, d in sweep_points() if b == p["beta"]]

    def points(part, arms, *, stack=DEFAULT_STACK, switch="", beta=coded(0), pipeline=coded(1), rts=True, loss_scale=1.0):
        return grid(part=part, stack=stack, switch=switch, arm=arms, beta=beta, pipeline=pipeline, rts=rts, loss_scale=loss_scale)

    plan = Plan(build)
    plan.add(points("main", arms), seeds, keep=kept)
    for stack in (s for s in STACKS if s != DEFAULT_STACK):
        plan.add(points("stack", arms, stack=stack), seeds)
    for switch, (_, _, switch_arms) in SWITCHES.items():
        plan.add(points("switch", [a for a in switch_arms if a in arms], stack="linux", switch=switch), seeds)
    if sweep:
        # The parts beyond the seed on every stack: a claim that holds on
        # ns-2's agents only is reported as such.
        for stack in STACKS:
            plan.add(points("no-rts", arms, stack=stack, rts=False), SENS_SEEDS)
            if "tcpfender" in arms:
                plan.add(points("sweep", "tcpfender", stack=stack, beta=SWEEP_BETAS, pipeline=depths), SWEEP_SEEDS)
            plan.add(points("loss", [a for a in LOSS_ARMS if a in arms], stack=stack, loss_scale=LOSS_SCALES), SWEEP_SEEDS)
    return plan.tasks


def run_study(out: Path, arms, seeds: int, duration_s: float, *, quick: bool = False, sweep: bool = True, jobs: int = 1, plots: bool = True, quiet: bool = False) -> dict:
    import json

    coded = any(a in CODED_DEFAULTS for a in arms)
    delivery = measured_delivery(duration_s) if coded else None
    tasks = build_tasks(list(arms), seeds, duration_s, plots, delivery, sweep)
    table: list[dict] = []

    def write(d: Path, sr: runner.StudyRun) -> None:
        from .report import write_report

        (d / "scenarios").mkdir()
        for arm in arms:
            (d / "scenarios" / f"{arm}.json").write_text(json.dumps(scenario(arm, duration_s, delivery=delivery), indent=1) + "\n")
        runner.write_csv(d / "runs.csv", sr.runs)
        table.extend(aggregate(sr.runs))
        runner.write_csv(d / "table.csv", table)
        pngs = []
        if plots:
            from .plots import plot_all

            (d / "plots").mkdir()
            pngs = plot_all(d / "plots", sr.kept)
        write_report(d / "report.md", sr, table, arms=list(arms), seeds=seeds, duration_s=duration_s, quick=quick, delivery=delivery, plots=[str(p.relative_to(d)) for p in pngs], switches=SWITCHES)

    sr = runner.run_study(out, tasks, measure, write, jobs=jobs, quiet=quiet, describe=describe, keep=keep_run)
    return {"runs": len(tasks), "wall_s": sr.wall_s, "table": table}


def main(args) -> int:
    """The study with parsed arguments (the runner has checked the common ones)."""
    quick = bool(args.quick)
    seeds = runner.seeds_of(args, quick=QUICK_SEEDS, full=FULL_SEEDS)
    arms = list(args.arms) if args.arms else list(ARMS)
    duration = QUICK_DURATION_S if quick else FULL_DURATION_S
    sweep = not (quick or args.no_sweep)
    s = run_study(Path(args.out), arms, seeds, duration, quick=quick, sweep=sweep, jobs=args.jobs, plots=not args.no_plots, quiet=args.quiet)
    if not args.quiet:
        print(f"{s['runs']} runs in {s['wall_s']:.1f} s -> {args.out}/table.csv, report.md")
    return 0
