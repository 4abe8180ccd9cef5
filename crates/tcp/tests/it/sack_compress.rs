//! SACK compression (`comp_sack_nr`, Linux `__tcp_ack_snd_check`): the
//! receiver ACKs the first three out-of-order segments after each advance of
//! RCV.NXT at once, holds the next ones for min(1 ms, RTT / 20) + 100 µs,
//! and sends them as one ACK, or with any earlier ACK.
use crate::common;
use common::*;

use airtcp_core::{Duration, Instant, Segment};
use airtcp_tcp::endpoint::TimerKind;
use airtcp_tcp::{profiles, Endpoint, TcpConfig};

/// A passive opener whose peer offered SACK and timestamps; the peer's
/// data echoes a TSval of ours `rtt_ms` old, so the receiver's own RTT
/// estimate (`tcp_rcv_rtt_measure_ts`) is `rtt_ms`.
struct Rcv {
    ep: Endpoint,
    /// Our TSval at time 0.
    ts0: u32,
    rtt_ms: u64,
}

fn receiver(comp_sack_nr: u32, rtt_ms: u64) -> (Rcv, Instant) {
    let cfg = TcpConfig { sack: true, timestamps: true, comp_sack_nr, ..plain() };
    let syn = Segment { sack_permitted: true, timestamps: Some((1, 0)), ..peer_syn() };
    // The ACK of our SYN-ACK echoes its TSval, our clock at 0.
    let echo = |synack: &Segment| Segment { timestamps: Some((2, synack.timestamps.expect("timestamps negotiated").0)), ..from_peer() };
    let (ep, synack) = passive_open(cfg, &syn, ms(rtt_ms), echo);
    let ts0 = synack.timestamps.unwrap().0;
    let now = ms(rtt_ms);
    assert!(ep.sack_enabled());
    (Rcv { ep, ts0, rtt_ms }, now)
}

/// Segment `i` (bytes i·1000 ..) arrives at `t`, echoing our TSval of
/// `rtt_ms` before; the ACKs sent then, as (cumulative ACK, highest SACKed
/// byte).
fn arrive(r: &mut Rcv, t: Instant, i: u64) -> Vec<(u64, u64)> {
    let ecr = r.ts0 + (t.as_millis() - r.rtt_ms) as u32;
    let seg = Segment { seq: peer_seq(i * 1000), payload_len: 1000, timestamps: Some((10 + i as u32, ecr)), ..from_peer() };
    r.ep.handle_segment(t, &seg);
    acks(&mut r.ep, t)
}

fn acks(ep: &mut Endpoint, t: Instant) -> Vec<(u64, u64)> {
    let base = peer_seq(0);
    drain(ep, t)
        .iter()
        .map(|a| ((a.ack - base) as u64, a.sacks().iter().map(|&(_, r)| (r - base) as u64).max().unwrap_or(0)))
        .collect()
}

/// Segment 0 in order (read, so its ACK waits), segment 1 lost, segments
/// 2..=6 arrive at `t`.
fn hole_then_five(r: &mut Rcv, t: Instant) -> Vec<Vec<(u64, u64)>> {
    arrive(r, t, 0);
    (2..=6).map(|i| arrive(r, t, i)).collect()
}

#[test]
fn fourth_and_later_out_of_order_acks_are_held() {
    let (mut r, now) = receiver(44, 40);
    let t = now + dms(10);
    let sent = hole_then_five(&mut r, t);
    assert_eq!(sent, vec![vec![(1000, 3000)], vec![(1000, 4000)], vec![(1000, 5000)], vec![], vec![]]);
    // min(1 ms, 40 ms / 20) + 100 µs.
    let due = r.ep.timer(TimerKind::CompressedAck).expect("held ACKs wait for the timer");
    assert_eq!(due, t + Duration::from_micros(1_100));
    r.ep.handle_timeout(due);
    assert_eq!(acks(&mut r.ep, due), vec![(1000, 7000)], "one ACK with every SACK block");
    assert_eq!(r.ep.stats().acks_compressed, 1, "two held, one sent");
}

#[test]
fn without_an_rtt_estimate_the_hold_is_the_slack_alone() {
    // Linux takes min(1 ms, rcv_rtt_est / 20), and the estimate is 0 until
    // the first measurement: an ACK of data with no echo measures nothing.
    let cfg = TcpConfig { sack: true, comp_sack_nr: 44, ..plain() };
    let syn = Segment { sack_permitted: true, ..peer_syn() };
    let (mut ep, _) = passive_open(cfg, &syn, ms(40), |_| from_peer());
    for i in [0, 2, 3, 4, 5] {
        data(&mut ep, ms(50), i * 1000, 1000);
    }
    assert_eq!(ep.timer(TimerKind::CompressedAck), Some(ms(50) + Duration::from_micros(100)));
}

#[test]
fn hold_is_five_percent_of_a_short_rtt() {
    let (mut r, now) = receiver(44, 10);
    let t = now + dms(10);
    hole_then_five(&mut r, t);
    // min(1 ms, 10 ms / 20) + 100 µs.
    assert_eq!(r.ep.timer(TimerKind::CompressedAck), Some(t + Duration::from_micros(600)));
}

#[test]
fn filling_the_hole_sends_the_held_acks_at_once() {
    let (mut r, now) = receiver(44, 40);
    let t = now + dms(10);
    hole_then_five(&mut r, t);
    assert_eq!(arrive(&mut r, t, 1), vec![(7000, 0)]);
    assert_eq!(r.ep.timer(TimerKind::CompressedAck), None);
    assert_eq!(r.ep.stats().acks_compressed, 2);
}

#[test]
fn partial_fill_restarts_the_three_acks_at_once() {
    let (mut r, now) = receiver(44, 40);
    let t = now + dms(10);
    arrive(&mut r, t, 0);
    // Holes at 1 and 3; 2, 4, 5, 6 arrive, then 1: RCV.NXT moves to 3000.
    for i in [2, 4, 5, 6] {
        arrive(&mut r, t, i);
    }
    assert_eq!(arrive(&mut r, t, 1), vec![(3000, 7000)], "RCV.NXT moved: at once");
    assert_eq!(arrive(&mut r, t, 7), vec![(3000, 8000)]);
    assert_eq!(arrive(&mut r, t, 8), vec![(3000, 9000)]);
    assert!(arrive(&mut r, t, 9).is_empty(), "the fourth since RCV.NXT moved is held");
}

#[test]
fn without_compression_every_out_of_order_segment_is_acked() {
    let (mut r, now) = receiver(0, 40);
    let sent = hole_then_five(&mut r, now + dms(10));
    assert!(sent.iter().all(|a| a.len() == 1), "{sent:?}");
    assert_eq!(r.ep.stats().acks_compressed, 0);
}

#[test]
fn compression_needs_sack() {
    let cfg = TcpConfig { comp_sack_nr: 44, ..plain() };
    let (mut ep, now) = established_receiver(cfg);
    let t = now + dms(10);
    data(&mut ep, t, 0, 1000);
    drain(&mut ep, t);
    for i in 2..=6 {
        data(&mut ep, t, i * 1000, 1000);
        assert_eq!(drain(&mut ep, t).len(), 1, "segment {i}");
    }
}

#[test]
fn only_todays_linux_compresses() {
    assert_eq!(profiles::config("linux").unwrap().comp_sack_nr, 44);
    for p in ["linux-4.4", "linux-3.16", "ns3", "opnet-2003", "rfc"] {
        assert_eq!(profiles::config(p).unwrap().comp_sack_nr, 0, "{p}");
    }
}
