//! What the agent kinds' key tables work on: an agent's configuration with
//! the node it sits on and the network its keys resolve against ([`On`]),
//! and the reader and writer every kind shares. A leaf, so that the kinds'
//! files (`agents.rs`, `mobileip.rs`) import it and not each other.

use airtcp_agents::IfaceId;
use serde_json::{json, Map, Value};

use super::agent_decl::Net;
use super::keys::{Key, Section};
use super::names::{iface_name, iface_ref, NodeIndex};
use super::value::{Table, R};
use super::{LinkSpec, NodeSpec};


/// An agent's configuration being read or written, with the node it sits
/// on and the links its interface keys name.
pub struct On<'a, C> {
    pub(super) nodes: &'a [NodeSpec],
    pub(super) links: &'a [LinkSpec],
    pub(super) node: usize,
    pub(super) c: C,
    /// What node names and radios resolve against while reading (`None`
    /// while writing, which names only links).
    pub(super) net: Option<(&'a NodeIndex, Option<&'a super::wifi::WifiSpec>)>,
}

impl<'a, C> On<'a, C> {
    /// `c` on `node`, for keys that name only the node's own links (and
    /// for writing).
    pub(super) fn local(nodes: &'a [NodeSpec], links: &'a [LinkSpec], node: usize, c: C) -> Self {
        On { nodes, links, node, c, net: None }
    }

    /// `c` on `node`, for reading against the whole network.
    pub(super) fn reading(net: &Net<'a>, node: usize, c: C) -> Self {
        On { nodes: net.nodes, links: net.links, node, c, net: Some((net.index, net.wifi)) }
    }

    pub(super) fn iface(&self, f: &super::value::Field) -> R<IfaceId> {
        iface_ref(f, self.links, self.nodes, self.node)
    }

    pub(super) fn link(&self, i: IfaceId) -> Value {
        json!(iface_name(self.links, self.node, i))
    }

    /// The network the keys resolve against (only while reading).
    pub(super) fn net(&self) -> Net<'a> {
        let (index, wifi) = self.net.expect("keys are read with the network");
        Net { nodes: self.nodes, links: self.links, wifi, index }
    }
}

/// Read a kind's own keys (`keys`) into `c`, after checking that the table
/// has no other keys than the common ones and these.
pub(super) fn read_kind<'a, C>(t: &Table, keys: &[Key<On<'a, C>>], on: On<'a, C>, required: &[&str]) -> R<C> {
    let section = Section { path: "agents", keys };
    // The keys every agent has (`agent_head`), then the kind's own.
    let common = super::agent_head::head_keys().map(|k| k.name);
    let known: Vec<&str> = common.iter().copied().chain(section.names()).collect();
    t.known(&known)?;
    for k in required {
        t.req(k)?;
    }
    let mut on = on;
    for name in t.map.keys().filter(|k| !common.contains(&k.as_str())) {
        let key = section.key(name).expect("checked by known()");
        (key.read)(&mut on, &t.opt(name).expect("present"))?;
    }
    Ok(on.c)
}

/// A kind's own keys into the agent's record.
pub(super) fn write_kind<'a, C>(m: &mut Map<String, Value>, keys: &[Key<On<'a, C>>], on: On<'a, C>) {
    if let Value::Object(own) = (Section { path: "agents", keys }).write(&on) {
        m.extend(own);
    }
}
