//! Large-scale propagation: deterministic path loss, log-normal shadowing
//! and receiver thermal noise, all in dB/dBm.
//!
//! Antenna gains are not part of a path-loss model here: the caller adds
//! `RadioParams::antenna_gain_db` at each end, as ns-3 does with
//! TxGain/RxGain. Every function is total: bad parameters are clamped to
//! the nearest meaningful value (documented per item) instead of producing
//! NaN from a division by zero or +inf dBm.

use airtcp_core::RngStream;

/// Speed of light in vacuum, m/s (exact, SI definition). ns-2 and ns-3
/// both use the rounded 3e8 for wavelengths; the 0.07 % difference moves a
/// Friis loss by 0.006 dB, far below anything the simulator can resolve,
/// but we use 3e8 too so reference losses match them to the digit.
pub const SPEED_OF_LIGHT: f64 = 3e8;

/// Distances below this are clamped for Friis and two-ray: both formulas
/// are far-field approximations and diverge at d → 0. One metre keeps the
/// model finite and is ns-3's LogDistance reference distance.
pub const MIN_DISTANCE_M: f64 = 1.0;

/// Deterministic mean path loss.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PathLoss {
    /// Free space: Pr = Pt·λ² / ((4πd)²·L) (Friis 1946; Rappaport,
    /// "Wireless Communications", 2nd ed., eq. 4.5). `system_loss` is the
    /// linear factor L ≥ 1 (ns-2 `L_`, ns-3 `SystemLoss`).
    Friis {
        /// Carrier frequency in Hz (sets the wavelength λ).
        freq_hz: f64,
        /// System loss L ≥ 1 (linear).
        system_loss: f64,
    },
    /// Two-ray ground reflection as ns-2 applies it: Friis up to the
    /// crossover distance d_c = 4π·ht·hr/λ, then Pr = Pt·ht²·hr²/(d⁴·L)
    /// (Rappaport 2nd ed. §4.6, eq. 4.52). The two branches meet at d_c, so
    /// the curve is continuous.
    TwoRayGround {
        /// Carrier frequency in Hz (sets λ and so the crossover distance).
        freq_hz: f64,
        /// Transmitter antenna height in metres.
        tx_height_m: f64,
        /// Receiver antenna height in metres.
        rx_height_m: f64,
        /// System loss L ≥ 1 (linear), as in Friis.
        system_loss: f64,
    },
    /// PL(d) = PL(d0) + 10·n·log10(d/d0) (Rappaport 2nd ed. §4.9.1,
    /// eq. 4.69a); below d0 the loss is PL(d0).
    LogDistance {
        /// Path loss exponent n (2 in free space, 3 to 4 indoors or in cities).
        exponent: f64,
        /// Reference distance d0 in metres.
        reference_m: f64,
        /// Loss at d0 in dB.
        reference_loss_db: f64,
    },
}

impl Default for PathLoss {
    /// ns-3 3.44 LogDistancePropagationLossModel defaults: exponent 3,
    /// reference 1 m, 46.6777 dB (Friis at 1 m for 5.15 GHz), as listed in
    /// `/work/shared/anchors/ns3-wifi/wifi_defaults.md` and used by the
    /// anchors' "2 m circle" runs.
    fn default() -> Self {
        PathLoss::LogDistance {
            exponent: 3.0,
            reference_m: 1.0,
            reference_loss_db: 46.6777,
        }
    }
}

/// Invalid path-loss parameters, reported by [`PathLoss::validate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathLossError {
    /// Frequency not finite and positive.
    Frequency,
    /// Antenna height not finite and positive.
    Height,
    /// System loss not finite or below 1 (a passive system cannot gain).
    SystemLoss,
    /// Exponent not finite and positive.
    Exponent,
    /// Reference distance not finite and positive, or reference loss not finite.
    Reference,
}

impl std::fmt::Display for PathLossError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = match self {
            PathLossError::Frequency => "frequency must be finite and > 0",
            PathLossError::Height => "antenna heights must be finite and > 0",
            PathLossError::SystemLoss => "system loss must be finite and >= 1",
            PathLossError::Exponent => "path-loss exponent must be finite and > 0",
            PathLossError::Reference => "reference distance must be > 0 and reference loss finite",
        };
        f.write_str(s)
    }
}

