//! Where the coded plane meets the packet path: the source's TCP packets,
//! coded frames and ACKs arriving at radios, and the MAC asking for more.

use airtcp_agents::tcpfender::Release;
use airtcp_core::{Coded, CodedKind, Frame, Instant, IpPayload, Ipv4Header, Packet};

use super::roles::Role;
use super::{CodedPlane, MAC_DEPTH, TIMER_AGENT, WAITING_LIMIT};
use crate::network::{Cx, LocalDelivery, Network};
use crate::scenario::mesh_coding::Protocol;

impl Network {
    /// A packet the host at `node` sends: the coded flow's data segments at
    /// its source go to the source role. Returns whether the plane took it.
    #[inline]
    pub(crate) fn coded_from_host(&mut self, cx: &mut Cx, now: Instant, node: usize, pkt: &Packet) -> bool {
        let Some(p) = self.coded.as_mut() else { return false };
        // Only data is coded: SYN, FIN and RST without data, and pure ACKs, go by IP.
        if node != p.src_node || !p.is_flow_data(pkt) || pkt.segment().is_some_and(|s| s.payload_len == 0) {
            return false;
        }
        p.symbol_bytes = p.symbol_bytes.max(pkt.ip_len() as u16);
        // A TCPFender retransmission goes to its batch at once: it needs no
        // new batch, and queued behind new segments it could wait for ever
        // on the very batch it completes.
        let seg = pkt.segment().expect("flow data is TCP");
        let retx = p.protocol == Protocol::Fender && p.taken_end.is_some_and(|e| seg.seq < e);
        if p.waiting.is_empty() || retx {
            match p.offer(now, pkt) {
                Offer::Taken => {}
                Offer::Full => p.wait(*pkt),
                Offer::Refused => p.c.refused += 1,
            }
        } else {
            p.wait(*pkt);
        }
        let src = p.src_radio;
        self.coded_pump(cx, now, src);
        self.coded_arm_timer(cx, now);
        true
    }

    /// Queue the source's batch timer if it has one due that is not queued.
    fn coded_arm_timer(&mut self, cx: &mut Cx, now: Instant) {
        let Some(p) = self.coded.as_mut() else { return };
        let Role::MoreSource(s) = &p.roles[p.src_radio as usize] else { return };
        if let Some(t) = s.poll_timeout() {
            let t = t.max(now);
            if p.timer_armed.map_or(true, |a| t < a) {
                p.timer_armed = Some(t);
                cx.q.push(t, crate::engine::class::TIMER, crate::events::Ev::Agent { agent: TIMER_AGENT });
            }
        }
    }

    /// The plane's timer event: close a source batch whose timer ran out and send it.
    pub(crate) fn coded_timeout(&mut self, cx: &mut Cx, now: Instant) {
        let Some(p) = self.coded.as_mut() else { return };
        if p.timer_armed == Some(now) {
            p.timer_armed = None;
        }
        let src = p.src_radio;
        if let Role::MoreSource(s) = &mut p.roles[src as usize] {
            s.handle_timeout(now);
        }
        self.coded_pump(cx, now, src);
        self.coded_arm_timer(cx, now);
    }

    /// Frame `idx` arrived at `radio`: coded broadcasts and the flow's ACKs
    /// go to the plane. Returns whether the plane consumed (and freed) it;
    /// otherwise it takes the normal path (an ACK forwarded toward the source).
    pub(crate) fn coded_delivered(&mut self, cx: &mut Cx, now: Instant, radio: u32, idx: u32) -> bool {
        let Some(mut p) = self.coded.take() else { return false };
        let frame = *self.frames.get(idx);
        let consumed = match frame.pkt.payload {
            IpPayload::Coded(c) if c.kind == CodedKind::Data => {
                self.frames.remove(idx);
                if let Some(from) = p.radio_of_mac(frame.l2.src) {
                    let mut rx = std::mem::take(&mut p.rx_buf);
                    let payload = match &p.payloads {
                        None => Some(None),
                        Some(ring) => ring.get(from, frame.pkt.ip.ip_id).map(|b| {
                            rx.clear();
                            rx.extend_from_slice(b);
                            Some(&rx[..])
                        }),
                    };
                    match payload {
                        Some(payload) => self.coded_data(cx, now, &mut p, radio, from, &c, payload),
                        // Cannot happen while the ring outlives a frame's
                        // air time; counted rather than decoded wrongly.
                        None => p.c.real_bytes_mismatches += 1,
                    }
                    p.rx_buf = rx;
                }
                true
            }
            IpPayload::Coded(c) => {
                if let Role::Forwarder(f) = &mut p.roles[radio as usize] {
                    let _ = f.handle_ack(&c);
                }
                if radio == p.src_radio {
                    self.frames.remove(idx);
                    self.coded_ack_at_source(cx, now, &mut p, &c);
                    true
                } else {
                    false
                }
            }
            _ if radio == p.src_radio && p.protocol == Protocol::Fender && p.is_flow_ack(&frame.pkt) => {
                let pass = match &mut p.roles[radio as usize] {
                    Role::FenderSender(s) => s.on_tcp_ack(&frame.pkt),
                    _ => true,
                };
                if !pass {
                    p.c.tcp_acks_absorbed += 1;
                    self.frames.remove(idx);
                }
                !pass
            }
            _ => false,
        };
        self.coded = Some(p);
        // A batch ACK may have let waiting segments open a new batch.
        self.coded_arm_timer(cx, now);
        consumed
    }

