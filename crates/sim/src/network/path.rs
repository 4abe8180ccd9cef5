//! The packet path through a node, with the agents' hooks on it:
//!
//! ```text
//!  channel -> Ingress (stack bottom-up) -> local? -> LocalIn -> host
//!                                       \-> TTL, route -> Forward -> Egress (top-down) -> channel
//!  host / agent Route injection -> route -> Egress (top-down) -> channel
//! ```
//!
//! An agent's injections are acted on right after the call that produced
//! them, at the stack position of the agent, so a Snoop retransmission still
//! meets the error generator below it. A node without agents runs none of
//! the chains (one mask test per hook).

use airtcp_agents::{Agent, Hook, HookMask, IfaceId, InjectAt, Verdict};
use airtcp_core::{Frame, Icmp, Instant, IpPayload, Ipv4Header, Packet};

use super::{Cx, LocalDelivery, Network};
use crate::events::Raw;

/// Initial IPv4 TTL (Linux default, net.ipv4.ip_default_ttl).
pub const TTL: u8 = 64;

/// Most nested re-deliveries (decapsulation, agent re-injection) before a
/// packet is dropped as looping.
const MAX_DEPTH: u32 = 8;

impl Network {
    /// Next IPv4 identification of `node`.
    pub(crate) fn next_ip_id(&mut self, node: usize) -> u16 {
        let n = &mut self.nodes[node];
        let id = n.ip_id;
        n.ip_id = id.wrapping_add(1);
        id
    }

    /// A frame arrived on `iface` at a node with agents (or anything else the
    /// fast path of [`super::fast`] does not handle).
    #[inline(never)]
    pub(super) fn receive_general(&mut self, cx: &mut Cx, now: Instant, iface: u32, idx: u32) {
        let node = self.ifaces[iface as usize].node as usize;
        if !self.ifaces[iface as usize].up {
            self.frames.remove(idx);
            return;
        }
        if self.nodes[node].hooks.0 & super::sdn::DATAPATH_BIT != 0 && self.sdn_receive(cx, now, node, iface, idx) {
            return;
        }
        let mut learned = false;
        if self.nodes[node].learning && !self.frames.get(idx).l2.proxied {
            let src = u32::from_be_bytes(self.frames.get(idx).pkt.net_header().src);
            learned = self.learn(node, src, iface);
        }
        if u32::from_be_bytes(self.frames.get(idx).pkt.net_header().dst) == u32::MAX {
            if learned && super::wireless::is_iapp(&self.frames.get(idx).pkt) {
                // A bridge floods a broadcast out of its other ports, so the
                // AP's ADD-notify teaches every learning node of the LAN
                // where the station now is. Only a node whose route moved
                // floods it on (a tree is covered once; the model has no
                // spanning tree for looped bridges).
                self.flood(cx, now, node, iface, idx);
            }
            // A limited broadcast (RFC 1122 §3.3.6: never forwarded) is seen
            // by the ingress hooks (a Mobile IP agent advertisement), then
            // ends here unless an agent took it.
            if self.nodes[node].hooks.has(Hook::Ingress) {
                for pos in (0..self.nodes[node].agents.len()).rev() {
                    if !self.call_agent(cx, now, node, pos, Hook::Ingress, iface, idx) {
                        return;
                    }
                }
            }
            self.frames.remove(idx);
            return;
        }
        let top = self.nodes[node].agents.len();
        self.ingress(cx, now, iface, idx, top, 0);
    }

    /// Ingress hooks of the agents at stack positions `upto-1` down to 0, then
    /// local delivery or forwarding.
    fn ingress(&mut self, cx: &mut Cx, now: Instant, iface: u32, idx: u32, upto: usize, depth: u32) {
        let node = self.ifaces[iface as usize].node as usize;
        if self.nodes[node].hooks.has(Hook::Ingress) {
            for pos in (0..upto).rev() {
                if !self.call_agent(cx, now, node, pos, Hook::Ingress, iface, idx) {
                    return;
                }
            }
        }
        self.local_or_forward(cx, now, node, iface, idx, depth);
    }