impl std::error::Error for PathLossError {}

fn pos_or(x: f64, fallback: f64) -> f64 {
    if x.is_finite() && x > 0.0 {
        x
    } else {
        fallback
    }
}

/// The log-distance model's `(exponent, reference distance, reference
/// loss)` with the fallbacks both of its forms use: a non-positive or
/// non-finite exponent is 0 (no distance dependence), a bad reference
/// distance is 1 m, a non-finite reference loss is 0 dB.
fn log_distance_terms(exponent: f64, reference_m: f64, reference_loss_db: f64) -> (f64, f64, f64) {
    let n = if exponent.is_finite() && exponent > 0.0 {
        exponent
    } else {
        0.0
    };
    let l0 = if reference_loss_db.is_finite() {
        reference_loss_db
    } else {
        0.0
    };
    (n, pos_or(reference_m, 1.0), l0)
}

/// System loss in dB; values below 1, NaN or infinite are treated as 1
/// (no loss), see `validate`.
fn system_loss_db(system_loss: f64) -> f64 {
    if system_loss.is_finite() && system_loss >= 1.0 {
        10.0 * system_loss.log10()
    } else {
        0.0
    }
}

/// Wavelength; an invalid frequency falls back to 1 GHz (see `validate`).
fn wavelength(freq_hz: f64) -> f64 {
    SPEED_OF_LIGHT / pos_or(freq_hz, 1e9)
}

/// NaN and negative distances become the minimum; +inf stays +inf (and
/// yields −inf dBm, i.e. zero power).
fn clamp_dist(d: f64, min: f64) -> f64 {
    if d.is_nan() || d < min {
        min
    } else {
        d
    }
}

impl PathLoss {
    /// ns-2's `Propagation/TwoRayGround` with its 914 MHz WaveLAN defaults:
    /// antennas 1.5 m high (`Antenna/OmniAntenna Z_`), `freq_` 914e6,
    /// `L_` 1.0 (ns-2 wireless defaults; see `RadioParams::ns2`).
    pub fn ns2_two_ray() -> Self {
        PathLoss::TwoRayGround {
            freq_hz: 914e6,
            tx_height_m: 1.5,
            rx_height_m: 1.5,
            system_loss: 1.0,
        }
    }

    /// Free space at `freq_hz` without system loss.
    pub fn friis(freq_hz: f64) -> Self {
        PathLoss::Friis {
            freq_hz,
            system_loss: 1.0,
        }
    }

    /// Checks parameters for scenario parsing. The model functions never
    /// fail; they clamp what this rejects (frequency → 1 GHz, heights →
    /// 1 m, system loss → 1, exponent → 0 i.e. no decay, reference
    /// distance → 1 m, non-finite reference loss → 0 dB).
    pub fn validate(&self) -> Result<(), PathLossError> {
        let ok = |x: f64| x.is_finite() && x > 0.0;
        let loss_ok = |l: f64| l.is_finite() && l >= 1.0;
        match *self {
            PathLoss::Friis {
                freq_hz,
                system_loss,
            } => {
                if !ok(freq_hz) {
                    return Err(PathLossError::Frequency);
                }
                if !loss_ok(system_loss) {
                    return Err(PathLossError::SystemLoss);
                }
            }
            PathLoss::TwoRayGround {
                freq_hz,
                tx_height_m,
                rx_height_m,
                system_loss,
            } => {
                if !ok(freq_hz) {
                    return Err(PathLossError::Frequency);
                }
                if !ok(tx_height_m) || !ok(rx_height_m) {
                    return Err(PathLossError::Height);
                }
                if !loss_ok(system_loss) {
                    return Err(PathLossError::SystemLoss);
                }
            }
            PathLoss::LogDistance {
                exponent,
                reference_m,
                reference_loss_db,
            } => {
                if !ok(exponent) {
                    return Err(PathLossError::Exponent);
                }
                if !ok(reference_m) || !reference_loss_db.is_finite() {
                    return Err(PathLossError::Reference);
                }
            }
        }
        Ok(())
    }

