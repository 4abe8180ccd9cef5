//! Reactive forwarding (Floodlight's Forwarding module, IPv4 destination
//! entries): a table miss for a known, attached destination installs one
//! entry per datapath of the shortest path, matching the destination host,
//! and sends the packet on its first hop.
//!
//! Entries towards a destination are `ipv4_dst = host/32` at
//! [`FWD_PRIORITY`]; the one on the destination's own datapath (the AP of
//! a station) carries OFPFF_SEND_FLOW_REM so its counters come back when it
//! is deleted (seed 000 §2.2 step 2). The cookie is the destination address,
//! so an application can select a host's entries by cookie too.

use super::app::{App, Command, Ctx};
use super::msg::{FlowMod, OfMessage, PacketIn, OFPFF_SEND_FLOW_REM};
use super::ofmatch::Match;
use super::topology::Hop;
use super::types::{Actions, Dpid, PortNo};

/// Priority of forwarding entries.
pub const FWD_PRIORITY: u16 = 100;

/// The cookie of entries towards `ip`.
pub fn host_cookie(ip: [u8; 4]) -> u64 {
    u32::from_be_bytes(ip) as u64
}

/// Install entries towards `dst` along the route from `(a, a_port)` to
/// `dst`'s attachment, last datapath first so a packet never overtakes its
/// entries. Returns the route.
pub fn install_route(ctx: &mut Ctx, src_ip: [u8; 4], from: (Dpid, PortNo), dst: [u8; 4], idle: Option<airtcp_core::Duration>) -> Option<Vec<Hop>> {
    let to = ctx.devices.location(dst)?;
    let route = ctx.topo.route(from.0, from.1, to.0, to.1)?;
    for (i, hop) in route.iter().enumerate().rev() {
        let last = i + 1 == route.len();
        let mut fm = FlowMod::add(FWD_PRIORITY, Match::to_host(dst), Actions::output(hop.out_port));
        fm.cookie = host_cookie(dst);
        fm.idle_timeout = idle;
        fm.xid = ctx.xid();
        if last {
            fm.flags |= OFPFF_SEND_FLOW_REM;
        }
        ctx.send(hop.dpid, OfMessage::FlowMod(fm));
    }
    ctx.devices.add_route(src_ip, dst, route.iter().map(|h| h.dpid));
    Some(route)
}

/// Reactive forwarding, the last application in seed 000's chain.
#[derive(Default)]
pub struct Forwarding {
    /// Idle timeout of installed entries (`None`: permanent).
    pub idle_timeout: Option<airtcp_core::Duration>,
    /// Packet-ins answered with a route (entries installed and packet sent on).
    pub installed: u64,
    /// Packet-ins whose destination was unknown or unreachable: dropped.
    pub unroutable: u64,
}

impl App for Forwarding {
    fn name(&self) -> &'static str {
        "forwarding"
    }

    fn on_packet_in(&mut self, ctx: &mut Ctx, dpid: Dpid, pi: &PacketIn) -> Command {
        let h = pi.pkt.net_header();
        match install_route(ctx, h.src, (dpid, pi.in_port), h.dst, self.idle_timeout) {
            Some(route) => {
                self.installed += 1;
                let out = route[0].out_port;
                let pkt = if pi.buffer_id.is_some() { None } else { Some(pi.pkt) };
                ctx.send(dpid, OfMessage::PacketOut { buffer_id: pi.buffer_id, in_port: pi.in_port, actions: Actions::output(out), pkt });
            }
            None => self.unroutable += 1,
        }
        Command::Stop
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("fwd_routes_installed", self.installed), ("fwd_unroutable", self.unroutable)]
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
