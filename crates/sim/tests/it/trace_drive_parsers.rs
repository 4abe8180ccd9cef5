//! Drive-log parsers against the shipped excerpts (exact counts computed
//! independently from the files) and against broken input.

use std::path::PathBuf;

use airtcp_core::Instant;
use airtcp_sim::trace::{parse_feup, parse_imc23, parse_ucc, DriveLogKind, DriveTimeline, FeupSelect, Handoff};

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/traces").join(rel)
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(data(rel)).unwrap()
}

const UCC: &str = "cellular_5g_ucc_driving/B_2019.12.14_10.16.30.rows450-749.csv";
const IMC_TMO: &str = "cellular_handover_logs_imc23/lv_to_slc__12041FDD4002ET_1660105596.9522562.lines1672-1971.out";
const IMC_VZW: &str = "cellular_handover_logs_imc23/lv_to_slc__1C081FDEE002AL_1660105596.8933618.lines362-661.out";
const FEUP: &str = "wifi_vehicular_feup/final-exp-log.excerpt.csv";

fn ho(t_ms: u64, from: &str, to: &str) -> Handoff {
    Handoff { t: Instant::from_millis(t_ms), from: from.into(), to: to.into() }
}

#[test]
fn ucc_excerpt_counts() {
    let tl = DriveTimeline::from_path(data(UCC)).unwrap();
    assert_eq!(tl.kind, DriveLogKind::Ucc5g);
    assert_eq!(tl.samples.len(), 300);
    assert_eq!(tl.handoffs.len(), 13);
    assert_eq!(tl.samples[0].t, Instant::ZERO);
    assert_eq!(tl.samples[299].t, Instant::from_secs(298));
    assert_eq!(tl.handoffs[0], ho(2_000, "12", "13"));
    assert_eq!(tl.handoffs[1], ho(32_000, "13", "2"));
    assert_eq!(tl.handoffs[9], ho(104_000, "13", "3"));
    // 5G/LTE -> UMTS at the end of the excerpt.
    assert_eq!(tl.handoffs[12], ho(274_000, "135", "52106"));
    let s0 = &tl.samples[0];
    assert_eq!((s0.signal_dbm, s0.snr_db, s0.reported_throughput_bps), (-90.0, Some(2.0), Some(57_094_000.0)));
    assert_eq!(s0.cell, "12");
    // Rows 108-110 carry the RSRP sentinel -200: the previous reading holds.
    assert_ne!(tl.samples[107].signal_dbm, -200.0);
    for i in 108..=110 {
        assert_eq!(tl.samples[i].signal_dbm, tl.samples[107].signal_dbm);
    }
    // 28 rows (the 3G ones) have no SNR; the one idle row has no throughput.
    assert_eq!(tl.samples.iter().filter(|s| s.snr_db.is_none()).count(), 28);
    assert_eq!(tl.samples.iter().filter(|s| s.reported_throughput_bps.is_none()).count(), 1);
}

#[test]
fn imc23_tmobile_excerpt_counts() {
    let tl = DriveTimeline::from_path(data(IMC_TMO)).unwrap();
    assert_eq!(tl.kind, DriveLogKind::Imc23);
    assert_eq!(tl.samples.len(), 40);
    assert_eq!(tl.samples[0].t, Instant::from_millis(1346));
    assert_eq!(tl.samples[39].t, Instant::from_millis(32577));
    assert_eq!(
        tl.handoffs,
        [ho(22868, "pci374@66786", "pci400@66786"), ho(29194, "pci400@66786", "pci198@66786"), ho(32117, "pci198@66786", "pci400@66786")]
    );
    // First LTE signal line of the excerpt: rsrp -89, rssnr 11.
    assert_eq!((tl.samples[0].signal_dbm, tl.samples[0].snr_db), (-89.0, Some(11.0)));
    assert!(tl.samples.iter().all(|s| s.reported_throughput_bps.is_none()));
}

#[test]
fn imc23_verizon_excerpt_ignores_nr_cells() {
    let tl = parse_imc23("vzw", &read(IMC_VZW)).unwrap();
    assert_eq!(tl.samples.len(), 18);
    assert_eq!((tl.samples[0].t, tl.samples[17].t), (Instant::from_millis(1015), Instant::from_millis(36954)));
    assert_eq!(
        tl.handoffs,
        [
            ho(9903, "pci257@5230", "pci238@5230"),
            ho(18768, "pci238@5230", "pci224@5230"),
            ho(21927, "pci224@5230", "pci257@5230"),
            ho(34765, "pci257@5230", "pci360@5230"),
            ho(36954, "pci360@5230", "pci214@5230"),
        ]
    );
}

