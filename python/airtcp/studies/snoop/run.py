"""Study ``snoop``: seed 004 (Ng, Chow, Trajković, "Performance Evaluation
of TCP over WLAN 802.11 with the Snoop Performance Enhancing Proxy", OPNET)
in simulation.

The seed adds two layers between IP and ARP in OPNET: a packet error
generator (PEG) that drops data packets with a set probability on the way
out and in, and the Snoop agent (Balakrishnan et al., MobiCom 1995) above
it. It measures the response time of 100,000-byte transfers against the
PEG's drop rate with and without Snoop, in three scenarios (one mobile
uploading; two downloading with Snoop at the server; two uploading with
Snoop on mobile 2 only), and reports a ~68-fold shorter upload at 30 %.

Here the same three scenarios run on ``server --Ethernet-- ap ==802.11b== m1
[, m2]`` (:mod:`.setup`) on the seed's stack, the ``opnet-2003`` TCP
profile, for the seed's plain TCP, Snoop with its fixed 1-s timer, Snoop with
the adaptive local timer (the seed's future work), TCP with SACK and the
I-TCP split connection, and for arms that vary the stack (the seed's table
key by key, today's ``linux`` with RACK, the loss probe or SACK switched off)
and OPNET's other candidates for the ~68-fold figure; drop rates 0-40 % in
steps of 5 %, seeds 1..20 per point, mean and 95 % interval.

Outputs in ``--out``: ``table.csv`` (per scenario, arm, mobile and drop
rate), ``runs.csv`` (one row per run and mobile), ``report.md`` (setup, the
seed's claims beside the measured values, findings computed from the data),
``scenarios/*.json`` and ``plots/*.png``.

``--mac`` picks the wireless hop: ``80211`` (default, as the seed ran
802.11: the simulator's 802.11b DCF MAC, one shared medium with contention,
collisions and MAC retries), ``p2p`` (the fast option: a point-to-point
airtime link per mobile) or ``both``; every run carries its ``mac`` label, and with ``both`` the report
adds the 802.11 results beside the point-to-point ones.
"""

from __future__ import annotations

from pathlib import Path

from ...runner import study as runner
from ...runner.plan import Plan, grid
from .measure import aggregate, describe, keep_run, measure, median_rto
from .setup import (
    ARMS,
    DEFAULTS,
    FULL_RATES,
    MACS,
    QUICK_PLAN,
    QUICK_RATES,
    SEED_S1_RATE,
    SETUPS,
    arms_for,
    scenario,
)

#: A run's labels, the first columns of runs.csv.
COLUMNS = ("scenario", "mac", "arm", "drop_rate", "seed")
#: Seeds per point (the brief: at least 20).
FULL_SEEDS = 20
QUICK_SEEDS = 2


def add_arguments(p) -> None:
    """Arguments of ``airtcp reproduce snoop``."""
    runner.add_common_arguments(
        p,
        quick="short version: drop rates 0, 0.1, 0.3, 2 seeds, scenario 1 (all arms) and scenario 2 (tcp, snoop)",
        seeds=f"seeds 1..N per point (default {FULL_SEEDS}; quick {QUICK_SEEDS})",
    )
    p.add_argument(
        "--rates", metavar="P,P,...", help="PEG drop rates, comma-separated in [0, 1] (default 0,0.05,...,0.4)"
    )
    p.add_argument("--scenarios", nargs="+", choices=sorted(SETUPS), metavar="S", help="s1 s2 s3 (default all)")
    p.add_argument("--arms", nargs="+", choices=ARMS, metavar="ARM", help=f"{' '.join(ARMS)} (default all)")
    p.add_argument(
        "--duration",
        type=float,
        metavar="S",
        help=f"cap on simulated seconds per run (default {DEFAULTS['duration_s']:g})",
    )
    p.add_argument("--bytes", type=int, metavar="N", help=f"bytes per transfer (default {DEFAULTS['bytes']})")
    p.add_argument(
        "--mac",
        choices=["p2p", "80211", "both"],
        default="80211",
        help="wireless hop: 80211 = the 802.11b DCF MAC (default, as the seed), p2p = point-to-point 802.11b airtime link (fast), "
        "both = each scenario on both, compared in the report",
    )
    p.add_argument(
        "--tcp-set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a [flows.tcp] key on every arm's TCP (and I-TCP's), beside the arm's profile, e.g. sack=true or "
        "rto_tick=none: a targeted run that switches one mechanism (repeatable; the report names them)",
    )


def macs_of(choice: str) -> list[str]:
    """--mac value -> the MACs run, the report's primary first."""
    return list(MACS) if choice == "both" else [choice]


def parse_rates(text: str) -> list[float]:
    """ "0,0.05,0.1" -> [0.0, 0.05, 0.1]; raises StudyError on anything else."""
    return runner.number_list(
        text, float, "--rates: {part!r} is not a number",
        lambda r, part: None if 0.0 <= r <= 1.0 else f"--rates: {part} is outside [0, 1]",
    )


def parse_tcp_set(items: list[str]) -> dict:
    """["sack=false", "min_rto=200ms"] -> {"sack": False, "min_rto": "200ms"}:
    a value that reads as TOML (true, 3, "x") is taken as such, anything
    else as a string. Raises StudyError on an item without "=" or a key."""
    import tomllib

    out = {}
    for item in items:
        key, eq, text = item.partition("=")
        key, text = key.strip(), text.strip()
        if not eq or not key or not text:
            raise runner.StudyError(f"--tcp-set: {item!r} is not KEY=VALUE")
        try:
            out[key] = tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError:
            out[key] = text
    return out