    /// A coded data packet from radio `from` heard by `radio`, with its
    /// payload bytes in real-byte mode.
    #[allow(clippy::too_many_arguments)]
    fn coded_data(&mut self, cx: &mut Cx, now: Instant, p: &mut CodedPlane, radio: u32, from: u32, c: &Coded, payload: Option<&[u8]>) {
        match &mut p.roles[radio as usize] {
            Role::Forwarder(f) => {
                let _ = f.handle_coded(from as usize, c, payload);
                // Upstream still sends a batch this forwarder saw acknowledged: the ACK was lost.
                if let Some(a) = f.poll_ack() {
                    self.coded_send_ack(cx, now, p, radio, a);
                }
                self.pump_with(cx, now, p, radio);
            }
            Role::MoreDestination(d) => {
                let ack = d.handle_coded(c, payload).ok().flatten();
                let mut decoded = Vec::new();
                while let Some(b) = d.poll_decoded() {
                    // A decoded batch's bytes live until the next poll.
                    if p.payloads.is_some() {
                        let originals = p.natives.iter().find(|(n, _)| *n == b.batch).map(|(_, segs)| &segs[..]).unwrap_or(&[]);
                        for i in 0..b.natives {
                            let same = match (d.native(b.batch, i), originals.get(i)) {
                                (Some(got), Some(orig)) => {
                                    airtcp_core::wire::encode(orig, &mut p.wire_buf).is_ok() && got.get(..p.wire_buf.len()) == Some(&p.wire_buf[..])
                                }
                                _ => false,
                            };
                            p.c.real_bytes_checked += 1;
                            p.c.real_bytes_mismatches += u64::from(!same);
                        }
                    }
                    decoded.push(b);
                }
                if let Some(a) = ack {
                    let dst = p.dst_radio;
                    self.coded_send_ack(cx, now, p, dst, a);
                }
                for b in decoded {
                    while p.natives.front().is_some_and(|(n, _)| *n < b.batch) {
                        p.natives.pop_front();
                    }
                    if let Some((n, segs)) = p.natives.front() {
                        if *n == b.batch {
                            let segs = segs.clone();
                            p.natives.pop_front();
                            self.coded_to_tcp(p, &segs);
                            p.c.batches_to_tcp += 1;
                        }
                    }
                }
            }
            Role::FenderReceiver(r) => {
                let Ok(ack) = r.on_coded(c, payload) else { return };
                let mut got = Vec::new();
                while let Some(d) = r.poll_delivery() {
                    got.push(d);
                }
                let dst = p.dst_radio;
                self.coded_send_ack(cx, now, p, dst, ack);
                let segs: Vec<Packet> = got
                    .iter()
                    .filter_map(|d| {
                        d.packet.or_else(|| match &p.roles[p.src_radio as usize] {
                            Role::FenderSender(s) => s.native_packet(d.batch, d.index),
                            _ => None,
                        })
                    })
                    .collect();
                if p.payloads.is_some() {
                    if let Role::FenderSender(s) = &p.roles[p.src_radio as usize] {
                        for d in &got {
                            let same = d.packet.is_some() && d.packet == s.native_packet(d.batch, d.index);
                            p.c.real_bytes_checked += 1;
                            p.c.real_bytes_mismatches += u64::from(!same);
                        }
                    }
                }
                p.c.batches_to_tcp += got.iter().filter(|d| d.index == 0).count() as u64;
                self.coded_to_tcp(p, &segs);
            }
            _ => {}
        }
    }

    /// A batch ACK (MORE) or module ACK (TCPFender) reached the source.
    fn coded_ack_at_source(&mut self, cx: &mut Cx, now: Instant, p: &mut CodedPlane, c: &Coded) {
        let radio = p.src_radio;
        let tcp_ack = match &mut p.roles[radio as usize] {
            Role::MoreSource(s) => {
                let _ = s.handle_ack(c);
                None
            }
            Role::FenderSender(s) => s.on_fender_ack(c).ok().flatten(),
            _ => None,
        };
        p.drain_waiting(now);
        if let Some(a) = tcp_ack {
            let node = p.src_node;
            self.coded_local(node, radio, a);
        }
        self.pump_with(cx, now, p, radio);
    }

    /// Send an ACK from `radio` (the destination, or a forwarder repeating
    /// one) to the source by IP unicast.
    fn coded_send_ack(&mut self, cx: &mut Cx, now: Instant, p: &mut CodedPlane, radio: u32, ack: Coded) {
        p.c.acks_sent += 1;
        let node = p.radio_node[radio as usize];
        let ip_id = self.next_ip_id(node);
        let pkt = Packet {
            ip: Ipv4Header { src: p.radio_ip[radio as usize], dst: p.src_addr, ttl: crate::network::path::TTL, ip_id, ..Default::default() },
            outer: None,
            payload: IpPayload::Coded(ack),
        };
        self.send_from(cx, now, node, pkt);
    }

