//! The hosts of a run: every TCP flow's two endpoints and applications, the
//! socket lookup for packets delivered to a node, and endpoint timers; the
//! UDP applications (`crate::udp`) take the datagrams addressed to them.

use airtcp_core::{Instant, Ipv4Header, Packet};
use airtcp_tcp::{CaState, Event};

use super::ep::HostEp;

use crate::apps::SendApp;
use crate::engine::class;
use crate::events::{Ev, Raw};
use crate::flow::FlowState;
use crate::network::{Cx, LocalDelivery, Network};

/// Port of flow `i`'s client and server (see `scenario::names::MAX_FLOWS`).
pub(crate) const CLIENT_PORT_BASE: u16 = 49_152;
pub(crate) const SERVER_PORT_BASE: u16 = 1_024;
/// Initial IPv4 TTL (Linux default, net.ipv4.ip_default_ttl).
const TTL: u8 = 64;

#[derive(Clone, Copy)]
pub(crate) struct EpMeta {
    pub flow: u32,
    pub client: bool,
    pub node: u32,
    pub addr: [u8; 4],
    pub peer: [u8; 4],
    /// Earliest Timer event in the queue for this endpoint, if tracked.
    pub timer: Option<Instant>,
}

pub(crate) struct Hosts {
    pub eps: Vec<HostEp>,
    pub meta: Vec<EpMeta>,
    pub flows: Vec<FlowState>,
    /// The UDP applications (their own ports; `crate::udp`).
    pub udp: crate::udp::UdpFlows,
    /// Packets delivered to a node with no socket for them.
    pub unmatched: u64,
    pub end: Instant,
}

impl Hosts {
    /// The endpoint a packet delivered to `node` is for: ports encode the
    /// flow (clients 49152 + i, servers 1024 + i), and the endpoint must live
    /// on that node and own the destination address.
    #[inline]
    fn socket(&self, node: u32, pkt: &Packet) -> Option<usize> {
        let seg = pkt.segment()?;
        let port = seg.dst_port;
        let ep = if port >= CLIENT_PORT_BASE {
            2 * (port - CLIENT_PORT_BASE) as usize
        } else {
            2 * (port.wrapping_sub(SERVER_PORT_BASE)) as usize + 1
        };
        let m = self.meta.get(ep)?;
        (m.node == node && m.addr == pkt.ip.dst).then_some(ep)
    }

    pub(crate) fn deliver(&mut self, cx: &mut Cx, net: &mut Network, now: Instant, d: LocalDelivery) {
        let pkt = net.local_packet(&d);
        let Some(ep) = self.socket(d.node, pkt) else {
            if !self.udp.deliver(now, d.node, pkt) {
                self.unmatched += 1;
            }
            net.free_local(&d);
            return;
        };
        let seg = pkt.segment().expect("socket() matched a TCP segment");
        let m = self.meta[ep];
        if m.client {
            self.flows[m.flow as usize].tap.segment(now, seg, false);
        }
        self.eps[ep].handle_segment_ecn(now, seg, pkt.ip.ecn);
        net.free_local(&d);
        self.service(cx, net, ep, now);
    }

    /// A handoff cue from the station radio of `node`: its Freeze-TCP
    /// endpoints advertise a zero window (`warning`) or reopen it with the
    /// TR-ACKs (association).
    #[inline(never)]
    pub(crate) fn radio_notice(&mut self, cx: &mut Cx, net: &mut Network, now: Instant, node: u32, warning: bool) {
        for ep in 0..self.eps.len() {
            if self.meta[ep].node != node || !self.eps[ep].freeze_enabled() {
                continue;
            }
            let changed = if warning { self.eps[ep].freeze(now) } else { self.eps[ep].unfreeze(now) };
            if changed {
                let m = self.meta[ep];
                cx.log.push((now, Raw::Freeze { flow: m.flow, client: m.client, on: warning }));
                self.service(cx, net, ep, now);
            }
        }
    }

    /// Flows with one end on an external node (an emulator's real kernel)
    /// keep their simulated end, which must then speak to the kernel:
    /// a simulated client connects to the external server's port as usual
    /// (its address and port are the flow's); a simulated server accepts a
    /// connection from whatever port the kernel's client picks
    /// ([`airtcp_tcp::Endpoint::listen_any`]), and the external client's
    /// own endpoint never starts (`flow_start`). Returns the error of a
    /// flow that cannot: both ends external, or an ns-2 agent (whose
    /// segments are not a real TCP's).
    pub(crate) fn face_external(&mut self, external: &[bool], names: impl Fn(usize) -> String) -> Result<(), String> {
        for (i, f) in self.flows.iter().enumerate() {
            let (c, s) = (f.client as usize, f.server as usize);
            let (cx, sx) = (external[self.meta[c].node as usize], external[self.meta[s].node as usize]);
            if cx && sx {
                return Err(format!("flows[{i}]: both ends are real hosts; their kernels carry that traffic (remove the flow)"));
            }
            if !(cx || sx) {
                continue;
            }
            match &mut self.eps[if cx { s } else { c }] {
                HostEp::Linux(e) => {
                    if cx {
                        e.listen_any();
                    }
                }
                HostEp::Ns2(_) => {
                    let n = names(self.meta[if cx { s } else { c }].node as usize);
                    return Err(format!("flows[{i}]: an ns-2 agent on {n} cannot talk to a real host; use a Linux profile"));
                }
            }
        }
        Ok(())
    }

