//! Nagle's algorithm (RFC 896) in Linux's Minshall form, TCP_NODELAY unset.
//!
//! The kernel path (net/ipv4/tcp_output.c): `tcp_write_xmit` asks
//! `tcp_nagle_test` about the last skb of the write queue; a sub-MSS skb
//! (`partial`) waits when `tcp_nagle_check` holds: Nagle on, packets out,
//! and `tcp_minshall_check` — `snd_sml` (end of the last sub-MSS segment
//! sent, `tcp_minshall_update`) lies in (snd_una, snd_nxt], i.e. a small
//! segment is unacknowledged. A FIN passes (`tcp_nagle_test`). Full
//! segments are never held.
//!
//! Setup: `plain()` (MSS 1000, no options), established after a 100 ms RTT,
//! peer window 65535; cwnd 10 is never the limit here.
use crate::common;
use airtcp_tcp::TcpConfig;
use common::*;

fn lens(segs: &[airtcp_core::Segment]) -> Vec<(u64, u32)> {
    segs.iter().filter(|s| s.payload_len > 0).map(|s| (our_off(s), s.payload_len)).collect()
}

/// 500 bytes go at once (nothing in flight); the next 500 wait for the ACK
/// of the first small segment, then leave.
#[test]
fn nagle_holds_small_segment_while_small_unacked() {
    let (mut ep, t) = established(plain());
    ep.send(500);
    assert_eq!(lens(&drain(&mut ep, t)), vec![(0, 500)]);
    ep.send(500);
    assert!(drain(&mut ep, t + dms(10)).is_empty());
    assert_eq!(ep.stats().nagle_deferrals, 1);
    ack(&mut ep, t + dms(100), 500, 65_535);
    assert_eq!(lens(&drain(&mut ep, t + dms(100))), vec![(500, 500)]);
}

/// TCP_NODELAY: both small writes leave at once.
#[test]
fn nodelay_sends_small_segments_immediately() {
    let (mut ep, t) = established(TcpConfig { nodelay: true, ..plain() });
    ep.send(500);
    assert_eq!(lens(&drain(&mut ep, t)), vec![(0, 500)]);
    ep.send(500);
    assert_eq!(lens(&drain(&mut ep, t)), vec![(500, 500)]);
    assert_eq!(ep.stats().nagle_deferrals, 0);
}

/// With a small segment unacknowledged, a 2500-byte write still sends its
/// two full segments; only the 500-byte tail waits.
#[test]
fn full_segments_not_delayed_by_nagle() {
    let (mut ep, t) = established(plain());
    ep.send(500);
    drain(&mut ep, t);
    ep.send(2_500);
    assert_eq!(lens(&drain(&mut ep, t)), vec![(500, 1_000), (1_500, 1_000)]);
    ack(&mut ep, t + dms(100), 500, 65_535);
    assert_eq!(lens(&drain(&mut ep, t + dms(100))), vec![(2_500, 500)]);
}

/// Minshall, not RFC 896's classic rule: unacknowledged *full* segments do
/// not hold a small one.
#[test]
fn small_segment_after_full_ones_is_not_held() {
    let (mut ep, t) = established(plain());
    ep.send(2_000);
    drain(&mut ep, t);
    ep.send(300);
    assert_eq!(lens(&drain(&mut ep, t)), vec![(2_000, 300)]);
}

/// A small segment carrying FIN is never held (`tcp_nagle_test`).
#[test]
fn fin_segment_not_held_by_nagle() {
    let (mut ep, t) = established(plain());
    ep.send(500);
    drain(&mut ep, t);
    ep.send(300);
    ep.close();
    let segs = drain(&mut ep, t);
    assert_eq!(lens(&segs), vec![(500, 300)]);
    assert!(segs[0].flags.fin());
}
