//! Wi-TCP's sender (seed 001 §5, `endpoint/witcp.rs`): EHO-ACK freezes
//! cwnd, ssthresh, sending and the timers; EHC-ACK restores and resumes.
use crate::common;
use common::*;

use airtcp_core::{Segment, WiTcp};
use airtcp_tcp::endpoint::TimerKind;
use airtcp_tcp::{CaState, Endpoint, Event, TcpConfig};

fn witcp() -> TcpConfig {
    TcpConfig { witcp: true, ..plain() }
}

/// The agent's signal: an ACK of `acked` stream bytes carrying the option.
fn signal(ep: &mut Endpoint, now: airtcp_core::Instant, acked: u64, sig: WiTcp) {
    let seg = Segment { ack: our_seq(acked), witcp: Some(sig), ..from_peer() };
    ep.handle_segment(now, &seg);
}

/// Established, cwnd pinned to 12 and ssthresh to 8, twelve segments in flight.
fn sending() -> (Endpoint, airtcp_core::Instant) {
    let (mut ep, now) = established(witcp());
    ep.sock_mut().snd_cwnd = 12;
    ep.sock_mut().snd_ssthresh = 8;
    ep.send(100_000);
    let segs = drain(&mut ep, now);
    assert_eq!(segs.len(), 12);
    assert_eq!(timer(&ep, TimerKind::Rto), Some(now + dms(1000)));
    (ep, now)
}

#[test]
fn eho_ack_stores_cwnd_and_ssthresh_and_stops_sending() {
    let (mut ep, now) = sending();
    let t = now + dms(40);
    signal(&mut ep, t, 0, WiTcp::Eho);
    let f = ep.witcp_frozen().expect("frozen");
    assert_eq!((f.since, f.cwnd, f.ssthresh), (t, 12, 8));
    assert_eq!(ep.stats().witcp_freezes, 1);
    assert_eq!(ep.stats().dup_acks_received, 0, "the signal is not a duplicate ACK");
    assert!(drain(&mut ep, t).is_empty());
    assert_eq!(ep.poll_timeout(), None, "every timer frozen");
}

#[test]
fn no_timeout_fires_while_frozen() {
    let (mut ep, now) = sending();
    signal(&mut ep, now + dms(40), 0, WiTcp::Eho);
    for s in 1..=30 {
        let t = now + dms(1000 * s);
        ep.handle_timeout(t);
        assert!(drain(&mut ep, t).is_empty());
        assert_eq!(ep.poll_timeout(), None);
    }
    assert_eq!(ep.stats().timeouts, 0);
    assert!(!events(&mut ep).iter().any(|e| matches!(e, Event::Timeout { .. })));
    assert_eq!(ep.probe().cwnd, 12);
}

#[test]
fn ehc_ack_restores_both_and_resends_the_window_at_once() {
    let (mut ep, now) = sending();
    signal(&mut ep, now + dms(40), 0, WiTcp::Eho);
    // Something moves the window while frozen: restored regardless.
    ep.sock_mut().snd_cwnd = 1;
    ep.sock_mut().snd_ssthresh = 2;
    let t = now + dms(4000);
    signal(&mut ep, t, 0, WiTcp::Ehc);
    assert_eq!(ep.witcp_frozen(), None);
    assert_eq!((ep.probe().cwnd, ep.probe().ssthresh), (12, 8));
    assert_eq!(ep.probe().ca_state, CaState::Loss);
    let segs = drain(&mut ep, t);
    let offs: Vec<u64> = segs.iter().map(our_off).collect();
    assert_eq!(offs, (0..12).map(|i| i * 1000).collect::<Vec<_>>(), "the lost window again, cwnd-limited");
    assert_eq!(ep.stats().retransmissions, 12);
    assert_eq!(timer(&ep, TimerKind::Rto), Some(t + dms(1000)));
    assert_eq!(ep.stats().witcp_frozen_ns, dms(3960).0);
    // The receiver had nothing: its ACK of all twelve ends Loss, new data follows.
    ack(&mut ep, t + dms(100), 12_000, 65_535);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    let segs = drain(&mut ep, t + dms(100));
    assert!(segs.len() >= 12, "the restored window sends new data: {}", segs.len());
    assert_eq!(our_off(&segs[0]), 12_000);
    assert_eq!(ep.stats().timeouts, 0);
}

#[test]
fn acks_arriving_while_frozen_advance_but_rearm_nothing() {
    let (mut ep, now) = sending();
    signal(&mut ep, now + dms(40), 0, WiTcp::Eho);
    ack(&mut ep, now + dms(50), 3000, 65_535);
    assert_eq!(ep.probe().snd_una, our_seq(3000));
    assert_eq!(timer(&ep, TimerKind::Rto), None);
    assert!(drain(&mut ep, now + dms(50)).is_empty());
    signal(&mut ep, now + dms(900), 3000, WiTcp::Ehc);
    assert_eq!(ep.probe().cwnd, 12);
    let offs: Vec<u64> = drain(&mut ep, now + dms(900)).iter().map(our_off).collect();
    assert_eq!(&offs[..9], &(3..12).map(|i| i * 1000).collect::<Vec<_>>()[..]);
    assert_eq!(offs.len(), 12, "nine retransmissions and three new segments");
}

