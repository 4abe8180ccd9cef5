//! One end of an ns-2 agent pair on a simulated host: the packet-numbered
//! sender or sink of `airtcp_tcp::ns2` behind the socket calls and segment
//! I/O the hosts use for every endpoint. Packet numbers become TCP
//! sequence numbers on the wire (data packet k starts at ISS + 1 +
//! (k - 1) x packetSize_, the SYN is packet 0 at the ISS), so captures,
//! segment logs and byte counters read as for any TCP flow.

use std::collections::VecDeque;

use airtcp_core::{Duration, Instant, SeqNum, Segment, TcpFlags};
use airtcp_tcp::ns2::{HandoverEvent, Ns2Config, Ns2Event, Ns2Sender, Ns2Sink};
use airtcp_tcp::{CaState, Event, Probe, TcpStats};

use crate::stream_offset::unwrap_seq;

/// The sink's advertised window field: ns-2's one-way agents carry none,
/// the sender is limited by its own `window_`.
const WINDOW_FIELD: u16 = u16::MAX;

enum Side {
    Sender(Ns2Sender),
    Sink(Ns2Sink),
}

pub(crate) struct Ns2Host {
    side: Side,
    cfg: Ns2Config,
    local_port: u16,
    remote_port: u16,
    /// The sender's ISS (packet numbers map onto its sequence space).
    data_iss: SeqNum,
    /// The sink's sequence number (it sends no data).
    ack_iss: SeqNum,
    events: VecDeque<Event>,
    /// Packets the application offered that the sender has not been told of.
    offered: i64,
    /// Bytes the application has read (sink).
    read: u64,
}

impl Ns2Host {
    pub(crate) fn sender(cfg: Ns2Config, local_port: u16, remote_port: u16, data_iss: SeqNum, ack_iss: SeqNum) -> Result<Self, String> {
        let s = Ns2Sender::new(cfg.clone())?;
        Ok(Self::with(Side::Sender(s), cfg, local_port, remote_port, data_iss, ack_iss))
    }

    pub(crate) fn sink(cfg: Ns2Config, local_port: u16, remote_port: u16, data_iss: SeqNum, ack_iss: SeqNum) -> Result<Self, String> {
        cfg.validate()?;
        let s = Ns2Sink::new(&cfg);
        Ok(Self::with(Side::Sink(s), cfg, local_port, remote_port, data_iss, ack_iss))
    }

    fn with(side: Side, cfg: Ns2Config, local_port: u16, remote_port: u16, data_iss: SeqNum, ack_iss: SeqNum) -> Self {
        Ns2Host { side, cfg, local_port, remote_port, data_iss, ack_iss, events: VecDeque::with_capacity(8), offered: 0, read: 0 }
    }

    fn first_data(&self) -> i64 {
        self.cfg.syn as i64
    }

    /// Wire sequence number of packet `k`.
    fn wire_seq(&self, k: i64) -> SeqNum {
        if k == 0 && self.cfg.syn {
            return self.data_iss;
        }
        let off = (k - self.first_data()) as u64 * self.cfg.packet_size as u64;
        self.data_iss + 1 + off as u32
    }

    /// Packet number of wire sequence `seq`, near packet `hint`.
    fn packet_of(&self, seq: SeqNum, hint: i64) -> i64 {
        if seq == self.data_iss && self.cfg.syn {
            return 0;
        }
        let ps = self.cfg.packet_size as u64;
        let hint_off = (hint - self.first_data()).max(0) as u64 * ps;
        (unwrap_seq(seq, self.data_iss + 1, hint_off) / ps) as i64 + self.first_data()
    }

    pub(crate) fn handle_segment(&mut self, now: Instant, seg: &Segment) {
        match &mut self.side {
            Side::Sender(_) => {
                let hint = match &self.side {
                    Side::Sender(s) => s.seqnos().1,
                    Side::Sink(_) => unreachable!(),
                };
                let ack = self.packet_of(seg.ack, hint) - 1;
                if let Side::Sender(s) = &mut self.side {
                    // A Wi-TCP / EHN signal goes to the sender's handover
                    // hooks; with the scheme off it is a plain ACK.
                    if !seg.witcp.is_some_and(|sig| s.handle_signal(now, ack, sig)) {
                        s.handle_ack(now, ack);
                    }
                }
                self.drain_sender_events();
            }
            Side::Sink(k) => {
                let hint = k.seqno() + 1;
                let seqno = if seg.payload_len == 0 && !seg.flags.syn() { -1 } else { self.packet_of(seg.seq, hint) };
                if let Side::Sink(k) = &mut self.side {
                    let before = k.delivered_packets;
                    k.handle_packet(now, seqno);
                    if k.delivered_packets > before {
                        self.events.push_back(Event::Readable);
                    }
                }
            }
        }
    }

