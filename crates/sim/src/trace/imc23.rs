//! IMC'23 "Performance of Cellular Networks on the Wheels" (Ghoshal et al.,
//! ACM IMC 2023) handover logs: Android logcat text from the "cellinfo"
//! logger app.
//!
//! Lines used (everything else, e.g. ping replies, GPS, NR lines, is read
//! only for its timestamp):
//! - every non-empty line except logcat section markers (`--------- ...`)
//!   must start with `MM-DD HH:MM:SS.mmm`; the first such line is t = 0;
//!   timestamps must not decrease (no year is logged: a drive crossing New
//!   Year is rejected rather than guessed);
//! - `onCellInfoChanged: LTE Cell Bands: ... Cell ID: <ECI> Physical Cell ID:
//!   <PCI> ... EARFCN: <n>` sets the serving LTE cell as the radio knows
//!   it: `pci<PCI>@<EARFCN>`. A handover (3GPP TS 36.331 5.3.5.4,
//!   `mobilityControlInfo`) moves the UE to a target named by its physical
//!   cell identity and carrier frequency; the E-UTRAN Cell Identifier is a
//!   network-management name the phone reports, which can change without a
//!   handover (a re-read of system information, the "unavailable" sentinel
//!   9223372036854775807 coming and going) and could stay the same across
//!   one. The ECI is still checked to be present and numeric. The line also
//!   emits a sample at that instant, so a handoff is dated by the cell-info
//!   line that announced it;
//! - `onsignalStrengthsChanged: LTE Signal Strength info: rsrp: <dBm> ...
//!   rssnr: <dB>` emits a sample (RSRP -> `signal_dbm`, RSSNR -> `snr_db`);
//!   the sentinel 2147483647 means "no reading" and the previous value is
//!   held. Cell-info samples carry the latest readings.
//!
//! 5G-NR cell-info and signal lines are ignored: the phones ran NR
//! non-standalone, so the LTE anchor cell is the serving cell whose change
//! interrupts data; counting NR/LTE alternations would invent handoffs.
//! Samples before the first LTE cell-info line take the first cell; samples
//! before the first signal reading take the first reading. The logs have no
//! throughput column (`reported_throughput_bps` is `None`).

use airtcp_core::Instant;

use super::drive::{days_from_civil, hold_and_backfill, parse_f64, DriveLogKind, DriveSample, DriveTimeline};
use super::error::TraceError;

/// Java `Integer.MAX_VALUE`, logged when a signal value is unavailable.
const INT_UNAVAILABLE: f64 = 2_147_483_647.0;

const LTE_CELL: &str = "onCellInfoChanged: LTE Cell Bands:";
const LTE_SIGNAL: &str = "onsignalStrengthsChanged: LTE Signal Strength info:";

/// `MM-DD HH:MM:SS.mmm` at the start of a logcat line -> ms since Jan 1 of a
/// non-leap year, plus the rest of the line.
pub(crate) fn parse_logcat_time(line: &str) -> Option<(u64, &str)> {
    let b = line.as_bytes();
    if b.len() < 18 || b[2] != b'-' || b[5] != b' ' || b[8] != b':' || b[11] != b':' || b[14] != b'.' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u64> {
        let s = line.get(r)?;
        if s.bytes().all(|c| c.is_ascii_digit()) {
            s.parse().ok()
        } else {
            None
        }
    };
    let (mo, d, h, mi, s, ms) = (num(0..2)?, num(3..5)?, num(6..8)?, num(9..11)?, num(12..14)?, num(15..18)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let day = (days_from_civil(2022, mo as u32, d as u32) - days_from_civil(2022, 1, 1)) as u64;
    Some((((day * 24 + h) * 60 + mi) * 60_000 + s * 1000 + ms, &line[18..]))
}

/// The whitespace-delimited token after `key`.
fn token_after<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = line.find(key)? + key.len();
    line[at..].split_whitespace().next()
}

fn required<'a>(name: &str, line_no: usize, line: &'a str, key: &str) -> Result<&'a str, TraceError> {
    token_after(line, key)
        .ok_or_else(|| TraceError::at(name, line_no, format!("truncated line: no value after {:?}", key.trim())))
}

pub fn parse_imc23(name: &str, text: &str) -> Result<DriveTimeline, TraceError> {
    let mut t0: Option<u64> = None;
    let mut prev_ms = 0u64;
    let mut cell: Option<String> = None;
    let mut first_cell: Option<String> = None;
    let mut rsrp: Option<f64> = None;
    let mut snr: Option<f64> = None;
    let mut samples = Vec::new();
    let mut signals: Vec<Option<f64>> = Vec::new();
    let mut cells: Vec<Option<String>> = Vec::new();

    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with("--------- ") {
            continue;
        }
        let (ms, _) = parse_logcat_time(line).ok_or_else(|| {
            TraceError::at(name, line_no, "expected a logcat line starting with 'MM-DD HH:MM:SS.mmm'")
        })?;
        if t0.is_some() && ms < prev_ms {
            return Err(TraceError::at(name, line_no, "timestamp is earlier than the previous line's"));
        }
        prev_ms = ms;
        let t = Instant::from_millis(ms - *t0.get_or_insert(ms));

        if line.contains(LTE_CELL) {
            let eci = required(name, line_no, line, " Cell ID: ")?;
            let pci = required(name, line_no, line, "Physical Cell ID: ")?;
            let earfcn = required(name, line_no, line, "EARFCN: ")?;
            for (what, v) in [("Cell ID", eci), ("Physical Cell ID", pci), ("EARFCN", earfcn)] {
                if !v.bytes().all(|c| c.is_ascii_digit()) {
                    return Err(TraceError::at(name, line_no, format!("{what}: expected an integer, found {v:?}")));
                }
            }
            let id = format!("pci{pci}@{earfcn}");
            first_cell.get_or_insert_with(|| id.clone());
            cell = Some(id);
        } else if line.contains(LTE_SIGNAL) {
            let r = parse_f64(name, line_no, "rsrp", required(name, line_no, line, "rsrp: ")?)?;
            let s = parse_f64(name, line_no, "rssnr", required(name, line_no, line, "rssnr: ")?)?;
            if r != INT_UNAVAILABLE {
                rsrp = Some(r);
            }
            if s != INT_UNAVAILABLE {
                snr = Some(s);
            }
        } else {
            continue;
        }
        signals.push(rsrp);
        cells.push(cell.clone());
        samples.push(DriveSample {
            t,
            signal_dbm: 0.0,
            snr_db: snr,
            reported_throughput_bps: None,
            cell: String::new(),
        });
    }
    if first_cell.is_none() {
        return Err(TraceError::whole(name, "no 'LTE Cell Bands' cell-info line: the serving cell is unknown"));
    }
    if hold_and_backfill(&mut signals).is_none() {
        return Err(TraceError::whole(name, "no 'LTE Signal Strength info' line with an rsrp reading"));
    }
    hold_and_backfill(&mut cells);
    for ((s, sig), c) in samples.iter_mut().zip(signals).zip(cells) {
        s.signal_dbm = sig.unwrap_or_default();
        s.cell = c.unwrap_or_default();
    }
    DriveTimeline::from_samples(name, DriveLogKind::Imc23, samples)
}
