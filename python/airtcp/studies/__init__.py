"""``airtcp reproduce STUDY``: studies that regenerate a seed paper's table
and plots from simulations.

Only argparse wiring lives here, so building the CLI parser stays cheap; a
study module (and pandas/matplotlib) is imported when it runs.
"""

from __future__ import annotations

import argparse

#: study name -> (module, one-line description)
STUDIES = {
    "drive-test": ("drive_test", "Cubic/Veno/Westwood+ (+Reno, BBR) bulk download over drive logs (seed 003)"),
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``airtcp reproduce``."""
    p.add_argument("study", choices=sorted(STUDIES), help="; ".join(f"{k}: {v[1]}" for k, v in STUDIES.items()))
    p.add_argument("--out", "-o", required=True, metavar="DIR", help="output directory")
    p.add_argument("--quick", action="store_true", help="short version (60 s, 2 seeds, one in-repo log excerpt)")
    p.add_argument("--seeds", type=int, metavar="N", help="seeds 1..N per algorithm and log (default 10; quick 2)")
    p.add_argument("--logs", nargs="+", metavar="LOG", help="log names (see --list-logs) or drive-log paths")
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
        default=1.0,
        metavar="X",
        help="multiply the mapped radio capacity by X (e.g. 0.0625 for the seed's 3G rates; default 1)",
    )
    p.add_argument("--traces", metavar="DIR", help="shared traces directory (default $AIRTCP_TRACES or ../shared/traces)")
    p.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="runs in parallel threads (default 1)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress lines")


def main(args: argparse.Namespace) -> int:
    import importlib

    mod = importlib.import_module(f".{STUDIES[args.study][0]}", __name__)
    return mod.cli(args)
