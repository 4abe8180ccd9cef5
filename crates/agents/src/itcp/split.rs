//! One split connection: endpoint A terminates the initiator's connection
//! (impersonating the destination), endpoint B opens the destination's
//! (impersonating the initiator), and two relays move the byte stream
//! between them.
//!
//! A relay holds the bytes read out of one endpoint's receive buffer and
//! written into the other's send buffer that the far peer has not yet
//! acknowledged: `moved - acked`. It is bounded by `relay_bytes` (and by the
//! outgoing endpoint's send buffer). The proxy additionally holds, per
//! direction, what the incoming endpoint has received but the relay had no
//! room to take (at most that endpoint's `rcv_buf`; its advertised window
//! closes as it fills, which is the back-pressure to the sender).

use airtcp_core::{ConnKey, Ecn, Instant, Packet, Segment};
use airtcp_tcp::{Endpoint, Event, State};

use crate::agent::{InjectAt, Injection};

/// Which endpoint of a split a segment is for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Side {
    /// Faces the initiator (segments initiator -> destination).
    A,
    /// Faces the destination (segments destination -> initiator).
    B,
}

/// Where emitted segments go: the agent's injection queue and IP ID counter.
pub(super) struct Emit<'a> {
    pub queue: &'a mut std::collections::VecDeque<Injection>,
    pub ip_id: &'a mut u16,
}

impl Emit<'_> {
    fn send(&mut self, src: [u8; 4], dst: [u8; 4], seg: Segment, ecn: Ecn) {
        let pkt = Packet::tcp(src, dst, 64, *self.ip_id, seg).with_ecn(ecn);
        *self.ip_id = self.ip_id.wrapping_add(1);
        self.queue.push_back(Injection { at: InjectAt::Route, pkt });
    }
}

/// Byte accounting of one split, live or final.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Tally {
    pub from_initiator: u64,
    pub acked_by_destination: u64,
    pub acked_not_delivered: u64,
    pub relayed_now: u64,
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, o: Tally) {
        self.from_initiator += o.from_initiator;
        self.acked_by_destination += o.acked_by_destination;
        self.acked_not_delivered += o.acked_not_delivered;
        self.relayed_now += o.relayed_now;
    }
}

pub(super) struct Split {
    /// The connection as the initiator sees it (initiator -> destination).
    pub key: ConnKey,
    /// Whether the destination is the mobile host (the SYN left through the
    /// wireless interface); decides which TcpConfig each endpoint uses.
    pub mobile_is_dest: bool,
    a: Endpoint,
    b: Endpoint,
    /// Bytes moved A -> B and B -> A.
    moved: [u64; 2],
    /// Close B (index 0) / A (index 1) once its send side can take a FIN.
    close_pending: [bool; 2],
}

impl Split {
    /// `a` is listening, `b` closed; the SYN is handed to A at once and B
    /// connects at once (the initiator's handshake does not wait for the
    /// destination's, as in a transparent split-connection proxy (RFC 3135)).
    pub fn open(now: Instant, key: ConnKey, mobile_is_dest: bool, mut a: Endpoint, mut b: Endpoint, syn: &Segment) -> Split {
        a.listen();
        a.handle_segment(now, syn);
        b.connect(now);
        Split { key, mobile_is_dest, a, b, moved: [0; 2], close_pending: [false; 2] }
    }

    /// A segment for one half, with its datagram's ECN codepoint: each
    /// half is a full TCP endpoint, ECN included (a CE mark on one side is
    /// echoed on that side only, as by a real split-connection proxy).
    pub fn deliver(&mut self, now: Instant, side: Side, seg: &Segment, ecn: Ecn) {
        match side {
            Side::A => self.a.handle_segment_ecn(now, seg, ecn),
            Side::B => self.b.handle_segment_ecn(now, seg, ecn),
        }
    }

