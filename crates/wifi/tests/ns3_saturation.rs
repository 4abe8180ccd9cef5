//! Saturation throughput against ns-3 3.44 (`../shared/anchors/ns3-wifi/`,
//! `wifi_sat.cc`: n saturated stations on a 2 m circle around an AP,
//! 802.11a, 1500-byte UDP payloads, LogDistance, 10 s, seeds 1-3; table
//! printed by `python3 summarize.py sat` and `summarize.py sat
//! results_sat_rts.jsonl`). The figures below are copied from those
//! tables (mean over seeds, Mb/s of UDP payload).
//!
//! Tolerance ±10 %. Where ns-3 and our MAC differ, both are also compared
//! with Bianchi's model (`bianchi.rs`): ours follows the model with the
//! standard's retry limit and collision time within 1–2 % at 54 Mb/s,
//! while ns-3 3.44 delivers more than that model when many stations
//! contend (its collision probability p is lower: 0.567 against the
//! model's 0.634 at n = 50), so at 54 Mb/s and 50 stations the two
//! simulators differ by more than 10 % and the assertion there is ±12 %.

mod common;

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
    for &(n, ns3) in table {
        let specs = star(Standard::A, rate, n, 2.0, |r| {
            if rts {
                r.mac.rts_threshold = 0;
            }
        });
        let (sat, _) = saturate(specs, 1528, secs, 1);
        let sim = sat.total as f64 * 1500.0 * 8.0 / secs / 1e6;
        let err = (sim - ns3) / ns3;
        let tolerance = if n == 50 && rate == Rate::OFDM54 && !rts {
            0.12
        } else {
            0.10
        };
        ok &= err.abs() <= tolerance;
        rows.push(format!(
            "n={n:2} sim {sim:7.3} ns-3 {ns3:7.3} ({:+.1}%)",
            100.0 * err
        ));
    }
    eprintln!("{} Mb/s rts={rts}\n  {}", rate.mbps(), rows.join("\n  "));
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
