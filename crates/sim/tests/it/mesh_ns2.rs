//! TCPFender over MORE on the study's ladder with ns-2's one-way agents
//! (`profile = "ns2-newreno"`), the stack the seed ran: the modules take
//! the agent's packets, its sink gets whole batches, and no SACK check
//! stands in the way (ns-2's agents carry none).

use airtcp_sim::{run, RunOptions, RunOutput, Scenario};

/// The study's ladder with its `[flows.tcp]` replaced by ns-2's NewReno
/// and TCPSink (1000-byte packets, a 20-packet window).
fn ns2_ladder(over: &[(&str, &str)]) -> Scenario {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/mesh-tcpfender.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let cut = text.find("[flows.tcp]").expect("the ladder has a [flows.tcp]");
    let text = format!("{}[flows.tcp]\nprofile = \"ns2-newreno\"\nsink = \"ns2-tcpsink\"\npacket_size = 1000\nwindow = 20\n", &text[..cut]);
    let over: Vec<(String, String)> = over.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Scenario::from_toml_str(&text, "ns2 ladder", &over).unwrap_or_else(|e| panic!("{e}"))
}

/// Delivery for the credits about as a TCP/IP run measures it (the same
/// table as crates/sim/tests/it/mesh.rs).
const MEASURED: &str = r#"[["S","A",0.7],["S","B",0.6],["A","S",0.8],["A","B",0.9],["A","C",0.52],["C","A",0.49],["C","E",0.9],["C","F",0.55],["F","C",0.42],["F","G",0.9],["F","D",0.7],["D","F",0.58],["D","G",0.4]]"#;

fn node_counter(o: &RunOutput, node: &str, key: &str) -> u64 {
    let nodes = o.summary["mesh"]["coding"]["nodes"].as_array().unwrap();
    let n = nodes.iter().find(|n| n["node"] == node).unwrap_or_else(|| panic!("{node} has no role"));
    n["counters"][key].as_u64().unwrap_or_else(|| panic!("{node} has no {key}: {n}"))
}

#[test]
fn tcpfender_carries_ns2_newreno_in_whole_batches() {
    // Without RTS/CTS (the path delivers steadily), credits as a TCP/IP run
    // measures the ladder's links (crates/sim/tests/it/mesh.rs).
    let o = run(&ns2_ladder(&[("sim.duration", "60s"), ("mesh.protocol", "tcpfender"), ("wifi.rts_threshold", "65535"), ("mesh.delivery", MEASURED)]), RunOptions::default()).unwrap();
    let f = &o.summary["flows"][0];
    assert_eq!(o.summary["scenario"]["flows"][0]["tcp"]["profile"], "ns2-newreno");
    let delivered = f["bytes_delivered"].as_u64().unwrap();
    // The sink gets decoded batches whole: 50 packets of 1000 bytes.
    assert!(delivered >= 100_000, "delivered {delivered}");
    assert_eq!(delivered % 50_000, 0, "delivered {delivered}");
    // Every data packet of the agent went to the sender module as a native
    // (none refused: the agent's packet numbers map onto its sequence), and
    // the module's ACKs moved the agent.
    assert!(node_counter(&o, "S", "natives") >= delivered / 1000);
    assert_eq!(node_counter(&o, "S", "malformed"), 0);
    assert_eq!(o.summary["mesh"]["coding"]["counters"]["refused"], 0);
    assert!(node_counter(&o, "S", "acks_new") > 100);
}
