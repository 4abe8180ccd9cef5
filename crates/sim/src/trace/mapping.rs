//! How a drive-log sample becomes a link capacity and a loss probability.
//!
//! These are models, not measurements: every constant is a configuration
//! value; the defaults and where they come from are documented on each
//! `Default`/constructor. The types deserialize from TOML, e.g.
//!
//! ```toml
//! [links.trace.capacity]
//! kind = "shannon"        # or "linear" | "reported"
//! bandwidth_hz = 10e6
//! [links.trace.loss]
//! midpoint_dbm = -130.7
//! ```

use serde::Deserialize;

use super::drive::DriveSample;

/// Capacity as a function of one sample.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum SignalMapping {
    /// Attenuated, truncated Shannon bound.
    Shannon(ShannonParams),
    /// Straight line between two (signal, capacity) points.
    Linear(LinearParams),
    /// The log's own throughput column, scaled.
    Reported(ReportedParams),
}

impl Default for SignalMapping {
    fn default() -> Self {
        SignalMapping::Shannon(ShannonParams::default())
    }
}

/// `capacity = bandwidth_hz * min(efficiency * log2(1 + SNR), max_spectral_efficiency)`
/// for SNR >= `snr_min_db`, else 0. SNR is the log's SNR column when
/// `use_log_snr` and present, else `signal_dbm - noise_floor_dbm`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShannonParams {
    pub bandwidth_hz: f64,
    pub efficiency: f64,
    pub snr_min_db: f64,
    pub max_spectral_efficiency: f64,
    pub noise_floor_dbm: f64,
    pub use_log_snr: bool,
}

impl Default for ShannonParams {
    /// LTE downlink.
    /// - `efficiency` 0.6, `snr_min_db` -10, `max_spectral_efficiency` 4.4
    ///   bit/s/Hz: the attenuated truncated Shannon bound of 3GPP TR 36.942
    ///   Annex A.1 (E-UTRA downlink baseline link-level performance; the
    ///   4.4 bit/s/Hz cap corresponds to an SINR of about 22 dB).
    /// - `bandwidth_hz` 10 MHz: a common LTE carrier (the IMC'23 Verizon logs
    ///   report 10 MHz, T-Mobile 20 MHz); set it per operator.
    /// - `noise_floor_dbm` -123.2: thermal noise -174 dBm/Hz over one 15 kHz
    ///   resource element (+41.8 dB) plus a 9 dB UE noise figure (the UE
    ///   noise figure assumed in TR 36.942), because RSRP is a per-resource-
    ///   element power. This ignores interference, so RSRP-derived SNR is
    ///   optimistic; hence `use_log_snr` = true prefers the device's own
    ///   RSSNR/SNR reading when the log has one.
    fn default() -> Self {
        ShannonParams {
            bandwidth_hz: 10e6,
            efficiency: 0.6,
            snr_min_db: -10.0,
            max_spectral_efficiency: 4.4,
            noise_floor_dbm: -174.0 + 41.76 + 9.0,
            use_log_snr: true,
        }
    }
}

/// Linear interpolation between (`signal_lo_dbm`, `cap_lo_bps`) and
/// (`signal_hi_dbm`, `cap_hi_bps`), flat outside; below `signal_lo_dbm` the
/// capacity is 0 when `zero_below_lo`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LinearParams {
    pub signal_lo_dbm: f64,
    pub cap_lo_bps: f64,
    pub signal_hi_dbm: f64,
    pub cap_hi_bps: f64,
    pub zero_below_lo: bool,
}

impl Default for LinearParams {
    /// 802.11n, 20 MHz, one spatial stream, 800 ns guard interval: the
    /// receiver minimum input sensitivities of IEEE 802.11-2012 §20.3.21.1
    /// for MCS 0 (-82 dBm) and MCS 7 (-64 dBm), paired with those MCSs' PHY
    /// rates (6.5 and 65 Mbit/s). PHY rate, not goodput: MAC overhead takes
    /// roughly a third, scale `cap_*` down for goodput-level studies.
    fn default() -> Self {
        LinearParams {
            signal_lo_dbm: -82.0,
            cap_lo_bps: 6.5e6,
            signal_hi_dbm: -64.0,
            cap_hi_bps: 65e6,
            zero_below_lo: true,
        }
    }
}

