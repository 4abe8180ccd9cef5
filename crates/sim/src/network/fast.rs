//! The packet path of nodes without agents, written without recursion so the
//! compiler can inline it end to end. It makes exactly the decisions of
//! [`super::path`] (which it hands over to for anything unusual: agents, a
//! tunnel, an echo request, a packet to the sender itself, a down interface),
//! so a network without agents pays for addresses and forwarding tables but
//! not for hooks.

use airtcp_core::{Frame, Icmp, Instant, IpPayload, Ipv4Header, Packet, Segment};

use super::node::HOP_LOCAL;
use super::{AnyMedium, Cx, LocalDelivery, Medium, Network, Tx};
use crate::link::Verdict as LinkVerdict;

impl Network {
    /// A packet generated at `node`.
    #[inline]
    pub(crate) fn send_from(&mut self, cx: &mut Cx, now: Instant, node: usize, pkt: Packet) {
        if self.coded.is_some() && self.coded_from_host(cx, now, node, &pkt) {
            return;
        }
        let idx = self.frames.insert(Frame { l2: Default::default(), pkt });
        self.send_inserted(cx, now, node, idx);
    }

    /// A TCP segment a host at `node` sends with IP header `ip`: as
    /// `send_from`, but the frame is assembled in the arena's slot rather
    /// than copied there. The header's narrow fields (TTL, ID, ECN) were
    /// written a moment before; copying the packet read them back with
    /// 16-byte loads that store forwarding cannot serve, a stall that was
    /// 2.5 % of a bulk run's wall time.
    #[inline]
    pub(crate) fn send_tcp_from(&mut self, cx: &mut Cx, now: Instant, node: usize, ip: Ipv4Header, seg: Segment) {
        if self.coded.is_some() {
            return self.send_from(cx, now, node, Packet { ip, outer: None, payload: IpPayload::Tcp(seg) });
        }
        let idx = self.frames.insert_with(|f| {
            f.l2 = Default::default();
            f.pkt.ip = ip;
            f.pkt.outer = None;
            f.pkt.payload = IpPayload::Tcp(seg);
        });
        self.send_inserted(cx, now, node, idx);
    }

    /// Route frame `idx`, just generated at `node`, out of it.
    #[inline]
    fn send_inserted(&mut self, cx: &mut Cx, now: Instant, node: usize, idx: u32) {
        let dst = u32::from_be_bytes(self.frames.get(idx).pkt.net_header().dst);
        if self.hops[node].hooked {
            return self.route_out(cx, now, node, idx, false, 0);
        }
        // The limited broadcast marks an empty cache slot: never cached.
        let cached = if dst == u32::MAX { None } else { self.cached_hop(node, dst) };
        let out = match cached {
            Some(out) => out,
            None if self.is_local(node, dst) => return self.route_out(cx, now, node, idx, false, 0),
            None => match self.resolve(node, dst) {
                Some(route) if dst == u32::MAX => route.iface,
                Some(route) => self.remember_hop(node, dst, route.iface),
                None => {
                    self.frames.remove(idx);
                    self.stats.no_route += 1;
                    return;
                }
            },
        };
        if out == HOP_LOCAL {
            return self.route_out(cx, now, node, idx, false, 0);
        }
        self.transmit(cx, now, out, idx)
    }

    /// What `node` last did with a packet for `dst` (see [`super::node::HopCache`]),
    /// if it is one of its two latest destinations under the current routes.
    #[inline(always)]
    fn cached_hop(&mut self, node: usize, dst: u32) -> Option<u32> {
        let h = self.hops[node].at_epoch(self.route_epoch);
        if h.hops[0].0 == dst {
            return Some(h.hops[0].1);
        }
        if h.hops[1].0 == dst {
            h.hops.swap(0, 1);
            return Some(h.hops[0].1);
        }
        None
    }

    /// Record `out` as `node`'s egress for `dst` and return it. Route
    /// computation in between may have moved the epoch: the entry is kept
    /// under the epoch that is current now.
    #[cold]
    #[inline(never)]
    fn remember_hop(&mut self, node: usize, dst: u32, out: u32) -> u32 {
        let h = self.hops[node].at_epoch(self.route_epoch);
        h.hops = [(dst, out), h.hops[0]];
        out
    }

