//! F-RTO (RFC 5682 as Linux runs it, `tcp_frto = 2`): after a retransmission
//! timeout the next ACKs decide whether the timeout was spurious.
//!
//! The kernel path (net/ipv4/tcp_input.c): `tcp_enter_loss` sets
//! `tp->frto` for a new loss episode; each ACK in Loss goes through
//! `tcp_process_loss`:
//! * an ACK of never-retransmitted data at or below `high_seq`
//!   (`FLAG_ORIG_SACK_ACKED`) → `tcp_try_undo_loss(sk, true)`: LOST marks
//!   cleared, cwnd = `undo_cwnd` (Reno: max(cwnd, prior_cwnd)), ssthresh =
//!   `prior_ssthresh` (= `tcp_current_ssthresh` at the RTO), state Open,
//!   `TCPSpuriousRTOs`++;
//! * the first ACK that only covers the retransmission (step 2) moves
//!   `high_seq` to `snd_nxt` and sends new data (`REXMIT_NEW`);
//! * afterwards a duplicate ACK or a SACK (step 3.a) means the loss was
//!   real: `frto = 0`, go-back-N as without F-RTO.
//!
//! Setup of every test: MSS 1000, no SACK / timestamps (`plain`), IW 10,
//! ssthresh 8 (so the restored value is visible), handshake RTT 100 ms so
//! RTO = 1 s (RFC 6298 min). Ten segments go out at t0; the path then stalls
//! for 3 s: the RTO fires at t0 + 1 s and retransmits segment 0 with cwnd 1,
//! ssthresh = max(10/2, 2) = 5, prior_ssthresh = max(8, 10·3/4) = 8.
use crate::common;
use airtcp_core::Instant;
use airtcp_tcp::cc::CaState;
use airtcp_tcp::{Endpoint, Recovery, TcpConfig};
use common::*;

fn stalled(cfg: TcpConfig) -> (Endpoint, Instant) {
    let (mut ep, now) = established(TcpConfig { initial_ssthresh: 8, ..cfg });
    ep.send(1_000_000);
    assert_eq!(drain(&mut ep, now).len(), 10);
    let rto = fire(&mut ep);
    assert_eq!(rto, now + dms(1_000));
    assert_eq!(ep.probe().ca_state, CaState::Loss);
    assert_eq!((ep.probe().cwnd, ep.probe().ssthresh), (1, 5));
    let s: Vec<u64> = drain(&mut ep, rto).iter().map(our_off).collect();
    assert_eq!(s, vec![0]);
    (ep, rto)
}

fn offs(ep: &mut Endpoint, t: Instant) -> Vec<u64> {
    drain(ep, t).iter().map(our_off).collect()
}