    #[inline(never)]
    pub(crate) fn flow_start(&mut self, cx: &mut Cx, net: &mut Network, now: Instant, flow: u32) {
        let ep = self.flows[flow as usize].client as usize;
        if net.external[self.meta[ep].node as usize] {
            // The kernel of an external node opens this connection itself.
            return;
        }
        self.eps[ep].connect(now);
        self.service(cx, net, ep, now);
    }

    #[inline(never)]
    pub(crate) fn read_tick(&mut self, cx: &mut Cx, net: &mut Network, now: Instant, flow: u32) {
        let f = &mut self.flows[flow as usize];
        let ep = f.server as usize;
        f.recv.tick(&mut self.eps[ep]);
        let next = now + f.recv.interval;
        self.service(cx, net, ep, now);
        cx.q.push(next, class::APP, Ev::Read { flow });
    }

    #[inline(never)]
    pub(crate) fn timer(&mut self, cx: &mut Cx, net: &mut Network, now: Instant, ep: usize) {
        if self.meta[ep].timer == Some(now) {
            self.meta[ep].timer = None;
        }
        match self.eps[ep].poll_timeout() {
            Some(d) if d <= now => {
                self.eps[ep].handle_timeout(now);
                self.service(cx, net, ep, now);
            }
            _ => self.schedule_timer(cx, ep, now),
        }
    }

    /// Lazy cancellation: one queued Timer per endpoint unless the deadline
    /// moved earlier; a Timer that fires early just re-arms for the real deadline.
    #[inline]
    pub(crate) fn schedule_timer(&mut self, cx: &mut Cx, ep: usize, now: Instant) {
        if let Some(d) = self.eps[ep].poll_timeout() {
            let d = if d < now { now } else { d };
            if d > self.end {
                return;
            }
            let m = &mut self.meta[ep];
            if m.timer.map_or(true, |p| d < p) {
                m.timer = Some(d);
                cx.q.push(d, class::TIMER, Ev::Timer { ep: ep as u32 });
            }
        }
    }

    /// Let the endpoint and its application react until neither has anything
    /// more to say, then re-arm its timer.
    fn service(&mut self, cx: &mut Cx, net: &mut Network, ep: usize, now: Instant) {
        loop {
            let mut any = false;
            while let Some(e) = self.eps[ep].poll_event() {
                any = true;
                self.on_tcp_event(cx, ep, e, now);
            }
            let m = self.meta[ep];
            let f = &mut self.flows[m.flow as usize];
            if m.client && f.connected {
                f.send.fill(&mut self.eps[ep]);
            }
            while let Some((seg, ecn)) = self.eps[ep].poll_transmit_ecn(now) {
                if m.client {
                    let f = &mut self.flows[m.flow as usize];
                    f.tap.segment(now, &seg, true);
                    if seg.payload_len > 0 {
                        f.on_data_sent(now, seg.seq, seg.payload_len);
                    }
                }
                let id = net.next_ip_id(m.node as usize);
                let ip = Ipv4Header { src: m.addr, dst: m.peer, ttl: TTL, ip_id: id, ecn };
                net.send_tcp_from(cx, now, m.node as usize, ip, seg);
            }
            if !any {
                break;
            }
            // Another round would find no event, give the endpoint no data
            // and poll it again in the state its last poll left it, which
            // had nothing to send: stop here (the same outcome without
            // polling twice; a third of all polls in a bulk run).
            let f = &self.flows[m.flow as usize];
            if !self.eps[ep].has_events() && !(m.client && f.connected && f.send.would_fill(&self.eps[ep])) {
                break;
            }
        }
        let m = self.meta[ep];
        if m.client {
            let f = &mut self.flows[m.flow as usize];
            if let (SendApp::Transfer { total, .. }, None) = (&f.send, f.done_at) {
                if self.eps[ep].stats().bytes_acked >= *total {
                    f.done_at = Some(now);
                    let response = now.saturating_since(f.start);
                    cx.log.push((now, Raw::TransferComplete { flow: m.flow, response }));
                }
            }
        }
        self.schedule_timer(cx, ep, now);
    }

    fn on_tcp_event(&mut self, cx: &mut Cx, ep: usize, e: Event, now: Instant) {
        let m = self.meta[ep];
        let f = &mut self.flows[m.flow as usize];
        let aux_f = (f.data_base, f.high_sent);
        match e {
            Event::Readable => {
                if !m.client && f.recv.rate_bps.is_none() {
                    f.recv.read_all(&mut self.eps[ep]);
                }
                return;
            }
            Event::Connected => {
                if m.client {
                    f.connected = true;
                }
            }
            Event::PeerClosed => {
                if !m.client {
                    // The server has nothing to send: close its side too.
                    self.eps[ep].close();
                }
            }
            Event::Closed { aborted } => f.closed[!m.client as usize] = Some((now, aborted)),
            Event::CaStateChanged { to, .. } if m.client => match to {
                CaState::Recovery => f.fast_recoveries += 1,
                CaState::Loss => f.loss_entries += 1,
                _ => {}
            },
            Event::ZeroWindow if m.client => f.zero_windows += 1,
            _ => {}
        }
        let aux = match e {
            Event::FastRetransmit { seq } => crate::stream_offset::unwrap_seq(seq, aux_f.0, aux_f.1),
            _ => 0,
        };
        cx.log.push((now, Raw::Tcp { flow: m.flow, client: m.client, ev: e, aux }));
    }
}
