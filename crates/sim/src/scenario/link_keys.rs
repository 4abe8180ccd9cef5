//! `[[links]]`: every key is one entry of [`LINK`], with its type, default,
//! reader, summary.json writer and reference-page line. A per-direction
//! family (`rate`, `delay`, `loss`, `reorder`, `trace`, `red`) is one entry
//! too: it answers to `<name>` (both directions) and `<name>_ab` /
//! `<name>_ba` (one), and is written back per direction. The sub-tables'
//! own keys are in `link_tables` (`LOSS`, `RED`, `REORDER`) and `trace_keys`.
//!
//! Each key reads its own value and checks what it can alone; what needs
//! several keys (the default name and its uniqueness, a trace against a
//! rate, a drive trace's loss curve against a loss model, `ecn_threshold`
//! against RED, the addresses' defaults) is checked by `finish` once the
//! link's keys are read.

use std::collections::HashMap;

use airtcp_core::Duration;
use serde_json::{json, Map, Value};

use super::doc::KeyPath;
use super::names::{check_name, NodeIndex};
use super::trace::{TraceModel, TraceSpec};
use super::units::{format_duration, format_rate};
use super::value::{Field, Table, R};
use super::{LinkSpec, LossSpec, NodeSpec, ReorderSpec, DIR_NAMES};
use crate::link::aqm::{AqmSpec, RedParams};
use crate::link::{LossModel, QueueLimit};
use crate::network::addr::{auto_link_subnet, fmt_addr, mask, parse_addr, Prefix, MAX_AUTO_LINKS};

/// ns-3's PointToPointNetDevice default queue (DropTailQueue 100p).
const DEFAULT_QUEUE_PACKETS: u32 = 100;
/// PPP header ns-3 adds on a point-to-point device.
const DEFAULT_OVERHEAD_BYTES: u32 = 2;

/// The names a key answers to.
#[derive(Clone, Copy, PartialEq)]
pub enum Form {
    /// `<name>` only.
    One,
    /// `<name>` sets both directions; `<name>_ab` / `<name>_ba` then set one.
    PerDir,
    /// A table for both directions, or `<name>_ab` / `<name>_ba` for one;
    /// not both forms.
    Either,
}

/// One `[[links]]` key (a per-direction family is one key).
pub struct LinkKey {
    pub name: &'static str,
    pub form: Form,
    /// The value's type and unit, as the reference page shows them.
    pub ty: &'static str,
    pub default: &'static str,
    pub doc: &'static str,
    /// Store the value of `f` into the link being read: `dir` is `None` for
    /// `<name>`, `Some(i)` for direction `i`'s `<name>_ab` / `<name>_ba`.
    pub read: fn(&mut Draft, &Field, Option<usize>) -> R<()>,
    /// The resolved value of the key (`None`) or of direction `i` of a
    /// family (`Some(i)`); `None` leaves it out of the record.
    pub write: fn(&Written, Option<usize>) -> Option<Value>,
}

impl LinkKey {
    /// Every name the key answers to, in the order the unknown-key message lists them.
    pub fn names(&self) -> Vec<String> {
        let mut v = vec![self.name.to_string()];
        if self.form != Form::One {
            v.extend(DIR_NAMES.iter().map(|d| dir_name(self.name, d)));
        }
        v
    }
}

fn dir_name(name: &str, dir: &str) -> String {
    format!("{name}_{dir}")
}

/// A link being read: what its keys set so far, and what they are checked against.
pub struct Draft<'a> {
    t: &'a Table<'a>,
    nodes: &'a [NodeSpec],
    index: &'a NodeIndex,
    /// The links before this one (its position, and names are unique).
    earlier: &'a [LinkSpec],
    a: Option<usize>,
    b: Option<usize>,
    name: Option<String>,
    rate: [Option<u64>; 2],
    /// A direction's own `rate_<dir>` was given (a trace forbids it).
    own_rate: [bool; 2],
    delay: [Duration; 2],
    queue: Option<QueueLimit>,
    overhead_bytes: u32,
    loss: [Option<LossSpec>; 2],
    reorder: [Option<ReorderSpec>; 2],
    trace: [Option<TraceSpec>; 2],
    subnet: Option<Prefix>,
    addr: [Option<u32>; 2],
    ecn_threshold: Option<QueueLimit>,
    red: [Option<RedParams>; 2],
}

