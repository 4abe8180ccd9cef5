//! `summary.json` as types: the document a run writes, field by field, and
//! what a reader (a test, a tool) parses it back into. The report
//! (`report.rs`) fills these from a finished simulation; the writer turns
//! them into JSON through `serde_json::Value`, whose maps keep their keys
//! sorted, so the file's bytes do not depend on the order of the fields
//! here. A key that only some runs have (`freeze`, `witcp`, `ehn`,
//! `trace_ab`/`trace_ba`) is an `Option` left out when `None`; a `null`
//! value is an `Option` written as `null`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::metrics::FlowAnalysis;

/// The whole document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The resolved scenario with the seed used (the scenario's own JSON
    /// form: its sections typed, each section's records written by its key
    /// tables).
    pub scenario: crate::scenario::json::ResolvedScenario,
    pub seed: u64,
    pub versions: Versions,
    pub flows: Vec<FlowSummary>,
    pub links: Vec<LinkSummary>,
    pub agents: Vec<AgentSummary>,
    pub radios: Vec<RadioSummary>,
    /// The SDN control plane's counters (`null` without one).
    pub sdn: Option<SdnSummary>,
    /// The mesh's links, routes and deliveries (`null` without one).
    pub mesh: Option<MeshSummary>,
    pub udp_flows: Vec<UdpFlowSummary>,
    pub run: RunSummary,
}

impl Summary {
    /// Parse a `summary.json` text.
    pub fn from_json(text: &str) -> Result<Summary, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The document as a JSON value (keys sorted).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("the summary is plain data")
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Versions {
    pub airtcp: String,
}

/// One TCP flow (see `RunOutput::summary` for what each metric means).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowSummary {
    pub name: String,
    pub from: String,
    pub to: String,
    /// `bulk` or `transfer`.
    pub app: String,
    pub start_s: f64,
    pub goodput_bps: f64,
    pub goodput_time_s: f64,
    pub bytes_delivered: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub fast_recoveries: u64,
    pub spurious_rtos_detected: u64,
    pub tlp_probes_sent: u64,
    pub tlp_recoveries: u64,
    pub rack_reo_timeouts: u64,
    pub loss_undos: u64,
    pub recovery_undos: u64,
    pub dsack_undos: u64,
    pub dsacks_received: u64,
    pub ecn: bool,
    pub ecn_ece_received: u64,
    pub cwr_reductions: u64,
    pub loss_state_entries: u64,
    pub response_time_s: Option<f64>,
    pub srtt_min_s: Option<f64>,
    pub srtt_mean_s: Option<f64>,
    pub rtt_samples: u64,
    pub zero_window_events: u64,
    pub window_probes: u64,
    pub recv_order_errors: u64,
    pub closed: bool,
    pub client_state: String,
    pub server_state: String,
    pub analysis: FlowAnalysis,
    pub sender: SenderCounters,
    pub receiver: ReceiverCounters,
    /// Freeze-TCP: zero-window warnings and TR-ACKs (with `tcp.freeze`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freeze: Option<FreezeCounters>,
    /// Wi-TCP's sender (with `tcp.witcp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witcp: Option<WitcpCounters>,
    /// Handover notifications received (with `tcp.ehn`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ehn: Option<EhnCounters>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SenderCounters {
    pub segs_sent: u64,
    pub data_segs_sent: u64,
    pub segs_received: u64,
    pub bytes_acked: u64,
    pub dup_acks_received: u64,
    pub sndbuf_max: u64,
    pub nagle_deferrals: u64,
    pub cwnd_restarts: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReceiverCounters {
    pub segs_sent: u64,
    pub segs_received: u64,
    pub bytes_delivered: u64,
    pub dsacks_sent: u64,
    /// ACKs held by SACK compression and merged into a later one (absent
    /// from summaries written before it was modelled).
    #[serde(default)]
    pub acks_compressed: u64,
    pub dup_data_segs_received: u64,
    pub ecn_ce_received: u64,
    pub rcv_wnd_max: u64,
    pub rcvbuf_grows: u64,
    pub rcvbuf_max: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FreezeCounters {
    pub zwas: u64,
    pub tr_acks: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WitcpCounters {
    pub freezes: u64,
    pub resumes: u64,
    pub forced_thaws: u64,
    pub ignored: u64,
    pub frozen_s: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EhnCounters {
    pub notifications: u64,
}

/// One link: per direction its counters, and what a traced direction
/// looked like.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkSummary {
    pub name: String,
    pub a: String,
    pub b: String,
    pub ab: crate::link::DirStats,
    pub ba: crate::link::DirStats,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_ab: Option<TraceReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_ba: Option<TraceReport>,
}

/// A traced direction: a Mahimahi trace or a drive log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum TraceReport {
    Mahimahi {
        file: String,
        mean_capacity_bps: f64,
        period_s: f64,
        opportunities: u64,
    },
    Drive {
        file: String,
        format: String,
        handoffs: u64,
        handoff_times: Vec<HandoffTime>,
        handoff_outage_s: f64,
        handoff_drops: bool,
        mean_capacity_bps: f64,
        series: DriveSeries,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HandoffTime {
    pub t_s: f64,
    /// Serving cells before and after.
    pub from: String,
    pub to: String,
}

/// A drive log's state at each change (each value holds until the next).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DriveSeries {
    pub t_s: Vec<f64>,
    pub signal_dbm: Vec<f64>,
    pub capacity_bps: Vec<u64>,
    pub loss_prob: Vec<f64>,
}

/// One agent: where it ran, its counters, its drops and its gauge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentSummary {
    pub name: String,
    pub node: String,
    pub kind: String,
    pub counters: BTreeMap<String, u64>,
    pub dropped_packets: u64,
    pub series: Gauge,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gauge {
    pub t_s: Vec<f64>,
    pub value: Vec<u64>,
}

/// One radio: node, mode, address, channel, MAC counters, the AP it ends
/// with and its beacon signal samples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RadioSummary {
    pub node: String,
    /// `ap`, `station` or `adhoc`.
    pub mode: String,
    pub addr: String,
    pub channel: u8,
    pub counters: airtcp_wifi::mac::MacCounters,
    pub associated_ap: Option<String>,
    pub signal: SignalSeries,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SignalSeries {
    pub t_s: Vec<f64>,
    pub dbm: Vec<f64>,
}

/// One UDP flow (see `udp::report` for what each metric means).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UdpFlowSummary {
    pub name: String,
    pub from: String,
    pub to: String,
    /// `cbr`, `onoff`, `saturated` or `trace`.
    pub app: String,
    pub start_s: f64,
    pub active_s: f64,
    pub sent_datagrams: u64,
    pub sent_bytes: u64,
    pub received_datagrams: u64,
    pub received_bytes: u64,
    pub lost: u64,
    pub loss_fraction: f64,
    pub out_of_order: u64,
    pub duplicates: u64,
    pub throughput_bps: f64,
    pub offered_bps: f64,
    pub jitter_s: f64,
    pub delay_mean_s: Option<f64>,
    pub delay_min_s: Option<f64>,
    pub delay_max_s: Option<f64>,
}

/// The SDN control plane: messages on the control channels, what the
/// controller and its applications did, and each datapath's table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SdnSummary {
    pub messages_to_controller: u64,
    pub messages_to_datapaths: u64,
    pub flow_mods: u64,
    pub packet_ins: u64,
    pub packet_outs: u64,
    pub zwa_acks: u64,
    pub flow_removed: u64,
    pub station_notices: u64,
    /// Frames a datapath's table dropped.
    pub table_drops: u64,
    /// The controller's counters and its applications', by name.
    pub controller: BTreeMap<String, u64>,
    pub datapaths: Vec<DatapathSummary>,
}

/// One datapath (`flows`: its table's entries at the end).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DatapathSummary {
    pub node: String,
    pub dpid: u64,
    pub lookups: u64,
    pub matched: u64,
    pub packet_ins: u64,
    pub packet_outs: u64,
    pub errors: u64,
    pub flows: u64,
}