    /// Smallest distance the model distinguishes; below it the received
    /// power is constant.
    pub fn min_distance_m(&self) -> f64 {
        match *self {
            PathLoss::Friis { .. } | PathLoss::TwoRayGround { .. } => MIN_DISTANCE_M,
            PathLoss::LogDistance { reference_m, .. } => pos_or(reference_m, 1.0),
        }
    }

    /// Path loss in dB at `dist_m` (≥ 0 dB only if the parameters are
    /// physical; see `validate`). Distances below `min_distance_m` (and
    /// NaN) are clamped to it; +inf gives +inf dB.
    pub fn loss_db(&self, dist_m: f64) -> f64 {
        let d = clamp_dist(dist_m, self.min_distance_m());
        match *self {
            PathLoss::Friis {
                freq_hz,
                system_loss,
            } => friis_loss_db(wavelength(freq_hz), d) + system_loss_db(system_loss),
            PathLoss::TwoRayGround {
                freq_hz,
                tx_height_m,
                rx_height_m,
                system_loss,
            } => {
                let lambda = wavelength(freq_hz);
                let ht = pos_or(tx_height_m, 1.0);
                let hr = pos_or(rx_height_m, 1.0);
                let dc = 4.0 * std::f64::consts::PI * ht * hr / lambda;
                let l = if d <= dc {
                    friis_loss_db(lambda, d)
                } else {
                    // 1/(ht²hr²/d⁴) in dB.
                    40.0 * d.log10() - 20.0 * (ht * hr).log10()
                };
                l + system_loss_db(system_loss)
            }
            PathLoss::LogDistance {
                exponent,
                reference_m,
                reference_loss_db,
            } => {
                let (n, d0, l0) = log_distance_terms(exponent, reference_m, reference_loss_db);
                if n == 0.0 {
                    return l0; // avoids 0 · inf at d = inf
                }
                l0 + 10.0 * n * (d / d0).log10()
            }
        }
    }

    /// Received power in dBm for `tx_dbm` radiated over `dist_m`
    /// (antenna gains excluded). Never +inf or NaN for finite `tx_dbm`.
    pub fn rx_power_dbm(&self, tx_dbm: f64, dist_m: f64) -> f64 {
        tx_dbm - self.loss_db(dist_m)
    }

    /// Distance at which the received power falls to `threshold_dbm`:
    /// the largest d with rx_power_dbm(tx, d) ≥ threshold. Closed-form
    /// inversion of each (monotone) model. Returns 0 if even the power at
    /// `min_distance_m` is below the threshold, and +inf if the model does
    /// not decay (LogDistance with a clamped exponent of 0) while the
    /// threshold is met. NaN inputs give 0. Used to size the spatial grid,
    /// so callers should treat the result as "no one farther can hear".
    pub fn range_m(&self, tx_dbm: f64, threshold_dbm: f64) -> f64 {
        let budget = tx_dbm - threshold_dbm; // allowed loss, dB
        if budget.is_nan() {
            return 0.0;
        }
        let dmin = self.min_distance_m();
        if budget < self.loss_db(dmin) {
            return 0.0;
        }
        if budget == f64::INFINITY {
            return f64::INFINITY;
        }
        let d = match *self {
            PathLoss::Friis {
                freq_hz,
                system_loss,
            } => {
                let lambda = wavelength(freq_hz);
                friis_inverse(lambda, budget - system_loss_db(system_loss))
            }
            PathLoss::TwoRayGround {
                freq_hz,
                tx_height_m,
                rx_height_m,
                system_loss,
            } => {
                let lambda = wavelength(freq_hz);
                let ht = pos_or(tx_height_m, 1.0);
                let hr = pos_or(rx_height_m, 1.0);
                let dc = 4.0 * std::f64::consts::PI * ht * hr / lambda;
                let b = budget - system_loss_db(system_loss);
                let d_friis = friis_inverse(lambda, b);
                if d_friis <= dc {
                    d_friis
                } else {
                    10f64.powf((b + 20.0 * (ht * hr).log10()) / 40.0)
                }
            }
            PathLoss::LogDistance {
                exponent,
                reference_m,
                reference_loss_db,
            } => {
                let n = if exponent.is_finite() && exponent > 0.0 {
                    exponent
                } else {
                    0.0
                };
                if n == 0.0 {
                    return f64::INFINITY;
                }
                let d0 = pos_or(reference_m, 1.0);
                let l0 = if reference_loss_db.is_finite() {
                    reference_loss_db
                } else {
                    0.0
                };
                d0 * 10f64.powf((budget - l0) / (10.0 * n))
            }
        };
        d.max(dmin)
    }
}

