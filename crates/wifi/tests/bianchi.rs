//! Saturation throughput of the DCF against Bianchi's model (G. Bianchi,
//! "Performance analysis of the IEEE 802.11 distributed coordination
//! function", IEEE JSAC 18(3), 2000), basic access and RTS/CTS, 802.11a and
//! 802.11b, n = 1 ... 50 stations.
//!
//! The model, written here from the paper: the per-slot transmission
//! probability τ and the conditional collision probability p solve
//!   τ = Σ_{i<R} p^i / Σ_{i<R} p^i (W_i + 1)/2,   p = 1 − (1 − τ)^(n−1),
//! with W_i = min(2^i, 2^m)·W, W = CWmin + 1. (Bianchi's closed form, eq. 7,
//! is the R → ∞ limit; the finite retry limit R = 7 of the standard is the
//! extension the ns-3 anchor also uses, because our MAC drops a frame after
//! seven attempts as 802.11 does.) Then (eq. 13)
//!   S = Ps·Ptr·E[P] / ((1 − Ptr)σ + Ptr·Ps·Ts + Ptr(1 − Ps)Tc).
//! Ts and Tc are the paper's eqs. 14 and 15 with δ = 0.
//!
//! The assertion is against the paper's own model (Tc = frame + DIFS),
//! ±5 % at every n up to 50. That is the collision time the channel sees:
//! the colliding frames drown each other's preambles at every bystander
//! (preamble detection, `phy::PreambleDetection`, as ns-3 models it), so
//! the bystanders resume DIFS after the frames end; only the colliders
//! wait the ACK timeout on top, which costs the channel nothing while the
//! others count down. The variant with the standard's retry limit and
//! that timeout in Tc (the anchor's Tc') is printed beside it: the
//! simulation runs up to 10 % above it at n = 50, as ns-3 3.44 does
//! (+12 % for 802.11a at 6 Mb/s, `../shared/anchors/ns3-wifi/README.md`).
//! The remaining gap to the paper grows with n because Bianchi's chain
//! lets a counter step down in every slot, busy or idle, while 802.11
//! freezes it during busy periods (Tinnirello, Bianchi, Xiao, "Refinements
//! on IEEE 802.11 distributed coordination function modeling approaches",
//! IEEE TVT 59(3), 2010).

mod common;

use airtcp_wifi::frame;
use airtcp_wifi::phy::{tx_duration, Preamble, Rate, Standard};

use common::{saturate, star};

/// `(tau, p)` of the fixed point, by bisection on p.
fn fixed_point(n: usize, w: f64, m: u32, r: u32) -> (f64, f64) {
    let tau_of = |p: f64| {
        let (mut num, mut den) = (0.0, 0.0);
        for i in 0..r {
            let wi = w * 2f64.powi(i.min(m) as i32);
            num += p.powi(i as i32);
            den += p.powi(i as i32) * (wi + 1.0) / 2.0;
        }
        num / den
    };
    if n == 1 {
        return (tau_of(0.0), 0.0);
    }
    let (mut lo, mut hi) = (0.0f64, 1.0 - 1e-12);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        let g = 1.0 - (1.0 - tau_of(mid)).powi(n as i32 - 1) - mid;
        if g > 0.0 {
            lo = mid
        } else {
            hi = mid
        }
    }
    let p = 0.5 * (lo + hi);
    (tau_of(p), p)
}

/// The model as the paper writes it (infinite retries, Tc = frame + DIFS),
/// or with the standard's retry limit of 7 attempts and its collision time
/// (frame + ACK/CTS timeout + DIFS).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Variant {
    Paper,
    PaperTc,
    Standard,
}

