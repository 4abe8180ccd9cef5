//! The explicit handover notification sender (seed 001's reference [8],
//! `endpoint/ehn.rs`): an ACK with the EHN signal clears the RTO back-off
//! and resends from its acknowledgement number at once.
use crate::common;
use common::*;

use airtcp_core::{Segment, WiTcp};
use airtcp_tcp::endpoint::TimerKind;
use airtcp_tcp::{CaState, Endpoint, Event, TcpConfig};

fn ehn() -> TcpConfig {
    TcpConfig { ehn: true, ..plain() }
}

/// The mobile host's notification: its cumulative ACK of `acked` bytes.
fn notify(ep: &mut Endpoint, now: airtcp_core::Instant, acked: u64) {
    let seg = Segment { ack: our_seq(acked), witcp: Some(WiTcp::Ehn), ..from_peer() };
    ep.handle_segment(now, &seg);
}

/// Established with ten segments in flight, then two backed-off timeouts
/// (the host vanished): RTO 1 s, then 2 s, now 4 s.
fn backed_off() -> (Endpoint, airtcp_core::Instant) {
    let (mut ep, now) = established(ehn());
    ep.send(100_000);
    assert_eq!(drain(&mut ep, now).len(), 10);
    let t1 = fire(&mut ep);
    assert_eq!(t1, now + dms(1000));
    drain(&mut ep, t1);
    let t2 = fire(&mut ep);
    assert_eq!(t2, t1 + dms(2000));
    drain(&mut ep, t2);
    assert_eq!(timer(&ep, TimerKind::Rto), Some(t2 + dms(4000)));
    assert_eq!(ep.stats().timeouts, 2);
    (ep, t2)
}

#[test]
fn notification_resets_the_backed_off_timer_and_resends_at_once() {
    let (mut ep, t2) = backed_off();
    let cwnd = ep.probe().cwnd;
    events(&mut ep);
    let t = t2 + dms(500);
    notify(&mut ep, t, 0);
    let segs = drain(&mut ep, t);
    assert_eq!(segs.iter().map(our_off).collect::<Vec<_>>(), (0..cwnd as u64).map(|i| i * 1000).collect::<Vec<_>>());
    assert_eq!(timer(&ep, TimerKind::Rto), Some(t + dms(1000)), "back-off cleared: the base RTO again");
    assert_eq!(ep.probe().cwnd, cwnd, "the window the timeouts left is kept");
    assert_eq!(ep.stats().ehn_received, 1);
    assert_eq!(ep.stats().dup_acks_received, 0, "a control message, not a duplicate ACK");
    assert_eq!(events(&mut ep), vec![Event::HandoverNotified { lost: 10 }]);
}

#[test]
fn acknowledgement_lost_in_the_handover_is_taken_first() {
    let (mut ep, now) = established(ehn());
    ep.sock_mut().snd_cwnd = 8;
    ep.send(100_000);
    assert_eq!(drain(&mut ep, now).len(), 8);
    // The host got four segments, but its ACKs died with the old cell.
    let t = now + dms(600);
    notify(&mut ep, t, 4000);
    assert_eq!(ep.probe().snd_una, our_seq(4000));
    assert_eq!(ep.probe().ca_state, CaState::Loss);
    let offs: Vec<u64> = drain(&mut ep, t).iter().map(our_off).collect();
    assert_eq!(&offs[..4], &[4000, 5000, 6000, 7000], "go-back-N from the notified number");
    assert_eq!(ep.stats().timeouts, 0);
}

#[test]
fn without_the_option_the_notification_is_an_ordinary_ack() {
    let (mut ep, t2) = established(plain());
    ep.send(100_000);
    drain(&mut ep, t2);
    notify(&mut ep, t2 + dms(10), 0);
    assert_eq!(ep.stats().ehn_received, 0);
    assert_eq!(ep.stats().dup_acks_received, 1);
}

#[test]
fn witcp_sender_does_not_take_a_notification_for_a_signal() {
    let (mut ep, now) = established(TcpConfig { witcp: true, ..plain() });
    ep.send(100_000);
    drain(&mut ep, now);
    notify(&mut ep, now + dms(10), 0);
    assert_eq!((ep.witcp_frozen(), ep.stats().ehn_received), (None, 0));
    assert_eq!(ep.stats().dup_acks_received, 1);
}

#[test]
fn notification_beyond_what_was_sent_is_ignored() {
    let (mut ep, t2) = backed_off();
    notify(&mut ep, t2 + dms(10), 900_000);
    assert_eq!(ep.stats().ehn_received, 0);
    assert_eq!(timer(&ep, TimerKind::Rto), Some(t2 + dms(4000)));
}
