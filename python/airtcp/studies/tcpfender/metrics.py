"""Metrics of one tcpfender run shared by the study, its plots and its
report: packets delivered to TCP over time, per-segment delay against the
sequence number, the time-averaged congestion window."""

from __future__ import annotations

from ... import metrics as connection_metrics
from .setup import MSS


def segment_delays(segments, series):
    """(sequence numbers in packets, delays in s) of every segment: its first
    transmission at the sender to the first series sample at which the
    receiver had read it in order (so the delay is exact to one
    ``series_interval``; ``airtcp.metrics.segment_delays``). Segments never
    delivered are left out."""
    seqs, delays = connection_metrics.segment_delays(segments, series)
    return seqs / MSS, delays


def time_mean(series, key: str, start_s: float = 0.0) -> float | None:
    """Time average of a sampled column from `start_s` on (samples are evenly spaced)."""
    return connection_metrics.sample_mean(series, key, start_s)


def delivered_packets(series):
    """(t_s, packets read in order by the receiving application) samples."""
    return series["t_s"].to_numpy(), series["bytes_delivered"].to_numpy() / MSS
