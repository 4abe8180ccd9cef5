//! What a controller application is and what it sees: the [`App`] hooks
//! (a Floodlight module), the [`Ctx`] of one input and the [`Command`] that
//! may stop the chain. The controller and every application depend on this
//! leaf, not on each other.

use std::collections::VecDeque;

use airtcp_core::Instant;

use super::devices::DeviceManager;
use super::msg::{Addressed, FlowRemoved, OfMessage, PacketIn, PortStatus, StationNotice};
use super::topology::Topology;
use super::types::Dpid;

/// Floodlight's `IListener.Command`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Command {
    /// Go on to the next application.
    Continue,
    /// Skip the applications after this one for this input (it was handled).
    Stop,
}

/// What an application sees and may change while handling one input.
pub struct Ctx<'a> {
    /// The instant the input is handled at.
    pub now: Instant,
    /// The switch graph and host ports, read-only.
    pub topo: &'a Topology,
    /// What the controller knows about hosts; applications update it.
    pub devices: &'a mut DeviceManager,
    pub(super) out: &'a mut VecDeque<Addressed>,
    pub(super) xid: &'a mut u32,
}

impl Ctx<'_> {
    /// Queue a message for a datapath.
    pub fn send(&mut self, dpid: Dpid, msg: OfMessage) {
        self.out.push_back((dpid, msg));
    }

    /// A fresh transaction id.
    pub fn xid(&mut self) -> u32 {
        *self.xid = self.xid.wrapping_add(1);
        *self.xid
    }
}

/// A controller application (a Floodlight module). Every hook has a
/// default that does nothing.
pub trait App {
    /// Module name for logs and counters ("forwarding", "zwa").
    fn name(&self) -> &'static str;
    /// A packet-in from datapath `dpid`; return [`Command::Stop`] to keep later
    /// applications from seeing it.
    fn on_packet_in(&mut self, _ctx: &mut Ctx, _dpid: Dpid, _pi: &PacketIn) -> Command {
        Command::Continue
    }
    /// An entry of datapath `dpid` left its table (only entries installed with
    /// OFPFF_SEND_FLOW_REM report it).
    fn on_flow_removed(&mut self, _ctx: &mut Ctx, _dpid: Dpid, _fr: &FlowRemoved) {}
    /// An AP's association or disassociation notice.
    fn on_station(&mut self, _ctx: &mut Ctx, _dpid: Dpid, _n: &StationNotice) {}
    /// A port of datapath `dpid` went up or down.
    fn on_port_status(&mut self, _ctx: &mut Ctx, _dpid: Dpid, _ps: &PortStatus) {}
    /// Any other message (stats replies, errors, barrier replies).
    fn on_other(&mut self, _ctx: &mut Ctx, _dpid: Dpid, _msg: &OfMessage) {}
    /// When the application wants [`App::handle_timeout`]; `None`: no timer.
    fn poll_timeout(&self) -> Option<Instant> {
        None
    }
    /// Called once the time given by [`App::poll_timeout`] is reached.
    fn handle_timeout(&mut self, _ctx: &mut Ctx) {}
    /// End-of-run counters, fixed order.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
    /// Downcast support for drivers and tests that read an app's state.
    fn as_any(&self) -> &dyn std::any::Any;
}
