//! The contract between a node and the agents that sit in its packet path.
//!
//! Agents are sans-IO: the node calls them with the time and a packet, and
//! drains what they want to send with [`Agent::poll_injection`]; they own
//! their timers through [`Agent::poll_timeout`] / [`Agent::handle_timeout`].
//! The simulator (and later the emulator) is only a driver of this trait, so
//! the same Snoop runs in both.
//!
//! A node's agents form a stack from the IP layer (first declared) down to
//! the link (last declared), as seed 004 places Snoop above its packet error
//! generator: egress runs the stack top-down, ingress bottom-up, so an agent
//! sees a packet after every agent above it on the way out and before them on
//! the way in.

use airtcp_core::{Instant, Packet};

/// Where in the node's packet path an agent is called (netfilter's chains).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Hook {
    /// A frame arrived on `iface` (PREROUTING), before the routing decision.
    Ingress,
    /// The packet is addressed to this node (INPUT), after decapsulation;
    /// `iface` is the interface it arrived on.
    LocalIn,
    /// The packet is being forwarded (FORWARD); `iface` is the interface it
    /// will leave on.
    Forward,
    /// The packet leaves on `iface` (POSTROUTING), forwarded or generated here.
    Egress,
}

/// Which hooks an agent wants to be called at; the node skips the others, so
/// an agent pays only for the chains it uses.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct HookMask(pub u8);

impl HookMask {
    /// Call at [`Hook::Ingress`].
    pub const INGRESS: HookMask = HookMask(1);
    /// Call at [`Hook::LocalIn`].
    pub const LOCAL_IN: HookMask = HookMask(2);
    /// Call at [`Hook::Forward`].
    pub const FORWARD: HookMask = HookMask(4);
    /// Call at [`Hook::Egress`].
    pub const EGRESS: HookMask = HookMask(8);
    /// Call at every hook.
    pub const ALL: HookMask = HookMask(15);

    /// Whether the mask includes `hook`.
    pub fn has(self, hook: Hook) -> bool {
        let bit = match hook {
            Hook::Ingress => 1,
            Hook::LocalIn => 2,
            Hook::Forward => 4,
            Hook::Egress => 8,
        };
        self.0 & bit != 0
    }
}

impl std::ops::BitOr for HookMask {
    type Output = HookMask;
    fn bitor(self, o: HookMask) -> HookMask {
        HookMask(self.0 | o.0)
    }
}

/// What happens to a packet after an agent has seen it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Verdict {
    /// Continue along the path (possibly modified in place).
    Accept,
    /// Discard it; the node counts the drop against the agent.
    Drop,
    /// The agent took it (it kept a copy or consumed it); the node forgets it.
    Stolen,
}

/// A node-local interface number: the node's links in scenario order.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct IfaceId(pub u32);

/// Where a packet an agent emits enters the node's path.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum InjectAt {
    /// Continue down the egress stack *below* the injecting agent, then out of
    /// the interface (a Snoop local retransmission still meets the packet
    /// error generator under it).
    Egress(IfaceId),
    /// Continue up the ingress stack *above* the injecting agent, as if it
    /// had arrived on the interface.
    Ingress(IfaceId),
    /// A packet generated at this node: routed by the forwarding table, then
    /// the whole egress stack of the interface chosen.
    Route,
}

/// A packet an agent wants sent, and where it enters the node's path.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Injection {
    /// Where the packet enters (see [`InjectAt`] for which agents it meets).
    pub at: InjectAt,
    /// The packet itself.
    pub pkt: Packet,
}

/// Things that happen to the node rather than to a packet. Association,
/// disassociation and MAC delivery failure join this enum with the WLAN work.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum NodeEvent {
    /// Interface `iface` was brought up (a scenario's scheduled interface
    /// change); routes are recomputed.
    IfaceUp(IfaceId),
    /// Interface `iface` was brought down (a scenario's scheduled interface
    /// change); routes are recomputed without it.
    IfaceDown(IfaceId),
    /// The MAC of wireless interface `iface` gave up on a frame toward IPv4
    /// `dst` at its retry limit (the cross-layer signal of seed 001).
    TxFailed {
        /// The wireless interface whose MAC gave up.
        iface: IfaceId,
        /// IPv4 destination of the frame that was dropped.
        dst: [u8; 4],
    },
    /// A station's wireless interface `iface` associated with the AP at
    /// `ap` (its radio's address).
    Associated {
        /// The station's wireless interface.
        iface: IfaceId,
        /// IPv4 address of the AP's radio.
        ap: [u8; 4],
    },
    /// A station's wireless interface lost its AP (T0 of a handoff).
    LinkLost {
        /// The station's wireless interface that lost its AP.
        iface: IfaceId,
    },
    /// At an AP: station `station` associated with interface `iface`.
    StationJoined {
        /// The AP's wireless interface.
        iface: IfaceId,
        /// IPv4 address of the station.
        station: [u8; 4],
    },
    /// At an AP: station `station` left interface `iface` (disassociated or
    /// lost), so frames for it can no longer be delivered there.
    StationLeft {
        /// The AP's wireless interface.
        iface: IfaceId,
        /// IPv4 address of the station.
        station: [u8; 4],
    },
}

/// One line for the run's event log: `kind` names the action ("snoop_local_rexmit"),
/// `value` is its number (a sequence offset, a cache size).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct AgentLog {
    /// What happened, a short snake_case name ("snoop_local_rexmit").
    pub kind: &'static str,
    /// The number that goes with it (a sequence offset, a cache size, a count).
    pub value: u64,
}

/// An in-network mechanism at a node.
///
/// Call order contract: after any `on_packet`, `handle_timeout` or
/// `on_node_event`, the driver drains `poll_injection` and `poll_log` until
/// `None` and re-reads `poll_timeout`.
pub trait Agent {
    /// Short kind name for reports ("snoop", "peg", "itcp").
    fn kind(&self) -> &'static str;

    /// The hooks at which [`Agent::on_packet`] must be called.
    fn hooks(&self) -> HookMask;

    /// See a packet at `hook`. `iface` is the arrival interface for
    /// `Ingress`/`LocalIn` and the departure interface for `Forward`/`Egress`.
    fn on_packet(&mut self, now: Instant, hook: Hook, iface: IfaceId, pkt: &mut Packet) -> Verdict;

    /// Next packet the agent wants to send.
    fn poll_injection(&mut self) -> Option<Injection>;

    /// Earliest time the agent needs [`Agent::handle_timeout`].
    fn poll_timeout(&self) -> Option<Instant>;

    /// Called at (or after) the instant `poll_timeout` returned.
    fn handle_timeout(&mut self, now: Instant);

    /// React to something that happened to the node (interface up/down,
    /// association, MAC failure); default: ignore it.
    fn on_node_event(&mut self, _now: Instant, _ev: NodeEvent) {}

    /// Next entry for the run's event log.
    fn poll_log(&mut self) -> Option<AgentLog> {
        None
    }

    /// End-of-run counters for the summary, in a fixed order.
    fn counters(&self) -> Vec<(&'static str, u64)>;

    /// A level sampled every series interval (Snoop: cached segments), if the agent has one.
    fn gauge(&self) -> Option<u64> {
        None
    }
}
