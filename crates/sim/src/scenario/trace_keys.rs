//! The keys of `[links.trace]` (`trace_ab`, `trace_ba`), each one entry of
//! [`TRACE`]: name, type, default, reader, summary.json writer and
//! reference-page line. A Mahimahi trace takes `kind` and `file`; a drive
//! log every key. Each key reads and checks its own value; what depends on
//! the log (its format after sniffing, its length, the kind's default
//! mapping, loss curve and capacity clamp) is applied by `drive` once the
//! log is parsed.

use std::path::PathBuf;

use airtcp_core::{Duration, Instant};
use serde_json::{json, Map, Value};

use super::trace::{change_times, num_rate, rate_or_zero, read, resolve, trace_err, typed, mapping_kind, DriveSpec, TraceModel, TraceSpec};
use super::units::format_duration;
use super::value::{describe, Field, Table, R};
use crate::trace::{
    parse_feup, parse_imc23, parse_ucc, DriveLink, DriveLinkConfig, DriveLogKind, FeupSelect, LossCurve, MahimahiSchedule,
    SignalMapping, TraceError,
};

/// One `[links.trace]` key.
pub struct TraceKey {
    pub name: &'static str,
    /// Only a drive log takes it (a Mahimahi trace has `kind` and `file`).
    pub drive_only: bool,
    pub ty: &'static str,
    pub default: &'static str,
    pub doc: &'static str,
    /// Store the value of `f` into the trace being read.
    pub read: for<'a> fn(&mut Draft<'a>, &Field<'a>) -> R<()>,
    /// The resolved value; `None` leaves it out (a Mahimahi trace's drive keys).
    pub write: fn(&TraceSpec) -> Option<Value>,
}

