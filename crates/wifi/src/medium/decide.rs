//! Whether a frame is received, given the log of its success probability.
//!
//! The chunks of a reception multiply into `p = exp(log_success)` (and a
//! fixed per-link loss may scale it); the frame is received when
//! `p >= 1` or a uniform draw falls below `p`. On the campus benchmark a
//! frame's end decides at nine receivers on average (every radio that
//! locked onto it), and the `exp` call was 2–3 % of the run. The draw is a
//! multiple of 2^-53, which often decides alone: below `exp(-37)` only a
//! draw of exactly 0 can succeed, and a draw well below `1 + log_success`
//! (a lower bound of the exponential) succeeds. The result is exactly that
//! of computing `p` every time, as is the stream's position.

use airtcp_core::RngStream;

/// Below this log-probability, `p < 2^-53`: only a draw of 0 is below it
/// (`exp(-37)` ≈ 8.5e-17, `2^-53` ≈ 1.1e-16).
const BELOW_EVERY_DRAW: f64 = -37.0;

/// Above this, `exp` may round to 1 (no draw at all): computed exactly.
const NEAR_ONE: f64 = -1e-15;

/// Margin under `fl(1 + x)` that covers its rounding and `exp`'s (a few
/// units of 2^-53 each): a draw below `fl(1 + x) - MARGIN` is below `p`.
const MARGIN: f64 = 1.0 / (1u64 << 50) as f64;

/// `p >= 1 || rng.uniform() < p` for `p = exp(log_success)` (exactly 1
/// for a log of 0), times `keep` when given (a fixed loss's complement).
pub(super) fn received(log_success: f64, keep: Option<f64>, rng: &mut RngStream) -> bool {
    let exact = || {
        let p = if log_success == 0.0 { 1.0 } else { log_success.exp() };
        keep.map_or(p, |k| p * k)
    };
    if log_success < BELOW_EVERY_DRAW {
        let u = rng.uniform();
        return u == 0.0 && exact() > 0.0;
    }
    if keep.is_none() && log_success < NEAR_ONE {
        // p < 1 here, so the draw is taken either way.
        let u = rng.uniform();
        if u < (1.0 + log_success) - MARGIN {
            return true;
        }
        return u < exact();
    }
    let p = exact();
    p >= 1.0 || rng.uniform() < p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference: the probability first, then the draw if needed.
    fn reference(log_success: f64, keep: Option<f64>, rng: &mut RngStream) -> bool {
        let mut p = if log_success == 0.0 { 1.0 } else { log_success.exp() };
        if let Some(k) = keep {
            p *= k;
        }
        p >= 1.0 || rng.uniform() < p
    }

    #[test]
    fn matches_computing_the_probability_every_time() {
        let mut pick = RngStream::new(3, "decide-test-pick");
        let (mut a, mut b) = (RngStream::new(9, "decide-test"), RngStream::new(9, "decide-test"));
        let mut outcomes = [0u32; 2];
        for i in 0..400_000 {
            // Logs from -800 to 0 on a log scale, the edges included.
            let x = match i % 7 {
                0 => 0.0,
                1 => -1e-17,
                2 => -(10f64.powf(pick.uniform() * 3.0 - 20.0)),
                3 => BELOW_EVERY_DRAW - pick.uniform(),
                _ => -(10f64.powf(pick.uniform() * 9.0 - 6.0)).min(800.0),
            };
            let keep = (i % 5 == 0).then(|| pick.uniform());
            let got = received(x, keep, &mut a);
            assert_eq!(got, reference(x, keep, &mut b), "log {x} keep {keep:?}");
            outcomes[usize::from(got)] += 1;
            // The streams stay in step: the same draws were taken.
            assert_eq!(a.uniform(), b.uniform());
        }
        assert!(outcomes[0] > 10_000 && outcomes[1] > 10_000, "{outcomes:?}");
    }

    /// A draw of exactly 0 is below any positive probability, however
    /// small: the shortcut must not call such a frame lost.
    #[test]
    fn every_nonzero_draw_is_above_the_cutoff() {
        // A stream whose next draw is 0 cannot be made, so check the rule
        // the shortcut relies on instead: every non-zero draw is at least
        // 2^-53, above exp(BELOW_EVERY_DRAW).
        assert!(BELOW_EVERY_DRAW.exp() < 1.0 / (1u64 << 53) as f64);
        // A fact of the constants, checked when the test compiles.
        const { assert!((1.0f64 + NEAR_ONE) < 1.0, "exp rounds below 1 from NEAR_ONE down") };
    }
}
