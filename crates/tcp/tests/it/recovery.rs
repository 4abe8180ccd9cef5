//! Loss recovery: Tahoe, Reno, NewReno, PRR (SACK off), SACK (RFC 6675 marking),
//! limited transmit, RTO go-back-N.
use crate::common;
use common::*;

use airtcp_core::{Instant, Segment};
use airtcp_tcp::{CaState, Event, Recovery, TcpConfig};

/// Established sender with 10 segments (0..9) in flight at `now`.
fn ten_in_flight(recovery: Recovery, limited_transmit: bool) -> (airtcp_tcp::Endpoint, Instant) {
    let cfg = TcpConfig { recovery, limited_transmit, ..plain() };
    let (mut ep, now) = established(cfg);
    ep.send(1_000_000);
    assert_eq!(drain(&mut ep, now).len(), 10);
    (ep, now + dms(100))
}

/// Offsets of the segments sent in response to one dupack (ack of 0).
fn dupack(ep: &mut airtcp_tcp::Endpoint, now: Instant) -> Vec<u64> {
    ack(ep, now, 0, 65_535);
    drain(ep, now).iter().map(our_off).collect()
}

#[test]
fn limited_transmit_sends_one_new_segment_per_early_dupack() {
    let (mut ep, t) = ten_in_flight(Recovery::Prr, true);
    assert_eq!(dupack(&mut ep, t), vec![10_000]);
    assert_eq!(ep.probe().ca_state, CaState::Disorder);
    assert_eq!(dupack(&mut ep, t), vec![11_000]);
    assert_eq!(ep.stats().dup_acks_received, 2);
    let (mut ep, t) = ten_in_flight(Recovery::Prr, false);
    assert_eq!(dupack(&mut ep, t), Vec::<u64>::new());
    assert_eq!(dupack(&mut ep, t), Vec::<u64>::new());
}

