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
    written_and_read_with(name, &[("sim.duration", duration)])
}

/// [`written_and_read`] with any overrides.
fn written_and_read_with(name: &str, over: &[(&str, &str)]) -> (String, Summary) {
    let over: Vec<(String, String)> = over.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
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

/// The SDN, mesh and resolved-scenario sections as types: each section of
/// the scenario where it has one, the control plane's datapaths, the
/// mesh's links, routes and coding plane (MORE: no source mode, written
/// `null`), and the same bytes when written again.
#[test]
fn sdn_mesh_and_scenario_sections_read_back_as_types() {
    let (_, sdn) = written_and_read("sdn-zwa.toml", "2s");
    let plane = sdn.sdn.as_ref().expect("the scenario has [sdn]");
    assert_eq!(plane.datapaths.len(), 11);
    assert_eq!((plane.datapaths[0].node.as_str(), plane.datapaths[0].dpid), ("s1", 1));
    assert!(plane.messages_to_controller > 0 && plane.controller.contains_key("of_errors"));
    assert!(sdn.mesh.is_none() && sdn.scenario.mesh.is_none() && sdn.scenario.udp_flows.is_empty());
    let resolved = sdn.scenario.sdn.as_ref().expect("the resolved scenario records [sdn]");
    assert_eq!(resolved["controller"], "c0");
    assert_eq!(resolved["channels"].as_array().map(Vec::len), Some(11));
    assert_eq!(sdn.scenario.sim["seed"], 1);
    assert_eq!(sdn.scenario.wireless.radios.as_ref().map(Vec::len), Some(4));

    let over = [("sim.duration", "3s"), ("mesh.protocol", "\"more\""), ("mesh.delivery", r#"[["S", "A", 0.7]]"#)];
    let (text, more) = written_and_read_with("mesh-tcpfender.toml", &over);
    let rewritten = serde_json::to_string_pretty(&more.to_value()).unwrap();
    assert_eq!(rewritten, text);
    let mesh = more.mesh.as_ref().expect("the scenario has [mesh]");
    assert_eq!((mesh.routing.as_str(), mesh.protocol.as_str()), ("etx", "more"));
    assert_eq!(mesh.measured.len(), mesh.links.len());
    assert!(mesh.routes.iter().any(|r| r.node == "S" && r.to == "D"));
    let coding = mesh.coding.as_ref().expect("MORE's plane reports");
    assert_eq!((coding.batch, coding.pipeline, coding.source.as_deref()), (32, 1, None));
    assert!(coding.nodes.iter().any(|n| n.node == "S" && n.role == "more_source"));
    assert_eq!(more.scenario.mesh.as_ref().map(|m| m["delivery"].clone()), Some(serde_json::json!([["S", "A", 0.7]])));
    assert!(more.sdn.is_none() && more.scenario.sdn.is_none());
}
