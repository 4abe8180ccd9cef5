//! Seed 000's SDN control plane in the simulator: switches and access
//! points that forward by an OpenFlow-style flow table
//! ([`airtcp_agents::sdn::Datapath`]) instead of their forwarding table, a
//! controller ([`airtcp_agents::sdn::Controller`]) reached by one
//! out-of-band control channel per datapath, and the APs' association
//! notices.
//!
//! - A frame arriving at a datapath node on interface `k` enters the table
//!   on port `k + 1` and leaves on the decision's ports (copies for more
//!   than one); nothing else of the node's packet path runs (a switch is a
//!   layer-2 device here: no TTL decrement, no agents). Frames addressed to
//!   the node itself take the ordinary path. Nodes without a datapath never
//!   reach this file: they are told apart by `DATAPATH_BIT` in the hook
//!   mask the fast path already tests.
//! - Control channel `d` is FIFO each way. A message the datapath sends at
//!   `t` is handled by the controller at `max(t + latency + processing,
//!   previous arrival)`; one the controller sends at `t` is applied at the
//!   datapath at `max(t + latency, previous)`.
//! - The WLAN's `ApDisassociated` / `ApAssociated` at an AP datapath become
//!   [`Datapath::station_notice`] at that instant (T0 / T3).
//!
//! Timeline in the event log (seed 000 Fig. 4, per handoff): `sdn_t0`
//! disassociation at the old AP, `sdn_t1` its notice at the controller,
//! `sdn_t2` the old AP's flow-removed for the station at the controller,
//! `sdn_t3` association at the new AP, `sdn_t4` its notice at the
//! controller, `sdn_t5` the first entry towards the station installed at
//! the new AP.

use std::collections::BTreeMap;

use airtcp_agents::sdn::msg::{RemovedReason, StationEvent};
use airtcp_agents::sdn::stats::StatsModule;
use airtcp_agents::sdn::zwa::ZwaApp;
use airtcp_agents::sdn::zwa_core::ZwaConfig;
use airtcp_agents::sdn::{Controller, Datapath, DatapathConfig, FlowModCommand, OfMessage};
use airtcp_core::{Duration, Frame, Instant, IpPayload, MacAddr};

use super::{Cx, Network};
use crate::engine::class;
use crate::events::{Ev, Raw};
use crate::scenario::sdn::SdnSpec;
use crate::scenario::Scenario;
use crate::summary::{DatapathSummary, SdnSummary};

/// Hook-mask bit (outside the agents' four) marking a datapath node, so the
/// fast path's existing `hooks != 0` test sends it to the general path.
pub(crate) const DATAPATH_BIT: u8 = 0x80;

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, Default)]
pub struct SdnCounters {
    pub to_controller: u64,
    pub to_datapaths: u64,
    pub flow_mods: u64,
    pub packet_ins: u64,
    pub packet_outs: u64,
    pub zwa_acks: u64,
    pub flow_removed: u64,
    pub notices: u64,
    /// Frames a datapath's table dropped (no entry, drop action or miss
    /// sent to the controller only).
    pub table_drops: u64,
}

pub struct SdnPlane {
    dp_of_node: Vec<u32>,
    node_of_dp: Vec<u32>,
    pub dps: Vec<Datapath>,
    pub ctl: Controller,
    latency: Vec<Duration>,
    processing: Vec<Duration>,
    last_up: Vec<Instant>,
    last_down: Vec<Instant>,
    /// `(time, order) -> (to controller?, datapath index, message)`.
    inflight: BTreeMap<(Instant, u64), (bool, u32, OfMessage)>,
    order: u64,
    timer: Instant,
    pub counters: SdnCounters,
    /// Statistics module decisions already logged (enabled, disabled).
    stats_seen: (u64, u64),
    /// Station -> datapath of its current AP, until the first entry towards
    /// it is installed there (T5 logged once per association).
    awaiting_t5: BTreeMap<[u8; 4], u32>,
}

