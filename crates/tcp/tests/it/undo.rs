//! Undo of window reductions that prove unnecessary (Linux `tcp_try_undo_*`,
//! net/ipv4/tcp_input.c):
//! * `tcp_may_undo` = `undo_marker` set and (every retransmission D-SACKed,
//!   `undo_retrans == 0`, or `tcp_packet_delayed`: the ACK's TSecr predates
//!   `retrans_stamp`, the first retransmission — Eifel, RFC 3522);
//! * `tcp_undo_cwnd_reduction`: cwnd = module `undo_cwnd` (Reno: max(cwnd,
//!   prior_cwnd)), ssthresh = `prior_ssthresh` if larger; in Loss and on a
//!   partial undo the LOST marks are cleared too.
//!
//! Setup: MSS 1000, IW 10, ssthresh 8, 100 ms handshake. At fast-recovery
//! entry `prior_ssthresh` = `tcp_current_ssthresh` = max(8, 10·3/4) = 8 and
//! Reno's ssthresh is 5; at an RTO the same.
use crate::common;
use airtcp_core::{Instant, Segment};
use airtcp_tcp::cc::CaState;
use airtcp_tcp::{Endpoint, TcpConfig};
use common::*;

/// Peer ACK echoing `ecr` (the TSval of the segment that caused it), with
/// SACK blocks as stream-offset ranges.
fn ts_ack(ep: &mut Endpoint, now: Instant, acked: u64, ecr: u32, blocks: &[(u64, u64)]) {
    let mut seg = Segment { ack: our_seq(acked), timestamps: Some((1_000, ecr)), ..from_peer() };
    for &(l, r) in blocks {
        seg.push_sack(our_seq(l), our_seq(r));
    }
    ep.handle_segment(now, &seg);
}

fn tsval(s: &Segment) -> u32 {
    s.timestamps.expect("timestamps negotiated").0
}

/// Eifel after an RTO (F-RTO off, to isolate it): the first ACK after the
/// stall echoes the TSval of the *original* segment 0, sent 1 s before the
/// retransmission, so `tcp_packet_delayed` holds and `tcp_try_undo_loss`
/// undoes at once: cwnd max(1+0, 10) = 10, ssthresh 8, LOST cleared. Without
/// SACK Linux stays in Loss (undone) until high_seq is acknowledged.
#[test]
fn eifel_timestamp_undoes_spurious_rto_on_first_ack() {
    let cfg = TcpConfig { timestamps: true, frto: false, initial_ssthresh: 8, ..plain() };
    let (mut ep, now) = established(cfg);
    assert!(ep.timestamps_enabled());
    ep.send(1_000_000);
    let first = drain(&mut ep, now);
    let orig_ts = tsval(&first[0]);
    let rto = fire(&mut ep);
    let re = drain(&mut ep, rto);
    assert_eq!(re.len(), 1);
    assert!(tsval(&re[0]) > orig_ts);
    let t = rto + dms(2_000);
    ts_ack(&mut ep, t, 1_000, orig_ts, &[]);
    assert_eq!((ep.probe().cwnd, ep.probe().ssthresh), (10, 8));
    assert_eq!(ep.sock().lost_out, 0);
    assert_eq!(ep.stats().loss_undos, 1);
    assert_eq!(ep.stats().spurious_rtos_detected, 0, "Eifel, not F-RTO");
    // 9 originals in flight, cwnd 10: one new segment, no go-back-N.
    let s: Vec<u64> = drain(&mut ep, t).iter().map(our_off).collect();
    assert_eq!(s, vec![10_000]);
    ts_ack(&mut ep, t + dms(1), 10_000, orig_ts, &[]);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!(ep.stats().retransmissions, 1);
}

/// The same ACK echoing the retransmission's TSval (the retransmission
/// repaired a real loss): no undo.
#[test]
fn eifel_no_undo_when_the_retransmission_is_echoed() {
    let cfg = TcpConfig { timestamps: true, frto: false, initial_ssthresh: 8, ..plain() };
    let (mut ep, now) = established(cfg);
    ep.send(1_000_000);
    drain(&mut ep, now);
    let rto = fire(&mut ep);
    let re = drain(&mut ep, rto);
    ts_ack(&mut ep, rto + dms(100), 1_000, tsval(&re[0]), &[]);
    assert_eq!(ep.probe().ssthresh, 5);
    assert_eq!(ep.stats().loss_undos, 0);
    assert_eq!(ep.sock().lost_out, 9);
}

