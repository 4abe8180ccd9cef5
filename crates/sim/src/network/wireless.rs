//! Interfaces on the wireless medium: frames out through a radio's MAC, and
//! what the medium reports (deliveries, an AP's relaying, frames the MAC is
//! done with, drops at the retry limit) back into the packet path.
//!
//! Neighbour resolution is static (ARP is not modelled): the next hop's
//! address names its interface, and that interface's radio is the MAC
//! destination.

use airtcp_agents::{Agent, IfaceId, NodeEvent};
use airtcp_core::{Frame, Instant, IpPayload, Ipv4Header, Packet, Udp, UdpMsg};
use airtcp_core::MacAddr;
use airtcp_wifi::capture::{self, RadioInfo};
use airtcp_wifi::frame::{FrameKind, MgmtBody, WifiFrame};
use airtcp_core::Ecn;
use airtcp_wifi::mac::{AirFrame, MacCounters, BROADCAST};
use airtcp_wifi::medium::WlanOutput;
use airtcp_wifi::mgmt::MgmtEvent;

use super::addr::{mask, Prefix};
use super::fib::{Origin, Route};
use super::node::NO_RADIO;
use super::any_medium::AnyMedium;
use super::medium::{Medium, RadioMedium};
use super::{Cx, Network, Tx};
use crate::events::Raw;

impl Network {
    /// Hand frame `idx` to the MAC of wireless interface `iface`.
    pub(super) fn transmit_radio(&mut self, cx: &mut Cx, now: Instant, iface: u32, idx: u32) {
        let ifc = &self.ifaces[iface as usize];
        let (radio, node, subnet, src_mac) = (ifc.radio, ifc.node as usize, ifc.subnet, ifc.mac);
        let pkt = &self.frames.get(idx).pkt;
        let dst = u32::from_be_bytes(pkt.net_header().dst);
        let bytes = pkt.ip_len();
        let da = if dst == u32::MAX || dst == (subnet.addr | !mask(subnet.len)) {
            Some(BROADCAST)
        } else {
            // The route's next hop when it names one on this interface: a
            // remote subnet's router, or (in a mesh) a neighbour toward an
            // on-link radio several hops away (`network::mesh`).
            let hop = if subnet.contains(dst) && !self.mesh_routes {
                dst
            } else {
                match self.resolve(node, dst) {
                    Some(r) if r.iface == iface && r.via != 0 => r.via,
                    _ => dst,
                }
            };
            match self.iface_of(hop).map(|j| self.ifaces[j as usize].radio) {
                Some(r) if r != NO_RADIO && r != radio => Some(r),
                _ => None,
            }
        };
        let Some(mut da) = da else {
            self.frames.remove(idx);
            self.stats.no_route += 1;
            return;
        };
        // The link-layer next hop: an 802.11 station's frames go to the AP
        // it is associated with (`RadioMedium::next_hop`).
        let m = self.ifaces[iface as usize].channel as usize;
        da = self.media[m].radio_next_hop(radio, da);
        let dst_mac = if da == BROADCAST { airtcp_core::MacAddr::BROADCAST } else { self.ifaces[self.radio_iface[da as usize] as usize].mac };
        let frame = self.frames.get_mut(idx);
        frame.l2.src = src_mac;
        frame.l2.dst = dst_mac;
        let queued = self.media[m].radio_send(now, Tx { from: radio, to: da, frame: idx, ip_bytes: bytes, ecn: &mut Ecn::NotEct });
        if !queued {
            self.frames.remove(idx);
        }
        self.arm_radio(cx, now, m);
    }

    /// A radio medium's timer (`Ev::Medium`, from [`Network::begin_medium`]):
    /// run it, then act on what it reports.
    #[inline(never)]
    pub(super) fn radio_timeout(&mut self, cx: &mut Cx, now: Instant, m: u32) {
        self.radio_wakes += 1;
        let m = m as usize;
        match &mut self.media[m] {
            AnyMedium::Wlan(w) => {
                w.handle_timeout(now);
                self.drain_radio_of(cx, now, m, AnyMedium::wlan_mut);
            }
            AnyMedium::Cells(c) => {
                Medium::handle_timeout(&mut **c, now);
                self.drain_radio_of(cx, now, m, AnyMedium::cells_mut);
            }
            AnyMedium::Link(_) => {}
        }
    }

    /// Start the radio media's management (beacons, first associations and scans).
    pub(crate) fn start_media(&mut self, cx: &mut Cx, now: Instant) {
        for m in 0..self.media.len() {
            if let Some(r) = self.media[m].radio_mut() {
                r.start();
                self.drain_radio(cx, now, m);
            }
        }
    }

