//! Preamble detection (ns-3 3.44 ThresholdPreambleDetectionModel: SINR of
//! at least 4 dB over the first 4 µs and at least −82 dBm): a PHY locks on a
//! frame only if its preamble is detected; otherwise the frame is energy.

use crate::common;
use airtcp_wifi::phy::{PreambleDetection, Rate, Standard};

use common::{radio, saturate, star};

/// At the AP of the anchor's circle every collision is of equal powers
/// (SINR 0 dB): no preamble is detected, so the AP never starts a reception
/// that fails; without detection it locks on one of the frames each time
/// and counts the failure.
#[test]
fn equal_power_collision_is_not_a_failed_reception() {
    let (with, w1) = saturate(
        star(Standard::A, Rate::OFDM54, 20, 2.0, |_| {}),
        1528,
        2.0,
        1,
    );
    let (without, w0) = saturate(
        star(Standard::A, Rate::OFDM54, 20, 2.0, |r| {
            r.phy.preamble = PreambleDetection::NONE
        }),
        1528,
        2.0,
        1,
    );
    let failed: u64 = (1..=20).map(|s| w1.counters(s).failed_tx).sum();
    assert!(failed > 100, "collisions happen: {failed}");
    assert_eq!(
        w1.counters(0).rx_errors,
        0,
        "the AP sees energy, not frames"
    );
    assert!(
        w0.counters(0).rx_errors > 100,
        "without detection: {}",
        w0.counters(0).rx_errors
    );
    // Bystanders defer DIFS instead of EIFS after a collision: more goodput.
    assert!(
        with.total > without.total,
        "{} vs {}",
        with.total,
        without.total
    );
}

/// ns-3 default path loss: 16.02 dBm − 46.68 dB − 30·log10(80) = −87.8 dBm
/// at 80 m, above the −101 dBm sensitivity and 6 dB over the −94 dBm
/// noise floor, but below the −82 dBm the preamble needs.
#[test]
fn frame_below_minimum_rssi_is_not_received() {
    let specs = |min_rssi: f64| {
        let mut v = vec![
            radio(Standard::A, Rate::OFDM6, 0.0, 0.0, None),
            radio(Standard::A, Rate::OFDM6, 80.0, 0.0, Some(0)),
        ];
        for r in &mut v {
            r.phy.preamble.min_rssi_dbm = min_rssi;
        }
        v
    };
    let (sat, w) = saturate(specs(-82.0), 1528, 0.5, 1);
    assert_eq!(sat.total, 0);
    assert_eq!(w.counters(0).rx_errors, 0, "nothing locked, nothing failed");
    assert!(w.counters(1).retry_drops > 0, "the sender gives up");
    let (sat, _) = saturate(specs(-95.0), 1528, 0.5, 1);
    assert!(
        sat.total > 100,
        "with a lower threshold the AP decodes: {}",
        sat.total
    );
}
