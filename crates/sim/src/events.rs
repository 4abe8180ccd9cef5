//! The simulator's event kinds and event-log records, shared by the network
//! (which schedules channel and agent timers) and the run loop.

use airtcp_core::Duration;
use airtcp_tcp::Event;

#[derive(Clone, Copy, Debug)]
pub(crate) enum Ev {
    /// Channel `ch` may have frames to deliver.
    Channel { ch: u32 },
    /// Agent `agent` may have a timer due.
    Agent { agent: u32 },
    /// Apply the scenario's route change `idx`.
    RouteChange { idx: u32 },
    /// Endpoint `ep` may have a timer due.
    Timer { ep: u32 },
    FlowStart { flow: u32 },
    /// Rate-limited reader tick.
    Read { flow: u32 },
    /// Log only: the loss process itself knows its windows.
    Outage { link: u32, dir: u8, start: bool },
    /// Log only: handoff `idx` of the drive trace on link `link`, direction
    /// `dir` (the rate model and loss windows already contain its outage).
    Handoff { link: u32, dir: u8, idx: u32 },
    /// The wireless medium has a transmission ending or a MAC timer due.
    Wlan,
    /// The SDN control plane has a control message or a timeout due.
    Sdn,
}

impl Ev {
    /// Index into [`EVENT_KINDS`].
    #[inline]
    pub fn kind(&self) -> usize {
        match self {
            Ev::Channel { .. } => 0,
            Ev::Timer { .. } => 1,
            Ev::FlowStart { .. } => 2,
            Ev::Read { .. } => 3,
            Ev::Outage { .. } => 4,
            Ev::Handoff { .. } => 5,
            Ev::Agent { .. } => 6,
            Ev::RouteChange { .. } => 7,
            Ev::Wlan => 8,
            Ev::Sdn => 9,
        }
    }
}

/// Names of the event kinds counted in `summary.run.events_by_kind`.
pub(crate) const EVENT_KINDS: [&str; 10] = ["packet", "timer", "flow_start", "read", "outage", "handoff", "agent", "route_change", "wlan", "sdn"];

/// What goes into the event log, kept compact during the run and formatted after.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Raw {
    /// `aux`: stream offset of a fast retransmit's segment, else 0.
    Tcp { flow: u32, client: bool, ev: Event, aux: u64 },
    Outage { link: u32, dir: u8, start: bool },
    Handoff { link: u32, dir: u8, idx: u32 },
    TransferComplete { flow: u32, response: Duration },
    /// An agent's own log line.
    Agent { agent: u32, kind: &'static str, value: u64 },
    /// The scenario's route change `idx` was applied.
    RouteChange { idx: u32 },
    /// A management step of radio `radio`.
    Wifi { radio: u32, event: airtcp_wifi::mgmt::MgmtEvent },
    /// A Freeze-TCP endpoint started (`on`) or ended its zero window.
    Freeze { flow: u32, client: bool, on: bool },
    /// A step of the SDN control plane at datapath `dp` about `host`.
    Sdn { kind: &'static str, dp: u32, host: [u8; 4], value: u64 },
}
