"""Study ``sdn-zwa``: seed 000 (Singh, Gupta, Verma, Pandey, "Improving
Performance of TCP for Wireless Network using SDN", ICDCN 2019) in
simulation.

The seed's controller freezes a TCP sender while its Wi-Fi receiver moves
between APs: it deletes the station's flows at disassociation, answers
every segment that reaches it with a zero-window ACK (ZWA), buffers them
and replays them after reassociation; a statistics module compares the old
AP's flow counters at disassociation (T0) and flow removal (T2) and falls
back to bare TCP when a segment slipped in between.

Here: ``scenarios/sdn-zwa.toml`` (``sdn_zwa_setup``), arms bare TCP
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

from . import runner
from .report import summarize_counts as summarize_nonnegative
from .sdn_zwa_setup import (
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
#: instants are picked so that a segment does (10.08 s) or does not (10.2 s)
#: reach the old AP between T0 and T2 on the seed's stack (tests/sdn.rs
#: checks both; the other stacks run the same instants, where the phase of
#: the sender's bursts may differ).
FIG6 = [("bare TCP", "bare", 10.2), ("ZWA failing (statistics off)", "zwa-nostats", 10.08), ("ZWA working", "zwa", 10.2)]
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


# --- one run -------------------------------------------------------------------------


def interruption(t_s: list[float], delivered: list[int], t0: float | None) -> tuple[float | None, float | None]:
    """`(start, end)` of the delivery interruption around the disconnection
    at `t0` (see the Rust `airtcp_analyze::interruption_around`)."""
    from .. import _native

    if t0 is None:
        return (None, None)
    # A sample shows what arrived in the step before it: the first sample at
    # or after T0 still holds deliveries from before the disconnection, so
    # the gap is anchored there (else a delivery a few ms before T0 would
    # read as the first one after it).
    at = next((t for t in t_s if t >= t0), t0)
    return _native.interruption(t_s, delivered, at)


def _first(events, kind: str, after: float) -> float | None:
    for e in events:
        if e["kind"] == kind and e["t_s"] > after:
            return e["t_s"]
    return None


def _t0_t3(ev) -> tuple[float | None, float | None]:
    """T0 (the old AP loses the MN) and T3 (the new AP has it): the SDN
    timeline's events, or the APs' own for the arms without a controller
    (the same instants: the SDN notices are made of them)."""
    t0 = _first(ev, "sdn_t0_disassociated", 1.0)
    if t0 is None:
        t0 = _first(ev, "wifi_ap_station_left", 1.0)
    if t0 is None:
        return None, None
    t3 = _first(ev, "sdn_t3_associated", t0)
    if t3 is None:
        t3 = _first(ev, "wifi_ap_station_joined", t0)
    return t0, t3


def _agent_sum(s: dict, kind: str, key: str) -> int:
    return sum(a["counters"].get(key, 0) for a in s.get("agents", []) if a.get("kind") == kind)


def measure(task, result) -> dict:
    """Metrics of one run (see the report for definitions)."""
    s = result.summary
    f = s["flows"][0]
    ctl = (s.get("sdn") or {}).get("controller", {}) or {}
    ev = result.events
    t0, t3 = _t0_t3(ev)
    sender_idle = None
    delivered_after = None
    gap = (None, None)
    if t3 is not None:
        seg = result.segments(0)
        later = seg[(seg["t_s"] > t3) & (seg["len"] > 1)]
        sender_idle = float(later["t_s"].iloc[0] - t3) if len(later) else None
        ts = result.timeseries(0)
        before = ts[ts["t_s"] <= t3]["bytes_delivered"]
        delivered_after = int(ts["bytes_delivered"].iloc[-1] - (before.iloc[-1] if len(before) else 0))
        gap = interruption(ts["t_s"].tolist(), [int(b) for b in ts["bytes_delivered"]], t0)
    return {
        "bytes_delivered": f["bytes_delivered"],
        "retransmissions": f["retransmissions"],
        "timeouts": f["timeouts"],
        "loss_undos": f["loss_undos"],
        # RTOs of the handoff: the sender's timeouts after T0 (at 7 hops the
        # SYN's first RTO, before any handoff, is in `timeouts` of every arm).
        "handoff_timeouts": sum(1 for e in ev if e["kind"] == "timeout" and e["detail"].startswith("client") and t0 is not None and e["t_s"] > t0),
        "window_probes": f["window_probes"],
        "zero_window_events": f["zero_window_events"],
        "t0_s": t0,
        "t3_s": t3,
        # The seed's "interruption in data transfer": last in-order delivery
        # before T0 to the first new one after it (airtcp_analyze's
        # interruption_around, on the 10 ms series); None if delivery never
        # resumed in the run.
        "interruption_s": (gap[1] - gap[0]) if gap[0] is not None and gap[1] is not None else None,
        # Fig. 8's idle period after reassociation, delivery-based: the first
        # new in-order delivery after T0 minus T3.
        "idle_after_reassoc_s": (gap[1] - t3) if gap[1] is not None else None,
        # The sender's first data segment after T3 minus T3 (counts segments
        # sent beyond a hole that deliver nothing): a second, named metric.
        "sender_idle_s": sender_idle,
        "bytes_after_reassoc": delivered_after,
        "stalled": int(delivered_after is not None and delivered_after == 0),
        "zwa_acks": (s.get("sdn") or {}).get("zwa_acks", 0),
        "stats_zwa_enabled": ctl.get("stats_zwa_enabled", 0),
        "stats_zwa_disabled": ctl.get("stats_zwa_disabled", 0),
        "freeze_zwas": (f.get("freeze") or {}).get("zwas", 0),
        "mtcp_zwas": _agent_sum(s, "mtcp", "zwa_sent"),
        "mtcp_reopens": _agent_sum(s, "mtcp", "reopen_sent"),
        "t0t2_s": (_first(ev, "sdn_t2_flow_removed", t0) - t0) if t0 is not None and _first(ev, "sdn_t2_flow_removed", t0) is not None else None,
    }


def keep_run(task, result, _dir) -> dict:
    """Fig. 6 data: the sender's segments and the handoff instants."""
    seg = result.segments(0)
    ev = result.events
    t0, t3 = _t0_t3(ev)
    return {
        "label": task.labels["case"],
        "arm": task.labels["arm"],
        "t_s": seg["t_s"].tolist(),
        "seq": seg["seq"].tolist(),
        "retx": seg["retransmission"].tolist(),
        "t0": t0,
        "t3": t3,
    }