#[test]
fn feup_roaming_client_excerpt_counts() {
    let tl = parse_feup("feup", &read(FEUP), &FeupSelect::default()).unwrap();
    assert_eq!(tl.samples.len(), 75);
    assert_eq!((tl.samples[0].t, tl.samples[74].t), (Instant::ZERO, Instant::from_secs(74)));
    assert_eq!(tl.handoffs.len(), 12);
    assert_eq!(tl.handoffs[0], ho(4_000, "ap2", "ap1"));
    assert_eq!(tl.handoffs[5], ho(35_000, "ap1", "ap4"));
    assert_eq!(tl.handoffs[11], ho(64_000, "ap4", "ap1"));
    let s0 = &tl.samples[0];
    assert_eq!(s0.cell, "ap2");
    assert_eq!(s0.signal_dbm, -68.06531600000001);
    assert_eq!(s0.reported_throughput_bps, Some(5_667_610.0 * 8.0));
}

#[test]
fn feup_single_link_has_no_handoffs() {
    let sel = FeupSelect::Link { sender: "ap2".into(), receiver: "m1".into() };
    let tl = parse_feup("feup", &read(FEUP), &sel).unwrap();
    assert_eq!(tl.samples.len(), 75);
    assert!(tl.handoffs.is_empty());
    assert_eq!(tl.samples[0].signal_dbm, -68.06531600000001);
    let sel = FeupSelect::Link { sender: "ap9".into(), receiver: "m1".into() };
    let e = parse_feup("feup", &read(FEUP), &sel).unwrap_err();
    assert_eq!(e.to_string(), "feup: no rows for link ap9->m1 (links present: ap1->w2, ap2->m1, ap3->w3, ap4->w1)");
}

/// The excerpt with line `n` (1-based) replaced.
fn with_line(rel: &str, n: usize, f: impl Fn(&str) -> String) -> String {
    read(rel)
        .lines()
        .enumerate()
        .map(|(i, l)| if i + 1 == n { f(l) } else { l.to_string() })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn ucc_truncated_and_malformed_rows() {
    let cut = with_line(UCC, 7, |l| l[..40].to_string());
    let e = parse_ucc("ucc.csv", &cut).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ucc.csv:7: expected 26 comma-separated fields as in the header, found 3 (truncated line?)"
    );

    // Line 2 is "...,B,12,5G,-90,-9,...": RSRP -90.
    let bad = with_line(UCC, 2, |l| l.replacen(",5G,-90,", ",5G,strong,", 1));
    let e = parse_ucc("ucc.csv", &bad).unwrap_err();
    assert_eq!(e.to_string(), "ucc.csv:2: column RSRP: expected a number, found \"strong\"");

    let bad = with_line(UCC, 2, |l| l.replacen("2019.12.14_", "2019-12-14 ", 1));
    let e = parse_ucc("ucc.csv", &bad).unwrap_err();
    assert_eq!(e.line, Some(2));
    assert!(e.message.starts_with("column Timestamp: expected YYYY.MM.DD_HH.MM.SS"), "{e}");

    let back = with_line(UCC, 10, |l| l.replacen("2019.12.14_10.", "2019.12.14_09.", 1));
    let e = parse_ucc("ucc.csv", &back).unwrap_err();
    assert_eq!(e.line, Some(10));
    assert!(e.message.contains("earlier than the previous row"), "{e}");

    let e = parse_ucc("ucc.csv", "Timestamp,RSRP\n").unwrap_err();
    assert_eq!(e.to_string(), "ucc.csv:1: header has no \"CellID\" column");
    let e = parse_ucc("ucc.csv", "").unwrap_err();
    assert_eq!(e.to_string(), "ucc.csv: file is empty (expected a CSV header)");
}

/// Found by `cargo fuzz run drive_ucc` (overflow panic in `Instant::from_secs`):
/// a first row in year 1009 put the next rows 1010 years later, past what a
/// nanosecond `Instant` holds; and a year of 19 digits overflowed the day count.
#[test]
fn ucc_timestamps_out_of_range() {
    let far = with_line(UCC, 2, |l| l.replacen("2019.12.14_", "1009.12.14_", 1));
    let e = parse_ucc("ucc.csv", &far).unwrap_err();
    assert_eq!(e.line, Some(3));
    assert!(e.message.ends_with("is more than 100 years after the first row's"), "{e}");

    let huge = with_line(UCC, 2, |l| l.replacen("2019.12.14_", "9223372036854775807.12.14_", 1));
    let e = parse_ucc("ucc.csv", &huge).unwrap_err();
    assert_eq!(e.line, Some(2));
    assert!(e.message.starts_with("column Timestamp: expected YYYY.MM.DD_HH.MM.SS"), "{e}");
}

#[test]
fn imc23_truncated_lines() {
    // Find the first LTE signal line and cut it before "rssnr".
    let text = read(IMC_TMO);
    let n = text.lines().position(|l| l.contains("LTE Signal Strength info")).unwrap() + 1;
    let cut = with_line(IMC_TMO, n, |l| l[..l.find(" rssnr").unwrap()].to_string());
    let e = parse_imc23("tmo.out", &cut).unwrap_err();
    assert_eq!(e.to_string(), format!("tmo.out:{n}: truncated line: no value after \"rssnr:\""));

    let n = text.lines().position(|l| l.contains("LTE Cell Bands")).unwrap() + 1;
    let cut = with_line(IMC_TMO, n, |l| l[..l.find(" EARFCN").unwrap()].to_string());
    let e = parse_imc23("tmo.out", &cut).unwrap_err();
    assert_eq!(e.to_string(), format!("tmo.out:{n}: truncated line: no value after \"EARFCN:\""));

    let cut = with_line(IMC_TMO, 5, |l| l[..9].to_string());
    let e = parse_imc23("tmo.out", &cut).unwrap_err();
    assert_eq!(e.to_string(), "tmo.out:5: expected a logcat line starting with 'MM-DD HH:MM:SS.mmm'");

    let e = parse_imc23("x.out", "08-09 22:26:41.947 1 2 D cellinfo: 46 bytes from x\n").unwrap_err();
    assert_eq!(e.to_string(), "x.out: no 'LTE Cell Bands' cell-info line: the serving cell is unknown");
}