impl Draft<'_> {
    fn node(&self, f: &Field) -> R<usize> {
        let s = f.str()?;
        self.index.get(s).ok_or_else(|| {
            let known: Vec<&str> = self.nodes.iter().map(|n| n.name.as_str()).collect();
            f.err(format!("unknown node \"{s}\" (nodes: {})", known.join(", ")))
        })
    }

    /// The declared subnet, or link i's /30 of the automatic plan.
    fn subnet(&self) -> R<Prefix> {
        if let Some(p) = self.subnet {
            return Ok(p);
        }
        let li = self.earlier.len();
        if li >= MAX_AUTO_LINKS {
            return Err(self.t.err(format!("more than {MAX_AUTO_LINKS} links need declared subnets")));
        }
        Ok(auto_link_subnet(li).0)
    }

    /// Store `v` for the directions `dir` names (both for `None`).
    fn set<T: Clone>(slot: &mut [T; 2], dir: Option<usize>, v: T) {
        match dir {
            Some(i) => slot[i] = v,
            None => *slot = [v.clone(), v],
        }
    }
}

/// A resolved link and the nodes its `a` / `b` name, for writing.
pub struct Written<'a> {
    pub l: &'a LinkSpec,
    pub nodes: &'a [NodeSpec],
}

/// A node's name as `a` / `b` write it.
fn node_name(w: &Written, node: usize) -> Option<Value> {
    Some(Value::from(w.nodes[node].name.as_str()))
}

/// A queue limit as `ecn_threshold` writes it: packets as an integer, bytes as a size.
fn limit_json(k: QueueLimit) -> Value {
    match k {
        QueueLimit::Packets(n) => json!(n),
        QueueLimit::Bytes(n) => json!(format!("{n}B")),
    }
}