/// `capacity = scale * reported_throughput_bps`; samples without a reported
/// value hold the previous sample's (leading gaps take the first value).
/// A log with no throughput column cannot use this mapping.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReportedParams {
    pub scale: f64,
}

impl Default for ReportedParams {
    fn default() -> Self {
        ReportedParams { scale: 1.0 }
    }
}

impl SignalMapping {
    /// Capacity of one sample in bit/s (before the link's min/max clamp).
    /// `Reported` returns the sample's reported value (the link resolves gaps).
    pub fn capacity_bps(&self, s: &DriveSample) -> Option<f64> {
        match self {
            SignalMapping::Shannon(p) => {
                let snr_db = match (p.use_log_snr, s.snr_db) {
                    (true, Some(v)) => v,
                    _ => s.signal_dbm - p.noise_floor_dbm,
                };
                if snr_db < p.snr_min_db {
                    return Some(0.0);
                }
                let se = (p.efficiency * (1.0 + 10f64.powf(snr_db / 10.0)).log2()).min(p.max_spectral_efficiency);
                Some(p.bandwidth_hz * se.max(0.0))
            }
            SignalMapping::Linear(p) => {
                let x = s.signal_dbm;
                if x < p.signal_lo_dbm {
                    return Some(if p.zero_below_lo { 0.0 } else { p.cap_lo_bps });
                }
                if x >= p.signal_hi_dbm || p.signal_hi_dbm <= p.signal_lo_dbm {
                    return Some(p.cap_hi_bps);
                }
                let f = (x - p.signal_lo_dbm) / (p.signal_hi_dbm - p.signal_lo_dbm);
                Some(p.cap_lo_bps + f * (p.cap_hi_bps - p.cap_lo_bps))
            }
            SignalMapping::Reported(p) => s.reported_throughput_bps.map(|v| v * p.scale),
        }
    }
}

/// Packet loss probability from signal strength, a logistic PER curve:
/// `p = max_loss / (1 + exp(slope_per_db * (signal_dbm - midpoint_dbm)))`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LossCurve {
    pub midpoint_dbm: f64,
    pub slope_per_db: f64,
    pub max_loss: f64,
}

impl Default for LossCurve {
    /// LTE (RSRP). 3GPP TS 36.101 §7.3 sets the reference sensitivity of a
    /// 10 MHz band-1 UE at -97 dBm total power, i.e. -97 - 10 log10(600
    /// subcarriers) = -124.8 dBm per resource element (RSRP scale), where
    /// throughput must still be >= 95 % of the maximum. We place 5 % loss
    /// there: with slope 0.5/dB, midpoint = -124.8 - ln(19)/0.5 = -130.7 dBm.
    /// Loss is then 1.8e-3 at -118 dBm and below 5e-5 at -110 dBm: ~0 in
    /// normal coverage, as RLC/HARQ retransmissions make it.
    fn default() -> Self {
        LossCurve { midpoint_dbm: -130.7, slope_per_db: 0.5, max_loss: 1.0 }
    }
}

impl LossCurve {
    /// Wi-Fi (RSSI). IEEE 802.11-2012 §20.3.21.1 defines the minimum
    /// sensitivity (-82 dBm for HT MCS 0, 20 MHz) as the level giving a PER
    /// of 10 % for 4096-byte frames. With slope 1/dB, 10 % at -82 dBm puts
    /// the midpoint at -82 - ln(9) = -84.2 dBm; loss < 0.1 % above -75 dBm.
    /// This is per-attempt PER, before MAC retries.
    pub fn wifi() -> Self {
        LossCurve { midpoint_dbm: -84.2, slope_per_db: 1.0, max_loss: 1.0 }
    }

    pub fn none() -> Self {
        LossCurve { midpoint_dbm: f64::NEG_INFINITY, slope_per_db: 1.0, max_loss: 0.0 }
    }

    pub fn loss_prob(&self, signal_dbm: f64) -> f64 {
        if self.max_loss <= 0.0 {
            return 0.0;
        }
        let p = self.max_loss / (1.0 + (self.slope_per_db * (signal_dbm - self.midpoint_dbm)).exp());
        p.clamp(0.0, 1.0)
    }
}
