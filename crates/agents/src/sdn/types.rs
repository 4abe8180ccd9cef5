//! Identifiers and reserved numbers shared by the datapath and the controller.

use airtcp_core::Instant;

/// Datapath id of a switch or access point (OF 1.3 `datapath_id`).
pub type Dpid = u64;
/// A switch port number (OF 1.3 `ofp_port_no`); physical ports count from 1.
pub type PortNo = u32;

/// OFPP_IN_PORT: send the packet back out of its input port (OF 1.3 §7.2.1).
pub const OFPP_IN_PORT: PortNo = 0xffff_fff8;
/// OFPP_CONTROLLER: the controller's port number.
pub const OFPP_CONTROLLER: PortNo = 0xffff_fffd;
/// OFPP_ANY: "no port" filter in delete and stats requests.
pub const OFPP_ANY: PortNo = 0xffff_ffff;

/// Per-flow counters (OF 1.3 `ofp_flow_stats` packet/byte counts).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct FlowCounters {
    /// Packets that hit the entry.
    pub packets: u64,
    /// Bytes of IP datagram (the model carries no Ethernet framing; OF
    /// counts frame bytes).
    pub bytes: u64,
}

/// One action of an apply-actions instruction. At most [`MAX_ACTIONS`]
/// per entry so entries stay `Copy` and the packet path never allocates.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Action {
    /// OFPAT_OUTPUT to a port (or [`OFPP_IN_PORT`]).
    Output(PortNo),
    /// OFPAT_OUTPUT to OFPP_CONTROLLER: a packet-in with reason ACTION.
    Controller,
}

/// Actions one entry may hold (enough for the seed's apps; keeps [`Actions`] `Copy`).
pub const MAX_ACTIONS: usize = 4;

/// An action list; empty means drop (OF 1.3 §5.10: no output action, no forwarding).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Actions {
    list: [Option<Action>; MAX_ACTIONS],
}

impl Actions {
    /// The empty list: drop the packet.
    pub const DROP: Actions = Actions { list: [None; MAX_ACTIONS] };

    /// At most [`MAX_ACTIONS`] actions; `None` if more are given.
    pub fn new(actions: &[Action]) -> Option<Actions> {
        if actions.len() > MAX_ACTIONS {
            return None;
        }
        let mut a = Actions::DROP;
        for (slot, x) in a.list.iter_mut().zip(actions) {
            *slot = Some(*x);
        }
        Some(a)
    }

    /// A single output to `port`.
    pub fn output(port: PortNo) -> Actions {
        Actions::new(&[Action::Output(port)]).unwrap_or_default()
    }

    /// A single output to the controller (packet-in with reason ACTION).
    pub fn controller() -> Actions {
        Actions::new(&[Action::Controller]).unwrap_or_default()
    }

    /// The actions in order.
    pub fn iter(&self) -> impl Iterator<Item = Action> + '_ {
        self.list.iter().map_while(|a| *a)
    }

    /// Whether the list is empty, i.e. the packet is dropped.
    pub fn is_drop(&self) -> bool {
        self.list[0].is_none()
    }

    /// Has an output to `port` (the `out_port` filter of delete and stats).
    pub fn outputs_to(&self, port: PortNo) -> bool {
        port == OFPP_ANY || self.iter().any(|a| a == Action::Output(port) || (a == Action::Controller && port == OFPP_CONTROLLER))
    }
}

/// Time since `since`, for entry durations.
pub fn age(now: Instant, since: Instant) -> airtcp_core::Duration {
    now.saturating_since(since)
}
