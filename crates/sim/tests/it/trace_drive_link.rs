//! The drive-log link: capacity integration, outages, mappings, loss curve.

use std::path::PathBuf;

use airtcp_core::{Duration, Instant};
use airtcp_sim::trace::{
    DriveLink, DriveLinkConfig, DriveLogKind, DriveSample, DriveTimeline, LinearParams, LossCurve, ReportedParams,
    ShannonParams, SignalMapping, LTE_HANDOFF_OUTAGE,
};

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/traces").join(rel)
}

fn ms(v: u64) -> Instant {
    Instant::from_millis(v)
}

fn sample(t_ms: u64, cell: &str, signal: f64, thr: Option<f64>) -> DriveSample {
    DriveSample { t: ms(t_ms), signal_dbm: signal, snr_db: None, reported_throughput_bps: thr, cell: cell.into() }
}

/// 8 Mbit/s on A for 1 s, nothing for 1 s, then 16 Mbit/s on B (a handoff at 2 s).
fn timeline() -> DriveTimeline {
    let s = vec![
        sample(0, "A", -80.0, Some(8e6)),
        sample(1000, "A", -125.0, Some(0.0)),
        sample(2000, "B", -95.0, Some(16e6)),
    ];
    DriveTimeline::from_samples("hand", DriveLogKind::Ucc5g, s).unwrap()
}

fn reported() -> DriveLinkConfig {
    DriveLinkConfig { mapping: SignalMapping::Reported(ReportedParams::default()), ..DriveLinkConfig::default() }
}

#[test]
fn finish_time_integrates_rate_across_gaps_and_outage() {
    let mut link = DriveLink::new(&timeline(), &reported(), Instant::ZERO).unwrap();
    // 1000 B at 8 Mbit/s = 1 ms.
    assert_eq!(link.finish_time(Instant::ZERO, 1000), ms(1));
    // 2000 B from 999 ms: 1000 B fit before the rate drops to 0 at 1 s; the
    // rest waits for 2 s + 50 ms of handoff outage, then 8000 b at 16 Mbit/s.
    assert_eq!(link.finish_time(ms(999), 2000), Instant(2_050_500_000));
    // Past the last sample its state holds.
    assert_eq!(link.finish_time(ms(100_000), 2000), Instant(100_001_000_000));
    // Going back in time works too (binary search, no cursor assumption).
    assert_eq!(link.finish_time(ms(10), 1), Instant(10_001_000));
    assert_eq!(link.finish_time(ms(5), 0), ms(5));
}

#[test]
fn outage_window_and_queries() {
    let link = DriveLink::new(&timeline(), &reported(), ms(1000)).unwrap();
    assert_eq!(link.handoffs().len(), 1);
    assert_eq!(link.handoffs()[0].t, ms(3000));
    assert_eq!((link.handoffs()[0].from.as_str(), link.handoffs()[0].to.as_str()), ("A", "B"));
    assert!(!link.is_down(Instant(2_999_999_999)));
    assert!(link.is_down(ms(3000)));
    assert!(link.is_down(Instant(3_049_999_999)));
    assert!(!link.is_down(ms(3050)));
    assert_eq!(link.capacity_at(ms(3049)), 0);
    assert_eq!(link.capacity_at(ms(3050)), 16_000_000);
    assert_eq!(link.capacity_at(ms(500)), 8_000_000); // before origin: first sample
    assert_eq!(link.signal_at(ms(2500)), -125.0);
    assert_eq!(link.signal_at(ms(3010)), -95.0); // the outage keeps the new cell's signal
    assert_eq!(link.end(), ms(3000));
    // Mean over [origin, origin+3 s): (8e6 * 1 + 0 * 1 + 0 * 0.05 + 16e6 * 0.95) / 3.
    let mean = link.mean_capacity_bps(ms(1000), ms(4000));
    assert!((mean - (8e6 + 16e6 * 0.95) / 3.0).abs() < 1e-6, "{mean}");
}

