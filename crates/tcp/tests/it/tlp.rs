//! Tail loss probe (RFC 8985 §7; Linux 6.6 tcp_output.c
//! `tcp_schedule_loss_probe` / `tcp_send_loss_probe`, tcp_input.c
//! `tcp_process_tlp_ack`), `TcpConfig::tlp`.
//!
//! Every test starts from `established`: SYN answered after 100 ms, so SRTT
//! = min_rtt = 100 ms, RTO = max(SRTT + 4·RTTVAR, min_rto 1 s) = 1 s, peer
//! MSS 1000, SACK on, no timestamps. PTO with two or more segments out is
//! 2·SRTT + TCP_TIMEOUT_MIN (2 ms) = 202 ms.
use crate::common;
use common::*;

use airtcp_core::Instant;
use airtcp_tcp::endpoint::TimerKind;
use airtcp_tcp::{CaState, Endpoint, TcpConfig};

fn cfg(tlp: bool) -> TcpConfig {
    TcpConfig { sack: true, tlp, ..plain() }
}

/// Offsets of the data segments sent now.
fn sent(ep: &mut Endpoint, now: Instant) -> Vec<u64> {
    drain(ep, now).iter().filter(|s| s.payload_len > 0).map(our_off).collect()
}

/// Ten segments at 100 ms; the peer acknowledges the first eight at 200 ms
/// (segments 8 and 9, the tail, are lost). Nothing more arrives.
fn tail_loss(tlp: bool) -> Endpoint {
    let (mut ep, now) = established(cfg(tlp));
    ep.send(10_000);
    assert_eq!(sent(&mut ep, now).len(), 10);
    ack(&mut ep, ms(200), 8_000, 65_535);
    assert!(sent(&mut ep, ms(200)).is_empty());
    assert_eq!(ep.probe().ca_state, CaState::Open);
    ep
}

#[test]
fn tail_loss_probe_fires_after_2_srtt_not_rto() {
    // The ACK at 200 ms acknowledged data (FLAG_SET_XMIT_TIMER): RTO
    // restarted to 1.2 s, probe scheduled 2·SRTT + 2 ms later (two
    // segments out), well before it.
    let mut ep = tail_loss(true);
    assert_eq!(timer(&ep, TimerKind::Rto), Some(ms(1_200)));
    assert_eq!(timer(&ep, TimerKind::LossProbe), Some(ms(402)));
    let t = fire(&mut ep);
    assert_eq!(t, ms(402));
    assert_eq!(sent(&mut ep, t).len(), 1);
    assert_eq!(ep.stats().tlp_probes_sent, 1);
    assert_eq!(ep.stats().timeouts, 0);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    // tcp_send_loss_probe's probe_sent path: a full RTO from the probe.
    assert_eq!(timer(&ep, TimerKind::Rto), Some(ms(1_402)));
    assert_eq!(timer(&ep, TimerKind::LossProbe), None);
}

