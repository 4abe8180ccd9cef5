//! What drive logs a study can use: a directory walk that parses every log it
//! recognises and summarises it under the default mapping for its kind.

use std::path::{Path, PathBuf};

use airtcp_core::{Duration, Instant};

use super::drive::{DriveLogKind, DriveTimeline};
use super::drive_link::{DriveLink, DriveLinkConfig};
use super::error::{read_to_string, TraceError};

/// Summary of one drive log.
#[derive(Clone, Debug, PartialEq)]
pub struct DriveLogInfo {
    pub path: PathBuf,
    pub kind: DriveLogKind,
    pub duration: Duration,
    pub samples: usize,
    pub handoffs: usize,
    /// Time-weighted over the log, outages included, under
    /// [`DriveLinkConfig::for_kind`].
    pub mean_capacity_bps: f64,
    /// Time-weighted mean of the loss curve over the log.
    pub mean_loss: f64,
}

/// Parses and summarises one log (format sniffed from its content).
pub fn describe_drive_log(path: &Path) -> Result<DriveLogInfo, TraceError> {
    let timeline = DriveTimeline::from_path(path)?;
    summarise(path, &timeline)
}

fn summarise(path: &Path, timeline: &DriveTimeline) -> Result<DriveLogInfo, TraceError> {
    let link = DriveLink::new(timeline, &DriveLinkConfig::for_kind(timeline.kind), Instant::ZERO)?;
    let end = Instant(timeline.duration().0.max(1));
    // Loss is sampled per log sample, weighted by how long it holds.
    let s = &timeline.samples;
    let mut loss_acc = 0.0;
    for (i, x) in s.iter().enumerate() {
        let until = s.get(i + 1).map_or(end, |n| n.t);
        loss_acc += link.loss_prob(x.t) * until.saturating_since(x.t).0 as f64;
    }
    Ok(DriveLogInfo {
        path: path.to_path_buf(),
        kind: timeline.kind,
        duration: timeline.duration(),
        samples: s.len(),
        handoffs: timeline.handoffs.len(),
        mean_capacity_bps: link.mean_capacity_bps(Instant::ZERO, end),
        mean_loss: loss_acc / end.0 as f64,
    })
}

/// Every recognised drive log under `dir` (recursively), sorted by path.
/// Files whose content is not a known format (e.g. FEUP `trace-info.csv`,
/// Mahimahi traces, SOURCES.md) are skipped; a recognised log that fails to
/// parse is an error.
pub fn list_drive_logs(dir: &Path) -> Result<Vec<DriveLogInfo>, TraceError> {
    let mut files = Vec::new();
    walk(dir, &mut files)?;
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let is_log = matches!(path.extension().and_then(|e| e.to_str()), Some("csv" | "out"));
        if !is_log {
            continue;
        }
        let (name, text) = read_to_string(&path)?;
        if DriveLogKind::sniff(&text).is_none() {
            continue;
        }
        let timeline = DriveTimeline::parse_auto(&name, &text)?;
        out.push(summarise(&path, &timeline)?);
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), TraceError> {
    let name = dir.display().to_string();
    let entries = std::fs::read_dir(dir).map_err(|e| TraceError::whole(&name, format!("cannot list: {e}")))?;
    for entry in entries {
        let path = entry.map_err(|e| TraceError::whole(&name, format!("cannot list: {e}")))?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}
