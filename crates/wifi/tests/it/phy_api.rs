//! Pins the public PHY API the MAC and medium are written against, and
//! checks one end-to-end link budget per standard through it.

use airtcp_core::{Duration, RngStream};
use airtcp_wifi::phy::{
    bit_error_rate, chunk_success, dbm_to_mw, mw_to_dbm, plcp_duration, plcp_header,
    thermal_noise_dbm, tx_duration, Modulation, PathLoss, Preamble, PreambleDetection, RadioParams,
    Rate, Shadowing, Standard,
};

#[test]
fn api_surface() {
    let std = Standard::A;
    let data = Rate::from_mbps(std, 54.0).unwrap();
    let ack_rate = std.control_rate(data);
    assert_eq!(ack_rate, Rate::OFDM24);
    let ack = tx_duration(std, ack_rate, Preamble::Long, 14);
    assert_eq!(ack, Duration::from_micros(28));
    // ns-3 ACKTimeout in the anchor = SIFS + slot + 20 µs (preamble + SIGNAL).
    let ack_timeout = std.sifs() + std.slot() + plcp_duration(ack_rate, Preamble::Long);
    assert_eq!(ack_timeout, Duration::from_micros(45));
    assert_eq!(std.eifs(), Duration::from_micros(94));
    assert_eq!(std.difs(), Duration::from_micros(34));
    assert_eq!((std.cw_min(), std.cw_max()), (15, 1023));
    assert_eq!(std.rates().len(), 8);
    assert_eq!(
        std.basic_rates(),
        &[Rate::OFDM6, Rate::OFDM12, Rate::OFDM24]
    );
    assert_eq!(std.center_freq_mhz(36), Some(5180));
    assert!(std.valid_channel(36));
    assert_eq!(std.band_ghz(), 5.0);
    assert_eq!(plcp_header(data, Preamble::Long), (Modulation::Bpsk12, 24));
    let _: PreambleDetection = PreambleDetection::default();
}

#[test]
fn link_budget_per_standard() {
    let radio = RadioParams::default();
    let model = PathLoss::default();
    let shadow = Shadowing { sigma_db: 0.0 };
    let mut rng = RngStream::new(1, "phy_api");
    for std in [Standard::A, Standard::B, Standard::G] {
        let noise = thermal_noise_dbm(std.bandwidth_hz(), radio.noise_figure_db);
        for &rate in std.rates() {
            let bw = rate.modulation.bandwidth_hz();
            let noise_r = thermal_noise_dbm(bw, radio.noise_figure_db);
            // Close: certain success. Far (below sensitivity): certain failure.
            for (dist, ok) in [(5.0, true), (2000.0, false)] {
                let rx = model.rx_power_dbm(radio.tx_power_dbm, dist) + shadow.sample_db(&mut rng);
                let sinr = dbm_to_mw(rx) / dbm_to_mw(noise_r);
                let p = chunk_success(rate.modulation, sinr, 1500 * 8);
                if ok {
                    assert!(p > 0.999_999, "{std:?} {rate:?} {dist} m: {p}");
                } else {
                    assert!(p < 1e-6, "{std:?} {rate:?} {dist} m: {p}");
                }
                assert!(bit_error_rate(rate.modulation, sinr) <= 0.5);
            }
        }
        assert!(noise.is_finite() && mw_to_dbm(dbm_to_mw(noise)) - noise < 1e-9);
        let range = model.range_m(radio.tx_power_dbm, radio.rx_sensitivity_dbm);
        assert!(range > 100.0 && range.is_finite(), "{range}");
    }
}