/// A trace table being read: the keys' values, with the fields the checks
/// after parsing the log report at.
#[derive(Default)]
pub struct Draft<'a> {
    kind: Option<(Field<'a>, &'a str)>,
    file: Option<Field<'a>>,
    /// `None`: `"auto"` (sniffed from the content).
    format: Option<DriveLogKind>,
    feup_link: Option<(Field<'a>, FeupSelect)>,
    feup_hysteresis: Option<(Field<'a>, f64)>,
    offset: Option<(Field<'a>, Duration)>,
    handoff_outage: Option<Duration>,
    handoff_drops: bool,
    min_rate: Option<f64>,
    max_rate: Option<(Field<'a>, f64)>,
    capacity: Option<Field<'a>>,
    loss: Option<Field<'a>>,
}

/// The drive part of a resolved trace (`None` for Mahimahi).
fn drive_of(t: &TraceSpec) -> Option<&DriveSpec> {
    match &t.model {
        TraceModel::Drive(d) => Some(d),
        TraceModel::Mahimahi(_) => None,
    }
}

/// Every `[links.trace]` key, in the order the unknown-key message lists them.
pub static TRACE: &[TraceKey] = &[
    TraceKey {
        name: "kind",
        drive_only: false,
        ty: "`\"mahimahi\"` | `\"drive\"`",
        default: "required",
        doc: "A Mahimahi packet-delivery trace, or a drive log whose signal is mapped to capacity and loss.",
        read: |d, f| {
            d.kind = Some((f.clone(), f.str()?));
            Ok(())
        },
        write: |t| Some(json!(t.kind_name())),
    },
    TraceKey {
        name: "file",
        drive_only: false,
        ty: "path",
        default: "required",
        doc: "The trace, relative to the scenario file (to the working directory for a Python dict); read and checked before the run.",
        read: |d, f| {
            f.str()?;
            d.file = Some(f.clone());
            Ok(())
        },
        write: |t| Some(json!(t.file)),
    },
    TraceKey {
        name: "format",
        drive_only: true,
        ty: "`\"auto\"` | `\"ucc\"` | `\"imc23\"` | `\"feup\"`",
        default: "`\"auto\"`",
        doc: "The drive log's format; `auto` tells them apart by their content (and is written back as the format found).",
        read: |d, f| {
            d.format = match f.str()? {
                "auto" => None,
                name => Some(DriveLogKind::from_name(name).ok_or_else(|| f.err(format!("unknown drive-log format \"{name}\" (known: auto, ucc, imc23, feup)")))?),
            };
            Ok(())
        },
        write: |t| drive_of(t).map(|d| json!(d.format.name())),
    },
    TraceKey {
        name: "feup_link",
        drive_only: true,
        ty: "`\"sender->receiver\"`",
        default: "—",
        doc: "FEUP logs only: follow one measured AP → client link (`\"ap2->m1\"`) instead of a roaming client.",
        read: |d, f| {
            let s = f.str()?;
            match s.split_once("->") {
                Some((a, b)) if !a.trim().is_empty() && !b.trim().is_empty() => {
                    d.feup_link = Some((f.clone(), FeupSelect::Link { sender: a.trim().into(), receiver: b.trim().into() }));
                    Ok(())
                }
                _ => Err(f.err(format!("feup_link \"{s}\" must look like \"ap2->m1\" (sender->receiver)"))),
            }
        },
        write: |t| match drive_of(t).and_then(|d| d.feup.as_ref()) {
            Some(FeupSelect::Link { sender, receiver }) => Some(json!(format!("{sender}->{receiver}"))),
            _ => None,
        },
    },
    TraceKey {
        name: "feup_hysteresis",
        drive_only: true,
        ty: "number (dB)",
        default: "`5.0` (without `feup_link`)",
        doc: "FEUP logs only: a virtual client that roams to the strongest AP once it is this much stronger than the current one; not with `feup_link`.",
        read: |d, f| {
            let h = f.f64()?;
            if h < 0.0 {
                return Err(f.err(format!("feup_hysteresis {h} dB must not be negative")));
            }
            if d.feup_link.is_some() {
                return Err(f.err("set feup_link (one measured link) or feup_hysteresis (roaming client), not both"));
            }
            d.feup_hysteresis = Some((f.clone(), h));
            Ok(())
        },
        write: |t| match drive_of(t).and_then(|d| d.feup.as_ref()) {
            Some(FeupSelect::StrongestAp { hysteresis_db }) => Some(json!(hysteresis_db)),
            _ => None,
        },
    },
    TraceKey {
        name: "offset",
        drive_only: true,
        ty: "duration",
        default: "`\"0s\"`",
        doc: "Log time that becomes run time 0; before the end of the log.",
        read: |d, f| {
            d.offset = Some((f.clone(), f.duration()?));
            Ok(())
        },
        write: |t| drive_of(t).map(|d| json!(format_duration(d.config.offset))),
    },
    TraceKey {
        name: "handoff_outage",
        drive_only: true,
        ty: "duration",
        default: "`\"50ms\"` cellular, `\"200ms\"` FEUP Wi-Fi",
        doc: "The link is down this long after each serving-cell (or AP) change.",
        read: |d, f| {
            d.handoff_outage = Some(f.duration()?);
            Ok(())
        },
        write: |t| drive_of(t).map(|d| json!(format_duration(d.config.handoff_outage))),
    },
    TraceKey {
        name: "handoff_drops",
        drive_only: true,
        ty: "boolean",
        default: "`false`",
        doc: "`false`: the queue stalls during a handoff outage; `true`: frames whose transmission ends in it are lost (break before make).",
        read: |d, f| {
            d.handoff_drops = f.bool()?;
            Ok(())
        },
        write: |t| drive_of(t).map(|d| json!(d.handoff_drops)),
    },
    TraceKey {
        name: "min_rate",
        drive_only: true,
        ty: "rate (may be 0)",
        default: "the kind's",
        doc: "Lower clamp of the mapped capacity.",
        read: |d, f| {
            d.min_rate = Some(rate_or_zero(f)?);
            Ok(())
        },
        write: |t| drive_of(t).map(|d| num_rate(d.config.min_bps)),
    },
    TraceKey {
        name: "max_rate",
        drive_only: true,
        ty: "rate (may be 0)",
        default: "the kind's",
        doc: "Upper clamp of the mapped capacity; not below `min_rate`.",
        read: |d, f| {
            d.max_rate = Some((f.clone(), rate_or_zero(f)?));
            Ok(())
        },
        write: |t| drive_of(t).map(|d| num_rate(d.config.max_bps)),
    },
    TraceKey {
        name: "capacity",
        drive_only: true,
        ty: "table",
        default: "the kind's mapping",
        doc: "Signal → capacity: `kind = \"shannon\"`, `\"linear\"` or `\"reported\"` with their fields ([trace-driven links](traces.md)); without `kind` the fields refine the log kind's default mapping.",
        read: |d, f| {
            d.capacity = Some(f.clone());
            Ok(())
        },
        write: |t| drive_of(t).map(|d| capacity_json(&d.config.mapping)),
    },
    TraceKey {
        name: "loss",
        drive_only: true,
        ty: "table",
        default: "the kind's curve",
        doc: "Signal → loss probability (logistic): `midpoint_dbm`, `slope_per_db`, `max_loss` (in [0, 1]; 0 turns it off); unset fields keep the log kind's default curve.",
        read: |d, f| {
            d.loss = Some(f.clone());
            Ok(())
        },
        write: |t| {
            drive_of(t).map(|d| {
                let l = &d.config.loss;
                // -inf (the "no loss" curve) has no JSON spelling; max_loss = 0 says it.
                let mid = if l.midpoint_dbm.is_finite() { l.midpoint_dbm } else { -1000.0 };
                json!({ "midpoint_dbm": mid, "slope_per_db": l.slope_per_db, "max_loss": l.max_loss })
            })
        },
    },
];

fn capacity_json(m: &SignalMapping) -> Value {
    match m {
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
    }
}

/// The reference page's table of `[links.trace]`.
pub(super) fn reference_table() -> String {
    super::key_rows::table(TRACE.iter().map(|k| {
        let doc = if k.drive_only { format!("Drive logs: {}", k.doc) } else { k.doc.to_string() };
        (format!("`{}`", k.name), k.ty, k.default, doc)
    }))
}

fn names(drive: bool) -> Vec<&'static str> {
    TRACE.iter().filter(|k| drive || !k.drive_only).map(|k| k.name).collect()
}

/// A `[links.trace]` table.
pub(crate) fn trace_spec(t: &Table) -> R<TraceSpec> {
    let mut d = Draft::default();
    // `kind` and `file` first: the kind decides which keys the table may hold.
    for k in &TRACE[..2] {
        (k.read)(&mut d, &t.req(k.name)?)?;
    }
    let (kf, kind) = d.kind.clone().expect("read");
    let ff = d.file.clone().expect("read");
    let path = resolve(&t.doc.origin, ff.str()?);
    let file = path.display().to_string();
    match kind {
        "mahimahi" => {
            t.known(&names(false))?;
            let (name, text) = read(&ff, &path)?;
            let m = MahimahiSchedule::parse_named(&name, &text, Instant::ZERO).map_err(|e| trace_err(&ff, e))?;
            Ok(TraceSpec { file, model: TraceModel::Mahimahi(Box::new(m)) })
        }
        "drive" => {
            t.known(&names(true))?;
            for k in &TRACE[2..] {
                if let Some(f) = t.opt(k.name) {
                    (k.read)(&mut d, &f)?;
                }
            }
            drive(t, d, &ff, path, file)
        }
        other => Err(kf.err(format!("unknown trace kind \"{other}\" (known: mahimahi, drive)"))),
    }
}

/// A drive log with the keys read into `d`: parse the log, then apply the
/// keys that depend on it.
fn drive(t: &Table, d: Draft, ff: &Field, path: PathBuf, file: String) -> R<TraceSpec> {
    let (name, text) = read(ff, &path)?;
    let kind = match d.format {
        Some(k) => k,
        None => DriveLogKind::sniff(&text).ok_or_else(|| {
            trace_err(ff, TraceError::at(&name, 1, "not a known drive-log format (set format = \"ucc\", \"imc23\" or \"feup\")"))
        })?,
    };
    if kind != DriveLogKind::FeupWifi {
        if let Some((f, _)) = &d.feup_link {
            return Err(f.err(format!("feup_link applies to FEUP logs only (this log is read as \"{}\")", kind.name())));
        }
        if let Some((f, _)) = &d.feup_hysteresis {
            return Err(f.err(format!("feup_hysteresis applies to FEUP logs only (this log is read as \"{}\")", kind.name())));
        }
    }
    let mut feup = None;
    let timeline = match kind {
        DriveLogKind::Ucc5g => parse_ucc(&name, &text),
        DriveLogKind::Imc23 => parse_imc23(&name, &text),
        DriveLogKind::FeupWifi => {
            let sel = match (d.feup_link, d.feup_hysteresis) {
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
    if let Some((f, offset)) = d.offset {
        config.offset = offset;
        if config.offset >= timeline.duration() && timeline.duration() > Duration::ZERO {
            return Err(f.err(format!(
                "offset {} is not before the end of the log ({})",
                format_duration(config.offset),
                format_duration(timeline.duration())
            )));
        }
    }
    if let Some(h) = d.handoff_outage {
        config.handoff_outage = h;
    }
    if let Some(r) = d.min_rate {
        config.min_bps = r;
    }
    if let Some((f, r)) = d.max_rate {
        config.max_bps = r;
        if config.max_bps < config.min_bps {
            return Err(f.err(format!("max_rate {} b/s is below min_rate {} b/s", config.max_bps, config.min_bps)));
        }
    }
    if let Some(f) = &d.capacity {
        config.mapping = typed(f, Some(mapping_kind(&config.mapping)))?;
    }
    if let Some(f) = &d.loss {
        config.loss = loss_curve(f, &config.loss)?;
    }
    let handoff_drops = d.handoff_drops;

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

/// A `loss` table over the kind's default curve `d` (unset fields keep it).
fn loss_curve(f: &Field, d: &LossCurve) -> R<LossCurve> {
    let mut v = match f.v {
        Value::Object(m) => m.clone(),
        other => return Err(f.err(format!("expected a table, got {}", describe(other)))),
    };
    v.entry("midpoint_dbm").or_insert_with(|| json!(d.midpoint_dbm));
    v.entry("slope_per_db").or_insert_with(|| json!(d.slope_per_db));
    v.entry("max_loss").or_insert_with(|| json!(d.max_loss));
    let obj = Value::Object(v);
    let field = Field { doc: f.doc, path: f.path.clone(), v: &obj };
    let curve: LossCurve = typed(&field, None)?;
    if !(0.0..=1.0).contains(&curve.max_loss) {
        return Err(f.err(format!("max_loss {} is outside [0, 1]", curve.max_loss)));
    }
    Ok(curve)
}

/// The resolved `[links.trace]` table (every default filled in), loadable again.
pub(crate) fn trace_json(t: &TraceSpec) -> Value {
    let mut m = Map::new();
    for k in TRACE {
        if let Some(v) = (k.write)(t) {
            m.insert(k.name.to_string(), v);
        }
    }
    Value::Object(m)
}
