//! Shared harness: a sender or receiver driven by hand-written peer
//! segments, and a two-endpoint "wire" with a fixed one-way delay.
#![allow(dead_code)]

use std::collections::VecDeque;

use airtcp_core::{Duration, Instant, Segment, SeqNum, TcpFlags};
use airtcp_tcp::endpoint::TimerKind;
use airtcp_tcp::{Endpoint, Event, TcpConfig};

pub const ISS: u32 = 1_000;
pub const PEER_ISS: u32 = 5_000;
pub const LOCAL: u16 = 40_000;
pub const REMOTE: u16 = 80;

pub fn ms(x: u64) -> Instant {
    Instant::from_millis(x)
}
pub fn dms(x: u64) -> Duration {
    Duration::from_millis(x)
}

/// Plain config: MSS 1000, no SACK / timestamps / window scaling, so window
/// fields are bytes and segments are easy to write by hand.
pub fn plain() -> TcpConfig {
    TcpConfig {
        mss: 1000,
        initial_cwnd: 10,
        sack: false,
        timestamps: false,
        window_scaling: false,
        rcv_buf: 65_535,
        snd_buf: 1 << 20,
        ..Default::default()
    }
}

/// The template of a segment from the peer to the endpoint under test.
pub fn from_peer() -> Segment {
    Segment {
        src_port: REMOTE,
        dst_port: LOCAL,
        seq: SeqNum(PEER_ISS + 1),
        ack: SeqNum(ISS + 1),
        flags: TcpFlags::ACK,
        window: 65_535,
        ..Default::default()
    }
}

/// Sequence number of stream byte `off` sent by the endpoint under test.
pub fn our_seq(off: u64) -> SeqNum {
    SeqNum(ISS) + 1 + off as u32
}
/// Stream offset of a segment sent by the endpoint under test.
pub fn our_off(seg: &Segment) -> u64 {
    (seg.seq - SeqNum(ISS + 1)) as u64
}
/// Sequence number of stream byte `off` sent by the peer.
pub fn peer_seq(off: u64) -> SeqNum {
    SeqNum(PEER_ISS) + 1 + off as u32
}

pub fn drain(ep: &mut Endpoint, now: Instant) -> Vec<Segment> {
    let mut v = Vec::new();
    while let Some(s) = ep.poll_transmit(now) {
        v.push(s);
        assert!(v.len() < 10_000, "poll_transmit does not stop");
    }
    v
}

pub fn events(ep: &mut Endpoint) -> Vec<Event> {
    let mut v = Vec::new();
    while let Some(e) = ep.poll_event() {
        v.push(e);
    }
    v
}

/// An active opener whose SYN was answered after `rtt` by a SYN-ACK with
/// the options the SYN offered (peer MSS 1000, raw window `win`, peer shift 0).
pub fn established_with(cfg: TcpConfig, rtt: Duration, win: u16) -> (Endpoint, Instant) {
    let mut ep = Endpoint::new(cfg, LOCAL, REMOTE, SeqNum(ISS)).unwrap();
    ep.connect(ms(0));
    let syn = ep.poll_transmit(ms(0)).expect("SYN");
    assert!(syn.flags.syn());
    let now = Instant::ZERO + rtt;
    let synack = Segment {
        seq: SeqNum(PEER_ISS),
        ack: syn.seq + 1,
        flags: TcpFlags::SYN | TcpFlags::ACK,
        window: win,
        mss: Some(1000),
        wscale: syn.wscale.map(|_| 0),
        sack_permitted: syn.sack_permitted,
        timestamps: syn.timestamps.map(|(v, _)| (7, v)),
        ..from_peer()
    };
    ep.handle_segment(now, &synack);
    let ack = ep.poll_transmit(now).expect("ACK of SYN-ACK");
    assert_eq!(ack.flags, TcpFlags::ACK);
    events(&mut ep);
    (ep, now)
}

pub fn established(cfg: TcpConfig) -> (Endpoint, Instant) {
    established_with(cfg, dms(100), 65_535)
}

/// Peer ACK of `acked` stream bytes with raw window `win`.
pub fn ack(ep: &mut Endpoint, now: Instant, acked: u64, win: u16) {
    let seg = Segment { ack: our_seq(acked), window: win, ..from_peer() };
    ep.handle_segment(now, &seg);
}

/// Peer ACK with SACK blocks given as stream-offset ranges.
pub fn sack(ep: &mut Endpoint, now: Instant, acked: u64, blocks: &[(u64, u64)]) {
    let mut seg = Segment { ack: our_seq(acked), ..from_peer() };
    for &(l, r) in blocks {
        seg.push_sack(our_seq(l), our_seq(r));
    }
    ep.handle_segment(now, &seg);
}

/// The peer's SYN (MSS 1000), the template of a passive open.
pub fn peer_syn() -> Segment {
    Segment { seq: SeqNum(PEER_ISS), ack: SeqNum(0), flags: TcpFlags::SYN, mss: Some(1000), ..from_peer() }
}

