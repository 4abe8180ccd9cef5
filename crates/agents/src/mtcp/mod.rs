//! M-TCP's supervisor host (Brown and Singh, "M-TCP: TCP for mobile
//! cellular networks", ACM CCR 27(5), 1997, §3): the agent at the base
//! station keeps a fixed sender from backing off while its mobile receiver
//! is disconnected, without splitting the connection's semantics.
//!
//! - Every ACK the mobile sends toward the fixed host leaves with its last
//!   byte withheld (acknowledgement number − 1): the supervisor keeps one
//!   byte it may still acknowledge later, so its own ACKs are new to the
//!   sender and change the sender's window (a Linux sender takes a window
//!   change only from an ACK that is new or widens the window).
//! - When the mobile disconnects (the AP's association loss,
//!   `NodeEvent::StationLeft`), it acknowledges the withheld byte with a
//!   zero window: the sender stops, its congestion window intact, and goes
//!   to persist once nothing else is outstanding. Data that still reaches
//!   this AP for the absent mobile is not answered: a second identical
//!   zero-window ACK is a duplicate ACK to the sender, and three of them
//!   trigger its fast retransmit.
//! - When the mobile is back, the supervisor reopens the window with the
//!   mobile's last advertised window. Back on the same AP that is its own
//!   `StationJoined`; on another M-TCP AP, that AP sends a move notice to
//!   its `peers` (UDP on the IAPP port 3517 from the station's address, as
//!   IEEE 802.11F's MOVE-notify goes from the new AP to the old one), and
//!   the old supervisor, which holds the connection's state, reopens. The
//!   paper's supervisor controls several cells and needs no notice; here
//!   each AP is its own supervisor.
//!
//! The mobile's TCP is unmodified (the paper also changes it; only the
//! supervisor's half is modelled). Connections where the mobile sends data
//! are left alone (the paper's case is a download).

mod conn;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use airtcp_core::{ConnKey, Instant, IpPayload, Ipv4Header, Packet, Udp, UdpMsg};

use crate::agent::{Agent, AgentLog, Hook, HookMask, IfaceId, InjectAt, Injection, NodeEvent, Verdict};
use conn::{after, Conn};

/// UDP port of the move notice (IAPP, IEEE 802.11F).
pub const MOVE_NOTICE_PORT: u16 = 3517;
/// Bytes after the UDP header of a move notice (IAPP header and the
/// station's MAC address element).
const MOVE_NOTICE_LEN: u32 = 12;
/// TTL of what the agent sends (Linux ip_default_ttl).
const TTL: u8 = 64;

/// Where an M-TCP supervisor sits and whom it tells about moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MtcpConfig {
    /// The interface toward the mobiles (the AP's radio).
    pub wireless: IfaceId,
    /// The wired interface move notices leave on (not the radio: the peers
    /// sit on the wired side).
    pub uplink: IfaceId,
    /// Addresses of the other M-TCP APs a station may move to or from.
    pub peers: Vec<[u8; 4]>,
}

/// What an M-TCP supervisor did during a run, for the summary.
#[derive(Default, Clone, Copy, Debug, PartialEq, Eq)]
pub struct MtcpCounters {
    /// Mobile ACKs forwarded with their last byte withheld.
    pub withheld: u64,
    /// Zero-window ACKs sent at disconnection.
    pub zwa_sent: u64,
    /// Window-reopening ACKs sent on reconnection.
    pub reopen_sent: u64,
    /// Move notices sent: one per peer each time a station associates here.
    pub notices_sent: u64,
    /// Move notices received from peers (one of our stations moved away and
    /// arrived at a peer), each reopening that station's connections here.
    pub notices_received: u64,
}

/// M-TCP's supervisor host at one AP (see the module docs).
pub struct Mtcp {
    cfg: MtcpConfig,
    /// Associated stations.
    stations: BTreeSet<[u8; 4]>,
    /// Keyed by the mobile → fixed host direction.
    conns: BTreeMap<ConnKey, Conn>,
    out: VecDeque<Injection>,
    log: VecDeque<AgentLog>,
    ip_id: u16,
    /// Run counters, read by the summary and by tests.
    pub counters: MtcpCounters,
}

impl Mtcp {
    /// A supervisor with no station and no connection yet.
    pub fn new(cfg: MtcpConfig) -> Self {
        Mtcp { cfg, stations: BTreeSet::new(), conns: BTreeMap::new(), out: VecDeque::new(), log: VecDeque::new(), ip_id: 0, counters: MtcpCounters::default() }
    }

    /// Whether the agent holds `host`'s connections frozen.
    pub fn is_frozen(&self, host: [u8; 4]) -> bool {
        self.conns.iter().any(|(k, c)| k.src == host && c.frozen)
    }

    /// Connections known for `host`.
    pub fn connections(&self, host: [u8; 4]) -> usize {
        self.conns.keys().filter(|k| k.src == host).count()
    }

    fn send_ack(&mut self, key: ConnKey, window: u16) {
        let Some(c) = self.conns.get(&key) else { return };
        let seg = c.ack_segment(key.src_port, key.dst_port, window);
        self.ip_id = self.ip_id.wrapping_add(1);
        let pkt = Packet::tcp(key.src, key.dst, TTL, self.ip_id, seg);
        self.out.push_back(Injection { at: InjectAt::Route, pkt });
    }

