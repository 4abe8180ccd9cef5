//! Scenario files: TOML (or JSON of the same shape) describing nodes, links,
//! flows, loss models and TCP options. Everything is validated before a run;
//! an error names the file, line and key.
//!
//! A section's keys are declared once, in its table (`keys::Section`):
//! `run::SIM`, `run::node_keys`, `flows::flow_keys`, `tcp::TCP`,
//! `ns2::NS2`, `link_keys::LINK` (`[[links]]`, a per-direction family
//! such as `rate` / `rate_ab` / `rate_ba` one entry), `link_tables::{LOSS,
//! RED, REORDER}`, `trace_keys::TRACE`, `wifi_medium::WIFI`,
//! `wifi_errors::wifi_error_keys` and the
//! agent kinds `agents::{peg_keys, snoop_keys, itcp_keys}`. Each key's
//! type, default and meaning is there, and docs/scenario-reference.md's key
//! tables are generated from them (`reference`). The other sections are
//! read by hand-written code and annotated below.
//!
//! Format (durations take ns/us/ms/s/min/h or a plain number of seconds,
//! rates bps/kbps/Mbps/Gbps or a plain number of bits/s, sizes
//! B/KB/MB/GB/KiB/MiB/GiB or a plain number of bytes):
//!
//! ```toml
//! [sim]                     # run::SIM
//! duration = "60s"
//!
//! [[nodes]]                 # run::node_keys
//! name = "snd"
//!
//! [[links]]                 # link_keys::LINK
//! name = "snd-rtr"          # default "<a>-<b>"; names RNG streams and pcaps
//! a = "snd"                 # node names; direction "ab" is a -> b
//! b = "rtr"
//! rate = "10Mbps"           # or rate_ab / rate_ba per direction
//! delay = "10ms"            # propagation delay (default 0); or delay_ab / delay_ba
//! queue_packets = 50        # DropTail, frames waiting besides the one in
//!                           # transmission (default 100, ns-3's default)
//! # queue_bytes = 75000     # ...or a byte limit (frame bytes); not both
//! # ecn_threshold = 20      # CE-mark ECT arrivals finding >= 20 frames waiting
//!                           # (a size string: bytes); both directions; not with red
//! overhead_bytes = 2        # link header per frame (default 2: PPP as in ns-3)
//! subnet = "10.1.0.0/30"    # default: link i is the /30 at 10.0.0.0 + 4i (network::addr);
//!                           # at most /30, no host bits
//! addr_a = "10.1.0.1"       # addresses of the a / b interfaces: inside the subnet,
//! addr_b = "10.1.0.2"       # not its network or broadcast address, unique in the run
//!                           # (default: the subnet's first free host addresses)
//! [links.loss]              # link_tables::LOSS; both directions (own RNG stream each);
//!                           # [links.loss_ab] / [links.loss_ba]: one direction
//! model = "uniform"         # none | uniform (p) | ber (ber) |
//! p = 0.01                  # gilbert (p_gb, p_bg, loss_good = 0, loss_bad = 1) |
//!                           # list (drops = [i, j, ...]: frame numbers, 0-based, as
//!                           # ns-2's ErrorModel/List)
//! outages = [["5s", "7s"]]  # frames ending in [t1, t2) are lost
//! [links.red]               # or red_ab / red_ba: RED (link::aqm), link_tables::RED
//! ecn = true
//! [links.reorder]           # or reorder_ab / reorder_ba: link_tables::REORDER
//! p = 0.01
//! delay = "5ms"
//! [links.trace]             # or trace_ab / trace_ba: the direction's rate
//!                           # follows a trace instead of `rate` (trace_keys::TRACE)
//! kind = "drive"            # mahimahi (keys: kind, file) | drive
//! file = "logs/B_2019.csv"  # relative to this scenario file
//! format = "auto"           # auto | ucc | imc23 | feup (auto sniffs the content)
//! feup_link = "ap2->m1"     # FEUP: one measured AP->client link, or instead
//! feup_hysteresis = 5.0     # FEUP: roaming client, dB (default 5)
//! offset = "0s"             # log time that is run time 0
//! handoff_outage = "50ms"   # link down after each serving-cell change
//!                           # (default 50ms cellular, 200ms FEUP Wi-Fi)
//! handoff_drops = false     # false: the queue stalls during the outage;
//!                           # true: frames ending in it are lost
//! min_rate = 0              # capacity clamp after the mapping
//! max_rate = "10Gbps"
//! [links.trace.capacity]    # signal -> capacity (trace::SignalMapping);
//! kind = "shannon"          # shannon | linear | reported, with their fields
//! bandwidth_hz = 5e6
//! [links.trace.loss]        # signal -> loss probability (trace::LossCurve):
//! midpoint_dbm = -130.7     # midpoint_dbm, slope_per_db, max_loss (0 = none);
//!                           # unset fields keep the log kind's default curve
//!
//! [[flows]]                 # flows::flow_keys
//! from = "snd"
//! to = "rcv"
//! [flows.tcp]               # tcp::TCP: a named profile, then any TcpConfig field
//! profile = "linux"         # overriding the profile's value; profile = "ns2-*"
//! cc = "newreno"            # runs ns-2 2.35's one-way agents instead (ns2::NS2)
//!
//! [[udp_flows]]             # UDP senders with iperf-style receivers: see
//! from = "snd"              # scenario::udp for every key (cbr, onoff,
//! to = "rcv"                # saturated, trace)
//! app = "cbr"
//! rate = "1Mbps"
//!
//! [[agents]]                # in-network agents (scenario::agents); a node's agents
//! node = "rtr"              # form a stack, first declared = closest to IP
//! kind = "snoop"            # each kind's own keys: agents::{peg,snoop,itcp}_keys,
//! name = "rtr.snoop0"       # mobileip (home_agent, ...), agents::mtcp
//! wireless = "rtr-rcv"
//!
//! [[route_changes]]         # forwarding changes during the run (scenario::routes)
//! at = "20s"                # before the end of the run
//! node = "rtr"
//! action = "down"           # down | up | add | remove: each one's keys in routes::route_keys
//! link = "rtr-rcv"
//! ```

