//! A miniature of the ns-3 anchor scenario (../shared/anchors/ns3/README.md)
//! built from FIFO links computed at enqueue time: sender --10 Mb/s 10 ms--
//! router --2 Mb/s 1 ms (50-packet DropTail)-- receiver, uniform loss of data
//! frames at the receiver. It checks the endpoint's recovery/RTO/delayed-ACK
//! paths produce goodput in the neighbourhood of ns-3 3.44; the simulator
//! proper owns the ±10 % validation.
mod common;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use airtcp_core::{Duration, Instant, Packet, RngStream, Segment, SeqNum};
use airtcp_tcp::cc::{CongestionControl, CongestionOps, TcpSock};
use airtcp_tcp::{Endpoint, Recovery, TcpConfig};

/// ns-3 3.44 TcpNewReno: slow start by segments acked, congestion avoidance
/// +1/cwnd per ACK (not per segment), no cwnd-limited check, ssthresh from
/// bytes in flight.
struct Ns3NewReno;
impl CongestionOps for Ns3NewReno {
    fn name(&self) -> &'static str {
        "ns3-newreno"
    }
    fn ssthresh(&mut self, tp: &mut TcpSock) -> u32 {
        (tp.packets_in_flight() / 2).max(2)
    }
    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u32, mut acked: u32) {
        if tp.snd_cwnd < tp.snd_ssthresh {
            let c = (tp.snd_cwnd + acked).min(tp.snd_ssthresh);
            acked -= c - tp.snd_cwnd;
            tp.snd_cwnd = c;
        }
        if tp.snd_cwnd >= tp.snd_ssthresh && acked > 0 {
            tp.snd_cwnd_cnt += 1;
            if tp.snd_cwnd_cnt >= tp.snd_cwnd {
                tp.snd_cwnd_cnt = 0;
                tp.snd_cwnd += 1;
            }
        }
    }
    fn undo_cwnd(&mut self, tp: &mut TcpSock) -> u32 {
        tp.snd_cwnd
    }
}

struct Link {
    rate_bps: u64,
    prop: Duration,
    free_at: Instant,
    /// Transmission start times of accepted frames (to count the queue).
    starts: VecDeque<Instant>,
    limit: usize,
}

impl Link {
    fn new(rate_bps: u64, prop_ms: u64, limit: usize) -> Self {
        Link { rate_bps, prop: Duration::from_millis(prop_ms), free_at: Instant::ZERO, starts: VecDeque::new(), limit }
    }
    /// Arrival time at the far end, or None when DropTail drops the frame.
    fn send(&mut self, now: Instant, seg: &Segment) -> Option<Instant> {
        while self.starts.front().is_some_and(|&s| s <= now) {
            self.starts.pop_front();
        }
        if self.starts.len() >= self.limit {
            return None;
        }
        let frame = Packet { seg: *seg, ..Default::default() }.ip_len() as u64 + 2; // + PPP
        let start = self.free_at.max(now);
        let end = start + Duration::transmission(frame * 8, self.rate_bps);
        self.free_at = end;
        self.starts.push_back(start);
        Some(end + self.prop)
    }
}

fn anchor_cfg() -> TcpConfig {
    TcpConfig {
        mss: 1000,
        initial_cwnd: 1,
        sack: false,
        timestamps: true,
        window_scaling: true,
        delack_count: 2,
        delack_timeout: Duration::from_millis(200),
        min_rto: Duration::from_secs(1),
        rcv_buf: 131_072,
        snd_buf: 131_072,
        recovery: Recovery::Prr,
        cc: "newreno".into(),
        ..TcpConfig::default()
    }
}

