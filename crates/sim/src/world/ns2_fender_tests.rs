//! TCPFender's modules under ns-2's one-way agents (seed 002 ran ns-2):
//! what the modules need from the TCP is ACK numbers they can compute and
//! duplicate ACKs the sender reads as loss. ns-2's agents count packets
//! (the SYN is packet 0), the modules count natives and speak wire sequence
//! numbers; these tests drive `Ns2Host` (the agents behind their wire
//! mapping) through a `FenderSender` and `FenderReceiver` over a perfect
//! broadcast medium, losing the coded packets a test names.

use airtcp_agents::tcpfender::{FenderConfig, FenderReceiver, FenderSender, Release};
use airtcp_coding::Symbol;
use airtcp_core::{Coded, Duration, Instant, Packet, RngStream, SeqNum, Segment};
use airtcp_tcp::ns2::{Ns2Config, Ns2SinkKind, Ns2Variant};
use airtcp_tcp::Event;

use super::ns2host::Ns2Host;

const S_ADDR: [u8; 4] = [10, 0, 0, 1];
const D_ADDR: [u8; 4] = [10, 0, 0, 2];
const DATA_ISS: SeqNum = SeqNum(1000);
const ACK_ISS: SeqNum = SeqNum(5000);
/// A small batch so a test sees batches close.
const BETA: usize = 4;
/// Batches a 20-packet window can touch: ceil(19 / 4) + 1.
const DEPTH: usize = 6;
/// One step of the bench's clock (each pass of `pump`).
const TICK: Duration = Duration::from_millis(5);

struct Bench {
    snd: Ns2Host,
    sink: Ns2Host,
    fs: FenderSender,
    fr: FenderReceiver,
    now: Instant,
    out: Symbol,
    /// Coded packets broadcast so far (the index a test's loss rule sees).
    coded_sent: u32,
    /// What became of each data segment the agent pushed down.
    releases: Vec<Release>,
    fast_retransmits: Vec<SeqNum>,
    timeouts: u32,
}

fn bench() -> Bench {
    let cfg = Ns2Config::new(Ns2Variant::NewReno, Ns2SinkKind::TcpSink);
    let fc = FenderConfig { beta: BETA, symbol_len: 0, max_batches: DEPTH, z_src: 1.0 };
    let mut snd = Ns2Host::sender(cfg.clone(), 40000, 80, DATA_ISS, ACK_ISS).unwrap();
    snd.connect();
    // FTP's "send forever".
    snd.send(1_000_000);
    Bench {
        snd,
        sink: Ns2Host::sink(cfg, 80, 40000, DATA_ISS, ACK_ISS).unwrap(),
        fs: FenderSender::new(1, fc, RngStream::new(7, "S.fender")).unwrap(),
        fr: FenderReceiver::new(1, fc).unwrap(),
        now: Instant::ZERO,
        out: Symbol::new(BETA, 0),
        coded_sent: 0,
        releases: Vec::new(),
        fast_retransmits: Vec::new(),
        timeouts: 0,
    }
}

/// Wire sequence number of ns-2 packet `k` (packet 0 is the SYN).
fn wire(k: u32) -> SeqNum {
    DATA_ISS + 1 + (k - 1) * 1000
}

impl Bench {
    /// One pass: the agent's packets down through the sender module, coded
    /// packets across (unless `lose` says so) into the receiver module,
    /// decoded segments up to the sink, the sink's ACKs and the module's
    /// ACKs back to the agent.
    fn pump(&mut self, lose: &mut dyn FnMut(u32) -> bool) {
        self.now += TICK;
        let now = self.now;
        if self.snd.poll_timeout().is_some_and(|t| t <= now) {
            self.snd.handle_timeout(now);
        }
        let mut to_sink: Vec<Segment> = Vec::new();
        while let Some(seg) = self.snd.poll_transmit(now) {
            let pkt = Packet::tcp(S_ADDR, D_ADDR, 64, 0, seg);
            let r = self.fs.on_tcp_segment(&pkt);
            let held: Vec<u32> = self.fs.batches_held().collect();
            match r.unwrap_or_else(|e| panic!("{e:?} at {now:?}: seg {} batches held {held:?} snd_una {:?}", seg.seq.0, self.snd.probe().snd_una)) {
                Release::PassThrough => to_sink.push(seg),
                r => self.releases.push(r),
            }
        }
        let mut module_acks: Vec<Coded> = Vec::new();
        while let Some(c) = self.fs.poll_transmit(&mut self.out) {
            self.coded_sent += 1;
            if lose(self.coded_sent) {
                continue;
            }
            module_acks.push(self.fr.on_coded(&c, None).unwrap());
            while let Some(d) = self.fr.poll_delivery() {
                let p = self.fs.native_packet(d.batch, d.index).expect("held until acknowledged");
                to_sink.push(*p.segment().unwrap());
            }
        }
        // The receiver module answers a coded packet before it hands the
        // decoded segments up, so its ACKs travel back ahead of the sink's.
        for a in module_acks {
            if let Some(p) = self.fs.on_fender_ack(&a).unwrap() {
                self.snd.handle_segment(now, p.segment().unwrap());
            }
        }
        for seg in to_sink {
            self.sink.handle_segment(now, &seg);
        }
        while let Some(seg) = self.sink.poll_transmit(now) {
            let pkt = Packet::tcp(D_ADDR, S_ADDR, 64, 0, seg);
            if self.fs.on_tcp_ack(&pkt) {
                self.snd.handle_segment(now, &seg);
            }
        }
        while let Some(e) = self.snd.poll_event() {
            match e {
                Event::FastRetransmit { seq } => self.fast_retransmits.push(seq),
                Event::Timeout { .. } => self.timeouts += 1,
                _ => {}
            }
        }
    }