mod agent_decl;
mod agent_head;
mod agent_on;
mod agents;
mod doc;
mod flows;
pub mod json;
pub mod link_keys;
pub mod link_tables;
pub mod keys;
mod key_rows;
pub mod mesh;
pub mod mesh_coding;
pub mod mesh_keys;
mod mesh_links;
mod mobileip;
mod names;
mod radio_keys;
pub mod ns2;
pub mod reference;
mod routes;
mod run;
mod assemble;
pub mod sdn;
pub mod tcp;
pub mod trace;
pub mod trace_keys;
pub mod udp;
mod udp_keys;
pub mod units;
mod value;
pub mod wifi;
mod wifi_errors;
mod wifi_medium;
mod wifi_types;

use std::path::Path;

use airtcp_core::Duration;
use airtcp_tcp::TcpConfig;

pub use agent_decl::AgentDecl;
pub use names::local_iface;
pub use doc::ScenarioError;
pub use routes::{route_change_text, RouteChangeSpec};
pub use trace::{DriveSpec, TraceModel, TraceSpec};

use crate::link::{LossModel, QueueLimit};

/// A validated scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub(crate) origin: String,
    pub sim: SimSpec,
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    pub flows: Vec<FlowSpec>,
    /// UDP applications (`[[udp_flows]]`, `scenario::udp`).
    pub udp_flows: Vec<udp::UdpFlowSpec>,
    /// In-network agents, each on a node, in declaration order.
    pub agents: Vec<AgentDecl>,
    /// Forwarding changes at given times, in declaration order.
    pub route_changes: Vec<RouteChangeSpec>,
    /// The wireless medium and the nodes' radios, if any.
    pub wifi: Option<wifi::WifiSpec>,
    /// The SDN control plane (seed 000), if any.
    pub sdn: Option<sdn::SdnSpec>,
    /// The ad hoc radios as a multi-hop mesh (seed 002), if any.
    pub mesh: Option<mesh::MeshSpec>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SimSpec {
    pub duration: Duration,
    pub seed: u64,
    /// Zero disables the time series.
    pub series_interval: Duration,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodeSpec {
    pub name: String,
    /// The node learns where wireless stations are from the packets they
    /// send (a learning switch's table, at the granularity of addresses).
    pub learn_hosts: bool,
    /// The node has a radio (its interface after its links'; agents name it
    /// `"radio"`).
    pub radio: bool,
}

/// Index 0 of the per-direction arrays is a -> b, index 1 is b -> a.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    pub name: String,
    pub a: usize,
    pub b: usize,
    /// Constant rate, or for a traced direction its mean capacity (reports only).
    pub rate_bps: [u64; 2],
    pub delay: [Duration; 2],
    pub queue: QueueLimit,
    pub overhead_bytes: u32,
    pub loss: [LossSpec; 2],
    pub reorder: [Option<ReorderSpec>; 2],
    /// A trace replaces the direction's constant rate.
    pub trace: [Option<TraceSpec>; 2],
    /// Queue discipline per direction (`ecn_threshold`, `[links.red]`);
    /// none is plain DropTail.
    pub aqm: [Option<crate::link::aqm::AqmSpec>; 2],
    /// The link's subnet: declared, or from the automatic plan (`network::addr`).
    pub subnet: crate::network::Prefix,
    /// Addresses of the `a` and `b` interfaces (declared, or the subnet's
    /// first free host addresses).
    pub addr: [u32; 2],
}