/// Bianchi's saturation throughput in Mb/s for `n` stations sending MPDUs
/// of `mpdu` bytes that carry `payload` counted bytes.
fn bianchi_mbps(
    std: Standard,
    rate: Rate,
    n: usize,
    mpdu: u32,
    payload: u32,
    rts: bool,
    variant: Variant,
) -> f64 {
    let us = |d: airtcp_core::Duration| d.as_nanos() as f64 / 1000.0;
    let pre = Preamble::Long;
    let ctrl = std.control_rate(rate);
    let (sifs, slot, difs) = (us(std.sifs()), us(std.slot()), us(std.difs()));
    let t_data = us(tx_duration(std, rate, pre, mpdu));
    let t_ack = us(tx_duration(std, ctrl, pre, frame::ACK_LEN));
    let phy_start = if std == Standard::B { 192.0 } else { 20.0 };
    // What colliding stations wait after their frame: the paper's DIFS, or
    // the standard's response timeout and then DIFS.
    let after_collision = match variant {
        Variant::Paper => difs,
        Variant::PaperTc | Variant::Standard => sifs + slot + phy_start + difs,
    };
    let (ts, tc) = if rts {
        let t_rts = us(tx_duration(std, ctrl, pre, frame::RTS_LEN));
        let t_cts = us(tx_duration(std, ctrl, pre, frame::CTS_LEN));
        (
            t_rts + sifs + t_cts + sifs + t_data + sifs + t_ack + difs,
            t_rts + after_collision,
        )
    } else {
        (t_data + sifs + t_ack + difs, t_data + after_collision)
    };
    let w = (std.cw_min() + 1) as f64;
    let m = ((std.cw_max() + 1) as f64 / w).log2().round() as u32;
    let retries = match variant {
        Variant::Paper | Variant::PaperTc => 400,
        Variant::Standard => 7,
    };
    let (tau, _) = fixed_point(n, w, m, retries);
    let ptr = 1.0 - (1.0 - tau).powi(n as i32);
    let ps = n as f64 * tau * (1.0 - tau).powi(n as i32 - 1) / ptr;
    ps * ptr * (8 * payload) as f64 / ((1.0 - ptr) * slot + ptr * ps * ts + ptr * (1.0 - ps) * tc)
}

/// Simulated saturation throughput (Mb/s of counted payload).
fn simulated_mbps(std: Standard, rate: Rate, n: usize, rts: bool, secs: f64) -> f64 {
    let specs = star(std, rate, n, 2.0, |r| {
        if rts {
            r.mac.rts_threshold = 0;
        }
    });
    // The anchor's frames: 1500 B UDP payload in 1528 B IP datagrams.
    let (sat, _) = saturate(specs, 1528, secs, 1);
    sat.total as f64 * 1500.0 * 8.0 / secs / 1e6
}

fn check(std: Standard, rate: Rate, rts: bool, secs: f64) {
    let mut worst: f64 = 0.0;
    let mut rows = Vec::new();
    for n in [1usize, 2, 5, 10, 20, 50] {
        let model = bianchi_mbps(
            std,
            rate,
            n,
            frame::data_mpdu_len(1528),
            1500,
            rts,
            Variant::Paper,
        );
        let standard = bianchi_mbps(
            std,
            rate,
            n,
            frame::data_mpdu_len(1528),
            1500,
            rts,
            Variant::Standard,
        );
        let tcp = bianchi_mbps(
            std,
            rate,
            n,
            frame::data_mpdu_len(1528),
            1500,
            rts,
            Variant::PaperTc,
        );
        let sim = simulated_mbps(std, rate, n, rts, secs);
        let err = (sim - model) / model;
        let err_std = (sim - standard) / standard;
        let err_tc = (sim - tcp) / tcp;
        rows.push(format!("n={n:2} sim {sim:7.3} | R=7,Tc' {standard:7.3} ({:+.2}%) | paper {model:7.3} ({:+.2}%) | inf. retries,Tc' {tcp:7.3} ({:+.2}%)", 100.0 * err_std, 100.0 * err, 100.0 * err_tc));
        let tolerance = 0.05;
        worst = worst.max(err.abs() / tolerance);
    }
    eprintln!(
        "{std:?} {} Mb/s rts={rts}\n  {}",
        rate.mbps(),
        rows.join("\n  ")
    );
    assert!(
        worst <= 1.0,
        "{std:?} {} Mb/s rts={rts}: outside the tolerance\n  {}",
        rate.mbps(),
        rows.join("\n  ")
    );
}

#[test]
fn saturation_80211a_6mbps_basic_matches_bianchi() {
    check(Standard::A, Rate::OFDM6, false, 20.0);
}

#[test]
fn saturation_80211a_54mbps_basic_matches_bianchi() {
    check(Standard::A, Rate::OFDM54, false, 5.0);
}

#[test]
fn saturation_80211a_6mbps_rts_matches_bianchi() {
    check(Standard::A, Rate::OFDM6, true, 20.0);
}

#[test]
fn saturation_80211b_11mbps_basic_matches_bianchi() {
    check(Standard::B, Rate::B11, false, 20.0);
}

#[test]
fn saturation_80211b_11mbps_rts_matches_bianchi() {
    check(Standard::B, Rate::B11, true, 20.0);
}

#[test]
fn model_reduces_to_bianchi_closed_form_without_retry_limit() {
    // Bianchi eq. 7 for W = 32, m = 5, n = 10 against the R → ∞ sum.
    let (tau, p) = fixed_point(10, 32.0, 5, 400);
    let closed =
        2.0 * (1.0 - 2.0 * p) / ((1.0 - 2.0 * p) * 33.0 + p * 32.0 * (1.0 - (2.0 * p).powi(5)));
    assert!(
        (tau - closed).abs() < 1e-9,
        "tau {tau} closed form {closed}"
    );
}