    /// Hand decoded segments to the destination's TCP, all at once.
    fn coded_to_tcp(&mut self, p: &mut CodedPlane, segs: &[Packet]) {
        p.c.segments_to_tcp += segs.len() as u64;
        let (node, radio) = (p.dst_node, p.dst_radio);
        for s in segs {
            self.coded_local(node, radio, *s);
        }
    }

    /// Deliver `pkt` to the host of `node` as if it arrived on `radio`.
    fn coded_local(&mut self, node: usize, radio: u32, pkt: Packet) {
        let frame = self.frames.insert(Frame { l2: Default::default(), pkt });
        let iface = self.radio_iface[radio as usize];
        self.local.push_back(LocalDelivery { node: node as u32, iface, frame });
    }

    /// The MAC of `radio` released a frame: give it the next coded packet.
    pub(crate) fn coded_pump(&mut self, cx: &mut Cx, now: Instant, radio: u32) {
        if let Some(mut p) = self.coded.take() {
            self.pump_with(cx, now, &mut p, radio);
            self.coded = Some(p);
        }
    }

    /// Keep `radio`'s MAC queue at [`MAC_DEPTH`] frames with what its role will send.
    fn pump_with(&mut self, cx: &mut Cx, now: Instant, p: &mut CodedPlane, radio: u32) {
        let r = radio as usize;
        if matches!(p.roles[r], Role::None | Role::MoreDestination(_) | Role::FenderReceiver(_)) {
            return;
        }
        let iface = self.radio_iface[r];
        let node = self.ifaces[iface as usize].node as usize;
        let src = self.ifaces[iface as usize].addr.to_be_bytes();
        while self.wlan().is_some_and(|w| w.mac_queue_len(radio) < MAC_DEPTH) {
            let Some(mut c) = p.roles[r].poll_transmit(&mut p.symbol) else { break };
            // Coefficient-only roles say 0 bytes: the frame carries a whole native.
            c.payload_len = p.symbol_bytes;
            p.c.coded_enqueued += 1;
            let ip_id = self.next_ip_id(node);
            if let Some(ring) = p.payloads.as_mut() {
                ring.put(radio, ip_id, &p.symbol.payload);
            }
            let pkt = Packet { ip: Ipv4Header { src, dst: [255; 4], ttl: 1, ip_id, ..Default::default() }, outer: None, payload: IpPayload::Coded(c) };
            let idx = self.frames.insert(Frame { l2: Default::default(), pkt });
            self.transmit(cx, now, iface, idx);
        }
    }
}

/// What the source role did with a segment.
pub(super) enum Offer {
    Taken,
    /// It holds all the batches it may: the segment waits.
    Full,
    Refused,
}

impl CodedPlane {
    /// Give a data segment to the source role.
    pub(super) fn offer(&mut self, now: Instant, pkt: &Packet) -> Offer {
        match &mut self.roles[self.src_radio as usize] {
            Role::MoreSource(s) => match s.push_native_at(now, match &self.payloads {
                None => None,
                Some(_) => {
                    if airtcp_core::wire::encode(pkt, &mut self.wire_buf).is_err() {
                        return Offer::Refused;
                    }
                    Some(&self.wire_buf[..])
                }
            }) {
                Ok((batch, index)) => {
                    match self.natives.back_mut() {
                        Some((b, segs)) if *b == batch => {
                            debug_assert_eq!(segs.len(), index);
                            segs.push(*pkt);
                        }
                        _ => self.natives.push_back((batch, vec![*pkt])),
                    }
                    Offer::Taken
                }
                Err(airtcp_agents::more::MoreError::Backlogged) => Offer::Full,
                Err(_) => Offer::Refused,
            },
            Role::FenderSender(s) => match s.on_tcp_segment(pkt) {
                Ok(Release::Coded { .. }) | Ok(Release::PassThrough) => {
                    let seg = pkt.segment().expect("flow data is TCP");
                    let end = seg.seq + seg.seq_len();
                    if self.taken_end.map_or(true, |e| end > e) {
                        self.taken_end = Some(end);
                    }
                    Offer::Taken
                }
                Err(airtcp_agents::tcpfender::FenderError::Backlogged) => Offer::Full,
                Err(_) => Offer::Refused,
            },
            _ => Offer::Refused,
        }
    }

    fn wait(&mut self, pkt: Packet) {
        if self.waiting.len() >= WAITING_LIMIT {
            self.c.waiting_drops += 1;
        } else {
            self.waiting.push_back(pkt);
        }
    }

    /// Offer the waiting segments again, in order, until the role is full.
    fn drain_waiting(&mut self, now: Instant) {
        while let Some(pkt) = self.waiting.front().copied() {
            match self.offer(now, &pkt) {
                Offer::Full => return,
                Offer::Taken => {}
                Offer::Refused => self.c.refused += 1,
            }
            self.waiting.pop_front();
        }
    }
}