    /// Act on everything radio medium `m` reported.
    fn drain_radio(&mut self, cx: &mut Cx, now: Instant, m: usize) {
        match self.media[m] {
            AnyMedium::Wlan(_) => self.drain_radio_of(cx, now, m, AnyMedium::wlan_mut),
            AnyMedium::Cells(_) => self.drain_radio_of(cx, now, m, AnyMedium::cells_mut),
            AnyMedium::Link(_) => {}
        }
    }

    /// [`Network::drain_radio`] for a medium of type `M`, which `of` picks
    /// out of the media list. The variant is matched once per wake, by the
    /// caller: each report then costs a bounds check and one discriminant
    /// test rather than a three-way match (the radio path runs about a
    /// million times in the 200-station campus benchmark).
    #[inline(always)]
    fn drain_radio_of<M, F>(&mut self, cx: &mut Cx, now: Instant, m: usize, of: F)
    where
        M: RadioMedium + ?Sized,
        F: Fn(&mut AnyMedium) -> Option<&mut M>,
    {
        while let Some(o) = of(&mut self.media[m]).and_then(|r| r.poll_output()) {
            match o {
                WlanOutput::Delivered { handle, radio } => {
                    let copy = *self.frames.get(handle);
                    let c = self.frames.insert(copy);
                    if self.coded.is_some() && self.coded_delivered(cx, now, radio, c) {
                        continue;
                    }
                    let iface = self.radio_iface[radio as usize];
                    let bytes = self.frames.get(c).pkt.ip_len();
                    if let Some(local) = self.receive(cx, now, iface, c, bytes) {
                        self.local.push_back(local);
                    }
                }
                WlanOutput::Relay { handle, radio, da } => {
                    let copy = *self.frames.get(handle);
                    let bytes = copy.pkt.ip_len();
                    let c = self.frames.insert(copy);
                    let tx = Tx { from: radio, to: da, frame: c, ip_bytes: bytes, ecn: &mut Ecn::NotEct };
                    if !of(&mut self.media[m]).is_some_and(|r| r.send(now, tx)) {
                        self.frames.remove(c);
                    }
                }
                WlanOutput::Released { handle, radio } => {
                    self.frames.remove(handle);
                    if self.release_watch.get(radio as usize).copied().unwrap_or(false) {
                        self.releases.push_back(radio);
                    }
                    if self.coded.is_some() {
                        self.coded_pump(cx, now, radio);
                    }
                }
                WlanOutput::RetryDrop { handle, radio, .. } => {
                    let iface = self.radio_iface[radio as usize] as usize;
                    let (node, local) = (self.ifaces[iface].node as usize, self.ifaces[iface].local);
                    let dst = self.frames.get(handle).pkt.net_header().dst;
                    let ev = NodeEvent::TxFailed { iface: IfaceId(local), dst };
                    self.node_event(cx, now, node, ev);
                }
                WlanOutput::Mgmt { radio, event } => {
                    cx.log.push((now, Raw::Wifi { radio, event }));
                    self.on_mgmt(cx, now, radio, event);
                }
                WlanOutput::Air { radio, frame, rx_dbm } => self.capture_air(now, m, radio, &frame, rx_dbm),
            }
        }
        let next = of(&mut self.media[m]).and_then(|r| r.poll_timeout());
        self.arm_radio_at(cx, now, m, next);
    }

    /// Report every frame radio `radio`'s MAC releases ([`Network::poll_release`]):
    /// a saturated UDP sender refills its queue then.
    pub(crate) fn watch_releases(&mut self, radio: u32) {
        if self.release_watch.len() <= radio as usize {
            self.release_watch.resize(radio as usize + 1, false);
        }
        self.release_watch[radio as usize] = true;
    }

    /// Next watched radio whose MAC released a frame.
    #[inline]
    pub(crate) fn poll_release(&mut self) -> Option<u32> {
        self.releases.pop_front()
    }

    /// Data frames in `radio`'s MAC (queued, on the air or awaiting a retry).
    pub(crate) fn radio_queue_len(&self, radio: u32) -> usize {
        self.radio_medium().map_or(0, |r| r.mac_queue_len(radio))
    }

    /// Whether `radio` is an AP (a base station of the point-to-point cells).
    pub(super) fn radio_is_ap(&self, radio: u32) -> bool {
        self.radio_medium().is_some_and(|r| r.is_ap(radio))
    }