#[test]
fn pure_acks_still_go_out_while_frozen() {
    let (mut ep, now) = sending();
    signal(&mut ep, now + dms(40), 0, WiTcp::Eho);
    data(&mut ep, now + dms(60), 0, 500);
    data(&mut ep, now + dms(61), 500, 500);
    let segs = drain(&mut ep, now + dms(61));
    assert_eq!(segs.len(), 1);
    assert_eq!((segs[0].payload_len, segs[0].ack), (0, peer_seq(1000)));
}

#[test]
fn signals_beyond_what_was_sent_and_out_of_turn_are_ignored() {
    let (mut ep, now) = sending();
    signal(&mut ep, now + dms(10), 50_000, WiTcp::Eho);
    assert_eq!(ep.witcp_frozen(), None);
    signal(&mut ep, now + dms(11), 0, WiTcp::Ehc);
    signal(&mut ep, now + dms(12), 0, WiTcp::Eho);
    signal(&mut ep, now + dms(13), 0, WiTcp::Eho);
    assert_eq!(ep.witcp_frozen().map(|f| f.since), Some(now + dms(12)));
    assert_eq!(ep.stats().witcp_ignored, 3);
}

#[test]
fn without_the_option_the_signal_is_an_ordinary_ack() {
    let (mut ep, now) = established(plain());
    ep.send(100_000);
    assert_eq!(drain(&mut ep, now).len(), 10);
    signal(&mut ep, now + dms(40), 0, WiTcp::Eho);
    assert_eq!(ep.witcp_frozen(), None);
    assert_eq!(ep.stats().dup_acks_received, 1);
    assert!(timer(&ep, TimerKind::Rto).is_some());
}

#[test]
fn max_freeze_guard_resumes_without_ehc_ack() {
    let cfg = TcpConfig { witcp_max_freeze: Some(dms(2500)), ..witcp() };
    let (mut ep, now) = established(cfg);
    ep.send(5000);
    assert_eq!(drain(&mut ep, now).len(), 5);
    signal(&mut ep, now + dms(10), 0, WiTcp::Eho);
    assert_eq!(ep.poll_timeout(), Some(now + dms(2510)));
    assert_eq!(fire(&mut ep), now + dms(2510));
    assert_eq!(ep.witcp_frozen(), None);
    assert_eq!((ep.stats().witcp_resumes, ep.stats().witcp_forced_thaws), (1, 1));
    assert_eq!(drain(&mut ep, now + dms(2510)).len(), 5);
    assert!(TcpConfig { witcp_max_freeze: Some(dms(0)), ..witcp() }.validate().is_err());
}

#[test]
fn with_sack_the_resent_window_skips_what_the_receiver_holds() {
    let cfg = TcpConfig { sack: true, ..witcp() };
    let (mut ep, now) = established(cfg);
    assert!(ep.sack_enabled());
    ep.sock_mut().snd_cwnd = 6;
    ep.send(100_000);
    assert_eq!(drain(&mut ep, now).len(), 6);
    // Segments 2 and 3 arrived before the host left.
    sack(&mut ep, now + dms(30), 0, &[(2000, 4000)]);
    signal(&mut ep, now + dms(40), 0, WiTcp::Eho);
    let t = now + dms(2000);
    signal(&mut ep, t, 0, WiTcp::Ehc);
    let offs: Vec<u64> = drain(&mut ep, t).iter().map(our_off).collect();
    assert_eq!(&offs[..4], &[0, 1000, 4000, 5000], "the SACKed pair is not resent");
    assert_eq!(ep.stats().retransmissions, 4);
}

#[test]
fn freeze_and_resume_are_events_with_the_stored_window() {
    let (mut ep, now) = sending();
    events(&mut ep);
    signal(&mut ep, now + dms(40), 0, WiTcp::Eho);
    assert_eq!(events(&mut ep), vec![Event::WiTcpFreeze { cwnd: 12, ssthresh: 8 }]);
    ep.sock_mut().snd_cwnd = 3;
    signal(&mut ep, now + dms(1540), 0, WiTcp::Ehc);
    assert_eq!(
        events(&mut ep),
        vec![
            Event::CaStateChanged { from: CaState::Open, to: CaState::Loss },
            Event::WiTcpResume { cwnd: 12, ssthresh: 8, frozen: dms(1500), forced: false },
        ]
    );
}

#[test]
fn forced_resume_is_marked_in_its_event() {
    let cfg = TcpConfig { witcp_max_freeze: Some(dms(700)), ..witcp() };
    let (mut ep, now) = established(cfg);
    ep.send(3000);
    drain(&mut ep, now);
    signal(&mut ep, now + dms(10), 0, WiTcp::Eho);
    fire(&mut ep);
    let ev = events(&mut ep);
    assert!(ev.contains(&Event::WiTcpResume { cwnd: 10, ssthresh: ep.probe().ssthresh, frozen: dms(700), forced: true }), "{ev:?}");
}
