//! The controller: a topology, a device manager and applications called
//! in a fixed order, as Floodlight's modules are (each listener may stop
//! the chain for a packet-in with [`Command::Stop`]).
//!
//! Inputs: [`Controller::handle_message`] for every message a datapath
//! sends (the driver adds the channel latency), [`Controller::handle_timeout`]
//! at [`Controller::poll_timeout`]. Output: [`Controller::poll_message`],
//! `(dpid, message)` pairs in the order the applications produced them.

use std::collections::VecDeque;

use airtcp_core::{IpPayload, Instant};

use super::app::{App, Command, Ctx};
use super::devices::DeviceManager;
use super::msg::{Addressed, OfMessage, PacketIn};
use super::topology::Topology;
use super::types::Dpid;

/// An SDN controller (Floodlight-shaped, see the module docs).
pub struct Controller {
    /// The switch graph: switches, inter-switch links and their ports.
    pub topo: Topology,
    /// Hosts learned from packet-ins and AP notices, with their attachment points.
    pub devices: DeviceManager,
    apps: Vec<Box<dyn App>>,
    out: VecDeque<Addressed>,
    xid: u32,
    /// Error messages received from datapaths (a sign of a faulty app).
    pub errors_seen: u64,
}

impl Controller {
    /// A controller with `topo` and no application yet (see [`Controller::add_app`]).
    pub fn new(topo: Topology) -> Controller {
        Controller { topo, devices: DeviceManager::default(), apps: Vec::new(), out: VecDeque::new(), xid: 0, errors_seen: 0 }
    }

    /// Seed 000's controller: mobility manager, statistics module (if
    /// `statistics`), ZWA module (if `zwa` is given) and reactive
    /// forwarding, in that order (each reads what the previous one set).
    /// Neither option: "bare TCP with the controller used for routing only".
    pub fn seed000(topo: Topology, statistics: bool, zwa: Option<super::zwa_core::ZwaConfig>) -> Controller {
        let mut c = Controller::new(topo);
        c.add_app(Box::new(super::mobility::MobilityManager::default()));
        if statistics {
            c.add_app(Box::new(super::stats::StatsModule::default()));
        }
        if let Some(cfg) = zwa {
            c.add_app(Box::new(super::zwa::ZwaApp::new(cfg)));
        }
        c.add_app(Box::new(super::forwarding::Forwarding::default()));
        c
    }

    /// Append an application; apps run in the order added.
    pub fn add_app(&mut self, app: Box<dyn App>) {
        self.apps.push(app);
    }

    /// The first app of type `T`.
    pub fn app<T: 'static>(&self) -> Option<&T> {
        self.apps.iter().find_map(|a| a.as_any().downcast_ref::<T>())
    }

    fn each(&mut self, now: Instant, mut f: impl FnMut(&mut dyn App, &mut Ctx) -> Command) {
        let mut ctx = Ctx { now, topo: &self.topo, devices: &mut self.devices, out: &mut self.out, xid: &mut self.xid };
        for app in self.apps.iter_mut() {
            if f(app.as_mut(), &mut ctx) == Command::Stop {
                break;
            }
        }
    }

    /// A message from datapath `dpid`.
    pub fn handle_message(&mut self, now: Instant, dpid: Dpid, msg: &OfMessage) {
        match msg {
            OfMessage::PacketIn(pi) => {
                self.learn(dpid, pi);
                self.each(now, |a, c| a.on_packet_in(c, dpid, pi));
            }
            OfMessage::FlowRemoved(fr) => self.each(now, |a, c| {
                a.on_flow_removed(c, dpid, fr);
                Command::Continue
            }),
            OfMessage::StationNotice(n) => self.each(now, |a, c| {
                a.on_station(c, dpid, n);
                Command::Continue
            }),
            OfMessage::PortStatus(ps) => self.each(now, |a, c| {
                a.on_port_status(c, dpid, ps);
                Command::Continue
            }),
            other => {
                if matches!(other, OfMessage::Error { .. }) {
                    self.errors_seen += 1;
                }
                self.each(now, |a, c| {
                    a.on_other(c, dpid, other);
                    Command::Continue
                })
            }
        }
    }

    /// DeviceManager's learning: a packet's source on a host port.
    fn learn(&mut self, dpid: Dpid, pi: &PacketIn) {
        if !self.topo.is_link_port(dpid, pi.in_port) && matches!(pi.pkt.payload, IpPayload::Tcp(_) | IpPayload::Udp(_) | IpPayload::Icmp(_)) {
            self.devices.learn_wired(pi.pkt.net_header().src, (dpid, pi.in_port));
        }
    }

    /// Next message for a datapath; drain after every input.
    pub fn poll_message(&mut self) -> Option<Addressed> {
        self.out.pop_front()
    }

    /// Earliest timer among the applications.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.apps.iter().filter_map(|a| a.poll_timeout()).min()
    }

    /// Call the timer hook of every application whose deadline has come.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.each(now, |a, c| {
            if a.poll_timeout().is_some_and(|t| t <= now) {
                a.handle_timeout(c);
            }
            Command::Continue
        });
    }

    /// Every app's counters, prefixed by nothing (names are unique per app).
    pub fn counters(&self) -> Vec<(&'static str, u64)> {
        let mut v = vec![("of_errors", self.errors_seen)];
        for a in &self.apps {
            v.extend(a.counters());
        }
        v
    }
}