/// `undo = false` switches Eifel undo off (the ns-3 / ns-2 behaviour).
#[test]
fn undo_off_keeps_the_reduction() {
    let cfg = TcpConfig { timestamps: true, frto: false, undo: false, initial_ssthresh: 8, ..plain() };
    let (mut ep, now) = established(cfg);
    ep.send(1_000_000);
    let first = drain(&mut ep, now);
    let rto = fire(&mut ep);
    drain(&mut ep, rto);
    ts_ack(&mut ep, rto + dms(2_000), 1_000, tsval(&first[0]), &[]);
    assert_eq!(ep.probe().ssthresh, 5);
    assert_eq!(ep.stats().loss_undos, 0);
}

/// Ten segments out with SACK + timestamps; segment 0 is reordered behind
/// 1..9, which are SACKed: fast retransmit of 0 at t0 + 100 ms.
fn reordered_head(cfg: TcpConfig) -> (Endpoint, Instant, u32) {
    let cfg = TcpConfig { sack: true, initial_ssthresh: 8, ..cfg };
    let (mut ep, now) = established(cfg);
    ep.send(1_000_000);
    let first = drain(&mut ep, now);
    let orig_ts = first[0].timestamps.map(|t| t.0).unwrap_or(0);
    let t = now + dms(100);
    for i in 1..=3u64 {
        ts_ack(&mut ep, t, 0, orig_ts, &[(1_000, (i + 1) * 1_000)]);
    }
    assert_eq!(ep.probe().ca_state, CaState::Recovery);
    assert_eq!(ep.probe().ssthresh, 5);
    let s: Vec<u64> = drain(&mut ep, t).iter().map(our_off).collect();
    assert_eq!(s[0], 0, "fast retransmit of the head");
    (ep, t, orig_ts)
}

/// `tcp_try_undo_recovery`: the late original fills the hole, the receiver
/// echoes its TSval (RFC 7323 §4.3: the segment at Last.ACK.sent), the
/// cumulative ACK reaches high_seq and TSecr < retrans_stamp: the recovery
/// was caused by reordering. cwnd = max(cwnd, prior_cwnd 10), ssthresh 8,
/// Open, and no `tcp_end_cwnd_reduction` (cwnd stays undone).
#[test]
fn recovery_undone_when_the_original_fills_the_hole() {
    let cfg = TcpConfig { timestamps: true, ..plain() };
    let (mut ep, t, orig_ts) = reordered_head(cfg);
    let nxt = ep_snd_nxt(&ep);
    ts_ack(&mut ep, t + dms(5), nxt, orig_ts, &[]);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!(ep.probe().ssthresh, 8);
    assert!(ep.probe().cwnd >= 10, "cwnd {}", ep.probe().cwnd);
    assert_eq!(ep.stats().recovery_undos, 1);
}

fn ep_snd_nxt(ep: &Endpoint) -> u64 {
    (ep.probe().snd_nxt - our_seq(0)) as u64
}

/// Without timestamps the same reordering ends recovery normally (cwnd =
/// ssthresh 5, + 1 of congestion avoidance); then the D-SACK for the needless retransmission arrives
/// (`tcp_check_dsack` "dumb counting": the block lies below SND.UNA, above
/// undo_marker): undo_retrans 1 → 0 and `tcp_try_undo_dsack` restores
/// cwnd 10 and ssthresh 8 from Open.
#[test]
fn dsack_of_the_only_retransmission_undoes_after_recovery() {
    let (mut ep, t, _) = reordered_head(plain());
    let nxt = ep_snd_nxt(&ep);
    sack(&mut ep, t + dms(5), nxt, &[]);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    // tcp_end_cwnd_reduction: cwnd = ssthresh 5, then cong_avoid of the
    // exit ACK adds one.
    assert_eq!((ep.probe().cwnd, ep.probe().ssthresh), (6, 5));
    assert_eq!(ep.stats().recovery_undos, 0);
    // The retransmission of segment 0 reaches the receiver: D-SACK [0, 1000).
    sack(&mut ep, t + dms(100), nxt, &[(0, 1_000)]);
    assert_eq!(ep.stats().dsacks_received, 1);
    assert_eq!(ep.stats().dsack_undos, 1);
    assert_eq!((ep.probe().cwnd, ep.probe().ssthresh), (10, 8));
    // A D-SACK is no duplicate ACK: still the three SACKs of the setup.
    assert_eq!(ep.stats().dup_acks_received, 3);
}

/// A D-SACK for data we never retransmitted is dubious (`tcp_dsack_seen`:
/// more duplicates reported than retransmissions sent) and ignored.
#[test]
fn dubious_dsack_is_ignored() {
    let cfg = TcpConfig { sack: true, ..plain() };
    let (mut ep, now) = established(cfg);
    ep.send(1_000_000);
    drain(&mut ep, now);
    sack(&mut ep, now + dms(100), 2_000, &[(0, 1_000)]);
    assert_eq!(ep.stats().dsacks_received, 0);
    assert_eq!(ep.stats().retransmissions, 0);
}