/// Every `[[links]]` key, in the order the unknown-key message and the
/// reference page list them.
pub static LINK: &[LinkKey] = &[
    LinkKey {
        name: "name",
        form: Form::One,
        ty: "name",
        default: "`\"<a>-<b>\"`",
        doc: "Names the link's interfaces, RNG streams and pcap files; letters, digits, `_`, `-`, `.`; unique.",
        read: |d, f, _| {
            d.name = Some(check_name(f, "link")?);
            Ok(())
        },
        write: |w, _| Some(Value::from(w.l.name.as_str())),
    },
    LinkKey {
        name: "a",
        form: Form::One,
        ty: "node name",
        default: "required",
        doc: "One end; direction `ab` is `a` → `b`.",
        read: |d, f, _| {
            d.a = Some(d.node(f)?);
            Ok(())
        },
        write: |w, _| node_name(w, w.l.a),
    },
    LinkKey {
        name: "b",
        form: Form::One,
        ty: "node name",
        default: "required",
        doc: "The other end, a node other than `a`.",
        read: |d, f, _| {
            let b = d.node(f)?;
            if d.a == Some(b) {
                return Err(f.err(format!("a link needs two different nodes (a = b = \"{}\")", d.nodes[b].name)));
            }
            d.b = Some(b);
            Ok(())
        },
        write: |w, _| node_name(w, w.l.b),
    },
    LinkKey {
        name: "rate",
        form: Form::PerDir,
        ty: "rate",
        default: "required (unless a trace drives the direction)",
        doc: "Transmission rate; a direction with a trace follows the trace instead (and may not set its own `rate_<dir>`).",
        read: |d, f, dir| {
            Draft::set(&mut d.rate, dir, Some(f.rate()?));
            if let Some(i) = dir {
                d.own_rate[i] = true;
            }
            Ok(())
        },
        write: |w, dir| {
            let i = dir.expect("per direction");
            w.l.trace[i].is_none().then(|| json!(format_rate(w.l.rate_bps[i])))
        },
    },
    LinkKey {
        name: "delay",
        form: Form::PerDir,
        ty: "duration",
        default: "`\"0s\"`",
        doc: "Propagation delay.",
        read: |d, f, dir| {
            Draft::set(&mut d.delay, dir, f.duration()?);
            Ok(())
        },
        write: |w, dir| Some(json!(format_duration(w.l.delay[dir.expect("per direction")]))),
    },
    LinkKey {
        name: "queue_packets",
        form: Form::One,
        ty: "integer",
        default: "`100` (ns-3's default)",
        doc: "DropTail limit: frames waiting besides the one in transmission.",
        read: |d, f, _| {
            let n = f.u32()?;
            if n == 0 {
                return Err(f.err("queue_packets must be at least 1"));
            }
            d.queue = Some(QueueLimit::Packets(n));
            Ok(())
        },
        write: |w, _| match w.l.queue {
            QueueLimit::Packets(n) => Some(json!(n)),
            QueueLimit::Bytes(_) => None,
        },
    },
    LinkKey {
        name: "queue_bytes",
        form: Form::One,
        ty: "size (bytes)",
        default: "—",
        doc: "A DropTail limit in frame bytes instead; not with `queue_packets`.",
        read: |d, f, _| {
            if d.queue.is_some() {
                return Err(f.err("set queue_packets or queue_bytes, not both"));
            }
            let n = f.size()?;
            if n == 0 {
                return Err(f.err("queue_bytes must be positive"));
            }
            d.queue = Some(QueueLimit::Bytes(n));
            Ok(())
        },
        write: |w, _| match w.l.queue {
            QueueLimit::Bytes(n) => Some(json!(n)),
            QueueLimit::Packets(_) => None,
        },
    },
    LinkKey {
        name: "overhead_bytes",
        form: Form::One,
        ty: "integer (bytes)",
        default: "`2` (PPP, as ns-3)",
        doc: "Link header per frame, at most 65535.",
        read: |d, f, _| {
            let n = f.u32()?;
            if n > 65_535 {
                return Err(f.err(format!("overhead_bytes = {n} is more than 65535")));
            }
            d.overhead_bytes = n;
            Ok(())
        },
        write: |w, _| Some(json!(w.l.overhead_bytes)),
    },
    LinkKey {
        name: "loss",
        form: Form::Either,
        ty: "table",
        default: "no loss",
        doc: "The loss model, each direction with its own RNG stream; its keys are below.",
        read: |d, f, dir| {
            let l = super::link_tables::loss_spec(&f.table()?)?;
            Draft::set(&mut d.loss, dir, Some(l));
            Ok(())
        },
        write: |w, dir| Some(super::link_tables::loss_json(&w.l.loss[dir.expect("per direction")])),
    },
    LinkKey {
        name: "reorder",
        form: Form::Either,
        ty: "table",
        default: "none",
        doc: "With probability `p` a frame gets `delay` extra; its keys are below.",
        read: |d, f, dir| {
            let r = super::link_tables::reorder_spec(&f.table()?)?;
            Draft::set(&mut d.reorder, dir, Some(r));
            Ok(())
        },
        write: |w, dir| w.l.reorder[dir.expect("per direction")].as_ref().map(super::link_tables::reorder_json),
    },
    LinkKey {
        name: "trace",
        form: Form::Either,
        ty: "table",
        default: "none",
        doc: "The direction follows a Mahimahi trace or a drive log instead of `rate`; its keys are below.",
        read: |d, f, dir| {
            let t = super::trace_keys::trace_spec(&f.table()?)?;
            Draft::set(&mut d.trace, dir, Some(t));
            Ok(())
        },
        write: |w, dir| w.l.trace[dir.expect("per direction")].as_ref().map(super::trace_keys::trace_json),
    },
    LinkKey {
        name: "subnet",
        form: Form::One,
        ty: "prefix `a.b.c.d/len`",
        default: "link *i* is the /30 at 10.0.0.0 + 4*i*",
        doc: "The link's subnet: at most /30, no host bits set.",
        read: |d, f, _| {
            let p = Prefix::parse(f.str()?).map_err(|m| f.err(m))?;
            if p.len > 30 {
                return Err(f.err(format!("subnet {p} has no room for two interfaces (at most /30)")));
            }
            d.subnet = Some(p);
            Ok(())
        },
        write: |w, _| Some(json!(w.l.subnet.to_string())),
    },
    LinkKey {
        name: "addr_a",
        form: Form::One,
        ty: "address `a.b.c.d`",
        default: "the subnet's first free host address",
        doc: "Address of the `a` interface: inside the subnet, not its network or broadcast address, unique in the run.",
        read: |d, f, _| read_addr(d, f, 0),
        write: |w, _| Some(json!(fmt_addr(w.l.addr[0]))),
    },
    LinkKey {
        name: "addr_b",
        form: Form::One,
        ty: "address `a.b.c.d`",
        default: "the subnet's first free host address",
        doc: "Address of the `b` interface, as `addr_a`.",
        read: |d, f, _| read_addr(d, f, 1),
        write: |w, _| Some(json!(fmt_addr(w.l.addr[1]))),
    },
    LinkKey {
        name: "ecn_threshold",
        form: Form::One,
        ty: "integer (packets) or size (bytes)",
        default: "none",
        doc: "DCTCP-style step marking (Alizadeh et al. 2010): an ECN-capable frame that finds at least this many frames (an integer) or bytes (a size string, `\"30KB\"`) waiting is CE-marked. Not-ECT frames are untouched (only the DropTail limit drops them). Both directions. Not together with `red`.",
        read: |d, f, _| {
            let k = match f.v {
                Value::String(_) => {
                    let n = f.size()?;
                    if n == 0 {
                        return Err(f.err("ecn_threshold must be positive"));
                    }
                    QueueLimit::Bytes(n)
                }
                _ => {
                    let n = f.u32()?;
                    if n == 0 {
                        return Err(f.err("ecn_threshold must be at least 1 packet"));
                    }
                    QueueLimit::Packets(n)
                }
            };
            d.ecn_threshold = Some(k);
            Ok(())
        },
        write: |w, _| match w.l.aqm[0] {
            Some(AqmSpec::StepMark(k)) => Some(limit_json(k)),
            _ => None,
        },
    },
    LinkKey {
        name: "red",
        form: Form::Either,
        ty: "table",
        default: "none",
        doc: "Random Early Detection in front of the DropTail limit; its keys are below.",
        read: |d, f, dir| {
            let p = super::link_tables::red_spec(&f.table()?)?;
            Draft::set(&mut d.red, dir, Some(p));
            Ok(())
        },
        write: |w, dir| match &w.l.aqm[dir.expect("per direction")] {
            Some(AqmSpec::Red(p)) => Some(super::link_tables::red_json(p)),
            _ => None,
        },
    },
];

