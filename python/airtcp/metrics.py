"""Metrics of one TCP connection, as the studies report them.

Each function is computed by the Rust crate ``airtcp-analyze``
(``airtcp_analyze::metrics``), where it is defined once; docs/analyze.md,
section "Metrics", gives every exact definition. The arguments are what a run
and a capture both provide:

- ``series``: a DataFrame with ``t_s`` and ``bytes_delivered`` (cumulative
  bytes delivered in order), e.g. ``Result.timeseries(flow)``;
- ``segments``: a DataFrame with ``t_s``, ``seq``, ``len`` and
  ``retransmission``, e.g. ``Result.segments(flow)``;
- instants in seconds (a handoff, a disconnection, a reassociation).

Results are bytes, seconds or bit/s; ``None`` where the metric does not
exist (nothing observed by the instant, delivery never resumed).
"""

from __future__ import annotations


def _native():
    from . import _native as n

    return n


def _series(series, column: str = "bytes_delivered") -> tuple[list[float], list[int]]:
    if series is None or not len(series) or column not in series:
        return [], []
    return [float(t) for t in series["t_s"]], [int(b) for b in series[column]]


def _segments(segments) -> tuple[list[float], list[int], list[int], list[bool]]:
    if segments is None or not len(segments):
        return [], [], [], []
    return (
        [float(t) for t in segments["t_s"]],
        [int(s) for s in segments["seq"]],
        [int(n) for n in segments["len"]],
        [bool(r) for r in segments["retransmission"]],
    )


def delivered_at(series, at_s: float) -> int | None:
    """Bytes delivered in order by `at_s` (the highest count observed at or
    before it); None before the first observation."""
    return _native().delivered_at(*_series(series), at_s)


def delivered_after(series, at_s: float) -> int:
    """Bytes delivered in order after `at_s` (0: the transfer stalled)."""
    return _native().delivered_after(*_series(series), at_s)


def goodput_between(series, from_s: float, to_s: float) -> float | None:
    """Goodput in bit/s between two instants (bytes delivered in order
    between them, over their distance)."""
    return _native().goodput_between(*_series(series), from_s, to_s)


def interruption(series, event_s: float) -> tuple[float | None, float | None]:
    """`(start_s, end_s)` of the delivery interruption around `event_s` on a
    sampled series: the last in-order delivery at or before the first sample
    at or after the event, to the first new delivery after it. `(None,
    None)` if nothing was delivered before; `end_s` None if delivery never
    resumed."""
    return _native().interruption_sampled(*_series(series), event_s)


def interruption_around(t_s, delivered, event_s: float) -> tuple[float | None, float | None]:
    """`(start_s, end_s)` of the delivery interruption around `event_s` on
    exact observations (a capture's ACKs, a kernel's byte counter read at
    its own times): the last in-order delivery at or before the event to
    the first new one after it; `(None, None)` if nothing was delivered
    before; `end_s` None if delivery never resumed. Times must not go back."""
    return _native().interruption([float(t) for t in t_s], [int(b) for b in delivered], event_s)


def first_data_after(segments, at_s: float) -> float | None:
    """Time of the sender's first data segment (more than 1 byte) after `at_s`."""
    return _native().first_data_after(*_segments(segments), at_s)


def timeouts_after(timeouts_s, at_s: float) -> tuple[int, float | None]:
    """`(count, first)` of the timeout instants strictly after `at_s`."""
    return _native().timeouts_after([float(t) for t in timeouts_s], at_s)


def first_retransmission_after(segments, at_s: float) -> tuple[int, list[float]] | None:
    """`(seq, send times)` of the first segment retransmitted after `at_s`:
    every transmission of that sequence number, the original included."""
    return _native().first_retransmission_after(*_segments(segments), at_s)


def segment_delays(segments, series):
    """`(seqs, delays_s)` as numpy arrays: each segment's first transmission
    to the first sample whose in-order count reaches its end (exact to one
    sample interval); segments never delivered are left out."""
    import numpy as np

    seqs, delays = _native().segment_delays(*_segments(segments), *_series(series))
    return np.asarray(seqs, dtype=np.int64), np.asarray(delays, dtype=float)


def sample_mean(series, column: str, from_s: float = 0.0) -> float | None:
    """Mean of a sampled column (e.g. ``cwnd``) over the samples at or after
    `from_s`, NaN skipped: a time average for evenly spaced samples."""
    if series is None or not len(series) or column not in series:
        return None
    return _native().sample_mean([float(t) for t in series["t_s"]], [float(v) for v in series[column]], from_s)


def sample_median(series, column: str, until_s: float) -> float | None:
    """Median of a sampled column (e.g. ``rto_s``) over the samples at or
    before `until_s`, NaN skipped."""
    if series is None or not len(series) or column not in series:
        return None
    return _native().sample_median([float(t) for t in series["t_s"]], [float(v) for v in series[column]], until_s)


def longest_stall(series, start_s: float = 0.0) -> float | None:
    """Longest time without new in-order delivery, from `start_s` (the wait
    for the first delivery counts) to the last sample (a trailing silence
    counts)."""
    return _native().longest_stall(*_series(series), start_s)


def delivery_steps(series, mss: int) -> list[tuple[int, int]]:
    """`[(segments, times)]`: the sizes of the jumps in delivered data
    between samples, in segments, most frequent first."""
    return _native().delivery_steps(*_series(series), mss)


def recovery_cuts(series) -> list[float]:
    """``ssthresh / cwnd`` at each entry into fast recovery (``ca_state``
    Recovery, by name or Linux's code 3), cwnd of the sample before."""
    if series is None or not len(series):
        return []
    state = [x in (3, "Recovery") for x in series["ca_state"].tolist()]
    return _native().recovery_cuts(state, [float(c) for c in series["cwnd"]], [float(s) for s in series["ssthresh"]])
