//! `[[route_changes]]`: forwarding changes at a time in the run — a link's
//! interface at a node going down or up, a static route added or removed —
//! applied as typed `network::RouteChange` events.

use airtcp_core::Duration;
use serde_json::{json, Value};

use super::names::local_iface;
use super::names::NodeIndex;
use super::units::format_duration;
use super::value::{Table, R};
use super::{LinkSpec, NodeSpec};
use crate::network::{Prefix, RouteChange};

/// One scheduled change.
#[derive(Clone, Debug, PartialEq)]
pub struct RouteChangeSpec {
    pub at: Duration,
    pub change: RouteChange,
}

const ACTIONS: &str = "down, up, add, remove";

pub(super) fn route_changes(list: Vec<Table>, nodes: &[NodeSpec], index: &NodeIndex, links: &[LinkSpec], end: Duration) -> R<Vec<RouteChangeSpec>> {
    let mut out = Vec::with_capacity(list.len());
    for t in &list {
        let af = t.req("at")?;
        let at = af.duration()?;
        if at >= end {
            return Err(af.err(format!("at {} is not before the end of the run ({})", format_duration(at), format_duration(end))));
        }
        let nf = t.req("node")?;
        let name = nf.str()?;
        let node = index.get(name).ok_or_else(|| nf.err(format!("unknown node \"{name}\"")))?;
        let link_iface = |key: &str| -> R<u32> {
            let f = t.req(key)?;
            let s = f.str()?;
            let li = links.iter().position(|l| l.name == s).ok_or_else(|| f.err(format!("unknown link \"{s}\"")))?;
            local_iface(links, node, li).ok_or_else(|| f.err(format!("link \"{s}\" does not attach to node \"{}\"", nodes[node].name)))
        };
        let prefix = || -> R<Prefix> {
            let f = t.req("prefix")?;
            Prefix::parse(f.str()?).map_err(|m| f.err(m))
        };
        let xf = t.req("action")?;
        let node32 = node as u32;
        let change = match xf.str()? {
            a @ ("down" | "up") => {
                t.known(&["at", "node", "action", "link"])?;
                RouteChange::IfaceState { node: node32, iface: link_iface("link")?, up: a == "up" }
            }
            "add" => {
                t.known(&["at", "node", "action", "prefix", "via"])?;
                RouteChange::Add { node: node32, prefix: prefix()?, iface: link_iface("via")? }
            }
            "remove" => {
                t.known(&["at", "node", "action", "prefix"])?;
                RouteChange::Remove { node: node32, prefix: prefix()? }
            }
            other => return Err(xf.err(format!("unknown action \"{other}\" (known: {ACTIONS})"))),
        };
        out.push(RouteChangeSpec { at, change });
    }
    Ok(out)
}

/// The change as scenario JSON (it loads back to the same change).
pub fn route_change_json(r: &RouteChangeSpec, nodes: &[NodeSpec], links: &[LinkSpec]) -> Value {
    let link = |node: u32, iface: u32| {
        let n = node as usize;
        links.iter().filter(|l| l.a == n || l.b == n).nth(iface as usize).map(|l| l.name.clone()).unwrap_or_default()
    };
    let at = format_duration(r.at);
    match r.change {
        RouteChange::IfaceState { node, iface, up } => json!({
            "at": at, "node": nodes[node as usize].name, "action": if up { "up" } else { "down" }, "link": link(node, iface),
        }),
        RouteChange::Add { node, prefix, iface } => json!({
            "at": at, "node": nodes[node as usize].name, "action": "add", "prefix": prefix.to_string(), "via": link(node, iface),
        }),
        RouteChange::Remove { node, prefix } => json!({
            "at": at, "node": nodes[node as usize].name, "action": "remove", "prefix": prefix.to_string(),
        }),
    }
}

/// One line for the event log: "node down link" / "node add prefix via link" / "node remove prefix".
pub fn route_change_text(r: &RouteChangeSpec, nodes: &[NodeSpec], links: &[LinkSpec]) -> String {
    let v = route_change_json(r, nodes, links);
    let f = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string();
    match f("action").as_str() {
        "add" => format!("{} add {} via {}", f("node"), f("prefix"), f("via")),
        "remove" => format!("{} remove {}", f("node"), f("prefix")),
        a => format!("{} {a} {}", f("node"), f("link")),
    }
}