/// `addr_a` (`end` 0) or `addr_b` (1): a host address of the link's subnet.
fn read_addr(d: &mut Draft, f: &Field, end: usize) -> R<()> {
    let subnet = d.subnet()?;
    let a = parse_addr(f.str()?).map_err(|m| f.err(m))?;
    let bcast = subnet.addr | !mask(subnet.len);
    if !subnet.contains(a) || a == subnet.addr || a == bcast {
        return Err(f.err(format!("{} is not a host address of the link's subnet {subnet}", fmt_addr(a))));
    }
    d.addr[end] = Some(a);
    Ok(())
}

/// Every `[[links]]` table, read and checked in order (addresses are also
/// unique across links).
pub(super) fn links(tables: &[Table], nodes: &[NodeSpec], index: &NodeIndex) -> R<Vec<LinkSpec>> {
    let names: Vec<String> = LINK.iter().flat_map(LinkKey::names).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut out: Vec<LinkSpec> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for t in tables {
        t.known(&names)?;
        let mut d = Draft {
            t,
            nodes,
            index,
            earlier: &out,
            a: None,
            b: None,
            name: None,
            rate: [None; 2],
            own_rate: [false; 2],
            delay: [Duration::ZERO; 2],
            queue: None,
            overhead_bytes: DEFAULT_OVERHEAD_BYTES,
            loss: [None, None],
            reorder: [None, None],
            trace: [None, None],
            subnet: None,
            addr: [None; 2],
            ecn_threshold: None,
            red: [None, None],
        };
        for k in LINK {
            read_key(&mut d, k)?;
        }
        let spec = finish(d, &mut seen)?;
        out.push(spec);
    }
    unique_addresses(tables, &out)?;
    Ok(out)
}