# --- tasks ---------------------------------------------------------------------------


def build_tasks(seeds: int, disconnects: list[float], hops: list[int], t0t2: list[float], stacks: list[str] | None = None) -> list[runner.Task]:
    """Every run; `stacks` (default: all of STACKS) the TCP stacks besides
    which the seed's reruns the seed's comparison."""
    doc = base()
    tasks = []
    for stack in stacks or list(STACKS):
        seed_stack = stack == SEED_STACK
        for label, arm, at in FIG6:
            sc = scenario(doc, arm, 2, FIG6_DISCONNECT, 1, roam_at=at, stack=stack)
            labels = {"stack": stack, "fig": "6", "case": label, "arm": arm, "hops": 2, "disconnect_s": FIG6_DISCONNECT, "seed": 1, "t0t2_ms": None}
            tasks.append(runner.Task(labels, sc, 1, keep=seed_stack))
        fig7_arms, fig8_arms = (FIG7_ARMS, FIG8_ARMS) if seed_stack else (STACK_FIG7_ARMS, STACK_FIG8_ARMS)
        for hop_list, fig, arms in (([2], "7", fig7_arms), (hops, "8", fig8_arms)):
            for h in hop_list:
                for d in disconnects:
                    for arm in arms:
                        for seed in range(1, seeds + 1):
                            labels = {"stack": stack, "fig": fig, "case": "", "arm": arm, "hops": h, "disconnect_s": d, "seed": seed, "t0t2_ms": None}
                            tasks.append(runner.Task(labels, scenario(doc, arm, h, d, seed, stack=stack), seed))
    # Beyond the seed: the statistics module's fallback as T0 -> T2 grows.
    for ms in t0t2:
        for seed in range(1, seeds + 1):
            labels = {"stack": SEED_STACK, "fig": "stats", "case": "", "arm": "zwa", "hops": 2, "disconnect_s": STATS_DISCONNECT, "seed": seed, "t0t2_ms": ms}
            tasks.append(runner.Task(labels, scenario(doc, "zwa", 2, STATS_DISCONNECT, seed, t0t2_ms=ms), seed))
    return tasks