/// The stall ends 3 s after t0: the delayed ACK for the *original*
/// segments 0 and 1 arrives. Without SACK this ACK also covers the
/// retransmitted head, so it cannot tell an original that arrived after
/// the timeout from one the receiver held behind a hole: it proves nothing
/// (Linux `tcp_clean_rtx_queue` clears FLAG_ORIG_SACK_ACKED, netdev 2018
/// "tcp: prevent bogus FRTO undos with non-SACK flows"). F-RTO step 2
/// sends new data; the next ACK, of originals 2..9 alone, proves the
/// timeout spurious and undoes it.
#[test]
fn established_spurious_rto_after_3s_stall_frto_restores_cwnd_and_ssthresh() {
    let (mut ep, rto) = stalled(plain());
    let t = rto + dms(2_000);
    ack(&mut ep, t, 2_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Loss);
    assert_eq!(ep.stats().spurious_rtos_detected, 0);
    // Slow start in Loss: cwnd 1 + 2 acked = 3, in flight 8 originals
    // counted lost: new data instead of retransmissions (REXMIT_NEW).
    assert_eq!(offs(&mut ep, t), vec![10_000, 11_000, 12_000]);
    ack(&mut ep, t + dms(10), 10_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!(ep.probe().ssthresh, 8);
    assert_eq!(ep.sock().lost_out, 0);
    assert_eq!(ep.stats().spurious_rtos_detected, 1);
    assert_eq!(ep.stats().loss_undos, 1);
    // No go-back-N: nothing below SND.NXT was sent again.
    assert_eq!(ep.stats().retransmissions, 1);
}

/// The defect this guards against (cubic + Reno recovery + SACK off went
/// idle until the next RTO): segments 0 and 5 of a 10-segment write are
/// lost, no duplicate ACK makes it back, the RTO resends 0, and the ACK
/// jumps to the second hole at 5 because the receiver held 1..4. Those
/// originals were acked cumulatively with the retransmission, which
/// without SACK says nothing about the timeout: it is no undo. With no new
/// data to probe with, F-RTO falls back and segment 5 goes out on this
/// ACK. (Taken as spurious, the timeout was undone to Open with 5..9
/// unmarked and no duplicate ACK left to come: nothing was sent until the
/// next, backed-off, RTO.)
#[test]
fn frto_nonsack_ack_covering_the_retransmission_is_no_undo() {
    let (mut ep, now) = established(TcpConfig { initial_ssthresh: 8, ..plain() });
    ep.send(10_000);
    assert_eq!(drain(&mut ep, now).len(), 10);
    let rto = fire(&mut ep);
    assert_eq!(offs(&mut ep, rto), vec![0]);
    let t = rto + dms(100);
    ack(&mut ep, t, 5_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Loss);
    assert_eq!(ep.stats().spurious_rtos_detected, 0);
    assert_eq!(ep.stats().loss_undos, 0);
    assert_eq!(ep.probe().ssthresh, 5);
    // Go-back-N from the hole: cwnd 1 + 5 acked in slow start admits 5..9.
    assert_eq!(offs(&mut ep, t), vec![5_000, 6_000, 7_000, 8_000, 9_000]);
    ack(&mut ep, t + dms(100), 10_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!(ep.stats().timeouts, 1);
}

/// The same ACK on a kernel before 4.17 (`frto_nonsack_guard` off, the
/// 3.16 and 4.4 profiles): the held segments 1..4 count as originals
/// acknowledged after the timeout, F-RTO calls the RTO spurious and undoes
/// it, and with cwnd restored below what is outstanding nothing is sent:
/// the hole at 5,000 waits for the next RTO. This is the stall the guard
/// removed.
#[test]
fn frto_nonsack_undo_without_the_guard_stalls_like_linux_4_4() {
    let cfg = TcpConfig { initial_ssthresh: 8, frto_nonsack_guard: false, ..plain() };
    let (mut ep, now) = established(cfg);
    ep.send(10_000);
    assert_eq!(drain(&mut ep, now).len(), 10);
    let rto = fire(&mut ep);
    assert_eq!(offs(&mut ep, rto), vec![0]);
    let t = rto + dms(100);
    ack(&mut ep, t, 5_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!(ep.stats().spurious_rtos_detected, 1);
    assert_eq!(offs(&mut ep, t), Vec::<u64>::new());
    assert!(!airtcp_tcp::profiles::config("linux-4.4").unwrap().frto_nonsack_guard);
    assert!(!airtcp_tcp::profiles::config("linux-3.16").unwrap().frto_nonsack_guard);
    assert!(airtcp_tcp::profiles::config("linux").unwrap().frto_nonsack_guard);
}

/// Step 2 then step 3.b: the first ACK covers only the retransmitted head
/// (the original of segment 0 was what the stall delayed, the ACK of 1..9
/// is still behind it). F-RTO moves high_seq to SND.NXT and sends new data
/// with the slow-start cwnd (1 + 1 acked = 2) instead of retransmitting;
/// the next ACK covers originals 1 and 2 → spurious, undo.
#[test]
fn frto_step2_sends_new_data_then_original_ack_undoes() {
    let (mut ep, rto) = stalled(plain());
    let t = rto + dms(2_000);
    ack(&mut ep, t, 1_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Loss);
    assert_eq!(ep.probe().cwnd, 2);
    assert_eq!(offs(&mut ep, t), vec![10_000, 11_000]);
    ack(&mut ep, t + dms(1), 3_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!((ep.probe().cwnd, ep.probe().ssthresh), (10, 8));
    assert_eq!(ep.stats().spurious_rtos_detected, 1);
    // in_flight = 7 originals + 2 new = 9: one more new segment.
    assert_eq!(offs(&mut ep, t + dms(1)), vec![12_000]);
    assert_eq!(ep.stats().retransmissions, 1);
}

/// F-RTO off (ns-3, RFC 6298 alone): the same stall ends in the go-back-N
/// burst. The ACK of originals 0-1 is taken as progress in Loss: cwnd 1 + 2
/// = 3 retransmits segments 2, 3, 4 that the receiver already has, and the
/// window stays reduced (ssthresh 5).
#[test]
fn frto_off_spurious_rto_retransmits_the_window() {
    let (mut ep, rto) = stalled(TcpConfig { frto: false, ..plain() });
    let t = rto + dms(2_000);
    ack(&mut ep, t, 2_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Loss);
    assert_eq!((ep.probe().cwnd, ep.probe().ssthresh), (3, 5));
    assert_eq!(offs(&mut ep, t), vec![2_000, 3_000, 4_000]);
    ack(&mut ep, t + dms(1), 10_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!(ep.probe().ssthresh, 5);
    assert_eq!(ep.stats().retransmissions, 4);
    assert_eq!(ep.stats().spurious_rtos_detected, 0);
    assert_eq!(ep.stats().loss_undos, 0);
}

/// Step 3.a: after the new data of step 2 a duplicate ACK arrives — the
/// segments after the head really were lost. F-RTO stops, nothing is
/// undone, and the lost segments are retransmitted (the dupack counts as a
/// Reno SACK in Loss, `tcp_process_loss`, so one leaves).
#[test]
fn frto_dupack_after_new_data_means_real_loss() {
    let (mut ep, rto) = stalled(plain());
    let t = rto + dms(100);
    ack(&mut ep, t, 1_000, 65_535);
    assert_eq!(offs(&mut ep, t), vec![10_000, 11_000]);
    ack(&mut ep, t + dms(100), 1_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Loss);
    assert_eq!(offs(&mut ep, t + dms(100)), vec![1_000]);
    ack(&mut ep, t + dms(101), 1_000, 65_535);
    assert_eq!(offs(&mut ep, t + dms(101)), vec![2_000]);
    assert_eq!(ep.probe().ssthresh, 5);
    assert_eq!(ep.stats().spurious_rtos_detected, 0);
    assert_eq!(ep.stats().loss_undos, 0);
}

/// Step 2 without new data to send (the application wrote only the 10
/// segments): F-RTO cannot probe and falls back to retransmitting.
#[test]
fn frto_without_new_data_falls_back_to_go_back_n() {
    let (mut ep, now) = established(TcpConfig { initial_ssthresh: 8, ..plain() });
    ep.send(10_000);
    assert_eq!(drain(&mut ep, now).len(), 10);
    let rto = fire(&mut ep);
    assert_eq!(offs(&mut ep, rto), vec![0]);
    ack(&mut ep, rto + dms(100), 1_000, 65_535);
    assert_eq!(offs(&mut ep, rto + dms(100)), vec![1_000, 2_000]);
    assert_eq!(ep.stats().spurious_rtos_detected, 0);
}

/// A second RTO of the same SND.UNA keeps F-RTO armed (RFC 5682 §3.2,
/// `icsk_retransmits` > 0), and an RTO during fast recovery does not arm
/// it (`new_recovery` false, no previous timeout).
#[test]
fn frto_armed_on_repeated_timeout_not_after_fast_recovery() {
    let (mut ep, rto) = stalled(plain());
    let rto2 = fire(&mut ep);
    assert_eq!(rto2, rto + dms(2_000));
    assert_eq!(offs(&mut ep, rto2), vec![0]);
    // Without SACK the ACK that covers the retransmitted head proves
    // nothing (step 2: new data); the next, of originals alone, undoes.
    ack(&mut ep, rto2 + dms(500), 2_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Loss);
    drain(&mut ep, rto2 + dms(500));
    ack(&mut ep, rto2 + dms(510), 4_000, 65_535);
    assert_eq!(ep.stats().spurious_rtos_detected, 1);
    assert_eq!(ep.probe().ca_state, CaState::Open);

    // Fast recovery first, then an RTO: no F-RTO, go-back-N.
    let cfg = TcpConfig { recovery: Recovery::Prr, initial_ssthresh: 8, ..plain() };
    let (mut ep, now) = established(cfg);
    ep.send(1_000_000);
    drain(&mut ep, now);
    let t = now + dms(100);
    for _ in 0..3 {
        ack(&mut ep, t, 0, 65_535);
        drain(&mut ep, t);
    }
    assert_eq!(ep.probe().ca_state, CaState::Recovery);
    let rto = fire(&mut ep);
    drain(&mut ep, rto);
    ack(&mut ep, rto + dms(100), 2_000, 65_535);
    assert_eq!(ep.stats().spurious_rtos_detected, 0);
    assert_eq!(ep.probe().ca_state, CaState::Loss);
}

/// The ns-3 profile (`with_ns3_behaviour`) has no F-RTO and no undo.
#[test]
fn ns3_profile_has_no_frto() {
    let cfg = plain().with_ns3_behaviour();
    assert!(!cfg.frto && !cfg.undo && !cfg.eifel && !cfg.dsack);
    let d = TcpConfig::default();
    assert!(d.frto && d.undo && d.eifel && d.dsack);
}

/// When the retransmission backoff ends, as Linux (net/ipv4/tcp_input.c)
/// has it: only `tcp_ack_update_rtt` clears `icsk_backoff` ("RFC6298:
/// only reset backoff on valid RTT measurement"), and it takes a sample
/// only from never-retransmitted data (`tcp_clean_rtx_queue`: no
/// `seq_rtt_us` when `FLAG_RETRANS_DATA_ACKED`; Karn) or a timestamp echo.
/// `tcp_try_undo_loss` (F-RTO's undo) resets `icsk_retransmits`, not the
/// backoff, and `tcp_rearm_rto` re-arms with `icsk_rto`, which
/// `tcp_retransmit_timer` doubled at each timeout. So the ACK that covers
/// the retransmitted head (without SACK no undo on it: F-RTO step 2)
/// leaves the timer backed off until an ACK of never-retransmitted data
/// brings a sample, and with it the undo.
#[test]
fn frto_undo_without_rtt_sample_keeps_the_backoff_until_new_data_is_acked() {
    let (mut ep, rto1) = stalled(plain());
    assert_eq!(ep.rtt().backoff, 1);
    // Still nothing back: the second timeout (2 s later) resends the head.
    let rto2 = fire(&mut ep);
    assert_eq!(rto2, rto1 + dms(2_000));
    assert_eq!(ep.rtt().backoff, 2);
    assert_eq!(offs(&mut ep, rto2), vec![0]);
    // One ACK covers the retransmitted head and originals 1 and 2:
    // FLAG_RETRANS_DATA_ACKED withholds the RTT sample and, without SACK,
    // the F-RTO undo (FLAG_ORIG_SACK_ACKED cleared).
    let t = rto2 + dms(100);
    ack(&mut ep, t, 3_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Loss);
    assert_eq!(ep.stats().loss_undos, 0);
    assert_eq!(ep.rtt().backoff, 2, "no RTT sample: icsk_backoff stays");
    assert_eq!(ep.timer(airtcp_tcp::endpoint::TimerKind::Rto), Some(t + dms(4_000)), "tcp_rearm_rto: icsk_rto = 1 s << 2");
    drain(&mut ep, t);
    // The ACK of originals 3 and 4 (never retransmitted) is a valid sample:
    // tcp_ack_update_rtt clears the backoff and the RTO is the estimator's.
    let t2 = t + dms(10);
    ack(&mut ep, t2, 5_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!(ep.stats().loss_undos, 1);
    assert_eq!(ep.rtt().backoff, 0);
    assert_eq!(ep.timer(airtcp_tcp::endpoint::TimerKind::Rto), Some(t2 + ep.rtt().base_rto()));
}
