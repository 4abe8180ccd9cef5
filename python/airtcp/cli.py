"""The ``airtcp`` command.

    airtcp run SCENARIO.toml --out DIR [--seed N] [--set path=value ...] [--pcap] [--quiet]
    airtcp plot DIR
    airtcp analyze PATH --out DIR [--events FILE] [--interval S] [--min-gap S]
    airtcp sweep SCENARIO --out DIR --grid path=v1,v2,... [--grid ...] [--set path=value ...]
                 [--seeds N | --seed-list S,S,...] [--jobs N] [--scheduler ADDRESS] [--keep-series] [--quiet]
    airtcp reproduce drive-test --out DIR [--quick] [--seeds N] [--logs ...] [--jobs N] [--scheduler ADDRESS]
    airtcp reproduce sdn-zwa --out DIR [--quick] [--seeds N] [--jobs N] [--scheduler ADDRESS] [--emulate]
    airtcp reproduce snoop --out DIR [--quick] [--seeds N] [--rates 0,0.05,...] [--mac p2p|80211|both] [--jobs N] [--scheduler ADDRESS]
    airtcp reproduce wi-tcp --out DIR [--quick] [--seeds N] [--variants tahoe reno newreno] [--delays 10,20,30] [--link wlan|p2p|both] [--away S] [--stacks ns2 linux ...] [--jobs N]
    airtcp --version

Start-up is kept lean on purpose (the whole ``airtcp run`` process is
benchmarked): a plain ``airtcp run`` command line is read by a small exact
parser (:func:`_fast_run_args`), so only the package itself is imported
before the simulator; argparse is loaded for everything else (help, errors,
the other commands), and matplotlib by ``plot`` alone.

Exit status: 0 success, 1 runtime failure, 2 bad usage or invalid scenario
(the one-line ``file:line: key: message`` goes to stderr, nothing is written).
"""

from __future__ import annotations

import sys

from . import __version__
from ._errors import ScenarioError, SimError


def _parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(
        prog="airtcp", description="Deterministic packet-level simulator for TCP over wireless links."
    )
    p.add_argument("--version", action="version", version=f"airtcp {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    r = sub.add_parser("run", help="run a scenario and write its outputs")
    r.add_argument("scenario", metavar="SCENARIO", help="scenario file (.toml or .json)")
    r.add_argument("--out", "-o", required=True, metavar="DIR", help="output directory")
    r.add_argument("--seed", type=int, metavar="N", help="master seed (replaces the scenario's)")
    r.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        help="override a scenario value by dotted path, e.g. flows.0.tcp.cc=reno (repeatable)",
    )
    r.add_argument("--pcap", action="store_true", help="write one pcap per link")
    r.add_argument("--quiet", "-q", action="store_true", help="no summary and no progress bar")

    an = sub.add_parser(
        "analyze",
        help="TCP analysis of a pcap/pcapng capture or a run directory's captures",
        description="Per TCP connection and direction: bytes, goodput, flight and limiting window, RTT "
        "samples, retransmissions by cause, zero-window episodes, delivery interruptions (docs/analyze.md).",
    )
    an.add_argument("path", metavar="PATH", help="capture file (.pcap, .pcapng) or run directory")
    an.add_argument("--out", "-o", required=True, metavar="DIR", help="output directory")
    an.add_argument("--events", metavar="FILE", help="CSV of external events (handoffs) to align with")
    an.add_argument("--interval", type=float, default=0.1, metavar="S", help="series interval in seconds (0.1)")
    an.add_argument(
        "--min-gap", type=float, default=1.0, metavar="S", help="shortest delivery gap reported as an interruption (1.0)"
    )

    pl = sub.add_parser("plot", help="draw PNG plots of a run's outputs into DIR/plots")
    pl.add_argument("dir", metavar="DIR", help="output directory of `airtcp run`")

    sw = sub.add_parser(
        "sweep",
        help="run a scenario over a grid of values and seeds (local or remote Dask cluster)",
        description="Run SCENARIO at every point of the cartesian product of the grids, each point for "
        "each seed. Rows go to DIR/runs.parquet and runs.csv, means and 95 %% intervals per point to "
        "DIR/aggregate.parquet and aggregate.csv. Rerunning the command skips the runs already done.",
    )
    sw.add_argument("scenario", metavar="SCENARIO", help="scenario file (.toml or .json)")
    sw.add_argument("--out", "-o", required=True, metavar="DIR", help="sweep directory (resumed if it holds one)")
    sw.add_argument(
        "--grid",
        action="append",
        default=[],
        metavar="PATH=V1,V2,...",
        help="values of one scenario path, read like --set (repeatable: the cartesian product is run)",
    )
    sw.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        help="override a scenario value for every run (repeatable)",
    )
    g = sw.add_mutually_exclusive_group()
    g.add_argument(
        "--seeds", type=int, metavar="N", help="run every point for seeds 1..N (default: the scenario's seed)"
    )
    g.add_argument("--seed-list", metavar="S,S,...", help="run every point for these seeds")
    sw.add_argument(
        "--jobs", "-j", type=int, metavar="N", help="worker processes of the local cluster (default: one per core)"
    )
    sw.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="a Dask scheduler (tcp://host:8786 or a scheduler file .json); 'local' (default): a local "
        "cluster of --jobs processes; 'threads': threads of this process",
    )
    sw.add_argument("--keep-series", action="store_true", help="also write every run's outputs to DIR/series/KEY/")
    sw.add_argument("--batch", type=int, metavar="N", help="runs per Dask task (default: adapted to the run time)")
    sw.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no final summary")

    sub.add_parser(
        "emulate",
        help="real Linux stacks in network namespaces through a scenario's network, in real time "
        "(root; airtcp emulate --help)",
        add_help=False,
    )

    rp = sub.add_parser("reproduce", help="reproduce a seed study (table, report, plots)")
    from .studies import add_arguments as _study_arguments

    _study_arguments(rp)
    return p


