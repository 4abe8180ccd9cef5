//! Seed 000 §2.2: a receiver (the SDN controller's ZWA module) acknowledges
//! data with a zero window, shrinking the window below SND.NXT.
use crate::common;
use common::*;

use airtcp_tcp::config::ShrinkPolicy;
use airtcp_tcp::endpoint::TimerKind;
use airtcp_tcp::{Event, TcpConfig};

/// Segments of 1000 bytes stand for the seed's segment numbers: SND.UNA =
/// 20, SND.NXT = 29 (window right edge at 29).
fn seed_setup(policy: ShrinkPolicy) -> (airtcp_tcp::Endpoint, airtcp_core::Instant) {
    let cfg = TcpConfig { initial_cwnd: 40, shrink_policy: policy, ..plain() };
    let (mut ep, now) = established_with(cfg, dms(100), 29_000);
    ep.send(100_000);
    assert_eq!(drain(&mut ep, now).len(), 29);
    let t = now + dms(100);
    ack(&mut ep, t, 20_000, 9_000);
    assert!(drain(&mut ep, t).is_empty());
    events(&mut ep);
    (ep, t)
}

#[test]
fn linux_sender_keeps_rto_until_usable_window_non_negative_then_probes() {
    let (mut ep, t) = seed_setup(ShrinkPolicy::Linux);
    let cwnd = ep.probe().cwnd;
    let rto_before = ep.timer(TimerKind::Rto).unwrap();
    // ZWA acknowledging segment 25: SND.UNA 26, SND.WND 0, SND.NXT 29.
    ack(&mut ep, t + dms(1), 26_000, 0);
    assert_eq!(events(&mut ep), vec![Event::ZeroWindow, Event::WindowShrunk { usable: -3_000 }]);
    assert!(drain(&mut ep, t + dms(1)).is_empty());
    assert_eq!(ep.probe().snd_una, our_seq(26_000));
    assert_eq!(ep.probe().cwnd, cwnd, "a ZWA must not grow cwnd");
    assert_eq!(ep.timer(TimerKind::Persist), None, "no persist while usable < 0");
    // RTO restarted by the new ACK (RFC 6298 §5.3), not frozen.
    assert_eq!(ep.timer(TimerKind::Rto), Some(t + dms(1) + dms(1000)));
    assert!(rto_before < ep.timer(TimerKind::Rto).unwrap());
    ack(&mut ep, t + dms(2), 27_000, 0);
    ack(&mut ep, t + dms(3), 28_000, 0);
    assert_eq!(
        events(&mut ep),
        vec![Event::WindowShrunk { usable: -2_000 }, Event::WindowShrunk { usable: -1_000 }]
    );
    assert_eq!(ep.timer(TimerKind::Persist), None);
    assert_eq!(ep.probe().cwnd, cwnd);
    // The ZWA for the last outstanding segment: SND.UNA = SND.NXT, usable 0:
    // persist mode, retransmission timer frozen.
    let t4 = t + dms(4);
    ack(&mut ep, t4, 29_000, 0);
    assert!(drain(&mut ep, t4).is_empty());
    assert_eq!(ep.timer(TimerKind::Rto), None);
    assert_eq!(ep.timer(TimerKind::Persist), Some(t4 + dms(1000)));
    assert_eq!(ep.probe().cwnd, cwnd);
    let f = fire(&mut ep);
    let p = drain(&mut ep, f);
    assert_eq!(p.len(), 1);
    assert_eq!((p[0].seq, p[0].payload_len), (our_seq(29_000) - 1, 0));
    assert_eq!(ep.stats().window_probes, 1);
    assert_eq!(ep.stats().timeouts, 0);
}

#[test]
fn rfc_sender_enters_persist_at_once_on_zero_window() {
    let (mut ep, t) = seed_setup(ShrinkPolicy::Rfc);
    ack(&mut ep, t + dms(1), 26_000, 0);
    assert_eq!(events(&mut ep), vec![Event::ZeroWindow, Event::WindowShrunk { usable: -3_000 }]);
    assert_eq!(ep.timer(TimerKind::Rto), None, "retransmission timer frozen");
    assert_eq!(ep.timer(TimerKind::Persist), Some(t + dms(1) + dms(1000)));
    let f = fire(&mut ep);
    let p = drain(&mut ep, f);
    assert_eq!((p[0].seq, p[0].payload_len), (our_seq(26_000) - 1, 0));
    // Window reopens: persist stops, RTO runs again for the outstanding data.
    ack(&mut ep, f + dms(10), 26_000, 10_000);
    assert_eq!(ep.timer(TimerKind::Persist), None);
    assert!(ep.timer(TimerKind::Rto).is_some());
}

/// Seed 000's Fig. 6(b): the zero-window ACKs slid SND.UNA past data the
/// receiver never got, so the receiver answers every window probe with an
/// ACK behind SND.UNA. Linux `tcp_probe_timer` counts such probes (`tcp_ack`
/// resets the count only on an acceptable ACK) and aborts after
/// `tcp_retries2` = 15: the 16th expiry resets the connection.
#[test]
fn probes_answered_only_by_old_acks_abort_after_tcp_retries2() {
    let (mut ep, t) = seed_setup(ShrinkPolicy::Linux);
    ack(&mut ep, t + dms(1), 29_000, 0);
    events(&mut ep);
    assert!(timer(&ep, TimerKind::Persist).is_some());
    for probe in 1..=15 {
        let f = fire(&mut ep);
        let p = drain(&mut ep, f);
        assert_eq!(p.len(), 1, "probe {probe}");
        assert_eq!((p[0].seq, p[0].payload_len), (our_seq(29_000) - 1, 0));
        // The receiver is stuck at its hole, 9 segments behind SND.UNA.
        ack(&mut ep, f + dms(80), 20_000, 0);
        assert_eq!(events(&mut ep), vec![Event::WindowProbe], "probe {probe}");
    }
    assert_eq!(ep.stats().window_probes, 15);
    let f = fire(&mut ep);
    assert_eq!(events(&mut ep), vec![Event::Closed { aborted: true }]);
    let out = drain(&mut ep, f);
    assert_eq!(out.len(), 1);
    assert!(out[0].flags.rst(), "the abort resets the peer");
    assert_eq!(ep.stats().window_probes, 15);
}

/// RFC 1122 4.2.2.17: as long as the receiver answers the probes with
/// acceptable ACKs (a zero window at SND.UNA) the sender probes forever.
#[test]
fn probes_answered_by_acceptable_acks_never_abort() {
    let (mut ep, t) = seed_setup(ShrinkPolicy::Linux);
    ack(&mut ep, t + dms(1), 29_000, 0);
    events(&mut ep);
    for _ in 0..40 {
        let f = fire(&mut ep);
        assert_eq!(drain(&mut ep, f).len(), 1);
        ack(&mut ep, f + dms(80), 29_000, 0);
    }
    assert_eq!(ep.stats().window_probes, 40);
    assert!(!events(&mut ep).iter().any(|e| matches!(e, Event::Closed { .. })));
    assert!(timer(&ep, TimerKind::Persist).is_some());
}
