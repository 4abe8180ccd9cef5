"""Study ``sdn-zwa``: seed 000 (Singh, Gupta, Verma, Pandey, "Improving
Performance of TCP for Wireless Network using SDN", ICDCN 2019) in
simulation.

The seed's controller freezes a TCP sender while its Wi-Fi receiver moves
between APs: it deletes the station's flows at disassociation, answers
every segment that reaches it with a zero-window ACK (ZWA), buffers them
and replays them after reassociation; a statistics module compares the old
AP's flow counters at disassociation (T0) and flow removal (T2) and falls
back to bare TCP when a segment slipped in between.

Here: ``scenarios/sdn-zwa.toml`` (:mod:`.setup`), arms bare TCP
(controller routing only), ZWA with the statistics module, ZWA without it,
and a no-roam reference. Three experiments as the seed's figures:

- Fig. 6: sender sequence traces of bare TCP, ZWA failing (statistics off,
  a segment between T0 and T2) and ZWA working; 2 hops, 1.5 s away.
- Fig. 7: utilisation (bytes delivered / the no-roam run's) and
  retransmissions against the disconnection period 1.5-6 s, 2 hops.
- Fig. 8: the sender's idle period after reassociation against the
  disconnection period, 3, 5 and 7 hops.

Outputs in ``--out``: ``runs.csv``, ``table.csv``, ``report.md``,
``plots/*.png``.
"""

from __future__ import annotations

from pathlib import Path

from ...runner import study as runner
from ...runner.plan import Plan, grid
from .measure import aggregate, describe, keep_run, measure
from .setup import (
    ARMS,
    FIG7_DISCONNECT,
    FIG8_HOPS,
    QUICK_DISCONNECT,
    QUICK_HOPS,
    SEED_STACK,
    STACKS,
    T0T2_MS,
    base,
    scenario,
)

#: Arms per experiment (Fig. 7 at 2 hops; Fig. 8 per hop count).
FIG7_ARMS = ["bare", "zwa", "zwa-nostats", "noroam", "freeze", "legacy", "mtcp", "bare-cubic-sack", "zwa-cubic-sack"]
FIG8_ARMS = ["bare", "zwa", "freeze", "legacy", "mtcp"]
#: The arms every other stack (STACKS beside the seed's) reruns: the seed's
#: own comparison, bare TCP against ZWA, with its reference and Fig. 6(b).
STACK_FIG7_ARMS = ["bare", "zwa", "zwa-nostats", "noroam"]
STACK_FIG8_ARMS = ["bare", "zwa"]
#: Statistics-module sweep: 2 hops, 2 s away, ZWA with statistics.
STATS_DISCONNECT = 2.0
QUICK_T0T2_MS = [10.0, 200.0]

FULL_SEEDS = 10
QUICK_SEEDS = 2
#: Fig. 6 runs: (label, arm, roam instant) at 2 hops, 1.5 s away. The roam
#: instants are picked so that a segment does (10.09 s) or does not (10.2 s)
#: reach the old AP between T0 and T2 on the seed's stack (tests/sdn.rs
#: checks both; the other stacks run the same instants, where the phase of
#: the sender's bursts may differ).
FIG6 = [("bare TCP", "bare", 10.2), ("ZWA failing (statistics off)", "zwa-nostats", 10.09), ("ZWA working", "zwa", 10.2)]
FIG6_DISCONNECT = 1.5


def add_arguments(p) -> None:
    """Arguments of ``airtcp reproduce sdn-zwa``."""
    runner.add_common_arguments(
        p,
        quick=f"short version: disconnection {QUICK_DISCONNECT} s, hops {QUICK_HOPS}, {QUICK_SEEDS} seeds",
        seeds=f"seeds 1..N per point (default {FULL_SEEDS}; quick {QUICK_SEEDS})",
    )
    p.add_argument(
        "--emulate",
        action="store_true",
        help="also run ZWA and bare TCP once each with a real Linux sender through airtcp-emulate "
        "(root, iperf3, cargo build --release -p airtcp-emu; about 45 s more): section 'On a real Linux sender'",
    )


# --- tasks ---------------------------------------------------------------------------


#: A run's labels, the first columns of runs.csv.
COLUMNS = ("stack", "fig", "case", "arm", "hops", "disconnect_s", "seed", "t0t2_ms")
#: Fig. 6's cases: label -> roam instant.
FIG6_ROAM_AT = {label: at for label, _, at in FIG6}


