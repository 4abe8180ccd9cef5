//! RACK loss detection (RFC 8985 §6, `TcpConfig::rack`): lost
//! retransmissions (in Recovery and in Loss), the reordering window (and how
//! reordering and D-SACKs adapt it), the reordering timer, and no effect
//! without SACK or with ns-3's recovery.
use crate::common;
use common::*;

use airtcp_core::Instant;
use airtcp_tcp::endpoint::TimerKind;
use airtcp_tcp::{CaState, Endpoint, TcpConfig};

fn sack_cfg(rack: bool) -> TcpConfig {
    TcpConfig { sack: true, rack, ..plain() }
}

/// (offset, time) of each data segment sent in response to one input.
fn sent(ep: &mut Endpoint, now: Instant) -> Vec<(u64, Instant)> {
    drain(ep, now).iter().filter(|s| s.payload_len > 0).map(|s| (our_off(s), now)).collect()
}

/// Segment 0 of 10 is lost; the receiver SACKs 1..9 one by one from 200 ms.
/// The third SACK starts recovery and the fast retransmission of 0 (which
/// the wire loses again); PRR releases new data on later SACKs. Returns the
/// endpoint, the time of the fast retransmission, everything sent, and the
/// right edge of the data sent after the retransmission.
fn lose_the_retransmission(rack: bool) -> (Endpoint, Instant, Vec<(u64, Instant)>) {
    let (mut ep, now) = established(sack_cfg(rack));
    assert_eq!(ep.sock().min_rtt_us, 100_000);
    ep.send(1_000_000);
    assert_eq!(drain(&mut ep, now).len(), 10);
    let mut out = Vec::new();
    for i in 1..=9u64 {
        let t = now + dms(100 + i);
        sack(&mut ep, t, 0, &[(1000, (i + 1) * 1000)]);
        out.extend(sent(&mut ep, t));
    }
    let retx = out.iter().find(|x| x.0 == 0).expect("fast retransmission").1;
    (ep, retx, out)
}

