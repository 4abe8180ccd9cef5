//! FEUP vehicular Wi-Fi drive-bys (adamiaonr/wifi-vehicles,
//! `final-exp-log.csv`): one row per (AP, client, second).
//!
//! Columns used (by header name): `senderId` (AP), `receiverId` (client),
//! `systime` (Unix s; t = 0 at the first selected second), `rssiMean` (dBm,
//! -100 = no frames that second; kept as -100 so the mapping gives no
//! capacity), `isIperfOn`, `nBytesReceived` (bytes in that second ->
//! `reported_throughput_bps` = 8 x bytes, only while iperf ran).
//!
//! The log has no BSSID or association column: each client stayed on one AP
//! for the whole experiment. So there are two ways to read it:
//! - [`FeupSelect::Link`]: one AP->client link as it was measured; the cell
//!   is the AP name and never changes (no handoffs);
//! - [`FeupSelect::StrongestAp`] (default): a *virtual* roaming client that,
//!   each second, stays on its AP unless another AP's RSSI exceeds it by more
//!   than `hysteresis_db` (or its AP has no row that second), taking that
//!   AP's RSSI and throughput. The four clients rode in the same car, so the
//!   per-AP RSSI over time is what a roaming client would have seen; the
//!   AP changes are synthetic handoffs. Ties go to the lexically smallest AP.
//!
//! Rows must have as many fields as the header, and each link's `systime`
//! must not decrease.

use std::collections::BTreeMap;

use airtcp_core::Instant;

use super::drive::{parse_f64, DriveLogKind, DriveSample, DriveTimeline};
use super::error::{split_csv_row, TraceError};

#[derive(Clone, Debug, PartialEq)]
pub enum FeupSelect {
    /// One measured link, e.g. `sender = "ap2", receiver = "m1"`.
    Link { sender: String, receiver: String },
    /// Virtual roaming client over all APs (see the module documentation).
    StrongestAp { hysteresis_db: f64 },
}

impl Default for FeupSelect {
    /// 5 dB hysteresis: a common roaming-threshold choice; with 3 dB the
    /// co-sited 2.4/5 GHz APs swap about every 19 s on average over the
    /// whole log (202 changes in 3749 s), which is flapping, not roaming.
    fn default() -> Self {
        FeupSelect::StrongestAp { hysteresis_db: 5.0 }
    }
}

struct Row {
    systime: f64,
    rssi: f64,
    bytes: f64,
    iperf: bool,
}

pub fn parse_feup(name: &str, text: &str, select: &FeupSelect) -> Result<DriveTimeline, TraceError> {
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
    let (c_snd, c_rcv, c_time, c_rssi, c_iperf, c_bytes) = (
        col("senderId")?,
        col("receiverId")?,
        col("systime")?,
        col("rssiMean")?,
        col("isIperfOn")?,
        col("nBytesReceived")?,
    );

    // (sender, receiver) -> rows; BTreeMap keeps the AP order deterministic.
    let mut links: BTreeMap<(String, String), Vec<Row>> = BTreeMap::new();
    let mut fields: Vec<&str> = Vec::with_capacity(cols.len());
    for (i, raw) in lines {
        let line_no = i + 1;
        if !split_csv_row(name, line_no, raw, cols.len(), &mut fields)? {
            continue;
        }
        let key = (fields[c_snd].trim().to_string(), fields[c_rcv].trim().to_string());
        if key.0.is_empty() || key.1.is_empty() {
            return Err(TraceError::at(name, line_no, "missing senderId or receiverId"));
        }
        let row = Row {
            systime: parse_f64(name, line_no, "systime", fields[c_time])?,
            rssi: parse_f64(name, line_no, "rssiMean", fields[c_rssi])?,
            bytes: parse_f64(name, line_no, "nBytesReceived", fields[c_bytes])?,
            iperf: parse_f64(name, line_no, "isIperfOn", fields[c_iperf])? >= 0.5,
        };
        let rows = links.entry(key).or_default();
        if let Some(prev) = rows.last() {
            if row.systime < prev.systime {
                return Err(TraceError::at(
                    name,
                    line_no,
                    format!("systime {} is earlier than this link's previous row", fields[c_time]),
                ));
            }
        }
        rows.push(row);
    }

    let sample = |t0: f64, ap: &str, r: &Row| DriveSample {
        t: Instant::from_nanos(((r.systime - t0) * 1e9).round() as u64),
        signal_dbm: r.rssi,
        snr_db: None,
        reported_throughput_bps: if r.iperf { Some(r.bytes * 8.0) } else { None },
        cell: ap.to_string(),
    };

    let samples = match select {
        FeupSelect::Link { sender, receiver } => {
            let rows = links.get(&(sender.clone(), receiver.clone())).ok_or_else(|| {
                let have: Vec<String> = links.keys().map(|(s, r)| format!("{s}->{r}")).collect();
                TraceError::whole(
                    name,
                    format!("no rows for link {sender}->{receiver} (links present: {})", have.join(", ")),
                )
            })?;
            let t0 = rows.first().map_or(0.0, |r| r.systime);
            rows.iter().map(|r| sample(t0, sender, r)).collect()
        }
        FeupSelect::StrongestAp { hysteresis_db } => {
            // Per second: the row of each AP (first receiver seen for it).
            let mut by_time: BTreeMap<i64, Vec<(&str, &Row)>> = BTreeMap::new();
            for ((snd, _), rows) in &links {
                for r in rows {
                    let slot = by_time.entry(r.systime.round() as i64).or_default();
                    if !slot.iter().any(|(ap, _)| *ap == snd.as_str()) {
                        slot.push((snd.as_str(), r));
                    }
                }
            }
            let t0 = by_time.values().next().and_then(|v| v.first()).map_or(0.0, |(_, r)| r.systime);
            let mut current: Option<&str> = None;
            let mut out = Vec::with_capacity(by_time.len());
            for aps in by_time.values() {
                // Strongest this second; ties -> smallest AP name (links are
                // visited in name order, and `>` keeps the first).
                let mut best = aps[0];
                for &cand in &aps[1..] {
                    if cand.1.rssi > best.1.rssi || (cand.1.rssi == best.1.rssi && cand.0 < best.0) {
                        best = cand;
                    }
                }
                let chosen = match current.and_then(|c| aps.iter().find(|(ap, _)| *ap == c)) {
                    Some(&cur) if best.1.rssi <= cur.1.rssi + hysteresis_db => cur,
                    _ => best,
                };
                current = Some(chosen.0);
                out.push(sample(t0, chosen.0, chosen.1));
            }
            out
        }
    };
    DriveTimeline::from_samples(name, DriveLogKind::FeupWifi, samples)
}
