//! From a document to a validated [`Scenario`]: every key is read with its
//! type, every table checked for unknown keys, and cross-references (node
//! names, routes) resolved before anything runs.

use airtcp_core::Duration;
use std::collections::HashMap;

use serde_json::Value;

use super::doc::{Doc, KeyPath};
use super::names::{check_name, NodeIndex};
use super::value::{Field, Table, R};
use super::trace::{TraceModel, TraceSpec};
use super::{FlowSpec, LinkSpec, LossSpec, NodeSpec, Scenario, SimSpec};
use crate::link::aqm::AqmSpec;
use crate::link::{LossModel, QueueLimit};
use crate::network::addr::{auto_link_subnet, fmt_addr, mask, parse_addr, Prefix, MAX_AUTO_LINKS};
use crate::network::components;

/// ns-3's PointToPointNetDevice default queue (DropTailQueue 100p).
const DEFAULT_QUEUE_PACKETS: u32 = 100;
/// PPP header ns-3 adds on a point-to-point device.
const DEFAULT_OVERHEAD_BYTES: u32 = 2;

pub fn scenario(doc: &Doc) -> R<Scenario> {
    let root = Table::new(doc, KeyPath::root(), &doc.root)?;
    root.known(&["sim", "nodes", "links", "flows", "udp_flows", "agents", "route_changes", "wifi", "radios", "wifi_errors", "sdn", "mesh"])?;
    let sim = super::run::sim_spec(&root.req("sim")?.table()?)?;
    let mut nodes = super::run::nodes(&root, &list_of_tables(&root, "nodes")?)?;
    let index = NodeIndex::new(&nodes);
    let links = links(&root, &nodes, &index)?;
    unique_addresses(&root, &links)?;
    let wifi = super::wifi::wifi(&root, &nodes, &index)?;
    if let Some(w) = &wifi {
        wired_wireless_overlap(&root, &links, w)?;
        for r in &w.radios {
            nodes[r.node].radio = true;
        }
    }
    let flows = flows(&root, &nodes, &index, &links, wifi.as_ref(), &sim)?;
    let udp_flows = udp_flows(&root, &nodes, &index, &links, wifi.as_ref(), &sim)?;
    let agents = super::agents::agents(list_of_tables(&root, "agents")?, &nodes, &index, &links, wifi.as_ref())?;
    let route_changes = super::routes::route_changes(list_of_tables(&root, "route_changes")?, &nodes, &index, &links, sim.duration)?;
    let sdn = super::sdn::sdn(&root, &nodes, &index)?;
    let mesh = super::mesh::mesh(&root, wifi.as_ref(), &nodes, &flows)?;
    Ok(Scenario { origin: doc.origin.clone(), sim, nodes, links, flows, udp_flows, agents, route_changes, wifi, sdn, mesh })
}

fn list_of_tables<'a>(root: &Table<'a>, key: &str) -> R<Vec<Table<'a>>> {
    let Some(f) = root.opt(key) else { return Ok(Vec::new()) };
    let items = f.list()?;
    (0..items.len()).map(|i| f.item(i).table()).collect()
}

fn node_ref(f: &Field, nodes: &[NodeSpec], index: &NodeIndex) -> R<usize> {
    let s = f.str()?;
    index.get(s).ok_or_else(|| {
        let known: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
        f.err(format!("unknown node \"{s}\" (nodes: {})", known.join(", ")))
    })
}

/// A symmetric key with optional per-direction variants `<key>_ab` / `<key>_ba`.
fn per_dir<T: Copy>(t: &Table, key: &str, read: impl Fn(&Field) -> R<T>, default: Option<T>) -> R<[T; 2]> {
    let both = t.opt(key).map(|f| read(&f)).transpose()?;
    let mut out = [both; 2];
    for (i, suffix) in ["ab", "ba"].iter().enumerate() {
        if let Some(f) = t.opt(&format!("{key}_{suffix}")) {
            out[i] = Some(read(&f)?);
        }
    }
    let mut res = [None; 2];
    for i in 0..2 {
        res[i] = out[i].or(default);
        if res[i].is_none() {
            return Err(t.doc.err(&t.path.key(key), "missing required key"));
        }
    }
    Ok([res[0].unwrap(), res[1].unwrap()])
}

