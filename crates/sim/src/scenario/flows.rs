//! `[[flows]]`: one TCP connection each. Every key is one entry of
//! [`flow_keys`]: the accepted keys, the reader, the resolved JSON and the
//! reference page's table come from it. A key is checked against what it
//! names as it is read (node names, the run's end, the flows before), so
//! an error points at that key.

use airtcp_core::Duration;
use serde_json::Value;

use super::doc::KeyPath;
use super::keys::{Key, Section};
use super::names::{check_name, NodeIndex, MAX_FLOWS};
use super::units::{format_duration, format_rate};
use super::value::{Field, Table, R};
use super::{AppSpec, FlowSpec, NodeSpec, SimSpec};

/// A node index not yet read (`from` / `to` are required; the check
/// follows the keys).
const UNSET: usize = usize::MAX;

/// What a flow's keys are checked against while it is read.
pub(super) struct Checks<'a> {
    pub index: &'a NodeIndex,
    /// Connected component of each node (a flow needs a route).
    pub component: &'a [usize],
    pub sim: &'a SimSpec,
    /// The flows declared before this one (names are unique).
    pub earlier: &'a [FlowSpec],
}

/// A flow being read, or written back: its values and the nodes its
/// `from` / `to` name.
pub struct Flow<'a> {
    nodes: &'a [NodeSpec],
    /// `None` when writing.
    checks: Option<Checks<'a>>,
    spec: FlowSpec,
}

impl<'a> Flow<'a> {
    fn checks(&self) -> &Checks<'a> {
        self.checks.as_ref().expect("only a flow being read is checked")
    }

    fn node(&self, f: &Field) -> R<usize> {
        let s = f.str()?;
        self.checks().index.get(s).ok_or_else(|| {
            let known: Vec<&str> = self.nodes.iter().map(|n| n.name.as_str()).collect();
            f.err(format!("unknown node \"{s}\" (nodes: {})", known.join(", ")))
        })
    }

    fn name_of(&self, node: usize) -> Value {
        Value::from(self.nodes[node].name.as_str())
    }
}