    fn drain_sender_events(&mut self) {
        let Side::Sender(s) = &mut self.side else { return };
        let mut evs = [None; 8];
        let mut n = 0;
        while let Some(e) = s.poll_event() {
            if n < evs.len() {
                evs[n] = Some(e);
                n += 1;
            } else {
                break;
            }
        }
        let reno = self.cfg.variant != airtcp_tcp::ns2::Ns2Variant::Tahoe;
        for e in evs.into_iter().take(n).flatten() {
            match e {
                Ns2Event::Timeout { rto, backoff } => {
                    self.events.push_back(Event::CaStateChanged { from: CaState::Open, to: CaState::Loss });
                    self.events.push_back(Event::Timeout { rto, backoff });
                }
                Ns2Event::FastRetransmit { seqno } => {
                    if reno {
                        self.events.push_back(Event::CaStateChanged { from: CaState::Open, to: CaState::Recovery });
                    }
                    let seq = self.wire_seq(seqno);
                    self.events.push_back(Event::FastRetransmit { seq });
                }
                Ns2Event::Connected => {}
                Ns2Event::Handover(h) => self.events.push_back(match h {
                    HandoverEvent::Freeze { cwnd, ssthresh } => Event::WiTcpFreeze { cwnd, ssthresh: ssthresh.max(0) as u32 },
                    HandoverEvent::Resume { cwnd, ssthresh, frozen, .. } => Event::WiTcpResume { cwnd, ssthresh: ssthresh.max(0) as u32, frozen, forced: false },
                    HandoverEvent::Notified { resent } => Event::HandoverNotified { lost: resent.max(0) as u32 },
                }),
            }
        }
    }

    /// The FTP source starts: the application may write at once (one-way
    /// agents have no handshake; the SYN is just packet 0).
    pub(crate) fn connect(&mut self) {
        self.events.push_back(Event::Connected);
    }

    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        match &self.side {
            Side::Sender(s) => s.poll_timeout(),
            Side::Sink(k) => k.poll_timeout(),
        }
    }

    pub(crate) fn handle_timeout(&mut self, now: Instant) {
        match &mut self.side {
            Side::Sender(s) => {
                s.handle_timeout(now);
                self.drain_sender_events();
            }
            Side::Sink(k) => k.handle_timeout(now),
        }
    }

    pub(crate) fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    pub(crate) fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    pub(crate) fn poll_transmit(&mut self, now: Instant) -> Option<Segment> {
        let mut seg = Segment { src_port: self.local_port, dst_port: self.remote_port, window: WINDOW_FIELD, ..Default::default() };
        match &mut self.side {
            Side::Sender(s) => {
                if self.offered > 0 {
                    let n = std::mem::take(&mut self.offered);
                    s.offer(now, n);
                    self.drain_sender_events();
                }
                let Side::Sender(s) = &mut self.side else { unreachable!() };
                let o = s.poll_transmit()?;
                seg.seq = self.wire_seq(o.seqno);
                if o.seqno == 0 && self.cfg.syn {
                    seg.flags = TcpFlags::SYN;
                } else {
                    seg.flags = TcpFlags(TcpFlags::ACK.0 | TcpFlags::PSH.0);
                    seg.ack = self.ack_iss + 1;
                    seg.payload_len = self.cfg.packet_size;
                }
                Some(seg)
            }
            Side::Sink(k) => {
                let a = k.poll_ack()?;
                seg.seq = self.ack_iss + 1;
                seg.ack = self.wire_seq(a + 1);
                seg.flags = TcpFlags::ACK;
                Some(seg)
            }
        }
    }

    pub(crate) fn stats(&self) -> &TcpStats {
        match &self.side {
            Side::Sender(s) => s.stats(),
            Side::Sink(k) => k.stats(),
        }
    }

    /// The application writes `bytes`: whole packets of `packetSize_`.
    pub(crate) fn send(&mut self, bytes: u64) -> u64 {
        let Side::Sender(s) = &self.side else { return 0 };
        let ps = self.cfg.packet_size as u64;
        let room = (s.room() - self.offered).max(0) as u64;
        let packets = bytes.div_ceil(ps).min(room);
        self.offered += packets as i64;
        bytes.min(packets * ps)
    }

    /// What the application may still write: the sender takes everything
    /// up to ns-2's `TCP_MAXSEQ` packets.
    pub(crate) fn send_capacity(&self) -> u64 {
        match &self.side {
            Side::Sender(s) => (s.room() - self.offered).max(0) as u64 * self.cfg.packet_size as u64,
            Side::Sink(_) => 0,
        }
    }

    /// Read up to `max` bytes delivered in order: `(offset, len)`.
    pub(crate) fn recv(&mut self, max: u64) -> Option<(u64, u64)> {
        let Side::Sink(k) = &self.side else { return None };
        let avail = k.stats().bytes_delivered - self.read;
        if avail == 0 || max == 0 {
            return None;
        }
        let n = avail.min(max);
        let off = self.read;
        self.read += n;
        Some((off, n))
    }

    pub(crate) fn probe(&self) -> Probe {
        let ps = self.cfg.packet_size;
        match &self.side {
            Side::Sender(s) => {
                let (t_seqno, maxseq) = s.seqnos();
                Probe {
                    cwnd: s.cwnd() as u32,
                    ssthresh: s.ssthresh().max(0) as u32,
                    srtt: s.rtt().srtt(),
                    rto: s.rto(),
                    snd_una: self.wire_seq(s.highest_ack() + 1),
                    snd_nxt: self.wire_seq(t_seqno),
                    snd_wnd: self.cfg.window.saturating_mul(ps),
                    in_flight: (maxseq - s.highest_ack()).max(0) as u32,
                    ca_state: CaState::Open,
                    bytes_acked: s.stats().bytes_acked,
                    bytes_delivered: 0,
                }
            }
            Side::Sink(k) => Probe {
                cwnd: 0,
                ssthresh: 0,
                srtt: Duration::ZERO,
                rto: Duration::ZERO,
                snd_una: self.ack_iss + 1,
                snd_nxt: self.ack_iss + 1,
                snd_wnd: 0,
                in_flight: 0,
                ca_state: CaState::Open,
                bytes_acked: 0,
                bytes_delivered: k.stats().bytes_delivered,
            },
        }
    }
}
