//! What the analysis produces, and the sink it streams it to.
//!
//! Records are handed to a [`Sink`] as they are found, so a long capture is
//! written out as it is read and memory holds only live connections.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// Direction of a connection: `Fwd` is from the endpoint that sent the
/// first SYN (or, without a handshake, the first packet seen) to the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    Fwd,
    Rev,
}

impl Dir {
    pub fn name(self) -> &'static str {
        match self {
            Dir::Fwd => "fwd",
            Dir::Rev => "rev",
        }
    }
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Why a segment was sent again (see docs/analyze.md, "Retransmissions").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RtxKind {
    /// First retransmission of the cumulative ACK point after DupThresh
    /// duplicate ACKs (or as many bytes SACKed above it).
    FastRetransmit,
    /// Further retransmissions before the ACK reaches the recovery point.
    FastRecovery,
    /// Retransmission of the cumulative ACK point by the timer.
    Rto,
    /// Further retransmissions after a timeout, before the ACK reaches the
    /// data sent by then.
    RtoRecovery,
    /// Retransmission of the highest segment while earlier data is
    /// outstanding (a tail-loss probe).
    Tlp,
    /// Anything else (e.g. a partial overlap).
    Other,
}

impl RtxKind {
    pub fn name(self) -> &'static str {
        match self {
            RtxKind::FastRetransmit => "fast_retransmit",
            RtxKind::FastRecovery => "fast_recovery",
            RtxKind::Rto => "rto",
            RtxKind::RtoRecovery => "rto_recovery",
            RtxKind::Tlp => "tlp",
            RtxKind::Other => "other",
        }
    }
}

/// One discrete event of a connection direction.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub t_ns: i64,
    pub conn: u64,
    pub dir: Dir,
    /// Packet number in the capture (1-based).
    pub packet: u64,
    pub kind: &'static str,
    /// Relative sequence number (bytes from the direction's first sequence).
    pub seq: u64,
    pub len: u32,
    /// Free-form `key=value` pairs.
    pub detail: String,
}

/// One row of a direction's time series, for the interval ending at `t_ns`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeriesRow {
    pub t_ns: i64,
    pub conn: u64,
    pub dir: Dir,
    /// Payload bytes sent in the interval, retransmissions included.
    pub sent_bytes: u64,
    /// Bytes newly delivered in order (cumulative ACK advance) in the interval.
    pub delivered_bytes: u64,
    /// `delivered_bytes * 8 / interval`.
    pub goodput_bps: f64,
    /// Largest flight (highest sequence sent - cumulative ACK) in the interval.
    pub flight_max_bytes: u64,
    /// Receiver window (scaled) at the end of the interval.
    pub rwnd_bytes: u64,
    /// What limited the flight: "rwnd", "cwnd", "app" or "idle".
    pub limit: &'static str,
    pub retransmissions: u32,
    /// Last RTT sample (data/ACK, else timestamps) in the interval, in ms; NaN if none.
    pub rtt_ms: f64,
}

/// One RTT sample.
#[derive(Clone, Debug, PartialEq)]
pub struct RttSample {
    pub t_ns: i64,
    pub conn: u64,
    pub dir: Dir,
    /// Packet number of the ACK (or echo) that closed the sample.
    pub packet: u64,
    /// "karn" (data/ACK pair, never retransmitted) or "ts" (timestamp echo).
    pub source: &'static str,
    pub rtt_ns: i64,
}

/// One zero-window episode of a direction (the peer closed its window).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ZeroWindow {
    pub start_ns: i64,
    /// When a non-zero window was advertised again; `None` if never.
    pub end_ns: Option<i64>,
    pub probes: u32,
    /// Time between consecutive probes, ns (the persist timer's backoff).
    pub probe_intervals_ns: Vec<i64>,
    pub retransmissions: u32,
}

/// A run of consecutive timeouts on one sequence number without any ACK
/// progress between them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RtoChain {
    pub seq: u64,
    /// Times of the retransmissions, ns.
    pub times_ns: Vec<i64>,
}

/// A delivery interruption with what happened inside it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InterruptionRecord {
    pub start_ns: i64,
    pub end_ns: Option<i64>,
    pub delivered_before: u64,
    pub retransmissions: u32,
    pub timeouts: u32,
    pub zero_window: bool,
    /// Events of the `--events` file inside the interruption (their kinds).
    pub external: Vec<String>,
    /// First new in-order delivery minus the end of the last external
    /// event inside (the path's return); `None` without such an event.
    pub idle_after_return_ns: Option<i64>,
}

