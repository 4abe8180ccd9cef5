"""airtcp.metrics: the Rust definitions reached from Python with a run's
DataFrames (times in seconds). Exact values on small hand-built
conversations, and on a real run the same values as the Python the studies
used before (kept here as the reference)."""

import numpy as np
import pandas as pd
import pytest

import airtcp
from airtcp import metrics

MSS = 1000


def series(counts, step=0.01):
    """`counts[i]` segments delivered by `(i + 1) * step` s."""
    return pd.DataFrame({"t_s": [(i + 1) * step for i in range(len(counts))], "bytes_delivered": [c * MSS for c in counts]})


def segments(rows):
    """rows: (t_s, segment number, retransmission)."""
    return pd.DataFrame({"t_s": [r[0] for r in rows], "seq": [r[1] * MSS for r in rows], "len": [MSS] * len(rows), "retransmission": [r[2] for r in rows]})


#: Two segments delivered, a handoff at 25 ms, nothing until 60 ms, two more.
HANDOFF = series([1, 2, 2, 2, 2, 3, 4])


def test_delivered_at_after_and_goodput_between():
    assert metrics.delivered_at(HANDOFF, 0.005) is None
    assert metrics.delivered_at(HANDOFF, 0.059) == 2000
    assert metrics.delivered_after(HANDOFF, 0.025) == 2000
    assert metrics.delivered_after(HANDOFF, 0.07) == 0
    assert metrics.goodput_between(HANDOFF, 0.02, 0.07) == pytest.approx(320_000.0, rel=1e-12)


def test_interruption_anchors_at_first_sample_after_event():
    start, end = metrics.interruption(HANDOFF, 0.015)
    assert (round(start, 9), round(end, 9)) == (0.02, 0.06)
    assert metrics.interruption(HANDOFF, 5.0) == (pytest.approx(0.07), None)
    # The first sample after the event (10 ms) holds no delivery yet: no gap.
    assert metrics.interruption(series([0, 0, 1]), 0.005) == (None, None)


def test_segment_metrics():
    seg = segments([(0.001, 0, False), (0.002, 1, False), (0.003, 2, False), (0.045, 1, True), (0.3, 1, True)])
    assert metrics.first_data_after(seg, 0.002) == pytest.approx(0.003)
    assert metrics.first_retransmission_after(seg, 0.01) == (1000, [0.002, 0.045, 0.3])
    seqs, delays = metrics.segment_delays(seg, series([1, 1, 1, 1, 3]))
    assert seqs.tolist() == [0, 1000, 2000]
    assert np.round(delays, 9).tolist() == [0.009, 0.048, 0.047]
    assert metrics.timeouts_after([0.2, 1.2, 3.2], 0.2) == (2, 1.2)


def test_sampled_columns_stall_steps_and_cuts():
    s = pd.DataFrame({"t_s": [0.0, 0.01, 0.02, 0.03], "rto_s": [1.0, np.nan, 0.2, 0.4]})
    assert metrics.sample_median(s, "rto_s", 0.03) == pytest.approx(0.4)
    assert metrics.sample_mean(s, "rto_s", 0.01) == pytest.approx(0.3)
    assert metrics.longest_stall(HANDOFF) == pytest.approx(0.04)
    assert metrics.delivery_steps(series([50, 50, 100, 150, 152]), MSS) == [(50, 2), (2, 1)]
    ca = pd.DataFrame({"ca_state": ["Open", "Open", "Recovery", "Open", 3], "cwnd": [10.0, 20.0, 16.0, 30.0, 15.0], "ssthresh": [2**31 - 1, 10.0, 16.0, 16.0, 15.0]})
    assert metrics.recovery_cuts(ca) == [0.8, 0.5]


def test_length_mismatch_is_a_clear_error():
    from airtcp import _native

    with pytest.raises(ValueError, match="delivered_at: 2 times but 1 values"):
        _native.delivered_at([0.0, 1.0], [5], 1.0)


# --- the Python definitions the studies used before, as the reference ---------------


def old_segment_delays(seg, ts):
    first = seg[~seg["retransmission"].astype(bool)].drop_duplicates("seq")
    ends = (first["seq"] + first["len"]).to_numpy()
    delivered = ts["bytes_delivered"].to_numpy()
    idx = np.searchsorted(delivered, ends, side="left")
    ok = idx < len(delivered)
    return first["seq"].to_numpy()[ok], ts["t_s"].to_numpy()[idx[ok]] - first["t_s"].to_numpy()[ok]


def old_longest_stall(ts):
    t, b = ts["t_s"].to_numpy(), ts["bytes_delivered"].to_numpy()
    last_t, last_b, worst = 0.0, 0, 0.0
    for ti, bi in zip(t, b):
        if bi > last_b:
            worst = max(worst, ti - last_t)
            last_t, last_b = ti, bi
    return float(max(worst, t[-1] - last_t))


def test_same_values_as_the_studies_python_on_a_lossy_run(small_scenario):
    r = airtcp.run(small_scenario)
    ts, seg = r.timeseries(0), r.segments(0)
    assert len(seg) > 100 and seg["retransmission"].any()
    seqs, delays = metrics.segment_delays(seg, ts)
    old_seqs, old_delays = old_segment_delays(seg, ts)
    assert seqs.tolist() == old_seqs.tolist()
    np.testing.assert_allclose(delays, old_delays, rtol=0, atol=1e-9)
    assert metrics.longest_stall(ts) == pytest.approx(old_longest_stall(ts), abs=1e-9)
    assert metrics.sample_mean(ts, "cwnd", 1.0) == pytest.approx(float(ts[ts["t_s"] >= 1.0]["cwnd"].mean()), rel=1e-12)
    retx = seg[seg["retransmission"].astype(bool) & (seg["t_s"] > 1.0)]
    old_first = int(retx["seq"].iloc[0])
    assert metrics.first_retransmission_after(seg, 1.0) == (old_first, [float(t) for t in seg[seg["seq"] == old_first]["t_s"]])


def test_a_captures_series_goes_through_the_same_functions(small_scenario, tmp_path):
    """A capture's timeseries (cumulative ACK at the capture point) is a
    delivery series like a run's: the same functions apply unchanged. The
    link's capture stamps an ACK when it leaves the receiver, so it is ahead
    of the sender's count by the ACKs still travelling when the run stops."""
    run = airtcp.run(small_scenario, out=tmp_path / "run", pcap=True)
    acked = run.summary["flows"][0]["sender"]["bytes_acked"]
    (cap,) = airtcp.analyze(tmp_path / "run", out=tmp_path / "an")  # the one link
    fwd = cap.connections[cap.connections["dir"] == "fwd"].iloc[0]
    ts = cap.timeseries(0)
    t0, t1 = float(ts["t_s"].iloc[0]), float(ts["t_s"].iloc[-1])
    assert metrics.delivered_at(ts, t1) == metrics.delivered_after(ts, t0 - 1.0) == fwd["bytes_delivered"]
    assert 0 < acked <= fwd["bytes_delivered"] <= acked + 10 * 1460
    stall = metrics.longest_stall(ts, 0.0)
    assert stall is not None and 0 < stall < t1
