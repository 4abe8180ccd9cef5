//! Freeze-TCP's receiver (Goff et al., INFOCOM 2000; `endpoint/freeze.rs`):
//! a zero window from the handoff warning on, three TR-ACKs with the window
//! reopened on reconnection.
use crate::common;
use common::*;

use std::cell::Cell;
use std::rc::Rc;

use airtcp_core::Instant;
use airtcp_tcp::endpoint::TimerKind;
use airtcp_tcp::{TcpConfig, TR_ACKS};

fn freezer() -> TcpConfig {
    TcpConfig { freeze: true, delack_count: 1, ..plain() }
}

#[test]
fn freeze_advertises_a_zero_window_at_once() {
    let (mut ep, now) = established_receiver(freezer());
    data(&mut ep, now, 0, 1000);
    data(&mut ep, now, 1000, 1000);
    drain(&mut ep, now);
    ep.recv(u64::MAX);
    assert!(ep.freeze(now));
    assert!(ep.freeze_active());
    let segs = drain(&mut ep, now);
    assert_eq!(segs.len(), 1, "one ZWA at once");
    assert_eq!((segs[0].ack, segs[0].window, segs[0].payload_len), (peer_seq(2000), 0, 0));
    assert_eq!(ep.stats().freeze_zwas, 1);
    assert!(!ep.freeze(now), "a second warning changes nothing");
    assert_eq!(ep.stats().freeze_zwas, 1);
}

#[test]
fn frozen_receiver_accepts_data_in_flight_and_acks_it_with_a_zero_window() {
    let (mut ep, now) = established_receiver(freezer());
    assert!(ep.freeze(now));
    drain(&mut ep, now);
    // Sent before the sender saw the ZWA: inside the window promised earlier.
    data(&mut ep, now, 0, 1000);
    let mut segs = drain(&mut ep, now);
    data(&mut ep, now, 1000, 1000);
    segs.extend(drain(&mut ep, now));
    assert_eq!(ep.recv_available(), 2000, "the promised window is honoured");
    assert_eq!(segs.iter().map(|s| (s.ack, s.window)).collect::<Vec<_>>(), vec![(peer_seq(1000), 0), (peer_seq(2000), 0)]);
    // A zero-window probe is answered with window 0 too.
    let probe = airtcp_core::Segment { seq: peer_seq(1999), ..from_peer() };
    ep.handle_segment(now, &probe);
    let a = drain(&mut ep, now);
    assert_eq!(a.iter().map(|s| (s.ack, s.window)).collect::<Vec<_>>(), vec![(peer_seq(2000), 0)]);
}

#[test]
fn unfreeze_sends_three_tr_acks_with_the_window_reopened() {
    let (mut ep, now) = established_receiver(freezer());
    data(&mut ep, now, 0, 3000);
    drain(&mut ep, now);
    ep.recv(u64::MAX);
    ep.freeze(now);
    drain(&mut ep, now);
    let later = now + dms(2000);
    assert!(ep.unfreeze(later));
    assert!(!ep.freeze_active());
    let segs = drain(&mut ep, later);
    assert_eq!(TR_ACKS, 3);
    assert_eq!(segs.len(), 3, "three copies, nothing more");
    for s in &segs {
        assert_eq!((s.ack, s.window, s.payload_len), (peer_seq(3000), 65_535, 0));
    }
    assert_eq!(ep.stats().freeze_tr_acks, 3);
    assert!(!ep.unfreeze(later), "not frozen any more");
    assert!(drain(&mut ep, later).is_empty());
}

#[test]
fn freeze_does_nothing_without_the_option() {
    let (mut ep, now) = established_receiver(TcpConfig { delack_count: 1, ..plain() });
    data(&mut ep, now, 0, 1000);
    drain(&mut ep, now);
    assert!(!ep.freeze(now));
    assert!(drain(&mut ep, now).is_empty());
    data(&mut ep, now, 1000, 1000);
    assert_ne!(drain(&mut ep, now)[0].window, 0, "an unmodified receiver keeps its window open");
    assert!(!ep.unfreeze(now));
}

#[test]
fn freeze_before_a_closed_connection_is_refused() {
    let mut ep = airtcp_tcp::Endpoint::new(freezer(), LOCAL, REMOTE, airtcp_core::SeqNum(ISS)).unwrap();
    ep.listen();
    assert!(!ep.freeze(ms(0)));
    assert!(ep.poll_transmit(ms(0)).is_none());
}

