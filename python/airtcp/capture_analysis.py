"""``airtcp.analyze`` (this module: ``airtcp.capture_analysis``): the TCP analysis of a capture or a run's captures.

The work is done by the Rust crate ``airtcp-analyze`` (the same code as the
``airtcp analyze`` command); this module reads its output files into pandas
DataFrames. Every column is defined in docs/analyze.md.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path


#: The columns of a run's ``Result.timeseries``, in order.
RUN_SERIES_COLUMNS = ["t_s", "cwnd", "ssthresh", "srtt_s", "rto_s", "snd_una", "snd_nxt", "bytes_delivered", "ca_state"]

#: Columns of ``Result.interruptions`` and ``Analysis.interruptions``.
INTERRUPTION_COLUMNS = [
    "start_s",
    "end_s",
    "duration_s",
    "delivered_before",
    "retransmissions",
    "timeouts",
    "zero_window",
    "idle_after_return_s",
]


def interruption_frame(records: list):
    """``summary.json``'s interruption records (a run's ``analysis`` or a
    capture's connection) as a DataFrame; times in seconds, ``end_s`` NaN
    for a gap still open when the run or capture ended."""
    import pandas as pd

    def s(ns):
        return float("nan") if ns is None else ns / 1e9

    rows = [
        [
            s(r["start_ns"]),
            s(r["end_ns"]),
            s(None if r["end_ns"] is None else r["end_ns"] - r["start_ns"]),
            r["delivered_before"],
            r["retransmissions"],
            r["timeouts"],
            bool(r["zero_window"]),
            s(r.get("idle_after_return_ns")),
        ]
        for r in records
    ]
    return pd.DataFrame(rows, columns=INTERRUPTION_COLUMNS)


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

    def timeseries(self, flow: int = 0, *, conn: int | None = None, direction: str = "fwd"):
        """One connection direction's series with a run's columns first.

        ``flow`` is the connection's index (0 for the first one seen; or
        ``conn``, its number in the output files, from 1). The columns start
        with those of ``Result.timeseries`` in its order (``RUN_SERIES_COLUMNS``),
        so the same plotting code takes either: ``snd_una`` and
        ``bytes_delivered`` are the cumulative ACK at the capture point
        (bytes, from the first data byte); ``cwnd``, ``ssthresh``,
        ``srtt_s``, ``rto_s``, ``snd_nxt`` and ``ca_state`` are sender state
        a capture does not show (NaN). The capture's own columns follow
        (``sent_bytes``, ``goodput_bps``, ``flight_max_bytes``, ``limit``,
        ``rtt_ms``...; docs/analyze.md)."""
        import numpy as np

        conn = flow + 1 if conn is None else conn
        s = self.series
        s = s[(s["conn"] == conn) & (s["dir"] == direction)].reset_index(drop=True)
        acked = s["delivered_bytes"].cumsum()
        run = {c: np.full(len(s), np.nan) for c in RUN_SERIES_COLUMNS}
        run["t_s"] = s["t_s"]
        run["snd_una"] = acked
        run["bytes_delivered"] = acked
        import pandas as pd

        out = pd.DataFrame(run, columns=RUN_SERIES_COLUMNS)
        rest = s.drop(columns=["t_s"])
        return pd.concat([out, rest], axis=1)

    def events_df(self):
        """The events with a run's event-log columns first (``t_s, kind, flow,
        link, detail``; ``flow`` = connection index from 0, ``link`` empty),
        then the capture's (``conn, dir, packet, seq, len``)."""
        e = self.events.copy()
        e.insert(2, "flow", e["conn"] - 1)
        e.insert(3, "link", None)
        return e[["t_s", "kind", "flow", "link", "detail", "conn", "dir", "packet", "seq", "len"]]

    def interruptions(self, flow: int = 0, direction: str = "fwd"):
        """Delivery interruptions of one connection direction: the same
        columns as ``Result.interruptions`` (``INTERRUPTION_COLUMNS``)."""
        c = self.summary["connections"][flow][direction]
        return interruption_frame(c["interruptions"])

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
