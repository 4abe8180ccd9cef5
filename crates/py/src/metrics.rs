//! `airtcp._native`'s metric functions: thin wrappers of
//! `airtcp_analyze::metrics` taking columns (times in seconds, counts in
//! bytes) as the Python layer (`airtcp.metrics`) hands them over. Each
//! metric's definition lives in the Rust crate and in docs/analyze.md.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use airtcp_analyze::metrics::{self as m, CaSample, Segment};

fn ns(s: f64) -> i64 {
    (s * 1e9).round() as i64
}

fn secs(ns: i64) -> f64 {
    ns as f64 / 1e9
}

fn same_len(what: &str, a: usize, b: usize) -> PyResult<()> {
    if a == b {
        Ok(())
    } else {
        Err(PyValueError::new_err(format!(
            "{what}: {a} times but {b} values"
        )))
    }
}

/// `(t_ns, bytes)` observations of a delivery series.
fn series(what: &str, t_s: &[f64], delivered: &[u64]) -> PyResult<Vec<(i64, u64)>> {
    same_len(what, t_s.len(), delivered.len())?;
    Ok(t_s
        .iter()
        .zip(delivered)
        .map(|(&t, &b)| (ns(t), b))
        .collect())
}

fn samples(what: &str, t_s: &[f64], values: &[f64]) -> PyResult<Vec<(i64, f64)>> {
    same_len(what, t_s.len(), values.len())?;
    Ok(t_s.iter().zip(values).map(|(&t, &v)| (ns(t), v)).collect())
}

fn segments(t_s: &[f64], seq: &[u64], len: &[u32], retx: &[bool]) -> PyResult<Vec<Segment>> {
    if seq.len() != t_s.len() || len.len() != t_s.len() || retx.len() != t_s.len() {
        return Err(PyValueError::new_err(format!(
            "segments: columns of different lengths (t_s {}, seq {}, len {}, retransmission {})",
            t_s.len(),
            seq.len(),
            len.len(),
            retx.len()
        )));
    }
    Ok((0..t_s.len())
        .map(|i| Segment {
            t_ns: ns(t_s[i]),
            seq: seq[i],
            len: len[i],
            retransmission: retx[i],
        })
        .collect())
}

/// Bytes delivered in order by `at_s` (`None` before the first observation).
#[pyfunction]
fn delivered_at(t_s: Vec<f64>, delivered: Vec<u64>, at_s: f64) -> PyResult<Option<u64>> {
    Ok(m::delivered_at(
        &series("delivered_at", &t_s, &delivered)?,
        ns(at_s),
    ))
}

/// Bytes delivered in order after `at_s`.
#[pyfunction]
fn delivered_after(t_s: Vec<f64>, delivered: Vec<u64>, at_s: f64) -> PyResult<u64> {
    Ok(m::delivered_after(
        &series("delivered_after", &t_s, &delivered)?,
        ns(at_s),
    ))
}

/// Goodput (bit/s) between two instants.
#[pyfunction]
fn goodput_between(
    t_s: Vec<f64>,
    delivered: Vec<u64>,
    from_s: f64,
    to_s: f64,
) -> PyResult<Option<f64>> {
    Ok(m::goodput_between_bps(
        &series("goodput_between", &t_s, &delivered)?,
        ns(from_s),
        ns(to_s),
    ))
}

/// `(start_s, end_s)` of the interruption around `event_s` on a sampled
/// series (`(None, None)` if nothing was delivered before it).
#[pyfunction]
fn interruption_sampled(
    t_s: Vec<f64>,
    delivered: Vec<u64>,
    event_s: f64,
) -> PyResult<(Option<f64>, Option<f64>)> {
    let s = series("interruption_sampled", &t_s, &delivered)?;
    let gap = m::interruption_around_sampled(&s, ns(event_s))
        .map_err(|e| PyValueError::new_err(format!("interruption_sampled: {e}")))?;
    Ok(match gap {
        Some(g) => (Some(secs(g.start_ns)), g.end_ns.map(secs)),
        None => (None, None),
    })
}

/// Time (s) of the sender's first data segment (> 1 byte) after `at_s`.
#[pyfunction]
fn first_data_after(
    t_s: Vec<f64>,
    seq: Vec<u64>,
    len: Vec<u32>,
    retx: Vec<bool>,
    at_s: f64,
) -> PyResult<Option<f64>> {
    Ok(m::first_data_after(&segments(&t_s, &seq, &len, &retx)?, ns(at_s)).map(secs))
}

/// `(count, first_s)` of the timeouts strictly after `at_s`.
#[pyfunction]
fn timeouts_after(times_s: Vec<f64>, at_s: f64) -> (usize, Option<f64>) {
    let t: Vec<i64> = times_s.iter().map(|&s| ns(s)).collect();
    let r = m::timeouts_after(&t, ns(at_s));
    (r.count, r.first_ns.map(secs))
}