def _fmt_rate(bps: float | None) -> str:
    if bps is None:
        return "?"
    for unit, scale in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if bps >= scale:
            return f"{bps / scale:.3f} {unit}"
    return f"{bps:.0f} b/s"


def _print_summary(result, scenario: str) -> None:
    s = result.summary
    print(
        f"{scenario}: seed {s.get('seed', '?')}, {result.events_executed} events "
        f"in {result.run_wall_s:.3f} s -> {result.out}"
    )
    specs = s.get("scenario", {}).get("flows", [])
    for i, f in enumerate(result.flows):
        spec = specs[i] if i < len(specs) else {}
        cc = spec.get("tcp", {}).get("cc")
        route = f"{f['from']} -> {f['to']}" if "from" in f and "to" in f else ""
        what = ", ".join(x for x in (route, cc) if x)
        line = (
            f"  {f.get('name', f'flow{i}')}" + (f" ({what})" if what else "") + ": "
            f"goodput {_fmt_rate(f.get('goodput_bps'))}, "
            f"{f.get('bytes_delivered', '?')} bytes delivered, "
            f"{f.get('retransmissions', '?')} retransmissions, {f.get('timeouts', '?')} timeouts, "
            f"{f.get('fast_retransmits', '?')} fast retransmits"
        )
        if f.get("response_time_s") is not None:
            line += f", response time {f['response_time_s']:.3f} s"
        print(line)


