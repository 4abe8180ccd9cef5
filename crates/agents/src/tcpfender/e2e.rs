//! An unmodified TCP over TCPFender and MORE, end to end, without the
//! simulator: TCP sender and sender module at S, a MORE forwarder at R, the
//! receiver module and TCP receiver at D, on the lossy line of the MORE
//! tests (S→R 0.7, R→D 0.6, S→D 0.1). Coded frames share one broadcast
//! medium, one frame per slot, the forwarder and the source taking turns;
//! ACKs and TCP control packets travel back (and SYN/FIN forth) on a
//! reliable path with a fixed delay, standing in for unicast with 802.11 ARQ.

use std::collections::BTreeMap;

use airtcp_coding::Symbol;
use airtcp_core::{Coded, Duration, Instant, Packet, RngStream};
use airtcp_tcp::{Endpoint, Event, TcpConfig};

use super::{FenderConfig, FenderReceiver, FenderSender, Release};
use crate::more::{ForwarderPlan, LinkProbs, MoreConfig, MoreForwarder, PlanConfig};

const S: usize = 0;
const R: usize = 1;
const D: usize = 2;
const SLOT: Duration = Duration::from_millis(2);
const BACK_DELAY: Duration = Duration::from_millis(10);

enum Back {
    /// A TCP packet on the reliable path, to the node given.
    Tcp(usize, Packet),
    /// A receiver-module ACK, seen by R on its way to S.
    Fender(Coded),
}

