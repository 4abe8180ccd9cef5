//! Mobile IP, route optimisation and Wi-TCP in scenarios (seed 001, issue 10).

use airtcp_sim::{run, RunOptions, RunOutput, Scenario};

fn scenario_text() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/wi-tcp-wlan.toml")).unwrap()
}

fn sets(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

const NO_RO: &[(&str, &str)] = &[
    ("agents.1.route_optimization", "false"),
    ("agents.2.route_optimization", "false"),
    ("agents.3.route_optimization", "false"),
    ("agents.4.smooth_handoff", "false"),
];
const NO_WITCP: &[(&str, &str)] =
    &[("agents.1.witcp", "false"), ("agents.2.witcp", "false"), ("agents.3.witcp", "false"), ("flows.0.tcp.witcp", "false")];

fn run_with(extra: &[(&str, &str)], seed: u64) -> RunOutput {
    let s = Scenario::from_toml_str(&scenario_text(), "wi-tcp-wlan.toml", &sets(extra)).unwrap_or_else(|e| panic!("{e}"));
    run(&s, RunOptions { seed: Some(seed), ..Default::default() }).unwrap()
}

fn counter(o: &RunOutput, agent: usize, name: &str) -> u64 {
    o.summary["agents"][agent]["counters"][name].as_u64().unwrap_or_else(|| panic!("no counter {name}: {}", o.summary["agents"][agent]))
}

#[test]
fn explore() {
    for (label, extra) in [("mip", [NO_RO, NO_WITCP].concat()), ("romip", NO_WITCP.to_vec()), ("witcp", vec![])] {
        let o = run_with(&extra, 1);
        println!("== {label}");
        for e in &o.events {
            if e.kind.starts_with("mip") || e.kind.starts_with("witcp") || e.kind.contains("associated") || e.kind.contains("link_lost") {
                println!("{:.4} {} {}", e.t_s, e.kind, e.detail);
            }
        }
        for a in o.summary["agents"].as_array().unwrap() {
            println!("{} {}", a["name"], a["counters"]);
        }
        let f = &o.summary["flows"][0];
        println!("goodput {} rexmit {} timeouts {} ha_tunnelled {}", f["goodput_bps"], f["retransmissions"], f["timeouts"], counter(&o, 1, "tunnelled"));
        println!("{}", f["sender"]);
    }
}
