"""Study ``wi-tcp``: seed 001 (Wi-TCP: TCP over route-optimised Mobile IP
with EHO-ACK / EHC-ACK from the serving agent, ns-2) in simulation.

The seed's Fig. 4 topology (:mod:`.setup`: fixed host - R 10 Mb/s
10 ms, R - home agent and R - foreign agents 10 Mb/s 5 ms, a 2 Mb/s
wireless hop: the 802.11b MAC, and a plain lossless point-to-point link per
cell), a bulk download to a mobile that leaves home at 11.5 s (out of
coverage for about 4 s) and moves from the first to the second foreign
network at 42.5 s (the seed's schedule; ``--schedule four-moves`` adds a
return home and a second departure). The TCP stack is the seed's, ns-2's
agents, with ``linux`` and three one-switch mechanism stacks beside it
(:data:`.setup.STACKS`). Tahoe, Reno and NewReno over
plain Mobile IP, route-optimised Mobile IP, with Wi-TCP, and with the
explicit handover notification of the seed's [8]; throughput against the
home agent - foreign agent delay (the seed's Fig. 12), seeds 1..N per
point (over 802.11 the seed of a run moves the APs' beacon phases, on the
p2p link the handoffs' phases, hence every handoff's timing), mean and
95 % interval. Wi-TCP's delay analysis (the seed's eqs. 1-4) is measured
from the agents' EHO/EHC-ACK log lines and the sender's freeze and resume
events.

Outputs in ``--out``: ``runs.csv`` (one row per run), ``table.csv`` (per
mode, variant and delay), ``report.md`` (the seed's claims beside the
measured values), ``scenarios/*.json`` and ``plots/*.png`` (Fig. 12, and
sequence-number and cwnd plots around the handoffs).
"""

from __future__ import annotations

from pathlib import Path

from ...runner import study as runner
from ...runner.plan import Plan, grid
from .measure import aggregate, describe, keep_run, measure
from .setup import (
    DEFAULT_RATES_MBPS,
    DEFAULT_SCHEDULE,
    DEFAULT_STACKS,
    LINUX_VARIANT,
    MECHANISM_STACKS,
    STACKS,
    FULL_DELAYS,
    LINKS,
    MAX_AWAY_S,
    P2P_AWAY_S,
    QUICK_DELAYS,
    RATES_MBPS,
    SCHEDULES,
    VARIANTS,
    modes_for,
    scenario,
)

FULL_SEEDS = 10
QUICK_SEEDS = 2
QUICK_VARIANTS = ("newreno",)
#: The quick study runs the stated 2 Mb/s only (the full one both rates).
QUICK_RATES = (2,)
#: The quick study runs the seed's stack and the linux sensitivity arm.
QUICK_STACKS = ("ns2", "linux")


def add_arguments(p) -> None:
    """Arguments of ``airtcp reproduce wi-tcp``."""
    runner.add_common_arguments(
        p,
        quick=f"short version: NewReno only, HA-FA delay {QUICK_DELAYS[0]} ms, {QUICK_SEEDS} seeds (both links)",
        seeds=f"seeds 1..N per point (default {FULL_SEEDS}; quick {QUICK_SEEDS})",
    )
    p.add_argument("--variants", nargs="+", choices=VARIANTS, metavar="V", help="tahoe reno newreno (default all)")
    p.add_argument("--delays", metavar="MS,MS", help="home agent - foreign agent delays in ms (default 10,20,30)")
    p.add_argument("--link", choices=LINKS + ("both",), default="both", help="wireless hop: wlan (802.11b), p2p (plain 2 Mb/s cells) or both (default)")
    p.add_argument("--schedule", choices=tuple(SCHEDULES), default=DEFAULT_SCHEDULE, help="the mobile's moves: seed (HA->FA1 at 11.5 s, about 4 s out of coverage; FA1->FA2 at 42.5 s; default) or four-moves")
    p.add_argument("--rates", metavar="MBPS,MBPS", help="802.11 / cell data rates in Mb/s: 1 (ns-2's default) and 2 (the seed's text); default both")
    p.add_argument("--stacks", nargs="+", choices=tuple(STACKS), metavar="S", help=f"TCP stacks: ns2 (the seed's agents), linux (today's kernel), linux-nofrto (F-RTO off), linux-clamprto (RTO clamped as ns-2 does), linux-norack (RACK off): the last three at the claims' point only; default all")
    p.add_argument("--away", type=float, metavar="S", help=f"p2p link: seconds out of every cell per handoff, at most {MAX_AWAY_S:g} (default {P2P_AWAY_S:g})")


def parse_delays(text: str) -> list[int]:
    return runner.number_list(
        text, int, "--delays: {part!r} is not a whole number of ms",
        lambda d, _: f"--delays: {d} ms must exceed the R-HA link's 5 ms" if d <= 5 else None,
    )


def parse_rates(text: str) -> list[float]:
    rates = runner.number_list(
        text, float, "--rates: {part!r} is not a number of Mb/s",
        lambda r, _: None if r in RATES_MBPS else f"--rates: {r:g} Mb/s; the study runs {' or '.join(f'{x:g}' for x in RATES_MBPS)}",
    )
    return [int(r) if r.is_integer() else r for r in rates]


# --- the study ---------------------------------------------------------------------------


