//! The per-direction sub-tables of `[[links]]`, each key one entry of its
//! table: `[links.red]` (or `red_ab` / `red_ba`, [`RED`]), whose missing
//! keys take ns-3 `RedQueueDisc`'s defaults (`RedParams::default`), and
//! `[links.reorder]` ([`REORDER`]).

use serde_json::Value;

use super::keys::{field, Bool, Bytes, Codec, Dur, Key, Section};
use super::value::{Field, Table, R};
use super::ReorderSpec;
use crate::link::aqm::RedParams;

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

/// A `[links.reorder]` table; both keys are required.
pub(super) fn reorder_spec(t: &Table) -> R<ReorderSpec> {
    REORDER.known(t)?;
    t.req("p")?;
    t.req("delay")?;
    let mut r = ReorderSpec { p: 0.0, delay: airtcp_core::Duration::ZERO };
    REORDER.read_present(t, &mut r)?;
    Ok(r)
}

pub(super) fn reorder_json(r: &ReorderSpec) -> Value {
    REORDER.write(r)
}
