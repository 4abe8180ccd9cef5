//! A zero-latency fabric for controller tests: datapaths wired as the
//! controller's topology says, hosts on host ports, control messages
//! delivered at once in both directions until nothing moves.

use std::collections::{BTreeMap, VecDeque};

use airtcp_core::{Instant, MacAddr, Packet};

use super::super::controller::Controller;
use super::super::datapath::{Datapath, DatapathConfig};
use super::super::msg::{OfMessage, StationEvent};
use super::super::topology::Topology;
use super::super::types::{Dpid, PortNo};

pub const S1: Dpid = 1;
pub const S2: Dpid = 2;
pub const S3: Dpid = 3;
pub const AP1: Dpid = 11;
pub const AP2: Dpid = 12;
/// The APs' wireless port.
pub const WPORT: PortNo = 9;

/// CN on S1:1; S1:2-S2:1, S1:3-S3:1, S2:2-AP1:1, S3:2-AP2:1, S2:3-S3:3.
pub fn topo() -> Topology {
    let mut t = Topology::new();
    for (a, pa, b, pb) in [(S1, 2, S2, 1), (S1, 3, S3, 1), (S2, 2, AP1, 1), (S3, 2, AP2, 1), (S2, 3, S3, 3)] {
        t.add_link(a, pa, b, pb).unwrap();
    }
    t
}

pub struct Fabric {
    pub now: Instant,
    pub ctl: Controller,
    pub dps: BTreeMap<Dpid, Datapath>,
    /// Packets that left a host port: (dpid, port, packet).
    pub delivered: Vec<(Dpid, PortNo, Packet)>,
    /// Every control message, in order: (to_switch, dpid, msg).
    pub log: Vec<(bool, Dpid, OfMessage)>,
}

impl Fabric {
    pub fn new(ctl: Controller) -> Fabric {
        let dps = ctl.topo.switches().map(|d| (d, Datapath::new(DatapathConfig::new(d)))).collect();
        Fabric { now: Instant::ZERO, ctl, dps, delivered: Vec::new(), log: Vec::new() }
    }

    fn peer(&self, dpid: Dpid, port: PortNo) -> Option<(Dpid, PortNo)> {
        self.ctl.topo.peer(dpid, port)
    }

    /// A packet enters `dpid` on `port`; follow it through the fabric.
    pub fn send(&mut self, dpid: Dpid, port: PortNo, pkt: Packet) {
        let mut q = VecDeque::from([(dpid, port, pkt)]);
        while let Some((d, p, pkt)) = q.pop_front() {
            let Some(dp) = self.dps.get_mut(&d) else { continue };
            let dec = dp.handle_packet(self.now, p, &pkt);
            for &out in dec.ports() {
                self.emit(d, out, pkt, &mut q);
            }
            self.pump_into(&mut q);
        }
    }

    fn emit(&mut self, d: Dpid, out: PortNo, pkt: Packet, q: &mut VecDeque<(Dpid, PortNo, Packet)>) {
        match self.peer(d, out) {
            Some((nd, np)) => q.push_back((nd, np, pkt)),
            None => self.delivered.push((d, out, pkt)),
        }
    }

    /// Exchange control messages until quiet; packet-outs re-enter the fabric.
    pub fn pump(&mut self) {
        let mut q = VecDeque::new();
        self.pump_into(&mut q);
        while let Some((d, p, pkt)) = q.pop_front() {
            self.send(d, p, pkt);
        }
    }

    fn pump_into(&mut self, q: &mut VecDeque<(Dpid, PortNo, Packet)>) {
        loop {
            let mut moved = false;
            let ids: Vec<Dpid> = self.dps.keys().copied().collect();
            for d in &ids {
                while let Some(m) = self.dps.get_mut(d).unwrap().poll_control() {
                    self.log.push((false, *d, m.clone()));
                    self.ctl.handle_message(self.now, *d, &m);
                    moved = true;
                }
            }
            while let Some((d, m)) = self.ctl.poll_message() {
                self.log.push((true, d, m.clone()));
                let now = self.now;
                let outs: Vec<(PortNo, Packet)> = match self.dps.get_mut(&d) {
                    Some(dp) => {
                        dp.handle_control(now, m);
                        std::iter::from_fn(|| dp.poll_output()).collect()
                    }
                    None => Vec::new(),
                };
                for (out, pkt) in outs {
                    self.emit(d, out, pkt, q);
                }
                moved = true;
            }
            if !moved {
                break;
            }
        }
    }

    pub fn station(&mut self, ap: Dpid, ev: StationEvent, ip: [u8; 4]) {
        let now = self.now;
        self.dps.get_mut(&ap).unwrap().station_notice(now, ev, ip, MacAddr::local(ip[3] as u32), WPORT);
    }

    pub fn advance(&mut self, to: Instant) {
        self.now = to;
        for dp in self.dps.values_mut() {
            if dp.poll_timeout().is_some_and(|t| t <= to) {
                dp.handle_timeout(to);
            }
        }
        if self.ctl.poll_timeout().is_some_and(|t| t <= to) {
            self.ctl.handle_timeout(to);
        }
        self.pump();
    }

    /// Messages sent to switches since index `from`.
    pub fn sent_since(&self, from: usize) -> Vec<(Dpid, OfMessage)> {
        self.log[from..].iter().filter(|x| x.0).map(|x| (x.1, x.2.clone())).collect()
    }

    pub fn take_delivered(&mut self) -> Vec<(Dpid, PortNo, Packet)> {
        std::mem::take(&mut self.delivered)
    }
}
