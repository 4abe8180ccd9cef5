//! The drive-log catalogue used by studies: every shipped excerpt is found,
//! parsed and summarised with sane numbers.

use std::path::{Path, PathBuf};

use airtcp_core::Duration;
use airtcp_sim::trace::{describe_drive_log, list_drive_logs, DriveLogKind};

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/traces")
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn shipped_excerpts_are_listed_with_sane_summaries() {
    let logs = list_drive_logs(&data_dir()).unwrap();
    // (file, kind, samples, handoffs, duration)
    let want = [
        ("B_2019.12.14_10.16.30.rows450-749.csv", DriveLogKind::Ucc5g, 300, 13, Duration::from_secs(298)),
        (
            "lv_to_slc__12041FDD4002ET_1660105596.9522562.lines1672-1971.out",
            DriveLogKind::Imc23,
            40,
            3,
            Duration::from_millis(32_577),
        ),
        (
            "lv_to_slc__1C081FDEE002AL_1660105596.8933618.lines362-661.out",
            DriveLogKind::Imc23,
            18,
            5,
            Duration::from_millis(36_954),
        ),
        ("final-exp-log.excerpt.csv", DriveLogKind::FeupWifi, 75, 12, Duration::from_secs(74)),
    ];
    assert_eq!(logs.len(), want.len(), "{:?}", logs.iter().map(|l| name(&l.path)).collect::<Vec<_>>());
    for (info, (file, kind, samples, handoffs, duration)) in logs.iter().zip(want) {
        assert_eq!(name(&info.path), file);
        assert_eq!(
            (info.kind, info.samples, info.handoffs, info.duration),
            (kind, samples, handoffs, duration),
            "{file}"
        );
        // Default mappings: LTE Shannon caps at 44 Mbit/s (10 MHz x 4.4),
        // 802.11n linear at 65 Mbit/s; outages and bad signal pull the mean down.
        let (lo, hi) = match kind {
            DriveLogKind::FeupWifi => (5e6, 65e6),
            _ => (2e6, 44e6),
        };
        assert!(info.mean_capacity_bps > lo && info.mean_capacity_bps < hi, "{file}: {}", info.mean_capacity_bps);
        assert!(info.mean_loss >= 0.0 && info.mean_loss < 1e-3, "{file}: {}", info.mean_loss);
    }
}

#[test]
fn describe_one_log() {
    let p = data_dir().join("cellular_5g_ucc_driving/B_2019.12.14_10.16.30.rows450-749.csv");
    let info = describe_drive_log(&p).unwrap();
    assert_eq!((info.samples, info.handoffs), (300, 13));
    let e = describe_drive_log(&data_dir().join("nope.csv")).unwrap_err();
    assert!(e.to_string().contains("nope.csv: cannot read"), "{e}");
}

#[test]
fn full_shared_logs_match_their_sources_counts() {
    // Outside the repo; skipped where absent. Handoff counts are the
    // "CellID changes" / ECI changes listed in each SOURCES.md.
    let dir = Path::new("/work/shared/traces");
    if !dir.exists() {
        return;
    }
    let logs = list_drive_logs(dir).unwrap();
    let handoffs = |f: &str| logs.iter().find(|l| name(&l.path) == f).map(|l| (l.samples, l.handoffs));
    assert_eq!(handoffs("B_2019.12.16_07.22.43.csv"), Some((2617, 89)));
    assert_eq!(handoffs("B_2019.12.16_11.49.59.csv"), Some((401, 1)));
    assert_eq!(handoffs("B_2020.02.27_17.30.15.csv"), Some((866, 5)));
    assert_eq!(handoffs("lv_to_slc__R5CRA0E07EF_1660105596.6094978.out").map(|x| x.1), Some(21));
    assert_eq!(handoffs("lv_to_slc__1C081FDEE002AL_1660105596.8933618.out").map(|x| x.1), Some(18));
    assert_eq!(logs.iter().filter(|l| l.kind == DriveLogKind::Ucc5g).count(), 12);
    assert_eq!(logs.iter().filter(|l| l.kind == DriveLogKind::Imc23).count(), 3);
    // Only final-exp-log.csv among the FEUP CSVs is a drive log.
    assert_eq!(logs.iter().filter(|l| l.kind == DriveLogKind::FeupWifi).count(), 1);
}
