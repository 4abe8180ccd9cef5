//! Random streams are named by component, not numbered: inserting a flow (with
//! its nodes, link and packet error generator) between two others leaves the
//! last one's draws, and so its whole run, exactly as they were. Each flow
//! runs on its own pair of nodes, so only shared randomness could couple them.

use crate::common::{parse, SEED_TCP};
use airtcp_sim::{run, RunOptions, RunOutput};

/// One TCP transfer per name on its own two nodes and link, with a PEG on
/// the receiver dropping 5 % of the data it receives (the PEG is named after
/// the flow, so its stream is keyed by that name).
fn tcp_flows(names: &[&str]) -> String {
    let mut s = String::from("[sim]\nduration = \"60s\"\nseries_interval = \"100ms\"\n");
    for n in names {
        s += &format!(
            r#"
[[nodes]]
name = "snd_{n}"
[[nodes]]
name = "rcv_{n}"
[[links]]
name = "wire_{n}"
a = "snd_{n}"
b = "rcv_{n}"
rate = "10Mbps"
delay = "10ms"
queue_packets = 50
[links.loss]
model = "uniform"
p = 0.01
[[agents]]
name = "peg_{n}"
node = "rcv_{n}"
kind = "peg"
recv_data_drop_rate = 0.05
[[flows]]
name = "{n}"
from = "snd_{n}"
to = "rcv_{n}"
app = "transfer"
bytes = 300000
[flows.tcp]
{SEED_TCP}"#
        );
    }
    s
}

/// One on-off UDP sender per name on its own two nodes and link.
fn onoff_flows(names: &[&str]) -> String {
    let mut s = String::from("[sim]\nduration = \"20s\"\nseries_interval = \"100ms\"\n");
    for n in names {
        s += &format!(
            r#"
[[nodes]]
name = "snd_{n}"
[[nodes]]
name = "rcv_{n}"
[[links]]
name = "wire_{n}"
a = "snd_{n}"
b = "rcv_{n}"
rate = "10Mbps"
delay = "10ms"
[[udp_flows]]
name = "{n}"
from = "snd_{n}"
to = "rcv_{n}"
app = "onoff"
rate = "2Mbps"
on_time = "500ms"
off_time = "500ms"
"#
        );
    }
    s
}

fn run_text(text: &str) -> RunOutput {
    run(&parse(text), RunOptions { seed: Some(11), ..Default::default() }).unwrap()
}

/// Flow `flow`'s log entries (time, kind, detail): its index is left out,
/// since it is where the flow is declared.
fn flow_events(o: &RunOutput, flow: u32) -> Vec<(f64, String, String)> {
    o.events.iter().filter(|e| e.flow == Some(flow)).map(|e| (e.t_s, e.kind.clone(), e.detail.clone())).collect()
}

#[test]
fn inserting_a_flow_leaves_another_flows_losses_and_events_alone() {
    let ab = run_text(&tcp_flows(&["a", "b"]));
    let axb = run_text(&tcp_flows(&["a", "x", "b"]));
    let (b2, b3) = (&ab.summary["flows"][1], &axb.summary["flows"][2]);
    assert_eq!(b2["name"], "b");
    assert_eq!(b3["name"], "b");
    // The losses really happened (PEG and link), so the comparison has
    // something to compare.
    let (peg2, peg3) = (&ab.summary["agents"][1], &axb.summary["agents"][2]);
    assert_eq!(peg2["name"], "peg_b");
    assert!(peg2["dropped_packets"].as_u64().unwrap() > 5, "{peg2}");
    assert!(ab.summary["links"][1]["ab"]["loss_drops"].as_u64().unwrap() > 0);
    assert!(b2["retransmissions"].as_u64().unwrap() > 5, "{b2}");
    // Identical: the PEG's drops, the link's losses, every metric of the
    // flow, its time series, its segment log and its events.
    assert_eq!(peg2, peg3);
    assert_eq!(ab.summary["links"][1], axb.summary["links"][2]);
    assert_eq!(b2, b3);
    assert_eq!(ab.series[1], axb.series[2]);
    assert_eq!(ab.segments[1], axb.segments[2]);
    let events = flow_events(&ab, 1);
    assert!(events.iter().any(|e| e.1 == "fast_retransmit"), "{events:?}");
    assert_eq!(events, flow_events(&axb, 2));
    // The inserted flow has draws of its own (a different loss pattern).
    assert_ne!(axb.segments[1], axb.segments[2]);
}

#[test]
fn inserting_a_udp_flow_leaves_another_on_off_pattern_alone() {
    let ab = run_text(&onoff_flows(&["a", "b"]));
    let axb = run_text(&onoff_flows(&["a", "x", "b"]));
    assert_eq!(ab.summary["udp_flows"][1]["name"], "b");
    assert_eq!(ab.summary["udp_flows"][1], axb.summary["udp_flows"][2]);
    assert_eq!(ab.udp_series[1], axb.udp_series[2]);
    // The on-off periods are random: the flows' patterns differ.
    assert_ne!(axb.udp_series[1], axb.udp_series[2]);
}
