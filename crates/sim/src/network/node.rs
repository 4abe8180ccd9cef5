//! Nodes and their interfaces: the state a host, router or base station owns.

use airtcp_agents::HookMask;
use airtcp_core::MacAddr;

use super::addr::Prefix;
use super::fib::{Fib, Route};

/// One interface: an attachment of a node to a medium, with its address.
#[derive(Clone, Debug)]
pub struct Iface {
    pub node: u32,
    /// The medium (index into `Network::media`): a link, or the radios' medium.
    pub channel: u32,
    /// Which attachment of a link (0 = the link's `a`, 1 = `b`); a radio's
    /// attachment is its radio number.
    pub end: u8,
    /// The interface at the other end of a link.
    pub peer: u32,
    pub addr: u32,
    pub subnet: Prefix,
    pub mac: MacAddr,
    /// The MAC address of `peer` (point-to-point), copied here so that
    /// putting a frame on the channel reads one interface, not two.
    pub peer_mac: MacAddr,
    pub up: bool,
    /// Position among the node's interfaces (the agents' `IfaceId`).
    pub local: u32,
    /// The radio of a wireless interface on the network's medium, or
    /// [`NO_RADIO`] for a point-to-point interface.
    pub radio: u32,
}

/// `Iface::radio` of a point-to-point interface.
pub const NO_RADIO: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct Node {
    /// Global interface indices, in the scenario's link order.
    pub ifaces: Vec<u32>,
    /// The first interface's address (the one flows use), kept here so the
    /// common "is it for me?" test on a host is one comparison.
    pub primary: Option<u32>,
    pub fib: Fib,
    /// Global agent indices, the stack from IP (first) down to the link (last).
    pub agents: Vec<u32>,
    /// Union of the agents' hooks: a node without agents skips every chain.
    pub hooks: HookMask,
    /// Next IPv4 identification for packets this node generates.
    pub ip_id: u16,
    /// The last two lookups `(destination, route)`, valid while the routing
    /// epoch is `cache_epoch`: a host sends to one peer and a router on a
    /// path forwards data one way and ACKs the other, so most lookups skip
    /// the table. Slot 0 is the most recent.
    pub route_cache: [Option<(u32, Route)>; 2],
    pub cache_epoch: u64,
    /// Learns host routes toward wireless stations from their packets.
    pub learning: bool,
}

impl Default for Node {
    fn default() -> Node {
        Node { ifaces: Vec::new(), primary: None, fib: Fib::default(), agents: Vec::new(), hooks: Default::default(), ip_id: 0, route_cache: [None; 2], cache_epoch: 0, learning: false }
    }
}

/// `HopCache::hops` egress of a destination that is one of the node's own addresses.
pub const HOP_LOCAL: u32 = u32::MAX;

/// The fast packet path's memory of what a node did with its last two
/// destinations: delivered locally ([`HOP_LOCAL`]) or sent out of an
/// interface. It replaces the "is it mine?" scan of the node's interfaces
/// and the route lookup on every packet after the first of a flow (a router
/// on a path forwards data one way and ACKs the other). Valid while the
/// routing epoch is `epoch`: every change to a forwarding table or an
/// interface's state bumps it. Kept in a dense vector of its own (one
/// cache line holds several nodes), apart from the wide `Node`.
#[derive(Clone, Copy, Debug)]
pub struct HopCache {
    pub epoch: u64,
    /// `(destination, egress interface or HOP_LOCAL)`, slot 0 the most
    /// recent. An empty slot's destination is the limited broadcast
    /// address, which the fast path never looks up.
    pub hops: [(u32, u32); 2],
    /// The node has agents: what it sends and receives takes the general
    /// path of `network::path`.
    pub hooked: bool,
    /// `hooked`, or the node learns host routes: what it receives takes
    /// the general path.
    pub general: bool,
}

impl HopCache {
    pub const EMPTY: [(u32, u32); 2] = [(u32::MAX, 0); 2];

    pub fn new(node: &Node) -> HopCache {
        HopCache { epoch: 0, hops: Self::EMPTY, hooked: node.hooks.0 != 0, general: node.hooks.0 != 0 || node.learning }
    }

    /// The cache as valid under routing epoch `epoch`: emptied if it was
    /// filled under another.
    #[inline(always)]
    pub fn at_epoch(&mut self, epoch: u64) -> &mut HopCache {
        if self.epoch != epoch {
            self.epoch = epoch;
            self.hops = Self::EMPTY;
        }
        self
    }
}
