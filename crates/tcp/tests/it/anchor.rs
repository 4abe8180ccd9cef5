//! A miniature of the ns-3 anchor scenario (../shared/anchors/ns3/README.md):
//! sender --10 Mb/s, 10 ms-- router --2 Mb/s, 1 ms-- receiver, a 50-packet
//! DropTail queue (+1 frame in transmission) on every device in both
//! directions, frame = IP length + 2 bytes of PPP, uniform loss of data frames
//! arriving at the receiver after they used the link.
//!
//! Two uses:
//! * `anchor_ns3_newreno_ten_seeds`: 10 seeds × 60 s per loss rate with the
//!   ns-3-faithful settings ([`ns3_cfg`]); the mean goodput must be within
//!   ±10 % of ns-3 3.44's 10-seed means (≈4 s in a debug build, 0.2 s in
//!   release; `--nocapture` prints goodput, retransmissions and RTOs).
//! * `anchor_other_modules_report` (ignored): Linux Cubic/Veno/Westwood on
//!   the Linux endpoint against ns-3's own modules, report only.
//! * `anchor_trace` (ignored): replays a list of dropped arrival indices
//!   recorded from ns-3 (`ANCHOR_DROPS=file`) and writes a trace in the same
//!   line format as the instrumented ns-3 twin (`ANCHOR_TRACE=file`), so the
//!   two senders can be diffed event by event until they first diverge.
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::fmt::Write as _;

use airtcp_core::{Duration, Instant, Packet, RngStream, Segment, SeqNum};
use airtcp_tcp::cc::CaState;
use airtcp_tcp::{Endpoint, Event, TcpConfig};

/// A point-to-point device + channel: FIFO, `limit` frames waiting plus the
/// one in transmission (ns-3 PointToPointNetDevice with a DropTail queue).
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
        let frame = Packet::tcp([0; 4], [0; 4], 0, 0, *seg).ip_len() as u64 + 2; // + PPP
        let start = self.free_at.max(now);
        let end = start + Duration::transmission(frame * 8, self.rate_bps);
        self.free_at = end;
        self.starts.push_back(start);
        Some(end + self.prop)
    }
}

/// Which frames the receiver's device drops.
enum Loss {
    /// Each frame arriving at the receiver with probability p (ns-3
    /// RateErrorModel, ERROR_UNIT_PACKET, is the receiver device's error
    /// model: it also sees the SYN and the handshake ACK), from the RNG
    /// stream "anchor.loss".
    Uniform(f64),
    /// A pattern recorded from ns-3: the first `syn` SYNs are dropped, then
    /// the data frames at these indices (counted in order of arrival).
    Indices { syn: u64, data: Vec<u64> },
}

#[derive(Default, Debug, Clone, Copy)]
struct Outcome {
    goodput_mbps: f64,
    retx: u64,
    /// Transitions into Loss (ns-3's `rto_events`).
    rtos: u64,
    /// Retransmission timer expiries (also those while already in Loss).
    timeouts: u64,
    fast_recoveries: u64,
    drops: u64,
}

/// The ns-3 3.44 anchor configuration (bulk_lossy.cc + the ns-3 defaults it
/// keeps), with every ns-3-specific behaviour switched on.
fn ns3_cfg(cc: &str) -> TcpConfig {
    scenario_cfg(cc).with_ns3_behaviour()
}