const LINK_KEYS: &[&str] = &[
    "name", "a", "b", "rate", "rate_ab", "rate_ba", "delay", "delay_ab", "delay_ba", "queue_packets", "queue_bytes",
    "overhead_bytes", "loss", "loss_ab", "loss_ba", "reorder", "reorder_ab", "reorder_ba", "trace", "trace_ab",
    "trace_ba", "subnet", "addr_a", "addr_b", "ecn_threshold", "red", "red_ab", "red_ba",
];

fn links(root: &Table, nodes: &[NodeSpec], index: &NodeIndex) -> R<Vec<LinkSpec>> {
    let mut out: Vec<LinkSpec> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for t in list_of_tables(root, "links")? {
        t.known(LINK_KEYS)?;
        let a = node_ref(&t.req("a")?, nodes, index)?;
        let bf = t.req("b")?;
        let b = node_ref(&bf, nodes, index)?;
        if a == b {
            return Err(bf.err(format!("a link needs two different nodes (a = b = \"{}\")", nodes[a].name)));
        }
        let name = match t.opt("name") {
            Some(f) => check_name(&f, "link")?,
            None => format!("{}-{}", nodes[a].name, nodes[b].name),
        };
        if let Some(j) = seen.insert(name.clone(), out.len()) {
            let at = t.opt("name").map(|f| f.path).unwrap_or_else(|| t.path.clone());
            return Err(t.doc.err(&at, format!("duplicate link name \"{name}\" (also links[{j}]; set `name` to tell them apart)")));
        }
        let trace = directional(&t, "trace", super::trace::trace_spec)?;
        let rate_bps = rates(&t, &trace)?;
        let delay = per_dir(&t, "delay", |f| f.duration(), Some(Duration::ZERO))?;
        let queue = match (t.opt("queue_packets"), t.opt("queue_bytes")) {
            (Some(_), Some(f)) => return Err(f.err("set queue_packets or queue_bytes, not both")),
            (Some(f), None) => {
                let n = f.u32()?;
                if n == 0 {
                    return Err(f.err("queue_packets must be at least 1"));
                }
                QueueLimit::Packets(n)
            }
            (None, Some(f)) => {
                let n = f.size()?;
                if n == 0 {
                    return Err(f.err("queue_bytes must be positive"));
                }
                QueueLimit::Bytes(n)
            }
            (None, None) => QueueLimit::Packets(DEFAULT_QUEUE_PACKETS),
        };
        let overhead_bytes = match t.opt("overhead_bytes") {
            Some(f) => {
                let n = f.u32()?;
                if n > 65_535 {
                    return Err(f.err(format!("overhead_bytes = {n} is more than 65535")));
                }
                n
            }
            None => DEFAULT_OVERHEAD_BYTES,
        };
        let loss = directional(&t, "loss", loss_spec)?.map(|l| l.unwrap_or_else(LossSpec::none));
        check_trace_loss(&t, &trace, &loss)?;
        let reorder = directional(&t, "reorder", super::link_tables::reorder_spec)?;
        let aqm = aqm_specs(&t)?;
        let (subnet, addr) = addresses(&t, out.len())?;
        out.push(LinkSpec { name, a, b, rate_bps, delay, queue, overhead_bytes, loss, reorder, trace, aqm, subnet, addr });
    }
    Ok(out)
}