def _cmd_run(args: argparse.Namespace | _RunArgs) -> int:
    from ._api import run

    try:
        result = run(
            args.scenario,
            seed=args.seed,
            overrides=args.overrides,
            out=args.out,
            pcap=args.pcap,
            progress=not args.quiet,
        )
    except ScenarioError as e:
        print(str(e), file=sys.stderr)
        return 2
    except FileNotFoundError as e:
        print(f"airtcp: {e}", file=sys.stderr)
        return 2
    except SimError as e:
        print(f"airtcp: run failed: {e}", file=sys.stderr)
        return 1
    if not args.quiet:
        _print_summary(result, args.scenario)
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from .runner.executor import ExecutorError, SchedulerSpecError
    from .runner.sweep import SweepError, run_sweep

    if args.batch is not None and args.batch < 1:
        print("airtcp: --batch must be at least 1", file=sys.stderr)
        return 2
    try:
        res = run_sweep(
            args.scenario,
            args.grid,
            out=args.out,
            seeds=args.seeds if args.seed_list is None else args.seed_list,
            overrides=args.overrides,
            jobs=args.jobs,
            scheduler=args.scheduler,
            keep_series=args.keep_series,
            progress=not args.quiet,
            batch=args.batch,
        )
    except ScenarioError as e:
        print(str(e), file=sys.stderr)
        return 2
    except (SweepError, SchedulerSpecError, FileNotFoundError) as e:
        print(f"airtcp: {e}", file=sys.stderr)
        return 2
    except ExecutorError as e:
        print(f"airtcp: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"airtcp: interrupted; the finished runs are kept in {args.out}/runs/, rerun to resume", file=sys.stderr)
        return 130
    if not args.quiet:
        print(
            f"{res.total} runs ({res.skipped} already done, {res.ran} run, {res.failed} failed) "
            f"in {res.wall_s:.1f} s -> {args.out}/runs.parquet, runs.csv, aggregate.parquet, aggregate.csv"
        )
    if res.failed:
        print(f"airtcp: {res.failed} run(s) failed; see the error column of {args.out}/runs.csv", file=sys.stderr)
        return 1
    return 0


def _cmd_analyze(args: argparse.Namespace) -> int:
    from . import _native
    from ._errors import AnalyzeError

    import json

    try:
        res = _native.analyze(args.path, args.out, args.events, args.interval, args.min_gap)
    except AnalyzeError as e:
        print(f"airtcp: {e}", file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"airtcp: {e}", file=sys.stderr)
        return 2
    for cap, summary, out in res:
        s = json.loads(summary)
        line = f"{cap}: {s['packets']} packets, {s['tcp_packets']} TCP, {s['connections']} connections -> {out}"
        if s["damaged"]:
            line += f"; {s['damaged']} damaged packets skipped"
        if s["truncated"]:
            line += f"; warning: {s['truncated']}"
        print(line)
    return 0


def _cmd_plot(args: argparse.Namespace) -> int:
    from .plot import PlotError, plot_dir

    try:
        written = plot_dir(args.dir)
    except PlotError as e:
        print(f"airtcp: {e}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


class _RunArgs:
    """What ``_parser().parse_args`` gives for ``airtcp run``."""

    command = "run"

    def __init__(self, scenario: str) -> None:
        self.scenario = scenario
        self.out: str | None = None
        self.seed: int | None = None
        self.overrides: list[str] = []
        self.pcap = False
        self.quiet = False


def _fast_run_args(argv: list[str]) -> _RunArgs | None:
    """Read ``run SCENARIO --out DIR [--seed N] [--set P=V ...] [--pcap] [--quiet]``
    without argparse (whose import and parser building are a sizeable part
    of a short run's process time). Only the plain spellings are taken —
    separate option values that do not start with "-", no ``--opt=value``,
    no abbreviations, no ``--``; anything else returns None and goes through
    argparse, which then accepts or rejects it exactly as always."""
    if len(argv) < 2 or argv[0] != "run":
        return None
    scenario = None
    args = _RunArgs("")
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("--pcap",):
            args.pcap = True
        elif a in ("--quiet", "-q"):
            args.quiet = True
        elif a in ("--out", "-o", "--seed", "--set"):
            if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                return None
            v = argv[i + 1]
            i += 1
            if a == "--seed":
                try:
                    args.seed = int(v)
                except ValueError:
                    return None
            elif a == "--set":
                args.overrides.append(v)
            else:
                args.out = v
        elif a.startswith("-") or scenario is not None:
            return None
        else:
            scenario = a
        i += 1
    if scenario is None or args.out is None:
        return None
    args.scenario = scenario
    return args


def _emulate(rest: list[str]) -> int:
    """`airtcp emulate` is the Rust binary airtcp-emulate (crates/emu): found
    through $AIRTCP_EMULATE, on PATH, or in this checkout's target/release."""
    import subprocess

    from .emulate_zwa import emulator_path

    exe = emulator_path()
    if exe is None:
        print("airtcp emulate: airtcp-emulate not found (cargo build --release -p airtcp-emu)", file=sys.stderr)
        return 1
    return subprocess.call([exe, *rest])


def main(argv: list[str] | None = None) -> int:
    raw = sys.argv[1:] if argv is None else list(argv)
    if raw[:1] == ["emulate"]:
        return _emulate(raw[1:])
    args = _fast_run_args(raw)
    if args is None:
        args = _parser().parse_args(argv)
    if args.command == "run":
        return _cmd_run(args)
    if args.command == "sweep":
        return _cmd_sweep(args)
    if args.command == "analyze":
        return _cmd_analyze(args)
    if args.command == "reproduce":
        from .studies import main as _study_main
        from .runner.study import executor_options

        with executor_options(scheduler=getattr(args, "scheduler", None)):
            return _study_main(args)
    return _cmd_plot(args)


if __name__ == "__main__":
    sys.exit(main())