#[test]
fn prr_recovery_cwnd_sequence_without_sack() {
    let (mut ep, t) = ten_in_flight(Recovery::Prr, true);
    let mut sent = Vec::new();
    let mut cwnd = Vec::new();
    for _ in 0..5 {
        sent.push(dupack(&mut ep, t));
        cwnd.push(ep.probe().cwnd);
    }
    // dupack 3: ssthresh 5; in_flight 8 > ssthresh so sndcnt = ceil(5·1/10) = 1
    // (the fast retransmit); dupack 4: ceil(5·2/10) - 1 = 0; dupack 5: ceil(15/10) - 1 = 1.
    assert_eq!(cwnd, vec![10, 10, 9, 8, 8]);
    assert_eq!(sent, vec![vec![10_000], vec![11_000], vec![0], vec![], vec![12_000]]);
    assert_eq!(ep.probe().ssthresh, 5);
    assert_eq!(ep.probe().ca_state, CaState::Recovery);
    assert_eq!(ep.stats().fast_retransmits, 1);
    assert!(events(&mut ep).contains(&Event::FastRetransmit { seq: our_seq(0) }));
    // Partial ACK (up to segment 5): without SACK the new head is marked lost
    // (tcp_newreno_mark_lost). PRR: in_flight 6 > ssthresh, sndcnt =
    // ceil(5·4/10) - prr_out 2 = 0, so it waits for the next ACK.
    ack(&mut ep, t, 5_000, 65_535);
    assert_eq!(ep.sock().lost_out, 1);
    assert_eq!(drain(&mut ep, t), vec![]);
    assert_eq!(ep.probe().cwnd, 6);
    // Next dupack: in_flight 5 = ssthresh, delta 0: nothing (cwnd 5). The one
    // after: in_flight 4, delta 1, sndcnt 1, cwnd 5: the retransmission.
    ack(&mut ep, t, 5_000, 65_535);
    assert_eq!(drain(&mut ep, t), vec![]);
    assert_eq!(ep.probe().cwnd, 5);
    ack(&mut ep, t, 5_000, 65_535);
    let s: Vec<u64> = drain(&mut ep, t).iter().map(our_off).collect();
    assert_eq!(s, vec![5_000]);
    assert_eq!(ep.probe().ca_state, CaState::Recovery);
    // Full ACK of the recovery point (snd_nxt at entry = 12 segments): back to
    // Open with cwnd = ssthresh, then this ACK's congestion avoidance credit
    // (8 segments acked, 3 of them counted as dupacks before: +1 at w = 5).
    ack(&mut ep, t, 13_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!(ep.probe().ssthresh, 5);
    assert_eq!(ep.probe().cwnd, 6);
}

#[test]
fn reno_inflates_per_dupack_and_exits_on_first_new_ack() {
    let (mut ep, t) = ten_in_flight(Recovery::Reno, true);
    let mut cwnd = Vec::new();
    let mut sent = Vec::new();
    for _ in 0..8 {
        sent.push(dupack(&mut ep, t));
        cwnd.push(ep.probe().cwnd);
    }
    // RFC 5681: cwnd = ssthresh + 3 = 8 with the retransmission, +1 per dupack;
    // new data once FlightSize (12) < cwnd.
    assert_eq!(cwnd, vec![10, 10, 8, 9, 10, 11, 12, 13]);
    assert_eq!(sent[2], vec![0]);
    assert_eq!(sent[3..7].concat(), Vec::<u64>::new());
    assert_eq!(sent[7], vec![12_000]);
    // A partial ACK ends Reno's recovery: cwnd = ssthresh.
    ack(&mut ep, t, 5_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!(ep.probe().cwnd, 5);
}

#[test]
fn newreno_partial_ack_retransmits_and_deflates_full_ack_exits() {
    let (mut ep, t) = ten_in_flight(Recovery::NewReno, true);
    for _ in 0..8 {
        dupack(&mut ep, t);
    }
    assert_eq!(ep.probe().cwnd, 13);
    // Partial ACK of 5 segments: retransmit segment 5, cwnd = 13 - 5 + 1 = 9,
    // FlightSize 8 < 9 admits one new segment.
    ack(&mut ep, t, 5_000, 65_535);
    let s: Vec<u64> = drain(&mut ep, t).iter().map(our_off).collect();
    assert_eq!(s, vec![5_000, 13_000]);
    assert_eq!(ep.probe().ca_state, CaState::Recovery);
    assert_eq!(ep.probe().cwnd, 9);
    // Full ACK (recovery point = 12 segments): cwnd = min(ssthresh, FlightSize + 1) = 2,
    // then slow start by this ACK's 4 delivered packets up to ssthresh 5.
    ack(&mut ep, t, 13_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!(ep.probe().cwnd, 5);
    assert_eq!(ep.stats().retransmissions, 2);
}

#[test]
fn tahoe_third_dupack_collapses_to_one_and_goes_back_n() {
    let (mut ep, t) = ten_in_flight(Recovery::Tahoe, true);
    dupack(&mut ep, t);
    dupack(&mut ep, t);
    assert_eq!(dupack(&mut ep, t), vec![0]);
    assert_eq!((ep.probe().cwnd, ep.probe().ssthresh), (1, 5));
    assert_eq!(ep.probe().ca_state, CaState::Loss);
    assert_eq!(ep.stats().fast_retransmits, 1);
    assert_eq!(ep.stats().timeouts, 0);
    // Slow start from 1: the ACK of the retransmission releases 2 more, in order.
    ack(&mut ep, t + dms(100), 1_000, 65_535);
    assert_eq!(ep.probe().cwnd, 2);
    let s: Vec<u64> = drain(&mut ep, t + dms(100)).iter().map(our_off).collect();
    assert_eq!(s, vec![1_000, 2_000]);
}

/// RFC 6582 §3.2 step 1 / ns-2's `bug_fix_`: Tahoe's go-back-N resends
/// segments the receiver already holds; their duplicate ACKs arrive after
/// the window is repaired and must not start a second fast retransmit until
/// the cumulative ACK passes `recover` (SND.MAX at the first one). Without
/// the guard each spurious fast retransmit resends the window again and the
/// flow never leaves the loop (0.68 Mb/s against ns-2's 9.3 on a clean
/// 10 Mb/s path).
#[test]
fn tahoe_duplicates_of_go_back_n_do_not_refire_fast_retransmit() {
    // ns-2's Tahoe: no undo (with it Loss holds until the ACK passes the
    // recovery point, `tcp_try_undo_recovery`, and the guard acts later).
    let cfg = TcpConfig { recovery: Recovery::Tahoe, frto: false, undo: false, limited_transmit: false, ..plain() };
    let (mut ep, t) = established(cfg);
    ep.send(1_000_000);
    assert_eq!(drain(&mut ep, t).len(), 10);
    let t = t + dms(100);
    for _ in 0..3 {
        dupack(&mut ep, t);
    }
    assert_eq!(ep.stats().fast_retransmits, 1);
    // Go-back-N in slow start: 0, then 1000 and 2000, then 3000.. again.
    ack(&mut ep, t + dms(100), 1_000, 65_535);
    ack(&mut ep, t + dms(200), 3_000, 65_535);
    let resent: Vec<u64> = drain(&mut ep, t + dms(200)).iter().map(our_off).collect();
    assert_eq!(resent[0], 3_000);
    // The receiver held 3..9: the ACK jumps to recover (10_000), Loss ends
    // and new data goes out.
    let t3 = t + dms(300);
    ack(&mut ep, t3, 10_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert!(drain(&mut ep, t3).iter().all(|s| our_off(s) >= 10_000));
    // Three duplicates of the resent 3000.. come back: no fast retransmit.
    for _ in 0..3 {
        assert!(dupack_at(&mut ep, t3, 10_000).iter().all(|&o| o > 10_000));
    }
    assert_eq!(ep.stats().fast_retransmits, 1);
    // Once the ACK passes recover, three dupacks are a new loss again.
    ack(&mut ep, t3 + dms(10), 11_000, 65_535);
    drain(&mut ep, t3 + dms(10));
    for _ in 0..3 {
        dupack_at(&mut ep, t3 + dms(20), 11_000);
    }
    assert_eq!(ep.stats().fast_retransmits, 2);
}

/// Offsets sent in response to a duplicate ACK of `acked`.
fn dupack_at(ep: &mut airtcp_tcp::Endpoint, now: Instant, acked: u64) -> Vec<u64> {
    ack(ep, now, acked, 65_535);
    drain(ep, now).iter().map(our_off).collect()
}

#[test]
fn rto_marks_everything_lost_and_retransmits_in_order() {
    // Go-back-N after an RTO is the F-RTO-off behaviour (ns-3, RFC 6298
    // alone); with F-RTO (the default) the first ACK sends new data
    // instead — `frto.rs` covers that side.
    let cfg = TcpConfig { recovery: Recovery::Prr, frto: false, ..plain() };
    let (mut ep, now) = established(cfg);
    ep.send(1_000_000);
    assert_eq!(drain(&mut ep, now).len(), 10);
    let f = fire(&mut ep);
    assert_eq!(ep.probe().ca_state, CaState::Loss);
    assert_eq!((ep.probe().cwnd, ep.probe().ssthresh), (1, 5));
    assert_eq!(ep.sock().lost_out, 10);
    let s: Vec<u64> = drain(&mut ep, f).iter().map(our_off).collect();
    assert_eq!(s, vec![0]);
    assert_eq!(ep.sock().retrans_out, 1);
    assert_eq!(ep.probe().in_flight, 1);
    ack(&mut ep, f + dms(100), 1_000, 65_535);
    let s: Vec<u64> = drain(&mut ep, f + dms(100)).iter().map(our_off).collect();
    assert_eq!(s, vec![1_000, 2_000]);
    // Receiver had 1..9 already: the ACK jumps to the recovery point, Loss ends.
    ack(&mut ep, f + dms(200), 10_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!(ep.stats().retransmissions, 3);
}

#[test]
fn sack_scoreboard_retransmits_exactly_the_holes() {
    let cfg = TcpConfig { sack: true, ..plain() };
    let (mut ep, now) = established(cfg);
    assert!(ep.sack_enabled());
    ep.send(1_000_000);
    assert_eq!(drain(&mut ep, now).len(), 10);
    let t = now + dms(100);
    // Segments 0 and 3 lost; the receiver SACKs the rest as it arrives.
    let mut retx = Vec::new();
    let mut hi = 0u64;
    let arrivals: [u64; 8] = [1, 2, 4, 5, 6, 7, 8, 9];
    let mut blocks: Vec<(u64, u64)> = Vec::new();
    for &i in &arrivals {
        let (l, r) = (i * 1000, (i + 1) * 1000);
        // Merge into receiver-side ranges, most recent first.
        let mut cur = (l, r);
        blocks.retain(|&(bl, br)| {
            if br == cur.0 || bl == cur.1 {
                cur = (cur.0.min(bl), cur.1.max(br));
                false
            } else {
                true
            }
        });
        blocks.insert(0, cur);
        sack(&mut ep, t, 0, &blocks);
        for s in drain(&mut ep, t) {
            let o = our_off(&s);
            if o < hi || o < 10_000 {
                retx.push(o);
            }
            hi = hi.max(o + s.payload_len as u64);
        }
    }
    assert_eq!(retx, vec![0, 3_000]);
    assert_eq!(ep.probe().ca_state, CaState::Recovery);
    assert_eq!(ep.sock().sacked_out, 8);
    assert_eq!(ep.stats().fast_retransmits, 1);
    // The two retransmissions arrive: cumulative ACK to the highest sent.
    ack(&mut ep, t + dms(100), hi, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!(ep.sock().sacked_out, 0);
    // cwnd = ssthresh on exit, +1 from this ACK's congestion-avoidance credit
    // (it newly delivers the 2 retransmissions and the new data sent meanwhile).
    assert_eq!((ep.probe().ssthresh, ep.probe().cwnd), (5, 6));
}

#[test]
fn duplicate_ack_counting_ignores_window_updates_and_data() {
    let (mut ep, now) = established_with(plain(), dms(100), 30_000);
    ep.send(100_000);
    drain(&mut ep, now);
    ack(&mut ep, now, 0, 40_000); // window opened: a window update, not a dupack
    let seg = Segment { ack: our_seq(0), payload_len: 100, window: 40_000, ..from_peer() };
    ep.handle_segment(now, &seg); // carries data: not a dupack
    assert_eq!(ep.stats().dup_acks_received, 0);
    let dup = Segment { seq: peer_seq(100), ack: our_seq(0), window: 40_000, ..from_peer() };
    ep.handle_segment(now, &dup);
    assert_eq!(ep.stats().dup_acks_received, 1);
}