/// `rate` / `rate_ab` / `rate_ba`, except for a direction with a trace, whose
/// reported rate is the trace's mean capacity.
fn rates(t: &Table, trace: &[Option<TraceSpec>; 2]) -> R<[u64; 2]> {
    let both = t.opt("rate").map(|f| f.rate()).transpose()?;
    let mut out = [0u64; 2];
    for (i, suffix) in ["ab", "ba"].iter().enumerate() {
        let own = t.opt(&format!("rate_{suffix}"));
        match (&trace[i], own) {
            (Some(_), Some(f)) => {
                return Err(f.err(format!(
                    "conflicts with the trace of direction {suffix}; a trace sets the rate (drop rate_{suffix})"
                )))
            }
            (Some(tr), None) => out[i] = tr.nominal_bps(),
            (None, Some(f)) => out[i] = f.rate()?,
            (None, None) => match both {
                Some(r) => out[i] = r,
                None => return Err(t.doc.err(&t.path.key("rate"), "missing required key")),
            },
        }
    }
    Ok(out)
}

/// A drive trace sets its direction's loss; a loss model beside it would
/// double-count (outage windows are fine and add up).
fn check_trace_loss(t: &Table, trace: &[Option<TraceSpec>; 2], loss: &[LossSpec; 2]) -> R<()> {
    for (i, suffix) in ["ab", "ba"].iter().enumerate() {
        let Some(TraceSpec { model: TraceModel::Drive(d), .. }) = &trace[i] else { continue };
        if d.has_loss() && loss[i].model != LossModel::None {
            let key = if t.opt("loss").is_some() { "loss".to_string() } else { format!("loss_{suffix}") };
            return Err(t.doc.err(
                &t.path.key(&key).key("model"),
                format!(
                    "conflicts with the drive trace of direction {suffix}, whose loss curve sets the loss \
                     (set [links.trace.loss] max_loss = 0 to use a loss model instead)"
                ),
            ));
        }
    }
    Ok(())
}

/// `<key>` for both directions, or `<key>_ab` / `<key>_ba` for one; not both forms.
fn directional<T: Clone>(t: &Table, key: &str, read: impl Fn(&Table) -> R<T>) -> R<[Option<T>; 2]> {
    let both = t.opt(key);
    let mut out: [Option<T>; 2] = [None, None];
    for (i, suffix) in ["ab", "ba"].iter().enumerate() {
        let k = format!("{key}_{suffix}");
        if let Some(f) = t.opt(&k) {
            if both.is_some() {
                return Err(f.err(format!("conflicts with {}; use either {key} or {key}_ab/{key}_ba", t.path.key(key))));
            }
            out[i] = Some(read(&f.table()?)?);
        }
    }
    if let Some(f) = both {
        let v = read(&f.table()?)?;
        out = [Some(v.clone()), Some(v)];
    }
    Ok(out)
}

fn loss_spec(t: &Table) -> R<LossSpec> {
    let model_name = match t.opt("model") {
        Some(f) => Some((f.str()?, f)),
        None => None,
    };
    let (model, keys): (LossModel, &[&str]) = match &model_name {
        None => {
            if t.opt("outages").is_none() {
                return Err(t.doc.err(&t.path.key("model"), "missing required key (none, uniform, ber, gilbert) or outages"));
            }
            (LossModel::None, &["model", "outages"])
        }
        Some(("none", _)) => (LossModel::None, &["model", "outages"]),
        Some(("uniform", _)) => {
            t.known(&["model", "p", "outages"])?;
            (LossModel::Uniform { p: t.req("p")?.prob()? }, &["model", "p", "outages"])
        }
        Some(("ber", _)) => {
            t.known(&["model", "ber", "outages"])?;
            (LossModel::BitErrorRate { ber: t.req("ber")?.prob()? }, &["model", "ber", "outages"])
        }
        Some(("gilbert", _)) => {
            const K: &[&str] = &["model", "p_gb", "p_bg", "loss_good", "loss_bad", "outages"];
            t.known(K)?;
            let p_gb = t.req("p_gb")?.prob()?;
            let p_bg = t.req("p_bg")?.prob()?;
            let loss_good = t.opt("loss_good").map(|f| f.prob()).transpose()?.unwrap_or(0.0);
            let loss_bad = t.opt("loss_bad").map(|f| f.prob()).transpose()?.unwrap_or(1.0);
            (LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad }, K)
        }
        Some(("list", _)) => {
            t.known(&["model", "drops", "outages"])?;
            let f = t.req("drops")?;
            let items = f.list()?;
            let mut drops = Vec::with_capacity(items.len());
            for i in 0..items.len() {
                let n = f.item(i).u64()?;
                if drops.last().is_some_and(|&p| n <= p) {
                    return Err(f.item(i).err(format!("drops must be strictly increasing frame numbers ({n} follows {})", drops.last().unwrap())));
                }
                drops.push(n);
            }
            (LossModel::List { drops }, &["model", "drops", "outages"])
        }
        Some((other, f)) => {
            return Err(f.err(format!("unknown loss model \"{other}\" (known: none, uniform, ber, gilbert, list)")));
        }
    };
    t.known(keys)?;
    let outages = match t.opt("outages") {
        Some(f) => outages(&f)?,
        None => Vec::new(),
    };
    Ok(LossSpec { model, outages })
}

