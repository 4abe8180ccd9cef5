//! Seed 000's IPMobilityManager (Algorithm 1) on the AP notices.
//!
//! Disassociation: the station leaves the device base (line 3) and its
//! entries are deleted on every datapath that holds one, i.e. every switch
//! of every path towards it (line 4: a non-strict delete of `ipv4_dst =
//! station`). The handoff is recorded with the T0 counters the notice
//! carries and the ZWA gate open (the statistics module, when present,
//! runs next and closes it to Pending).
//!
//! Association: the station is added at its new AP (line 7) and entries
//! are installed along the path from each peer that was sending to it to
//! the new AP (line 8), plus the reverse direction at the new AP.

use super::app::{App, Ctx};
use super::devices::{Handoff, ZwaGate};
use super::forwarding::install_route;
use super::msg::{FlowMod, OfMessage, StationEvent, StationNotice};
use super::ofmatch::Match;
use super::types::Dpid;

/// Seed 000's IPMobilityManager (see the module docs).
#[derive(Default)]
pub struct MobilityManager {
    /// Disassociation notices handled (handoffs started).
    pub disassociations: u64,
    /// Association notices handled.
    pub associations: u64,
    /// Flow-mod deletes sent at disassociations (one per datapath holding entries).
    pub deletes_sent: u64,
    /// Routes installed at associations, both directions per peer.
    pub routes_installed: u64,
}

impl MobilityManager {
    fn disassociated(&mut self, ctx: &mut Ctx, dpid: Dpid, n: &StationNotice) {
        self.disassociations += 1;
        let from = ctx.devices.disassociate(n.station_ip).unwrap_or((dpid, n.port));
        if let Some(d) = ctx.devices.get_mut(n.station_ip) {
            d.handoff = Some(Handoff { t0: n.at, from, t0_counters: n.counters, gate: ZwaGate::Enabled });
        }
        let mut holders = ctx.devices.take_holders(n.station_ip);
        if !holders.contains(&dpid) {
            holders.push(dpid);
            holders.sort_unstable();
        }
        for d in holders {
            let mut fm = FlowMod::delete(Match::to_host(n.station_ip));
            fm.xid = ctx.xid();
            ctx.send(d, OfMessage::FlowMod(fm));
            self.deletes_sent += 1;
        }
    }

    fn associated(&mut self, ctx: &mut Ctx, dpid: Dpid, n: &StationNotice) {
        self.associations += 1;
        ctx.devices.associate(n.station_ip, n.station_mac, (dpid, n.port));
        for peer in ctx.devices.peers_of(n.station_ip) {
            let Some(at) = ctx.devices.location(peer) else { continue };
            if install_route(ctx, peer, at, n.station_ip, None).is_some() {
                self.routes_installed += 1;
            }
            if install_route(ctx, n.station_ip, (dpid, n.port), peer, None).is_some() {
                self.routes_installed += 1;
            }
        }
    }
}

impl App for MobilityManager {
    fn name(&self) -> &'static str {
        "mobility"
    }

    fn on_station(&mut self, ctx: &mut Ctx, dpid: Dpid, n: &StationNotice) {
        match n.event {
            StationEvent::Disassociated => self.disassociated(ctx, dpid, n),
            StationEvent::Associated => self.associated(ctx, dpid, n),
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("mob_disassociations", self.disassociations),
            ("mob_associations", self.associations),
            ("mob_deletes_sent", self.deletes_sent),
            ("mob_routes_installed", self.routes_installed),
        ]
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