#[test]
fn default_outage_is_lte_interruption_and_configurable() {
    assert_eq!(DriveLinkConfig::default().handoff_outage, Duration::from_millis(50));
    assert_eq!(LTE_HANDOFF_OUTAGE, Duration::from_millis(50));
    assert_eq!(DriveLinkConfig::wifi().handoff_outage, Duration::from_millis(200));
    let cfg = DriveLinkConfig { handoff_outage: Duration::ZERO, ..reported() };
    let link = DriveLink::new(&timeline(), &cfg, Instant::ZERO).unwrap();
    assert!(!link.is_down(ms(2000)));
    assert_eq!(link.capacity_at(ms(2000)), 16_000_000);
}

#[test]
fn offset_skips_the_start_of_the_log() {
    let cfg = DriveLinkConfig { offset: Duration::from_millis(1500), ..reported() };
    let mut link = DriveLink::new(&timeline(), &cfg, ms(10)).unwrap();
    // Log 1.5 s (rate 0) is sim 10 ms; the handoff at log 2 s is sim 510 ms.
    assert_eq!(link.capacity_at(ms(10)), 0);
    assert_eq!(link.handoffs()[0].t, ms(510));
    assert_eq!(link.finish_time(ms(10), 2000), ms(561));
}

#[test]
fn zero_capacity_forever_never_finishes() {
    let s = vec![sample(0, "A", -80.0, Some(8e6)), sample(1000, "A", -80.0, Some(0.0))];
    let tl = DriveTimeline::from_samples("z", DriveLogKind::Ucc5g, s).unwrap();
    let mut link = DriveLink::new(&tl, &reported(), Instant::ZERO).unwrap();
    assert_eq!(link.finish_time(ms(999), 2000), Instant::MAX);
}

#[test]
fn shannon_mapping_values() {
    let m = SignalMapping::default();
    let mut s = sample(0, "A", -100.0, None);
    // No SNR column: SNR = -100 - (-123.24) = 23.24 dB, above the 4.4 b/s/Hz cap.
    assert!((m.capacity_bps(&s).unwrap() - 44e6).abs() < 1.0);
    // Device SNR 10 dB: 10 MHz * 0.6 * log2(11).
    s.snr_db = Some(10.0);
    let want = 10e6 * 0.6 * 11f64.log2();
    assert!((m.capacity_bps(&s).unwrap() - want).abs() < 1e-3, "{want}");
    s.snr_db = Some(-10.5);
    assert_eq!(m.capacity_bps(&s), Some(0.0));
    // Ignoring the device SNR.
    let m = SignalMapping::Shannon(ShannonParams { use_log_snr: false, ..ShannonParams::default() });
    assert!((m.capacity_bps(&s).unwrap() - 44e6).abs() < 1.0);
}

#[test]
fn linear_mapping_values() {
    let m = SignalMapping::Linear(LinearParams::default());
    let at = |dbm: f64| m.capacity_bps(&sample(0, "A", dbm, None)).unwrap();
    assert_eq!(at(-90.0), 0.0);
    assert_eq!(at(-82.0), 6.5e6);
    assert!((at(-73.0) - 35.75e6).abs() < 1e-6);
    assert_eq!(at(-40.0), 65e6);
}

#[test]
fn loss_curve_is_negligible_in_coverage() {
    let lte = LossCurve::default();
    assert!(lte.loss_prob(-90.0) < 1e-8);
    assert!(lte.loss_prob(-110.0) < 5e-5);
    assert!((lte.loss_prob(-124.8) - 0.05).abs() < 1e-3);
    assert!((lte.loss_prob(-130.7) - 0.5).abs() < 1e-12);
    let wifi = LossCurve::wifi();
    assert!((wifi.loss_prob(-82.0) - 0.1).abs() < 1e-3);
    assert!(wifi.loss_prob(-75.0) < 1e-3);
    assert_eq!(LossCurve::none().loss_prob(-200.0), 0.0);
    let link = DriveLink::new(&timeline(), &reported(), Instant::ZERO).unwrap();
    assert_eq!(link.loss_prob(ms(0)), lte.loss_prob(-80.0));
    assert_eq!(link.loss_prob(ms(1500)), lte.loss_prob(-125.0));
}

