//! From a document to a validated [`Scenario`]: every key is read with its
//! type, every table checked for unknown keys, and cross-references (node
//! names, routes) resolved before anything runs.

use super::doc::{Doc, KeyPath};
use super::names::NodeIndex;
use super::value::{Field, Table, R};
use super::{FlowSpec, LinkSpec, NodeSpec, Scenario, SimSpec};
use crate::network::components;

pub fn scenario(doc: &Doc) -> R<Scenario> {
    let root = Table::new(doc, KeyPath::root(), &doc.root)?;
    root.known(&["sim", "nodes", "links", "flows", "udp_flows", "agents", "route_changes", "wifi", "radios", "wifi_errors", "sdn", "mesh"])?;
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
