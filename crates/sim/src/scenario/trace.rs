//! `[links.trace]` (or `trace_ab` / `trace_ba`): a direction whose rate
//! follows a Mahimahi trace or a drive log. The trace file is read and parsed
//! while the scenario is validated, so a missing file or a malformed line is a
//! scenario error before anything runs: it names the scenario's file, line and
//! `links[i].trace.file`, then the trace's own `file:line: message`.

use std::path::{Path, PathBuf};

use airtcp_core::{Duration, Instant};
use serde_json::{json, Map, Value};

use super::units::{format_duration, parse_rate};
use super::value::{describe, Field, Table, R};
use crate::trace::{
    parse_feup, parse_imc23, parse_ucc, DriveLink, DriveLinkConfig, DriveLogKind, DriveTimeline, FeupSelect,
    LossCurve, MahimahiSchedule, SignalMapping, TraceError,
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

const MAHIMAHI_KEYS: &[&str] = &["kind", "file"];
const DRIVE_KEYS: &[&str] = &[
    "kind",
    "file",
    "format",
    "feup_link",
    "feup_hysteresis",
    "offset",
    "handoff_outage",
    "handoff_drops",
    "min_rate",
    "max_rate",
    "capacity",
    "loss",
];

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
fn read(f: &Field, path: &Path) -> R<(String, String)> {
    let name = path.display().to_string();
    match std::fs::read(path) {
        Ok(bytes) => crate::trace::error::decode(name, bytes).map_err(|e| trace_err(f, e)),
        Err(e) => Err(f.err(format!("cannot read trace file {name}: {e}"))),
    }
}

fn trace_err(f: &Field, e: TraceError) -> crate::scenario::ScenarioError {
    f.err(format!("bad trace: {e}"))
}

/// A rate that may be zero (`min_rate = 0`).
fn rate_or_zero(f: &Field) -> R<f64> {
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
fn typed<T: serde::de::DeserializeOwned>(f: &Field, default_kind: Option<&str>) -> R<T> {
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

fn mapping_kind(m: &SignalMapping) -> &'static str {
    match m {
        SignalMapping::Shannon(_) => "shannon",
        SignalMapping::Linear(_) => "linear",
        SignalMapping::Reported(_) => "reported",
    }
}

pub(crate) fn trace_spec(t: &Table) -> R<TraceSpec> {
    let kf = t.req("kind")?;
    let kind = kf.str()?;
    let ff = t.req("file")?;
    let path = resolve(&t.doc.origin, ff.str()?);
    let file = path.display().to_string();
    match kind {
        "mahimahi" => {
            t.known(MAHIMAHI_KEYS)?;
            let (name, text) = read(&ff, &path)?;
            let m = MahimahiSchedule::parse_named(&name, &text, Instant::ZERO).map_err(|e| trace_err(&ff, e))?;
            Ok(TraceSpec { file, model: TraceModel::Mahimahi(Box::new(m)) })
        }
        "drive" => {
            t.known(DRIVE_KEYS)?;
            drive(t, &ff, path, file)
        }
        other => Err(kf.err(format!("unknown trace kind \"{other}\" (known: mahimahi, drive)"))),
    }
}

fn drive(t: &Table, ff: &Field, path: PathBuf, file: String) -> R<TraceSpec> {
    let format = match t.opt("format") {
        None => None,
        Some(f) => match f.str()? {
            "auto" => None,
            name => Some(DriveLogKind::from_name(name).ok_or_else(|| {
                f.err(format!("unknown drive-log format \"{name}\" (known: auto, ucc, imc23, feup)"))
            })?),
        },
    };
    let feup_link = match t.opt("feup_link") {
        None => None,
        Some(f) => {
            let s = f.str()?;
            match s.split_once("->") {
                Some((a, b)) if !a.trim().is_empty() && !b.trim().is_empty() => {
                    Some((f.clone(), FeupSelect::Link { sender: a.trim().into(), receiver: b.trim().into() }))
                }
                _ => return Err(f.err(format!("feup_link \"{s}\" must look like \"ap2->m1\" (sender->receiver)"))),
            }
        }
    };
    let hysteresis = match t.opt("feup_hysteresis") {
        None => None,
        Some(f) => {
            let h = f.f64()?;
            if h < 0.0 {
                return Err(f.err(format!("feup_hysteresis {h} dB must not be negative")));
            }
            if feup_link.is_some() {
                return Err(f.err("set feup_link (one measured link) or feup_hysteresis (roaming client), not both"));
            }
            Some((f.clone(), h))
        }
    };

    let (name, text) = read(ff, &path)?;
    let kind = match format {
        Some(k) => k,
        None => DriveLogKind::sniff(&text).ok_or_else(|| {
            trace_err(ff, TraceError::at(&name, 1, "not a known drive-log format (set format = \"ucc\", \"imc23\" or \"feup\")"))
        })?,
    };
    if kind != DriveLogKind::FeupWifi {
        if let Some((f, _)) = &feup_link {
            return Err(f.err(format!("feup_link applies to FEUP logs only (this log is read as \"{}\")", kind.name())));
        }
        if let Some((f, _)) = &hysteresis {
            return Err(f.err(format!("feup_hysteresis applies to FEUP logs only (this log is read as \"{}\")", kind.name())));
        }
    }
    let mut feup = None;
    let timeline = match kind {
        DriveLogKind::Ucc5g => parse_ucc(&name, &text),
        DriveLogKind::Imc23 => parse_imc23(&name, &text),
        DriveLogKind::FeupWifi => {
            let sel = match (feup_link, hysteresis) {
                (Some((_, s)), _) => s,
                (None, Some((_, h))) => FeupSelect::StrongestAp { hysteresis_db: h },
                (None, None) => FeupSelect::default(),
            };
            let r = parse_feup(&name, &text, &sel);
            feup = Some(sel);
            r
        }
    }
    .map_err(|e| trace_err(ff, e))?;

    let mut config = DriveLinkConfig::for_kind(kind);
    if let Some(f) = t.opt("offset") {
        config.offset = f.duration()?;
        if config.offset >= timeline.duration() && timeline.duration() > Duration::ZERO {
            return Err(f.err(format!(
                "offset {} is not before the end of the log ({})",
                format_duration(config.offset),
                format_duration(timeline.duration())
            )));
        }
    }
    if let Some(f) = t.opt("handoff_outage") {
        config.handoff_outage = f.duration()?;
    }
    if let Some(f) = t.opt("min_rate") {
        config.min_bps = rate_or_zero(&f)?;
    }
    if let Some(f) = t.opt("max_rate") {
        config.max_bps = rate_or_zero(&f)?;
        if config.max_bps < config.min_bps {
            return Err(f.err(format!("max_rate {} b/s is below min_rate {} b/s", config.max_bps, config.min_bps)));
        }
    }
    if let Some(f) = t.opt("capacity") {
        config.mapping = typed(&f, Some(mapping_kind(&config.mapping)))?;
    }
    if let Some(f) = t.opt("loss") {
        // Unset curve fields keep this log kind's default curve.
        let mut v = match f.v {
            Value::Object(m) => m.clone(),
            other => return Err(f.err(format!("expected a table, got {}", describe(other)))),
        };
        let d = &config.loss;
        v.entry("midpoint_dbm").or_insert_with(|| json!(d.midpoint_dbm));
        v.entry("slope_per_db").or_insert_with(|| json!(d.slope_per_db));
        v.entry("max_loss").or_insert_with(|| json!(d.max_loss));
        let obj = Value::Object(v);
        let field = Field { doc: f.doc, path: f.path.clone(), v: &obj };
        let curve: LossCurve = typed(&field, None)?;
        if !(0.0..=1.0).contains(&curve.max_loss) {
            return Err(f.err(format!("max_loss {} is outside [0, 1]", curve.max_loss)));
        }
        config.loss = curve;
    }
    let handoff_drops = match t.opt("handoff_drops") {
        Some(f) => f.bool()?,
        None => false,
    };

    let bad_link = |e: TraceError| match t.opt("capacity") {
        Some(f) => f.err(e.to_string()),
        None => trace_err(ff, e),
    };
    let stalled = DriveLink::new(&timeline, &config, Instant::ZERO).map_err(bad_link)?;
    let (link, drop_windows) = if handoff_drops {
        let rate_cfg = DriveLinkConfig { handoff_outage: Duration::ZERO, ..config.clone() };
        let link = DriveLink::new(&timeline, &rate_cfg, Instant::ZERO).map_err(bad_link)?;
        (link, stalled.outage_windows())
    } else {
        (stalled, Vec::new())
    };
    let change_times = change_times(&timeline, &config, &link);
    Ok(TraceSpec {
        file,
        model: TraceModel::Drive(Box::new(DriveSpec { format: kind, feup, config, handoff_drops, link, drop_windows, change_times })),
    })
}

fn change_times(timeline: &DriveTimeline, config: &DriveLinkConfig, link: &DriveLink) -> Vec<Instant> {
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

fn num_rate(x: f64) -> Value {
    if x.fract() == 0.0 && (0.0..1.8e19).contains(&x) {
        json!(x as u64)
    } else {
        json!(x)
    }
}

/// The resolved `[links.trace]` table (every default filled in), loadable again.
pub(crate) fn trace_json(t: &TraceSpec) -> Value {
    let mut m = Map::new();
    m.insert("kind".into(), json!(t.kind_name()));
    m.insert("file".into(), json!(t.file));
    if let TraceModel::Drive(d) = &t.model {
        let c = &d.config;
        m.insert("format".into(), json!(d.format.name()));
        match &d.feup {
            Some(FeupSelect::Link { sender, receiver }) => {
                m.insert("feup_link".into(), json!(format!("{sender}->{receiver}")));
            }
            Some(FeupSelect::StrongestAp { hysteresis_db }) => {
                m.insert("feup_hysteresis".into(), json!(hysteresis_db));
            }
            None => {}
        }
        m.insert("offset".into(), json!(format_duration(c.offset)));
        m.insert("handoff_outage".into(), json!(format_duration(c.handoff_outage)));
        m.insert("handoff_drops".into(), json!(d.handoff_drops));
        m.insert("min_rate".into(), num_rate(c.min_bps));
        m.insert("max_rate".into(), num_rate(c.max_bps));
        let cap = match &c.mapping {
            SignalMapping::Shannon(p) => json!({
                "kind": "shannon",
                "bandwidth_hz": p.bandwidth_hz,
                "efficiency": p.efficiency,
                "snr_min_db": p.snr_min_db,
                "max_spectral_efficiency": p.max_spectral_efficiency,
                "noise_floor_dbm": p.noise_floor_dbm,
                "use_log_snr": p.use_log_snr,
            }),
            SignalMapping::Linear(p) => json!({
                "kind": "linear",
                "signal_lo_dbm": p.signal_lo_dbm,
                "cap_lo_bps": p.cap_lo_bps,
                "signal_hi_dbm": p.signal_hi_dbm,
                "cap_hi_bps": p.cap_hi_bps,
                "zero_below_lo": p.zero_below_lo,
            }),
            SignalMapping::Reported(p) => json!({ "kind": "reported", "scale": p.scale }),
        };
        m.insert("capacity".into(), cap);
        // -inf (the "no loss" curve) has no JSON spelling; max_loss = 0 says it.
        let mid = if c.loss.midpoint_dbm.is_finite() { c.loss.midpoint_dbm } else { -1000.0 };
        m.insert(
            "loss".into(),
            json!({ "midpoint_dbm": mid, "slope_per_db": c.loss.slope_per_db, "max_loss": c.loss.max_loss }),
        );
    }
    Value::Object(m)
}