fn outages(f: &Field) -> R<Vec<(Duration, Duration)>> {
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
            return Err(w.err(format!("outage ends ({}) before it starts ({})", super::units::format_duration(e), super::units::format_duration(s))));
        }
        out.push((s, e));
    }
    out.sort();
    for w in out.windows(2) {
        if w[1].0 < w[0].1 {
            return Err(f.err(format!(
                "outages overlap ([{}, {}) and [{}, {}))",
                super::units::format_duration(w[0].0),
                super::units::format_duration(w[0].1),
                super::units::format_duration(w[1].0),
                super::units::format_duration(w[1].1)
            )));
        }
    }
    Ok(out)
}

/// `ecn_threshold` (both directions: a number of packets, or a size for
/// bytes) or `[links.red]` / `red_ab` / `red_ba`, not both.
fn aqm_specs(t: &Table) -> R<[Option<AqmSpec>; 2]> {
    let red = directional(t, "red", super::link_tables::red_spec)?;
    let Some(f) = t.opt("ecn_threshold") else {
        return Ok(red.map(|r| r.map(AqmSpec::Red)));
    };
    if red.iter().any(Option::is_some) {
        return Err(f.err("set ecn_threshold or red, not both (RED marks with red.ecn = true)"));
    }
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
    Ok([Some(AqmSpec::StepMark(k)), Some(AqmSpec::StepMark(k))])
}

/// `[[udp_flows]]` (`scenario::udp`), with the same reachability check as TCP flows.
fn udp_flows(root: &Table, nodes: &[NodeSpec], index: &NodeIndex, links: &[LinkSpec], wifi: Option<&super::wifi::WifiSpec>, sim: &SimSpec) -> R<Vec<super::udp::UdpFlowSpec>> {
    let tables = list_of_tables(root, "udp_flows")?;
    if tables.is_empty() {
        return Ok(Vec::new());
    }
    let mut pairs: Vec<(usize, usize)> = links.iter().map(|l| (l.a, l.b)).collect();
    if let Some(w) = wifi {
        pairs.extend(super::wifi::segment_pairs(w));
    }
    let component = components(nodes.len(), &pairs);
    let mut radio_only = vec![false; nodes.len()];
    if let Some(w) = wifi.filter(|w| w.p2p.is_none()) {
        for r in &w.radios {
            radio_only[r.node] = true;
        }
    }
    for l in links {
        radio_only[l.a] = false;
        radio_only[l.b] = false;
    }
    let node_ref = |f: &Field| node_ref(f, nodes, index);
    let connected = |a: usize, b: usize| component[a] == component[b];
    super::udp_keys::udp_flows(tables, nodes, &node_ref, &connected, &radio_only, sim)
}