#[test]
fn imc23_sentinels_and_backfill() {
    let log = "\
--------- beginning of main
08-09 22:00:00.000 1 1 D cellinfo: onsignalStrengthsChanged: LTE Signal Strength info: rsrp: 2147483647 rsrq: -9 rssi: -55 rssnr: 2147483647
08-09 22:00:01.000 1 1 D cellinfo: onsignalStrengthsChanged: LTE Signal Strength info: rsrp: -90 rsrq: -9 rssi: -55 rssnr: 5
08-09 22:00:02.500 1 1 D cellinfo: onCellInfoChanged: LTE Cell Bands: [2] Bandwidth: 2147483647 Cell ID: 9223372036854775807 Physical Cell ID: 72 Tracking Area Code: 1 EARFCN: 1100
08-09 22:00:03.000 1 1 D cellinfo: onsignalStrengthsChanged: LTE Signal Strength info: rsrp: 2147483647 rsrq: -9 rssi: -55 rssnr: 7
08-09 22:00:04.000 1 1 D cellinfo: onCellInfoChanged: LTE Cell Bands: [2] Bandwidth: 5000 Cell ID: 115734538 Physical Cell ID: 485 Tracking Area Code: 1 EARFCN: 1100
";
    let tl = parse_imc23("s.out", log).unwrap();
    let sig: Vec<f64> = tl.samples.iter().map(|s| s.signal_dbm).collect();
    let snr: Vec<Option<f64>> = tl.samples.iter().map(|s| s.snr_db).collect();
    let cells: Vec<&str> = tl.samples.iter().map(|s| s.cell.as_str()).collect();
    assert_eq!(sig, [-90.0, -90.0, -90.0, -90.0, -90.0]);
    assert_eq!(snr, [None, Some(5.0), Some(5.0), Some(7.0), Some(7.0)]);
    assert_eq!(cells, ["pci72@1100", "pci72@1100", "pci72@1100", "pci72@1100", "pci485@1100"]);
    assert_eq!(tl.handoffs, [ho(4000, "pci72@1100", "pci485@1100")]);
}

/// The radio hands over when the physical cell (PCI on a carrier, EARFCN)
/// changes; the reported ECI may change without one or stay across one.
#[test]
fn imc23_cell_is_pci_and_earfcn_not_eci() {
    let cell = |t: &str, eci: &str, pci: u32, earfcn: u32| {
        format!("08-09 22:00:{t} 1 1 D cellinfo: onCellInfoChanged: LTE Cell Bands: [2] Bandwidth: 5000 Cell ID: {eci} Physical Cell ID: {pci} Tracking Area Code: 1 EARFCN: {earfcn}\n")
    };
    let log = String::from("08-09 22:00:00.000 1 1 D cellinfo: onsignalStrengthsChanged: LTE Signal Strength info: rsrp: -90 rsrq: -9 rssi: -55 rssnr: 5\n")
        + &cell("01.000", "9223372036854775807", 72, 1100)
        + &cell("02.000", "115734538", 72, 1100) // ECI appears: same cell
        + &cell("03.000", "115734538", 485, 1100) // same ECI, new PCI: handover
        + &cell("04.000", "115734538", 485, 66786) // same PCI, other carrier: handover
        + &cell("05.000", "9223372036854775807", 485, 66786); // ECI gone: same cell
    let tl = parse_imc23("s.out", &log).unwrap();
    assert_eq!(tl.handoffs, [ho(3000, "pci72@1100", "pci485@1100"), ho(4000, "pci485@1100", "pci485@66786")]);
}

#[test]
fn feup_truncated_row() {
    let cut = with_line(FEUP, 20, |l| l[..30].to_string());
    let e = parse_feup("feup.csv", &cut, &FeupSelect::default()).unwrap_err();
    assert_eq!(e.line, Some(20));
    assert!(e.message.starts_with("expected 16 comma-separated fields as in the header, found "), "{e}");
}

#[test]
fn unknown_format_is_rejected_with_its_name() {
    let e = DriveTimeline::parse_auto("notes.csv", "a,b,c\n1,2,3\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "notes.csv:1: not a known drive-log format (expected a UCC or FEUP CSV header, or an Android logcat line)"
    );
    assert_eq!(DriveLogKind::from_name("imc23"), Some(DriveLogKind::Imc23));
    assert_eq!(DriveLogKind::Ucc5g.name(), "ucc");
}