/// Totals of one direction.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DirSummary {
    pub packets: u64,
    pub data_packets: u64,
    /// Payload bytes sent, retransmissions included.
    pub bytes_sent: u64,
    /// Highest sequence sent minus the first: distinct bytes offered.
    pub bytes_unique: u64,
    /// Cumulative ACK advance seen from the peer.
    pub bytes_delivered: u64,
    /// `bytes_delivered * 8` over the connection's span at the capture
    /// point (first to last packet, either direction), bit/s.
    pub goodput_bps: f64,
    pub retransmissions: u64,
    pub retransmitted_bytes: u64,
    pub fast_retransmits: u64,
    pub fast_recovery: u64,
    pub timeouts: u64,
    pub rto_recovery: u64,
    pub tlp: u64,
    pub other_retransmissions: u64,
    pub already_received: u64,
    pub spurious_dsack: u64,
    pub spurious_eifel: u64,
    pub dup_acks: u64,
    pub sack_blocks: u64,
    pub dsacks: u64,
    pub zero_window_acks: u64,
    pub zero_window_probes: u64,
    pub rtt_karn_samples: u64,
    /// ACKs covering a segment that had been retransmitted: no sample (Karn,
    /// as Linux's `tcp_clean_rtx_queue` applies it).
    pub rtt_ambiguous: u64,
    /// ACKs that give no sample by Karn's rule or RTTM (a duplicate ACK,
    /// or an ACK of a retransmission without a timestamp echo) but newly
    /// SACK a never-retransmitted segment: the samples Linux adds
    /// (`tcp_ack_update_rtt` takes one from the SACK since 3.12).
    pub rtt_sack_samples: u64,
    pub rtt_karn_min_ms: Option<f64>,
    pub rtt_karn_mean_ms: Option<f64>,
    pub rtt_karn_max_ms: Option<f64>,
    pub rtt_ts_samples: u64,
    pub rtt_ts_mean_ms: Option<f64>,
    pub rto_chains: Vec<RtoChain>,
    pub zero_windows: Vec<ZeroWindow>,
    pub interruptions: Vec<InterruptionRecord>,
    /// "sender", "receiver", "middle" or "unknown": where the capture sat
    /// on this direction's path (borrowed when written, owned when read
    /// back from a summary).
    pub capture_point: Cow<'static, str>,
}

/// One connection, both directions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConnSummary {
    pub conn: u64,
    /// Endpoint that sent the first SYN (or the first packet seen).
    pub a: String,
    pub b: String,
    pub first_ns: i64,
    pub last_ns: i64,
    pub handshake: bool,
    /// SYN -> SYN/ACK and SYN/ACK -> ACK times at the capture point, ns.
    pub syn_to_synack_ns: Option<i64>,
    pub synack_to_ack_ns: Option<i64>,
    pub mss: Option<u32>,
    pub sack_permitted: bool,
    pub timestamps: bool,
    pub fwd: DirSummary,
    pub rev: DirSummary,
}

/// Where the analysis streams its results.
pub trait Sink {
    /// Whether `event` keeps anything: if not, events are not even built
    /// (their details are formatted strings).
    fn wants_events(&self) -> bool {
        true
    }
    fn event(&mut self, e: &Event);
    fn series(&mut self, r: &SeriesRow);
    fn rtt(&mut self, s: &RttSample);
    /// A connection is finished (closed, or the capture ended).
    fn connection(&mut self, c: &ConnSummary);
}

/// A sink that keeps nothing (the summary is returned by the caller).
#[derive(Default, Debug, Clone, Copy)]
pub struct Discard;

impl Sink for Discard {
    fn wants_events(&self) -> bool {
        false
    }
    fn event(&mut self, _: &Event) {}
    fn series(&mut self, _: &SeriesRow) {}
    fn rtt(&mut self, _: &RttSample) {}
    fn connection(&mut self, _: &ConnSummary) {}
}

/// A sink that keeps everything (tests, small captures).
#[derive(Default, Debug)]
pub struct Collect {
    pub events: Vec<Event>,
    pub series: Vec<SeriesRow>,
    pub rtt: Vec<RttSample>,
    pub connections: Vec<ConnSummary>,
}

impl Sink for Collect {
    fn event(&mut self, e: &Event) {
        self.events.push(e.clone());
    }
    fn series(&mut self, r: &SeriesRow) {
        self.series.push(r.clone());
    }
    fn rtt(&mut self, s: &RttSample) {
        self.rtt.push(s.clone());
    }
    fn connection(&mut self, c: &ConnSummary) {
        self.connections.push(c.clone());
    }
}
