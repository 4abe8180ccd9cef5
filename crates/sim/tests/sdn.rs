//! Seed 000 end to end: OpenFlow-style switches and APs, the controller on
//! out-of-band control channels, the ZWA and statistics modules across a
//! scripted roam, and the scenario errors of the `[sdn]` keys.

use airtcp_sim::{run, RunOptions, RunOutput, Scenario};

fn scenario_path(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name)
}

fn run_with(over: &[(&str, &str)]) -> RunOutput {
    let over: Vec<(String, String)> = over.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let s = Scenario::from_path(&scenario_path("sdn-zwa.toml"), &over).unwrap();
    run(&s, RunOptions::default()).unwrap()
}

fn count(o: &RunOutput, kind: &str) -> usize {
    o.events.iter().filter(|e| e.kind == kind).count()
}

fn flow(o: &RunOutput, key: &str) -> u64 {
    o.summary["flows"][0][key].as_u64().unwrap_or_else(|| panic!("no {key}: {}", o.summary["flows"][0]))
}

#[test]
fn explore() {
    let t = std::env::var("ROAM").unwrap_or("10s".into());
    let o = run_with(&[("radios.3.roam_at.0.0", &t)]);
    for e in o.events.iter().filter(|e| e.kind.starts_with("sdn_") || e.kind.starts_with("sdn_stats") || e.kind.starts_with("wifi") || e.kind == "timeout" || e.kind.contains("window") || e.kind == "closed") {
        eprintln!("{:.4} {} {}", e.t_s, e.kind, e.detail);
    }
    eprintln!("{}", serde_json::to_string_pretty(&o.summary["sdn"]).unwrap());
    eprintln!("{}", o.summary["flows"][0]);
    eprintln!("zwa acks {}", count(&o, "sdn_zwa_ack"));
    let _ = flow(&o, "timeouts");
}
