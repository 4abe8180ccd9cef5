//! The PFTK steady-state model of TCP Reno's send rate: Padhye, Firoiu,
//! Towsley & Kurose, "Modeling TCP Throughput: A Simple Model and its
//! Empirical Validation", SIGCOMM 1998 — the *full* model (the piecewise
//! expression in E\[W_u\] and Q̂ that covers triple-duplicate and timeout loss
//! indications and the receiver-window limit), not its closed-form
//! approximation `1 / (RTT·sqrt(2bp/3) + T0·min(1, 3·sqrt(3bp/8))·p·(1+32p²))`.
//!
//! The paper's B(p) is a *send rate*: "the number of packets sent per unit of
//! time regardless of their eventual fate". Callers that compare it with a
//! goodput must scale by the fraction of packets that arrive (see
//! [`super::compare`]).

use std::fmt;

/// Inputs of the model, in the paper's notation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PftkInputs {
    /// p: probability that a packet is lost, 0 < p < 1.
    pub p: f64,
    /// RTT: mean round-trip time in seconds (queueing included).
    pub rtt_s: f64,
    /// T0: the retransmission timeout before any backoff, in seconds.
    pub t0_s: f64,
    /// b: packets acknowledged per ACK (1 without delayed ACK, 2 with).
    pub b: f64,
    /// Wmax: the receiver's window limit in packets (`f64::INFINITY` for none).
    pub wmax: f64,
}

/// An input outside the model's domain; the message names the field.
#[derive(Clone, Debug, PartialEq)]
pub struct PftkError(pub String);

impl fmt::Display for PftkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PFTK model: {}", self.0)
    }
}

impl std::error::Error for PftkError {}

impl PftkInputs {
    fn check(&self) -> Result<(), PftkError> {
        let bad = |m: String| Err(PftkError(m));
        if !(self.p > 0.0 && self.p < 1.0) {
            return bad(format!("p = {} must lie in (0, 1)", self.p));
        }
        if !(self.rtt_s > 0.0 && self.rtt_s.is_finite()) {
            return bad(format!(
                "rtt_s = {} must be positive and finite",
                self.rtt_s
            ));
        }
        if !(self.t0_s > 0.0 && self.t0_s.is_finite()) {
            return bad(format!("t0_s = {} must be positive and finite", self.t0_s));
        }
        if !(self.b >= 1.0 && self.b.is_finite()) {
            return bad(format!("b = {} must be at least 1 packet per ACK", self.b));
        }
        // Infinity is allowed (no limit); NaN is not.
        if self.wmax.is_nan() || self.wmax < 1.0 {
            return bad(format!("wmax = {} must be at least 1 packet", self.wmax));
        }
        Ok(())
    }
}

/// f(p) = 1 + p + 2p² + 4p³ + 8p⁴ + 16p⁵ + 32p⁶: the expected duration of a
/// timeout sequence in units of T0, with the timer doubling up to 64·T0
/// (the paper's E[Z^TO] = T0·f(p)/(1-p)).
pub fn f(p: f64) -> f64 {
    1.0 + p
        + 2.0 * p.powi(2)
        + 4.0 * p.powi(3)
        + 8.0 * p.powi(4)
        + 16.0 * p.powi(5)
        + 32.0 * p.powi(6)
}

/// Q̂(w) = min(1, (1-(1-p)³)(1+(1-p)³(1-(1-p)^(w-3))) / (1-(1-p)^w)): the
/// probability that a loss indication in a window of w packets is a timeout,
/// i.e. that fewer than three packets after the first loss get through to
/// raise duplicate ACKs. A window of three or fewer can never produce three
/// duplicates, so Q̂ = 1 there (the paper's remark under its eq. for Q̂).
pub fn q_hat(p: f64, w: f64) -> f64 {
    if w <= 3.0 {
        return 1.0;
    }
    let q = 1.0 - p;
    let num = (1.0 - q.powi(3)) * (1.0 + q.powi(3) * (1.0 - q.powf(w - 3.0)));
    let den = 1.0 - q.powf(w);
    (num / den).min(1.0)
}

/// E\[W_u\] = (2+b)/(3b) + sqrt(8(1-p)/(3bp) + ((2+b)/(3b))²): the mean
/// window, in packets, at the end of a triple-duplicate period when the
/// receiver window does not limit it.
pub fn expected_window(p: f64, b: f64) -> f64 {
    let a = (2.0 + b) / (3.0 * b);
    a + (8.0 * (1.0 - p) / (3.0 * b * p) + a * a).sqrt()
}

