//! Minstrel in the MAC: a station too far from its AP for 54 Mb/s but close
//! enough for 24–36 Mb/s. Constant 54 Mb/s loses almost every frame;
//! Minstrel finds the rate that works.

use crate::common;
use airtcp_wifi::mac::RateControl;
use airtcp_wifi::phy::{Rate, Standard};

use common::{saturate, star};

/// Frames delivered in 5 s by one saturated station at 40 m from the AP:
/// −79 dBm at the AP (log-distance, 16 dBm), an SNR of about 15 dB, where
/// 54 Mb/s needs about 20 dB and 24 Mb/s about 12 dB (`phy::error`).
fn delivered(rc: RateControl) -> (u64, u64) {
    let specs = star(Standard::A, Rate::OFDM54, 1, 40.0, |r| {
        r.mac.rate_control = rc
    });
    let (sat, w) = saturate(specs, 1528, 5.0, 7);
    (sat.total, w.counters(1).retry_drops)
}

#[test]
fn minstrel_finds_a_working_rate_where_constant_54_fails() {
    let (constant, constant_drops) = delivered(RateControl::Constant);
    let (minstrel, _) = delivered(RateControl::Minstrel);
    let mbps = |n: u64| n as f64 * 1500.0 * 8.0 / 5.0 / 1e6;
    eprintln!(
        "constant 54: {:.2} Mb/s ({constant_drops} retry drops); minstrel: {:.2} Mb/s",
        mbps(constant),
        mbps(minstrel)
    );
    assert!(
        mbps(constant) < 2.0,
        "54 Mb/s at 15 dB SNR should barely work: {:.2}",
        mbps(constant)
    );
    assert!(
        mbps(minstrel) > 12.0,
        "Minstrel should settle near 24-36 Mb/s: {:.2}",
        mbps(minstrel)
    );
}

#[test]
fn minstrel_keeps_the_top_rate_near_the_ap() {
    let specs = star(Standard::A, Rate::OFDM54, 1, 2.0, |r| {
        r.mac.rate_control = RateControl::Minstrel
    });
    let (sat, _) = saturate(specs, 1528, 3.0, 7);
    let mbps = sat.total as f64 * 1500.0 * 8.0 / 3.0 / 1e6;
    // 29.9 Mb/s at constant 54 (the Bianchi test); probing slower rates costs a little.
    assert!(mbps > 26.0, "{mbps:.2} Mb/s");
}