    /// The next frame link `m` delivers by `now` that is for a node's
    /// own address; frames to forward are forwarded on the way. Call until
    /// `None`, then [`Network::end_medium`]. (Deliveries that pass through
    /// agents, tunnels or loopback, and a radio medium's, come out of
    /// [`Network::poll_local`].)
    // Always: called from both instantiations of the run loop (with and
    // without the event queue's lane); at two call sites it became a call.
    #[inline(always)]
    pub(crate) fn next_delivery(&mut self, cx: &mut Cx, now: Instant, m: u32) -> Option<LocalDelivery> {
        let c = m as usize;
        loop {
            let d = self.media[c].link()?.poll_output()?;
            let iface = self.media_iface[c] + d.end as u32;
            if let Some(local) = self.receive(cx, now, iface, d.frame, d.ip_bytes) {
                return Some(local);
            }
        }
    }

    /// A frame of `ip_bytes` arrived on `iface`: forwarded, or returned when
    /// it is for this node.
    #[inline]
    pub(super) fn receive(&mut self, cx: &mut Cx, now: Instant, iface: u32, idx: u32, ip_bytes: u32) -> Option<LocalDelivery> {
        let ifc = &self.ifaces[iface as usize];
        let node = ifc.node as usize;
        if !ifc.up || self.hops[node].general {
            self.receive_general(cx, now, iface, idx);
            return None;
        }
        let dst = u32::from_be_bytes(self.frames.get(idx).pkt.net_header().dst);
        if dst == u32::MAX {
            // Limited broadcast (an AP's station announcement) stops here.
            self.frames.remove(idx);
            return None;
        }
        let cached = self.cached_hop(node, dst);
        if cached == Some(HOP_LOCAL) || (cached.is_none() && self.is_local(node, dst)) {
            let pkt = &self.frames.get(idx).pkt;
            if pkt.outer.is_some() || matches!(pkt.payload, IpPayload::Icmp(Icmp::EchoRequest { .. })) {
                self.receive_general(cx, now, iface, idx);
                return None;
            }
            if cached.is_none() {
                self.remember_hop(node, dst, HOP_LOCAL);
            }
            return Some(LocalDelivery { node: node as u32, iface, frame: idx });
        }
        let h = self.frames.get_mut(idx).pkt.net_header_mut();
        if h.ttl <= 1 {
            self.frames.remove(idx);
            self.stats.ttl_expired += 1;
            return None;
        }
        h.ttl -= 1;
        let out = match cached {
            Some(out) => out,
            None => match self.resolve(node, dst) {
                Some(route) => self.remember_hop(node, dst, route.iface),
                None => {
                    self.frames.remove(idx);
                    self.stats.no_route += 1;
                    return None;
                }
            },
        };
        // The TTL is all that changed: the size is the one it arrived with.
        self.transmit_sized(cx, now, out, idx, ip_bytes);
        None
    }

    /// Put frame `idx` on `iface`'s medium (after the egress hooks, if any ran).
    #[inline]
    pub(super) fn transmit(&mut self, cx: &mut Cx, now: Instant, iface: u32, idx: u32) {
        let bytes = self.frames.get(idx).pkt.ip_len();
        self.transmit_sized(cx, now, iface, idx, bytes)
    }

    /// `transmit` of a frame whose packet is `bytes` long (`Packet::ip_len`).
    #[inline]
    fn transmit_sized(&mut self, cx: &mut Cx, now: Instant, iface: u32, idx: u32, bytes: u32) {
        let ifc = &self.ifaces[iface as usize];
        if !ifc.up {
            self.frames.remove(idx);
            self.stats.no_route += 1;
            return;
        }
        if ifc.radio != super::node::NO_RADIO {
            return self.transmit_radio(cx, now, iface, idx);
        }
        let (c, end) = (ifc.channel as usize, ifc.end);
        let (src_mac, dst_mac) = (ifc.mac, ifc.peer_mac);
        let frame = self.frames.get_mut(idx);
        frame.l2.src = src_mac;
        frame.l2.dst = dst_mac;
        let AnyMedium::Link(link) = &mut self.media[c] else { unreachable!("an interface without a radio is on a link") };
        let tx = Tx { from: end as u32, to: 1 - end as u32, frame: idx, ip_bytes: bytes, ecn: &mut frame.pkt.net_header_mut().ecn };
        let verdict = link.send(now, tx);
        let next = link.poll_timeout();
        if let Some(p) = self.pcap.as_mut() {
            if let LinkVerdict::Delivered { start, .. } | LinkVerdict::Lost { start, .. } = verdict {
                p.capture(c, end as usize, start, now, &self.frames.get(idx).pkt);
            }
        }
        match verdict {
            LinkVerdict::Delivered { .. } => self.arm_link(cx, now, c, next),
            _ => {
                self.frames.remove(idx);
            }
        }
    }
}
