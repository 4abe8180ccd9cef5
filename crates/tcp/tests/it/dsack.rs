//! D-SACK generation at the receiver (RFC 2883; Linux `tcp_dsack_set` /
//! `tcp_dsack_extend`, `tcp_dsack = 1`): a data segment that repeats bytes
//! the receiver holds is answered by an ACK whose *first* SACK block names
//! the duplicate bytes, followed by the ordinary SACK blocks; the D-SACK
//! block is reported once.
//!
//! Where Linux sets it: a segment wholly below RCV.NXT (`tcp_send_dupack`
//! from `tcp_validate_incoming`, or `tcp_data_queue`'s "retransmit" case),
//! a segment straddling RCV.NXT (`tcp_data_queue`, partial packet: block
//! [seq, rcv_nxt)), and out-of-order data already queued
//! (`tcp_data_queue_ofo`, then `tcp_sack_new_ofo_skb` puts the containing
//! SACK block first, RFC 2883 §4.2 example 3).
use crate::common;
use airtcp_core::{Instant, Segment, SeqNum, TcpFlags};
use airtcp_tcp::{Endpoint, TcpConfig};
use common::*;

/// A passive opener whose peer offered SACK-permitted (no timestamps).
fn sack_receiver(cfg: TcpConfig) -> (Endpoint, Instant) {
    let syn = Segment { sack_permitted: true, ..peer_syn() };
    let (ep, synack) = passive_open(TcpConfig { sack: true, ..cfg }, &syn, ms(10), |_| from_peer());
    assert!(synack.sack_permitted);
    assert!(ep.sack_enabled());
    (ep, ms(10))
}

/// SACK blocks of `seg` as peer stream offsets.
fn blocks(seg: &Segment) -> Vec<(u64, u64)> {
    let base = peer_seq(0);
    seg.sacks().iter().map(|&(l, r)| ((l - base) as u64, (r - base) as u64)).collect()
}

fn one_ack(ep: &mut Endpoint, t: Instant) -> Segment {
    let v = drain(ep, t);
    assert_eq!(v.len(), 1, "{v:?}");
    v[0]
}

#[test]
fn receiver_dsacks_a_duplicate_below_rcv_nxt() {
    let (mut ep, t) = sack_receiver(plain());
    data(&mut ep, t, 0, 1000);
    data(&mut ep, t, 1000, 1000);
    let a = one_ack(&mut ep, t);
    assert_eq!(a.ack, peer_seq(2000));
    assert!(blocks(&a).is_empty());
    // The sender's spurious retransmission of [0, 1000).
    data(&mut ep, t + dms(5), 0, 1000);
    let a = one_ack(&mut ep, t + dms(5));
    assert_eq!(a.ack, peer_seq(2000));
    assert_eq!(blocks(&a), vec![(0, 1000)]);
    assert_eq!(ep.stats().dsacks_sent, 1);
    assert_eq!(ep.stats().dup_data_segs_received, 1);
    // Reported once: the next ACK carries no D-SACK.
    data(&mut ep, t + dms(6), 2000, 1000);
    data(&mut ep, t + dms(6), 3000, 1000);
    let a = one_ack(&mut ep, t + dms(6));
    assert!(blocks(&a).is_empty());
}

#[test]
fn receiver_dsacks_the_old_part_of_a_straddling_segment() {
    let (mut ep, t) = sack_receiver(plain());
    data(&mut ep, t, 0, 1000);
    data(&mut ep, t, 1000, 1000);
    drain(&mut ep, t);
    // [1500, 2500): 500 old bytes, 500 new.
    let seg = Segment { seq: peer_seq(1500), payload_len: 1000, ..from_peer() };
    ep.handle_segment(t + dms(1), &seg);
    // Linux's partial-packet case schedules a normal (possibly delayed) ACK.
    let a = drain(&mut ep, t + dms(1)).pop().or_else(|| {
        let d = fire(&mut ep);
        drain(&mut ep, d).pop()
    });
    let a = a.expect("an ACK");
    assert_eq!(a.ack, peer_seq(2500));
    assert_eq!(blocks(&a), vec![(1500, 2000)]);
}

/// RFC 2883 §4.2 example 3 shape: out-of-order data received twice — the
/// D-SACK block first, then the SACK block that contains it.
#[test]
fn receiver_dsacks_out_of_order_duplicate_then_its_sack_block() {
    let (mut ep, t) = sack_receiver(plain());
    data(&mut ep, t, 0, 1000);
    data(&mut ep, t, 2000, 1000);
    data(&mut ep, t, 4000, 1000);
    drain(&mut ep, t);
    data(&mut ep, t + dms(1), 2000, 1000);
    let a = one_ack(&mut ep, t + dms(1));
    assert_eq!(a.ack, peer_seq(1000));
    assert_eq!(blocks(&a), vec![(2000, 3000), (2000, 3000), (4000, 5000)]);
    assert_eq!(ep.stats().dsacks_sent, 1);
}

#[test]
fn dsack_off_or_no_sack_reports_nothing_but_counts_the_duplicate() {
    let (mut ep, t) = sack_receiver(TcpConfig { dsack: false, ..plain() });
    data(&mut ep, t, 0, 1000);
    data(&mut ep, t, 0, 1000);
    let v = drain(&mut ep, t);
    assert!(v.iter().all(|s| s.sack_len == 0));
    assert_eq!(ep.stats().dsacks_sent, 0);
    assert_eq!(ep.stats().dup_data_segs_received, 1);

    let (mut ep, t) = established_receiver(plain());
    assert!(!ep.sack_enabled());
    data(&mut ep, t, 0, 1000);
    data(&mut ep, t, 0, 1000);
    assert!(drain(&mut ep, t).iter().all(|s| s.sack_len == 0));
    assert_eq!(ep.stats().dup_data_segs_received, 1);
}

/// End to end over the test wire: with SACK and the defaults, a spurious
/// fast retransmission (the head is not lost, only reordered behind three
/// segments by the wire) is D-SACKed by the receiver and undone by the
/// sender; every byte arrives once, in order.
#[test]
fn wire_reordered_head_is_dsacked_and_undone() {
    let cfg = TcpConfig { sack: true, ..plain() };
    let mut w = pair(cfg.clone(), cfg, ISS, PEER_ISS, dms(10));
    w.run_until(ms(100));
    w.a.send(40_000);
    // The wire loses data segment #3 ([3000, 4000)) ...
    w.drop_a_to_b = Box::new(|i, _| i == 3);
    let late = ms(100) + dms(30);
    w.run_until(late);
    // ... and delivers a copy 30 ms late: a reordering, not a loss.
    let s = Segment {
        src_port: LOCAL,
        dst_port: REMOTE,
        seq: our_seq(3000),
        ack: SeqNum(PEER_ISS + 1),
        flags: TcpFlags::ACK | TcpFlags::PSH,
        window: 65_535,
        payload_len: 1000,
        ..Default::default()
    };
    w.b.handle_segment(late, &s);
    w.run_until(ms(5_000));
    assert_eq!(w.b_read, 40_000);
    let st = w.a.stats();
    assert!(st.retransmissions >= 1);
    assert!(w.b.stats().dsacks_sent >= 1, "{:?}", w.b.stats());
    assert!(st.dsacks_received >= 1, "{st:?}");
    assert!(st.dsack_undos + st.recovery_undos >= 1, "{st:?}");
}
