"""``airtcp.analyze``: the TCP analysis of a capture or a run's captures.

The work is done by the Rust crate ``airtcp-analyze`` (the same code as the
``airtcp analyze`` command); this module reads its output files into pandas
DataFrames. Every column is defined in docs/analyze.md.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path


class Analysis:
    """The analysis of one capture.

    ``summary`` is ``summary.json`` as a dict (``capture`` totals and one
    entry per connection). The tables are pandas DataFrames with ``t_s`` on
    the same time axis as a simulated run's (seconds since the capture's
    first packet, or the capture's own clock for a simulated run):
    ``connections`` (one row per connection and direction), ``series`` (per
    interval), ``events`` (retransmissions, zero windows, D-SACKs,
    interruptions...), ``rtt`` (every RTT sample).
    """

    def __init__(self, capture: str, out: str) -> None:
        self.capture = capture
        self.out = out
        self.summary = json.loads((Path(out) / "summary.json").read_text())

    def _csv(self, name: str):
        import pandas as pd

        return pd.read_csv(Path(self.out) / name, keep_default_na=False, na_values=[""])

    @property
    def connections(self):
        return self._csv("connections.csv")

    @property
    def series(self):
        return self._csv("series.csv")

    @property
    def events(self):
        return self._csv("events.csv")

    @property
    def rtt(self):
        return self._csv("rtt.csv")

    def timeseries(self, conn: int = 1, direction: str = "fwd"):
        """The series of one connection direction, like ``Result.timeseries``."""
        s = self.series
        return s[(s["conn"] == conn) & (s["dir"] == direction)].reset_index(drop=True)

    def __repr__(self) -> str:
        c = self.summary["capture"]
        return f"<airtcp.Analysis {self.capture}: {c['packets']} packets, {c['connections']} connections>"


def analyze(path, *, out=None, events=None, interval_s: float = 0.1, min_gap_s: float = 1.0):
    """Analyse a pcap/pcapng capture, or every capture of a run directory.

    Returns an :class:`Analysis` for a file, a list of them for a directory.
    ``out``: where the CSV/JSON files go (default: a temporary directory kept
    for the life of the process). ``events``: a CSV of external events
    (handoffs...) to place inside delivery interruptions. Raises
    :class:`airtcp.AnalyzeError` for an unreadable capture.
    """
    from . import _native

    if out is None:
        out = tempfile.mkdtemp(prefix="airtcp-analyze-")
    res = _native.analyze(
        str(path), str(out), None if events is None else str(events), float(interval_s), float(min_gap_s)
    )
    analyses = [Analysis(cap, d) for cap, _summary, d in res]
    return analyses if Path(path).is_dir() else analyses[0]