    #[inline]
    fn local_or_forward(&mut self, cx: &mut Cx, now: Instant, node: usize, iface: u32, idx: u32, depth: u32) {
        if depth > MAX_DEPTH {
            self.frames.remove(idx);
            self.stats.no_route += 1;
            return;
        }
        let dst = u32::from_be_bytes(self.frames.get(idx).pkt.net_header().dst);
        if !self.is_local(node, dst) {
            let h = self.frames.get_mut(idx).pkt.net_header_mut();
            if h.ttl <= 1 {
                self.frames.remove(idx);
                self.stats.ttl_expired += 1;
                return;
            }
            h.ttl -= 1;
            self.route_out(cx, now, node, idx, true, depth);
            return;
        }
        if self.frames.get(idx).pkt.outer.is_some() {
            // IP-in-IP addressed here (RFC 2003 §3.1): strip the outer header
            // and treat the inner packet as if it had just arrived.
            self.frames.get_mut(idx).pkt.decapsulate();
            self.local_or_forward(cx, now, node, iface, idx, depth + 1);
            return;
        }
        if self.nodes[node].hooks.has(Hook::LocalIn) {
            for pos in 0..self.nodes[node].agents.len() {
                if !self.call_agent(cx, now, node, pos, Hook::LocalIn, iface, idx) {
                    return;
                }
            }
        }
        if self.external[node] {
            self.local.push_back(LocalDelivery { node: node as u32, iface, frame: idx });
            return;
        }
        if let IpPayload::Icmp(Icmp::EchoRequest { id, seq, len }) = self.frames.get(idx).pkt.payload {
            let pkt = self.frames.remove(idx).pkt;
            self.echo_reply(cx, now, node, &pkt, id, seq, len);
            return;
        }
        self.local.push_back(LocalDelivery { node: node as u32, iface, frame: idx });
    }

    /// RFC 792 echo reply, from the address the request was sent to.
    #[allow(clippy::too_many_arguments)]
    fn echo_reply(&mut self, cx: &mut Cx, now: Instant, node: usize, req: &Packet, id: u16, seq: u16, len: u32) {
        self.stats.echo_replies += 1;
        let ip_id = self.next_ip_id(node);
        let reply = Packet {
            ip: Ipv4Header { src: req.ip.dst, dst: req.ip.src, ttl: TTL, ip_id, ..Default::default() },
            outer: None,
            payload: IpPayload::Icmp(Icmp::EchoReply { id, seq, len }),
        };
        self.send_from(cx, now, node, reply);
    }

    /// Route frame `idx` out of `node`: the forwarding table picks the
    /// interface; a forwarded packet meets the Forward hooks first.
    #[inline(never)]
    pub(super) fn route_out(&mut self, cx: &mut Cx, now: Instant, node: usize, idx: u32, forwarded: bool, depth: u32) {
        let dst = u32::from_be_bytes(self.frames.get(idx).pkt.net_header().dst);
        if !forwarded && self.is_local(node, dst) {
            // Sent to itself: straight to local delivery (Linux's loopback).
            self.local_or_forward(cx, now, node, u32::MAX, idx, depth + 1);
            return;
        }
        let Some(route) = self.resolve(node, dst) else {
            self.frames.remove(idx);
            self.stats.no_route += 1;
            return;
        };
        let out = route.iface;
        if forwarded && self.nodes[node].hooks.has(Hook::Forward) {
            for pos in 0..self.nodes[node].agents.len() {
                if !self.call_agent(cx, now, node, pos, Hook::Forward, out, idx) {
                    return;
                }
            }
        }
        self.egress(cx, now, out, idx, 0);
    }

    /// Egress hooks of the agents at stack positions `from..`, then the channel.
    #[inline]
    fn egress(&mut self, cx: &mut Cx, now: Instant, iface: u32, idx: u32, from: usize) {
        let ifc = &self.ifaces[iface as usize];
        let node = ifc.node as usize;
        if !ifc.up {
            self.frames.remove(idx);
            self.stats.no_route += 1;
            return;
        }
        if self.nodes[node].hooks.has(Hook::Egress) {
            for pos in from..self.nodes[node].agents.len() {
                if !self.call_agent(cx, now, node, pos, Hook::Egress, iface, idx) {
                    return;
                }
            }
        }
        self.transmit(cx, now, iface, idx);
    }

