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
    /// Log only: entry `entry` of the run's drive-trace handoff markers
    /// (`Sim::handoffs`: link, direction, handoff index; the rate model and
    /// loss windows already contain its outage). An index, so that every
    /// event fits one word (`EventCode`).
    Handoff { entry: u32 },
    /// The wireless medium has a transmission ending or a MAC timer due.
    Wlan,
    /// The SDN control plane has a control message or a timeout due.
    Sdn,
    /// UDP flow `flow`'s sender has a datagram or a period change due.
    Udp { flow: u32 },
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
            Ev::Udp { .. } => 10,
        }
    }
}

impl crate::engine::EventCode for Ev {
    /// The kind in the low byte (`Ev::kind`), a `u32` field in the high
    /// half, an outage's direction and edge in bytes 1 and 2.
    #[inline]
    fn encode(self) -> u64 {
        let (small, word) = match self {
            Ev::Channel { ch } => (0, ch),
            Ev::Timer { ep } => (0, ep),
            Ev::FlowStart { flow } | Ev::Read { flow } | Ev::Udp { flow } => (0, flow),
            Ev::Outage { link, dir, start } => ((dir as u64) << 8 | (start as u64) << 16, link),
            Ev::Handoff { entry } => (0, entry),
            Ev::Agent { agent } => (0, agent),
            Ev::RouteChange { idx } => (0, idx),
            Ev::Wlan | Ev::Sdn => (0, 0),
        };
        self.kind() as u64 | small | (word as u64) << 32
    }

    #[inline]
    fn decode(code: u64) -> Ev {
        let word = (code >> 32) as u32;
        match code as u8 {
            0 => Ev::Channel { ch: word },
            1 => Ev::Timer { ep: word },
            2 => Ev::FlowStart { flow: word },
            3 => Ev::Read { flow: word },
            4 => Ev::Outage { link: word, dir: (code >> 8) as u8, start: (code >> 16) as u8 & 1 == 1 },
            5 => Ev::Handoff { entry: word },
            6 => Ev::Agent { agent: word },
            7 => Ev::RouteChange { idx: word },
            8 => Ev::Wlan,
            9 => Ev::Sdn,
            _ => Ev::Udp { flow: word },
        }
    }
}

/// Names of the event kinds counted in `summary.run.events_by_kind`.
pub(crate) const EVENT_KINDS: [&str; 11] = ["packet", "timer", "flow_start", "read", "outage", "handoff", "agent", "route_change", "wlan", "sdn", "udp"];

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EventCode;

    #[test]
    fn every_event_kind_survives_its_encoding() {
        let all = [
            Ev::Channel { ch: u32::MAX },
            Ev::Agent { agent: 7 },
            Ev::RouteChange { idx: 3 },
            Ev::Timer { ep: 123_456 },
            Ev::FlowStart { flow: 9 },
            Ev::Read { flow: 1 << 31 },
            Ev::Outage { link: 77, dir: 1, start: true },
            Ev::Outage { link: 0, dir: 0, start: false },
            Ev::Handoff { entry: 42 },
            Ev::Wlan,
            Ev::Sdn,
            Ev::Udp { flow: 77 },
        ];
        for e in all {
            let back = Ev::decode(e.encode());
            assert_eq!(format!("{back:?}"), format!("{e:?}"));
            assert_eq!(back.kind(), e.kind());
        }
    }
}