/// Read every name of `k` present in the link's table.
fn read_key(d: &mut Draft, k: &LinkKey) -> R<()> {
    let t = d.t;
    let both = t.opt(k.name);
    if k.form == Form::One {
        return both.map_or(Ok(()), |f| (k.read)(d, &f, None));
    }
    if k.form == Form::PerDir {
        if let Some(f) = &both {
            (k.read)(d, f, None)?;
        }
    }
    for (i, dir) in DIR_NAMES.iter().enumerate() {
        let Some(f) = t.opt(&dir_name(k.name, dir)) else { continue };
        if k.form == Form::Either && both.is_some() {
            return Err(f.err(format!("conflicts with {}; use either {n} or {n}_ab/{n}_ba", t.path.key(k.name), n = k.name)));
        }
        (k.read)(d, &f, Some(i))?;
    }
    if k.form == Form::Either {
        if let Some(f) = &both {
            (k.read)(d, f, None)?;
        }
    }
    Ok(())
}

/// The checks that need several keys, and the defaults that depend on other keys.
fn finish(d: Draft, seen: &mut HashMap<String, usize>) -> R<LinkSpec> {
    let t = d.t;
    // The page's "required" is what the reader enforces.
    for k in LINK.iter().filter(|k| k.default == "required") {
        t.req(k.name)?;
    }
    let (a, b) = (d.a.expect("required"), d.b.expect("required"));
    let name = d.name.clone().unwrap_or_else(|| format!("{}-{}", d.nodes[a].name, d.nodes[b].name));
    if let Some(j) = seen.insert(name.clone(), d.earlier.len()) {
        let at = t.opt("name").map(|f| f.path).unwrap_or_else(|| t.path.clone());
        return Err(t.doc.err(&at, format!("duplicate link name \"{name}\" (also links[{j}]; set `name` to tell them apart)")));
    }
    let rate = "rate";
    let mut rate_bps = [0u64; 2];
    for (i, dir) in DIR_NAMES.iter().enumerate() {
        rate_bps[i] = match (&d.trace[i], d.own_rate[i]) {
            (Some(_), true) => {
                let f = t.opt(&dir_name(rate, dir)).expect("read");
                return Err(f.err(format!("conflicts with the trace of direction {dir}; a trace sets the rate (drop {rate}_{dir})")));
            }
            (Some(tr), false) => tr.nominal_bps(),
            (None, _) => d.rate[i].ok_or_else(|| t.doc.err(&t.path.key(rate), "missing required key"))?,
        };
    }
    let loss = d.loss.clone().map(|l| l.unwrap_or_else(LossSpec::none));
    check_trace_loss(t, &d.trace, &loss)?;
    let aqm = match d.ecn_threshold {
        Some(k) => {
            if d.red.iter().any(Option::is_some) {
                let f = t.opt("ecn_threshold").expect("read");
                return Err(f.err("set ecn_threshold or red, not both (RED marks with red.ecn = true)"));
            }
            [Some(AqmSpec::StepMark(k)), Some(AqmSpec::StepMark(k))]
        }
        None => d.red.clone().map(|r| r.map(AqmSpec::Red)),
    };
    let subnet = d.subnet()?;
    let addr = d.addr;
    let first = addr[0].unwrap_or(if addr[1] == Some(subnet.addr + 1) { subnet.addr + 2 } else { subnet.addr + 1 });
    let second = addr[1].unwrap_or(if first == subnet.addr + 2 { subnet.addr + 1 } else { subnet.addr + 2 });
    if first == second {
        let f = t.opt("addr_b").expect("only a declared addr_b can collide");
        return Err(f.err(format!("addr_b equals addr_a ({})", fmt_addr(first))));
    }
    Ok(LinkSpec {
        name,
        a,
        b,
        rate_bps,
        delay: d.delay,
        queue: d.queue.unwrap_or(QueueLimit::Packets(DEFAULT_QUEUE_PACKETS)),
        overhead_bytes: d.overhead_bytes,
        loss,
        reorder: d.reorder,
        trace: d.trace,
        aqm,
        subnet,
        addr: [first, second],
    })
}