def with_tcp_set(sc: dict, keys: dict) -> dict:
    """`sc` with `keys` set in every flow's and I-TCP proxy's [tcp]."""
    if not keys:
        return sc
    for f in sc["flows"]:
        f["tcp"] = {**f["tcp"], **keys}
    for a in sc["agents"]:
        if "tcp" in a:
            a["tcp"] = {**a["tcp"], **keys}
    return sc


# --- the study ---------------------------------------------------------------------------


def plot_rate(rates: list[float]) -> float:
    """The drop rate of the plotted runs: the seed's 0.3, or the nearest."""
    return min(rates, key=lambda r: (abs(r - SEED_S1_RATE), -r))


def build_tasks(
    plan: dict,
    rates: list[float],
    seeds: int,
    duration_s: float,
    nbytes: int,
    plots: bool,
    macs=("p2p",),
    tcp_set: dict | None = None,
) -> list:
    prate = plot_rate(rates)

    def kept(r: dict) -> bool:
        return plots and r["scenario"] == "s1" and r["seed"] == 1 and r["drop_rate"] == prate and r["arm"] in ("tcp", "snoop")

    def build(r: dict) -> dict:
        sc = scenario(SETUPS[r["scenario"]], r["arm"], r["drop_rate"], duration_s=duration_s, nbytes=nbytes, series=kept(r), mac=r["mac"])
        return with_tcp_set(sc, tcp_set or {})

    runs = Plan(build, COLUMNS)
    runs.add(grid(mac=macs, scenario=list(plan), arm=lambda p: arms_for(SETUPS[p["scenario"]], plan[p["scenario"]]), drop_rate=rates), seeds, keep=kept)
    return runs.tasks


def run_study(
    out: Path,
    plan: dict,
    rates: list[float],
    seeds: int,
    *,
    duration_s: float,
    nbytes: int,
    jobs: int = 1,
    plots: bool = True,
    quiet: bool = False,
    macs=("p2p",),
    tcp_set: dict | None = None,
) -> dict:
    import json

    macs = list(macs)
    tcp_set = dict(tcp_set or {})
    tasks = build_tasks(plan, rates, seeds, duration_s, nbytes, plots, macs, tcp_set)
    table: list[dict] = []

    def write(d: Path, sr: runner.StudyRun) -> None:
        from .report import write_report

        (d / "scenarios").mkdir()
        shown = SEED_S1_RATE if SEED_S1_RATE in rates else max(rates)
        for mac in macs:
            tag = "" if mac == "p2p" else f"_{mac}"
            for sid, arms in plan.items():
                for arm in arms_for(SETUPS[sid], arms):
                    sc = scenario(SETUPS[sid], arm, shown, duration_s=duration_s, nbytes=nbytes, mac=mac)
                    sc = with_tcp_set(sc, tcp_set)
                    (d / "scenarios" / f"{sid}{tag}_{arm}.json").write_text(json.dumps(sc, indent=1) + "\n")
        runner.write_csv(d / "runs.csv", sr.runs)
        table.extend(aggregate(sr.runs))
        runner.write_csv(d / "table.csv", table)
        pngs = []
        if plots:
            from .plots import plot_all

            (d / "plots").mkdir()
            pngs = plot_all(d / "plots", table, sr.kept, macs)
        write_report(
            d / "report.md",
            table=table,
            runs=sr.runs,
            plan=plan,
            rates=rates,
            seeds=seeds,
            duration_s=duration_s,
            nbytes=nbytes,
            wall_s=sr.wall_s,
            jobs=jobs,
            plots=[str(p.relative_to(d)) for p in pngs],
            shown_rate=shown,
            macs=macs,
            tcp_set=tcp_set,
            kept_facts={
                mac: {
                    "cache_final": next(
                        (
                            k["cache"][1][-1]
                            for k in sr.kept
                            if k["labels"]["mac"] == mac and k["cache"] and k["cache"][1]
                        ),
                        None,
                    ),
                    "snoop_rto_s": next(
                        (
                            median_rto(k)
                            for k in sr.kept
                            if k["labels"]["mac"] == mac and k["labels"]["arm"] == "snoop"
                        ),
                        None,
                    ),
                }
                for mac in macs
            },
        )

    sr = runner.run_study(out, tasks, measure, write, jobs=jobs, quiet=quiet, describe=describe, keep=keep_run)
    return {"runs": len(tasks), "rows": len(sr.runs), "wall_s": sr.wall_s, "table": table}


def main(args) -> int:
    """The study with parsed arguments (the runner has checked the common ones)."""
    quick = bool(args.quick)
    seeds = runner.seeds_of(args, quick=QUICK_SEEDS, full=FULL_SEEDS)
    rates = parse_rates(args.rates) if args.rates is not None else (QUICK_RATES if quick else FULL_RATES)
    duration = args.duration if args.duration is not None else DEFAULTS["duration_s"]
    nbytes = args.bytes if args.bytes is not None else DEFAULTS["bytes"]
    if not duration > 0:
        raise runner.StudyError("--duration must be positive")
    if nbytes < 1:
        raise runner.StudyError("--bytes must be at least 1")
    if args.scenarios or args.arms or not quick:
        sids = args.scenarios or sorted(SETUPS)
        plan = {s: list(args.arms or ARMS) for s in sids}
    else:
        plan = {s: list(a) for s, a in QUICK_PLAN.items()}
    s = run_study(
        Path(args.out),
        plan,
        rates,
        seeds,
        duration_s=duration,
        nbytes=nbytes,
        jobs=args.jobs,
        plots=not args.no_plots,
        quiet=args.quiet,
        macs=macs_of(getattr(args, "mac", MACS[0])),
        tcp_set=parse_tcp_set(getattr(args, "tcp_set", None) or []),
    )
    if not args.quiet:
        print(f"{s['runs']} runs in {s['wall_s']:.1f} s -> {args.out}/table.csv, report.md")
    return 0
