//! Wi-TCP's freeze and resume and the explicit handover notification on
//! ns-2's sender (`handover.rs`), one rule per test.

use airtcp_core::{Duration, Instant, WiTcp};

use super::super::{Ns2Event, Ns2Sender, TCP_MAXSEQ};
use super::HandoverEvent;
use crate::ns2::{Ns2Config, Ns2SinkKind, Ns2Variant};

fn at_ms(ms: u64) -> Instant {
    Instant::ZERO + Duration::from_millis(ms)
}

fn sent(s: &mut Ns2Sender) -> Vec<i64> {
    std::iter::from_fn(|| s.poll_transmit()).map(|o| o.seqno).collect()
}

fn handover_events(s: &mut Ns2Sender) -> Vec<HandoverEvent> {
    std::iter::from_fn(|| s.poll_event())
        .filter_map(|e| match e {
            Ns2Event::Handover(h) => Some(h),
            _ => None,
        })
        .collect()
}

/// A sender with the schemes given, its SYN ACKed at 40 ms, then ACKs of
/// packets 1..=4 at 100..=103 ms: cwnd 6, packets 5..=10 outstanding.
fn in_flight(v: Ns2Variant, witcp: bool, ehn: bool) -> Ns2Sender {
    let mut c = Ns2Config::new(v, Ns2SinkKind::TcpSink);
    c.window = 100;
    c.witcp = witcp;
    c.ehn = ehn;
    let mut s = Ns2Sender::new(c).unwrap();
    s.offer(at_ms(0), TCP_MAXSEQ);
    assert_eq!(sent(&mut s), vec![0]);
    s.handle_ack(at_ms(40), 0);
    assert_eq!(sent(&mut s), vec![1, 2]);
    for a in 1..=4 {
        s.handle_ack(at_ms(99 + a as u64), a);
    }
    assert_eq!(sent(&mut s), (3..=10).collect::<Vec<_>>());
    assert_eq!((s.cwnd(), s.highest_ack(), s.seqnos()), (6.0, 4, (11, 10)));
    while s.poll_event().is_some() {}
    s
}

fn frozen_at_110ms(v: Ns2Variant) -> Ns2Sender {
    let mut s = in_flight(v, true, false);
    assert!(s.handle_signal(at_ms(110), 4, WiTcp::Eho));
    s
}

#[test]
fn eho_ack_stores_window_and_stops_sending() {
    let mut s = frozen_at_110ms(Ns2Variant::NewReno);
    assert!(s.witcp_frozen());
    assert_eq!(handover_events(&mut s), vec![HandoverEvent::Freeze { cwnd: 6, ssthresh: 100 }]);
    assert_eq!(s.stats().witcp_freezes, 1);
    assert_eq!(s.stats().dup_acks_received, 0, "the signal is not a duplicate ACK");
    assert_eq!(s.poll_timeout(), None, "the timer is frozen");
    // ACKs still arrive and are processed, but nothing is sent on them.
    s.handle_ack(at_ms(120), 6);
    assert_eq!(s.highest_ack(), 6);
    assert!(sent(&mut s).is_empty());
}

#[test]
fn no_timeout_fires_while_frozen() {
    let mut s = frozen_at_110ms(Ns2Variant::Tahoe);
    for sec in 1..=30 {
        s.handle_timeout(at_ms(1000 * sec));
        assert!(sent(&mut s).is_empty());
    }
    assert_eq!(s.stats().timeouts, 0);
    assert_eq!(s.rtt().t_backoff, 1);
    assert_eq!(s.cwnd(), 6.0);
}

#[test]
fn ehc_ack_restores_window_and_resends_from_first_unacked() {
    let mut s = frozen_at_110ms(Ns2Variant::Reno);
    // Three duplicates while frozen: Reno's fast retransmit halves the
    // window (its packet held back); the EHC-ACK restores the stored one.
    for t in 120..123 {
        s.handle_ack(at_ms(t), 4);
    }
    assert_eq!(s.cwnd(), 3.0);
    assert!(sent(&mut s).is_empty());
    let rto = s.rto();
    assert!(s.handle_signal(at_ms(4110), 4, WiTcp::Ehc));
    assert!(!s.witcp_frozen());
    assert_eq!((s.cwnd(), s.ssthresh()), (6.0, 100));
    assert_eq!(sent(&mut s), (5..=10).collect::<Vec<_>>(), "the lost window again, cwnd-limited");
    assert_eq!(s.stats().retransmissions, 6);
    assert_eq!(s.poll_timeout(), Some(at_ms(4110) + rto), "a fresh, un-backed-off timer");
    assert_eq!(s.stats().witcp_frozen_ns, Duration::from_millis(4000).as_nanos());
    let ev = handover_events(&mut s);
    assert_eq!(ev.last(), Some(&HandoverEvent::Resume { cwnd: 6, ssthresh: 100, frozen: Duration::from_millis(4000), resent: 6 }));
}