    pub fn poll_timeout(&self) -> Option<Instant> {
        match (self.a.poll_timeout(), self.b.poll_timeout()) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        }
    }

    pub fn handle_timeout(&mut self, now: Instant) {
        if self.a.poll_timeout().is_some_and(|t| t <= now) {
            self.a.handle_timeout(now);
        }
        if self.b.poll_timeout().is_some_and(|t| t <= now) {
            self.b.handle_timeout(now);
        }
    }

    /// Both halves are CLOSED: the split can be forgotten.
    pub fn finished(&self) -> bool {
        self.a.state() == State::Closed && self.b.state() == State::Closed
    }

    pub fn endpoints(&self) -> (&Endpoint, &Endpoint) {
        (&self.a, &self.b)
    }

    /// Drive both endpoints after an input, as the simulator drives one
    /// (events, application, transmissions) until nothing changes.
    /// Returns the largest relay occupancy seen.
    pub fn service(&mut self, now: Instant, relay_bytes: u64, emit: &mut Emit) -> u64 {
        let mut peak = 0;
        loop {
            let mut busy = false;
            while let Some(e) = self.a.poll_event() {
                busy = true;
                self.on_event(Side::A, e);
            }
            while let Some(e) = self.b.poll_event() {
                busy = true;
                self.on_event(Side::B, e);
            }
            busy |= self.pump(relay_bytes);
            peak = peak.max(self.relayed(0)).max(self.relayed(1));
            self.apply_closes();
            let (fwd, back) = (self.key, self.key.reversed());
            while let Some((seg, ecn)) = self.a.poll_transmit_ecn(now) {
                busy = true;
                emit.send(back.src, back.dst, seg, ecn);
            }
            while let Some((seg, ecn)) = self.b.poll_transmit_ecn(now) {
                busy = true;
                emit.send(fwd.src, fwd.dst, seg, ecn);
            }
            if !busy {
                return peak;
            }
        }
    }

    fn on_event(&mut self, side: Side, e: Event) {
        let other = match side {
            Side::A => 0,
            Side::B => 1,
        };
        match e {
            // The peer finished (PeerClosed is reported once every byte
            // before its FIN was read, i.e. handed to the relay), or reset:
            // finish the other side once its queued data is out. The
            // endpoint has no abort call, so a reset is relayed as a FIN.
            Event::PeerClosed | Event::Closed { aborted: true } => self.close_pending[other] = true,
            _ => {}
        }
    }

    /// Bytes in relay `dir` (0: A -> B, 1: B -> A) not yet acknowledged by the far peer.
    fn relayed(&self, dir: usize) -> u64 {
        let out = if dir == 0 { &self.b } else { &self.a };
        self.moved[dir] - out.stats().bytes_acked.min(self.moved[dir])
    }

    /// Move what both relays have room for; true if anything moved.
    fn pump(&mut self, relay_bytes: u64) -> bool {
        let mut moved = false;
        for dir in 0..2 {
            let room = relay_bytes.saturating_sub(self.relayed(dir));
            let (from, to) = if dir == 0 { (&mut self.a, &mut self.b) } else { (&mut self.b, &mut self.a) };
            let n = from.recv_available().min(room).min(to.send_capacity());
            if n == 0 {
                continue;
            }
            let (_, got) = from.recv(n).expect("recv_available > 0");
            let put = to.send(got);
            debug_assert_eq!(put, got, "send_capacity was checked");
            self.moved[dir] += put;
            moved = true;
        }
        moved
    }

    /// Close a side whose peer finished, once it can send a FIN after the
    /// relayed data: not before its own handshake completes (closing in
    /// SYN-SENT would abandon the connection) and not while the other side
    /// still holds unread data.
    fn apply_closes(&mut self) {
        for dir in 0..2 {
            if !self.close_pending[dir] {
                continue;
            }
            let (from, to) = if dir == 0 { (&self.a, &mut self.b) } else { (&self.b, &mut self.a) };
            match to.state() {
                State::SynReceived | State::Established | State::CloseWait if from.recv_available() == 0 => {
                    to.close();
                    self.close_pending[dir] = false;
                }
                State::Closed | State::FinWait1 | State::FinWait2 | State::Closing | State::LastAck | State::TimeWait => {
                    self.close_pending[dir] = false;
                }
                _ => {}
            }
        }
    }

    /// Byte accounting now. "Acknowledged but not delivered" is I-TCP's
    /// semantic cost (Bakre and Badrinath discuss this loss of end-to-end
    /// semantics): per direction, the bytes the proxy has received in order
    /// from the sending host, and so acknowledged to it (or is about to,
    /// under delayed ACK), less the bytes the receiving host acknowledged
    /// to the proxy. Summed over both directions.
    pub fn tally(&self) -> Tally {
        let (a, b) = (self.a.stats(), self.b.stats());
        Tally {
            from_initiator: a.bytes_delivered,
            acked_by_destination: b.bytes_acked,
            acked_not_delivered: a.bytes_delivered.saturating_sub(b.bytes_acked)
                + b.bytes_delivered.saturating_sub(a.bytes_acked),
            relayed_now: self.relayed(0) + self.relayed(1),
        }
    }
}
