//! The per-direction sub-tables of `[[links]]`, each key one entry of its
//! table: `[links.loss]` (or `loss_ab` / `loss_ba`, [`LOSS`]), whose keys
//! depend on its `model`; `[links.red]` ([`RED`]), whose missing keys take
//! ns-3 `RedQueueDisc`'s defaults (`RedParams::default`); and
//! `[links.reorder]` ([`REORDER`]).

use serde_json::Value;

use super::keys::{field, Bool, Bytes, Codec, Dur, Key, Section};
use super::units::format_duration;
use super::value::{Field, Table, R};
use super::{LossSpec, ReorderSpec};
use crate::link::aqm::RedParams;
use crate::link::LossModel;

/// A number (integer or float); written as a float.
struct F64;
impl Codec for F64 {
    type V = f64;
    const TY: &'static str = "number";
    fn read(f: &Field) -> R<f64> {
        f.f64()
    }
    fn write(v: &f64) -> Value {
        serde_json::json!(v)
    }
}

/// A probability in [0, 1].
struct Prob;
impl Codec for Prob {
    type V = f64;
    const TY: &'static str = "probability";
    fn read(f: &Field) -> R<f64> {
        f.prob()
    }
    fn write(v: &f64) -> Value {
        serde_json::json!(v)
    }
}

pub static RED: Section<'static, RedParams> = Section {
    path: "links.red",
    keys: &[
        field!(min_th: F64, "Packets (ns-3 `RedQueueDisc` MinTh): below this average nothing is marked or dropped; above `max_th` or negative is an error."),
        field!(max_th: F64, "Packets (ns-3 MaxTh): at this average the probability reaches `max_p`."),
        field!(max_p: F64, "ns-3 1/LInterm; outside [0, 1] is an error."),
        field!(w_q: F64, "Weight of the newest sample in the average (F&J §6, ns-3 QW); outside (0, 1] is an error."),
        field!(gentle: Bool, "ns-3 Gentle: between `max_th` and 2·`max_th` the probability rises from `max_p` to 1."),
        field!(ecn: Bool, "Mark ECT frames instead of dropping them (RFC 3168 §5; Not-ECT frames are still dropped)."),
        field!(harddrop: Bool, "In the forced region drop even ECT frames (ns-3 UseHardDrop = true); `false` marks them, as Linux `sch_red` without `harddrop`."),
        field!(mean_pkt_bytes: Bytes, "Frame size for the idle decay (ns-3 MeanPktSize)."),
    ],
};

/// A `[links.red]` table.
pub(super) fn red_spec(t: &Table) -> R<RedParams> {
    let mut p = RedParams::default();
    RED.read_into(t, &mut p)?;
    if let Err(m) = p.validate() {
        // The message starts with the offending key.
        let key = RED.keys.iter().map(|k| k.name).find(|k| m.starts_with(*k)).unwrap_or("min_th");
        let path = t.opt(key).map(|f| f.path).unwrap_or_else(|| t.path.key(key));
        return Err(t.doc.err(&path, m));
    }
    Ok(p)
}

pub(super) fn red_json(p: &RedParams) -> Value {
    RED.write(p)
}

pub static REORDER: Section<'static, ReorderSpec> = Section {
    path: "links.reorder",
    keys: &[
        Key { default: "required", ..field!(p: Prob, "Probability that a frame is held back.") },
        Key { default: "required", ..field!(delay: Dur, "How long a held-back frame is delayed beyond its normal arrival.") },
    ],
};

/// A `[links.reorder]` table; the keys the table marks required are.
pub(super) fn reorder_spec(t: &Table) -> R<ReorderSpec> {
    REORDER.known(t)?;
    for k in REORDER.keys.iter().filter(|k| k.default == "required") {
        t.req(k.name)?;
    }
    let mut r = ReorderSpec { p: 0.0, delay: airtcp_core::Duration::ZERO };
    REORDER.read_present(t, &mut r)?;
    Ok(r)
}