/// Free-space loss 20·log10(4πd/λ) (Rappaport eq. 4.5 in dB).
/// A [`PathLoss`] as a linear power gain of the *squared* distance, for the
/// medium's per-receiver loop: the dB form costs a logarithm and a power per
/// receiver, this one a division (free space, two-ray) or one power
/// (log-distance, or two square roots when 4·n/2 is a small integer).
/// Agrees with `10^(−loss_db(√d²)/10)` to a few ulps (tested).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LinearPathLoss {
    /// gain = k / max(d², 1 m²).
    InverseSquare {
        /// Gain at 1 m (linear).
        k: f64,
    },
    /// Free space `k_near / d²` up to the crossover d_c, then `k_far / d⁴`.
    TwoRay {
        /// Free-space gain at 1 m (linear).
        k_near: f64,
        /// Two-ray gain constant, ht²·hr²/L.
        k_far: f64,
        /// Squared crossover distance d_c² in m².
        crossover_m2: f64,
    },
    /// gain = g0 · max(d²/d0², 1)^(−n/2); `quarters` = 2n when that is a
    /// small whole number (the power is then built from square roots).
    LogDistance {
        /// Gain at d0 (linear).
        g0: f64,
        /// Squared reference distance d0² in m².
        d0_m2: f64,
        /// n / 2: the exponent applied to the squared distance ratio.
        half_n: f64,
        /// 2n when that is a small whole number, for the square-root path.
        quarters: Option<u32>,
    },
}

impl PathLoss {
    /// This model as a gain of the squared distance (see [`LinearPathLoss`]).
    pub fn linear(&self) -> LinearPathLoss {
        let sys = |l: f64| 10f64.powf(-system_loss_db(l) / 10.0);
        match *self {
            PathLoss::Friis {
                freq_hz,
                system_loss,
            } => {
                let lambda = wavelength(freq_hz);
                LinearPathLoss::InverseSquare {
                    k: (lambda / (4.0 * std::f64::consts::PI)).powi(2) * sys(system_loss),
                }
            }
            PathLoss::TwoRayGround {
                freq_hz,
                tx_height_m,
                rx_height_m,
                system_loss,
            } => {
                let lambda = wavelength(freq_hz);
                let (ht, hr) = (pos_or(tx_height_m, 1.0), pos_or(rx_height_m, 1.0));
                let dc = 4.0 * std::f64::consts::PI * ht * hr / lambda;
                LinearPathLoss::TwoRay {
                    k_near: (lambda / (4.0 * std::f64::consts::PI)).powi(2) * sys(system_loss),
                    k_far: (ht * hr).powi(2) * sys(system_loss),
                    crossover_m2: dc * dc,
                }
            }
            PathLoss::LogDistance {
                exponent,
                reference_m,
                reference_loss_db,
            } => {
                let (n, d0, l0) = log_distance_terms(exponent, reference_m, reference_loss_db);
                let q = 2.0 * n;
                let quarters = (q == q.round() && q <= 64.0).then_some(q as u32);
                LinearPathLoss::LogDistance {
                    g0: 10f64.powf(-l0 / 10.0),
                    d0_m2: d0 * d0,
                    half_n: n / 2.0,
                    quarters,
                }
            }
        }
    }
}

