//! The NAV (802.11-2016 10.3.2.4) ends by itself: a station that overheard
//! a unicast frame for someone else defers for its Duration, then contends
//! again even if nothing else happens on the air. Found in a mesh (seed
//! 002), where a relay overhears frames whose ACKs it cannot hear.

use crate::common;
use airtcp_core::{Duration, Instant};
use airtcp_wifi::mac::BROADCAST;
use airtcp_wifi::medium::Wlan;
use airtcp_wifi::phy::{Rate, Standard};

use common::{log_distance, radio};

/// Radio 0 sends one unicast frame to radio 1, 35 m east; radio 2, 35 m
/// west, hears radio 0 but not radio 1 (70 m, below a −82 dBm
/// sensitivity). Radio 2 queues a broadcast while 0's frame is on the air.
fn overheard(queue_at: Duration) -> (Wlan, Instant) {
    let std = Standard::A;
    let mut specs = vec![
        radio(std, Rate::OFDM12, 0.0, 0.0, None),
        radio(std, Rate::OFDM12, 35.0, 0.0, None),
        radio(std, Rate::OFDM12, -35.0, 0.0, None),
    ];
    for s in &mut specs {
        s.phy.rx_sensitivity_dbm = -82.0;
        s.phy.cca_threshold_dbm = -82.0;
    }
    let mut w = Wlan::new(specs, log_distance(), None, 1);
    assert!(w.enqueue(Instant::ZERO, 0, 1, 1028, 1));
    let mut queued = false;
    let mut sent_at = Instant::MAX;
    let end = Instant::ZERO + Duration::from_millis(50);
    loop {
        let next = w.poll_timeout().unwrap_or(Instant::MAX);
        let t = if !queued { next.min(Instant::ZERO + queue_at) } else { next };
        if t > end {
            break;
        }
        if !queued && t == Instant::ZERO + queue_at {
            queued = true;
            assert!(w.enqueue(t, 2, 2, 500, BROADCAST));
        }
        w.handle_timeout(t);
        while let Some(o) = w.poll_output() {
            if let airtcp_wifi::medium::WlanOutput::Released { radio: 2, .. } = o {
                sent_at = sent_at.min(t);
            }
        }
    }
    (w, sent_at)
}

#[test]
fn overheard_unicast_defers_a_third_station_only_for_its_nav() {
    // 1028 + 36 bytes at 12 Mb/s take about 0.73 ms; queue in the middle.
    let (w, sent_at) = overheard(Duration::from_micros(300));
    assert_eq!(w.counters(0).acked, 1, "the unicast exchange completes");
    assert_eq!(w.counters(2).broadcast_tx, 1, "the third station sends once the NAV is over");
    // NAV = SIFS + ACK after a ~0.73 ms frame, then DIFS and a backoff of
    // at most 15 slots: well within 2 ms of the start.
    assert!(sent_at < Instant::ZERO + Duration::from_millis(2), "sent at {sent_at:?}");
}

/// Radio 0 sends an RTS to radio 1, 500 m away, which never answers;
/// radio 2, 35 m from radio 0, queues a broadcast at 50 µs, while the RTS
/// is on the air, and defers for its NAV. When the broadcast's
/// transmission ended (its release), in µs.
fn rts_without_cts() -> (Wlan, f64) {
    let std = Standard::A;
    let mut specs = vec![
        radio(std, Rate::OFDM12, 0.0, 0.0, None),
        radio(std, Rate::OFDM12, 500.0, 0.0, None),
        radio(std, Rate::OFDM12, -35.0, 0.0, None),
    ];
    for s in &mut specs {
        s.phy.rx_sensitivity_dbm = -82.0;
        s.phy.cca_threshold_dbm = -82.0;
        s.mac.rts_threshold = 0;
    }
    let mut w = Wlan::new(specs, log_distance(), None, 1);
    assert!(w.enqueue(Instant::ZERO, 0, 1, 1028, 1));
    let queue_at = Instant::ZERO + Duration::from_micros(50);
    let (mut queued, mut sent_at) = (false, f64::INFINITY);
    loop {
        let next = w.poll_timeout().unwrap_or(Instant::MAX);
        let t = if !queued { next.min(queue_at) } else { next };
        if t > Instant::ZERO + Duration::from_millis(20) {
            break;
        }
        if !queued && t == queue_at {
            queued = true;
            assert!(w.enqueue(t, 2, 2, 500, BROADCAST));
        }
        w.handle_timeout(t);
        while let Some(o) = w.poll_output() {
            if let airtcp_wifi::medium::WlanOutput::Released { radio: 2, .. } = o {
                sent_at = sent_at.min(t.0 as f64 / 1e3);
            }
        }
    }
    (w, sent_at)
}

#[test]
fn nav_of_an_rts_without_cts_is_reset_after_nav_timeout() {
    let (w, sent_at) = rts_without_cts();
    assert!(w.counters(0).rts_tx >= 1);
    assert_eq!(w.counters(0).cts_rx, 0, "nobody answers");
    assert_eq!(w.counters(2).broadcast_tx, 1);
    // The RTS (20 B at 12 Mb/s: 36 µs) starts after DIFS (34 µs) and asks
    // for SIFS + CTS + SIFS + data (1064 B: 732 µs) + SIFS + ACK = 876 µs
    // of NAV, to about 946 µs; then DIFS, a backoff and the broadcast's
    // 536 B at 6 Mb/s (~740 µs) would end it after 1.7 ms. Reset after
    // NAVTimeout = 2 x 16 + CTS (28) + 25 + 2 x 9 = 103 µs, radio 2
    // contends from about 173 µs (or after radio 0's retried RTS if that
    // wins the contention).
    assert!(sent_at < 1_500.0, "broadcast ended at {sent_at} µs");
}
