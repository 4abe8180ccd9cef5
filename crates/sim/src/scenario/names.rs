//! What the names in a scenario resolve to: node names to indices, and a
//! node's interfaces (its links in scenario order, then its radio) by link
//! name. A leaf: the section readers (`assemble`, `agents`, `routes`, `wifi`,
//! `sdn`, `udp`) all resolve names here and none of them through another.

use std::collections::HashMap;

use airtcp_agents::IfaceId;

use super::value::{Field, R};
use super::{LinkSpec, NodeSpec};

/// Ports: clients use 49152 + i (IANA dynamic range), servers 1024 + i.
pub const MAX_FLOWS: usize = 16_384;

/// A declared name (node, link, agent, UDP flow): non-empty, and only
/// characters that survive file names and CSV columns unquoted.
pub(super) fn check_name(f: &Field, what: &str) -> R<String> {
    let s = f.str()?;
    if s.is_empty() || !s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.') {
        return Err(f.err(format!("{what} name \"{s}\" must be non-empty letters, digits, '_', '-' or '.'")));
    }
    Ok(s.to_string())
}

/// Node names to indices, for lookups only (never iterated, so its order
/// cannot reach behaviour); a 10,000-node scenario resolves in linear time.
pub(super) struct NodeIndex(HashMap<String, usize>);

impl NodeIndex {
    pub fn new(nodes: &[NodeSpec]) -> NodeIndex {
        NodeIndex(nodes.iter().enumerate().map(|(i, n)| (n.name.clone(), i)).collect())
    }
    pub fn get(&self, name: &str) -> Option<usize> {
        self.0.get(name).copied()
    }
}

/// The node-local interface number of `node` on link `li`: the node's links
/// in scenario order (what the network builder numbers).
pub fn local_iface(links: &[LinkSpec], node: usize, li: usize) -> Option<u32> {
    let mut k = 0;
    for (i, l) in links.iter().enumerate() {
        if l.a == node || l.b == node {
            if i == li {
                return Some(k);
            }
            k += 1;
        }
    }
    None
}

/// The name of `node`'s local interface `iface`: its link's, or "radio".
pub(super) fn iface_name(links: &[LinkSpec], node: usize, iface: IfaceId) -> &str {
    links.iter().filter(|l| l.a == node || l.b == node).nth(iface.0 as usize).map_or("radio", |l| l.name.as_str())
}

/// An interface of `node` by its link's name, or `"radio"` for its radio.
pub(super) fn iface_ref(f: &Field, links: &[LinkSpec], nodes: &[NodeSpec], node: usize) -> R<IfaceId> {
    let s = f.str()?;
    if s == "radio" {
        if !nodes[node].radio {
            return Err(f.err(format!("node \"{}\" has no radio", nodes[node].name)));
        }
        return Ok(IfaceId(links.iter().filter(|l| l.a == node || l.b == node).count() as u32));
    }
    let Some(li) = links.iter().position(|l| l.name == s) else {
        let mine: Vec<&str> = links.iter().filter(|l| l.a == node || l.b == node).map(|l| l.name.as_str()).collect();
        return Err(f.err(format!("unknown link \"{s}\" (links of \"{}\": {})", nodes[node].name, mine.join(", "))));
    };
    match local_iface(links, node, li) {
        Some(k) => Ok(IfaceId(k)),
        None => Err(f.err(format!("link \"{s}\" does not attach to node \"{}\"", nodes[node].name))),
    }
}