impl LinearPathLoss {
    /// Linear power gain (≤ 1 for physical parameters) at squared distance
    /// `d2` m². NaN and distances below the model's minimum count as the
    /// minimum; +inf gives 0.
    #[inline]
    pub fn gain(&self, d2: f64) -> f64 {
        match *self {
            LinearPathLoss::InverseSquare { k } => k / clamp_dist(d2, 1.0),
            LinearPathLoss::TwoRay {
                k_near,
                k_far,
                crossover_m2,
            } => {
                let d2 = clamp_dist(d2, 1.0);
                if d2 <= crossover_m2 {
                    k_near / d2
                } else {
                    k_far / (d2 * d2)
                }
            }
            LinearPathLoss::LogDistance {
                g0,
                d0_m2,
                half_n,
                quarters,
            } => {
                let x = clamp_dist(d2 / d0_m2, 1.0);
                match quarters {
                    Some(0) => g0,
                    // x^(q/4) from x^(1/4) = √√x: exact roots, then q−1 products.
                    Some(q) => {
                        let r = x.sqrt().sqrt();
                        g0 / powi_by_squaring(r, q)
                    }
                    None => g0 * x.powf(-half_n),
                }
            }
        }
    }
}

impl LinearPathLoss {
    /// Replace each `(radio, squared distance)` of `near` by `(radio,
    /// received power in mW)` from a transmitter of `eirp_mw`, with the
    /// receiver's antenna gain from `antenna` (linear, by radio):
    /// `eirp_mw · antenna · gain(d²)`, in that order.
    pub fn received_mw(&self, eirp_mw: f64, antenna: &[f64], near: &mut [(u32, f64)]) {
        match *self {
            // The campus case, with the model's match out of the loop.
            LinearPathLoss::LogDistance {
                quarters: Some(q), ..
            } if q > 0 => {
                for e in near.iter_mut() {
                    e.1 = eirp_mw * antenna[e.0 as usize] * self.log_distance_quarters(e.1, q);
                }
            }
            _ => {
                for e in near.iter_mut() {
                    e.1 = eirp_mw * antenna[e.0 as usize] * self.gain(e.1);
                }
            }
        }
    }

    /// `gain` of `LogDistance` with `quarters` = `Some(q)`, q > 0.
    #[inline]
    fn log_distance_quarters(&self, d2: f64, q: u32) -> f64 {
        let LinearPathLoss::LogDistance { g0, d0_m2, .. } = *self else {
            unreachable!("log-distance only")
        };
        let r = clamp_dist(d2 / d0_m2, 1.0).sqrt().sqrt();
        g0 / powi_by_squaring(r, q)
    }
}

/// `x.powi(n)` with the same bits: the runtime's `__powidf2` (which
/// `powi` calls for an exponent known only at run time) multiplies by
/// squaring, lowest bit first; doing it here lets the compiler inline it
/// (it was 4 % of the campus run as a call).
#[inline]
fn powi_by_squaring(mut x: f64, mut n: u32) -> f64 {
    let mut acc = 1.0;
    loop {
        if n & 1 != 0 {
            acc *= x;
        }
        n >>= 1;
        if n == 0 {
            return acc;
        }
        x *= x;
    }
}

fn friis_loss_db(lambda: f64, d: f64) -> f64 {
    20.0 * (4.0 * std::f64::consts::PI * d / lambda).log10()
}

fn friis_inverse(lambda: f64, loss_db: f64) -> f64 {
    lambda / (4.0 * std::f64::consts::PI) * 10f64.powf(loss_db / 20.0)
}

/// Log-normal shadowing: a zero-mean Gaussian in dB added to the mean path
/// loss (Rappaport 2nd ed. §4.9.2, eq. 4.69). `sigma_db` is the standard
/// deviation; a negative value is used by magnitude and NaN/inf mean 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shadowing {
    /// Standard deviation of the shadowing in dB.
    pub sigma_db: f64,
}