    /// Call the agent at stack position `pos` of `node` if it hooks `hook`.
    /// Returns whether the packet goes on (false: dropped or stolen, and the
    /// frame is freed). The agent's injections are acted on before returning.
    #[allow(clippy::too_many_arguments)]
    fn call_agent(&mut self, cx: &mut Cx, now: Instant, node: usize, pos: usize, hook: Hook, iface: u32, idx: u32) -> bool {
        let a = self.nodes[node].agents[pos] as usize;
        if !self.agents[a].hooks().has(hook) {
            return true;
        }
        let local = IfaceId(self.ifaces[iface as usize].local);
        let verdict = self.agents[a].on_packet(now, hook, local, &mut self.frames.get_mut(idx).pkt);
        let goes_on = match verdict {
            Verdict::Accept => true,
            Verdict::Drop => {
                self.agent_drops[a] += 1;
                false
            }
            Verdict::Stolen => false,
        };
        if !goes_on {
            self.frames.remove(idx);
        }
        self.after_agent(cx, now, a);
        goes_on
    }

    /// Act on agent `a`'s injections and log lines, then re-arm its timer.
    pub(super) fn after_agent(&mut self, cx: &mut Cx, now: Instant, a: usize) {
        while let Some(l) = self.agents[a].poll_log() {
            cx.log.push((now, Raw::Agent { agent: a as u32, kind: l.kind, value: l.value }));
        }
        let (node, pos) = self.agent_at[a];
        let (node, pos) = (node as usize, pos as usize);
        while let Some(inj) = self.agents[a].poll_injection() {
            let src = u32::from_be_bytes(inj.pkt.net_header().src);
            let proxied = self.iface_of(src).is_none_or(|i| self.ifaces[i as usize].node as usize != node);
            let l2 = airtcp_core::L2Header { proxied, ..Default::default() };
            let idx = self.frames.insert(Frame { l2, pkt: inj.pkt });
            match inj.at {
                InjectAt::Route => self.route_out(cx, now, node, idx, false, 0),
                InjectAt::Egress(IfaceId(l)) => match self.nodes[node].ifaces.get(l as usize) {
                    Some(&iface) => self.egress(cx, now, iface, idx, pos + 1),
                    None => {
                        self.frames.remove(idx);
                        self.stats.no_route += 1;
                    }
                },
                InjectAt::Ingress(IfaceId(l)) => match self.nodes[node].ifaces.get(l as usize) {
                    Some(&iface) => self.ingress(cx, now, iface, idx, pos, 1),
                    None => {
                        self.frames.remove(idx);
                        self.stats.no_route += 1;
                    }
                },
            }
        }
        self.arm_agent(cx, now, a);
    }

    /// Whether `addr` belongs to one of `node`'s interfaces.
    #[inline]
    pub(crate) fn is_local(&self, node: usize, addr: u32) -> bool {
        let n = &self.nodes[node];
        if n.primary == Some(addr) || n.ifaces.len() < 2 {
            return n.primary == Some(addr);
        }
        if n.ifaces.len() <= 4 {
            return n.ifaces.iter().any(|&i| self.ifaces[i as usize].addr == addr);
        }
        self.owns_addr(node, addr)
    }

    /// `is_local` on a node with many interfaces: a search of the sorted
    /// address table, not a scan of the interfaces — a switch with an
    /// interface per access point (the campus benchmark's has 101) forwards
    /// every packet, and a scan touched a cache line per interface.
    #[inline(never)]
    fn owns_addr(&self, node: usize, addr: u32) -> bool {
        let t = &self.addr_table;
        let first = t.partition_point(|e| e.0 < addr);
        t[first..].iter().take_while(|e| e.0 == addr).any(|e| self.ifaces[e.1 as usize].node as usize == node)
    }
}

/// The hooks a set of agents needs.
pub(super) fn union_hooks<'a>(masks: impl Iterator<Item = HookMask> + 'a) -> HookMask {
    masks.fold(HookMask::default(), |acc, m| acc | m)
}
