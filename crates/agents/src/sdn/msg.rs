//! Control-channel messages as typed values (OpenFlow 1.3 semantics, not
//! its wire format), plus the access point's association notices of seed
//! 000 §2.1 (a Mininet-WiFi patch there, carried on the same channel here).
//!
//! The channel is per datapath: the controller receives `(dpid, msg)` and
//! sends `(dpid, msg)`; the driver models its latency.

use airtcp_core::{Duration, Instant, MacAddr, Packet};

use super::ofmatch::{BadMatch, Match};
use super::types::{Actions, Dpid, FlowCounters, PortNo};

/// OFPFF_SEND_FLOW_REM: send a flow-removed message when the entry goes.
pub const OFPFF_SEND_FLOW_REM: u16 = 1 << 0;
/// OFPFF_CHECK_OVERLAP: refuse an add that overlaps an entry of equal priority.
pub const OFPFF_CHECK_OVERLAP: u16 = 1 << 1;
/// OFPFF_RESET_COUNTS: clear counters on add-replace and modify.
pub const OFPFF_RESET_COUNTS: u16 = 1 << 2;

/// `ofp_flow_mod_command` (OF 1.3 §7.3.4.1).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FlowModCommand {
    Add,
    Modify,
    ModifyStrict,
    Delete,
    DeleteStrict,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct FlowMod {
    pub xid: u32,
    pub command: FlowModCommand,
    pub cookie: u64,
    /// For modify/delete: only entries with `cookie & mask == self.cookie & mask`.
    pub cookie_mask: u64,
    pub priority: u16,
    pub idle_timeout: Option<Duration>,
    pub hard_timeout: Option<Duration>,
    /// OFPFF_* bits.
    pub flags: u16,
    /// A packet buffered at the datapath to run through the new entry's actions.
    pub buffer_id: Option<u32>,
    /// Delete filter: only entries with an output to this port (OFPP_ANY: all).
    pub out_port: PortNo,
    pub r#match: Match,
    pub actions: Actions,
}

impl FlowMod {
    /// An add with no timeouts, flags or cookie.
    pub fn add(priority: u16, m: Match, actions: Actions) -> FlowMod {
        FlowMod {
            xid: 0,
            command: FlowModCommand::Add,
            cookie: 0,
            cookie_mask: 0,
            priority,
            idle_timeout: None,
            hard_timeout: None,
            flags: 0,
            buffer_id: None,
            out_port: super::types::OFPP_ANY,
            r#match: m,
            actions,
        }
    }

    /// A non-strict delete of every entry `m` covers.
    pub fn delete(m: Match) -> FlowMod {
        FlowMod { command: FlowModCommand::Delete, ..FlowMod::add(0, m, Actions::DROP) }
    }

    pub fn with_flags(self, flags: u16) -> FlowMod {
        FlowMod { flags, ..self }
    }
}

/// `ofp_packet_in_reason`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PacketInReason {
    /// OFPR_NO_MATCH: the table-miss path.
    NoMatch,
    /// OFPR_ACTION: an output-to-controller action.
    Action,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PacketIn {
    /// Where the datapath keeps the packet, if it buffered it.
    pub buffer_id: Option<u32>,
    pub in_port: PortNo,
    pub reason: PacketInReason,
    /// Cookie of the entry that sent it (all-ones for a table miss, as OF 1.3).
    pub cookie: u64,
    /// The packet's headers (the model carries no payload bytes, so a
    /// buffered packet-in loses nothing a controller could read).
    pub pkt: Packet,
}

/// `ofp_flow_removed_reason`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RemovedReason {
    IdleTimeout,
    HardTimeout,
    Delete,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct FlowRemoved {
    pub cookie: u64,
    pub priority: u16,
    pub reason: RemovedReason,
    pub duration: Duration,
    pub idle_timeout: Option<Duration>,
    pub hard_timeout: Option<Duration>,
    pub counters: FlowCounters,
    pub r#match: Match,
}

/// One row of a flow-stats reply (`ofp_flow_stats`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct FlowStats {
    pub priority: u16,
    pub cookie: u64,
    pub duration: Duration,
    pub idle_timeout: Option<Duration>,
    pub hard_timeout: Option<Duration>,
    pub flags: u16,
    pub counters: FlowCounters,
    pub r#match: Match,
    pub actions: Actions,
}

/// `ofp_error_type` / codes the model produces.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum OfError {
    /// OFPET_BAD_MATCH.
    BadMatch(BadMatch),
    /// OFPET_FLOW_MOD_FAILED / OFPFMFC_OVERLAP.
    Overlap,
    /// OFPET_FLOW_MOD_FAILED / OFPFMFC_TABLE_FULL.
    TableFull,
    /// OFPET_BAD_ACTION / OFPBAC_BAD_OUT_PORT (port 0 or a reserved port
    /// that cannot be an output).
    BadOutPort,
    /// OFPET_BAD_REQUEST / OFPBRC_BUFFER_UNKNOWN.
    BufferUnknown,
    /// OFPET_BAD_REQUEST / OFPBRC_BAD_TYPE: a switch-to-controller message
    /// sent to a switch.
    BadType,
}

/// What the AP reports about a station (seed 000 §2.1 and §2.2 step 2).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum StationEvent {
    Associated,
    Disassociated,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct StationNotice {
    pub event: StationEvent,
    pub station_ip: [u8; 4],
    pub station_mac: MacAddr,
    /// The AP port (its wireless interface) the station is/was on.
    pub port: PortNo,
    /// When the AP saw it (T0 for a disassociation).
    pub at: Instant,
    /// The AP's counters of the entries towards the station at `at` (the
    /// seed's statistics at T0); `None` when the AP has none.
    pub counters: Option<FlowCounters>,
}

/// Port status change (`ofp_port_status`, link up/down only).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PortStatus {
    pub port: PortNo,
    pub up: bool,
}

/// A message on a control channel, either direction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OfMessage {
    // controller -> datapath
    FlowMod(FlowMod),
    PacketOut { buffer_id: Option<u32>, in_port: PortNo, actions: Actions, pkt: Option<Packet> },
    FlowStatsRequest { xid: u32, r#match: Match, out_port: PortNo, cookie: u64, cookie_mask: u64 },
    BarrierRequest { xid: u32 },
    // datapath -> controller
    PacketIn(PacketIn),
    FlowRemoved(FlowRemoved),
    FlowStatsReply { xid: u32, stats: Vec<FlowStats> },
    PortStatus(PortStatus),
    BarrierReply { xid: u32 },
    Error { xid: u32, error: OfError },
    StationNotice(StationNotice),
}

/// A message with the datapath it goes to or came from.
pub type Addressed = (Dpid, OfMessage);