pub(super) fn reorder_json(r: &ReorderSpec) -> Value {
    REORDER.write(r)
}

/// A `[links.loss]` key and the model it belongs to (`None`: every model).
pub struct LossKey {
    pub model: Option<&'static str>,
    pub key: Key<LossSpec>,
}

/// The loss model's name, as `model` reads and writes it.
fn model_name(m: &LossModel) -> &'static str {
    match m {
        // Only the simulator builds a schedule (from a drive trace); a spec never holds one.
        LossModel::None | LossModel::Schedule(_) => "none",
        LossModel::Uniform { .. } => "uniform",
        LossModel::BitErrorRate { .. } => "ber",
        LossModel::GilbertElliott { .. } => "gilbert",
        LossModel::List { .. } => "list",
    }
}

/// A key of one model: `$pat` binds the model's field the key sets.
macro_rules! model_key {
    ($model:literal, $name:literal, $default:literal, $doc:literal, $pat:pat => $v:ident, $read:ident) => {
        LossKey {
            model: Some($model),
            key: Key {
                name: $name,
                ty: "probability",
                doc: $doc,
                default: $default,
                read: |l, f| {
                    let x = f.$read()?;
                    if let $pat = &mut l.model {
                        *$v = x;
                    }
                    Ok(())
                },
                write: |l| match &l.model {
                    $pat => Some(serde_json::json!($v)),
                    _ => None,
                },
            },
        }
    };
}

/// Every `[links.loss]` key, in the order the unknown-key message lists a model's keys.
pub static LOSS: &[LossKey] = &[
    LossKey {
        model: None,
        key: Key {
            name: "model",
            ty: "`\"none\"` | `\"uniform\"` | `\"ber\"` | `\"gilbert\"` | `\"list\"`",
            doc: "Which frames are lost; required unless the table has only `outages`. `list` drops the listed frame numbers, as ns-2's `ErrorModel/List`.",
            default: "`\"none\"`",
            read: |l, f| {
                l.model = match f.str()? {
                    "none" => LossModel::None,
                    "uniform" => LossModel::Uniform { p: 0.0 },
                    "ber" => LossModel::BitErrorRate { ber: 0.0 },
                    "gilbert" => LossModel::GilbertElliott { p_gb: 0.0, p_bg: 0.0, loss_good: 0.0, loss_bad: 1.0 },
                    "list" => LossModel::List { drops: Vec::new() },
                    other => return Err(f.err(format!("unknown loss model \"{other}\" (known: none, uniform, ber, gilbert, list)"))),
                };
                Ok(())
            },
            write: |l| Some(Value::from(model_name(&l.model))),
        },
    },
    model_key!("uniform", "p", "required", "Each frame is lost with this probability.", LossModel::Uniform { p } => p, prob),
    model_key!("ber", "ber", "required", "Bit error rate: a frame of n bytes is lost with probability 1 - (1 - ber)^(8n).", LossModel::BitErrorRate { ber } => ber, prob),
    model_key!("gilbert", "p_gb", "required", "Gilbert-Elliott: probability of moving from the good to the bad state, per frame.", LossModel::GilbertElliott { p_gb, .. } => p_gb, prob),
    model_key!("gilbert", "p_bg", "required", "Probability of moving from the bad to the good state, per frame.", LossModel::GilbertElliott { p_bg, .. } => p_bg, prob),
    model_key!("gilbert", "loss_good", "`0.0`", "Loss probability in the good state.", LossModel::GilbertElliott { loss_good, .. } => loss_good, prob),
    model_key!("gilbert", "loss_bad", "`1.0`", "Loss probability in the bad state.", LossModel::GilbertElliott { loss_bad, .. } => loss_bad, prob),
    LossKey {
        model: Some("list"),
        key: Key {
            name: "drops",
            ty: "list of integers",
            doc: "The frame numbers lost (0-based, strictly increasing).",
            default: "required",
            read: |l, f| {
                let items = f.list()?;
                let mut drops: Vec<u64> = Vec::with_capacity(items.len());
                for i in 0..items.len() {
                    let n = f.item(i).u64()?;
                    if let Some(&p) = drops.last().filter(|&&p| n <= p) {
                        return Err(f.item(i).err(format!("drops must be strictly increasing frame numbers ({n} follows {p})")));
                    }
                    drops.push(n);
                }
                if let LossModel::List { drops: d } = &mut l.model {
                    *d = drops;
                }
                Ok(())
            },
            write: |l| match &l.model {
                LossModel::List { drops } => Some(serde_json::json!(drops)),
                _ => None,
            },
        },
    },
    LossKey {
        model: None,
        key: Key {
            name: "outages",
            ty: "list of `[start, end]` durations",
            doc: "Frames whose transmission ends in [start, end) are lost, with any model; windows may not overlap.",
            default: "none",
            read: |l, f| {
                l.outages = outages(f)?;
                Ok(())
            },
            write: |l| {
                let w: Vec<Value> = l.outages.iter().map(|&(s, e)| serde_json::json!([format_duration(s), format_duration(e)])).collect();
                (!w.is_empty()).then_some(Value::Array(w))
            },
        },
    },
];

