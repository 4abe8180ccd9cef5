//! From a document to a validated [`Scenario`]: every key is read with its
//! type, every table checked for unknown keys, and cross-references (node
//! names, routes) resolved before anything runs.

use super::doc::{Doc, KeyPath};
use super::names::NodeIndex;
use super::value::{Field, Table, R};
use super::{FlowSpec, LinkSpec, NodeSpec, Scenario, SimSpec};
use crate::network::components;

/// A top-level table of the format: its name, its value, its default and
/// what it holds (as the reference page shows them).
pub struct TopLevel {
    pub name: &'static str,
    pub ty: &'static str,
    pub default: &'static str,
    pub doc: &'static str,
}

/// Every top-level table, in the order the unknown-key message and the
/// reference page list them; each is read by its module below.
pub const TOP_LEVEL: [TopLevel; 12] = [
    TopLevel { name: "sim", ty: "table", default: "required", doc: "The run: its duration, seed and sampling." },
    TopLevel { name: "nodes", ty: "list of tables", default: "at least one", doc: "Hosts and routers, by name." },
    TopLevel { name: "links", ty: "list of tables", default: "none", doc: "Full-duplex point-to-point links between two nodes." },
    TopLevel { name: "flows", ty: "list of tables", default: "none", doc: "TCP connections, each with its `[flows.tcp]` endpoint configuration." },
    TopLevel { name: "udp_flows", ty: "list of tables", default: "none", doc: "UDP senders with iperf-style receivers." },
    TopLevel { name: "agents", ty: "list of tables", default: "none", doc: "In-network agents (Snoop, PEG, I-TCP, M-TCP, Mobile IP); a node's agents form a stack." },
    TopLevel { name: "route_changes", ty: "list of tables", default: "none", doc: "Forwarding changes during the run." },
    TopLevel { name: "wifi", ty: "table", default: "its keys' defaults", doc: "The 802.11 medium the radios share; only with `radios`." },
    TopLevel { name: "radios", ty: "list of tables", default: "none", doc: "802.11 radios, one per node at most." },
    TopLevel { name: "wifi_errors", ty: "list of tables", default: "none", doc: "A fixed frame error rate between two radios; only with `radios`." },
    TopLevel { name: "sdn", ty: "table", default: "none", doc: "An SDN controller, its switches and their control channels." },
    TopLevel { name: "mesh", ty: "table", default: "none", doc: "Routing and network coding over ad hoc radios." },
];

pub fn scenario(doc: &Doc) -> R<Scenario> {
    let root = Table::new(doc, KeyPath::root(), &doc.root)?;
    root.known(&TOP_LEVEL.map(|t| t.name))?;
    let sim = super::run::sim_spec(&root.req("sim")?.table()?)?;
    let mut nodes = super::run::nodes(&root, &list_of_tables(&root, "nodes")?)?;
    let index = NodeIndex::new(&nodes);
    let links = super::link_keys::links(&list_of_tables(&root, "links")?, &nodes, &index)?;
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

/// The reference page's table of the top-level tables.
pub(super) fn reference_table() -> String {
    super::key_rows::table(TOP_LEVEL.iter().map(|t| (format!("`{}`", t.name), t.ty, t.default, t.doc.to_string())))
}
