//! UCC "5G production dataset" drive logs (G-NetTrack Pro CSV; Raca et al.,
//! "Beyond Throughput, The Next Generation: A 5G Dataset with Channel and
//! Context Metrics", ACM MMSys 2020).
//!
//! Columns used (found by header name, so column order does not matter):
//! - `Timestamp` `YYYY.MM.DD_HH.MM.SS` (local time, 1 s resolution; repeated
//!   seconds give samples at the same instant, the later one wins);
//! - `CellID` serving cell id (a change = handoff; it also changes when the
//!   radio technology changes, e.g. 5G NSA -> HSPA+);
//! - `RSRP` dBm -> `signal_dbm`; `-` and the sentinel -200 mean "no reading"
//!   and hold the previous value (leading gaps take the first reading);
//! - `SNR` dB -> `snr_db` (`-` -> none; it is absent on 3G rows);
//! - `DL_bitrate` kbit/s -> `reported_throughput_bps`, only on rows whose
//!   `State` contains `D` (downloading); idle rows report no throughput.
//!   This is the download's goodput, a lower bound on capacity.
//!
//! Every row must have as many fields as the header (a shorter row is
//! reported as truncated) and timestamps must not decrease.

use airtcp_core::Instant;

use super::drive::{days_from_civil, hold_and_backfill, parse_f64, DriveLogKind, DriveSample, DriveTimeline};
use super::error::{split_csv_row, TraceError};

/// RSRP value G-NetTrack writes when it has no reading.
const RSRP_SENTINEL: f64 = -200.0;

/// Longest log accepted: 100 years, far below what an [`Instant`] holds.
const MAX_SPAN_SECS: u64 = 100 * 366 * 86_400;

pub fn parse_ucc(name: &str, text: &str) -> Result<DriveTimeline, TraceError> {
    let mut lines = text.lines().enumerate();
    let header = match lines.next() {
        Some((_, h)) => h.trim_start_matches('\u{feff}'),
        None => return Err(TraceError::whole(name, "file is empty (expected a CSV header)")),
    };
    let cols: Vec<&str> = header.split(',').map(str::trim).collect();
    let col = |want: &str| -> Result<usize, TraceError> {
        cols.iter()
            .position(|c| *c == want)
            .ok_or_else(|| TraceError::at(name, 1, format!("header has no {want:?} column")))
    };
    let (c_ts, c_cell, c_rsrp, c_snr, c_dl, c_state) =
        (col("Timestamp")?, col("CellID")?, col("RSRP")?, col("SNR")?, col("DL_bitrate")?, col("State")?);

    let mut samples = Vec::new();
    let mut signals: Vec<Option<f64>> = Vec::new();
    let mut first_secs: Option<i64> = None;
    let mut prev_secs = i64::MIN;
    let mut fields: Vec<&str> = Vec::with_capacity(cols.len());
    for (i, raw) in lines {
        let line_no = i + 1;
        if !split_csv_row(name, line_no, raw, cols.len(), &mut fields)? {
            continue;
        }
        let secs = parse_timestamp(fields[c_ts]).ok_or_else(|| {
            TraceError::at(
                name,
                line_no,
                format!("column Timestamp: expected YYYY.MM.DD_HH.MM.SS, found {:?}", fields[c_ts]),
            )
        })?;
        if secs < prev_secs {
            return Err(TraceError::at(
                name,
                line_no,
                format!("timestamp {} is earlier than the previous row's", fields[c_ts]),
            ));
        }
        prev_secs = secs;
        let t0 = *first_secs.get_or_insert(secs);

        let cell = fields[c_cell].trim();
        if cell.is_empty() || cell == "-" {
            return Err(TraceError::at(name, line_no, "column CellID: missing serving cell id"));
        }
        let rsrp = match fields[c_rsrp].trim() {
            "-" => None,
            f => Some(parse_f64(name, line_no, "RSRP", f)?).filter(|v| *v > RSRP_SENTINEL),
        };
        let snr = match fields[c_snr].trim() {
            "-" => None,
            f => Some(parse_f64(name, line_no, "SNR", f)?),
        };
        let downloading = fields[c_state].contains('D');
        let dl = match fields[c_dl].trim() {
            "-" => None,
            f => Some(parse_f64(name, line_no, "DL_bitrate", f)? * 1000.0),
        }
        .filter(|_| downloading);

        // Nanosecond instants reach 584 years; a typo in a year must not wrap.
        let since_first = (secs - t0) as u64;
        if since_first > MAX_SPAN_SECS {
            return Err(TraceError::at(
                name,
                line_no,
                format!("timestamp {} is more than 100 years after the first row's", fields[c_ts]),
            ));
        }

        signals.push(rsrp);
        samples.push(DriveSample {
            t: Instant::from_secs(since_first),
            signal_dbm: 0.0,
            snr_db: snr,
            reported_throughput_bps: dl,
            cell: cell.to_string(),
        });
    }
    if hold_and_backfill(&mut signals).is_none() {
        return Err(TraceError::whole(name, "no row has a valid RSRP reading"));
    }
    for (s, v) in samples.iter_mut().zip(signals) {
        s.signal_dbm = v.unwrap_or(RSRP_SENTINEL);
    }
    DriveTimeline::from_samples(name, DriveLogKind::Ucc5g, samples)
}

/// `YYYY.MM.DD_HH.MM.SS` -> seconds since 1970 (the zone does not matter,
/// only differences are used).
fn parse_timestamp(s: &str) -> Option<i64> {
    let (date, time) = s.trim().split_once('_')?;
    let mut d = date.split('.');
    let (y, mo, da) = (d.next()?.parse::<i64>().ok()?, d.next()?.parse::<u32>().ok()?, d.next()?.parse::<u32>().ok()?);
    let mut t = time.split('.');
    let (h, mi, se) = (t.next()?.parse::<u32>().ok()?, t.next()?.parse::<u32>().ok()?, t.next()?.parse::<u32>().ok()?);
    if d.next().is_some()
        || t.next().is_some()
        || !(0..=9999).contains(&y)
        || !(1..=12).contains(&mo)
        || !(1..=31).contains(&da)
        || h > 23
        || mi > 59
        || se > 60
    {
        return None;
    }
    Some(days_from_civil(y, mo, da) * 86_400 + (h * 3600 + mi * 60 + se) as i64)
}