impl Shadowing {
    /// One shadowing sample in dB (add it to the received power).
    /// Box–Muller transform (G. E. P. Box and M. E. Muller, "A note on the
    /// generation of random normal deviates", Ann. Math. Statist. 29(2),
    /// 1958): z = √(−2 ln u1)·cos(2π u2) with u1 ∈ (0, 1], u2 ∈ [0, 1).
    /// Draws exactly two uniforms per call (the sine twin is discarded), so
    /// the stream position depends only on the number of calls.
    pub fn sample_db(&self, rng: &mut RngStream) -> f64 {
        let u1 = 1.0 - rng.uniform(); // (0, 1]: ln never sees 0
        let u2 = rng.uniform();
        let sigma = if self.sigma_db.is_finite() {
            self.sigma_db.abs()
        } else {
            0.0
        };
        if sigma == 0.0 {
            return 0.0;
        }
        sigma * (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

/// Boltzmann constant, J/K (exact since the 2019 SI redefinition).
const BOLTZMANN: f64 = 1.380_649e-23;
/// IEEE standard reference noise temperature T0 = 290 K (IEEE Std
/// 161-1990 definition of noise figure), which makes kT0 = −173.98 dBm/Hz,
/// the "−174 dBm/Hz" of link budgets.
const T0_KELVIN: f64 = 290.0;

/// Receiver noise floor in dBm: 10·log10(k·T0·B / 1 mW) + NF. Uses the
/// exact kT0 (−173.975 dBm/Hz) rather than the rounded −174, as ns-3 does,
/// so 20 MHz + 7 dB gives −93.97 dBm like ns-3's YansWifiPhy.
/// Bandwidths below 1 Hz (or NaN) are clamped to 1 Hz; a non-finite noise
/// figure counts as 0 dB.
pub fn thermal_noise_dbm(bandwidth_hz: f64, noise_figure_db: f64) -> f64 {
    let b = if bandwidth_hz >= 1.0 {
        bandwidth_hz
    } else {
        1.0
    };
    let nf = if noise_figure_db.is_finite() {
        noise_figure_db
    } else {
        0.0
    };
    mw_to_dbm(BOLTZMANN * T0_KELVIN * b * 1e3) + nf
}

/// dBm → mW. −inf gives 0 mW.
pub fn dbm_to_mw(dbm: f64) -> f64 {
    10f64.powf(dbm / 10.0)
}

/// mW → dBm. Zero or negative power (and NaN) give −inf dBm, "no power",
/// which compares below every threshold and converts back to 0 mW.
pub fn mw_to_dbm(mw: f64) -> f64 {
    if mw > 0.0 {
        10.0 * mw.log10()
    } else {
        f64::NEG_INFINITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn received_mw_is_the_gain_of_each_radio() {
        let models = [
            PathLoss::LogDistance {
                exponent: 3.5,
                reference_m: 1.0,
                reference_loss_db: 46.6777,
            },
            PathLoss::LogDistance {
                exponent: 2.7,
                reference_m: 2.0,
                reference_loss_db: 40.0,
            },
            PathLoss::Friis {
                freq_hz: 5.18e9,
                system_loss: 1.0,
            },
        ];
        let antenna = [1.0, 0.5, 2.0, 1.25];
        for m in models {
            let l = m.linear();
            let mut near: Vec<(u32, f64)> =
                (0..400).map(|i| (i % 4, 0.01 * (i * i) as f64)).collect();
            let want: Vec<(u32, f64)> = near
                .iter()
                .map(|&(j, d2)| (j, 20.0 * antenna[j as usize] * l.gain(d2)))
                .collect();
            l.received_mw(20.0, &antenna, &mut near);
            assert_eq!(near, want, "{m:?}");
        }
    }

    #[test]
    fn powi_by_squaring_has_the_bits_of_powi() {
        let mut rng = airtcp_core::RngStream::new(11, "powi-test");
        for _ in 0..20_000 {
            let x = (rng.uniform() * 40.0).exp2() * rng.uniform();
            let n = std::hint::black_box((rng.uniform() * 65.0) as u32);
            assert_eq!(
                powi_by_squaring(x, n).to_bits(),
                x.powi(n as i32).to_bits(),
                "{x}^{n}"
            );
        }
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn friis_reference_loss_matches_ns3_default() {
        // ns-3's 46.6777 dB is Friis at 1 m for 5.15 GHz with c = 3e8.
        let f = PathLoss::friis(5.15e9);
        assert!(close(f.loss_db(1.0), 46.6777, 1e-3), "{}", f.loss_db(1.0));
        // 20 dB per decade.
        assert!(close(f.loss_db(100.0) - f.loss_db(10.0), 20.0, 1e-9));
    }

    #[test]
    fn log_distance_default() {
        let p = PathLoss::default();
        assert!(close(p.rx_power_dbm(16.0206, 1.0), 16.0206 - 46.6777, 1e-9));
        // 2 m circle of the anchors: about -40 dBm.
        let at2 = p.rx_power_dbm(16.0206, 2.0);
        assert!(close(at2, 16.0206 - 46.6777 - 30.0 * 2f64.log10(), 1e-9));
        assert!((-41.0..-39.0).contains(&at2), "{at2}");
        // Below the reference distance the loss is flat.
        assert_eq!(p.rx_power_dbm(0.0, 0.5), p.rx_power_dbm(0.0, 1.0));
    }

    #[test]
    fn ns2_two_ray_ranges() {
        // ns-2's WaveLAN thresholds are chosen for 250 m receive and 550 m
        // carrier-sense range under TwoRayGround.
        let p = PathLoss::ns2_two_ray();
        let r = crate::phy::RadioParams::ns2();
        let rx = p.range_m(r.tx_power_dbm, r.rx_sensitivity_dbm);
        let cs = p.range_m(r.tx_power_dbm, r.cca_threshold_dbm);
        assert!(close(rx, 250.0, 0.1), "{rx}");
        assert!(close(cs, 550.0, 0.5), "{cs}");
        // Crossover 4π·1.5·1.5/λ ≈ 86.1 m; continuous there.
        let lambda = SPEED_OF_LIGHT / 914e6;
        let dc = 4.0 * std::f64::consts::PI * 2.25 / lambda;
        assert!(close(
            p.loss_db(dc * (1.0 - 1e-12)),
            p.loss_db(dc * (1.0 + 1e-12)),
            1e-6
        ));
        // 40 dB/decade beyond.
        assert!(close(p.loss_db(1000.0) - p.loss_db(100.0), 40.0, 1e-9));
    }

    #[test]
    fn range_inverts_rx_power() {
        let models = [
            PathLoss::default(),
            PathLoss::friis(2.412e9),
            PathLoss::ns2_two_ray(),
            PathLoss::TwoRayGround {
                freq_hz: 5.18e9,
                tx_height_m: 2.0,
                rx_height_m: 1.0,
                system_loss: 2.0,
            },
            PathLoss::LogDistance {
                exponent: 2.5,
                reference_m: 10.0,
                reference_loss_db: 60.0,
            },
        ];
        for m in models {
            for th in [-101.0, -90.0, -82.0, -70.0, -62.0, -40.0] {
                let d = m.range_m(20.0, th);
                assert!(d.is_finite() && d >= 0.0);
                if d > m.min_distance_m() {
                    assert!(close(m.rx_power_dbm(20.0, d), th, 1e-6), "{m:?} {th} {d}");
                    assert!(m.rx_power_dbm(20.0, d * 1.01) < th);
                }
            }
            // Threshold above the power at the minimum distance: range 0.
            assert_eq!(m.range_m(20.0, 100.0), 0.0);
            assert_eq!(m.range_m(f64::NAN, -80.0), 0.0);
        }
    }

    #[test]
    fn degenerate_inputs_never_blow_up() {
        let bad = [
            PathLoss::Friis {
                freq_hz: 0.0,
                system_loss: 0.0,
            },
            PathLoss::Friis {
                freq_hz: f64::NAN,
                system_loss: f64::NAN,
            },
            PathLoss::TwoRayGround {
                freq_hz: -1.0,
                tx_height_m: 0.0,
                rx_height_m: f64::NAN,
                system_loss: -3.0,
            },
            PathLoss::LogDistance {
                exponent: f64::NAN,
                reference_m: 0.0,
                reference_loss_db: f64::INFINITY,
            },
            PathLoss::LogDistance {
                exponent: -2.0,
                reference_m: -1.0,
                reference_loss_db: 40.0,
            },
        ];
        for m in bad {
            assert!(m.validate().is_err());
            for d in [0.0, -5.0, f64::NAN, 1e-300, 1.0, 1e6] {
                let p = m.rx_power_dbm(20.0, d);
                assert!(p.is_finite(), "{m:?} {d} {p}");
            }
            assert!(!m.rx_power_dbm(20.0, f64::INFINITY).is_nan());
            let r = m.range_m(20.0, -80.0);
            assert!(!r.is_nan());
        }
        for good in [
            PathLoss::default(),
            PathLoss::ns2_two_ray(),
            PathLoss::friis(2.4e9),
        ] {
            assert_eq!(good.validate(), Ok(()));
            assert_eq!(good.rx_power_dbm(20.0, f64::INFINITY), f64::NEG_INFINITY);
            for d in [0.0, -1.0, f64::NAN] {
                assert!(good.rx_power_dbm(20.0, d) < 20.0);
            }
        }
    }

    #[test]
    fn noise_floor() {
        // ns-3 YansWifiPhy: 20 MHz, NF 7 dB -> -93.97 dBm.
        let n = thermal_noise_dbm(20e6, 7.0);
        assert!(close(n, -93.97, 0.01), "{n}");
        let n22 = thermal_noise_dbm(22e6, 0.0);
        assert!(close(n22, -173.975 + 10.0 * 22e6f64.log10(), 0.01));
        assert!(thermal_noise_dbm(0.0, 0.0).is_finite());
        assert!(thermal_noise_dbm(f64::NAN, f64::NAN).is_finite());
    }

    #[test]
    fn dbm_mw_roundtrip() {
        assert!(close(dbm_to_mw(0.0), 1.0, 1e-12));
        assert!(close(dbm_to_mw(30.0), 1000.0, 1e-9));
        assert!(close(mw_to_dbm(281.838_15), 24.5, 1e-3));
        assert_eq!(mw_to_dbm(0.0), f64::NEG_INFINITY);
        assert_eq!(mw_to_dbm(-1.0), f64::NEG_INFINITY);
        assert_eq!(dbm_to_mw(f64::NEG_INFINITY), 0.0);
        for x in [-120.0, -62.5, 0.0, 16.0206] {
            assert!(close(mw_to_dbm(dbm_to_mw(x)), x, 1e-9));
        }
    }

    #[test]
    fn shadowing_is_standard_normal_scaled() {
        let s = Shadowing { sigma_db: 4.0 };
        let mut rng = RngStream::new(42, "shadow");
        let n = 100_000;
        let (mut sum, mut sq) = (0.0, 0.0);
        for _ in 0..n {
            let x = s.sample_db(&mut rng);
            assert!(x.is_finite());
            sum += x;
            sq += x * x;
        }
        let mean = sum / n as f64;
        let sd = (sq / n as f64 - mean * mean).sqrt();
        assert!(mean.abs() < 0.05, "{mean}");
        assert!(close(sd, 4.0, 0.05), "{sd}");
        // Zero/NaN sigma: always 0, but the stream still advances by two draws.
        let mut a = RngStream::new(1, "x");
        let mut b = RngStream::new(1, "x");
        assert_eq!(Shadowing { sigma_db: f64::NAN }.sample_db(&mut a), 0.0);
        b.uniform();
        b.uniform();
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn linear_gain_matches_the_db_model() {
        let models = [
            PathLoss::default(),
            PathLoss::LogDistance {
                exponent: 3.5,
                reference_m: 1.0,
                reference_loss_db: 46.6777,
            },
            PathLoss::LogDistance {
                exponent: 2.7,
                reference_m: 2.0,
                reference_loss_db: 40.0,
            },
            PathLoss::friis(5.18e9),
            PathLoss::ns2_two_ray(),
            PathLoss::TwoRayGround {
                freq_hz: 2.4e9,
                tx_height_m: 1.0,
                rx_height_m: 2.0,
                system_loss: 2.0,
            },
        ];
        for m in models {
            let lin = m.linear();
            for d in [0.0, 0.3, 1.0, 1.7, 9.9, 50.0, 86.0, 250.0, 1234.5, 1e5] {
                let want = dbm_to_mw(-m.loss_db(d));
                let got = lin.gain(d * d);
                assert!(
                    ((got - want) / want).abs() < 1e-9,
                    "{m:?} at {d} m: {got} vs {want}"
                );
            }
            assert_eq!(lin.gain(f64::INFINITY), 0.0, "{m:?}");
            assert_eq!(lin.gain(f64::NAN), lin.gain(0.0), "{m:?}");
        }
    }
}