/// A drive trace sets its direction's loss; a loss model beside it would
/// double-count (outage windows are fine and add up).
fn check_trace_loss(t: &Table, trace: &[Option<TraceSpec>; 2], loss: &[LossSpec; 2]) -> R<()> {
    let name = "loss";
    for (i, dir) in DIR_NAMES.iter().enumerate() {
        let Some(TraceSpec { model: TraceModel::Drive(d), .. }) = &trace[i] else { continue };
        if d.has_loss() && loss[i].model != LossModel::None {
            let k = if t.opt(name).is_some() { name.to_string() } else { dir_name(name, dir) };
            return Err(t.doc.err(
                &t.path.key(&k).key("model"),
                format!(
                    "conflicts with the drive trace of direction {dir}, whose loss curve sets the loss \
                     (set [links.trace.loss] max_loss = 0 to use a loss model instead)"
                ),
            ));
        }
    }
    Ok(())
}

/// No address may belong to two interfaces.
fn unique_addresses(tables: &[Table], links: &[LinkSpec]) -> R<()> {
    let mut all: Vec<(u32, usize, usize)> = Vec::with_capacity(2 * links.len());
    for (li, l) in links.iter().enumerate() {
        all.push((l.addr[0], li, 0));
        all.push((l.addr[1], li, 1));
    }
    all.sort_unstable();
    for w in all.windows(2) {
        if w[0].0 == w[1].0 {
            let (a, li, end) = w[1];
            let t = &tables[li];
            let path: KeyPath = t.path.key(if end == 0 { "addr_a" } else { "addr_b" });
            let (_, lj, _) = w[0];
            return Err(t.doc.err(&path, format!("address {} is also used by links[{lj}] ({})", fmt_addr(a), links[lj].name)));
        }
    }
    Ok(())
}

/// The resolved link for summary.json, under the input format's keys
/// (families per direction: `rate_ab`, `rate_ba`, ...), loadable again.
pub(super) fn link_json(l: &LinkSpec, nodes: &[NodeSpec]) -> Value {
    let w = Written { l, nodes };
    let mut m = Map::new();
    for k in LINK {
        if k.form == Form::One {
            if let Some(v) = (k.write)(&w, None) {
                m.insert(k.name.to_string(), v);
            }
            continue;
        }
        for (i, dir) in DIR_NAMES.iter().enumerate() {
            if let Some(v) = (k.write)(&w, Some(i)) {
                m.insert(dir_name(k.name, dir), v);
            }
        }
    }
    Value::Object(m)
}

/// The reference page's table of `[[links]]`: a family's row names all three keys.
pub(super) fn reference_table() -> String {
    super::key_rows::table(LINK.iter().map(|k| {
        let names: Vec<String> = k.names().iter().map(|n| format!("`{n}`")).collect();
        (names.join(", "), k.ty, k.default, k.doc.to_string())
    }))
}

#[cfg(test)]
mod tests {
    use super::super::keys::listed_values;
    use super::super::link_tables::LOSS;
    use super::*;
    use crate::Scenario;

    fn with_link(lines: &str) -> Result<Scenario, String> {
        let text = format!("[sim]\nduration = \"1s\"\n[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n[[links]]\na = \"a\"\nb = \"b\"\nrate = \"1Mbps\"\n{lines}\n");
        Scenario::from_toml_str(&text, "t.toml", &[]).map_err(|e| e.to_string())
    }