    /// Per radio, for the summary: its MAC counters, its received signal
    /// over the run, and the AP it is attached to at `end`.
    pub(crate) fn radio_report(&self, end: Instant) -> (Vec<MacCounters>, Vec<Vec<(Instant, f32)>>, Vec<Option<u32>>) {
        let Some(r) = self.radio_medium() else { return (Vec::new(), Vec::new(), Vec::new()) };
        let n = r.radio_count() as u32;
        (
            (0..n).map(|i| r.counters(i).clone()).collect(),
            (0..n).map(|i| r.signal_series(i).to_vec()).collect(),
            (0..n).map(|i| r.ap_at_end(i, end)).collect(),
        )
    }

    fn node_event(&mut self, cx: &mut Cx, now: Instant, node: usize, ev: NodeEvent) {
        for pos in 0..self.nodes[node].agents.len() {
            let a = self.nodes[node].agents[pos] as usize;
            self.agents[a].on_node_event(now, ev);
            self.after_agent(cx, now, a);
        }
    }

    /// A management step: the node's agents hear of it; an AP announces a
    /// station that (re)associated on its wired side.
    fn on_mgmt(&mut self, cx: &mut Cx, now: Instant, radio: u32, event: MgmtEvent) {
        let iface = self.radio_iface[radio as usize] as usize;
        let (node, local) = (self.ifaces[iface].node as usize, IfaceId(self.ifaces[iface].local));
        let addr_of = |net: &Network, r: u32| net.ifaces[net.radio_iface[r as usize] as usize].addr.to_be_bytes();
        match event {
            MgmtEvent::Associated { ap, .. } => {
                let ev = NodeEvent::Associated { iface: local, ap: addr_of(self, ap) };
                self.node_event(cx, now, node, ev);
                self.radio_notices.push_back((node as u32, false));
            }
            MgmtEvent::HandoffWarning { .. } => self.radio_notices.push_back((node as u32, true)),
            // A signal scan found nothing better: the predicted handoff did
            // not happen, the station is still connected.
            MgmtEvent::Stayed { .. } => self.radio_notices.push_back((node as u32, false)),
            MgmtEvent::LinkLost { .. } => self.node_event(cx, now, node, NodeEvent::LinkLost { iface: local }),
            MgmtEvent::ApAssociated { sta, .. } => {
                let station = addr_of(self, sta);
                self.node_event(cx, now, node, NodeEvent::StationJoined { iface: local, station });
                let mac = self.ifaces[self.radio_iface[sta as usize] as usize].mac;
                // An AP datapath tells the controller instead of announcing.
                if !self.sdn_station(cx, now, node, local.0, station, mac, true) {
                    self.announce(cx, now, node, station);
                }
            }
            MgmtEvent::ApDisassociated { sta } => {
                let station = addr_of(self, sta);
                self.node_event(cx, now, node, NodeEvent::StationLeft { iface: local, station });
                let mac = self.ifaces[self.radio_iface[sta as usize] as usize].mac;
                self.sdn_station(cx, now, node, local.0, station, mac, false);
            }
            _ => {}
        }
    }

    /// IAPP ADD-notify (IEEE 802.11F): a broadcast from the station's
    /// address out of every wired interface of the AP.
    fn announce(&mut self, cx: &mut Cx, now: Instant, node: usize, station: [u8; 4]) {
        for k in 0..self.nodes[node].ifaces.len() {
            let i = self.nodes[node].ifaces[k];
            if self.ifaces[i as usize].radio != NO_RADIO {
                continue;
            }
            let ip_id = self.next_ip_id(node);
            let pkt = Packet {
                ip: Ipv4Header { src: station, dst: [255; 4], ttl: 1, ip_id, ..Default::default() },
                outer: None,
                payload: IpPayload::Udp(Udp { src_port: IAPP_PORT, dst_port: IAPP_PORT, msg: UdpMsg::Opaque { len: 8 } }),
            };
            let idx = self.frames.insert(Frame { l2: Default::default(), pkt });
            self.transmit(cx, now, i, idx);
        }
    }

    /// A learning node saw `src` arrive on `iface`: if `src` is a wireless
    /// station's address, route it there from now on. Returns whether the
    /// node's route to it moved.
    pub(super) fn learn(&mut self, node: usize, src: u32, iface: u32) -> bool {
        let Some(owner) = self.iface_of(src) else { return false };
        if self.ifaces[owner as usize].radio == NO_RADIO || self.ifaces[owner as usize].node as usize == node {
            return false;
        }
        let host = Prefix::new(src, 32);
        if self.nodes[node].fib.lookup(src).is_some_and(|r| r.iface == iface && r.origin == Origin::Static) {
            return false;
        }
        self.nodes[node].fib.insert(host, Route { iface, origin: Origin::Static, via: 0 });
        self.route_epoch += 1;
        self.stats.hosts_learned += 1;
        true
    }