impl SdnPlane {
    pub(crate) fn build(sc: &Scenario, spec: &SdnSpec) -> SdnPlane {
        let mut dp_of_node = vec![NONE; sc.nodes.len()];
        let mut node_of_dp = Vec::with_capacity(spec.switches.len());
        let mut dps = Vec::with_capacity(spec.switches.len());
        for (k, s) in spec.switches.iter().enumerate() {
            dp_of_node[s.node] = k as u32;
            node_of_dp.push(s.node as u32);
            dps.push(Datapath::new(DatapathConfig::new(k as u64 + 1)));
        }
        // The controller's topology: links whose both ends are datapaths.
        let mut topo = airtcp_agents::sdn::topology::Topology::new();
        for k in 0..dps.len() {
            topo.add_switch(k as u64 + 1);
        }
        let port = |node: usize, li: usize| crate::scenario::local_iface(&sc.links, node, li).map(|l| l + 1);
        for (li, l) in sc.links.iter().enumerate() {
            let (da, db) = (dp_of_node[l.a], dp_of_node[l.b]);
            if da == NONE || db == NONE {
                continue;
            }
            if let (Some(pa), Some(pb)) = (port(l.a, li), port(l.b, li)) {
                // Ports are distinct by construction (one per link end).
                let _ = topo.add_link(da as u64 + 1, pa, db as u64 + 1, pb);
            }
        }
        let a = spec.apps;
        let mut ctl = Controller::new(topo);
        if a.mobility {
            ctl.add_app(Box::new(airtcp_agents::sdn::mobility::MobilityManager::default()));
        }
        if a.statistics {
            ctl.add_app(Box::<StatsModule>::default());
        }
        if a.zwa {
            let cfg = ZwaConfig { replay_rto: spec.zwa_replay_rto, ..ZwaConfig::default() };
            ctl.add_app(Box::new(ZwaApp::new(cfg)));
        }
        if a.forwarding {
            ctl.add_app(Box::<airtcp_agents::sdn::forwarding::Forwarding>::default());
        }
        let n = dps.len();
        SdnPlane {
            dp_of_node,
            node_of_dp,
            dps,
            ctl,
            latency: spec.switches.iter().map(|s| s.latency).collect(),
            processing: spec.switches.iter().map(|s| s.processing).collect(),
            last_up: vec![Instant::ZERO; n],
            last_down: vec![Instant::ZERO; n],
            inflight: BTreeMap::new(),
            order: 0,
            timer: Instant::MAX,
            counters: SdnCounters::default(),
            stats_seen: (0, 0),
            awaiting_t5: BTreeMap::new(),
        }
    }

    /// The datapath index of `node`, if it runs one.
    #[inline]
    pub fn datapath_of(&self, node: usize) -> Option<usize> {
        self.dp_of_node.get(node).copied().filter(|&d| d != NONE).map(|d| d as usize)
    }

    pub fn node_of(&self, dp: usize) -> usize {
        self.node_of_dp[dp] as usize
    }

    fn send_up(&mut self, now: Instant, dp: usize, msg: OfMessage) {
        let t = (now + self.latency[dp] + self.processing[dp]).max(self.last_up[dp]);
        self.last_up[dp] = t;
        self.order += 1;
        self.counters.to_controller += 1;
        self.inflight.insert((t, self.order), (true, dp as u32, msg));
    }

    fn send_down(&mut self, now: Instant, dp: usize, msg: OfMessage) {
        let t = (now + self.latency[dp]).max(self.last_down[dp]);
        self.last_down[dp] = t;
        self.order += 1;
        self.counters.to_datapaths += 1;
        self.inflight.insert((t, self.order), (false, dp as u32, msg));
    }