/// The anchor's scenario parameters on the default (Linux/RFC) endpoint.
fn scenario_cfg(cc: &str) -> TcpConfig {
    TcpConfig {
        mss: 1000,
        initial_cwnd: 1,
        sack: false,
        timestamps: true,
        window_scaling: true,
        delack_count: 2,
        delack_timeout: Duration::from_millis(200),
        initial_rto: Duration::from_secs(1),
        min_rto: Duration::from_secs(1),
        max_rto: Duration::from_secs(60),
        clock_granularity: Duration::from_millis(1),
        rcv_buf: 131_072,
        snd_buf: 131_072,
        limited_transmit: true,
        cc: airtcp_tcp::CcAlgorithm::from_name(cc).expect("a built-in module"),
        ..TcpConfig::default()
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Hop {
    RouterFromSender,
    Receiver,
    RouterFromReceiver,
    Sender,
}

/// Runs one connection for `secs` seconds; `trace` receives ns-3-twin lines.
fn run(cfg: &TcpConfig, loss: Loss, seed: u64, secs: u64, mut trace: Option<&mut String>) -> Outcome {
    let iss = SeqNum(12345);
    let mut a = Endpoint::new(cfg.clone(), 49153, 9, iss).unwrap();
    let mut b = Endpoint::new(cfg.clone(), 9, 49153, SeqNum(777)).unwrap();
    b.listen();
    a.connect(Instant::ZERO);
    let mut rng = RngStream::new(seed, "anchor.loss");
    let (mut s_r, mut r_b, mut b_r, mut r_s) = (
        Link::new(10_000_000, 10, 50),
        Link::new(2_000_000, 1, 50),
        Link::new(2_000_000, 1, 50),
        Link::new(10_000_000, 10, 50),
    );
    let mut q: BinaryHeap<Reverse<(Instant, u64, Hop, usize)>> = BinaryHeap::new();
    let mut segs: Vec<Segment> = Vec::new();
    let mut order = 0u64;
    let end = Instant::from_secs(secs);
    let mut now = Instant::ZERO;
    let mut read = 0u64;
    let mut arrivals = 0u64;
    let mut out = Outcome::default();
    let (mut syn_drops, drop_idx, p) = match loss {
        Loss::Uniform(p) => (0, Vec::new(), p),
        Loss::Indices { syn, data } => (syn, data, 0.0),
    };
    let replay = p == 0.0;
    let mut next_drop = 0usize;
    let mut last = (0u32, 0u32);
    loop {
        // ns-3 BulkSendApplication writes SendSize (1000-byte) chunks and
        // waits when the 128 KiB send buffer cannot take a whole one.
        while a.send_capacity() >= 1000 {
            a.send(1000);
        }
        while let Some(s) = a.poll_transmit(now) {
            if let Some(t) = trace.as_deref_mut() {
                let _ = writeln!(t, "T {:.9} {} {}", now.as_secs_f64(), s.seq.0.wrapping_sub(iss.0), s.payload_len);
            }
            if let Some(t) = s_r.send(now, &s) {
                segs.push(s);
                order += 1;
                q.push(Reverse((t, order, Hop::RouterFromSender, segs.len() - 1)));
            }
        }
        // The sink reads as data arrives (ns-3 PacketSink reads inside the
        // receive callback, before the ACK is built).
        while let Some((_, n)) = b.recv(u64::MAX) {
            read += n;
        }
        while let Some(s) = b.poll_transmit(now) {
            if let Some(t) = trace.as_deref_mut() {
                let _ = writeln!(t, "K {:.9} {}", now.as_secs_f64(), s.ack.0.wrapping_sub(iss.0));
            }
            if let Some(t) = b_r.send(now, &s) {
                segs.push(s);
                order += 1;
                q.push(Reverse((t, order, Hop::RouterFromReceiver, segs.len() - 1)));
            }
        }
        while let Some(ev) = a.poll_event() {
            match ev {
                Event::CaStateChanged { to: CaState::Recovery, .. } => out.fast_recoveries += 1,
                // ns-3 counts RTO events as transitions into CA_LOSS.
                Event::CaStateChanged { to: CaState::Loss, .. } => out.rtos += 1,
                Event::CaStateChanged { from, to } => {
                    if let Some(t) = trace.as_deref_mut() {
                        let _ = writeln!(t, "G {:.9} {} {}", now.as_secs_f64(), from.name(), to.name());
                    }
                }
                _ => {}
            }
        }
        while b.poll_event().is_some() {}
        if let Some(t) = trace.as_deref_mut() {
            let pr = a.probe();
            if (pr.cwnd, pr.ssthresh) != last {
                let _ = writeln!(t, "C {:.9} {} {}", now.as_secs_f64(), pr.cwnd as u64 * 1000, pr.ssthresh as u64 * 1000);
                last = (pr.cwnd, pr.ssthresh);
            }
        }
        let next = [q.peek().map(|r| r.0 .0), a.poll_timeout(), b.poll_timeout()].into_iter().flatten().min();
        let Some(t) = next else { break };
        if t > end {
            break;
        }
        now = t;
        if q.peek().is_some_and(|r| r.0 .0 == t) {
            let Reverse((_, _, hop, i)) = q.pop().unwrap();
            let s = segs[i];
            match hop {
                Hop::RouterFromSender => {
                    if let Some(t2) = r_b.send(now, &s) {
                        order += 1;
                        q.push(Reverse((t2, order, Hop::Receiver, i)));
                    }
                }
                Hop::Receiver => {
                    let idx = arrivals;
                    arrivals += (s.payload_len > 0) as u64;
                    let dropped = if !replay {
                        rng.bernoulli(p)
                    } else if s.flags.syn() {
                        let d = syn_drops > 0;
                        syn_drops = syn_drops.saturating_sub(1);
                        d
                    } else if s.payload_len == 0 {
                        false
                    } else if drop_idx.get(next_drop) == Some(&idx) {
                        next_drop += 1;
                        true
                    } else {
                        false
                    };
                    if dropped {
                        out.drops += 1;
                    } else {
                        b.handle_segment(now, &s);
                    }
                }
                Hop::RouterFromReceiver => {
                    if let Some(t2) = r_s.send(now, &s) {
                        order += 1;
                        q.push(Reverse((t2, order, Hop::Sender, i)));
                    }
                }
                Hop::Sender => {
                    if let Some(t) = trace.as_deref_mut() {
                        let _ = writeln!(t, "R {:.9} {}", now.as_secs_f64(), s.ack.0.wrapping_sub(iss.0));
                    }
                    a.handle_segment(now, &s)
                }
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
    out.goodput_mbps = read as f64 * 8.0 / secs as f64 / 1e6;
    out.retx = st.retransmissions;
    out.timeouts = st.timeouts;
    out
}

/// Mean over seeds 1..=n.
fn mean(cfg: &TcpConfig, loss: f64, seeds: u64, secs: u64) -> Outcome {
    let mut m = Outcome::default();
    for seed in 1..=seeds {
        let o = run(cfg, Loss::Uniform(loss), seed, secs, None);
        m.goodput_mbps += o.goodput_mbps;
        m.retx += o.retx;
        m.rtos += o.rtos;
        m.fast_recoveries += o.fast_recoveries;
        m.drops += o.drops;
    }
    m.goodput_mbps /= seeds as f64;
    m
}

/// ns-3 3.44 10-seed means (results_seeds.jsonl): (loss, goodput Mb/s, retx, RTOs).
const NS3_NEWRENO: [Ns3Row; 4] =
    [(0.0, 1.884, 34.0, 0.0), (0.001, 1.882, 42.0, 0.0), (0.01, 1.593, 132.0, 0.9), (0.05, 0.528, 233.0, 15.6)];

fn check(cc: &str, table: &[Ns3Row], seeds: u64) {
    let cfg = ns3_cfg(cc);
    let mut report = String::new();
    let mut bad = Vec::new();
    for &(loss, want, retx, rtos) in table {
        let m = mean(&cfg, loss, seeds, 60);
        let n = seeds as f64;
        let err = (m.goodput_mbps - want) / want;
        let _ = writeln!(
            report,
            "{cc} loss {loss:<5}: goodput {:.3} (ns-3 {want:.3}, {:+.1}%)  retx {:.0} (ns-3 {retx:.0})  RTOs {:.1} (ns-3 {rtos:.1})  fast rec. {:.0}  drops {:.0}",
            m.goodput_mbps,
            err * 100.0,
            m.retx as f64 / n,
            m.rtos as f64 / n,
            m.fast_recoveries as f64 / n,
            m.drops as f64 / n,
        );
        if err.abs() > 0.10 {
            bad.push(loss);
        }
    }
    eprint!("{report}");
    assert!(bad.is_empty(), "goodput off by more than 10% at loss {bad:?}\n{report}");
}

#[test]
fn anchor_ns3_newreno_smoke() {
    // One seed at the two loss rates that exercise recovery and RTOs; cheap
    // enough for a debug build. Bounds are wider than the 10-seed check.
    let cfg = ns3_cfg("newreno");
    let lossless = run(&cfg, Loss::Uniform(0.0), 1, 20, None);
    assert!(lossless.goodput_mbps > 1.80, "{lossless:?}");
    assert_eq!(lossless.rtos, 0);
    let lossy = run(&cfg, Loss::Uniform(0.05), 1, 20, None);
    assert!(lossy.rtos > 0, "{lossy:?}");
    assert!(lossy.goodput_mbps > 0.3 && lossy.goodput_mbps < 0.9, "{lossy:?}");
}

#[test]
fn anchor_ns3_newreno_ten_seeds() {
    check("newreno", &NS3_NEWRENO, 10);
}

/// ns-3 3.44 10-seed means for the other modules (results_seeds.jsonl). ns-3
/// runs its own Cubic/Veno/Westwood+ (NewReno subclasses for the latter two);
/// ours are the Linux modules on the Linux-default endpoint (only the
/// scenario's MSS, IW, SACK, timers and buffers taken from ns-3), so this
/// only reports.
type Ns3Row = (f64, f64, f64, f64);
const NS3_OTHERS: [(&str, [Ns3Row; 4]); 3] = [
    ("cubic", [(0.0, 1.864, 115.0, 0.0), (0.001, 1.863, 181.0, 0.1), (0.01, 1.793, 366.0, 2.0), (0.05, 0.956, 1281.0, 15.2)]),
    ("veno", [(0.0, 1.884, 34.0, 0.0), (0.001, 1.882, 42.0, 0.0), (0.01, 1.584, 131.0, 1.3), (0.05, 0.569, 264.0, 15.3)]),
    ("westwood", [(0.0, 1.871, 33.0, 0.0), (0.001, 1.866, 42.0, 0.0), (0.01, 1.760, 143.0, 1.2), (0.05, 0.949, 529.0, 15.7)]),
];

#[test]
#[ignore = "report only: Linux modules against ns-3's own implementations"]
fn anchor_other_modules_report() {
    for (cc, table) in NS3_OTHERS {
        let cfg = TcpConfig { initial_quickacks: 1, syn_rto: Some(Duration::from_secs(3)), ..scenario_cfg(cc) };
        for (loss, want, retx, rtos) in table {
            let m = mean(&cfg, loss, 10, 60);
            eprintln!(
                "{cc} loss {loss:<5}: goodput {:.3} (ns-3 {want:.3}, {:+.1}%)  retx {:.0} (ns-3 {retx:.0})  RTOs {:.1} (ns-3 {rtos:.1})",
                m.goodput_mbps,
                (m.goodput_mbps - want) / want * 100.0,
                m.retx as f64 / 10.0,
                m.rtos as f64 / 10.0
            );
        }
    }
}

/// Replays an ns-3 drop pattern and writes a trace to diff against ns-3's.
#[test]
#[ignore = "diagnosis tool: ANCHOR_DROPS=<file of arrival indices> ANCHOR_TRACE=<out>"]
fn anchor_trace() {
    let drops = std::env::var("ANCHOR_DROPS").expect("ANCHOR_DROPS");
    let out = std::env::var("ANCHOR_TRACE").expect("ANCHOR_TRACE");
    let cc = std::env::var("ANCHOR_CC").unwrap_or_else(|_| "newreno".into());
    let secs = std::env::var("ANCHOR_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(60);
    let text = std::fs::read_to_string(drops).unwrap();
    let syn = text.split_whitespace().filter(|w| *w == "syn").count() as u64;
    let data = text.split_whitespace().filter(|w| *w != "syn").map(|w| w.parse().unwrap()).collect();
    let mut trace = String::new();
    let o = run(&ns3_cfg(&cc), Loss::Indices { syn, data }, 1, secs, Some(&mut trace));
    std::fs::write(out, trace).unwrap();
    eprintln!("{o:?}");
}

