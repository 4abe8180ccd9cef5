//! The ZWA application: [`ZwaCore`] wired to OpenFlow (seed 000 §2.2).
//!
//! - A packet-in of a TCP segment for a station that is away (disassociated,
//!   handoff recorded by the mobility manager) is handled by the gate the
//!   statistics module sets: `Enabled` stores it and answers with a
//!   zero-window ACK sent as a packet-out back through the port it came in
//!   on; `Pending` stores it silently (answered once the gate opens);
//!   `Disabled` leaves it to the next app (bare TCP: no route, dropped).
//! - On the station's association (after the mobility manager reinstalled
//!   its routes) the stored segments are replayed by packet-outs on the new
//!   AP, and an entry copying the station's ACKs of each connection to the
//!   controller (`[output uplink, controller]`, priority [`ZWA_PRIORITY`])
//!   clocks the replay; it is deleted (strict) when the replay ends.
//!
//! Must run after the mobility manager and the statistics module and
//! before forwarding.

use std::collections::{BTreeMap, BTreeSet};

use airtcp_core::{ConnKey, IpPayload};

use super::app::{App, Command, Ctx};
use super::devices::ZwaGate;
use super::msg::{FlowMod, FlowModCommand, FlowRemoved, OfMessage, PacketIn, StationEvent, StationNotice};
use super::ofmatch::{Ipv4Masked, Match};
use super::types::{Action, Actions, Dpid, PortNo, OFPP_CONTROLLER};
use super::zwa_core::{ZwaConfig, ZwaCore};

/// Priority of the ACK-copy entries (above forwarding's).
pub const ZWA_PRIORITY: u16 = 200;

/// Seed 000's ZWA module as a controller application (see the module docs).
pub struct ZwaApp {
    /// The OpenFlow-free state machine that stores, acknowledges and replays.
    pub core: ZwaCore,
    /// Where to send the ACK for a connection: the datapath and port its
    /// segments came in on.
    reply_via: BTreeMap<ConnKey, (Dpid, PortNo)>,
    /// Stations with segments stored under a pending gate.
    pending: BTreeSet<[u8; 4]>,
    /// Where a station's replay goes out.
    replay_via: BTreeMap<[u8; 4], (Dpid, PortNo)>,
    /// ACK-copy entries per connection: datapath and match.
    copies: BTreeMap<ConnKey, (Dpid, Match)>,
    /// Handoffs the ZWA acted on.
    pub handoffs_zwa: u64,
    /// Handoffs left to bare TCP (the statistics module found counters differ).
    pub handoffs_bare: u64,
}

impl ZwaApp {
    /// A ZWA application with nothing stored.
    pub fn new(cfg: ZwaConfig) -> ZwaApp {
        ZwaApp {
            core: ZwaCore::new(cfg),
            reply_via: BTreeMap::new(),
            pending: BTreeSet::new(),
            replay_via: BTreeMap::new(),
            copies: BTreeMap::new(),
            handoffs_zwa: 0,
            handoffs_bare: 0,
        }
    }

    fn send_ack(ctx: &mut Ctx, via: (Dpid, PortNo), ack: airtcp_core::Packet) {
        let out = OfMessage::PacketOut { buffer_id: None, in_port: OFPP_CONTROLLER, actions: Actions::output(via.1), pkt: Some(ack) };
        ctx.send(via.0, out);
    }

    /// Answer or drop what a pending gate held, once it is decided.
    fn settle_pending(&mut self, ctx: &mut Ctx) {
        let stations: Vec<[u8; 4]> = self.pending.iter().copied().collect();
        for st in stations {
            match ctx.devices.handoff(st).map(|h| h.gate) {
                Some(ZwaGate::Pending) => continue,
                Some(ZwaGate::Enabled) => {
                    for key in self.core.flows_to(st) {
                        if let (Some(ack), Some(&via)) = (self.core.ack_for(key), self.reply_via.get(&key)) {
                            Self::send_ack(ctx, via, ack);
                        }
                    }
                }
                _ => self.core.discard(st),
            }
            self.pending.remove(&st);
        }
    }

    fn drain(&mut self, ctx: &mut Ctx) {
        while let Some(p) = self.core.poll_transmit() {
            if let Some(&(dpid, port)) = self.replay_via.get(&p.ip.dst) {
                ctx.send(dpid, OfMessage::PacketOut { buffer_id: None, in_port: OFPP_CONTROLLER, actions: Actions::output(port), pkt: Some(p) });
            }
        }
        while let Some(key) = self.core.poll_done() {
            self.reply_via.remove(&key);
            if let Some((dpid, m)) = self.copies.remove(&key) {
                let mut fm = FlowMod::add(ZWA_PRIORITY, m, Actions::DROP);
                fm.command = FlowModCommand::DeleteStrict;
                fm.xid = ctx.xid();
                ctx.send(dpid, OfMessage::FlowMod(fm));
            }
        }
    }