#[test]
fn tlp_retransmits_last_segment_when_no_new_data() {
    let mut ep = tail_loss(true);
    let t = fire(&mut ep);
    // Nothing unsent: the highest segment goes again, outside cwnd
    // accounting (`__tcp_retransmit_skb`: no retrans_out).
    assert_eq!(sent(&mut ep, t), vec![9_000]);
    assert_eq!(ep.stats().retransmissions, 1);
    assert_eq!(ep.sock().retrans_out, 0);
    // The probe draws a SACK of 9_000 that shows 8_000 missing: RACK
    // (segment 9 re-sent at 402 ms delivered; segment 8, sent at 100 ms, has
    // waited 402 ms > RACK.rtt 100 ms + reo_wnd 25 ms) marks it lost and
    // fast recovery repairs it — no timeout.
    // Slow start grew cwnd by the 8 segments acknowledged at 200 ms.
    assert_eq!(ep.probe().cwnd, 18);
    sack(&mut ep, ms(502), 8_000, &[(9_000, 10_000)]);
    assert_eq!(ep.probe().ca_state, CaState::Recovery);
    assert_eq!(sent(&mut ep, ms(502)), vec![8_000]);
    ack(&mut ep, ms(602), 10_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!(ep.stats().timeouts, 0);
    assert_eq!(ep.stats().fast_retransmits, 1);
    // Recovery's reduction is the only one (tcp_init_cwnd_reduction ended
    // the probe episode): ssthresh = 18 / 2.
    assert_eq!(ep.probe().ssthresh, 9);
    assert_eq!(ep.stats().tlp_recoveries, 0);
}

#[test]
fn tlp_sends_new_data_when_available() {
    // cwnd 10 holds back the second half of 20 segments; no ACK comes back.
    let (mut ep, now) = established(cfg(true));
    ep.send(20_000);
    assert_eq!(sent(&mut ep, now).len(), 10);
    assert_eq!(timer(&ep, TimerKind::LossProbe), Some(ms(302)));
    let t = fire(&mut ep);
    assert_eq!(t, ms(302));
    // New data fits the peer's window: one new segment, cwnd or not.
    assert_eq!(sent(&mut ep, t), vec![10_000]);
    assert_eq!(ep.stats().retransmissions, 0);
    assert_eq!(ep.stats().tlp_probes_sent, 1);
    assert_eq!(ep.sock().packets_out, 11);
    assert_eq!(timer(&ep, TimerKind::Rto), Some(ms(1_302)));
    // An ACK of everything through the probe ends the episode without a
    // reduction (`tlp_retrans` = 0).
    ack(&mut ep, ms(402), 11_000, 65_535);
    assert_eq!(ep.stats().tlp_recoveries, 0);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert!(ep.probe().cwnd > 10);
}

/// Segment 9 of 10 lost; 0..8 acknowledged at 200 ms; the probe (segment 9
/// again, at 402 ms) arrives and is acknowledged at 502 ms. Then one more
/// segment goes out.
fn probe_repairs_segment_9() -> Endpoint {
    let (mut ep, now) = established(cfg(true));
    ep.send(10_000);
    assert_eq!(sent(&mut ep, now).len(), 10);
    // Only segment 9 is out after this ACK, so the PTO adds the RTO floor
    // (room for a delayed ACK: 2·100 ms + 1 s) and the RTO (1.2 s) caps it.
    ack(&mut ep, ms(200), 9_000, 65_535);
    assert_eq!(timer(&ep, TimerKind::LossProbe), Some(ms(1_200)));
    let t = fire(&mut ep);
    assert_eq!(t, ms(1_200));
    assert_eq!(sent(&mut ep, t), vec![9_000]);
    // The probe timer ran first; it pushed the RTO a full RTO out.
    assert_eq!(ep.stats().timeouts, 0);
    assert_eq!(timer(&ep, TimerKind::Rto), Some(ms(2_200)));
    ack(&mut ep, ms(1_300), 10_000, 65_535);
    // ACK == tlp_high_seq: the episode stays open until data above it is
    // acknowledged.
    assert_eq!(ep.stats().tlp_recoveries, 0);
    ep.send(1_000);
    assert_eq!(sent(&mut ep, ms(1_300)), vec![10_000]);
    ep
}

#[test]
fn tlp_repairing_a_loss_reduces_cwnd() {
    let mut ep = probe_repairs_segment_9();
    let cwnd = ep.probe().cwnd;
    // ACK above tlp_high_seq (10_000) without a D-SACK of the probe: the
    // original 9 was lost and the probe repaired it. tcp_process_tlp_ack:
    // ssthresh from Reno (cwnd / 2), CWR, cwnd = ssthresh at once, back to
    // Open. App-limited, so the same ACK does not grow cwnd again.
    ack(&mut ep, ms(1_400), 11_000, 65_535);
    assert_eq!(ep.stats().tlp_recoveries, 1);
    assert_eq!(ep.probe().ssthresh, cwnd / 2);
    assert_eq!(ep.probe().cwnd, cwnd / 2);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!(ep.stats().fast_retransmits, 0);
    assert_eq!(ep.stats().timeouts, 0);
}

#[test]
fn tlp_dsacked_probe_is_not_a_loss() {
    let mut ep = probe_repairs_segment_9();
    let (cwnd, ssthresh) = (ep.probe().cwnd, ep.probe().ssthresh);
    // Both the original 9 and the probe arrived: the receiver D-SACKs the
    // probe (exactly [9_000, 10_000), = tlp_high_seq: FLAG_DSACK_TLP).
    sack(&mut ep, ms(1_310), 10_000, &[(9_000, 10_000)]);
    ack(&mut ep, ms(1_400), 11_000, 65_535);
    assert_eq!(ep.stats().tlp_recoveries, 0);
    assert_eq!(ep.probe().ssthresh, ssthresh);
    assert!(ep.probe().cwnd >= cwnd);
}

#[test]
fn tlp_off_waits_for_rto() {
    let mut ep = tail_loss(false);
    assert_eq!(timer(&ep, TimerKind::LossProbe), None);
    let t = fire(&mut ep);
    assert_eq!(t, ms(1_200));
    assert_eq!(ep.stats().timeouts, 1);
    assert_eq!(ep.stats().tlp_probes_sent, 0);
    assert_eq!(ep.probe().ca_state, CaState::Loss);
    assert_eq!(sent(&mut ep, t), vec![8_000]);
}

#[test]
fn tlp_needs_sack() {
    let (mut ep, now) = established(TcpConfig { sack: false, tlp: true, ..plain() });
    ep.send(10_000);
    sent(&mut ep, now);
    ack(&mut ep, ms(200), 8_000, 65_535);
    assert_eq!(timer(&ep, TimerKind::LossProbe), None);
    assert_eq!(fire(&mut ep), ms(1_200));
    assert_eq!(ep.stats().timeouts, 1);
}

#[test]
fn ns3_profile_has_no_tlp() {
    assert!(TcpConfig::default().tlp);
    assert!(!TcpConfig::ns3().tlp);
    assert!(!TcpConfig::default().with_ns3_behaviour().tlp);
    // Even switched on, ns-3's recovery has no probe (ns-3 3.44 has no TLP).
    let ns3 = TcpConfig { sack: true, tlp: true, ..plain().with_ns3_behaviour() };
    let (mut ep, now) = established(ns3);
    ep.send(10_000);
    sent(&mut ep, now);
    ack(&mut ep, ms(200), 8_000, 65_535);
    assert_eq!(timer(&ep, TimerKind::LossProbe), None);
    fire(&mut ep);
    assert_eq!(ep.stats().timeouts, 1);
    assert_eq!(ep.stats().tlp_probes_sent, 0);
}

#[test]
fn tlp_wire_tail_loss_recovers_without_rto() {
    // End to end: the last two data segments of a 20-segment transfer are
    // lost once; the probe and RACK repair them without a timeout.
    let mut w = pair(cfg(true), cfg(true), 1_000, 5_000, dms(25));
    w.drop_a_to_b = Box::new(|i, _| i == 18 || i == 19);
    w.run_until(ms(100));
    w.a.send(20_000);
    w.run_until(ms(10_000));
    assert_eq!(w.b_read, 20_000);
    assert_eq!(w.a.stats().timeouts, 0);
    assert_eq!(w.a.stats().tlp_probes_sent, 1);
    // Same with TLP off: the RTO repairs it.
    let mut w = pair(cfg(false), cfg(false), 1_000, 5_000, dms(25));
    w.drop_a_to_b = Box::new(|i, _| i == 18 || i == 19);
    w.run_until(ms(100));
    w.a.send(20_000);
    w.run_until(ms(10_000));
    assert_eq!(w.b_read, 20_000);
    assert_eq!(w.a.stats().timeouts, 1);
}

#[test]
fn tlp_only_in_open_or_cwr() {
    // Ten segments at 100 ms; at 200 ms segment 1 is missing below three
    // SACKed ones: Recovery. tcp_schedule_loss_probe refuses outside Open /
    // CWR, so the ACK's tcp_set_xmit_timer leaves only the RTO.
    let (mut ep, now) = established(cfg(true));
    ep.send(10_000);
    sent(&mut ep, now);
    assert_eq!(timer(&ep, TimerKind::LossProbe), Some(ms(302)));
    sack(&mut ep, ms(200), 1_000, &[(2_000, 5_000)]);
    assert_eq!(ep.probe().ca_state, CaState::Recovery);
    assert_eq!(sent(&mut ep, ms(200)).first(), Some(&1_000));
    assert_eq!(timer(&ep, TimerKind::LossProbe), None);
    assert!(timer(&ep, TimerKind::Rto).is_some());
}
