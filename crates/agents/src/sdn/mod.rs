//! SDN-assisted TCP (seed 000): an OpenFlow-1.3-style datapath, a
//! controller hosting Floodlight-style applications, and the seed's IP
//! mobility manager, ZWA module and statistics module, all sans-IO.
//!
//! - [`types`], [`ofmatch`], [`msg`]: ports, actions, matches and the typed
//!   control messages ([`msg::OfMessage`]) of a per-datapath control channel.
//! - [`table`], [`datapath`]: one flow table with OF 1.3 flow-mod semantics
//!   and the datapath around it (packet-in/out, buffers, timeouts).
//! - [`topology`], [`devices`]: the controller's graph and host tracking.
//! - [`controller`]: the application host; [`forwarding`], [`mobility`],
//!   [`zwa`], [`stats`]: its applications; [`zwa_core`]: the ZWA receiver
//!   stand-in and replay sender as a plain state machine.
//!
//! Nothing here knows the simulator: the driver delivers control messages
//! with whatever latency it models.

pub mod controller;
pub mod datapath;
pub mod devices;
pub mod forwarding;
pub mod mobility;
pub mod msg;
pub mod ofmatch;
pub mod stats;
pub mod table;
pub mod topology;
pub mod types;
pub mod zwa;
pub mod zwa_core;

#[cfg(test)]
mod tests;

pub use controller::{App, Controller, Ctx};
pub use datapath::{Datapath, DatapathConfig, Decision};
pub use msg::{FlowMod, FlowModCommand, FlowRemoved, OfError, OfMessage, PacketIn, StationEvent, StationNotice};
pub use ofmatch::{Ipv4Masked, Match};
pub use types::{Action, Actions, Dpid, FlowCounters, PortNo};
