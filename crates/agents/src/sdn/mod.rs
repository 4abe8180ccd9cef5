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
//!
//! Driving it (what the simulator integration does):
//! - one [`Datapath`] per switch or AP node, ports = the node's interfaces
//!   (port = interface index + 1); a frame arriving on a port goes through
//!   [`Datapath::handle_packet`] and leaves on the [`Decision`]'s ports;
//!   after any call, drain [`Datapath::poll_output`] (packet-outs) and
//!   [`Datapath::poll_control`] (to the controller), and re-read
//!   [`Datapath::poll_timeout`];
//! - one [`Controller`] (e.g. [`Controller::seed000`]) with a [`topology::Topology`]
//!   built from the scenario's switch links; messages from datapath `d`
//!   go to [`Controller::handle_message`]`(now, d, msg)`, and
//!   [`Controller::poll_message`] yields `(d, msg)` for the channel to `d`;
//! - a per-datapath control channel: FIFO, a latency each way plus a
//!   processing time, so message order per channel is kept;
//! - at an AP, the WLAN's `NodeEvent::StationJoined` / `StationLeft` become
//!   [`Datapath::station_notice`] at the event's time (T0, counters sampled
//!   then); the notice delay T0->T1 is that channel's latency (or an extra
//!   configured delay before sending).

pub mod app;
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

pub use app::{App, Command, Ctx};
pub use controller::Controller;
pub use datapath::{Datapath, DatapathConfig, Decision};
pub use msg::{FlowMod, FlowModCommand, FlowRemoved, OfError, OfMessage, PacketIn, StationEvent, StationNotice};
pub use ofmatch::{Ipv4Masked, Match};
pub use types::{Action, Actions, Dpid, FlowCounters, PortNo};
