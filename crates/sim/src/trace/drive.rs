//! A drive log reduced to what a link model needs: when the signal was what,
//! which cell served the phone, and when that cell changed.
//!
//! Each source format has its own parser (`ucc`, `imc23`, `feup`); they all
//! produce a [`DriveTimeline`], so the link model and the study code do not
//! care where a log came from. Picking the parser for a file is
//! `drive_dispatch.rs`, so that this file, which the parsers build on, knows
//! none of them.

use airtcp_core::{Duration, Instant};

use super::error::TraceError;

/// Serving cell (or access point) identity as written in the log, e.g. an
/// LTE ECI `"21545987"`, a UCC `CellID` `"13"` or an AP name `"ap2"`.
pub type CellId = String;

/// One point of a drive log. Values hold until the next sample.
#[derive(Clone, Debug, PartialEq)]
pub struct DriveSample {
    /// Time since the first timestamped line of the log.
    pub t: Instant,
    /// RSRP (cellular) or RSSI (Wi-Fi), dBm.
    pub signal_dbm: f64,
    /// SNR/RSSNR reported by the device, dB, when the log has it.
    pub snr_db: Option<f64>,
    /// Throughput the measuring application saw in this sample, bit/s.
    pub reported_throughput_bps: Option<f64>,
    pub cell: CellId,
}

/// A change of serving cell between two consecutive samples.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handoff {
    /// Time of the first sample on the new cell.
    pub t: Instant,
    pub from: CellId,
    pub to: CellId,
}

/// Which parser produced a timeline (and which default link mapping fits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DriveLogKind {
    /// UCC 5G production dataset, G-NetTrack CSV (cellular_5g_ucc_driving).
    Ucc5g,
    /// IMC'23 "cellinfo" Android logcat (cellular_handover_logs_imc23).
    Imc23,
    /// FEUP vehicular Wi-Fi, `final-exp-log.csv` (wifi_vehicular_feup).
    FeupWifi,
}

impl DriveLogKind {
    pub fn name(self) -> &'static str {
        match self {
            DriveLogKind::Ucc5g => "ucc",
            DriveLogKind::Imc23 => "imc23",
            DriveLogKind::FeupWifi => "feup",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "ucc" => Some(DriveLogKind::Ucc5g),
            "imc23" => Some(DriveLogKind::Imc23),
            "feup" => Some(DriveLogKind::FeupWifi),
            _ => None,
        }
    }
}

/// A parsed drive log.
#[derive(Clone, Debug, PartialEq)]
pub struct DriveTimeline {
    /// File name or path the log came from (used in errors).
    pub source: String,
    pub kind: DriveLogKind,
    /// Non-decreasing in `t`; never empty.
    pub samples: Vec<DriveSample>,
    /// Derived from `samples`: one entry per consecutive change of `cell`.
    pub handoffs: Vec<Handoff>,
}

impl DriveTimeline {
    /// Builds a timeline, deriving handoffs. Errors if `samples` is empty.
    pub fn from_samples(source: &str, kind: DriveLogKind, samples: Vec<DriveSample>) -> Result<Self, TraceError> {
        if samples.is_empty() {
            return Err(TraceError::whole(source, "log has no usable samples"));
        }
        let handoffs = samples
            .windows(2)
            .filter(|w| w[0].cell != w[1].cell)
            .map(|w| Handoff { t: w[1].t, from: w[0].cell.clone(), to: w[1].cell.clone() })
            .collect();
        Ok(DriveTimeline { source: source.to_string(), kind, samples, handoffs })
    }

    /// Time of the last sample (the log's length).
    pub fn duration(&self) -> Duration {
        Duration(self.samples.last().map_or(0, |s| s.t.0))
    }
}

/// Fills `None` entries with the previous value, and leading `None`s with
/// the first value; returns `None` if every entry is `None`. Logs drop
/// readings now and then; holding the last one is what the phone displayed.
pub(crate) fn hold_and_backfill<T: Clone>(values: &mut [Option<T>]) -> Option<()> {
    let first = values.iter().find_map(|v| v.clone())?;
    let mut last = first;
    for v in values.iter_mut() {
        match v {
            Some(x) => last = x.clone(),
            None => *v = Some(last.clone()),
        }
    }
    Some(())
}

/// Parses a field as `f64`, naming the column on failure.
pub(crate) fn parse_f64(file: &str, line: usize, column: &str, field: &str) -> Result<f64, TraceError> {
    match field.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(TraceError::at(file, line, format!("column {column}: expected a number, found {field:?}"))),
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
/// "days_from_civil" algorithm, public-domain description in
/// <http://howardhinnant.github.io/date_algorithms.html>).
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}