#[test]
fn rack_retransmits_a_lost_retransmission_without_rto_or_second_cut() {
    let (mut ep, retx, out) = lose_the_retransmission(true);
    // Third SACK (at 203 ms): recovery, ssthresh 5, retransmission of 0;
    // PRR then releases new data 10_000.. on the later SACKs.
    // Limited transmit sends 10_000 and 11_000 on the first two SACKs; the
    // third (203 ms) starts recovery (ssthresh 5, recovery point 12_000) with
    // the retransmission of 0; PRR releases 12_000 and 13_000 afterwards.
    assert_eq!(out, vec![(10_000, ms(201)), (11_000, ms(202)), (0, ms(203)), (12_000, ms(205)), (13_000, ms(207))]);
    assert_eq!(retx, ms(203));
    assert_eq!((ep.probe().ca_state, ep.probe().ssthresh), (CaState::Recovery, 5));
    assert_eq!(ep.sock().retrans_out, 1);
    // The data sent after the retransmission arrives: SACK of 12_000 (sent at
    // 205 ms, RACK.rtt 100 ms) proves the retransmission of 0 (sent at
    // 203 ms, waited 102 ms > RACK.rtt + reo_wnd 0 in recovery) lost.
    let t = ms(305);
    sack(&mut ep, t, 0, &[(1000, 13_000)]);
    assert_eq!(ep.stats().lost_retransmits, 1);
    let s = sent(&mut ep, t);
    assert_eq!(s.first(), Some(&(0, t)));
    assert_eq!(ep.stats().retransmissions, 2);
    assert_eq!(ep.stats().timeouts, 0);
    assert_eq!(ep.stats().fast_retransmits, 1);
    assert_eq!((ep.probe().ca_state, ep.probe().ssthresh), (CaState::Recovery, 5));
    // The second retransmission arrives: everything up to 13_000 is acked,
    // recovery (point 10_000) ends with the one ssthresh cut.
    let hi = out.iter().chain(s.iter()).map(|x| x.0 + 1000).max().unwrap();
    ack(&mut ep, t + dms(100), hi, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!(ep.probe().ssthresh, 5);
    assert_eq!(ep.stats().timeouts, 0);
}

#[test]
fn without_rack_a_lost_retransmission_waits_for_the_rto() {
    let (mut ep, retx, out) = lose_the_retransmission(false);
    assert_eq!(retx, ms(203));
    assert_eq!(out.iter().map(|x| x.0).collect::<Vec<_>>(), vec![10_000, 11_000, 0, 12_000, 13_000]);
    let t = ms(305);
    sack(&mut ep, t, 0, &[(1000, 13_000)]);
    let s = sent(&mut ep, t);
    assert!(s.iter().all(|x| x.0 != 0), "no retransmission of 0 without RACK: {s:?}");
    assert_eq!(ep.stats().lost_retransmits, 0);
    sack(&mut ep, ms(307), 0, &[(1000, 14_000)]);
    assert!(sent(&mut ep, ms(307)).iter().all(|x| x.0 != 0));
    // Only the RTO repairs it: armed at the first send (100 ms) with the
    // RFC 6298 1 s floor, never restarted since SND.UNA never moved.
    let f = fire(&mut ep);
    assert_eq!(ep.stats().timeouts, 1);
    assert_eq!(ep.probe().ca_state, CaState::Loss);
    assert_eq!(sent(&mut ep, f).first().map(|x| x.0), Some(0));
    assert_eq!(f, ms(1_100));
}

/// One recovery episode driven by dupacks / SACKs; returns everything that
/// changed on the wire and in the socket, to compare RACK on and off.
fn trace(cfg: TcpConfig) -> Vec<(u64, Instant, u32, u32, u64)> {
    let (mut ep, now) = established(cfg);
    ep.send(1_000_000);
    let mut tr = Vec::new();
    let log = |ep: &mut Endpoint, t: Instant, tr: &mut Vec<_>| {
        for (o, t) in sent(ep, t) {
            let p = ep.probe();
            tr.push((o, t, p.cwnd, p.ssthresh, ep.stats().timeouts));
        }
    };
    log(&mut ep, now, &mut tr);
    let sack_on = ep.sack_enabled();
    // Segment 0 is lost twice (its fast retransmission too); 1..9 arrive,
    // then the new data sent during recovery.
    for i in 1..=12u64 {
        let t = now + dms(100 + 10 * i);
        if sack_on {
            sack(&mut ep, t, 0, &[(1000, (i + 1) * 1000)]);
        } else {
            ack(&mut ep, t, 0, 65_535);
        }
        log(&mut ep, t, &mut tr);
    }
    let f = fire(&mut ep);
    log(&mut ep, f, &mut tr);
    ack(&mut ep, f + dms(100), 13_000, 65_535);
    log(&mut ep, f + dms(100), &mut tr);
    tr
}

#[test]
fn rack_changes_nothing_without_sack() {
    let on = trace(TcpConfig { sack: false, rack: true, ..plain() });
    let off = trace(TcpConfig { sack: false, rack: false, ..plain() });
    assert_eq!(on, off);
    // The RTO is what repaired the lost retransmission.
    assert_eq!(on.last().unwrap().4, 1);
}

#[test]
fn rack_changes_nothing_with_ns3_recovery() {
    let ns3 = |rack| TcpConfig { sack: true, rack, ..plain().with_ns3_behaviour() };
    let on = trace(ns3(true));
    let off = trace(ns3(false));
    assert_eq!(on, off);
    // Whereas with Linux recovery RACK does change this script.
    let on = trace(sack_cfg(true));
    let off = trace(sack_cfg(false));
    assert_ne!(on, off);
}

/// Five segments at 100 ms, one more (5_000) at `later`; the receiver gets
/// segment 5 first (reordered ahead of 0..4) and SACKs it 100 ms after it
/// was sent.
fn reordered(later: Instant) -> Endpoint {
    let (mut ep, now) = established(sack_cfg(true));
    ep.send(5_000);
    assert_eq!(drain(&mut ep, now).len(), 5);
    ep.send(1_000);
    assert_eq!(sent(&mut ep, later), vec![(5_000, later)]);
    let t = later + dms(100);
    sack(&mut ep, t, 0, &[(5_000, 6_000)]);
    ep
}

#[test]
fn reordering_within_reo_wnd_is_not_loss() {
    // reo_wnd = min_rtt / 4 = 25 ms (one SACK, not in recovery). Segment 5
    // was sent 20 ms after 0..4: still within the window.
    let mut ep = reordered(ms(120));
    assert_eq!(ep.sock().lost_out, 0);
    assert_eq!(ep.probe().ca_state, CaState::Disorder);
    assert_eq!(sent(&mut ep, ms(220)), vec![]);
    // 0..4 arrive late: cumulative ACK of everything, nothing was retransmitted.
    ack(&mut ep, ms(230), 6_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!(ep.stats().retransmissions, 0);
    assert_eq!(ep.stats().fast_retransmits, 0);
}

#[test]
fn reordering_beyond_reo_wnd_is_loss_after_one_sack() {
    // Segment 5 sent 30 ms after 0..4 and SACKed 100 ms later: 0..4 have
    // waited 130 ms > RACK.rtt 100 ms + reo_wnd 25 ms — all five are lost,
    // with a single SACK (DupThresh would need three).
    let mut ep = reordered(ms(130));
    assert_eq!(ep.sock().lost_out, 5);
    assert_eq!(ep.probe().ca_state, CaState::Recovery);
    assert_eq!(ep.stats().fast_retransmits, 1);
    let s: Vec<u64> = sent(&mut ep, ms(230)).iter().map(|x| x.0).collect();
    assert_eq!(s.first(), Some(&0));
    // Without RACK the single SACK is not enough.
    let (mut ep, now) = established(sack_cfg(false));
    ep.send(5_000);
    drain(&mut ep, now);
    ep.send(1_000);
    drain(&mut ep, ms(130));
    sack(&mut ep, ms(230), 0, &[(5_000, 6_000)]);
    assert_eq!(ep.sock().lost_out, 0);
    assert_eq!(ep.probe().ca_state, CaState::Disorder);
}

#[test]
fn rack_reo_timer_marks_lost_after_window() {
    // As in `reordering_within_reo_wnd_is_not_loss`: at 220 ms 0..4 have
    // waited 120 ms < RACK.rtt 100 ms + reo_wnd 25 ms, 5 ms short. Linux
    // (tcp_rack_mark_lost) arms the reordering timer for those 5 ms +
    // TCP_TIMEOUT_MIN (2 ms), replacing the probe timer.
    let mut ep = reordered(ms(120));
    assert_eq!(ep.rack_reo_wnd(), dms(25));
    assert_eq!(timer(&ep, TimerKind::ReoTimeout), Some(ms(227)));
    assert_eq!(timer(&ep, TimerKind::LossProbe), None);
    // Nothing arrives: tcp_rack_reo_timeout marks all five lost, enters
    // Recovery and sends the first one (PRR allows one: in flight 0).
    let t = fire(&mut ep);
    assert_eq!(t, ms(227));
    assert_eq!(ep.sock().lost_out, 5);
    assert_eq!(ep.probe().ca_state, CaState::Recovery);
    assert_eq!(ep.stats().rack_reo_timeouts, 1);
    assert_eq!(ep.stats().fast_retransmits, 1);
    assert_eq!(sent(&mut ep, t), vec![(0, t)]);
    assert_eq!(ep.stats().timeouts, 0);
    // Without RACK nothing but the RTO would have acted.
    let (mut ep, now) = established(sack_cfg(false));
    ep.send(5_000);
    drain(&mut ep, now);
    ep.send(1_000);
    drain(&mut ep, ms(120));
    sack(&mut ep, ms(220), 0, &[(5_000, 6_000)]);
    assert_eq!(timer(&ep, TimerKind::ReoTimeout), None);
}

#[test]
fn reordering_is_detected_and_keeps_reo_wnd_in_recovery() {
    // Six segments at 100 ms. Segment 1 is SACKed first, then the cumulative
    // ACK covers segment 0, never retransmitted: a hole below SACKed data
    // filled late is reordering (tcp_check_sack_reordering, reord_seen).
    let (mut ep, now) = established(sack_cfg(true));
    ep.send(6_000);
    drain(&mut ep, now);
    sack(&mut ep, ms(200), 0, &[(1_000, 2_000)]);
    assert_eq!(ep.stats().reordering_seen, 0);
    ack(&mut ep, ms(201), 2_000, 65_535);
    assert_eq!(ep.stats().reordering_seen, 1);
    // With reordering seen, reo_wnd stays min_rtt/4 even after DupThresh
    // SACKs (where it would be 0 otherwise).
    sack(&mut ep, ms(202), 2_000, &[(3_000, 6_000)]);
    assert_eq!(ep.sock().sacked_out, 3);
    assert_eq!(ep.rack_reo_wnd(), dms(25));
    // Without reordering, three SACKs close the window (RFC 8985 step 4).
    let (mut ep, now) = established(sack_cfg(true));
    ep.send(6_000);
    drain(&mut ep, now);
    sack(&mut ep, ms(202), 0, &[(1_000, 4_000)]);
    assert_eq!(ep.stats().reordering_seen, 0);
    assert_eq!(ep.rack_reo_wnd(), dms(0));
}

#[test]
fn dsack_grows_reo_wnd() {
    let (mut ep, now) = established(sack_cfg(true));
    ep.send(6_000);
    drain(&mut ep, now);
    // Reordering seen (as above).
    sack(&mut ep, ms(200), 0, &[(1_000, 2_000)]);
    ack(&mut ep, ms(201), 2_000, 65_535);
    assert_eq!(ep.rack_reo_wnd(), dms(25));
    // Segment 2 is marked lost (three SACKs above it) and retransmitted...
    sack(&mut ep, ms(202), 2_000, &[(3_000, 6_000)]);
    let s = sent(&mut ep, ms(202));
    assert_eq!(s.first(), Some(&(2_000, ms(202))));
    // ...but the original was only late: everything is acknowledged, then
    // the retransmission is D-SACKed. The D-SACK arrives on an ACK that
    // delivers nothing new (no rate sample), so the step waits for the next
    // ACK that does (tcp_rack_update_reo_wnd: !rs->prior_delivered).
    let hi = 6_000 + 1_000 * (s.len() as u64 - 1);
    ack(&mut ep, ms(250), hi, 65_535);
    sack(&mut ep, ms(302), hi, &[(2_000, 3_000)]);
    assert_eq!(ep.stats().dsacks_received, 1);
    assert_eq!(ep.rack_reo_wnd(), dms(25));
    ep.send(2_000);
    let t = ms(400);
    assert_eq!(sent(&mut ep, t).len(), 2);
    ack(&mut ep, ms(500), hi + 1_000, 65_535);
    // Two steps: 2 · min_rtt/4, below SRTT.
    assert_eq!(ep.rack_reo_wnd(), dms(50));
    // Once per round trip: a second D-SACK for data sent before the step
    // (the same retransmission again) does not add another.
    sack(&mut ep, ms(501), hi + 1_000, &[(2_000, 3_000)]);
    ack(&mut ep, ms(502), hi + 2_000, 65_535);
    assert_eq!(ep.rack_reo_wnd(), dms(50));
}

#[test]
fn rack_marks_lost_in_loss_state() {
    // F-RTO off to keep Loss plain go-back-N (F-RTO would hold new data),
    // TLP off so that the timeout, not a probe, answers the silence.
    let cfg = |rack| TcpConfig { sack: true, rack, frto: false, tlp: false, ..plain() };
    let run = |rack: bool| {
        let (mut ep, now) = established(cfg(rack));
        ep.send(10_000);
        drain(&mut ep, now);
        // Nothing comes back: RTO at 1.1 s, Loss, everything LOST, cwnd 1.
        let t = fire(&mut ep);
        assert_eq!(t, ms(1_100));
        assert_eq!(ep.probe().ca_state, CaState::Loss);
        assert_eq!(sent(&mut ep, t), vec![(0, t)]);
        // The retransmission of 0 is acknowledged; slow start sends 1 and 2
        // again at 1.2 s.
        ack(&mut ep, ms(1_200), 1_000, 65_535);
        assert_eq!(sent(&mut ep, ms(1_200)).iter().map(|x| x.0).collect::<Vec<_>>(), vec![1_000, 2_000]);
        // The second retransmission of 1 is lost; 2's arrives and is SACKed.
        sack(&mut ep, ms(1_300), 1_000, &[(2_000, 3_000)]);
        let s = sent(&mut ep, ms(1_300));
        (ep, s)
    };
    // RACK (in Loss too, Linux tcp_fastretrans_alert's TCP_CA_Loss case):
    // 2, re-sent at 1.2 s (after 1 by sequence), was delivered after RACK.rtt
    // 100 ms; 1 has waited as long with reo_wnd 0 in Loss — lost again. A
    // lost retransmission in Loss falls through to the Open path and starts
    // Recovery (fresh ssthresh from cwnd 2: max(1, 2)), which resends it.
    let (ep, s) = run(true);
    assert_eq!(ep.stats().lost_retransmits, 1);
    assert_eq!(ep.probe().ca_state, CaState::Recovery);
    assert_eq!(ep.probe().ssthresh, 2);
    assert_eq!(s.first().map(|x| x.0), Some(1_000));
    assert_eq!(ep.stats().timeouts, 1);
    // Without RACK the lost retransmission stays in flight: go-back-N
    // continues with 3.. and 1 waits for the next RTO.
    let (ep, s) = run(false);
    assert_eq!(ep.stats().lost_retransmits, 0);
    assert_eq!(ep.probe().ca_state, CaState::Loss);
    assert!(s.iter().all(|x| x.0 != 1_000), "{s:?}");
}
