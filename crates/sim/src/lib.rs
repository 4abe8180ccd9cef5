//! Deterministic packet-level simulator for airtcp.
//!
//! A [`Scenario`] (nodes, links with loss models, TCP flows with their
//! applications) is run by [`run`] on an integer-nanosecond event queue; the
//! TCP endpoints are the sans-IO [`airtcp_tcp::Endpoint`]s the emulator also
//! drives. [`write_outputs`] turns a [`RunOutput`] into summary.json, per-flow
//! time series (CSV + Parquet), per-flow segment logs and an event log.
//!
//! Determinism: the same scenario and seed give byte-identical outputs,
//! except `summary.json`'s `run.run_wall_s` (the wall time of the simulation
//! loop), which is the only wall-clock value anywhere in the outputs.
//!
//! # Layer map
//!
//! Above every protocol crate (`core`, `tcp`, `coding`, `wifi`, `agents`)
//! and `analyze`; below `emu` (which drives the same network in real time)
//! and `py`. Inside, one way, parse → build → model:
//!
//! - parse: [`scenario`] (each section's keys declared once; units,
//!   defaults, errors naming file, line and key) and [`trace`] (Mahimahi
//!   traces and drive logs);
//! - build: `network::from_scenario` (media, interfaces, addresses, routes,
//!   agents) and the world's set-up (hosts, endpoints, applications, first
//!   events);
//! - model: [`engine`] (the integer-nanosecond event queue), [`network`]
//!   (nodes, forwarding, every medium behind one seam: [`link`]s, traced
//!   links, the 802.11 WLAN, cells) with [`apps`] and [`udp`] traffic, and
//!   the world that advances them ([`run`], [`validate`], [`Driver`]);
//! - report: [`metrics`] and [`analysis`] (through `airtcp-analyze`, PFTK),
//!   [`summary`] and [`output`] (summary.json, series in CSV and Parquet,
//!   segment and event logs, pcaps).
//!
//! ```
//! use airtcp_sim::{run, RunOptions, Scenario};
//!
//! let toml = r#"
//! [sim]
//! duration = "3s"
//! [[nodes]]
//! name = "snd"
//! [[nodes]]
//! name = "rcv"
//! [[links]]
//! a = "snd"
//! b = "rcv"
//! rate = "10Mbps"
//! delay = "20ms"
//! [[flows]]
//! from = "snd"
//! to = "rcv"
//! "#;
//! let scenario = Scenario::from_toml_str(toml, "first.toml", &[]).unwrap();
//! let out = run(&scenario, RunOptions::default()).unwrap();
//! // A bulk flow fills most of the 10 Mb/s link after slow start.
//! let delivered = *out.series[0].bytes_delivered.last().unwrap();
//! assert!(delivered > 2_000_000 && delivered < 3_750_000, "{delivered}");
//! // Same scenario, same seed: the same run.
//! assert_eq!(run(&scenario, RunOptions::default()).unwrap().series, out.series);
//! // A bad value is named by file, line and key.
//! let bad = Scenario::from_toml_str(&toml.replace("20ms", "-5ms"), "first.toml", &[]).unwrap_err();
//! assert_eq!(bad.to_string(), r#"first.toml:12: links[0].delay: negative duration "-5ms""#);
//! ```
// The per-flow JSON of the report (`report.rs`) has more keys than
// serde_json's `json!` expands at the default recursion limit.
#![recursion_limit = "256"]

pub mod analysis;
pub mod apps;
pub mod engine;
mod events;
mod flow;
pub mod link;
pub mod metrics;
pub mod network;
pub mod output;
mod pcap_out;
mod report;
pub mod summary;
pub mod scenario;
mod world;
pub mod realbytes;
pub mod ring;
pub mod slab;
mod stream_offset;
pub mod trace;
pub mod udp;

use std::fmt;
use std::path::PathBuf;

pub use output::write_outputs;
pub use scenario::{Scenario, ScenarioError};
pub use world::drive::{Driver, IfaceInfo, MixedFlow};
pub use world::{run, validate, External, GaugeSeries, NoExternal};
pub use udp::UdpSeries;

/// Options of one run that are not part of the scenario.
#[derive(Default)]
pub struct RunOptions<'a> {
    /// Replaces the scenario's `sim.seed`.
    pub seed: Option<u64>,
    /// Write one pcap per link here (`link<i>_<a>-<b>.pcap`).
    pub pcap_dir: Option<PathBuf>,
    /// Called with the fraction of simulated time done, at most ~100 times,
    /// the last time with 1.0.
    pub progress: Option<&'a mut dyn FnMut(f64)>,
}

/// Time series of one flow's sender, one row per `sim.series_interval`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowSeries {
    pub t_s: Vec<f64>,
    /// Congestion window in segments.
    pub cwnd: Vec<u32>,
    /// Slow-start threshold in segments (`TCP_INFINITE_SSTHRESH` when unset).
    pub ssthresh: Vec<u32>,
    pub srtt_s: Vec<f64>,
    pub rto_s: Vec<f64>,
    /// Stream offsets (application bytes; the SYN is not counted).
    pub snd_una: Vec<u64>,
    pub snd_nxt: Vec<u64>,
    /// Bytes the receiving application has read, in order.
    pub bytes_delivered: Vec<u64>,
    /// Linux `ca_state` (0 Open, 1 Disorder, 2 CWR, 3 Recovery, 4 Loss); see [`ca_state_name`].
    pub ca_state: Vec<u8>,
}

