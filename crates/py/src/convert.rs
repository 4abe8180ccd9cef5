//! Rust run outputs to Python values: columns become `{name: list}` dicts
//! (pandas builds a DataFrame from that directly), events a list of dicts.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use airtcp_sim::{ca_state_name, FlowSeries, LogEvent, SegmentLog, UdpSeries};

/// `dict[name] = list(src.name)` for each named field, in order.
macro_rules! set_columns {
    ($dict:expr, $src:expr, $($field:ident),* $(,)?) => {
        $( $dict.set_item(stringify!($field), &$src.$field)?; )*
    };
}

/// `ca_state` as its Linux name ("Open", "Recovery", ...), as in the CSV.
pub fn series_dict<'py>(py: Python<'py>, s: &FlowSeries) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    set_columns!(
        d,
        s,
        t_s,
        cwnd,
        ssthresh,
        srtt_s,
        rto_s,
        snd_una,
        snd_nxt,
        bytes_delivered
    );
    let names: Vec<&'static str> = s.ca_state.iter().map(|&c| ca_state_name(c)).collect();
    d.set_item("ca_state", names)?;
    Ok(d)
}

/// A UDP flow's receiver series, the columns of `udp<i>.csv`.
pub fn udp_series_dict<'py>(py: Python<'py>, s: &UdpSeries) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    set_columns!(d, s, t_s, sent, received, bytes_received, lost, jitter_s, delay_s);
    Ok(d)
}

pub fn segments_dict<'py>(py: Python<'py>, s: &SegmentLog) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    set_columns!(d, s, t_s, seq, len, retransmission);
    Ok(d)
}

/// One dict per event, keys as in `events.jsonl`.
pub fn events_list<'py>(py: Python<'py>, events: &[LogEvent]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for e in events {
        let d = PyDict::new(py);
        d.set_item("t_s", e.t_s)?;
        d.set_item("kind", &e.kind)?;
        d.set_item("flow", e.flow)?;
        d.set_item("link", e.link)?;
        d.set_item("detail", &e.detail)?;
        list.append(d)?;
    }
    Ok(list)
}
