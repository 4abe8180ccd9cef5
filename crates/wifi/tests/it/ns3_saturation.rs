//! Saturation throughput against ns-3 3.44 (`../shared/anchors/ns3-wifi/`,
//! `wifi_sat.cc`: n saturated stations on a 2 m circle around an AP,
//! 802.11a, 1500-byte UDP payloads, LogDistance, 10 s, seeds 1-3; table
//! printed by `python3 summarize.py sat` and `summarize.py sat
//! results_sat_rts.jsonl`). The figures below are copied from those
//! tables (mean over seeds, Mb/s of UDP payload).
//!
//! Tolerance ±3 % (the issue asks for ±10 %). The match at many stations
//! rests on preamble detection (`phy::PreambleDetection`, ns-3's
//! ThresholdPreambleDetectionModel): two frames that start in the same
//! slot drown each other's preambles at every bystander, which then sees
//! energy only and defers DIFS, not the EIFS of a failed reception. Before
//! the medium modelled it, every bystander locked on the first frame and
//! deferred EIFS, and at 54 Mb/s with 50 stations the throughput was 10.9 %
//! below ns-3's.

use crate::common;
use airtcp_wifi::phy::{Rate, Standard};

use common::{saturate, star};

/// `(n, ns-3 Mb/s)` per configuration.
const NS3_6_BASIC: [(usize, f64); 6] = [
    (1, 5.270),
    (2, 5.025),
    (5, 4.626),
    (10, 4.263),
    (20, 3.961),
    (50, 3.529),
];
const NS3_54_BASIC: [(usize, f64); 6] = [
    (1, 29.865),
    (2, 30.078),
    (5, 28.783),
    (10, 27.230),
    (20, 25.604),
    (50, 23.032),
];
const NS3_6_RTS: [(usize, f64); 3] = [(5, 5.032), (20, 5.005), (50, 4.979)];
const NS3_54_RTS: [(usize, f64); 3] = [(5, 25.708), (20, 25.331), (50, 24.809)];

fn check(rate: Rate, rts: bool, table: &[(usize, f64)], secs: f64) {
    let mut rows = Vec::new();
    let mut ok = true;
    // The row of docs/wifi.md's table against ns-3.
    let mut line = format!("| 11a {} Mb/s {} |", rate.mbps(), if rts { "RTS/CTS" } else { "basic" });
    for &(n, ns3) in table {
        let specs = star(Standard::A, rate, n, 2.0, |r| {
            if rts {
                r.mac.rts_threshold = 0;
            }
        });
        let (sat, _) = saturate(specs, 1528, secs, 1);
        let sim = sat.total as f64 * 1500.0 * 8.0 / secs / 1e6;
        let err = (sim - ns3) / ns3;
        let tolerance = 0.03;
        ok &= err.abs() <= tolerance;
        line += &format!(" n={n}: {sim:.3} / {ns3:.3} ({:+.1} %) |", 100.0 * err);
        rows.push(format!(
            "n={n:2} sim {sim:7.3} ns-3 {ns3:7.3} ({:+.1}%)",
            100.0 * err
        ));
    }
    eprintln!("{} Mb/s rts={rts}\n  {}\n{line}", rate.mbps(), rows.join("\n  "));
    assert!(
        ok,
        "{} Mb/s rts={rts} outside the tolerance:\n  {}",
        rate.mbps(),
        rows.join("\n  ")
    );
}

#[test]
fn saturation_6mbps_basic_matches_ns3() {
    check(Rate::OFDM6, false, &NS3_6_BASIC, 10.0);
}

#[test]
fn saturation_54mbps_basic_matches_ns3() {
    check(Rate::OFDM54, false, &NS3_54_BASIC, 10.0);
}

#[test]
fn saturation_rts_matches_ns3() {
    check(Rate::OFDM6, true, &NS3_6_RTS, 10.0);
    check(Rate::OFDM54, true, &NS3_54_RTS, 10.0);
}