    /// A station that leaves during its replay: stop it and remove the
    /// ACK-copy entries at the AP it left.
    fn left_mid_replay(&mut self, ctx: &mut Ctx, st: [u8; 4]) {
        self.core.stop_replay(st);
        self.replay_via.remove(&st);
        let keys: Vec<ConnKey> = self.copies.keys().filter(|k| k.dst == st).copied().collect();
        for key in keys {
            if let Some((dpid, m)) = self.copies.remove(&key) {
                let mut fm = FlowMod::add(ZWA_PRIORITY, m, Actions::DROP);
                fm.command = FlowModCommand::DeleteStrict;
                fm.xid = ctx.xid();
                ctx.send(dpid, OfMessage::FlowMod(fm));
            }
        }
    }

    fn associated(&mut self, ctx: &mut Ctx, dpid: Dpid, n: &StationNotice) {
        let st = n.station_ip;
        let gate = ctx.devices.handoff(st).map(|h| h.gate);
        if let Some(d) = ctx.devices.get_mut(st) {
            d.handoff = None;
        }
        self.pending.remove(&st);
        match gate {
            Some(ZwaGate::Enabled) => self.handoffs_zwa += 1,
            Some(_) => {
                self.handoffs_bare += 1;
                self.core.discard(st);
                return;
            }
            None => return,
        }
        self.replay_via.insert(st, (dpid, n.port));
        for key in self.core.flows_to(st) {
            // The station's ACKs of this connection: forwarded and copied to us.
            let uplink = ctx.devices.location(key.src).and_then(|(sd, sp)| ctx.topo.route(dpid, n.port, sd, sp)).map(|r| r[0].out_port);
            let m = Match {
                in_port: Some(n.port),
                ipv4_src: Some(Ipv4Masked::host(st)),
                ipv4_dst: Some(Ipv4Masked::host(key.src)),
                ip_proto: Some(6),
                tp_src: Some(key.dst_port),
                tp_dst: Some(key.src_port),
                ..Match::ANY
            };
            // Sender's location unknown: no copy entry (a controller-only
            // one would swallow the ACKs); the replay is then clocked by its
            // own timer and ends by abandonment.
            let Some(up) = uplink else { continue };
            let actions = Actions::new(&[Action::Output(up), Action::Controller]).unwrap_or_default();
            let mut fm = FlowMod::add(ZWA_PRIORITY, m, actions);
            fm.xid = ctx.xid();
            ctx.send(dpid, OfMessage::FlowMod(fm));
            self.copies.insert(key, (dpid, m));
        }
        self.core.start_replay(ctx.now, st);
        self.drain(ctx);
    }
}

impl App for ZwaApp {
    fn name(&self) -> &'static str {
        "zwa"
    }

    fn on_packet_in(&mut self, ctx: &mut Ctx, dpid: Dpid, pi: &PacketIn) -> Command {
        let Some(key) = pi.pkt.conn_key() else { return Command::Continue };
        if !matches!(pi.pkt.payload, IpPayload::Tcp(_)) || pi.pkt.outer.is_some() {
            return Command::Continue;
        }
        // A station's ACK copied during a replay.
        if self.core.replaying(key.reversed()) {
            self.core.on_station_ack(ctx.now, &pi.pkt);
            self.drain(ctx);
            return Command::Stop;
        }
        let away = ctx.devices.get(key.dst).is_some_and(|d| d.wireless && d.at.is_none());
        let Some(h) = ctx.devices.handoff(key.dst).filter(|_| away) else { return Command::Continue };
        match h.gate {
            ZwaGate::Enabled => {
                self.reply_via.insert(key, (dpid, pi.in_port));
                if let Some(ack) = self.core.on_segment(&pi.pkt) {
                    Self::send_ack(ctx, (dpid, pi.in_port), ack);
                }
                Command::Stop
            }
            ZwaGate::Pending => {
                self.reply_via.insert(key, (dpid, pi.in_port));
                self.core.store(&pi.pkt);
                self.pending.insert(key.dst);
                Command::Stop
            }
            ZwaGate::Disabled => Command::Continue,
        }
    }

    fn on_flow_removed(&mut self, ctx: &mut Ctx, _dpid: Dpid, _fr: &FlowRemoved) {
        self.settle_pending(ctx);
    }

    fn on_station(&mut self, ctx: &mut Ctx, dpid: Dpid, n: &StationNotice) {
        match n.event {
            StationEvent::Associated => self.associated(ctx, dpid, n),
            StationEvent::Disassociated => self.left_mid_replay(ctx, n.station_ip),
        }
    }

    fn poll_timeout(&self) -> Option<airtcp_core::Instant> {
        self.core.poll_timeout()
    }

    fn handle_timeout(&mut self, ctx: &mut Ctx) {
        self.core.handle_timeout(ctx.now);
        self.drain(ctx);
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let c = self.core.counters;
        vec![
            ("zwa_handoffs", self.handoffs_zwa),
            ("zwa_handoffs_bare", self.handoffs_bare),
            ("zwa_stored", c.stored),
            ("zwa_duplicates", c.duplicates),
            ("zwa_acks", c.zw_acks),
            ("zwa_replayed", c.replayed),
            ("zwa_replay_retransmits", c.replay_retransmits),
            ("zwa_replay_timeouts", c.replay_timeouts),
            ("zwa_replays_done", c.replays_done),
            ("zwa_replays_abandoned", c.replays_abandoned),
            ("zwa_station_behind", c.station_behind),
            ("zwa_discarded", c.discarded),
        ]
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
