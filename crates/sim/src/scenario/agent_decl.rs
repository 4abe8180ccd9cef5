//! A declared agent and what its keys resolve against: the shared part of
//! `agents` (every kind) and `mobileip` (the Mobile IP kinds).

use airtcp_agents::{AgentSpec, IfaceId};

use super::names::NodeIndex;
use super::wifi::WifiSpec;
use super::{LinkSpec, NodeSpec};

/// An agent on a node.
#[derive(Clone, Debug)]
pub struct AgentDecl {
    pub name: String,
    pub node: usize,
    pub spec: AgentSpec,
}

/// What the Mobile IP keys resolve names against.
pub(super) struct Net<'a> {
    pub nodes: &'a [NodeSpec],
    pub links: &'a [LinkSpec],
    pub wifi: Option<&'a WifiSpec>,
    pub index: &'a NodeIndex,
}

/// The address of `node`'s local interface `iface` (links in scenario
/// order, then its radio).
pub(super) fn iface_addr(net: &Net, node: usize, iface: IfaceId) -> Option<u32> {
    let mine: Vec<&LinkSpec> = net.links.iter().filter(|l| l.a == node || l.b == node).collect();
    match mine.get(iface.0 as usize) {
        Some(l) => Some(if l.a == node { l.addr[0] } else { l.addr[1] }),
        None => net.wifi.and_then(|w| w.radios.iter().find(|r| r.node == node)).map(|r| r.addr),
    }
}
