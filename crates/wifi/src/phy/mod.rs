//! 802.11 PHY models: what a radio needs to know to turn "station A sends
//! n bytes at rate r" into airtime, received power and a success
//! probability.
//!
//! * [`standard`]: rates, PLCP timing (TXTIME), IFS/slot/CW constants,
//!   control-response rates and channel frequencies of 802.11b/a/g
//!   (IEEE Std 802.11-2016 Clauses 15–18).
//! * [`propagation`]: path loss (Friis, ns-2 two-ray ground, log-distance),
//!   log-normal shadowing, thermal noise, dBm/mW conversion.
//! * [`error`]: bit error rate and chunk success probability from SINR for
//!   every legacy modulation, including the K=7 convolutional code.
//!
//! Everything here is a pure function of its arguments (randomness only
//! through an explicit [`RngStream`](airtcp_core::RngStream)), never
//! panics, and does not allocate, so the medium can call it per frame.

pub mod error;
pub mod propagation;
pub mod standard;
pub mod table;

pub use error::{bit_error_rate, chunk_success, erfc, log_success_per_bit, q_function};
pub use propagation::{
    dbm_to_mw, mw_to_dbm, thermal_noise_dbm, LinearPathLoss, PathLoss, PathLossError, Shadowing,
};
pub use standard::{plcp_duration, plcp_header, tx_duration, Modulation, Preamble, Rate, Standard};
pub use table::log_success_per_bit_fast;

/// Radio front-end parameters of one station.
///
/// `rx_sensitivity_dbm` is the weakest signal the PHY notices at all
/// (below it a frame is neither decoded nor counted as interference-worthy
/// reception); `cca_threshold_dbm` is the energy-detect level at which the
/// medium is busy regardless of decoding. Antenna gain applies at both
/// transmit and receive (ns-3 TxGain/RxGain, ns-2 Gt/Gr) and is not part
/// of `PathLoss`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RadioParams {
    /// Transmit power in dBm at the antenna port.
    pub tx_power_dbm: f64,
    /// Weakest signal in dBm the radio can decode.
    pub rx_sensitivity_dbm: f64,
    /// Energy in dBm above which the medium is busy even without a decodable frame.
    pub cca_threshold_dbm: f64,
    /// Receiver noise figure in dB: raises the thermal noise floor.
    pub noise_figure_db: f64,
    /// Antenna gain in dBi, applied when sending and when receiving.
    pub antenna_gain_db: f64,
    /// When a frame's preamble is detected, i.e. when the PHY locks on.
    pub preamble: PreambleDetection,
}

impl Default for RadioParams {
    /// ns-3 3.44 WifiPhy/YansWifiPhy defaults, as dumped in
    /// `/work/shared/anchors/ns3-wifi/wifi_defaults.md`: TxPowerStart =
    /// TxPowerEnd = 16.0206 dBm (40 mW), RxSensitivity −101 dBm,
    /// CcaEdThreshold −62 dBm, RxNoiseFigure 7 dB, TxGain = RxGain = 0 dB.
    fn default() -> Self {
        RadioParams {
            tx_power_dbm: 16.0206,
            rx_sensitivity_dbm: -101.0,
            cca_threshold_dbm: -62.0,
            noise_figure_db: 7.0,
            antenna_gain_db: 0.0,
            preamble: PreambleDetection::default(),
        }
    }
}

/// ns-2 `Phy/WirelessPhy` power threshold for capture: a frame survives an
/// overlapping one if it is at least 10 dB stronger (`CPThresh_ 10.0`).
pub const NS2_CAPTURE_THRESHOLD_DB: f64 = 10.0;

