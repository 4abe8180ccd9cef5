"""``airtcp reproduce STUDY``: studies that regenerate a seed paper's table
and plots from simulations.

Each study owns its arguments (``add_arguments`` in its module, built on
:func:`runner.add_common_arguments`) and its ``cli(args)``; they share the
runner (:mod:`.runner`: parallel runs, progress, validation, atomic output
directory, CSV) and the report helpers (:mod:`.report`). Study modules
import only the standard library at the top, so building the parser stays
cheap; pandas and matplotlib are imported when a study runs.
"""

from __future__ import annotations

import argparse

#: study name -> (module, one-line description)
STUDIES = {
    "drive-test": ("drive_test", "Cubic/Veno/Westwood+ (+Reno, BBR) bulk download over drive logs (seed 003)"),
    "sdn-zwa": ("sdn_zwa", "bare TCP vs SDN-assisted zero-window advertisements across Wi-Fi roams (seed 000)"),
    "snoop": ("snoop", "upload/download response time vs drop rate with and without Snoop over 802.11b (seed 004)"),
    "tcpfender": ("tcpfender", "TCP/IP vs TCPFender (and plain MORE) over a lossy 802.11 mesh (seed 002)"),
    "wi-tcp": ("wi_tcp", "Tahoe/Reno/NewReno over Mobile IP, route-optimised MIP, Wi-TCP and EHN across handoffs, 802.11 and p2p (seed 001)"),
}


def _module(name: str):
    import importlib

    return importlib.import_module(f".{STUDIES[name][0]}", __name__)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """One sub-command per study under ``airtcp reproduce``."""
    sub = p.add_subparsers(dest="study", metavar="STUDY")
    sub.required = True
    for name, (_, about) in STUDIES.items():
        sp = sub.add_parser(name, help=about, description=about)
        _module(name).add_arguments(sp)


def main(args: argparse.Namespace) -> int:
    return _module(args.study).cli(args)
