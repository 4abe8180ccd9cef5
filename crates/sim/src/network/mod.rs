//! The network layer: nodes that own interfaces, addresses, forwarding tables
//! and agents; media that carry frames between interfaces (every one behind
//! the [`Medium`] seam: links, the WLAN, the cells); and the packet path
//! through a node (ingress, local delivery, forward, egress) with the
//! agents' hooks on it.
//!
//! The run loop only hands the network media and agent timeouts and
//! packets that hosts send; what the network delivers to a node's own
//! addresses comes back through [`Network::poll_local`].

pub mod addr;
pub mod any_medium;
mod from_scenario;
pub mod cells;
pub mod channel;
mod coded;
pub mod components;
pub mod etx;
mod fast;
pub mod fib;
pub mod medium;
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

pub use addr::Prefix;
pub use channel::{Delivery, PointToPoint};
pub use any_medium::AnyMedium;
pub use medium::{Medium, RadioMedium, Tx};
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
/// [`Network::local_packet`] and released it with [`Network::free_local`]:
/// a delivery moves an index, not the packet.
#[derive(Clone, Copy, Debug)]
pub struct LocalDelivery {
    pub node: u32,
    pub iface: u32,
    pub frame: u32,
}

pub struct Network {
    pub nodes: Vec<Node>,
    pub ifaces: Vec<Iface>,
    /// Every medium: the scenario's links in order (medium `i` is link
    /// `i`), then the radios' medium if the scenario has radios.
    pub media: Vec<AnyMedium>,
    /// The interface of each medium's attachment 0: attachment `k` of
    /// medium `m` is interface `media_iface[m] + k` (a link's ends, a
    /// medium's radios are numbered consecutively).
    media_iface: Vec<u32>,
    /// The `Ev::Medium` instants queued per medium (`Instant::MAX` = none),
    /// as many slots in use as [`Medium::timer_slots`] says: a link has two
    /// independent heads (data one way, ACKs the other), and with one slot
    /// every ACK that overtakes the data head would leave a stale entry
    /// behind.
    media_timer: Vec<[Instant; 2]>,
    /// Timer events of radio media run so far (summary's `wlan` count;
    /// links' are not counted apart, it would cost the packet path).
    radio_wakes: u64,
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
    /// The interface of each radio (on the radios' medium,
    /// `Iface::channel`).
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

    /// Advance medium `m` to `now`. A link's frames due by then become
    /// deliverable: it returns true, and the caller takes them with
    /// [`Network::next_delivery`] until `None`, then calls
    /// [`Network::end_medium`]. A radio medium's reports are acted on here
    /// (what reaches a node's own address comes out of
    /// [`Network::poll_local`]) and its timer re-armed: it returns false.
    #[inline]
    pub(crate) fn begin_medium(&mut self, cx: &mut Cx, now: Instant, m: u32) -> bool {
        let i = m as usize;
        let slots = &mut self.media_timer[i];
        if slots[0] == now {
            slots[0] = Instant::MAX;
        }
        if slots[1] == now {
            slots[1] = Instant::MAX;
        }
        match &mut self.media[i] {
            AnyMedium::Link(c) => {
                c.handle_timeout(now);
                true
            }
            _ => {
                self.radio_timeout(cx, now, m);
                false
            }
        }
    }

    /// Re-arm link `m`'s timer once its due frames are all delivered.
    #[inline]
    pub(crate) fn end_medium(&mut self, cx: &mut Cx, now: Instant, m: u32) {
        if let AnyMedium::Link(c) = &self.media[m as usize] {
            let t = c.poll_timeout();
            self.arm_link(cx, now, m as usize, t);
        }
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

    /// Make sure an `Ev::Medium` is queued for link `m`'s next arrival `t`
    /// (its `poll_timeout`). The common case, a frame joining a FIFO whose
    /// head is already armed, is two comparisons inlined into the packet
    /// path.
    #[inline(always)]
    fn arm_link(&mut self, cx: &mut Cx, now: Instant, m: usize, t: Option<Instant>) {
        if let Some(t) = t {
            let slots = &self.media_timer[m];
            if slots[0] == t || slots[1] == t {
                return;
            }
            self.arm_link_at(cx, now, m, t);
        }
    }

    /// Make sure an `Ev::Medium` is queued for radio medium `m`'s next
    /// instant: one slot, replaced by an earlier instant (the one queued
    /// fires first otherwise, and re-arms).
    #[inline]
    fn arm_radio(&mut self, cx: &mut Cx, now: Instant, m: usize) {
        let next = self.media[m].poll_timeout();
        self.arm_radio_at(cx, now, m, next);
    }

    /// [`Network::arm_radio`] given the medium's `poll_timeout`, `next`.
    #[inline]
    fn arm_radio_at(&mut self, cx: &mut Cx, now: Instant, m: usize, next: Option<Instant>) {
        debug_assert_eq!(self.media[m].timer_slots(), 1);
        let Some(t) = next else { return };
        let t = t.max(now);
        let slot = &mut self.media_timer[m][0];
        if t < *slot && t <= self.end {
            *slot = t;
            // Through the queue's lane: this timer is re-armed after every
            // wake, so its event would otherwise go through the heap and
            // straight back out (same order either way).
            cx.q.push_lane(t, class::PACKET, Ev::Medium { m: m as u32 });
        }
    }

    /// Queue `t` for link `m` unless one of its two slots holds it.
    #[inline(never)]
    fn arm_link_at(&mut self, cx: &mut Cx, now: Instant, m: usize, t: Instant) {
        debug_assert_eq!(self.media[m].timer_slots(), 2);
        let t = t.max(now);
        let slots = &mut self.media_timer[m];
        if t > self.end || slots.contains(&t) {
            return;
        }
        // Fill a free slot, or replace the later of two when `t` is earlier
        // than it (that entry goes stale); otherwise an earlier entry fires
        // first and re-arms.
        let later = if slots[0] >= slots[1] { 0 } else { 1 };
        if t < slots[later] {
            slots[later] = t;
            cx.q.push(t, class::PACKET, Ev::Medium { m: m as u32 });
        }
    }

    /// Timer events of radio media run so far.
    pub(crate) fn radio_wakes(&self) -> u64 {
        self.radio_wakes
    }

    /// The radios' medium, if the scenario has radios.
    #[inline]
    pub(crate) fn radio_medium(&self) -> Option<&medium::DynRadio> {
        let &first = self.radio_iface.first()?;
        self.media[self.ifaces[first as usize].channel as usize].radio()
    }

    /// Index of the radios' medium in `media`.
    #[inline]
    fn radio_medium_index(&self) -> Option<usize> {
        self.radio_iface.first().map(|&i| self.ifaces[i as usize].channel as usize)
    }

    /// The 802.11 WLAN, if the radios' medium is one.
    pub fn wlan(&self) -> Option<&airtcp_wifi::medium::Wlan> {
        self.radio_medium_index().and_then(|m| self.media[m].wlan())
    }

    /// Each link's two directions (with their counters), in link order.
    pub(crate) fn into_links(self) -> Vec<[crate::link::LinkDir; 2]> {
        self.media
            .into_iter()
            .filter_map(|m| match m {
                AnyMedium::Link(c) => Some(c.dirs),
                _ => None,
            })
            .collect()
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
