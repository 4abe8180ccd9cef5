//! Scenario text for the agent tests: a fixed server on the access point's
//! wired LAN and a mobile behind the AP's wireless hop (seed 004's topology),
//!
//! ```text
//!   server --[server-ap: 100 Mb/s, 1 ms]-- ap --[ap-m1: 11 Mb/s, 1 us]-- m1
//! ```
//!
//! Link 0 is server-ap (the AP's interface 0), link 1 is ap-m1 (the AP's
//! interface 1, the mobile's only one).
#![allow(dead_code)]

use airtcp_sim::{run, RunOptions, RunOutput, Scenario};

/// Seed 004's TCP table with a 1460-byte MSS (a 1500-byte Ethernet MTU) and a
/// shorter RTO ceiling, so heavy loss still finishes within a test's budget.
pub const SEED_TCP: &str = r#"cc = "reno"
recovery = "reno"
mss = 1460
rcv_buf = 8760
window_scaling = false
delack_count = 2
delack_timeout = "200ms"
sack = false
timestamps = false
initial_rto = "1s"
min_rto = "500ms"
max_rto = "8s"
clock_granularity = "500ms"
initial_cwnd = 1
limited_transmit = false
msl = "1s"
"#;

/// The two links; `wireless_extra` is appended to the ap-m1 link's table
/// (loss, reorder sub-tables).
pub fn topology(duration: &str, series_interval: &str, wireless_extra: &str) -> String {
    format!(
        r#"
[sim]
duration = "{duration}"
series_interval = "{series_interval}"

[[nodes]]
name = "server"
[[nodes]]
name = "ap"
[[nodes]]
name = "m1"

[[links]]
name = "server-ap"
a = "server"
b = "ap"
rate = "100Mbps"
delay = "1ms"
overhead_bytes = 38
queue_packets = 100

[[links]]
name = "ap-m1"
a = "ap"
b = "m1"
rate = "11Mbps"
delay = "1us"
overhead_bytes = 1150
queue_packets = 50
{wireless_extra}
"#
    )
}

/// A transfer of `bytes` from `from` to `to` with `tcp` as its `[flows.tcp]` body.
pub fn transfer(name: &str, from: &str, to: &str, bytes: u64, tcp: &str) -> String {
    format!(
        r#"
[[flows]]
name = "{name}"
from = "{from}"
to = "{to}"
app = "transfer"
bytes = {bytes}
[flows.tcp]
{tcp}
"#
    )
}

/// A PEG on `node` (`iface`: a link name, or "" for every interface).
pub fn peg(node: &str, send: f64, recv: f64, data_only: bool, iface: &str) -> String {
    let iface = if iface.is_empty() { String::new() } else { format!("iface = \"{iface}\"\n") };
    format!(
        r#"
[[agents]]
node = "{node}"
kind = "peg"
send_data_drop_rate = {send}
recv_data_drop_rate = {recv}
data_only = {data_only}
{iface}"#
    )
}

/// A Snoop on `node` facing link `wireless`.
pub fn snoop(node: &str, wireless: &str, timer: &str) -> String {
    format!(
        r#"
[[agents]]
node = "{node}"
kind = "snoop"
wireless = "{wireless}"
timer = "{timer}"
cache_packets = 64
"#
    )
}

/// An I-TCP proxy on `node` facing link `wireless`.
pub fn itcp(node: &str, wireless: &str) -> String {
    format!(
        r#"
[[agents]]
node = "{node}"
kind = "itcp"
wireless = "{wireless}"
relay_bytes = 65536
"#
    )
}

pub fn parse(text: &str) -> Scenario {
    match Scenario::from_toml_str(text, "agents.toml", &[]) {
        Ok(s) => s,
        Err(e) => panic!("{e}\n{text}"),
    }
}

pub fn run_seed(text: &str, seed: u64) -> RunOutput {
    run(&parse(text), RunOptions { seed: Some(seed), ..Default::default() }).unwrap()
}

pub fn counter(o: &RunOutput, agent: usize, key: &str) -> u64 {
    let a = &o.summary["agents"][agent];
    a["counters"][key].as_u64().unwrap_or_else(|| panic!("agent {agent} has no counter {key}: {a}"))
}

pub fn flow_u64(o: &RunOutput, flow: usize, key: &str) -> u64 {
    let f = &o.summary["flows"][flow];
    f[key].as_u64().unwrap_or_else(|| panic!("flow {flow} has no {key}: {f}"))
}

/// Entries of that kind in the run's event log.
pub fn events_of(o: &RunOutput, kind: &str) -> usize {
    o.events.iter().filter(|e| e.kind == kind).count()
}
pub mod golden;
pub mod wi_tcp;
