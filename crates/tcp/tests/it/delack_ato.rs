//! Linux's adaptive delayed-ACK timeout (`delack_adaptive`) and its jiffy
//! timer (`timer_wheel`): a receiver with a 41 ms handshake RTT at HZ 250
//! waits 40-44 ms for a second segment once its timer has had to fire,
//! as the kernel's receiver does in the emulated captures.
use crate::common;
use common::*;

use airtcp_core::{Duration, Instant};
use airtcp_tcp::endpoint::TimerKind;
use airtcp_tcp::{profiles, Endpoint, TcpConfig};

/// A passive opener at HZ 250 whose handshake took `rtt_ms` (its SRTT).
fn receiver(adaptive: bool, wheel: bool, rtt_ms: u64) -> (Endpoint, Instant) {
    let cfg = TcpConfig {
        hz: 250,
        delack_timeout: Duration::from_millis(40),
        delack_adaptive: adaptive,
        timer_wheel: wheel,
        initial_quickacks: 0,
        ..plain()
    };
    let (ep, _) = passive_open(cfg, &peer_syn(), ms(rtt_ms), |_| from_peer());
    (ep, ms(rtt_ms))
}

/// One full segment `i` arrives at `t` and is read; the ACKs sent at `t`.
fn arrive(ep: &mut Endpoint, t: Instant, i: u64) -> usize {
    data(ep, t, i * 1000, 1000);
    while ep.recv(u64::MAX).is_some() {}
    drain(ep, t).len()
}

/// Lets the delayed-ACK timer fire; when it did.
fn fire_delack(ep: &mut Endpoint) -> Instant {
    let due = timer(ep, TimerKind::DelayedAck).expect("a delayed ACK is pending");
    ep.handle_timeout(due);
    assert_eq!(drain(ep, due).len(), 1, "the timer sends the ACK");
    due
}

#[test]
fn fixed_timer_fires_delack_timeout_after_the_segment() {
    let (mut ep, now) = receiver(false, false, 41);
    let t = now + Duration::from_micros(1_500);
    assert_eq!(arrive(&mut ep, t, 0), 0);
    assert_eq!(fire_delack(&mut ep), t + dms(40));
}

#[test]
fn adaptive_timer_starts_at_the_floor_on_a_jiffy() {
    // 42.5 ms is in jiffy 10 (40-44 ms); ATO_MIN = 10 jiffies: due at
    // jiffy 20 (80 ms), 37.5 ms later.
    let (mut ep, _) = receiver(true, false, 41);
    let t = Instant(42_500_000);
    assert_eq!(arrive(&mut ep, t, 0), 0);
    assert_eq!(fire_delack(&mut ep), ms(80));
}

#[test]
fn on_the_wheel_the_timer_fires_a_jiffy_after_its_expiry() {
    // The same segment, the timer on the kernel's wheel: expiry at jiffy
    // 20 fires at jiffy 21 (84 ms), 41.5 ms after the segment.
    let (mut ep, _) = receiver(true, true, 41);
    let t = Instant(42_500_000);
    assert_eq!(arrive(&mut ep, t, 0), 0);
    assert_eq!(fire_delack(&mut ep), ms(84));
}

#[test]
fn a_timer_sent_ack_inflates_the_ato_up_to_the_srtt() {
    // After the timer had to fire, the ATO doubles (20 jiffies); the next
    // lone segment, 21 jiffies after the last, leaves it there (a gap under
    // the ATO would have pulled it to ato/2 + gap), and arming caps it at
    // the receiver's SRTT: 41 ms is 11 jiffies rounded up. Expiry 11 jiffies on: the
    // segment at 124.5 ms (jiffy 31) is ACKed at jiffy 42 = 168 ms, 43.5
    // ms later, where the fixed floor would have fired at 164.5 ms.
    let (mut ep, _) = receiver(true, false, 41);
    arrive(&mut ep, Instant(42_500_000), 0);
    fire_delack(&mut ep);
    let t = Instant(124_500_000);
    assert_eq!(arrive(&mut ep, t, 1), 0);
    assert_eq!(fire_delack(&mut ep), ms(168));
}

#[test]
fn back_to_back_segments_deflate_the_ato_to_the_floor() {
    // Inflated by a timer to 20 jiffies, the ATO first follows a gap
    // shorter than itself (15 jiffies: 20/2 + 15 = 25), then comes back to
    // the floor as segments arrive close together (m <= ATO_MIN/2:
    // ato/2 + ATO_MIN/2): 25 -> 17 -> 13 -> 11 -> 10 jiffies. Pairs are
    // ACKed at once (two full segments).
    let (mut ep, _) = receiver(true, false, 41);
    arrive(&mut ep, Instant(42_500_000), 0);
    fire_delack(&mut ep);
    let mut t = Instant(100_000_000);
    for i in 1..=4 {
        arrive(&mut ep, t, i);
        t = t + Duration::from_micros(100);
    }
    // A lone segment at 100.9 ms (ATO 10)
    // (jiffy 25) is due at jiffy 35 = 140 ms.
    assert_eq!(arrive(&mut ep, Instant(100_900_000), 5), 0);
    assert_eq!(fire_delack(&mut ep), ms(140));
}

#[test]
fn the_linux_profiles_adapt_the_ato_on_the_wheel_the_others_do_not() {
    for p in ["linux", "linux-4.4", "linux-3.16"] {
        let c = profiles::config(p).unwrap();
        assert!(c.delack_adaptive && c.timer_wheel, "{p}");
    }
    for p in ["ns3", "opnet-2003", "rfc"] {
        let c = profiles::config(p).unwrap();
        assert!(!c.delack_adaptive && !c.timer_wheel, "{p}");
    }
}