/// Every `[[flows]]` key, in the order errors and the reference page list them.
pub fn flow_keys<'a>() -> [Key<Flow<'a>>; 9] {
    [
        Key {
            name: "name",
            ty: "name",
            doc: "Names the flow's outputs (`<name>.csv`, ...); letters, digits, `_`, `-`, `.`; unique.",
            default: "`\"flow<i>\"`, i its position",
            read: |w, f| {
                let n = check_name(f, "flow")?;
                if let Some(j) = w.checks().earlier.iter().position(|x| x.name == n) {
                    return Err(f.err(format!("duplicate flow name \"{n}\" (also flows[{j}])")));
                }
                w.spec.name = n;
                Ok(())
            },
            write: |w| Some(Value::from(w.spec.name.as_str())),
        },
        Key {
            name: "from",
            ty: "node name",
            doc: "The TCP client, data sender.",
            default: "required",
            read: |w, f| {
                w.spec.from = w.node(f)?;
                Ok(())
            },
            write: |w| Some(w.name_of(w.spec.from)),
        },
        Key {
            name: "to",
            ty: "node name",
            doc: "The TCP server, data receiver; a node other than `from`, connected to it by links or radios.",
            default: "required",
            read: |w, f| {
                let to = w.node(f)?;
                let from = w.spec.from;
                if from == to {
                    return Err(f.err(format!("a flow needs two different nodes (from = to = \"{}\")", w.nodes[to].name)));
                }
                if from != UNSET && w.checks().component[from] != w.checks().component[to] {
                    return Err(f.err(format!("no route from \"{}\" to \"{}\" (the nodes are not connected by links)", w.nodes[from].name, w.nodes[to].name)));
                }
                w.spec.to = to;
                Ok(())
            },
            write: |w| Some(w.name_of(w.spec.to)),
        },
        Key {
            name: "start",
            ty: "duration",
            doc: "Connect time; before the end of the run.",
            default: "`\"0s\"`",
            read: |w, f| {
                let s = f.duration()?;
                let end = w.checks().sim.duration;
                if s >= end {
                    return Err(f.err(format!("start {} is not before the end of the run ({})", format_duration(s), format_duration(end))));
                }
                w.spec.start = s;
                Ok(())
            },
            write: |w| Some(Value::from(format_duration(w.spec.start))),
        },
        Key {
            name: "app",
            ty: "`\"bulk\"` | `\"transfer\"`",
            doc: "`bulk` keeps the send buffer full for the whole run; `transfer` sends `bytes`, closes, and reports the response time.",
            default: "`\"bulk\"`",
            read: |w, f| {
                w.spec.app = match f.str()? {
                    "bulk" => AppSpec::Bulk,
                    // `bytes` (read next: keys are read in sorted order) sets the size.
                    "transfer" => AppSpec::Transfer { bytes: 0 },
                    other => return Err(f.err(format!("unknown app \"{other}\" (known: bulk, transfer)"))),
                };
                Ok(())
            },
            write: |w| {
                Some(Value::from(match w.spec.app {
                    AppSpec::Bulk => "bulk",
                    AppSpec::Transfer { .. } => "transfer",
                }))
            },
        },
        Key {
            name: "bytes",
            ty: "size (bytes)",
            doc: "The transfer's size; only with `app = \"transfer\"`, which requires it.",
            default: "—",
            read: |w, f| {
                if w.spec.app == AppSpec::Bulk {
                    return Err(f.err("only a transfer app takes bytes (bulk sends forever)"));
                }
                let bytes = f.size()?;
                if bytes == 0 {
                    return Err(f.err("a transfer needs at least 1 byte"));
                }
                w.spec.app = AppSpec::Transfer { bytes };
                Ok(())
            },
            write: |w| match w.spec.app {
                AppSpec::Bulk => None,
                AppSpec::Transfer { bytes } => Some(Value::from(bytes)),
            },
        },
        Key {
            name: "recv_rate",
            ty: "rate or `\"unlimited\"`",
            doc: "How fast the receiving application reads: `unlimited` reads everything at once; a rate reads rate × `recv_interval` bytes per read.",
            default: "`\"unlimited\"`",
            read: |w, f| {
                w.spec.recv_rate_bps = match f.v {
                    Value::String(s) if s == "unlimited" => None,
                    _ => Some(f.rate()?),
                };
                Ok(())
            },
            write: |w| Some(Value::from(w.spec.recv_rate_bps.map_or("unlimited".to_string(), format_rate))),
        },
        Key {
            name: "recv_interval",
            ty: "duration",
            doc: "Time between reads of a rate-limited reader; positive.",
            default: "`\"10ms\"`",
            read: |w, f| {
                let d = f.duration()?;
                if d == Duration::ZERO {
                    return Err(f.err("recv_interval must be positive"));
                }
                w.spec.recv_interval = d;
                Ok(())
            },
            write: |w| Some(Value::from(format_duration(w.spec.recv_interval))),
        },
        Key {
            name: "tcp",
            ty: "table",
            doc: "The flow's TCP stack: a profile and any of its keys ([`[flows.tcp]`](#flowstcp)); both ends use it.",
            default: "the `linux` profile",
            read: |w, f| {
                let t = f.table()?;
                match super::ns2::ns2_config(&t)? {
                    // The handover schemes' switches also tell the report
                    // to print their counters, as for the Linux endpoint.
                    Some(c) => {
                        w.spec.tcp = airtcp_tcp::TcpConfig { witcp: c.witcp, ehn: c.ehn, ..super::tcp::tcp_default() };
                        w.spec.ns2 = Some(c);
                    }
                    None => w.spec.tcp = super::tcp::tcp_config(&t)?,
                }
                Ok(())
            },
            write: |w| {
                Some(match &w.spec.ns2 {
                    Some(c) => super::ns2::ns2_json(c),
                    None => super::tcp::tcp_json(&w.spec.tcp),
                })
            },
        },
    ]
}

/// Read `[[flows]]` (`tables`); `component` is each node's connected component.
pub(super) fn flows(root: &Table, tables: &[Table], nodes: &[NodeSpec], index: &NodeIndex, component: &[usize], sim: &SimSpec) -> R<Vec<FlowSpec>> {
    if tables.len() > MAX_FLOWS {
        return Err(root.doc.err(&KeyPath::root().key("flows"), format!("at most {MAX_FLOWS} flows")));
    }
    let mut out: Vec<FlowSpec> = Vec::with_capacity(tables.len());
    for (i, t) in tables.iter().enumerate() {
        // The table is typed by the borrow of the flows before, so it is
        // made per flow (an array of nine function pointers).
        let keys = flow_keys();
        let section = Section { path: "flows", keys: &keys };
        section.known(t)?;
        let spec = FlowSpec {
            name: format!("flow{i}"),
            from: UNSET,
            to: UNSET,
            start: Duration::ZERO,
            app: AppSpec::Bulk,
            recv_rate_bps: None,
            recv_interval: crate::apps::READ_TICK,
            tcp: super::tcp::tcp_default(),
            ns2: None,
        };
        let mut w = Flow { nodes, checks: Some(Checks { index, component, sim, earlier: &out }), spec };
        section.read_present(t, &mut w)?;
        if w.spec.from == UNSET {
            t.req("from")?;
        }
        if w.spec.to == UNSET {
            t.req("to")?;
        }
        if w.spec.app == (AppSpec::Transfer { bytes: 0 }) {
            t.req("bytes")?;
        }
        let spec = w.spec;
        out.push(spec);
    }
    Ok(out)
}

/// The resolved flow, every key.
pub(super) fn flow_json(f: &FlowSpec, nodes: &[NodeSpec]) -> Value {
    let keys = flow_keys();
    Section { path: "flows", keys: &keys }.write(&Flow { nodes, checks: None, spec: f.clone() })
}