#[test]
fn duplicates_of_the_resent_window_start_no_fast_retransmit() {
    let mut s = frozen_at_110ms(Ns2Variant::NewReno);
    s.handle_signal(at_ms(4110), 4, WiTcp::Ehc);
    sent(&mut s);
    // Packets 5..=10 reached the host after all: its duplicate ACKs of 10.
    s.handle_ack(at_ms(4150), 10);
    sent(&mut s);
    for t in 4151..4155 {
        s.handle_ack(at_ms(t), 10);
    }
    assert_eq!(s.stats().fast_retransmits, 0, "recover_ = maxseq_ at the resume (bugFix_)");
}

#[test]
fn eho_while_frozen_and_ehc_while_not_are_ignored() {
    let mut s = frozen_at_110ms(Ns2Variant::NewReno);
    assert!(s.handle_signal(at_ms(200), 4, WiTcp::Eho));
    assert_eq!((s.stats().witcp_freezes, s.stats().witcp_ignored), (1, 1));
    assert!(s.handle_signal(at_ms(300), 4, WiTcp::Ehc));
    assert!(s.handle_signal(at_ms(400), 4, WiTcp::Ehc));
    assert_eq!((s.stats().witcp_resumes, s.stats().witcp_ignored), (1, 2));
}

#[test]
fn signal_beyond_highest_sent_is_ignored() {
    let mut s = in_flight(Ns2Variant::NewReno, true, false);
    assert!(s.handle_signal(at_ms(110), 11, WiTcp::Eho));
    assert!(!s.witcp_frozen());
    assert_eq!(s.stats().witcp_ignored, 1);
}

#[test]
fn with_witcp_off_the_signal_is_left_to_ack_processing() {
    let mut s = in_flight(Ns2Variant::NewReno, false, false);
    assert!(!s.handle_signal(at_ms(110), 4, WiTcp::Eho));
    assert!(!s.witcp_frozen());
    assert!(s.poll_timeout().is_some());
}

/// Two timeouts of packet 5 (back-off 4), then the mobile's notification.
fn backed_off(ack_in_ehn: i64) -> (Ns2Sender, Vec<i64>, Instant) {
    let mut s = in_flight(Ns2Variant::NewReno, false, true);
    let t1 = s.poll_timeout().unwrap();
    s.handle_timeout(t1);
    let t2 = s.poll_timeout().unwrap();
    s.handle_timeout(t2);
    assert_eq!(sent(&mut s), vec![5, 5]);
    assert_eq!((s.rtt().t_backoff, s.cwnd()), (4, 1.0));
    let t = t2 + Duration::from_millis(300);
    assert!(s.handle_signal(t, ack_in_ehn, WiTcp::Ehn));
    let out = sent(&mut s);
    (s, out, t)
}

#[test]
fn ehn_clears_backoff_and_resends_from_the_notified_packet() {
    let (mut s, out, t) = backed_off(4);
    assert_eq!(out, vec![5], "window 1 as the timeouts left it");
    assert_eq!(s.rtt().t_backoff, 1);
    assert_eq!(s.stats().ehn_received, 1);
    assert_eq!(s.rto(), Duration::from_millis(200));
    assert_eq!(s.poll_timeout(), Some(t + Duration::from_millis(200)), "the RTO without back-off");
    assert_eq!(handover_events(&mut s), vec![HandoverEvent::Notified { resent: 6 }]);
}

#[test]
fn ehn_beyond_highest_ack_is_taken_as_an_ack_without_sending_twice() {
    let (s, out, _) = backed_off(7);
    assert_eq!(s.highest_ack(), 7);
    assert_eq!(out, vec![8, 9], "only from the notified packet, under the grown window");
    assert_eq!(s.stats().segs_received, 6, "SYN ACK, four ACKs, one notification");
}
