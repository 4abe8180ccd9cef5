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
    /// OFPFC_ADD: install an entry, replacing one with the same match and priority.
    Add,
    /// OFPFC_MODIFY: change the actions of every entry the match covers (and
    /// the cookie filter selects).
    Modify,
    /// OFPFC_MODIFY_STRICT: change the entry with exactly this match and priority.
    ModifyStrict,
    /// OFPFC_DELETE: remove every entry the match covers (and the cookie and
    /// `out_port` filters select).
    Delete,
    /// OFPFC_DELETE_STRICT: remove the entry with exactly this match and priority.
    DeleteStrict,
}

/// A flow-table modification (`ofp_flow_mod`, OF 1.3 §7.3.4.1).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct FlowMod {
    /// Transaction id, echoed in an error the message causes.
    pub xid: u32,
    /// What to do with the table.
    pub command: FlowModCommand,
    /// Opaque controller tag stored in the entry (apps mark their entries with it).
    pub cookie: u64,
    /// For modify/delete: only entries with `cookie & mask == self.cookie & mask`.
    pub cookie_mask: u64,
    /// Entry priority: among matching entries the highest wins.
    pub priority: u16,
    /// Remove the entry after this long without a matching packet; `None`: never.
    pub idle_timeout: Option<Duration>,
    /// Remove the entry this long after it was installed; `None`: never.
    pub hard_timeout: Option<Duration>,
    /// OFPFF_* bits.
    pub flags: u16,
    /// A packet buffered at the datapath to run through the new entry's actions.
    pub buffer_id: Option<u32>,
    /// Delete filter: only entries with an output to this port (OFPP_ANY: all).
    pub out_port: PortNo,
    /// Which packets the entry applies to.
    pub r#match: Match,
    /// What to do with them.
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

    /// The same message with its OFPFF_* `flags` replaced.
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

/// A packet sent to the controller (`ofp_packet_in`, OF 1.3 §7.4.1).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PacketIn {
    /// Where the datapath keeps the packet, if it buffered it.
    pub buffer_id: Option<u32>,
    /// The datapath port the packet arrived on.
    pub in_port: PortNo,
    /// Why it was sent: table miss or an explicit action.
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
    /// OFPRR_IDLE_TIMEOUT: no packet matched for `idle_timeout`.
    IdleTimeout,
    /// OFPRR_HARD_TIMEOUT: `hard_timeout` since installation passed.
    HardTimeout,
    /// OFPRR_DELETE: a flow-mod delete removed it.
    Delete,
}

/// An entry left the table (`ofp_flow_removed`, OF 1.3 §7.4.2); sent only for
/// entries installed with [`OFPFF_SEND_FLOW_REM`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct FlowRemoved {
    /// The removed entry's cookie.
    pub cookie: u64,
    /// The removed entry's priority.
    pub priority: u16,
    /// Why it was removed.
    pub reason: RemovedReason,
    /// How long the entry was installed.
    pub duration: Duration,
    /// The entry's idle timeout.
    pub idle_timeout: Option<Duration>,
    /// The entry's hard timeout.
    pub hard_timeout: Option<Duration>,
    /// Packets and bytes the entry matched over its life.
    pub counters: FlowCounters,
    /// The entry's match.
    pub r#match: Match,
}

/// One row of a flow-stats reply (`ofp_flow_stats`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct FlowStats {
    /// The entry's priority.
    pub priority: u16,
    /// The entry's cookie.
    pub cookie: u64,
    /// How long the entry has been installed.
    pub duration: Duration,
    /// The entry's idle timeout.
    pub idle_timeout: Option<Duration>,
    /// The entry's hard timeout.
    pub hard_timeout: Option<Duration>,
    /// The entry's OFPFF_* flags.
    pub flags: u16,
    /// Packets and bytes matched so far.
    pub counters: FlowCounters,
    /// The entry's match.
    pub r#match: Match,
    /// The entry's actions.
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
    /// The station associated with the AP (seed 000: the new AP after a handoff).
    Associated,
    /// The station left the AP (seed 000: T0, the start of the handoff).
    Disassociated,
}

/// An AP's report of a station's (dis)association to the controller, the
/// seed 000 extension that lets the SDN apps act on a handoff.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct StationNotice {
    /// Associated or disassociated.
    pub event: StationEvent,
    /// The station's IPv4 address.
    pub station_ip: [u8; 4],
    /// The station's MAC address.
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
    /// The datapath port whose link changed.
    pub port: PortNo,
    /// True if the link is now up.
    pub up: bool,
}

/// A message on a control channel, either direction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OfMessage {
    // controller -> datapath
    /// Add, modify or delete flow-table entries.
    FlowMod(FlowMod),
    /// Send a packet through the datapath (`ofp_packet_out`, OF 1.3 §7.3.7).
    PacketOut {
        /// A packet buffered at the datapath; `None` to send `pkt` instead.
        buffer_id: Option<u32>,
        /// The port the packet is taken to have arrived on: an output to it
        /// is skipped, OFPP_IN_PORT sends there.
        in_port: PortNo,
        /// What to do with the packet.
        actions: Actions,
        /// The packet itself, when not buffered.
        pkt: Option<Packet>,
    },
    /// Ask for the counters of the entries a filter selects
    /// (`OFPMP_FLOW`, OF 1.3 §7.3.5.2).
    FlowStatsRequest {
        /// Transaction id, echoed in the reply.
        xid: u32,
        /// Entries this match covers (non-strict).
        r#match: Match,
        /// Only entries with an output to this port (OFPP_ANY: all).
        out_port: PortNo,
        /// Only entries with `cookie & cookie_mask` equal to this `& cookie_mask`.
        cookie: u64,
        /// Which cookie bits must match (0: any cookie).
        cookie_mask: u64,
    },
    /// Ask for a reply once every earlier message was processed (OF 1.3 §7.3.8).
    BarrierRequest {
        /// Transaction id, echoed in the reply.
        xid: u32,
    },
    // datapath -> controller
    /// A packet for the controller (table miss or output-to-controller).
    PacketIn(PacketIn),
    /// An entry with OFPFF_SEND_FLOW_REM left the table.
    FlowRemoved(FlowRemoved),
    /// The answer to a flow-stats request.
    FlowStatsReply {
        /// The request's transaction id.
        xid: u32,
        /// One row per selected entry, highest priority first (then install order).
        stats: Vec<FlowStats>,
    },
    /// A port's link went up or down.
    PortStatus(PortStatus),
    /// Every message before the barrier request was processed.
    BarrierReply {
        /// The request's transaction id.
        xid: u32,
    },
    /// A message was refused (`ofp_error_msg`).
    Error {
        /// Transaction id of the refused message (0 for messages without
        /// one: packet-outs, and messages sent in the wrong direction).
        xid: u32,
        /// What was wrong.
        error: OfError,
    },
    /// An AP's association notice (seed 000 extension, not OpenFlow).
    StationNotice(StationNotice),
}

/// A message with the datapath it goes to or came from.
pub type Addressed = (Dpid, OfMessage);