    fn run(&mut self, passes: usize, mut lose: impl FnMut(u32) -> bool) {
        for _ in 0..passes {
            self.pump(&mut lose);
        }
    }

    fn snd_una(&self) -> SeqNum {
        self.snd.probe().snd_una
    }

    fn delivered(&self) -> u64 {
        self.sink.probe().bytes_delivered
    }
}

#[test]
fn ns2_syn_passes_through_and_its_ack_is_the_modules_template() {
    let mut b = bench();
    b.run(1, |_| false);
    // Pass 1: the SYN went as IP, the sink answered it, and its ACK
    // reached the agent: nothing was coded.
    assert_eq!(b.snd_una(), wire(1));
    assert!(b.releases.is_empty());
    // Its window opened to windowInit_ 2: two data packets went to the
    // module as natives 0 and 1 of batch 0.
    b.run(1, |_| false);
    assert_eq!(
        b.releases,
        [Release::Coded { batch: 0, index: 0, retransmission: false }, Release::Coded { batch: 0, index: 1, retransmission: false }]
    );
}

#[test]
fn module_ack_of_n_natives_acknowledges_ns2_packet_n() {
    let mut b = bench();
    b.run(2, |_| false);
    // Each innovative coded packet drew a module ACK of "n natives
    // received", which the agent reads as packets 1..n (its SYN is packet
    // 0): after natives 0 and 1, snd_una is packet 3's first byte, before
    // any segment has reached the sink (batch 0 holds 4).
    assert_eq!(b.snd_una(), wire(3));
    assert_eq!(b.delivered(), 0);
    // ns-2 opens cwnd by one packet per new ACK in slow start: 2 -> 4.
    assert_eq!(b.snd.probe().cwnd, 4);
}

#[test]
fn decoded_batches_reach_the_ns2_sink_whole_and_its_acks_are_absorbed() {
    let mut b = bench();
    b.run(20, |_| false);
    let delivered = b.delivered();
    assert!(delivered >= 8 * 1000, "delivered {delivered}");
    assert_eq!(delivered % (BETA as u64 * 1000), 0, "whole batches only: {delivered}");
    assert!(b.fast_retransmits.is_empty() && b.timeouts == 0);
    let absorbed = b.fs.counters().iter().find(|c| c.0 == "receiver_acks_absorbed").unwrap().1;
    // The sink ACKs each decoded packet; the module had already said so.
    assert!(absorbed >= delivered / 1000 - 1, "{absorbed} sink ACKs absorbed of {delivered} bytes");
}

#[test]
fn lost_coded_packet_becomes_ns2_fast_retransmit_of_the_batch_tail() {
    let mut b = bench();
    // Coded packet 3 carries native 2 (packet 3) into batch 0 and is lost.
    b.run(40, |n| n == 3);
    // Ranks rise on every later packet of batch 0, so the agent is told
    // 3 packets arrived; batch 0 ends one degree of freedom short, and the
    // packets of batch 1 each draw the same ACK under a newer tag:
    // duplicate ACKs the module passes. ns-2 fast-retransmits packet 4
    // (native 3, not the one whose coded packet was lost: any packet of
    // the batch restores the rank), and the module mixes it back in.
    assert_eq!(b.fast_retransmits.first(), Some(&wire(4)), "{:?}", b.fast_retransmits);
    assert!(b.releases.contains(&Release::Coded { batch: 0, index: 3, retransmission: true }), "{:?}", b.releases);
    assert_eq!(b.timeouts, 0);
    // Batch 0 then decodes and everything after it flows.
    assert!(b.delivered() >= 3 * BETA as u64 * 1000, "delivered {}", b.delivered());
    let passed = b.fs.counters().iter().find(|c| c.0 == "dupacks_passed").unwrap().1;
    assert!(passed >= 3, "{passed} duplicate ACKs passed");
}
