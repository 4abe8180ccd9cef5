//! A run's summary.json and `airtcp analyze` of the run's own captures agree
//! (docs/analyze.md, "Agreement with the simulator"): over every shipped
//! scenario, shortened to a few seconds,
//! - at the capture of the link leaving the sender: retransmissions and
//!   timeouts equal the sender's, when nothing stands between the TCP
//!   sender and that capture (no agent on the sender's node, no frame of the
//!   flow dropped by the link's queue or an outage before transmission,
//!   where the capture is taken);
//! - at the capture of the link reaching the receiver: bytes delivered
//!   equal the receiver's, less what the receiver's last (delayed) ACK had
//!   not yet acknowledged when the run stopped.

use std::path::{Path, PathBuf};

use airtcp_analyze::model::{Collect, ConnSummary, DirSummary};
use airtcp_analyze::{analyze_reader, Options};
use airtcp_tcp::config::RttSamples;
use airtcp_sim::{run, RunOptions, Scenario};
use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn analyze(path: &Path) -> Collect {
    let mut sink = Collect::default();
    let f = std::fs::File::open(path).unwrap();
    analyze_reader(std::io::BufReader::new(f), &Options::default(), &mut sink)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    sink
}

/// The capture file of the link or radio next to `node`, and the drops of
/// that link's direction leaving `node` before capture.
fn capture_next_to(dir: &Path, summary: &Value, node: &str, leaving: bool) -> Option<(PathBuf, u64)> {
    for (i, l) in summary["links"].as_array()?.iter().enumerate() {
        let (a, b) = (l["a"].as_str()?, l["b"].as_str()?);
        if a != node && b != node {
            continue;
        }
        let out_dir = if (a == node) == leaving { "ab" } else { "ba" };
        let d = &l[out_dir];
        let drops = ["queue_drops", "aqm_drops", "outage_drops"]
            .iter()
            .map(|k| d[k].as_u64().unwrap_or(0))
            .sum();
        let p = dir.join(format!("link{i}_{a}-{b}.pcap"));
        if p.exists() {
            return Some((p, drops));
        }
    }
    None
}

/// The direction of a connection carrying the flow's data: the one whose
/// data segments are as many as the sender's (retransmissions included).
fn data_dir(conns: &[ConnSummary], segs: u64) -> Option<&DirSummary> {
    conns
        .iter()
        .flat_map(|c| [&c.fwd, &c.rev])
        .find(|d| d.data_packets == segs)
}