/// `(seq, [send times s])` of the first retransmission after `at_s`, or None.
#[pyfunction]
fn first_retransmission_after(
    t_s: Vec<f64>,
    seq: Vec<u64>,
    len: Vec<u32>,
    retx: Vec<bool>,
    at_s: f64,
) -> PyResult<Option<(u64, Vec<f64>)>> {
    let r = m::first_retransmission_after(&segments(&t_s, &seq, &len, &retx)?, ns(at_s));
    Ok(r.map(|r| (r.seq, r.sends_ns.into_iter().map(secs).collect())))
}

/// `(seqs, delays_s)` of every delivered segment's first transmission.
#[pyfunction]
fn segment_delays(
    t_s: Vec<f64>,
    seq: Vec<u64>,
    len: Vec<u32>,
    retx: Vec<bool>,
    series_t_s: Vec<f64>,
    delivered: Vec<u64>,
) -> PyResult<(Vec<u64>, Vec<f64>)> {
    let segs = segments(&t_s, &seq, &len, &retx)?;
    let s = series("segment_delays", &series_t_s, &delivered)?;
    let d = m::segment_delays(&segs, &s);
    Ok((
        d.iter().map(|d| d.seq).collect(),
        d.iter().map(|d| secs(d.delay_ns())).collect(),
    ))
}

/// Mean of the samples at or after `from_s` (NaN skipped).
#[pyfunction]
fn sample_mean(t_s: Vec<f64>, values: Vec<f64>, from_s: f64) -> PyResult<Option<f64>> {
    Ok(m::sample_mean(
        &samples("sample_mean", &t_s, &values)?,
        ns(from_s),
    ))
}

/// Median of the samples at or before `until_s` (NaN skipped).
#[pyfunction]
fn sample_median(t_s: Vec<f64>, values: Vec<f64>, until_s: f64) -> PyResult<Option<f64>> {
    Ok(m::sample_median(
        &samples("sample_median", &t_s, &values)?,
        ns(until_s),
    ))
}

/// Longest time (s) without new in-order delivery from `start_s`.
#[pyfunction]
#[pyo3(signature = (t_s, delivered, start_s=0.0))]
fn longest_stall(t_s: Vec<f64>, delivered: Vec<u64>, start_s: f64) -> PyResult<Option<f64>> {
    Ok(m::longest_stall_ns(&series("longest_stall", &t_s, &delivered)?, ns(start_s)).map(secs))
}

/// `[(segments, times)]` of the jumps in delivered data, most frequent first.
#[pyfunction]
fn delivery_steps(t_s: Vec<f64>, delivered: Vec<u64>, mss: u32) -> PyResult<Vec<(u64, usize)>> {
    if mss == 0 {
        return Err(PyValueError::new_err("delivery_steps: mss must be > 0"));
    }
    Ok(m::delivery_steps(
        &series("delivery_steps", &t_s, &delivered)?,
        mss,
    ))
}

/// `ssthresh / cwnd` at each entry into fast recovery.
#[pyfunction]
fn recovery_cuts(in_recovery: Vec<bool>, cwnd: Vec<f64>, ssthresh: Vec<f64>) -> PyResult<Vec<f64>> {
    if cwnd.len() != in_recovery.len() || ssthresh.len() != in_recovery.len() {
        return Err(PyValueError::new_err(format!(
            "recovery_cuts: columns of different lengths (state {}, cwnd {}, ssthresh {})",
            in_recovery.len(),
            cwnd.len(),
            ssthresh.len()
        )));
    }
    let s: Vec<CaSample> = (0..cwnd.len())
        .map(|i| CaSample {
            in_recovery: in_recovery[i],
            cwnd: cwnd[i],
            ssthresh: ssthresh[i],
        })
        .collect();
    Ok(m::recovery_cuts(&s))
}

/// Register the metric functions on `_native`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(delivered_at, m)?)?;
    m.add_function(wrap_pyfunction!(delivered_after, m)?)?;
    m.add_function(wrap_pyfunction!(goodput_between, m)?)?;
    m.add_function(wrap_pyfunction!(interruption_sampled, m)?)?;
    m.add_function(wrap_pyfunction!(first_data_after, m)?)?;
    m.add_function(wrap_pyfunction!(timeouts_after, m)?)?;
    m.add_function(wrap_pyfunction!(first_retransmission_after, m)?)?;
    m.add_function(wrap_pyfunction!(segment_delays, m)?)?;
    m.add_function(wrap_pyfunction!(sample_mean, m)?)?;
    m.add_function(wrap_pyfunction!(sample_median, m)?)?;
    m.add_function(wrap_pyfunction!(longest_stall, m)?)?;
    m.add_function(wrap_pyfunction!(delivery_steps, m)?)?;
    m.add_function(wrap_pyfunction!(recovery_cuts, m)?)?;
    Ok(())
}