def build_tasks(seeds: int, disconnects: list[float], hops: list[int], t0t2: list[float], stacks: list[str] | None = None) -> list[runner.Task]:
    """Every run; `stacks` (default: all of STACKS) the TCP stacks besides
    which the seed's reruns the seed's comparison."""
    doc = base()

    def build(r: dict) -> dict:
        return scenario(doc, r["arm"], r["hops"], r["disconnect_s"], r["seed"], roam_at=FIG6_ROAM_AT.get(r["case"]), t0t2_ms=r["t0t2_ms"], stack=r["stack"])

    plan = Plan(build, COLUMNS)
    for stack in stacks or list(STACKS):
        seed_stack = stack == SEED_STACK
        fig6 = [{"stack": stack, "fig": "6", "case": label, "arm": arm, "hops": 2, "disconnect_s": FIG6_DISCONNECT, "t0t2_ms": None} for label, arm, _ in FIG6]
        plan.add(fig6, [1], keep=seed_stack)
        fig7_arms, fig8_arms = (FIG7_ARMS, FIG8_ARMS) if seed_stack else (STACK_FIG7_ARMS, STACK_FIG8_ARMS)
        for hop_list, fig, arms in (([2], "7", fig7_arms), (hops, "8", fig8_arms)):
            plan.add(grid(stack=stack, fig=fig, case="", hops=hop_list, disconnect_s=disconnects, arm=arms, t0t2_ms=None), seeds)
    # Beyond the seed: the statistics module's fallback as T0 -> T2 grows.
    plan.add(grid(stack=SEED_STACK, fig="stats", case="", arm="zwa", hops=2, disconnect_s=STATS_DISCONNECT, t0t2_ms=t0t2), seeds)
    return plan.tasks


#: The handoff whose captures the study keeps: Fig. 6's "ZWA working" run.
CAPTURE_CASE = FIG6[-1]


def write_captures(d: Path) -> None:
    """Rerun Fig. 6's "ZWA working" handoff with every link and radio
    captured (pcap, radiotap on the radios): the MN's disassociation frame
    is in its radio's capture, the controller's zero-window ACKs in the CN
    link's, for Wireshark."""
    from ... import run as run_one

    _, arm, at = CAPTURE_CASE
    sc = scenario(base(), arm, 2, FIG6_DISCONNECT, 1, roam_at=at)
    run_one(sc, seed=1, out=d, pcap=True, name=f"sdn-zwa captures arm={arm} roam_at={at:g} seed=1")


def run_study(out: Path, *, seeds: int, quick: bool, jobs: int = 1, quiet: bool = False, plots: bool = True, kernel: dict | None = None):
    """`kernel`: the ``--emulate`` arm's figures (kernel.run), written
    to kernel.json and the report's "On a real Linux sender"."""
    disconnects = QUICK_DISCONNECT if quick else FIG7_DISCONNECT
    hops = QUICK_HOPS if quick else FIG8_HOPS
    # --quick: the seed's stack and the sensitivity arm only.
    stacks = [SEED_STACK, "linux"] if quick else list(STACKS)
    tasks = build_tasks(seeds, disconnects, hops, QUICK_T0T2_MS if quick else T0T2_MS, stacks)

    def write(d: Path, sr: runner.StudyRun) -> None:
        from .report import report_md

        runner.write_csv(d / "runs.csv", sr.runs)
        table = aggregate(sr.runs)
        runner.write_csv(d / "table.csv", table)
        if plots:
            from .plots import plot_all

            plot_all(d / "plots", table, sr.kept)
        write_captures(d / "captures")
        if kernel is not None:
            import json

            (d / "kernel.json").write_text(json.dumps(kernel, indent=1) + "\n")
        (d / "report.md").write_text(report_md(sr, table, seeds=seeds, quick=quick, plots=plots, kernel=kernel))

    return runner.run_study(out, tasks, measure, write, jobs=jobs, quiet=quiet, describe=describe, keep=keep_run)


def main(args) -> int:
    """The study with parsed arguments (the runner has checked the common ones)."""
    seeds = runner.seeds_of(args, quick=QUICK_SEEDS, full=FULL_SEEDS)
    kernel = None
    if getattr(args, "emulate", False):
        from . import kernel

        # Checked before anything runs: a missing prerequisite costs nothing.
        runner.check_out(Path(args.out))
        kernel = kernel.run(kernel.check(), quiet=args.quiet)
    sr = run_study(Path(args.out), seeds=seeds, quick=args.quick, jobs=args.jobs, quiet=args.quiet, plots=not args.no_plots, kernel=kernel)
    if not args.quiet:
        print(f"sdn-zwa: {len(sr.runs)} runs in {sr.wall_s:.1f} s -> {args.out}")
    return 0


__all__ = ["ARMS", "FIG7_ARMS", "FIG8_ARMS", "add_arguments", "aggregate", "main", "measure", "run_study"]
