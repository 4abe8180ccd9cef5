//! Host tracking, Floodlight's DeviceManager augmented as seed 000 §2.1
//! does: which host (wired or wireless) is attached where, the peers that
//! talk to it, the datapaths holding entries towards it, and the state of
//! a station's current handoff.

use std::collections::{BTreeMap, BTreeSet};

use airtcp_core::{Instant, MacAddr};

use super::types::{Dpid, FlowCounters, PortNo};

/// Whether the ZWA module acts for this handoff (seed 000 §2.2 "Tackling
/// limitations").
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ZwaGate {
    /// The statistics module has not compared T0 and T2 counters yet:
    /// segments are stored but not answered.
    Pending,
    /// Counters equal (or no statistics module): ZWA acts.
    Enabled,
    /// Counters differ: bare TCP for this handoff.
    Disabled,
}

/// A station between disassociation (T0) and the end of the replay.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Handoff {
    /// T0 as the AP reported it.
    pub t0: Instant,
    /// The AP and port the station left.
    pub from: (Dpid, PortNo),
    /// The AP's counters towards the station at T0.
    pub t0_counters: Option<FlowCounters>,
    /// Whether ZWA may answer for this handoff (set by the statistics module).
    pub gate: ZwaGate,
}

/// One host the controller knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    /// Its MAC address (all zeros for a wired host learned from a packet-in).
    pub mac: MacAddr,
    /// Current attachment; `None` while a station is disassociated.
    pub at: Option<(Dpid, PortNo)>,
    /// Whether it is a wireless station, moved only by AP notices.
    pub wireless: bool,
    /// The handoff in progress, from disassociation (T0) until the replay ends.
    pub handoff: Option<Handoff>,
}

/// Every host the controller knows, keyed by IPv4 address, with the peers
/// that send to it and the datapaths holding entries towards it.
#[derive(Clone, Debug, Default)]
pub struct DeviceManager {
    devices: BTreeMap<[u8; 4], Device>,
    /// Hosts that sent to a destination through forwarding entries.
    peers: BTreeMap<[u8; 4], BTreeSet<[u8; 4]>>,
    /// Datapaths holding entries towards a destination.
    holders: BTreeMap<[u8; 4], BTreeSet<Dpid>>,
}

impl DeviceManager {
    /// The host with address `ip`, if known.
    pub fn get(&self, ip: [u8; 4]) -> Option<&Device> {
        self.devices.get(&ip)
    }
    /// The host with address `ip`, if known, for changes.
    pub fn get_mut(&mut self, ip: [u8; 4]) -> Option<&mut Device> {
        self.devices.get_mut(&ip)
    }

    /// Where `ip` is attached now.
    pub fn location(&self, ip: [u8; 4]) -> Option<(Dpid, PortNo)> {
        self.devices.get(&ip).and_then(|d| d.at)
    }

    /// A wired host seen on a host port (learning from packet-ins). A known
    /// wireless station is never moved by a packet: only AP notices move it.
    pub fn learn_wired(&mut self, ip: [u8; 4], at: (Dpid, PortNo)) {
        let d = self.devices.entry(ip).or_insert(Device { mac: MacAddr::default(), at: None, wireless: false, handoff: None });
        if !d.wireless {
            d.at = Some(at);
        }
    }

    /// Seed 000 Algorithm 1 line 7: the station is (re)added at its AP.
    pub fn associate(&mut self, ip: [u8; 4], mac: MacAddr, at: (Dpid, PortNo)) {
        let d = self.devices.entry(ip).or_insert(Device { mac, at: None, wireless: true, handoff: None });
        d.mac = mac;
        d.wireless = true;
        d.at = Some(at);
    }

    /// Seed 000 Algorithm 1 line 3: the station is removed from its AP.
    /// Returns where it was.
    pub fn disassociate(&mut self, ip: [u8; 4]) -> Option<(Dpid, PortNo)> {
        self.devices.get_mut(&ip).and_then(|d| d.at.take())
    }

    /// Record that entries towards `dst` were installed on `dpids` for traffic
    /// from `src` (Algorithm 1 line 8 reinstalls from these peers after a move).
    pub fn add_route(&mut self, src: [u8; 4], dst: [u8; 4], dpids: impl IntoIterator<Item = Dpid>) {
        self.peers.entry(dst).or_default().insert(src);
        self.holders.entry(dst).or_default().extend(dpids);
    }

    /// Hosts that sent to `dst` through forwarding entries, in address order.
    pub fn peers_of(&self, dst: [u8; 4]) -> Vec<[u8; 4]> {
        self.peers.get(&dst).map(|s| s.iter().copied().collect()).unwrap_or_default()
    }

    /// Datapaths holding entries towards `dst`, forgotten (their entries are being deleted).
    pub fn take_holders(&mut self, dst: [u8; 4]) -> Vec<Dpid> {
        self.holders.remove(&dst).map(|s| s.into_iter().collect()).unwrap_or_default()
    }

    /// The handoff in progress of station `ip`, if any.
    pub fn handoff(&self, ip: [u8; 4]) -> Option<Handoff> {
        self.devices.get(&ip).and_then(|d| d.handoff)
    }

    /// Open or close the ZWA gate of station `ip`'s handoff (no-op without one).
    pub fn set_gate(&mut self, ip: [u8; 4], gate: ZwaGate) {
        if let Some(h) = self.devices.get_mut(&ip).and_then(|d| d.handoff.as_mut()) {
            h.gate = gate;
        }
    }
}