impl RadioParams {
    /// ns-2's 914 MHz Lucent WaveLAN settings (the values of the ns-2.35
    /// wireless examples and test suites, "Initialize the SharedMedia
    /// interface ... 914MHz Lucent WaveLAN DSSS radio interface"):
    /// `Pt_` 0.28183815 W (24.5 dBm), `RXThresh_` 3.652e-10 W (−64.37 dBm,
    /// 250 m with two-ray ground), `CSThresh_` 1.559e-11 W (−78.07 dBm,
    /// 550 m), unity-gain omni antennas (`Gt_ = Gr_ = 1`). ns-2 decides
    /// reception by these thresholds and `CPThresh_`
    /// ([`NS2_CAPTURE_THRESHOLD_DB`]) only, with no thermal noise, so the
    /// noise figure is set to 0 dB; with it the SINR-based error model is
    /// error-free at RXThresh (about 36 dB above the 22 MHz noise floor).
    /// Pair with [`PathLoss::ns2_two_ray`].
    pub fn ns2() -> Self {
        RadioParams {
            tx_power_dbm: mw_to_dbm(0.281_838_15e3),
            rx_sensitivity_dbm: mw_to_dbm(3.652e-10 * 1e3),
            cca_threshold_dbm: mw_to_dbm(1.559e-11 * 1e3),
            noise_figure_db: 0.0,
            antenna_gain_db: 0.0,
            preamble: PreambleDetection::NONE,
        }
    }

    /// Receiver noise floor over `bandwidth_hz` with this radio's noise
    /// figure (see [`thermal_noise_dbm`]).
    pub fn noise_dbm(&self, bandwidth_hz: f64) -> f64 {
        thermal_noise_dbm(bandwidth_hz, self.noise_figure_db)
    }
}

/// Preamble detection: a reception starts (and the PHY locks on, turning
/// CCA busy and ignoring later weaker frames) only if the preamble's SNR
/// and power clear these levels. Defaults: ns-3 3.44
/// ThresholdPreambleDetectionModel (Threshold 4 dB, MinimumRssi −82 dBm,
/// wifi_defaults.md), which the anchor runs used; −82 dBm is also ns-3's
/// CcaSensitivity and the 802.11-2016 17.3.10.6 CCA requirement for a
/// 20 MHz OFDM preamble.
///
/// The decision is ns-3's: made over the first [`PREAMBLE_DETECTION`] of
/// the frame, so two frames that start together drown each other's
/// preambles (SINR near 0 dB) and a third station sees only energy (CCA by
/// energy detection, then DIFS), not a failed reception (EIFS).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PreambleDetection {
    /// SNR in dB the preamble must clear for the PHY to lock on.
    pub min_snr_db: f64,
    /// Signal in dBm below which no preamble is detected at all.
    pub min_rssi_dbm: f64,
}

/// ns-3 3.44 `WifiPhy::GetPreambleDetectionDuration()`: 4 µs.
pub const PREAMBLE_DETECTION: airtcp_core::Duration = airtcp_core::Duration::from_micros(4);

impl PreambleDetection {
    /// Lock on every frame above the receive sensitivity (ns-2, which
    /// has no preamble detection: `RXThresh_` alone decides).
    pub const NONE: PreambleDetection = PreambleDetection {
        min_snr_db: f64::NEG_INFINITY,
        min_rssi_dbm: f64::NEG_INFINITY,
    };
}

impl Default for PreambleDetection {
    fn default() -> Self {
        PreambleDetection {
            min_snr_db: 4.0,
            min_rssi_dbm: -82.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns2_params_in_dbm() {
        let r = RadioParams::ns2();
        assert!((r.tx_power_dbm - 24.5).abs() < 1e-3, "{}", r.tx_power_dbm);
        assert!(
            (r.rx_sensitivity_dbm - -64.375).abs() < 1e-3,
            "{}",
            r.rx_sensitivity_dbm
        );
        assert!(
            (r.cca_threshold_dbm - -78.071).abs() < 1e-3,
            "{}",
            r.cca_threshold_dbm
        );
    }

    #[test]
    fn ns3_defaults_and_anchor_link_budget() {
        let r = RadioParams::default();
        let p = PathLoss::default();
        // Anchor geometry: STAs 2 m from the AP -> about -40 dBm, SNR > 45 dB:
        // every rate decodes a 1564-byte frame with certainty.
        let rx = p.rx_power_dbm(r.tx_power_dbm + r.antenna_gain_db, 2.0) + r.antenna_gain_db;
        let snr_db = rx - r.noise_dbm(Standard::A.bandwidth_hz());
        assert!(snr_db > 45.0, "{snr_db}");
        let s = dbm_to_mw(rx) / dbm_to_mw(r.noise_dbm(20e6));
        assert!(chunk_success(Modulation::Qam64_34, s, 1564 * 8) > 1.0 - 1e-12);
        assert_eq!(PreambleDetection::default().min_rssi_dbm, -82.0);
    }
}