/// Returns goodput in Mb/s over `secs` seconds.
fn run(loss: f64, seed: u64, secs: u64, ns3_style: bool) -> (f64, u64, u64) {
    let mut a = Endpoint::new(anchor_cfg(), 49153, 9, SeqNum(12345)).unwrap();
    let mut b = Endpoint::new(anchor_cfg(), 9, 49153, SeqNum(777)).unwrap();
    if ns3_style {
        a.set_congestion_control(CongestionControl::Custom(Box::new(Ns3NewReno)));
    }
    b.listen();
    a.connect(Instant::ZERO);
    let mut rng = RngStream::new(seed, "anchor.loss");
    let (mut s_r, mut r_b, mut b_r, mut r_s) =
        (Link::new(10_000_000, 10, 50), Link::new(2_000_000, 1, 50), Link::new(2_000_000, 1, 50), Link::new(10_000_000, 10, 50));
    // (time, order, hop, seg): hop 0 = at router from sender, 1 = at receiver,
    // 2 = at router from receiver, 3 = at sender.
    let mut q: BinaryHeap<Reverse<(Instant, u64, u8, SegKey)>> = BinaryHeap::new();
    let mut segs: Vec<Segment> = Vec::new();
    let mut order = 0u64;
    let end = Instant::from_secs(secs);
    let mut now = Instant::ZERO;
    let mut read = 0u64;
    loop {
        a.send(u64::MAX);
        while let Some(s) = a.poll_transmit(now) {
            if let Some(t) = s_r.send(now, &s) {
                segs.push(s);
                order += 1;
                q.push(Reverse((t, order, 0, SegKey(segs.len() - 1))));
            }
        }
        while let Some(s) = b.poll_transmit(now) {
            if let Some(t) = b_r.send(now, &s) {
                segs.push(s);
                order += 1;
                q.push(Reverse((t, order, 2, SegKey(segs.len() - 1))));
            }
        }
        while let Some((_, n)) = b.recv(u64::MAX) {
            read += n;
        }
        while a.poll_event().is_some() {}
        while b.poll_event().is_some() {}
        let next = [q.peek().map(|r| r.0 .0), a.poll_timeout(), b.poll_timeout()].into_iter().flatten().min();
        let Some(t) = next else { break };
        if t > end {
            break;
        }
        now = t;
        if q.peek().is_some_and(|r| r.0 .0 == t) {
            let Reverse((_, _, hop, SegKey(i))) = q.pop().unwrap();
            let s = segs[i];
            match hop {
                0 => {
                    if let Some(t2) = r_b.send(now, &s) {
                        order += 1;
                        q.push(Reverse((t2, order, 1, SegKey(i))));
                    }
                }
                1 => {
                    if !(s.payload_len > 0 && rng.bernoulli(loss)) {
                        b.handle_segment(now, &s);
                    }
                }
                2 => {
                    if let Some(t2) = r_s.send(now, &s) {
                        order += 1;
                        q.push(Reverse((t2, order, 3, SegKey(i))));
                    }
                }
                _ => a.handle_segment(now, &s),
            }
            continue;
        }
        if a.poll_timeout().is_some_and(|x| x <= now) {
            a.handle_timeout(now);
        }
        if b.poll_timeout().is_some_and(|x| x <= now) {
            b.handle_timeout(now);
        }
    }
    let st = a.stats();
    (read as f64 * 8.0 / secs as f64 / 1e6, st.retransmissions, st.timeouts)
}

const NS3_STYLE: bool = true;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct SegKey(usize);

#[test]
fn anchor_goodput_in_ns3_neighbourhood() {
    // ns-3 3.44 10-seed means: 1.884, 1.882, 1.593, 0.528 Mb/s.
    let ns3 = [(0.0, 1.884), (0.001, 1.882), (0.01, 1.593), (0.05, 0.528)];
    let mut report = String::new();
    for (loss, want) in ns3 {
        let seeds = if loss == 0.0 { 1 } else { 4 };
        let mut sum = 0.0;
        let (mut retx, mut rto) = (0, 0);
        for seed in 0..seeds {
            let (g, r, t) = run(loss, seed + 1, 60, NS3_STYLE);
            sum += g;
            retx += r;
            rto += t;
        }
        let g = sum / seeds as f64;
        report += &format!("loss {loss}: {g:.3} Mb/s (ns-3 {want}), retx/run {}, rto/run {}\n", retx / seeds, rto / seeds);
        assert!((g - want).abs() / want < 0.25, "{report}");
    }
    eprintln!("{report}");
}
