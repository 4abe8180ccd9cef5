//! Public captures (tests/data/SOURCES.md): our counts, and tshark's
//! (`tcp.analysis.*`) on the same files when tshark is installed. Every
//! difference allowed here is one explained in docs/analyze.md.

use std::path::PathBuf;
use std::process::Command;

use airtcp_analyze::model::{Collect, DirSummary};
use airtcp_analyze::{analyze_reader, Options};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

fn ours(name: &str) -> DirSummary {
    let mut sink = Collect::default();
    let f = std::fs::File::open(data(name)).unwrap();
    analyze_reader(std::io::BufReader::new(f), &Options::default(), &mut sink).unwrap();
    // Sum of both directions of every connection.
    let mut t = DirSummary::default();
    for d in sink.connections.iter().flat_map(|c| [&c.fwd, &c.rev]) {
        t.retransmissions += d.retransmissions;
        t.fast_retransmits += d.fast_retransmits;
        t.timeouts += d.timeouts;
        t.zero_window_acks += d.zero_window_acks;
        t.zero_window_probes += d.zero_window_probes;
        t.rtt_karn_samples += d.rtt_karn_samples;
        t.rtt_ambiguous += d.rtt_ambiguous;
        t.dup_acks += d.dup_acks;
    }
    t
}

/// tshark's count of frames matching each filter, or None without tshark.
fn tshark(name: &str, fields: &[&str]) -> Option<Vec<u64>> {
    let spec: Vec<String> = fields.iter().map(|f| format!("COUNT({f}){f}")).collect();
    let out = Command::new("tshark")
        .args(["-n", "-q", "-r"])
        .arg(data(name))
        .args(["-z", &format!("io,stat,0,{}", spec.join(","))])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let row = text.lines().rfind(|l| l.contains("<>"))?;
    let cells: Vec<u64> = row.split('|').filter_map(|c| c.trim().parse().ok()).collect();
    Some(cells)
}

const FIELDS: [&str; 5] = [
    "tcp.analysis.retransmission",
    "tcp.analysis.fast_retransmission",
    "tcp.analysis.zero_window",
    "tcp.analysis.zero_window_probe",
    "tcp.analysis.ack_rtt",
];

/// Our counts of `name`; also tshark's when `with_tshark` (one tshark run
/// costs about 2.5 s of start-up, so only one capture is compared here;
/// scripts/compare_tshark.py compares them all).
fn check(name: &str, expect: [u64; 5], with_tshark: bool) {
    let o = ours(name);
    let got = [o.retransmissions, o.fast_retransmits, o.zero_window_acks, o.zero_window_probes, o.rtt_karn_samples + o.rtt_ambiguous];
    assert_eq!(got, expect, "{name}: ours");
    if !with_tshark {
        return;
    }
    match tshark(name, &FIELDS) {
        // tshark's ack_rtt takes retransmitted segments too: ours plus Karn's ambiguous ACKs.
        Some(t) => assert_eq!(t, got, "{name}: tshark (retransmission, fast, zero_window, zw probe, ack_rtt)"),
        None => eprintln!("tshark not found: {name} checked against our own counts only"),
    }
}

#[test]
fn rto_backoff_capture_counts_five_timeouts() {
    check("tcp_retransmissions.pcapng", [5, 0, 0, 0, 0], false);
    assert_eq!(ours("tcp_retransmissions.pcapng").timeouts, 5);
}

#[test]
fn dupack_capture_matches_tshark() {
    check("tcp_dupack.pcapng", [1, 1, 0, 0, 1], true);
    assert_eq!(ours("tcp_dupack.pcapng").dup_acks, 3);
}

#[test]
fn zero_window_capture_counts_one_zero_window() {
    check("tcp_zerowindowrecovery.pcapng", [0, 0, 1, 0, 0], false);
}