/// A passive open: `syn` arrives at 0, the peer's ACK of our SYN-ACK
/// (`ack`, made from the SYN-ACK) at `ack_at`. Returns the endpoint and
/// the SYN-ACK it sent.
pub fn passive_open(cfg: TcpConfig, syn: &Segment, ack_at: Instant, ack: impl FnOnce(&Segment) -> Segment) -> (Endpoint, Segment) {
    let mut ep = Endpoint::new(cfg, LOCAL, REMOTE, SeqNum(ISS)).unwrap();
    ep.listen();
    ep.handle_segment(ms(0), syn);
    let synack = ep.poll_transmit(ms(0)).expect("SYN-ACK");
    assert_eq!(synack.flags, TcpFlags::SYN | TcpFlags::ACK);
    ep.handle_segment(ack_at, &ack(&synack));
    events(&mut ep);
    (ep, synack)
}

/// A passive opener that has completed the handshake with a hand-driven peer.
pub fn established_receiver(cfg: TcpConfig) -> (Endpoint, Instant) {
    let (ep, _) = passive_open(cfg, &peer_syn(), ms(10), |_| from_peer());
    (ep, ms(10))
}

/// Peer data segment: stream bytes [off, off+len).
pub fn data(ep: &mut Endpoint, now: Instant, off: u64, len: u32) {
    let seg = Segment { seq: peer_seq(off), payload_len: len, ..from_peer() };
    ep.handle_segment(now, &seg);
}

/// Runs the earliest due timer, returning its time.
pub fn fire(ep: &mut Endpoint) -> Instant {
    let t = ep.poll_timeout().expect("a timer is armed");
    ep.handle_timeout(t);
    t
}

pub fn timer(ep: &Endpoint, k: TimerKind) -> Option<Instant> {
    ep.timer(k)
}

pub type DropFn = Box<dyn FnMut(u64, &Segment) -> bool>;

/// Two endpoints joined by a wire with a fixed one-way delay. `drop` decides
/// per segment (index in direction a->b counting data segments) whether the
/// wire loses it.
pub struct Wire {
    pub a: Endpoint,
    pub b: Endpoint,
    pub now: Instant,
    pub delay: Duration,
    /// (arrival, to_b, segment)
    pub q: VecDeque<(Instant, bool, Segment)>,
    pub a_to_b_data: u64,
    pub drop_a_to_b: DropFn,
    /// Bytes the receiver read, checked to be contiguous.
    pub b_read: u64,
    pub a_read: u64,
    pub b_events: Vec<Event>,
    pub a_events: Vec<Event>,
    /// Receiver reads everything at once when true.
    pub b_reads: bool,
}

impl Wire {
    pub fn new(a: Endpoint, b: Endpoint, delay: Duration) -> Self {
        Wire {
            a,
            b,
            now: Instant::ZERO,
            delay,
            q: VecDeque::new(),
            a_to_b_data: 0,
            drop_a_to_b: Box::new(|_, _| false),
            b_read: 0,
            a_read: 0,
            b_events: Vec::new(),
            a_events: Vec::new(),
            b_reads: true,
        }
    }

    fn pump(&mut self) {
        while let Some(s) = self.a.poll_transmit(self.now) {
            let lose = if s.payload_len > 0 {
                let i = self.a_to_b_data;
                self.a_to_b_data += 1;
                (self.drop_a_to_b)(i, &s)
            } else {
                false
            };
            if !lose {
                self.q.push_back((self.now + self.delay, true, s));
            }
        }
        while let Some(s) = self.b.poll_transmit(self.now) {
            self.q.push_back((self.now + self.delay, false, s));
        }
        while let Some(e) = self.b.poll_event() {
            self.b_events.push(e);
        }
        while let Some(e) = self.a.poll_event() {
            self.a_events.push(e);
        }
        if self.b_reads {
            while let Some((off, n)) = self.b.recv(u64::MAX) {
                assert_eq!(off, self.b_read, "receiver read out of order");
                self.b_read += n;
            }
        }
        while let Some((off, n)) = self.a.recv(u64::MAX) {
            assert_eq!(off, self.a_read);
            self.a_read += n;
        }
    }

    /// Runs until `until` or until nothing is left to do.
    pub fn run_until(&mut self, until: Instant) {
        let mut steps = 0u64;
        loop {
            self.pump();
            let next_q = self.q.front().map(|x| x.0);
            let next = [next_q, self.a.poll_timeout(), self.b.poll_timeout()].into_iter().flatten().min();
            let Some(t) = next else { break };
            if t > until {
                break;
            }
            self.now = t;
            while self.q.front().is_some_and(|x| x.0 <= t) {
                let (_, to_b, s) = self.q.pop_front().unwrap();
                if to_b {
                    self.b.handle_segment(t, &s);
                } else {
                    self.a.handle_segment(t, &s);
                }
            }
            if self.a.poll_timeout().is_some_and(|x| x <= t) {
                self.a.handle_timeout(t);
            }
            if self.b.poll_timeout().is_some_and(|x| x <= t) {
                self.b.handle_timeout(t);
            }
            steps += 1;
            assert!(steps < 10_000_000, "wire does not settle");
        }
        self.now = self.now.max(until);
    }
}

pub fn pair(cfg_a: TcpConfig, cfg_b: TcpConfig, a_iss: u32, b_iss: u32, delay: Duration) -> Wire {
    let mut a = Endpoint::new(cfg_a, LOCAL, REMOTE, SeqNum(a_iss)).unwrap();
    let mut b = Endpoint::new(cfg_b, REMOTE, LOCAL, SeqNum(b_iss)).unwrap();
    b.listen();
    a.connect(Instant::ZERO);
    Wire::new(a, b, delay)
}