/// A `[links.loss]` table: `model` first (it decides which keys the table
/// may hold), then the model's keys in the table's order.
pub(super) fn loss_spec(t: &Table) -> R<LossSpec> {
    let model = &LOSS[0].key;
    let mut l = LossSpec::none();
    match t.opt(model.name) {
        Some(f) => (model.read)(&mut l, &f)?,
        None if t.opt("outages").is_none() => {
            return Err(t.doc.err(&t.path.key(model.name), "missing required key (none, uniform, ber, gilbert) or outages"));
        }
        None => {}
    }
    let name = model_name(&l.model);
    let keys: Vec<&LossKey> = LOSS.iter().filter(|k| k.model.is_none_or(|m| m == name)).collect();
    t.known(&keys.iter().map(|k| k.key.name).collect::<Vec<_>>())?;
    for k in &keys[1..] {
        match t.opt(k.key.name) {
            Some(f) => (k.key.read)(&mut l, &f)?,
            None if k.key.default == "required" => return Err(t.doc.err(&t.path.key(k.key.name), "missing required key")),
            None => {}
        }
    }
    Ok(l)
}

/// The reference page's table of `[links.loss]`: a model's own keys say which model.
pub(super) fn loss_reference_table() -> String {
    super::key_rows::table(LOSS.iter().map(|k| {
        let doc = match k.model {
            Some(m) => format!("`{m}`: {}", k.key.doc),
            None => k.key.doc.to_string(),
        };
        (format!("`{}`", k.key.name), k.key.ty, k.key.default, doc)
    }))
}

pub(super) fn loss_json(l: &LossSpec) -> Value {
    let mut m = serde_json::Map::new();
    for k in LOSS {
        if let Some(v) = (k.key.write)(l) {
            m.insert(k.key.name.to_string(), v);
        }
    }
    Value::Object(m)
}

fn outages(f: &Field) -> R<Vec<(airtcp_core::Duration, airtcp_core::Duration)>> {
    let items = f.list()?;
    let mut out = Vec::with_capacity(items.len());
    for i in 0..items.len() {
        let w = f.item(i);
        let pair = w.list()?;
        if pair.len() != 2 {
            return Err(w.err(format!("an outage is [start, end], got {} values", pair.len())));
        }
        let (s, e) = (w.item(0).duration()?, w.item(1).duration()?);
        if e <= s {
            return Err(w.err(format!("outage ends ({}) before it starts ({})", format_duration(e), format_duration(s))));
        }
        out.push((s, e));
    }
    out.sort();
    for w in out.windows(2) {
        if w[1].0 < w[0].1 {
            return Err(f.err(format!(
                "outages overlap ([{}, {}) and [{}, {}))",
                format_duration(w[0].0),
                format_duration(w[0].1),
                format_duration(w[1].0),
                format_duration(w[1].1)
            )));
        }
    }
    Ok(out)
}
