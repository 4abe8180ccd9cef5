//! `summary.json` read back into its types (`airtcp_sim::summary`): every
//! shipped section (flows with their analysis, Wi-TCP's counters, links,
//! agents, radios, SDN, mesh, UDP flows, the run) parses, and writing the
//! parsed document gives the same bytes.

use airtcp_sim::summary::Summary;
use airtcp_sim::{run, RunOptions, Scenario};

fn scenario_path(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name)
}

/// Run a shipped scenario for `duration` and return its summary.json text
/// (as the writer formats it) and the document parsed back.
fn written_and_read(name: &str, duration: &str) -> (String, Summary) {
    let over = [("sim.duration".to_string(), duration.to_string())];
    let sc = Scenario::from_path(&scenario_path(name), &over).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&sc, RunOptions::default()).unwrap();
    let text = serde_json::to_string_pretty(&out.summary).unwrap();
    let read = Summary::from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    (text, read)
}

#[test]
fn summary_written_reads_back_into_its_types_and_writes_the_same_bytes() {
    for (name, duration) in [
        ("bulk-lossy.toml", "3s"),
        ("snoop-s2-download.toml", "5s"),
        ("wifi-roaming.toml", "2s"),
        ("sdn-zwa.toml", "2s"),
        ("wifi-saturation-udp.toml", "1s"),
        ("mesh-tcpfender.toml", "3s"),
        ("wi-tcp-wlan.toml", "2s"),
    ] {
        let (text, read) = written_and_read(name, duration);
        let rewritten = serde_json::to_string_pretty(&read.to_value()).unwrap();
        let first_diff = text.lines().zip(rewritten.lines()).enumerate().find(|(_, (a, b))| a != b);
        assert!(first_diff.is_none(), "{name}: line {:?} (written, rewritten)", first_diff);
        assert_eq!(rewritten.len(), text.len(), "{name}");
        // And the types again: a second trip changes nothing.
        let again = Summary::from_json(&serde_json::to_string_pretty(&read).unwrap()).unwrap();
        assert_eq!(again, read, "{name}");
    }
}

#[test]
fn summary_sections_have_their_values() {
    let (_, s) = written_and_read("wi-tcp-wlan.toml", "2s");
    assert_eq!(s.seed, 1);
    assert!(s.flows[0].bytes_delivered > 0);
    assert_eq!(s.flows[0].analysis.seen_at, "client_socket");
    assert!(s.flows[0].witcp.is_some(), "the scenario's flow runs Wi-TCP");
    assert!(s.flows[0].freeze.is_none());
    assert!(!s.radios.is_empty() && !s.agents.is_empty());
    assert_eq!(s.run.events_by_kind.values().sum::<u64>(), s.run.events_executed);
    let (_, udp) = written_and_read("wifi-saturation-udp.toml", "1s");
    assert_eq!(udp.udp_flows.len(), 10);
    assert!(udp.udp_flows.iter().all(|f| f.app == "saturated" && f.delay_mean_s.is_some()));
}