/// Every data segment the flow's sender put on the wire.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SegmentLog {
    pub t_s: Vec<f64>,
    /// Stream offset of the first payload byte.
    pub seq: Vec<u64>,
    pub len: Vec<u32>,
    /// Sent with a sequence number below the highest already sent.
    pub retransmission: Vec<bool>,
}

/// One entry of the event log.
#[derive(Clone, Debug, PartialEq)]
pub struct LogEvent {
    pub t_s: f64,
    /// e.g. "timeout", "fast_retransmit", "ca_state", "zero_window",
    /// "window_probe", "window_opened", "window_shrunk", "connected",
    /// "peer_closed", "send_complete", "closed", "transfer_complete",
    /// "outage_start", "outage_end", "handoff", "witcp_freeze",
    /// "witcp_resume", "handover_notified".
    pub kind: String,
    pub flow: Option<u32>,
    pub link: Option<u32>,
    /// Short human-readable details ("client", "rto=1000ms backoff=1", "Open->Recovery", "ab";
    /// a handoff: "`<from cell>-><to cell> <dir>` outage=50ms stall|drop").
    pub detail: String,
}

pub struct RunOutput {
    /// summary.json: `scenario` (resolved, with the seed used), `seed`,
    /// `versions`, `flows[i]` and `links[i]` (per direction `ab`/`ba`:
    /// frames_sent, bytes_sent, queue_drops (DropTail and AQM), aqm_drops
    /// (RED's share), ecn_marks (frames CE-marked), loss_drops, outage_drops,
    /// max_frame_bytes, max_queue_packets; a traced direction adds
    /// `trace_ab`/`trace_ba`: kind, file, mean_capacity_bps, and for a drive
    /// log its handoffs with times and a `series` of t_s / signal_dbm /
    /// capacity_bps / loss_prob steps) and `run` (events_executed,
    /// events_by_kind, sim_duration_s, misrouted_packets, run_wall_s).
    ///
    /// Per flow: `goodput_bps` = bytes the receiving application read, in
    /// order, x 8 / `goodput_time_s`, where the time is the response time for
    /// a finished transfer and (end of run - flow start) otherwise (for a bulk
    /// flow starting at 0: the duration, as ns-3's PacketSink figure);
    /// `bytes_delivered`; sender counters `retransmissions`, `timeouts`,
    /// `fast_retransmits`; `ecn` (negotiated), `ecn_ece_received` (ACKs
    /// echoing a mark), `cwr_reductions` (CWR entries), and the receiver's
    /// `ecn_ce_received`; `fast_recoveries` / `loss_state_entries`
    /// (ca_state transitions into Recovery / Loss); `response_time_s`
    /// (connection start to last byte acknowledged, null until then);
    /// `srtt_min_s` / `srtt_mean_s` (min / mean of the sender's RTT samples,
    /// null without samples) and `rtt_samples`; `zero_window_events`,
    /// `window_probes`; `recv_order_errors` (reads that did not start where
    /// the previous ended: always 0 unless TCP is broken); `closed` (both
    /// ends reached CLOSED without abort); `client_state`/`server_state`;
    /// and raw `sender`/`receiver` segment counters.
    ///
    /// `run.run_wall_s` is the only value that differs between two runs of
    /// the same scenario and seed.
    pub summary: serde_json::Value,
    pub series: Vec<FlowSeries>,
    /// Per `[[udp_flows]]` entry, its receiver's time series.
    pub udp_series: Vec<UdpSeries>,
    pub segments: Vec<SegmentLog>,
    pub events: Vec<LogEvent>,
    pub events_executed: u64,
    /// Wall time of the simulation loop (building and reporting excluded).
    pub run_wall_s: f64,
}

/// Seconds of an integer-nanosecond time for reports. Division (not a
/// multiplication by 1e-9) keeps round values round: 60 s prints as 60.
#[inline]
pub fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// Name of a `FlowSeries::ca_state` value.
pub fn ca_state_name(s: u8) -> &'static str {
    match s {
        0 => "Open",
        1 => "Disorder",
        2 => "CWR",
        3 => "Recovery",
        4 => "Loss",
        _ => "?",
    }
}

#[derive(Debug)]
pub enum SimError {
    /// A file could not be written.
    Io { path: PathBuf, err: std::io::Error },
    /// An endpoint rejected its configuration.
    Config(String),
    /// Parquet encoding failed.
    Parquet { path: PathBuf, msg: String },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Io { path, err } => write!(f, "{}: {err}", path.display()),
            SimError::Config(m) => write!(f, "{m}"),
            SimError::Parquet { path, msg } => write!(f, "{}: parquet: {msg}", path.display()),
        }
    }
}

impl std::error::Error for SimError {}