/// The mesh: its links and routes as computed at load, the deliveries
/// measured during the run, and the coding plane's plan and counters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeshSummary {
    /// `etx` or `hops`.
    pub routing: String,
    /// `ip`, `more` or `tcpfender`.
    pub protocol: String,
    pub links: Vec<MeshLinkSummary>,
    pub routes: Vec<MeshRoute>,
    pub measured: Vec<MeasuredLink>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coding: Option<CodingSummary>,
}

/// A directed mesh link: delivery of a data frame and of its ACK, and its
/// routing cost (`null` when no ACK ever comes back).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeshLinkSummary {
    pub from: String,
    pub to: String,
    pub data_delivery: f64,
    pub ack_delivery: f64,
    pub cost: Option<f64>,
}

/// `node`'s next hop toward `to`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeshRoute {
    pub node: String,
    pub to: String,
    pub via: String,
}

/// Data frames sent on a link during the run and decoded at its far end
/// (`delivery`: their ratio, collisions included; `null` when none was sent).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeasuredLink {
    pub from: String,
    pub to: String,
    pub sent: u64,
    pub decoded: u64,
    pub delivery: Option<f64>,
}

/// The coding plane (MORE or TCPFender): its parameters, MORE's plan and
/// each node's role and counters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CodingSummary {
    pub protocol: String,
    pub batch: u64,
    pub pipeline: u64,
    pub real_bytes: bool,
    /// TCPFender's source mode (`null` under MORE).
    pub source: Option<String>,
    pub forwarders: Vec<String>,
    pub nodes: Vec<CodingNode>,
    pub counters: CodingCounters,
}

/// A node with a role in the plan (or pruned from it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CodingNode {
    pub node: String,
    pub role: String,
    /// `null` when the destination is unreachable from it.
    pub etx_to_destination: Option<f64>,
    pub z: f64,
    pub tx_credit: f64,
    pub pruned: bool,
    pub counters: BTreeMap<String, u64>,
}

/// What the coding plane did to the carried flow's packets (counted by the
/// plane itself into this struct).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CodingCounters {
    pub segments_to_tcp: u64,
    pub batches_to_tcp: u64,
    pub acks_sent: u64,
    pub coded_enqueued: u64,
    pub tcp_acks_absorbed: u64,
    pub waiting_drops: u64,
    pub refused: u64,
    /// Real-byte mode: decoded datagrams checked, and those that differed
    /// from the original (or could not be parsed).
    pub real_bytes_checked: u64,
    pub real_bytes_mismatches: u64,
}

/// The run itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    pub events_executed: u64,
    pub events_by_kind: BTreeMap<String, u64>,
    pub sim_duration_s: f64,
    pub misrouted_packets: u64,
    pub no_route_drops: u64,
    pub ttl_expired_drops: u64,
    pub unmatched_packets: u64,
    pub echo_replies: u64,
    pub hosts_learned: u64,
    /// Wall-clock seconds of the run loop: the one value that differs
    /// between two runs of the same scenario and seed.
    pub run_wall_s: f64,
}
