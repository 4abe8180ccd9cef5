//! `airtcp_sim::validate`: a scenario's model is built without running it,
//! so checks only a built model makes fail before any event, and a
//! scenario whose flow starts late is accepted (a shortened run, which
//! validation used before, rejected it).

use airtcp_sim::{validate, Scenario, SimError};

const TWO_NODES: &str = r#"
[sim]
duration = "5s"

[[nodes]]
name = "server"

[[nodes]]
name = "mobile"

[[links]]
a = "server"
b = "mobile"
rate = "10Mbps"
delay = "10ms"
"#;

fn scenario(extra: &str) -> Scenario {
    Scenario::from_toml_str(&format!("{TWO_NODES}{extra}"), "v.toml", &[]).unwrap()
}

#[test]
fn validate_accepts_a_flow_that_starts_late() {
    let s = scenario("\n[[flows]]\nfrom = \"server\"\nto = \"mobile\"\nstart = \"4s\"\n");
    assert!(validate(&s).is_ok());
}

#[test]
fn validate_builds_the_endpoints_and_reports_what_they_reject() {
    // The parser checks [flows.tcp] too; a Scenario built in code skips it,
    // and only the built endpoint catches the bad value.
    let mut s = scenario("\n[[flows]]\nfrom = \"server\"\nto = \"mobile\"\n");
    s.flows[0].tcp.initial_cwnd = 0;
    match validate(&s) {
        Err(SimError::Config(m)) => assert_eq!(m, "flows[0].tcp: initial_cwnd must be at least 1 segment"),
        other => panic!("expected a configuration error, got {other:?}"),
    }
}