    /// Copies of broadcast frame `idx` out of every wired interface of
    /// `node` but the one it came in on.
    pub(super) fn flood(&mut self, cx: &mut Cx, now: Instant, node: usize, from: u32, idx: u32) {
        for k in 0..self.nodes[node].ifaces.len() {
            let i = self.nodes[node].ifaces[k];
            if i == from || self.ifaces[i as usize].radio != NO_RADIO {
                continue;
            }
            let copy = *self.frames.get(idx);
            let c = self.frames.insert(copy);
            self.transmit(cx, now, i, c);
        }
    }
}

impl Network {
    /// Write a frame radio `radio` sent or received to its capture, as
    /// radiotap + 802.11 bytes (data frames carry the IP datagram).
    fn capture_air(&mut self, now: Instant, m: usize, radio: u32, f: &AirFrame, rx_dbm: f32) {
        let Some(w) = self.media[m].wlan() else { return };
        let mac = |r: u32| if r == BROADCAST { MacAddr::BROADCAST } else { self.ifaces[self.radio_iface[r as usize] as usize].mac };
        let (std, channel, preamble) = w.radio_phy(radio);
        let (src_ap, dst_ap) = (w.is_ap(f.src), f.dst != BROADCAST && w.is_ap(f.dst));
        let bssid = if src_ap {
            mac(f.src)
        } else if dst_ap {
            mac(f.dst)
        } else {
            match w.associated_ap(f.src) {
                Some(ap) => mac(ap),
                None => MacAddr::BROADCAST,
            }
        };
        let (to_ds, from_ds) = if f.kind == FrameKind::Data && f.dst != BROADCAST { (dst_ap, src_ap) } else { (false, false) };
        let addr3 = match (to_ds, from_ds) {
            (true, false) => mac(f.da),
            _ => bssid,
        };
        let body = f.kind.is_mgmt().then(|| {
            Box::new(MgmtBody {
                ssid: w.ssid(f.info.ssid).unwrap_or("").to_string(),
                channel: f.info.channel,
                beacon_interval_tu: 100,
                auth_seq: f.info.auth_seq,
                status: f.info.status,
                reason: f.info.reason,
                aid: f.info.aid,
                current_ap: MacAddr::default(),
            })
        });
        let wf = WifiFrame {
            kind: f.kind,
            duration_us: (f.nav.as_micros().min(32_767)) as u16,
            addr1: mac(f.dst),
            addr2: mac(f.src),
            addr3,
            seq: f.seq,
            retry: f.retry,
            to_ds,
            from_ds,
            body,
            payload_len: 0,
        };
        let five = std == airtcp_wifi::phy::Standard::A;
        let tx_dbm = w.radio_tx_power(radio);
        let info = RadioInfo {
            rate_500kbps: (f.rate.kbps / 500).min(255) as u8,
            freq_mhz: capture::channel_freq_mhz(channel, five),
            ofdm: f.rate.is_ofdm(),
            five_ghz: five,
            signal_dbm: if rx_dbm.is_nan() { tx_dbm } else { rx_dbm }.clamp(-127.0, 127.0) as i8,
            noise_dbm: -94,
            short_preamble: preamble == airtcp_wifi::phy::Preamble::Short,
            rates: match std {
                airtcp_wifi::phy::Standard::A => capture::RATES_11A,
                airtcp_wifi::phy::Standard::B => capture::RATES_11B,
                airtcp_wifi::phy::Standard::G => capture::RATES_11G,
            },
        };
        let mut payload = std::mem::take(&mut self.cap_payload);
        payload.clear();
        if f.kind == FrameKind::Data && f.handle != u32::MAX {
            let _ = airtcp_core::wire::encode(&self.frames.get(f.handle).pkt, &mut payload);
        }
        let mut bytes = std::mem::take(&mut self.cap_bytes);
        bytes.clear();
        capture::encode(&wf, &info, &payload, &mut bytes);
        if let Some(p) = self.pcap.as_mut() {
            p.air(radio as usize, now, &bytes);
        }
        self.cap_payload = payload;
        self.cap_bytes = bytes;
    }
}

/// Whether `pkt` is an AP's IAPP announcement.
pub(super) fn is_iapp(pkt: &Packet) -> bool {
    matches!(pkt.payload, IpPayload::Udp(Udp { dst_port: IAPP_PORT, .. }))
}

/// UDP port of IAPP (IEEE 802.11F), whose ADD-notify an AP broadcasts on
/// its wired side when a station (re)associates, so that switches learn
/// where the station now is.
pub const IAPP_PORT: u16 = 3517;
