//! Bianchi's saturation throughput of the DCF (G. Bianchi, "Performance
//! analysis of the IEEE 802.11 distributed coordination function", IEEE
//! JSAC 18(3), 2000), written from the paper: the reference the MAC's
//! saturation tests (`tests/bianchi.rs`) and the simulator's saturated UDP
//! checks compare against.
//!
//! The per-slot transmission probability τ and the conditional collision
//! probability p solve
//!   τ = Σ_{i<R} p^i / Σ_{i<R} p^i (W_i + 1)/2,   p = 1 − (1 − τ)^(n−1),
//! with W_i = min(2^i, 2^m)·W, W = CWmin + 1 (eq. 7 is the R → ∞ limit;
//! the finite retry limit R = 7 is the extension the ns-3 anchor uses).
//! Then (eq. 13)
//!   S = Ps·Ptr·E\[P\] / ((1 − Ptr)σ + Ptr·Ps·Ts + Ptr(1 − Ps)Tc),
//! Ts and Tc as the paper's eqs. 14 and 15 with δ = 0.

use crate::frame;
use crate::phy::{tx_duration, Preamble, Rate, Standard};

/// Which form of the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// As the paper writes it: unlimited retries, Tc = frame + DIFS.
    Paper,
    /// Unlimited retries, the colliders' response timeout in Tc.
    PaperTc,
    /// The standard's retry limit (7 attempts) and its collision time
    /// (frame + ACK/CTS timeout + DIFS).
    Standard,
}

/// `(tau, p)` of the fixed point, by bisection on p.
pub fn fixed_point(n: usize, w: f64, m: u32, r: u32) -> (f64, f64) {
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

/// Saturation throughput in Mb/s for `n` stations sending MPDUs of `mpdu`
/// bytes that carry `payload` counted bytes, long preamble.
pub fn throughput_mbps(std: Standard, rate: Rate, n: usize, mpdu: u32, payload: u32, rts: bool, variant: Variant) -> f64 {
    let us = |d: airtcp_core::Duration| d.as_nanos() as f64 / 1000.0;
    let pre = Preamble::Long;
    let ctrl = std.control_rate(rate);
    let (sifs, slot, difs) = (us(std.sifs()), us(std.slot()), us(std.difs()));
    let t_data = us(tx_duration(std, rate, pre, mpdu));
    let t_ack = us(tx_duration(std, ctrl, pre, frame::ACK_LEN));
    let phy_start = us(std.rx_phy_start_delay(pre));
    // What colliding stations wait after their frame: the paper's DIFS, or
    // the standard's response timeout and then DIFS.
    let after_collision = match variant {
        Variant::Paper => difs,
        Variant::PaperTc | Variant::Standard => sifs + slot + phy_start + difs,
    };
    let (ts, tc) = if rts {
        let t_rts = us(tx_duration(std, ctrl, pre, frame::RTS_LEN));
        let t_cts = us(tx_duration(std, ctrl, pre, frame::CTS_LEN));
        (t_rts + sifs + t_cts + sifs + t_data + sifs + t_ack + difs, t_rts + after_collision)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_station_never_collides() {
        // n = 1: tau = 2 / (W + 1), p = 0; throughput = payload over one
        // exchange plus the mean backoff of W - 1 over 2 slots.
        let (tau, p) = fixed_point(1, 16.0, 6, 7);
        assert_eq!(p, 0.0);
        assert!((tau - 2.0 / 17.0).abs() < 1e-12);
        let std = Standard::A;
        let s = throughput_mbps(std, Rate::OFDM54, 1, frame::data_mpdu_len(1528), 1500, false, Variant::Paper);
        let us = |d: airtcp_core::Duration| d.as_nanos() as f64 / 1000.0;
        let ts = us(tx_duration(std, Rate::OFDM54, Preamble::Long, frame::data_mpdu_len(1528)))
            + us(std.sifs())
            + us(tx_duration(std, Rate::OFDM24, Preamble::Long, frame::ACK_LEN))
            + us(std.difs());
        let expect = 12_000.0 / (ts + 7.5 * us(std.slot()));
        assert!((s - expect).abs() < 1e-9, "{s} vs {expect}");
    }
}