/// B(p): the send rate in packets per second.
///
/// Unconstrained (E\[W_u\] < Wmax):
///   ((1-p)/p + E\[W_u\] + Q̂(E\[W_u\])/(1-p)) /
///   (RTT·(b/2·E\[W_u\] + 1) + Q̂(E\[W_u\])·T0·f(p)/(1-p))
///
/// Window-limited:
///   ((1-p)/p + Wmax + Q̂(Wmax)/(1-p)) /
///   (RTT·(b/8·Wmax + (1-p)/(p·Wmax) + 2) + Q̂(Wmax)·T0·f(p)/(1-p))
pub fn send_rate_pkts(x: PftkInputs) -> Result<f64, PftkError> {
    x.check()?;
    let w = window_at_loss(x);
    Ok(rate_given_q(x, w, q_hat(x.p, w)))
}

/// B(p) with Q̂ replaced by `q`, the share of loss indications that were
/// timeouts as a run measured it. Not the paper's model: a diagnostic that
/// separates an error in Q̂ (the paper's assumption that after one loss the
/// rest of the round is lost too) from an error in the rest of the model.
pub fn send_rate_pkts_given_q(x: PftkInputs, q: f64) -> Result<f64, PftkError> {
    x.check()?;
    if !(0.0..=1.0).contains(&q) {
        return Err(PftkError(format!(
            "timeout share q = {q} must lie in [0, 1]"
        )));
    }
    Ok(rate_given_q(x, window_at_loss(x), q))
}

/// The window the model's loss indications happen at: E\[W_u\], or Wmax when
/// the receiver window is the limit.
pub fn window_at_loss(x: PftkInputs) -> f64 {
    expected_window(x.p, x.b).min(x.wmax)
}

