//! `[links.trace]` (or `trace_ab` / `trace_ba`): a direction whose rate
//! follows a Mahimahi trace or a drive log. Its keys are declared in
//! `trace_keys::TRACE`; this module holds what they resolve to and the
//! helpers that read the file. The trace file is read and parsed
//! while the scenario is validated, so a missing file or a malformed line is a
//! scenario error before anything runs: it names the scenario's file, line and
//! `links[i].trace.file`, then the trace's own `file:line: message`.

use std::path::{Path, PathBuf};

use airtcp_core::Instant;
use serde_json::{json, Value};

use super::units::parse_rate;
use super::value::{describe, Field, R};
use crate::trace::{
    DriveLink, DriveLinkConfig, DriveLogKind, DriveTimeline, FeupSelect, MahimahiSchedule, SignalMapping, TraceError,
};

/// A validated trace for one link direction.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSpec {
    /// The file as opened: relative paths are joined to the scenario file's
    /// directory (to the working directory for scenarios given as text).
    pub file: String,
    pub model: TraceModel,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TraceModel {
    Mahimahi(Box<MahimahiSchedule>),
    Drive(Box<DriveSpec>),
}

/// A drive log turned into a link (time 0 of the run = log time `offset`).
#[derive(Clone, Debug, PartialEq)]
pub struct DriveSpec {
    /// The parser used (after `format = "auto"` sniffing).
    pub format: DriveLogKind,
    /// How a FEUP log was read (None for other formats).
    pub feup: Option<FeupSelect>,
    pub config: DriveLinkConfig,
    /// Handoff outages drop the frames that end inside them (break before
    /// make) instead of stalling the queue (the link forwards buffered data).
    pub handoff_drops: bool,
    /// The rate model: with `handoff_drops` it is built without outages, so
    /// frames keep draining (into the void) during a handoff.
    pub link: DriveLink,
    /// Drop windows `[t, t + handoff_outage)`, merged; empty unless `handoff_drops`.
    pub drop_windows: Vec<(Instant, Instant)>,
    /// Run times at which the log's state changes (each sample and outage
    /// edge, from 0), where the signal/capacity series is sampled.
    pub change_times: Vec<Instant>,
}

impl DriveSpec {
    /// True when the loss curve can lose anything.
    pub fn has_loss(&self) -> bool {
        self.config.loss.max_loss > 0.0
    }
}

impl TraceSpec {
    pub fn kind_name(&self) -> &'static str {
        match self.model {
            TraceModel::Mahimahi(_) => "mahimahi",
            TraceModel::Drive(_) => "drive",
        }
    }

    /// Mean capacity for reports (bit/s).
    pub fn nominal_bps(&self) -> u64 {
        match &self.model {
            TraceModel::Mahimahi(m) => m.capacity_bps().round() as u64,
            TraceModel::Drive(d) => {
                let end = d.link.end().max(Instant(1));
                d.link.mean_capacity_bps(Instant::ZERO, end).round() as u64
            }
        }
    }
}

/// Where a relative trace path is looked up.
pub(super) fn resolve(origin: &str, file: &str) -> PathBuf {
    let p = Path::new(file);
    if p.is_absolute() || origin.starts_with('<') {
        return p.to_path_buf();
    }
    match Path::new(origin).parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(p),
        _ => p.to_path_buf(),
    }
}

/// The trace's text. A file that cannot be opened is reported under the
/// scenario's key; a byte that is not UTF-8 as a bad trace with the log's own
/// `file:line` (the line a user opens in an editor to find it).
pub(super) fn read(f: &Field, path: &Path) -> R<(String, String)> {
    let name = path.display().to_string();
    match std::fs::read(path) {
        Ok(bytes) => crate::trace::error::decode(name, bytes).map_err(|e| trace_err(f, e)),
        Err(e) => Err(f.err(format!("cannot read trace file {name}: {e}"))),
    }
}

pub(super) fn trace_err(f: &Field, e: TraceError) -> crate::scenario::ScenarioError {
    f.err(format!("bad trace: {e}"))
}

/// A rate that may be zero (`min_rate = 0`).
pub(super) fn rate_or_zero(f: &Field) -> R<f64> {
    match f.v {
        Value::Number(n) => match n.as_f64() {
            Some(x) if x >= 0.0 && x.is_finite() => Ok(x),
            _ => Err(f.err(format!("rate {n} must be a non-negative number of bits per second"))),
        },
        Value::String(s) => parse_rate(s).map(|x| x as f64).map_err(|m| f.err(m)),
        other => Err(f.err(format!("expected a rate like \"10Mbps\", got {}", describe(other)))),
    }
}

/// A serde-typed sub-table (`capacity`, `loss`); a `capacity` table without
/// `kind` refines the default mapping's kind.
pub(super) fn typed<T: serde::de::DeserializeOwned>(f: &Field, default_kind: Option<&str>) -> R<T> {
    let mut v = f.v.clone();
    match &mut v {
        Value::Object(m) => {
            if let Some(k) = default_kind {
                m.entry("kind").or_insert_with(|| json!(k));
            }
        }
        other => return Err(f.err(format!("expected a table, got {}", describe(other)))),
    }
    serde_json::from_value(v).map_err(|e| f.err(e.to_string()))
}

pub(super) fn mapping_kind(m: &SignalMapping) -> &'static str {
    match m {
        SignalMapping::Shannon(_) => "shannon",
        SignalMapping::Linear(_) => "linear",
        SignalMapping::Reported(_) => "reported",
    }
}

pub(super) fn change_times(timeline: &DriveTimeline, config: &DriveLinkConfig, link: &DriveLink) -> Vec<Instant> {
    let off = config.offset.0;
    let mut ts: Vec<Instant> = vec![Instant::ZERO];
    ts.extend(timeline.samples.iter().filter(|s| s.t.0 > off).map(|s| Instant(s.t.0 - off)));
    for h in link.handoffs() {
        ts.push(h.t);
        ts.push(h.t + config.handoff_outage);
    }
    ts.sort_unstable();
    ts.dedup();
    ts
}

pub(super) fn num_rate(x: f64) -> Value {
    if x.fract() == 0.0 && (0.0..1.8e19).contains(&x) {
        json!(x as u64)
    } else {
        json!(x)
    }
}