def stack_points(stack: str, variants, delays) -> tuple[list, list]:
    """The variants and delays `stack` runs: ns-2's agents every variant
    and delay; a Linux stack its own variant, a mechanism stack only the
    claims' delay."""
    vs = list(variants) if STACKS[stack] is None else [LINUX_VARIANT]
    ds = [delays[0]] if stack in MECHANISM_STACKS else list(delays)
    return vs, ds


#: A run's labels, the first columns of runs.csv.
COLUMNS = ("stack", "schedule", "rate_mbps", "link", "mode", "variant", "hafa_ms", "seed")


def build_tasks(links, variants, delays, seeds: int, plots: bool, away_s: float = P2P_AWAY_S, schedule: str = DEFAULT_SCHEDULE, rates=DEFAULT_RATES_MBPS, stacks=("ns2",)) -> list:
    def kept(r: dict) -> bool:
        """Plots: seed 1 of ns-2's last variant at the first delay."""
        vs, ds = stack_points(r["stack"], variants, delays)
        return plots and r["stack"] == "ns2" and r["seed"] == 1 and r["hafa_ms"] == ds[0] and r["variant"] == vs[-1]

    def build(r: dict) -> dict:
        return scenario(r["mode"], r["variant"], r["hafa_ms"], link=r["link"], seed=r["seed"], away_s=away_s, series=kept(r), schedule=schedule, rate_mbps=r["rate_mbps"], stack=r["stack"])

    plan = Plan(build, COLUMNS)
    points = grid(
        stack=stacks,
        schedule=schedule,
        rate_mbps=rates,
        link=links,
        variant=lambda p: stack_points(p["stack"], variants, delays)[0],
        hafa_ms=lambda p: stack_points(p["stack"], variants, delays)[1],
        mode=lambda p: modes_for(p["link"]),
    )
    plan.add(points, seeds, keep=kept)
    return plan.tasks


def run_study(
    out: Path,
    variants,
    delays,
    seeds: int,
    *,
    links=LINKS,
    away_s: float = P2P_AWAY_S,
    jobs: int = 1,
    plots: bool = True,
    quiet: bool = False,
    schedule: str = DEFAULT_SCHEDULE,
    rates=DEFAULT_RATES_MBPS,
    stacks=DEFAULT_STACKS + MECHANISM_STACKS,
) -> dict:
    import json

    tasks = build_tasks(list(links), list(variants), list(delays), seeds, plots, away_s, schedule, tuple(rates), tuple(stacks))
    table: list[dict] = []

    def write(d: Path, sr: runner.StudyRun) -> None:
        from .report import write_report

        (d / "scenarios").mkdir()
        for stack in stacks:
            v = stack_points(stack, variants, delays)[0][-1]
            for link in links:
                for mode in modes_for(link):
                    for rate in rates:
                        sc = scenario(mode, v, delays[0], link=link, away_s=away_s, schedule=schedule, rate_mbps=rate, stack=stack)
                        (d / "scenarios" / f"{stack}_{link}_{rate:g}mbps_{mode}_{v}_{delays[0]}ms.json").write_text(json.dumps(sc, indent=1) + "\n")
        runner.write_csv(d / "runs.csv", sr.runs)
        table.extend(aggregate(sr.runs))
        runner.write_csv(d / "table.csv", table)
        pngs = []
        if plots:
            from .plots import plot_all

            (d / "plots").mkdir()
            pngs = plot_all(d / "plots", table, sr.kept)
        write_report(
            d / "report.md",
            table=table,
            runs=sr.runs,
            variants=list(variants),
            delays=list(delays),
            links=list(links),
            schedule=schedule,
            rates=list(rates),
            stacks=list(stacks),
            away_s=away_s,
            seeds=seeds,
            wall_s=sr.wall_s,
            jobs=jobs,
            plots=[str(p.relative_to(d)) for p in pngs],
        )

    sr = runner.run_study(out, tasks, measure, write, jobs=jobs, quiet=quiet, describe=describe, keep=keep_run)
    return {"runs": len(tasks), "wall_s": sr.wall_s, "table": table}


def main(args) -> int:
    """The study with parsed arguments (the runner has checked the common ones)."""
    quick = bool(args.quick)
    seeds = runner.seeds_of(args, quick=QUICK_SEEDS, full=FULL_SEEDS)
    delays = parse_delays(args.delays) if args.delays else list(QUICK_DELAYS if quick else FULL_DELAYS)
    variants = list(args.variants) if args.variants else list(QUICK_VARIANTS if quick else VARIANTS)
    links = list(LINKS) if args.link == "both" else [args.link]
    away = P2P_AWAY_S if args.away is None else args.away
    if not 0 < away <= MAX_AWAY_S:
        raise runner.StudyError(f"--away: {args.away} s must be in (0, {MAX_AWAY_S:g}]")
    rates = parse_rates(args.rates) if args.rates else list(QUICK_RATES if quick else DEFAULT_RATES_MBPS)
    stacks = list(args.stacks) if args.stacks else list(QUICK_STACKS if quick else DEFAULT_STACKS + MECHANISM_STACKS)
    s = run_study(Path(args.out), variants, delays, seeds, links=links, away_s=away, jobs=args.jobs, plots=not args.no_plots, quiet=args.quiet, schedule=args.schedule, rates=rates, stacks=stacks)
    if not args.quiet:
        print(f"{s['runs']} runs in {s['wall_s']:.1f} s -> {args.out}/table.csv, report.md")
    return 0