#[derive(Clone, Debug, PartialEq)]
pub struct LossSpec {
    pub model: LossModel,
    /// Sorted, non-overlapping `[start, end)` windows.
    pub outages: Vec<(Duration, Duration)>,
}

impl LossSpec {
    pub fn none() -> Self {
        LossSpec { model: LossModel::None, outages: Vec::new() }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ReorderSpec {
    pub p: f64,
    pub delay: Duration,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AppSpec {
    /// Keeps the send buffer full for the whole run.
    Bulk,
    /// Sends `bytes`, then closes; reports the response time.
    Transfer { bytes: u64 },
}

#[derive(Clone, Debug)]
pub struct FlowSpec {
    pub name: String,
    pub from: usize,
    pub to: usize,
    pub start: Duration,
    pub app: AppSpec,
    /// Receiver read rate in bits per second; None = reads everything at once.
    pub recv_rate_bps: Option<u64>,
    /// Time between reads of a rate-limited reader.
    pub recv_interval: Duration,
    pub tcp: TcpConfig,
    /// An ns-2 agent pair (`profile = "ns2-*"`) in place of the
    /// Linux-style endpoints; `tcp` is then unused.
    pub ns2: Option<airtcp_tcp::ns2::Ns2Config>,
}

/// Direction names used in RNG stream names, pcaps and reports.
pub const DIR_NAMES: [&str; 2] = ["ab", "ba"];

impl Scenario {
    /// Parse TOML `text`; `origin` names it in errors (usually the file name).
    /// `overrides` are `--set` pairs (dotted path, value text).
    pub fn from_toml_str(text: &str, origin: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
        let mut d = doc::Doc::from_toml(text, origin)?;
        d.apply_overrides(overrides)?;
        assemble::scenario(&d)
    }

    /// The same structure as JSON (what a Python dict becomes).
    pub fn from_json_str(text: &str, origin: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
        let mut d = doc::Doc::from_json(text, origin)?;
        d.apply_overrides(overrides)?;
        assemble::scenario(&d)
    }

    /// Read a `.toml` or `.json` file (by extension; TOML otherwise).
    pub fn from_path(path: &Path, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
        let origin = path.display().to_string();
        let whole = |line: Option<u32>, message: String| ScenarioError { file: origin.clone(), line, key: String::new(), message, via_override: None };
        let bytes = std::fs::read(path).map_err(|e| whole(None, format!("cannot read: {e}")))?;
        // Bytes that are not UTF-8 are named by line and column, as in a trace.
        let (_, text) = crate::trace::error::decode(origin.clone(), bytes)
            .map_err(|e| whole(e.line.map(|l| l as u32), e.message))?;
        if path.extension().is_some_and(|e| e == "json") {
            Self::from_json_str(&text, &origin, overrides)
        } else {
            Self::from_toml_str(&text, &origin, overrides)
        }
    }

    pub fn seed(&self) -> u64 {
        self.sim.seed
    }

    pub fn duration(&self) -> Duration {
        self.sim.duration
    }

    /// Where the scenario came from (file name or the origin given).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The resolved scenario (every default filled in, canonical units). It is
    /// itself a valid scenario: `from_json_str(&to_json().to_string(), ..)`
    /// gives back the same scenario.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self.resolved()).expect("the resolved scenario is plain data")
    }

    /// [`Scenario::to_json`] as its typed sections (summary.json's `scenario`).
    pub fn resolved(&self) -> json::ResolvedScenario {
        json::resolved(self)
    }

    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }
}