/// `[[flows]]` (`scenario::flows`): every flow needs a route between its nodes.
fn flows(root: &Table, nodes: &[NodeSpec], index: &NodeIndex, links: &[LinkSpec], wifi: Option<&super::wifi::WifiSpec>, sim: &SimSpec) -> R<Vec<FlowSpec>> {
    let mut pairs: Vec<(usize, usize)> = links.iter().map(|l| (l.a, l.b)).collect();
    if let Some(w) = wifi {
        pairs.extend(super::wifi::segment_pairs(w));
    }
    let component = components(nodes.len(), &pairs);
    let tables = list_of_tables(root, "flows")?;
    super::flows::flows(root, &tables, nodes, index, &component, sim)
}

/// A link's subnet and interface addresses, declared or from the automatic
/// plan. Addresses must lie in the subnet, be distinct, and be neither its
/// network nor its broadcast address; uniqueness across links is checked by
/// [`unique_addresses`].
fn addresses(t: &Table, li: usize) -> R<(Prefix, [u32; 2])> {
    let subnet = match t.opt("subnet") {
        Some(f) => {
            let p = Prefix::parse(f.str()?).map_err(|m| f.err(m))?;
            if p.len > 30 {
                return Err(f.err(format!("subnet {p} has no room for two interfaces (at most /30)")));
            }
            p
        }
        None => {
            if li >= MAX_AUTO_LINKS {
                return Err(t.err(format!("more than {MAX_AUTO_LINKS} links need declared subnets")));
            }
            auto_link_subnet(li).0
        }
    };
    let bcast = subnet.addr | !mask(subnet.len);
    let mut addr = [None; 2];
    for (i, k) in ["addr_a", "addr_b"].iter().enumerate() {
        if let Some(f) = t.opt(k) {
            let a = parse_addr(f.str()?).map_err(|m| f.err(m))?;
            if !subnet.contains(a) || a == subnet.addr || a == bcast {
                return Err(f.err(format!("{} is not a host address of the link's subnet {subnet}", fmt_addr(a))));
            }
            addr[i] = Some(a);
        }
    }
    let a = addr[0].unwrap_or(if addr[1] == Some(subnet.addr + 1) { subnet.addr + 2 } else { subnet.addr + 1 });
    let b = addr[1].unwrap_or(if a == subnet.addr + 2 { subnet.addr + 1 } else { subnet.addr + 2 });
    if a == b {
        return Err(t.opt("addr_b").expect("only a declared addr_b can collide").err(format!("addr_b equals addr_a ({})", fmt_addr(a))));
    }
    Ok((subnet, [a, b]))
}

/// No address may belong to two interfaces.
fn unique_addresses(root: &Table, links: &[LinkSpec]) -> R<()> {
    let mut all: Vec<(u32, usize, usize)> = Vec::with_capacity(2 * links.len());
    for (li, l) in links.iter().enumerate() {
        all.push((l.addr[0], li, 0));
        all.push((l.addr[1], li, 1));
    }
    all.sort_unstable();
    for w in all.windows(2) {
        if w[0].0 == w[1].0 {
            let (a, li, end) = w[1];
            let key = KeyPath::root().key("links").index(li).key(if end == 0 { "addr_a" } else { "addr_b" });
            let (_, lj, _) = w[0];
            return Err(root.doc.err(&key, format!("address {} is also used by links[{lj}] ({})", fmt_addr(a), links[lj].name)));
        }
    }
    Ok(())
}

/// No radio address or subnet may collide with a link's.
fn wired_wireless_overlap(root: &Table, links: &[LinkSpec], w: &super::wifi::WifiSpec) -> R<()> {
    for (i, r) in w.radios.iter().enumerate() {
        for (li, l) in links.iter().enumerate() {
            if l.subnet.contains(r.addr) || r.subnet.contains(l.addr[0]) || r.subnet.contains(l.addr[1]) {
                let key = KeyPath::root().key("radios").index(i);
                return Err(root.doc.err(&key, format!("the radio's subnet {} overlaps links[{li}] ({}, subnet {})", r.subnet, l.name, l.subnet)));
            }
        }
    }
    Ok(())
}