fn rate_given_q(x: PftkInputs, w: f64, q: f64) -> f64 {
    let PftkInputs {
        p,
        rtt_s: rtt,
        t0_s: t0,
        b,
        wmax,
    } = x;
    let ew = expected_window(p, b);
    let num = (1.0 - p) / p + w + q / (1.0 - p);
    let timeouts = q * t0 * f(p) / (1.0 - p);
    if ew < wmax {
        num / (rtt * (b / 2.0 * ew + 1.0) + timeouts)
    } else {
        num / (rtt * (b / 8.0 * wmax + (1.0 - p) / (p * wmax) + 2.0) + timeouts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(p: f64) -> PftkInputs {
        PftkInputs {
            p,
            rtt_s: 0.1,
            t0_s: 1.0,
            b: 1.0,
            wmax: f64::INFINITY,
        }
    }

    #[test]
    fn small_p_approaches_the_square_root_law() {
        // Without timeouts the model tends to 1/(RTT·sqrt(2bp/3)) (the paper's eq. for B_TD).
        let sqrt_law = 1.0 / (0.1 * (2.0 * 1e-6 / 3.0f64).sqrt());
        let r = send_rate_pkts(inputs(1e-6)).unwrap() / sqrt_law;
        assert!((0.995..1.005).contains(&r), "{r}");
    }

    #[test]
    fn expected_window_matches_the_closed_form() {
        // b = 1, p = 0.01: 1 + sqrt(8·0.99/0.03 + 1) = 1 + sqrt(265) = 17.279
        assert!((expected_window(0.01, 1.0) - 17.2788).abs() < 1e-4);
        // b = 2: a = 2/3, sqrt(8·0.99/0.06 + 4/9) = sqrt(132.444) = 11.5085
        assert!((expected_window(0.01, 2.0) - (2.0 / 3.0 + 11.5085)).abs() < 1e-4);
    }

    #[test]
    fn q_hat_tends_to_three_over_w_and_saturates_at_one() {
        // For small p, Q̂(w) ≈ 3/w (the paper's approximation min(1, 3/w)).
        let q = q_hat(1e-6, 30.0);
        assert!((q - 0.1).abs() < 1e-4, "{q}");
        assert_eq!(q_hat(0.01, 3.0), 1.0);
        assert_eq!(q_hat(0.01, 2.0), 1.0);
        assert!(q_hat(0.5, 4.0) <= 1.0);
    }

    #[test]
    fn f_is_the_backoff_series() {
        assert_eq!(f(0.0), 1.0);
        assert_eq!(f(0.5), 1.0 + 0.5 + 0.5 + 0.5 + 0.5 + 0.5 + 0.5);
    }

    #[test]
    fn hand_computed_value_at_one_percent() {
        // p = 0.01, RTT = 0.1 s, T0 = 1 s, b = 1:
        // E[W] = 17.2788; q = 0.99; Q̂ = (1-q³)(1+q³(1-q^14.2788))/(1-q^17.2788)
        let ew = 17.2788f64;
        let q = 0.99f64;
        let qh =
            (1.0 - q.powi(3)) * (1.0 + q.powi(3) * (1.0 - q.powf(ew - 3.0))) / (1.0 - q.powf(ew));
        let fp = 1.0 + 0.01 + 2e-4 + 4e-6 + 8e-8 + 16e-10 + 32e-12;
        let want = (99.0 + ew + qh / q) / (0.1 * (ew / 2.0 + 1.0) + qh * fp / q);
        let got = send_rate_pkts(inputs(0.01)).unwrap();
        assert!((got / want - 1.0).abs() < 1e-5, "{got} vs {want}");
        // ≈ 97 packets/s: a timeout term of ~0.19 s per cycle beside ~0.96 s of rounds.
        assert!((got - 100.0).abs() < 5.0, "{got}");
    }

    #[test]
    fn timeouts_dominate_at_high_loss() {
        // p = 0.05 with T0 = 10 RTT: the timeout term is most of the cycle,
        // so B falls far below the square-root law.
        let sqrt_law = 1.0 / (0.1 * (2.0 * 0.05 / 3.0f64).sqrt());
        let b = send_rate_pkts(inputs(0.05)).unwrap();
        assert!(b < 0.6 * sqrt_law, "{b} vs {sqrt_law}");
        // Raising T0 lowers the rate; raising RTT lowers it too.
        let slower = send_rate_pkts(PftkInputs {
            t0_s: 3.0,
            ..inputs(0.05)
        })
        .unwrap();
        assert!(slower < b);
    }

    #[test]
    fn window_limit_caps_the_rate_near_wmax_per_rtt() {
        let x = PftkInputs {
            wmax: 10.0,
            ..inputs(1e-4)
        };
        let r = send_rate_pkts(x).unwrap();
        assert!(r <= 10.0 / 0.1 && r > 0.9 * 10.0 / 0.1, "{r}");
        // Just above E[W_u] the limited branch is not used.
        let ew = expected_window(0.01, 1.0);
        let free = send_rate_pkts(inputs(0.01)).unwrap();
        let high = send_rate_pkts(PftkInputs {
            wmax: ew + 0.01,
            ..inputs(0.01)
        })
        .unwrap();
        assert_eq!(free, high);
    }

    #[test]
    fn given_q_reproduces_the_model_at_q_hat() {
        let x = inputs(0.02);
        let q = q_hat(0.02, expected_window(0.02, 1.0));
        assert_eq!(
            send_rate_pkts_given_q(x, q).unwrap(),
            send_rate_pkts(x).unwrap()
        );
        // Fewer timeouts than Q̂ predicts: a higher rate.
        assert!(send_rate_pkts_given_q(x, q / 4.0).unwrap() > send_rate_pkts(x).unwrap());
        assert_eq!(
            send_rate_pkts_given_q(x, 1.5).unwrap_err().0,
            "timeout share q = 1.5 must lie in [0, 1]"
        );
    }

    #[test]
    fn bad_inputs_name_the_field() {
        let e = send_rate_pkts(inputs(0.0)).unwrap_err();
        assert_eq!(e.to_string(), "PFTK model: p = 0 must lie in (0, 1)");
        let e = send_rate_pkts(PftkInputs {
            t0_s: -1.0,
            ..inputs(0.01)
        })
        .unwrap_err();
        assert_eq!(e.0, "t0_s = -1 must be positive and finite");
        let e = send_rate_pkts(PftkInputs {
            wmax: f64::NAN,
            ..inputs(0.01)
        })
        .unwrap_err();
        assert_eq!(e.0, "wmax = NaN must be at least 1 packet");
        assert!(send_rate_pkts(PftkInputs {
            b: 0.5,
            ..inputs(0.01)
        })
        .is_err());
        assert!(send_rate_pkts(PftkInputs {
            rtt_s: 0.0,
            ..inputs(0.01)
        })
        .is_err());
    }
}
