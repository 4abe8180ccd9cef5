"""Metrics of one tcpfender run shared by the study, its plots and its
report: packets delivered to TCP over time, per-segment delay against the
sequence number, the time-averaged congestion window."""

from __future__ import annotations

from .setup import MSS


def segment_delays(segments, series):
    """(sequence numbers in packets, delays in s) of every segment: its first
    transmission at the sender to the first series sample at which the
    receiver had read it in order (so the delay is exact to one
    ``series_interval``). Segments never delivered are left out."""
    import numpy as np

    if segments is None or not len(segments) or series is None or not len(series):
        return np.array([]), np.array([])
    first = segments[~segments["retransmission"].astype(bool)].drop_duplicates("seq")
    ends = (first["seq"] + first["len"]).to_numpy()
    delivered = series["bytes_delivered"].to_numpy()
    idx = np.searchsorted(delivered, ends, side="left")
    ok = idx < len(delivered)
    t_deliv = series["t_s"].to_numpy()[idx[ok]]
    return first["seq"].to_numpy()[ok] / MSS, t_deliv - first["t_s"].to_numpy()[ok]


def time_mean(series, key: str, start_s: float = 0.0) -> float | None:
    """Time average of a sampled column from `start_s` on (samples are evenly spaced)."""
    if series is None or not len(series):
        return None
    sel = series[series["t_s"] >= start_s]
    return float(sel[key].mean()) if len(sel) else None


def delivered_packets(series):
    """(t_s, packets read in order by the receiving application) samples."""
    return series["t_s"].to_numpy(), series["bytes_delivered"].to_numpy() / MSS