def aggregate(runs: list[dict]) -> list[dict]:
    """Mean and 95 % interval per (stack, fig, arm, hops, disconnection).
    Every quantity here is a count, a duration or a ratio of byte counts,
    none below 0: the interval is a percentile bootstrap of the mean, which
    stays within the data's range (a t interval on a few skewed values
    reaches below 0)."""
    ref = {(r["stack"], r["hops"], r["disconnect_s"], r["seed"]): r["bytes_delivered"] for r in runs if r["fig"] == "7" and r["arm"] == "noroam"}
    keyf = lambda r: (r["stack"], r["fig"], r["arm"], r["hops"], r["disconnect_s"], r.get("t0t2_ms"))
    groups: dict = {}
    for r in runs:
        if r["fig"] != "6":
            groups.setdefault(keyf(r), []).append(r)
    table = []
    for (stack, fig, arm, h, d, ms), rs in groups.items():
        util = [r["bytes_delivered"] / ref[(stack, h, d, r["seed"])] for r in rs if ref.get((stack, h, d, r["seed"]))]
        row = {"stack": stack, "fig": fig, "arm": arm, "hops": h, "disconnect_s": d, "t0t2_ms": ms, "n": len(rs)}
        for name, xs in (
            ("utilisation", util),
            ("idle_s", [r["idle_after_reassoc_s"] for r in rs]),
            ("interruption_s", [r["interruption_s"] for r in rs]),
            ("sender_idle_s", [r["sender_idle_s"] for r in rs]),
            ("t0t2_s", [r.get("t0t2_s") for r in rs]),
            ("retransmissions", [r["retransmissions"] for r in rs]),
            ("timeouts", [r["timeouts"] for r in rs]),
            ("handoff_timeouts", [r["handoff_timeouts"] for r in rs]),
        ):
            st = summarize_nonnegative(xs)
            row[f"{name}_mean"], row[f"{name}_lo"], row[f"{name}_hi"] = st.mean, st.lo, st.hi
        row["zwa_enabled"] = sum(r["stats_zwa_enabled"] for r in rs)
        row["zwa_disabled"] = sum(r["stats_zwa_disabled"] for r in rs)
        row["stalled"] = sum(r["stalled"] for r in rs)
        table.append(row)
    return table


def describe(row: dict) -> str:
    return f"{row['stack']} fig {row['fig']} {row['arm']} {row['hops']} hops {row['disconnect_s']:g} s seed {row['seed']}"


#: The handoff whose captures the study keeps: Fig. 6's "ZWA working" run.
CAPTURE_CASE = FIG6[-1]


def write_captures(d: Path) -> None:
    """Rerun Fig. 6's "ZWA working" handoff with every link and radio
    captured (pcap, radiotap on the radios): the MN's disassociation frame
    is in its radio's capture, the controller's zero-window ACKs in the CN
    link's, for Wireshark."""
    from .. import run as run_one

    _, arm, at = CAPTURE_CASE
    sc = scenario(base(), arm, 2, FIG6_DISCONNECT, 1, roam_at=at)
    run_one(sc, seed=1, out=d, pcap=True)


def run_study(out: Path, *, seeds: int, quick: bool, jobs: int = 1, quiet: bool = False, plots: bool = True, kernel: dict | None = None):
    """`kernel`: the ``--emulate`` arm's figures (sdn_zwa_kernel.run), written
    to kernel.json and the report's "On a real Linux sender"."""
    disconnects = QUICK_DISCONNECT if quick else FIG7_DISCONNECT
    hops = QUICK_HOPS if quick else FIG8_HOPS
    # --quick: the seed's stack and the sensitivity arm only.
    stacks = [SEED_STACK, "linux"] if quick else list(STACKS)
    tasks = build_tasks(seeds, disconnects, hops, QUICK_T0T2_MS if quick else T0T2_MS, stacks)

    def write(d: Path, sr: runner.StudyRun) -> None:
        from .sdn_zwa_report import report_md

        runner.write_csv(d / "runs.csv", sr.runs)
        table = aggregate(sr.runs)
        runner.write_csv(d / "table.csv", table)
        if plots:
            from .sdn_zwa_plots import plot_all

            plot_all(d / "plots", table, sr.kept)
        write_captures(d / "captures")
        if kernel is not None:
            import json

            (d / "kernel.json").write_text(json.dumps(kernel, indent=1) + "\n")
        (d / "report.md").write_text(report_md(sr, table, seeds=seeds, quick=quick, plots=plots, kernel=kernel))

    # No zero-length validation pass: the flow starts at 1 s, after a 1-ns
    # run would end; every run still validates its scenario before it starts.
    return runner.run_study(out, tasks, measure, write, jobs=jobs, quiet=quiet, describe=describe, keep=keep_run, validate=False)


def cli(args) -> int:
    return runner.exit_status(lambda: _cli(args))


def _cli(args) -> int:
    runner.check_common(args)
    seeds = args.seeds or (QUICK_SEEDS if args.quick else FULL_SEEDS)
    kernel = None
    if getattr(args, "emulate", False):
        from . import sdn_zwa_kernel

        # Checked before anything runs: a missing prerequisite costs nothing.
        runner.check_out(Path(args.out))
        kernel = sdn_zwa_kernel.run(sdn_zwa_kernel.check(), quiet=args.quiet)
    sr = run_study(Path(args.out), seeds=seeds, quick=args.quick, jobs=args.jobs, quiet=args.quiet, plots=not args.no_plots, kernel=kernel)
    if not args.quiet:
        print(f"sdn-zwa: {len(sr.runs)} runs in {sr.wall_s:.1f} s -> {args.out}")
    return 0


__all__ = ["ARMS", "FIG7_ARMS", "FIG8_ARMS", "add_arguments", "aggregate", "cli", "measure", "run_study"]
