//! `[[wifi_errors]]`: a fixed frame error rate between two radios, each key
//! one entry of [`wifi_error_keys`]. The resolved scenario records the
//! entries as written (`wifi::wifi_json`), so these keys have no writer.

use std::collections::HashMap;

use super::keys::{Key, Section};
use super::names::NodeIndex;
use super::value::{Field, Table, R};
use super::wifi_types::RadioDecl;
use super::NodeSpec;

/// One entry being read: what its node names resolve against, and its values.
pub struct WifiError<'a> {
    nodes: &'a [NodeSpec],
    index: &'a NodeIndex,
    /// Node -> its radio.
    radio_of: &'a HashMap<usize, usize>,
    from: usize,
    to: usize,
    fer: f64,
    min_bytes: u32,
    both: bool,
}

impl WifiError<'_> {
    fn radio(&self, g: &Field) -> R<usize> {
        let s = g.str()?;
        let n = self.index.get(s).ok_or_else(|| g.err(format!("unknown node \"{s}\"")))?;
        self.radio_of.get(&n).copied().ok_or_else(|| g.err(format!("node \"{}\" has no radio", self.nodes[n].name)))
    }
}

/// Every `[[wifi_errors]]` key.
pub fn wifi_error_keys<'a>() -> [Key<WifiError<'a>>; 5] {
    [
        Key {
            name: "from",
            ty: "node name",
            doc: "The sending radio's node.",
            default: "required",
            read: |e, f| {
                e.from = e.radio(f)?;
                Ok(())
            },
            write: |_| None,
        },
        Key {
            name: "to",
            ty: "node name",
            doc: "The receiving radio's node; not `from`.",
            default: "required",
            read: |e, f| {
                e.to = e.radio(f)?;
                Ok(())
            },
            write: |_| None,
        },
        Key {
            name: "fer",
            ty: "probability",
            doc: "Probability that a frame from `from` to `to` is lost (a fixed frame error rate on that pair).",
            default: "required",
            read: |e, f| {
                e.fer = f.prob()?;
                Ok(())
            },
            write: |_| None,
        },
        Key {
            name: "both",
            ty: "boolean",
            doc: "Also from `to` to `from`.",
            default: "`false`",
            read: |e, f| {
                e.both = f.bool()?;
                Ok(())
            },
            write: |_| None,
        },
        Key {
            name: "min_bytes",
            ty: "integer (bytes)",
            doc: "Only MPDUs of at least this size (e.g. the data frames, not the ACKs).",
            default: "`0`",
            read: |e, f| {
                e.min_bytes = f.u32()?;
                Ok(())
            },
            write: |_| None,
        },
    ]
}

/// `(from radio, to radio, frame error rate, smallest MPDU it hits)` of every entry.
pub(super) fn wifi_errors(root: &Table, out: &[RadioDecl], nodes: &[NodeSpec], index: &NodeIndex) -> R<Vec<(usize, usize, f64, u32)>> {
    let Some(f) = root.opt("wifi_errors") else { return Ok(Vec::new()) };
    let radio_of: HashMap<usize, usize> = out.iter().enumerate().map(|(i, r)| (r.node, i)).collect();
    let keys = wifi_error_keys();
    let section = Section { path: "wifi_errors", keys: &keys };
    let mut v = Vec::new();
    for k in 0..f.list()?.len() {
        let t = f.item(k).table()?;
        section.known(&t)?;
        for key in ["from", "to", "fer"] {
            t.req(key)?;
        }
        let mut e = WifiError { nodes, index, radio_of: &radio_of, from: 0, to: 0, fer: 0.0, min_bytes: 0, both: false };
        section.read_present(&t, &mut e)?;
        if e.from == e.to {
            return Err(t.req("to")?.err("from and to are the same radio"));
        }
        v.push((e.from, e.to, e.fer, e.min_bytes));
        if e.both {
            v.push((e.to, e.from, e.fer, e.min_bytes));
        }
    }
    Ok(v)
}