struct Run {
    delivered: u64,
    /// When the last byte reached the receiving application.
    finished: Instant,
    counters: Vec<(&'static str, u64)>,
    timeouts: u32,
    fast_retransmits: u32,
}

fn run(bytes: u64, symbol_len: usize, seed: u64) -> Run {
    let mut links = LinkProbs::new(3);
    links.set_symmetric(S, R, 0.7).unwrap();
    links.set_symmetric(R, D, 0.6).unwrap();
    links.set_symmetric(S, D, 0.1).unwrap();
    let plan = ForwarderPlan::compute(&links, S, D, &PlanConfig::default()).unwrap();
    let fc = FenderConfig { beta: 50, symbol_len, max_batches: 4, z_src: plan.z(S) };
    let mc = MoreConfig { beta: 50, symbol_len, max_batches: 4 };
    let mut snd = FenderSender::new(1, fc, RngStream::new(seed, "S.fender")).unwrap();
    let mut fwd = MoreForwarder::new(1, R, &plan, mc, RngStream::new(seed, "R.more")).unwrap();
    let mut rcv = FenderReceiver::new(1, fc).unwrap();
    let mut channel = RngStream::new(seed, "channel");
    let tcp = TcpConfig { sack: false, ..TcpConfig::default() };
    let mut ep = [Endpoint::new(tcp.clone(), 40000, 80, airtcp_core::SeqNum(1000)).unwrap(), Endpoint::new(tcp, 80, 40000, airtcp_core::SeqNum(9000)).unwrap()];
    let addr = [[10, 0, 0, 1], [10, 0, 0, 3]];
    let (mut now, mut written, mut delivered) = (Instant::ZERO, 0u64, 0u64);
    let (mut timeouts, mut fast_retransmits) = (0, 0);
    let mut back: BTreeMap<(Instant, u64), Back> = BTreeMap::new();
    let mut seq = 0u64;
    let mut out = Symbol::new(50, symbol_len);
    ep[1].listen();
    ep[0].connect(now);
    let mut turn = 0;
    let mut connected = false;
    while delivered < bytes && now < Instant::from_secs(120) {
        // Arrivals on the reliable path.
        while let Some(e) = back.first_entry().filter(|e| e.key().0 <= now) {
            match e.remove() {
                Back::Tcp(0, p) => {
                    if snd.on_tcp_ack(&p) {
                        ep[0].handle_segment(now, p.segment().unwrap());
                    }
                }
                Back::Tcp(_, p) => ep[1].handle_segment(now, p.segment().unwrap()),
                Back::Fender(a) => {
                    fwd.handle_ack(&a).unwrap();
                    if let Some(p) = snd.on_fender_ack(&a).unwrap() {
                        ep[0].handle_segment(now, p.segment().unwrap());
                    }
                }
            }
        }
        for (i, e) in ep.iter_mut().enumerate() {
            if e.poll_timeout().is_some_and(|t| t <= now) {
                e.handle_timeout(now);
            }
            while let Some(ev) = e.poll_event() {
                match ev {
                    Event::Timeout { .. } if i == 0 => timeouts += 1,
                    Event::FastRetransmit { .. } => fast_retransmits += 1,
                    Event::Connected if i == 0 => connected = true,
                    _ => {}
                }
            }
            if i == 0 && connected && written < bytes {
                written += e.send(bytes - written);
                if written == bytes {
                    e.close();
                }
            }
            while let Some((_, n)) = e.recv(u64::MAX) {
                delivered += n;
            }
            while let Some(seg) = e.poll_transmit(now) {
                let p = Packet::tcp(addr[i], addr[1 - i], 64, 0, seg);
                let to_peer = i == 1 || snd.on_tcp_segment(&p).unwrap() == Release::PassThrough;
                if to_peer {
                    seq += 1;
                    back.insert((now + BACK_DELAY, seq), Back::Tcp(1 - i, p));
                }
            }
        }
        // One broadcast frame on the medium: R and S take turns.
        turn ^= 1;
        let frame = if turn == 0 { fwd.poll_transmit(&mut out).map(|c| (R, c)) } else { None }
            .or_else(|| snd.poll_transmit(&mut out).map(|c| (S, c)))
            .or_else(|| fwd.poll_transmit(&mut out).map(|c| (R, c)));
        if let Some((from, c)) = frame {
            let payload = (symbol_len > 0).then(|| out.payload.clone());
            if from == S && channel.bernoulli(links.get(S, R)) {
                fwd.handle_coded(S, &c, payload.as_deref()).unwrap();
            }
            if channel.bernoulli(links.get(from, D)) {
                let ack = rcv.on_coded(&c, payload.as_deref()).unwrap();
                seq += 1;
                back.insert((now + BACK_DELAY, seq), Back::Fender(ack));
                // A decoded batch reaches TCP segment by segment, the
                // receiver reading and answering as it goes (as a real
                // stack's input path would), so its window slides.
                while let Some(d) = rcv.poll_delivery() {
                    let p = d.packet.or_else(|| snd.native_packet(d.batch, d.index)).expect("the sender holds every batch not yet acknowledged");
                    ep[1].handle_segment(now, p.segment().unwrap());
                    while let Some((_, n)) = ep[1].recv(u64::MAX) {
                        delivered += n;
                    }
                    while let Some(seg) = ep[1].poll_transmit(now) {
                        seq += 1;
                        back.insert((now + BACK_DELAY, seq), Back::Tcp(0, Packet::tcp(addr[1], addr[0], 64, 0, seg)));
                    }
                }
            }
        }
        now += SLOT;
    }
    let mut counters: Vec<_> = snd.counters().to_vec();
    counters.extend(fwd.counters());
    counters.extend(rcv.counters());
    Run { delivered, finished: now, counters, timeouts, fast_retransmits }
}

fn counter(r: &Run, name: &str) -> u64 {
    r.counters.iter().find(|c| c.0 == name).map_or(0, |c| c.1)
}

#[test]
fn unmodified_tcp_completes_a_transfer_over_coded_opportunistic_forwarding() {
    // 173 segments of 1448 bytes: three whole batches and a final one of 23.
    let bytes = 250_000;
    let r = run(bytes, 0, 7);
    assert_eq!(r.delivered, bytes, "{:?}", r.counters);
    assert!(counter(&r, "batches_decoded") >= 4, "{:?}", r.counters);
    assert!(counter(&r, "innovative") > 0 && counter(&r, "coded_sent") > 0);
    assert!(r.finished < Instant::from_secs(30), "finished at {:?}", r.finished);
    let again = run(bytes, 0, 7);
    assert_eq!((again.finished, again.counters, again.timeouts, again.fast_retransmits), (r.finished, r.counters, r.timeouts, r.fast_retransmits), "deterministic");
}

#[test]
fn real_bytes_give_the_same_run_as_coefficients_only() {
    let bytes = 100_000;
    let coeffs = run(bytes, 0, 3);
    let real = run(bytes, 1600, 3);
    assert_eq!(real.delivered, bytes, "{:?}", real.counters);
    assert_eq!(real.counters, coeffs.counters, "carrying bytes changes nothing but the bytes");
}
