//! `[sim]` (the run) and `[[nodes]]`, each key one entry of its table
//! ([`SIM`], [`node_keys`]): the accepted keys, the reader, the resolved
//! JSON and the reference page's table come from it.

use std::collections::HashMap;

use airtcp_core::Duration;
use serde_json::Value;

use super::doc::KeyPath;
use super::keys::{field, Dur, Key, Section};
use super::names::check_name;
use super::value::{Table, R};
use super::{NodeSpec, SimSpec};

/// The values `[sim]` keys take when absent (`duration` is required).
fn sim_default() -> SimSpec {
    SimSpec { duration: Duration::ZERO, seed: 1, series_interval: Duration::from_millis(10) }
}

pub static SIM: Section<'static, SimSpec> = Section {
    path: "sim",
    keys: &[
        Key {
            name: "duration",
            ty: "duration",
            doc: "Simulated time of the run; positive.",
            default: "required",
            read: |s, f| {
                s.duration = f.duration()?;
                if s.duration == Duration::ZERO {
                    return Err(f.err("duration must be positive"));
                }
                Ok(())
            },
            write: |s| Some(Value::from(super::units::format_duration(s.duration))),
        },
        Key {
            name: "seed",
            ty: "integer",
            doc: "Master seed of every random stream; `--seed N` (or `seed=` in Python) replaces it.",
            default: "`1`",
            read: |s, f| {
                s.seed = f.u64()?;
                Ok(())
            },
            write: |s| Some(Value::from(s.seed)),
        },
        Key { default: "`\"10ms\"`", ..field!(series_interval: Dur, "Time-series sampling period; `\"0s\"` disables the series.") },
    ],
};

pub(super) fn sim_spec(t: &Table) -> R<SimSpec> {
    SIM.known(t)?;
    t.req("duration")?;
    let mut s = sim_default();
    SIM.read_present(t, &mut s)?;
    Ok(s)
}

pub(super) fn sim_json(s: &SimSpec) -> Value {
    SIM.write(s)
}

/// A node being read (with the names declared before it) or written.
pub struct Node<'a> {
    seen: Option<&'a HashMap<String, usize>>,
    spec: NodeSpec,
}

/// Every `[[nodes]]` key.
pub fn node_keys<'a>() -> [Key<Node<'a>>; 2] {
    [
        Key {
            name: "name",
            ty: "name",
            doc: "Letters, digits, `_`, `-`, `.`; unique. Links, flows, agents and radios name the node by it.",
            default: "required",
            read: |n, f| {
                let name = check_name(f, "node")?;
                if let Some(j) = n.seen.and_then(|s| s.get(&name)) {
                    return Err(f.err(format!("duplicate node name \"{name}\" (also nodes[{j}])")));
                }
                n.spec.name = name;
                Ok(())
            },
            write: |n| Some(Value::from(n.spec.name.as_str())),
        },
        Key {
            name: "learn_hosts",
            ty: "boolean",
            doc: "A learning switch: learn where stations are from their packets and IAPP announcements (legacy layer-2 roaming, see [Wi-Fi](wifi.md)).",
            default: "`false`",
            read: |n, f| {
                n.spec.learn_hosts = f.bool()?;
                Ok(())
            },
            // Recorded only when set, as the input usually has it.
            write: |n| n.spec.learn_hosts.then_some(Value::from(true)),
        },
    ]
}

pub(super) fn nodes(root: &Table, tables: &[Table]) -> R<Vec<NodeSpec>> {
    if tables.is_empty() {
        return Err(root.doc.err(&KeyPath::root().key("nodes"), "at least one [[nodes]] entry is required"));
    }
    let mut out: Vec<NodeSpec> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::with_capacity(tables.len());
    for t in tables {
        let keys = node_keys();
        let section = Section { path: "nodes", keys: &keys };
        section.known(t)?;
        t.req("name")?;
        let mut n = Node { seen: Some(&seen), spec: NodeSpec { name: String::new(), learn_hosts: false, radio: false } };
        section.read_present(t, &mut n)?;
        let spec = n.spec;
        seen.insert(spec.name.clone(), out.len());
        out.push(spec);
    }
    if out.len() > 65_536 {
        return Err(root.doc.err(&KeyPath::root().key("nodes"), "at most 65536 nodes"));
    }
    Ok(out)
}

pub(super) fn node_json(n: &NodeSpec) -> Value {
    let keys = node_keys();
    Section { path: "nodes", keys: &keys }.write(&Node { seen: None, spec: n.clone() })
}
