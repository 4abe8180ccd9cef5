"""Scenarios of the tcpfender study (seed 002): the shipped
``scenarios/mesh-tcpfender.toml`` (an 8-node 802.11 mesh at 1 Mb/s with
per-link loss rates, one bulk TCP flow S -> D) with the arm and the run
length set per run.

Arms:

- ``tcpip``: TCP over IP, ETX shortest-path routing, 802.11 unicast with
  ARQ (7 transmissions per frame): the seed's baseline.

The network-coded arms (``tcpfender``: MORE with the TCPFender modules
under TCP at S and D; ``more``: plain MORE carrying TCP) plug in here as
more entries of :data:`ARMS` once the protocol cores are in the simulator.
"""

from __future__ import annotations

import copy
import tomllib

from .runner import StudyError, repo_root

SCENARIO_FILE = "scenarios/mesh-tcpfender.toml"
#: arm -> one-line description (report and --help)
ARMS = {
    "tcpip": "TCP/IP: ETX shortest path, 802.11 unicast with ARQ (7 transmissions)",
}
FULL_DURATION_S = 100.0
QUICK_DURATION_S = 30.0
MSS = 1000
#: Positions (m) and undirected links with their loss rate, read from the
#: scenario file (for the report's drawing and table).
NODE_ORDER = ("S", "A", "B", "C", "E", "F", "G", "D")


def base() -> dict:
    path = repo_root() / SCENARIO_FILE
    if not path.is_file():
        raise StudyError(f"{path}: the study's scenario is missing (run from the source tree)")
    with open(path, "rb") as f:
        return tomllib.load(f)


_BASE: dict | None = None


def _base() -> dict:
    global _BASE
    if _BASE is None:
        _BASE = base()
    return _BASE


def scenario(arm: str, duration_s: float, *, series: bool = True) -> dict:
    """The scenario dict of one run of `arm`."""
    if arm not in ARMS:
        raise StudyError(f"unknown arm {arm!r} (known: {', '.join(ARMS)})")
    if not duration_s > 0:
        raise StudyError(f"run length {duration_s} s must be positive")
    sc = copy.deepcopy(_base())
    sc["sim"]["duration"] = f"{duration_s:g}s"
    if not series:
        sc["sim"]["series_interval"] = "1s"
    return sc


def topology() -> tuple[dict, list[tuple[str, str, float]]]:
    """Node positions {name: (x, y)} and links [(a, b, loss rate)] of the scenario."""
    sc = _base()
    pos = {r["node"]: (float(r.get("x", 0.0)), float(r.get("y", 0.0))) for r in sc["radios"]}
    links = [(e["from"], e["to"], float(e["fer"])) for e in sc.get("wifi_errors", [])]
    return pos, links