/// A bulk sender (Linux shrink policy, Reno, IW 10) and a Freeze-TCP
/// receiver 40 ms apart; the receiver is warned at 1.0 s, the path is cut
/// from `cut` for 2 s (every segment either way lost), and on reconnection
/// the receiver unfreezes (`freeze` true) or does nothing.
struct Handoff {
    timeouts: u64,
    retransmissions: u64,
    cwnd_before: u32,
    cwnd_after: u32,
    first_data_after: Option<Instant>,
    probes: u64,
}

fn handoff(freeze: bool, cut: u64) -> Handoff {
    let rx = TcpConfig { freeze, ..plain() };
    let mut w = pair(plain(), rx, ISS, PEER_ISS, dms(40));
    let down = Rc::new(Cell::new(false));
    let d = down.clone();
    w.drop_a_to_b = Box::new(move |_, _| d.get());
    w.run_until(ms(10));
    w.a.send(50_000_000);
    w.run_until(ms(1000));
    let cwnd_before = w.a.probe().cwnd;
    if freeze {
        assert!(w.b.freeze(w.now));
    }
    w.run_until(ms(cut));
    down.set(true);
    // ACKs in flight at the cut are lost too; the receiver sends nothing new.
    w.q.retain(|(_, to_b, _)| *to_b);
    w.run_until(ms(cut + 2000));
    down.set(false);
    w.q.clear();
    let t_back = w.now;
    let sent_before = w.a.stats().data_segs_sent;
    if freeze {
        assert!(w.b.unfreeze(t_back));
    }
    let mut first_data_after = None;
    for step in 1..=4000 {
        w.run_until(t_back + dms(step));
        if first_data_after.is_none() && w.a.stats().data_segs_sent > sent_before {
            first_data_after = Some(w.now);
        }
    }
    let cwnd_after = w.a.probe().cwnd;
    Handoff {
        timeouts: w.a.stats().timeouts,
        retransmissions: w.a.stats().retransmissions,
        cwnd_before,
        cwnd_after,
        first_data_after,
        probes: w.a.stats().window_probes,
    }
}

#[test]
fn frozen_sender_waits_in_persist_and_resumes_on_the_tr_ack() {
    // Warned 150 ms (> one 80-ms RTT) ahead: everything in flight is ACKed
    // with window 0 before the cut, so nothing is lost and nothing times out.
    let h = handoff(true, 1150);
    assert_eq!(h.timeouts, 0);
    assert_eq!(h.retransmissions, 0);
    assert!(h.probes >= 1, "the sender probed the zero window");
    let back = ms(3150);
    let first = h.first_data_after.expect("data after reconnection");
    // The TR-ACK takes 40 ms to reach the sender, which sends at once.
    assert_eq!(first, back + dms(40));
    assert!(h.cwnd_after >= h.cwnd_before / 2, "cwnd kept (Linux halves it once after idle): {} -> {}", h.cwnd_before, h.cwnd_after);
}

#[test]
fn unwarned_sender_backs_off_and_resumes_late() {
    let h = handoff(false, 1150);
    assert!(h.timeouts >= 2, "RTOs during the 2-s cut (min RTO 1 s): {}", h.timeouts);
    assert!(h.retransmissions > 0);
    let first = h.first_data_after.expect("data after reconnection");
    assert!(first > ms(3150) + dms(40), "waits for the backed-off RTO: {first:?}");
}

#[test]
fn a_warning_shorter_than_the_rtt_loses_what_was_in_flight() {
    // Warned only 20 ms ahead: the data in flight at the cut is lost, and
    // the outstanding data keeps the retransmission timer running (Linux
    // probes only once nothing is outstanding).
    let h = handoff(true, 1020);
    assert!(h.timeouts >= 1, "timeouts {}", h.timeouts);
    assert!(h.retransmissions > 0);
}

#[test]
fn persist_timer_is_armed_while_frozen() {
    let rx = TcpConfig { freeze: true, ..plain() };
    let mut w = pair(plain(), rx, ISS, PEER_ISS, dms(40));
    w.run_until(ms(10));
    w.a.send(50_000_000);
    w.run_until(ms(1000));
    w.b.freeze(w.now);
    w.run_until(ms(1200));
    assert_eq!(w.a.probe().snd_wnd, 0);
    assert_eq!(w.a.probe().in_flight, 0, "everything in flight was ACKed with window 0");
    assert!(timer(&w.a, TimerKind::Persist).is_some());
    assert_eq!(timer(&w.a, TimerKind::Rto), None);
}