#[test]
fn run_summary_and_capture_analysis_agree_over_shipped_scenarios() {
    let mut checked_rtx = 0;
    let mut checked_bytes = 0;
    let mut checked_socket = 0;
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(repo().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    scenarios.sort();
    for path in scenarios {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let sets = vec![("sim.duration".to_string(), "4s".to_string())];
        let sc = match Scenario::from_path(&path, &sets) {
            Ok(sc) => sc,
            // The drive scenarios read logs from ../shared/traces, absent
            // from some checkouts (the trace tests skip them the same way).
            Err(e) if e.message.contains("cannot read trace file") => {
                eprintln!("{name}: skipped ({})", e.message);
                continue;
            }
            Err(e) => panic!("{name}: {e}"),
        };
        let dir = std::env::temp_dir().join(format!("airtcp-agree-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let out = run(&sc, RunOptions { pcap_dir: Some(dir.clone()), ..Default::default() }).unwrap();
        let s = &out.summary;
        let agents_on = |node: &str| {
            s["agents"].as_array().is_some_and(|a| a.iter().any(|x| x["node"] == node))
        };
        for (i, f) in s["flows"].as_array().unwrap().iter().enumerate() {
            let (from, to) = (f["from"].as_str().unwrap(), f["to"].as_str().unwrap());
            let segs = f["sender"]["data_segs_sent"].as_u64().unwrap();
            if segs == 0 {
                continue;
            }
            // summary.json's `analysis` is the capture analysis at the
            // client's socket: where the sender's own counters are defined
            // the same way, they are equal.
            let a = &f["analysis"];
            let u = |v: &Value| v.as_u64().unwrap_or_else(|| panic!("{name}: {v:?} is not a count"));
            assert_eq!(u(&a["retransmissions"]), u(&f["retransmissions"]), "{name} {from}->{to} analysis.retransmissions");
            assert_eq!(u(&a["dup_acks"]), u(&f["sender"]["dup_acks_received"]), "{name} {from}->{to} analysis.dup_acks");
            assert_eq!(u(&a["bytes_delivered"]), u(&f["sender"]["bytes_acked"]), "{name} {from}->{to} analysis.bytes_delivered");
            // An ns-2 agent's timer is not restarted by the partial ACKs of
            // its fast recovery, so it can fire less than 200 ms after the
            // last ACK advance, which the analysis's RTO rule excludes
            // (docs/analyze.md, "Agreement with the simulator").
            if sc.flows[i].ns2.is_none() {
                assert_eq!(u(&a["timeouts"]), u(&f["timeouts"]), "{name} {from}->{to} analysis.timeouts");
                // Karn as Linux applies it: every unambiguous ACK is a
                // sample on both sides; an ambiguous one is a sample for the
                // endpoint only through a timestamp echo (RFC 7323 §4); with
                // Linux's sources a new SACK of an original gives one more
                // on an ACK that has neither. An ns-2 agent times one
                // segment per round trip instead.
                let tcp = &sc.flows[i].tcp;
                let ambiguous_sampled = if tcp.timestamps { u(&a["rtt_ambiguous"]) } else { 0 };
                let sack_sampled = if tcp.rtt_samples == RttSamples::Linux { u(&a["rtt_sack_samples"]) } else { 0 };
                assert_eq!(u(&a["rtt_karn_samples"]) + ambiguous_sampled + sack_sampled, u(&f["rtt_samples"]), "{name} {from}->{to} analysis RTT samples");
            }
            eprintln!("{name} {from}->{to}: socket analysis fast_retransmits {} (sender {}), rtt {}+{}+{} (sender {}), interruptions {}",
                a["fast_retransmits"], f["fast_retransmits"], a["rtt_karn_samples"], a["rtt_ambiguous"], a["rtt_sack_samples"], f["rtt_samples"], a["interruptions"].as_array().map_or(0, |v| v.len()));
            checked_socket += 1;
            if let Some((cap, drops)) = capture_next_to(&dir, s, from, true) {
                let c = analyze(&cap);
                if drops == 0 && !agents_on(from) {
                    let d = data_dir(&c.connections, segs).unwrap_or_else(|| {
                        panic!("{name}: no connection with {segs} data segments in {}", cap.display())
                    });
                    assert_eq!(d.retransmissions, f["retransmissions"].as_u64().unwrap(), "{name} {from}->{to} retransmissions");
                    assert_eq!(d.timeouts, f["timeouts"].as_u64().unwrap(), "{name} {from}->{to} timeouts");
                    eprintln!("{name} {from}->{to}: {} retransmissions, {} timeouts at {}", d.retransmissions, d.timeouts, cap.display());
                    checked_rtx += 1;
                }
            }
            if let Some((cap, _)) = capture_next_to(&dir, s, to, false) {
                let c = analyze(&cap);
                if agents_on(to) {
                    continue;
                }
                let delivered = f["bytes_delivered"].as_u64().unwrap();
                let mss = 1500;
                let got = c
                    .connections
                    .iter()
                    .flat_map(|c| [&c.fwd, &c.rev])
                    .filter(|d| d.data_packets > 0)
                    .map(|d| d.bytes_delivered)
                    .find(|&b| b <= delivered && delivered - b <= 2 * mss)
                    .unwrap_or_else(|| panic!("{name} {from}->{to}: receiver delivered {delivered}, capture: {:?}",
                        c.connections.iter().map(|c| (c.fwd.bytes_delivered, c.rev.bytes_delivered)).collect::<Vec<_>>()));
                assert!(got <= delivered);
                eprintln!("{name} {from}->{to}: {got} of {delivered} bytes delivered at {}", cap.display());
                checked_bytes += 1;
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    // The check above must have had something to check.
    assert!(checked_rtx >= 5, "only {checked_rtx} flows checked for retransmissions");
    assert!(checked_bytes >= 5, "only {checked_bytes} flows checked for bytes");
    assert!(checked_socket >= 10, "only {checked_socket} flows checked at the socket");
}
