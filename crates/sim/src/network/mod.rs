//! The network layer: nodes that own interfaces, addresses, forwarding tables
//! and agents; channels that carry frames between interfaces; and the packet
//! path through a node (ingress, local delivery, forward, egress) with the
//! agents' hooks on it.
//!
//! The run loop only hands the network channel and agent timeouts and
//! packets that hosts send; what the network delivers to a node's own
//! addresses comes back through [`Network::poll_local`].

pub mod addr;
mod build;
pub mod cells;
pub mod channel;
mod coded;
pub mod components;
pub mod etx;
mod fast;
pub mod fib;
mod mesh;
pub mod node;
pub mod route_change;
mod path;
pub mod sdn;
mod wireless;
pub mod routing;

use std::collections::VecDeque;

use airtcp_agents::{Agent, AnyAgent};
use airtcp_core::{Frame, Instant, Packet};

use crate::engine::{class, EventQueue};
use crate::events::{Ev, Raw};
use crate::pcap_out::PcapOut;
use crate::slab::Slab;
use airtcp_wifi::medium::Wlan;

pub use addr::Prefix;
pub use channel::{Channel, Delivery, PointToPoint};
pub use fib::{Fib, Origin, Route};
pub use node::{Iface, Node};
pub use components::components;
pub use route_change::RouteChange;

/// What the packet path reports to the run loop's counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NetStats {
    /// Packets with no route (or no live interface) toward their destination.
    pub no_route: u64,
    /// Packets whose TTL ran out (RFC 791: routers drop at zero).
    pub ttl_expired: u64,
    /// Echo requests answered (RFC 1122 3.2.2.6: every host answers them).
    pub echo_replies: u64,
    /// Host routes a learning node installed or moved for roaming stations.
    pub hosts_learned: u64,
}

/// A packet that reached one of `node`'s addresses, arrived on `iface` (global
/// index; `u32::MAX` when the node sent it to itself). The packet stays in
/// the network's arena (`frame`) until the host has read it with
/// [`Network::take_local`]: a delivery moves an index, not the packet.
#[derive(Clone, Copy, Debug)]
pub struct LocalDelivery {
    pub node: u32,
    pub iface: u32,
    pub frame: u32,
}

pub struct Network {
    pub nodes: Vec<Node>,
    pub ifaces: Vec<Iface>,
    pub channels: Vec<PointToPoint>,
    /// The interfaces attached to each channel, by attachment.
    channel_ends: Vec<[u32; 2]>,
    /// The `Ev::Channel` instants queued per channel (`Instant::MAX` = none).
    /// Two slots because a point-to-point channel has two independent heads
    /// (data one way, ACKs the other): with one slot every ACK that overtakes
    /// the data head would leave a stale entry behind.
    ch_timer: Vec<[Instant; 2]>,
    /// The one address table: `(address, interface)` sorted by address.
    addr_table: Vec<(u32, u32)>,
    /// Every subnet with its interfaces; `subnet_index` maps a destination to
    /// it (longest prefix first) and `resolved` says whether routes toward it
    /// have been computed.
    subnets: Vec<(Prefix, Vec<u32>)>,
    subnet_index: Fib,
    resolved: Vec<bool>,
    /// Bumped by every change to any forwarding table; invalidates the
    /// nodes' one-entry route caches.
    route_epoch: u64,
    /// Each node's [`node::HopCache`] for the fast packet path.
    hops: Vec<node::HopCache>,
    frames: Slab<Frame>,
    pub agents: Vec<AnyAgent>,
    /// Node and stack position of each agent.
    pub agent_at: Vec<(u32, u32)>,
    agent_timer: Vec<Option<Instant>>,
    /// Packets each agent dropped (`Verdict::Drop`).
    pub agent_drops: Vec<u64>,
    pub pcap: Option<PcapOut>,
    pub stats: NetStats,
    local: VecDeque<LocalDelivery>,
    end: Instant,
    /// The wireless medium, when the scenario has radios: the 802.11 one,
    /// or (`[wifi] medium = "p2p"`) the plain point-to-point cells.
    pub wlan: Option<Box<Wlan>>,
    pub cells: Option<Box<cells::Cells>>,
    /// The `Ev::Wlan` instant queued (`Instant::MAX` = none).
    wlan_timer: Instant,
    /// The interface of each radio.
    pub radio_iface: Vec<u32>,
    /// Each radio's segment: the interfaces it sends to directly.
    wifi_segment: Vec<u32>,
    wifi_segments: Vec<Vec<u32>>,
    /// The SDN control plane (seed 000), when the scenario has one.
    pub sdn: Option<Box<sdn::SdnPlane>>,
    /// MORE / TCPFender carrying a flow across the mesh (seed 002), when the scenario has one.
    coded: Option<Box<coded::CodedPlane>>,
    /// Mesh host routes are installed: on-link destinations may be several hops away.
    mesh_routes: bool,
    /// Scratch buffers of radio captures.
    cap_payload: Vec<u8>,
    cap_bytes: Vec<u8>,
    /// Station handoff cues for the node's TCP endpoints (Freeze-TCP):
    /// `(node, true)` on a handoff warning, `(node, false)` on association.
    radio_notices: VecDeque<(u32, bool)>,
    /// Radios whose frame releases are reported (saturated UDP senders),
    /// and the releases not yet polled.
    release_watch: Vec<bool>,
    releases: VecDeque<u32>,
    /// Nodes whose stack lives outside the simulation (an emulated run's
    /// kernels): what reaches their addresses, echo requests included, is
    /// handed out through [`Network::poll_local`] rather than answered here.
    pub external: Vec<bool>,
}

