//! RACK loss detection (RFC 8985 subset, `TcpConfig::rack`): lost
//! retransmissions, reordering window, and no effect without SACK or with
//! ns-3's recovery.
mod common;
use common::*;

use airtcp_core::Instant;
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