    /// A per-direction family is one declaration answering to three names.
    #[test]
    fn a_family_is_declared_once_with_three_names() {
        let names: Vec<String> = LINK.iter().flat_map(LinkKey::names).collect();
        assert_eq!((LINK.len(), names.len()), (16, 28));
        assert_eq!(LINK.iter().filter(|k| k.name.starts_with("rate")).count(), 1);
        assert_eq!(key_names("red"), ["red", "red_ab", "red_ba"]);
        let s = with_link("delay = \"10ms\"\ndelay_ba = \"30ms\"").unwrap();
        assert_eq!(s.links[0].delay, [Duration::from_millis(10), Duration::from_millis(30)]);
        let j = s.to_json();
        assert_eq!((&j["links"][0]["delay_ab"], &j["links"][0]["delay_ba"]), (&json!("10ms"), &json!("30ms")));
        assert!(j["links"][0].get("delay").is_none());
    }

    fn key_names(name: &str) -> Vec<String> {
        LINK.iter().find(|k| k.name == name).unwrap().names()
    }

    /// Every model `model` lists reads with just the keys the table marks
    /// required for it, fails without any one of them, and is recorded
    /// under its name.
    #[test]
    fn every_loss_model_reads_with_its_required_keys() {
        let mut checked = 0;
        for v in listed_values(LOSS[0].key.ty) {
            let model = v.trim_matches('"');
            let required: Vec<&str> = LOSS.iter().filter(|k| k.model == Some(model) && k.key.default == "required").map(|k| k.key.name).collect();
            let value = |k: &str| if k == "drops" { "[1]" } else { "0.1" };
            let all: String = required.iter().map(|k| format!("{k} = {}\n", value(k))).collect();
            let s = with_link(&format!("[links.loss_ab]\nmodel = {v}\n{all}")).unwrap_or_else(|e| panic!("{model}: {e}"));
            assert_eq!(s.to_json()["links"][0]["loss_ab"]["model"], model);
            for k in &required {
                let fewer: String = required.iter().filter(|r| r != &k).map(|r| format!("{r} = {}\n", value(r))).collect();
                let e = with_link(&format!("[links.loss_ab]\nmodel = {v}\n{fewer}")).unwrap_err();
                assert!(e.ends_with(&format!("links[0].loss_ab.{k}: missing required key")), "{e}");
            }
            checked += 1;
        }
        assert_eq!(checked, 5);
    }

    /// The defaults the link, loss and trace tables state as a literal
    /// (`` `"0s"` ``) are what a link without that key resolves to (a
    /// family's per direction; `format`'s `"auto"` is written as the format
    /// it found, and `name`'s `"<a>-<b>"` is a template).
    #[test]
    fn stated_link_defaults_are_the_resolved_ones() {
        let ucc = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/traces/cellular_5g_ucc_driving/B_2019.12.14_10.16.30.rows450-749.csv");
        let s = with_link(&format!("[links.loss_ab]\nmodel = \"gilbert\"\np_gb = 0.1\np_bg = 0.1\n[links.trace_ba]\nkind = \"drive\"\nfile = \"{ucc}\"")).unwrap();
        let j = &s.to_json()["links"][0];
        let literal = |d: &'static str| d.strip_prefix('`').and_then(|d| d.strip_suffix('`')).filter(|d| !d.contains('`') && !d.contains('<'));
        let mut checked = Vec::new();
        for k in LINK {
            if let Some(want) = literal(k.default) {
                let at = if k.form == Form::One { k.name.to_string() } else { dir_name(k.name, "ab") };
                assert_eq!(j[&at].to_string(), want, "{at}");
                checked.push(k.name);
            }
        }
        for k in LOSS {
            if let Some(want) = literal(k.key.default) {
                // A model's own key on the gilbert direction, the others on the default one.
                let table = if k.model.is_some() { &j["loss_ab"] } else { &j["loss_ba"] };
                assert_eq!(table[k.key.name].to_string(), want, "{}", k.key.name);
                checked.push(k.key.name);
            }
        }
        for k in super::super::trace_keys::TRACE.iter().filter(|k| k.name != "format") {
            if let Some(want) = literal(k.default) {
                assert_eq!(j["trace_ba"][k.name].to_string(), want, "{}", k.name);
                checked.push(k.name);
            }
        }
        assert_eq!(checked, ["delay", "model", "loss_good", "loss_bad", "offset", "handoff_drops"]);
    }
}