/// What the packet path needs from the run loop.
pub(crate) struct Cx<'a> {
    pub q: &'a mut EventQueue<Ev>,
    pub log: &'a mut Vec<(Instant, Raw)>,
}

impl Network {
    /// Next packet delivered to a node's own address.
    #[inline]
    pub fn poll_local(&mut self) -> Option<LocalDelivery> {
        self.local.pop_front()
    }

    /// The packet of a local delivery, borrowed; call [`Network::free_local`] after.
    #[inline]
    pub fn local_packet(&self, d: &LocalDelivery) -> &Packet {
        &self.frames.get(d.frame).pkt
    }

    /// Next handoff cue for a station node's endpoints: `(node, warning)`,
    /// `warning` false meaning the station (re)associated.
    #[inline]
    pub fn poll_radio_notice(&mut self) -> Option<(u32, bool)> {
        self.radio_notices.pop_front()
    }

    /// Release a local delivery's packet.
    #[inline]
    pub fn free_local(&mut self, d: &LocalDelivery) {
        self.frames.remove(d.frame);
    }

    /// The primary address of `node` (its first interface's), if it has one.
    pub fn primary_addr(&self, node: usize) -> Option<[u8; 4]> {
        self.nodes[node].ifaces.first().map(|&i| self.ifaces[i as usize].addr.to_be_bytes())
    }

    /// The interface that owns `addr`.
    pub fn iface_of(&self, addr: u32) -> Option<u32> {
        self.addr_table.binary_search_by_key(&addr, |e| e.0).ok().map(|i| self.addr_table[i].1)
    }

    /// Advance channel `ch` to `now`: its frames due by then become
    /// deliverable through [`Network::next_delivery`].
    #[inline]
    pub(crate) fn begin_channel(&mut self, now: Instant, ch: u32) {
        let c = ch as usize;
        let slots = &mut self.ch_timer[c];
        if slots[0] == now {
            slots[0] = Instant::MAX;
        }
        if slots[1] == now {
            slots[1] = Instant::MAX;
        }
        self.channels[c].handle_timeout(now);
    }

    /// Re-arm channel `ch`'s timer once its due frames are all delivered.
    #[inline]
    pub(crate) fn end_channel(&mut self, cx: &mut Cx, now: Instant, ch: u32) {
        self.arm_channel(cx, now, ch as usize);
    }

    /// Run agent `a`'s timer if it is due.
    #[inline(never)]
    pub(crate) fn on_agent_timeout(&mut self, cx: &mut Cx, now: Instant, a: u32) {
        if a == coded::TIMER_AGENT {
            self.coded_timeout(cx, now);
            return;
        }
        let ai = a as usize;
        if self.agent_timer[ai] == Some(now) {
            self.agent_timer[ai] = None;
        }
        if matches!(self.agents[ai].poll_timeout(), Some(d) if d <= now) {
            self.agents[ai].handle_timeout(now);
        }
        self.after_agent(cx, now, ai);
    }

    /// Make sure an `Ev::Channel` is queued for channel `c`'s next arrival.
    /// The common case, a frame joining a FIFO whose head is already armed,
    /// is two comparisons inlined into the packet path.
    #[inline(always)]
    fn arm_channel(&mut self, cx: &mut Cx, now: Instant, c: usize) {
        if let Some(t) = self.channels[c].poll_timeout() {
            let slots = &self.ch_timer[c];
            if slots[0] == t || slots[1] == t {
                return;
            }
            self.arm_channel_at(cx, now, c, t);
        }
    }

    #[inline(never)]
    fn arm_channel_at(&mut self, cx: &mut Cx, now: Instant, c: usize, t: Instant) {
        let t = t.max(now);
        let slots = &mut self.ch_timer[c];
        if t > self.end || slots.contains(&t) {
            return;
        }
        // Fill a free slot, or replace the later of two when `t` is earlier
        // than it (that entry goes stale); otherwise an earlier entry fires
        // first and re-arms.
        let later = if slots[0] >= slots[1] { 0 } else { 1 };
        if t < slots[later] {
            slots[later] = t;
            cx.q.push(t, class::PACKET, Ev::Channel { ch: c as u32 });
        }
    }

    #[inline]
    fn arm_agent(&mut self, cx: &mut Cx, now: Instant, a: usize) {
        if let Some(t) = self.agents[a].poll_timeout() {
            let t = t.max(now);
            if t <= self.end && self.agent_timer[a].map_or(true, |p| t < p) {
                self.agent_timer[a] = Some(t);
                cx.q.push(t, class::TIMER, Ev::Agent { agent: a as u32 });
            }
        }
    }

    /// Frames in flight (for tests of the arena's bookkeeping).
    pub fn frames_live(&self) -> usize {
        self.frames.live()
    }
}

#[cfg(test)]
mod tests;