    fn next_instant(&self) -> Option<Instant> {
        let mut t = self.inflight.keys().next().map(|k| k.0);
        for d in &self.dps {
            t = match (t, d.poll_timeout()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        match (t, self.ctl.poll_timeout()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// End-of-run counters for `summary.json`.
    pub(crate) fn report(&self, sc: &Scenario) -> SdnSummary {
        let c = &self.counters;
        let datapaths = self
            .dps
            .iter()
            .enumerate()
            .map(|(k, d)| {
                let dc = d.counters();
                DatapathSummary {
                    node: sc.nodes[self.node_of(k)].name.clone(),
                    dpid: d.dpid(),
                    lookups: dc.lookups,
                    matched: dc.matched,
                    packet_ins: dc.packet_ins,
                    packet_outs: dc.packet_outs,
                    errors: dc.errors,
                    flows: d.table().len() as u64,
                }
            })
            .collect();
        SdnSummary {
            messages_to_controller: c.to_controller,
            messages_to_datapaths: c.to_datapaths,
            flow_mods: c.flow_mods,
            packet_ins: c.packet_ins,
            packet_outs: c.packet_outs,
            zwa_acks: c.zwa_acks,
            flow_removed: c.flow_removed,
            station_notices: c.notices,
            table_drops: c.table_drops,
            controller: self.ctl.counters().into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            datapaths,
        }
    }
}

fn host_of(m: &airtcp_agents::sdn::Match) -> [u8; 4] {
    m.ipv4_dst.or(m.ipv4_src).map(|x| x.addr).unwrap_or([0; 4])
}

impl Network {
    /// A frame arrived on `iface` of datapath node `node`: through the
    /// table. Returns false when the frame is for the node itself (the
    /// caller takes the ordinary path).
    pub(super) fn sdn_receive(&mut self, cx: &mut Cx, now: Instant, node: usize, iface: u32, idx: u32) -> bool {
        let Some(dp) = self.sdn.as_ref().and_then(|s| s.datapath_of(node)) else { return false };
        let dst = u32::from_be_bytes(self.frames.get(idx).pkt.net_header().dst);
        if self.is_local(node, dst) {
            return false;
        }
        if dst == u32::MAX {
            self.frames.remove(idx);
            return true;
        }
        let port = self.ifaces[iface as usize].local + 1;
        let (src_mac, dst_mac) = (self.frames.get(idx).l2.src, self.frames.get(idx).l2.dst);
        let Some(sdn) = self.sdn.as_mut() else { return false };
        let d = sdn.dps[dp].handle_packet_l2(now, port, &self.frames.get(idx).pkt, Some((src_mac, dst_mac)));
        let ports = d.ports();
        if ports.is_empty() {
            sdn.counters.table_drops += 1;
            self.frames.remove(idx);
        } else {
            let mut buf = [0u32; airtcp_agents::sdn::types::MAX_ACTIONS];
            let n = ports.len();
            buf[..n].copy_from_slice(ports);
            for (i, &p) in buf[..n].iter().enumerate() {
                let f = if i + 1 == n { idx } else { self.frames.insert(*self.frames.get(idx)) };
                self.dp_output(cx, now, node, p, f);
            }
        }
        self.sdn_drain_dp(cx, now, dp);
        true
    }

    /// Frame `idx` out of datapath node `node`'s port `port`.
    fn dp_output(&mut self, cx: &mut Cx, now: Instant, node: usize, port: u32, idx: u32) {
        match port.checked_sub(1).and_then(|l| self.nodes[node].ifaces.get(l as usize)) {
            Some(&iface) => self.transmit(cx, now, iface, idx),
            None => {
                self.frames.remove(idx);
                self.stats.no_route += 1;
            }
        }
    }

    /// Act on what datapath `dp` produced: packet-outs onto its ports,
    /// messages onto its control channel.
    fn sdn_drain_dp(&mut self, cx: &mut Cx, now: Instant, dp: usize) {
        loop {
            let Some(sdn) = self.sdn.as_mut() else { return };
            let node = sdn.node_of(dp);
            if let Some((port, pkt)) = sdn.dps[dp].poll_output() {
                let idx = self.frames.insert(Frame { l2: Default::default(), pkt });
                self.dp_output(cx, now, node, port, idx);
                continue;
            }
            let Some(msg) = sdn.dps[dp].poll_control() else { break };
            sdn.send_up(now, dp, msg);
        }
        self.sdn_arm(cx, now);
    }

    /// An AP datapath's station (dis)associated (the WLAN's management step
    /// at `now`): the notice for the controller, T0 or T3.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn sdn_station(&mut self, cx: &mut Cx, now: Instant, node: usize, local: u32, station: [u8; 4], mac: MacAddr, joined: bool) -> bool {
        let Some(sdn) = self.sdn.as_mut() else { return false };
        let Some(dp) = sdn.datapath_of(node) else { return false };
        let event = if joined { StationEvent::Associated } else { StationEvent::Disassociated };
        sdn.dps[dp].station_notice(now, event, station, mac, local + 1);
        let value = if joined {
            sdn.awaiting_t5.insert(station, dp as u32);
            0
        } else {
            sdn.awaiting_t5.remove(&station);
            sdn.dps[dp].table().counters_for(&airtcp_agents::sdn::Match::to_host(station)).map_or(u64::MAX, |c| c.packets)
        };
        let kind = if joined { "sdn_t3_associated" } else { "sdn_t0_disassociated" };
        cx.log.push((now, Raw::Sdn { kind, dp: dp as u32, host: station, value }));
        self.sdn_drain_dp(cx, now, dp);
        true
    }

    /// The control plane's timer: deliver due messages, run due timeouts.
    #[inline(never)]
    pub(crate) fn on_sdn(&mut self, cx: &mut Cx, now: Instant) {
        let Some(sdn) = self.sdn.as_mut() else { return };
        if sdn.timer == now {
            sdn.timer = Instant::MAX;
        }
        loop {
            let Some(sdn) = self.sdn.as_mut() else { return };
            let Some((&key, _)) = sdn.inflight.iter().next() else { break };
            if key.0 > now {
                break;
            }
            let Some((up, dp, msg)) = sdn.inflight.remove(&key) else { break };
            let dp = dp as usize;
            if up {
                self.sdn_to_controller(cx, now, dp, msg);
            } else {
                self.sdn_to_datapath(cx, now, dp, msg);
            }
        }
        let Some(sdn) = self.sdn.as_mut() else { return };
        for dp in 0..sdn.dps.len() {
            let Some(sdn) = self.sdn.as_mut() else { return };
            if sdn.dps[dp].poll_timeout().is_some_and(|t| t <= now) {
                sdn.dps[dp].handle_timeout(now);
                self.sdn_drain_dp(cx, now, dp);
            }
        }
        let Some(sdn) = self.sdn.as_mut() else { return };
        if sdn.ctl.poll_timeout().is_some_and(|t| t <= now) {
            sdn.ctl.handle_timeout(now);
            self.sdn_drain_ctl(cx, now);
        }
        self.sdn_arm(cx, now);
    }

    fn sdn_to_controller(&mut self, cx: &mut Cx, now: Instant, dp: usize, msg: OfMessage) {
        let Some(sdn) = self.sdn.as_mut() else { return };
        let dpid = dp as u64 + 1;
        let log = match &msg {
            OfMessage::PacketIn(pi) => {
                sdn.counters.packet_ins += 1;
                let seq = pi.pkt.segment().map_or(0, |s| s.seq.0 as u64);
                Some(("sdn_packet_in", pi.pkt.net_header().dst, seq))
            }
            OfMessage::FlowRemoved(fr) => {
                sdn.counters.flow_removed += 1;
                let t2 = fr.reason == RemovedReason::Delete && fr.r#match.ipv4_dst.is_some_and(|m| m.mask == [255; 4]);
                Some((if t2 { "sdn_t2_flow_removed" } else { "sdn_flow_removed" }, host_of(&fr.r#match), fr.counters.packets))
            }
            OfMessage::StationNotice(n) => {
                sdn.counters.notices += 1;
                let kind = if n.event == StationEvent::Associated { "sdn_t4_notice" } else { "sdn_t1_notice" };
                Some((kind, n.station_ip, n.counters.map_or(u64::MAX, |c| c.packets)))
            }
            _ => None,
        };
        if let Some((kind, host, value)) = log {
            cx.log.push((now, Raw::Sdn { kind, dp: dp as u32, host, value }));
        }
        sdn.ctl.handle_message(now, dpid, &msg);
        // The statistics module's decision, if this message made one.
        if let Some(st) = sdn.ctl.app::<StatsModule>() {
            let (e, d) = (st.enabled, st.disabled);
            let host = match &msg {
                OfMessage::StationNotice(n) => n.station_ip,
                OfMessage::FlowRemoved(fr) => host_of(&fr.r#match),
                _ => [0; 4],
            };
            if e > sdn.stats_seen.0 {
                cx.log.push((now, Raw::Sdn { kind: "sdn_stats_zwa_enabled", dp: dp as u32, host, value: e }));
            }
            if d > sdn.stats_seen.1 {
                cx.log.push((now, Raw::Sdn { kind: "sdn_stats_zwa_disabled", dp: dp as u32, host, value: d }));
            }
            sdn.stats_seen = (e, d);
        }
        self.sdn_drain_ctl(cx, now);
    }

    fn sdn_to_datapath(&mut self, cx: &mut Cx, now: Instant, dp: usize, msg: OfMessage) {
        let Some(sdn) = self.sdn.as_mut() else { return };
        match &msg {
            OfMessage::FlowMod(fm) => {
                sdn.counters.flow_mods += 1;
                let host = host_of(&fm.r#match);
                let (kind, value) = match fm.command {
                    FlowModCommand::Add => ("sdn_flow_add", fm.actions.iter().find_map(|a| match a {
                        airtcp_agents::sdn::Action::Output(p) => Some(p as u64),
                        _ => None,
                    }).unwrap_or(0)),
                    FlowModCommand::Modify | FlowModCommand::ModifyStrict => ("sdn_flow_modify", 0),
                    FlowModCommand::Delete | FlowModCommand::DeleteStrict => ("sdn_flow_delete", 0),
                };
                cx.log.push((now, Raw::Sdn { kind, dp: dp as u32, host, value }));
                if fm.command == FlowModCommand::Add && fm.r#match.ipv4_dst.is_some() && sdn.awaiting_t5.get(&host) == Some(&(dp as u32)) {
                    sdn.awaiting_t5.remove(&host);
                    cx.log.push((now, Raw::Sdn { kind: "sdn_t5_routes_installed", dp: dp as u32, host, value }));
                }
            }
            OfMessage::PacketOut { pkt: Some(p), .. } => {
                sdn.counters.packet_outs += 1;
                let zwa = matches!(p.payload, IpPayload::Tcp(ref s) if s.window == 0 && s.payload_len == 0);
                let seq = p.segment().map_or(0, |s| if zwa { s.ack.0 } else { s.seq.0 } as u64);
                if zwa {
                    sdn.counters.zwa_acks += 1;
                }
                let kind = if zwa { "sdn_zwa_ack" } else { "sdn_packet_out" };
                cx.log.push((now, Raw::Sdn { kind, dp: dp as u32, host: p.net_header().dst, value: seq }));
            }
            OfMessage::PacketOut { .. } => sdn.counters.packet_outs += 1,
            _ => {}
        }
        sdn.dps[dp].handle_control(now, msg);
        self.sdn_drain_dp(cx, now, dp);
    }

    fn sdn_drain_ctl(&mut self, cx: &mut Cx, now: Instant) {
        let Some(sdn) = self.sdn.as_mut() else { return };
        while let Some((dpid, msg)) = sdn.ctl.poll_message() {
            let dp = dpid.wrapping_sub(1) as usize;
            if dp < sdn.dps.len() {
                sdn.send_down(now, dp, msg);
            }
        }
        self.sdn_arm(cx, now);
    }

    /// Queue an `Ev::Sdn` at the plane's next instant unless one is queued
    /// no later.
    pub(crate) fn sdn_arm(&mut self, cx: &mut Cx, now: Instant) {
        let end = self.end;
        let Some(sdn) = self.sdn.as_mut() else { return };
        let Some(t) = sdn.next_instant() else { return };
        let t = t.max(now);
        if t < sdn.timer && t <= end {
            sdn.timer = t;
            cx.q.push(t, class::TIMER, Ev::Sdn {});
        }
    }
}