#[test]
fn reported_mapping_needs_a_throughput_column() {
    let tl = DriveTimeline::from_path(data(
        "cellular_handover_logs_imc23/lv_to_slc__12041FDD4002ET_1660105596.9522562.lines1672-1971.out",
    ))
    .unwrap();
    let e = DriveLink::new(&tl, &reported(), Instant::ZERO).unwrap_err();
    assert!(
        e.to_string().ends_with(
            "lines1672-1971.out: mapping \"reported\" needs a throughput column, and this log has no throughput values"
        ),
        "{e}"
    );
}

#[test]
fn saturating_sender_matches_mean_capacity_on_a_real_log() {
    let tl = DriveTimeline::from_path(data("cellular_5g_ucc_driving/B_2019.12.14_10.16.30.rows450-749.csv")).unwrap();
    for cfg in [DriveLinkConfig::default(), reported()] {
        let mut link = DriveLink::new(&tl, &cfg, Instant::ZERO).unwrap();
        assert_eq!(link.handoffs().len(), 13);
        let end = link.end();
        let mut t = Instant::ZERO;
        let mut bytes = 0u64;
        loop {
            let done = link.finish_time(t, 1500);
            if done > end {
                break;
            }
            bytes += 1500;
            t = done;
        }
        let expect = link.mean_capacity_bps(Instant::ZERO, end) * end.as_secs_f64() / 8.0;
        assert!((bytes as f64 / expect - 1.0).abs() < 1e-3, "{bytes} vs {expect}");
    }
}

#[test]
fn mappings_deserialize_from_toml() {
    let m: SignalMapping = toml::from_str("kind = \"linear\"\nsignal_lo_dbm = -90.0\n").unwrap();
    assert_eq!(m, SignalMapping::Linear(LinearParams { signal_lo_dbm: -90.0, ..LinearParams::default() }));
    let m: SignalMapping = toml::from_str("kind = \"shannon\"\nbandwidth_hz = 20e6\n").unwrap();
    assert_eq!(m, SignalMapping::Shannon(ShannonParams { bandwidth_hz: 20e6, ..ShannonParams::default() }));
    let m: SignalMapping = toml::from_str("kind = \"reported\"\n").unwrap();
    assert_eq!(m, SignalMapping::Reported(ReportedParams { scale: 1.0 }));
    let e = toml::from_str::<SignalMapping>("kind = \"shannon\"\nbandwidth = 20e6\n").unwrap_err();
    assert!(e.to_string().contains("unknown field `bandwidth`"), "{e}");
    let e = toml::from_str::<SignalMapping>("kind = \"cubic\"\n").unwrap_err();
    assert!(e.to_string().contains("unknown variant `cubic`"), "{e}");
    let l: LossCurve = toml::from_str("midpoint_dbm = -120.0\n").unwrap();
    assert_eq!(l, LossCurve { midpoint_dbm: -120.0, ..LossCurve::default() });
}

#[test]
fn outage_windows_and_loss_schedule_for_the_loss_process() {
    let link = DriveLink::new(&timeline(), &reported(), Instant::ZERO).unwrap();
    assert_eq!(link.outage_windows(), [(ms(2000), ms(2050))]);
    let mut sched = link.loss_schedule();
    let lte = LossCurve::default();
    assert_eq!(sched.prob_at(ms(0)), lte.loss_prob(-80.0));
    assert_eq!(sched.prob_at(ms(1500)), lte.loss_prob(-125.0));
    assert_eq!(sched.prob_at(ms(2500)), lte.loss_prob(-95.0));
    assert_eq!(sched.prob_at(ms(500)), lte.loss_prob(-80.0)); // backwards
}