    /// The mobile is gone: acknowledge the withheld byte with window 0.
    fn freeze(&mut self, host: [u8; 4]) {
        let keys: Vec<ConnKey> = self.conns.iter().filter(|(k, c)| k.src == host && !c.frozen && after(c.ack, c.first_ack)).map(|(k, _)| *k).collect();
        for k in keys {
            self.send_ack(k, 0);
            self.conns.get_mut(&k).expect("listed").frozen = true;
            self.counters.zwa_sent += 1;
            self.log.push_back(AgentLog { kind: "mtcp_freeze", value: 0 });
        }
    }

    /// The mobile is reachable again: reopen with its last window.
    fn release(&mut self, host: [u8; 4]) {
        let keys: Vec<ConnKey> = self.conns.iter().filter(|(k, c)| k.src == host && c.frozen).map(|(k, _)| *k).collect();
        for k in keys {
            let w = self.conns[&k].window;
            self.send_ack(k, w);
            self.conns.get_mut(&k).expect("listed").frozen = false;
            self.counters.reopen_sent += 1;
            self.log.push_back(AgentLog { kind: "mtcp_release", value: w as u64 });
        }
    }

    fn notify_peers(&mut self, station: [u8; 4]) {
        for i in 0..self.cfg.peers.len() {
            let peer = self.cfg.peers[i];
            self.ip_id = self.ip_id.wrapping_add(1);
            let pkt = Packet {
                ip: Ipv4Header { src: station, dst: peer, ttl: TTL, ip_id: self.ip_id, ..Default::default() },
                outer: None,
                payload: IpPayload::Udp(Udp { src_port: MOVE_NOTICE_PORT, dst_port: MOVE_NOTICE_PORT, msg: UdpMsg::Opaque { len: MOVE_NOTICE_LEN } }),
            };
            self.out.push_back(Injection { at: InjectAt::Egress(self.cfg.uplink), pkt });
            self.counters.notices_sent += 1;
        }
    }

    /// A segment from a station on its way to the wired side.
    fn from_mobile(&mut self, pkt: &mut Packet) {
        let Some(key) = pkt.conn_key() else { return };
        let Some(seg) = pkt.segment_mut() else { return };
        if seg.flags.rst() {
            self.conns.remove(&key);
            return;
        }
        if seg.flags.syn() || !seg.flags.ack() {
            return;
        }
        let c = self.conns.entry(key).or_insert_with(|| Conn::from_mobile(seg));
        let end = seg.seq + seg.seq_len();
        if after(end, c.seq) {
            c.seq = end;
        }
        c.mobile_sends |= seg.payload_len > 0 || seg.flags.fin();
        if !after(c.ack, seg.ack) {
            c.ack = seg.ack;
            c.window = seg.window;
        }
        if seg.timestamps.is_some() {
            c.ts = seg.timestamps;
        }
        // Talking through us again: its own ACKs carry its window.
        c.frozen = false;
        if c.may_withhold(seg.ack) {
            seg.ack = seg.ack - 1;
            self.counters.withheld += 1;
        }
        if after(seg.ack, c.fwd_ack) {
            c.fwd_ack = seg.ack;
        }
    }

    /// A segment for a station: note the connection and the fixed host's FIN.
    fn to_mobile(&mut self, pkt: &Packet) {
        let (Some(seg), Some(key)) = (pkt.segment(), pkt.conn_key()) else { return };
        let key = key.reversed();
        if seg.flags.rst() || seg.flags.syn() {
            return;
        }
        if seg.payload_len > 0 && !self.conns.contains_key(&key) && self.stations.contains(&key.src) {
            self.conns.insert(key, Conn::from_first_data(seg));
        }
        if let Some(c) = self.conns.get_mut(&key) {
            c.fin_to_mobile |= seg.flags.fin();
        }
    }
}

impl Agent for Mtcp {
    fn kind(&self) -> &'static str {
        "mtcp"
    }

    fn hooks(&self) -> HookMask {
        HookMask::FORWARD | HookMask::LOCAL_IN
    }

    fn on_packet(&mut self, _now: Instant, hook: Hook, iface: IfaceId, pkt: &mut Packet) -> Verdict {
        match hook {
            Hook::Forward if pkt.segment().is_some() => {
                if iface == self.cfg.wireless {
                    self.to_mobile(pkt);
                } else if self.stations.contains(&pkt.ip.src) {
                    self.from_mobile(pkt);
                }
                Verdict::Accept
            }
            Hook::LocalIn => match pkt.payload {
                IpPayload::Udp(Udp { dst_port: MOVE_NOTICE_PORT, .. }) => {
                    self.counters.notices_received += 1;
                    self.release(pkt.ip.src);
                    Verdict::Stolen
                }
                _ => Verdict::Accept,
            },
            _ => Verdict::Accept,
        }
    }

    fn poll_injection(&mut self) -> Option<Injection> {
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<Instant> {
        None
    }

    fn handle_timeout(&mut self, _now: Instant) {}

    fn on_node_event(&mut self, _now: Instant, ev: NodeEvent) {
        match ev {
            NodeEvent::StationLeft { iface, station } if iface == self.cfg.wireless => {
                self.stations.remove(&station);
                self.freeze(station);
            }
            NodeEvent::StationJoined { iface, station } if iface == self.cfg.wireless => {
                self.stations.insert(station);
                self.release(station);
                self.notify_peers(station);
            }
            _ => {}
        }
    }

    fn poll_log(&mut self) -> Option<AgentLog> {
        self.log.pop_front()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let c = &self.counters;
        vec![
            ("withheld", c.withheld),
            ("zwa_sent", c.zwa_sent),
            ("reopen_sent", c.reopen_sent),
            ("notices_sent", c.notices_sent),
            ("notices_received", c.notices_received),
        ]
    }
}

#[cfg(test)]
mod tests;
