//! Wi-TCP's serving agent (seed 001 §5): what the agent serving a mobile
//! host has seen of each TCP connection to it, and the EHO-ACK / EHC-ACK it
//! sends on the host's behalf.
//!
//! The signals are real TCP ACKs from the host's address and port to the
//! peer's, numbered from what the agent saw: sequence number = the host's
//! next sequence number (the highest `seq + len` the host sent, or the
//! peer's acknowledgement number before any), acknowledgement number = the
//! host's highest cumulative ACK (or, before any, the first sequence number
//! the peer sent the host, which is never beyond what it has sent), the
//! host's last window and timestamps, and the Wi-TCP option
//! ([`airtcp_core::WITCP_EXID`]). A sender without Wi-TCP takes one as a
//! duplicate ACK.
//!
//! Who sends what: EHO-ACK on the MAC's delivery failure toward the host
//! (`NodeEvent::TxFailed`), once per disappearance; EHC-ACK by the *same*
//! agent when it learns the host is reachable again: the home agent when it
//! accepts the host's registration (the seed's case HA→FA, where the seed
//! has the new foreign agent send it: a new agent has never seen the
//! connection, so cannot number it), the old foreign agent when the Binding
//! Update from the host's new location arrives (case FA→FA, as the seed).

use std::collections::{BTreeMap, BTreeSet};

use airtcp_core::{ConnKey, Packet, Segment, SeqNum, TcpFlags, WiTcp};

use super::out::{addr_value, Out};
use super::AGENT_TTL;
use crate::agent::InjectAt;

/// One connection as seen from the host's side.
#[derive(Clone, Copy, Debug)]
struct View {
    /// The host's next sequence number.
    seq: SeqNum,
    /// The host's highest cumulative acknowledgement.
    ack: SeqNum,
    window: u16,
    /// The host's last `(TSval, TSecr)`.
    ts: Option<(u32, u32)>,
    fin_from_host: bool,
    fin_to_host: bool,
}

/// Connection views of the hosts an agent serves, and which hosts are frozen.
#[derive(Default)]
pub struct WitcpServer {
    /// Keyed by the host → peer direction.
    conns: BTreeMap<ConnKey, View>,
    frozen: BTreeSet<[u8; 4]>,
    pub(crate) eho_sent: u64,
    pub(crate) ehc_sent: u64,
    pub(crate) ehn_sent: u64,
}

fn after(a: SeqNum, b: SeqNum) -> bool {
    a.diff(b) > 0
}

impl WitcpServer {
    /// A server that knows no connection and has frozen no host.
    pub fn new() -> Self {
        Self::default()
    }

    /// A segment the host sent (its ACKs, its data).
    pub fn from_host(&mut self, pkt: &Packet) {
        let (Some(seg), Some(key)) = (pkt.segment(), pkt.conn_key()) else { return };
        if seg.flags.rst() {
            self.conns.remove(&key);
            return;
        }
        let end = seg.seq + seg.seq_len();
        let v = self.conns.entry(key).or_insert(View {
            seq: end,
            ack: seg.ack,
            window: seg.window,
            ts: seg.timestamps,
            fin_from_host: false,
            fin_to_host: false,
        });
        if after(end, v.seq) {
            v.seq = end;
        }
        if seg.flags.ack() && !after(v.ack, seg.ack) {
            v.ack = seg.ack;
            v.window = seg.window;
        }
        if seg.timestamps.is_some() {
            v.ts = seg.timestamps;
        }
        v.fin_from_host |= seg.flags.fin();
    }

    /// A segment on its way to the host.
    pub fn to_host(&mut self, pkt: &Packet) {
        let (Some(seg), Some(key)) = (pkt.segment(), pkt.conn_key()) else { return };
        let key = key.reversed();
        if seg.flags.rst() {
            self.conns.remove(&key);
            return;
        }
        let v = self.conns.entry(key).or_insert(View {
            seq: seg.ack,
            ack: seg.seq,
            window: seg.window,
            ts: None,
            fin_from_host: false,
            fin_to_host: false,
        });
        v.fin_to_host |= seg.flags.fin();
    }

    /// Connections known for `host`.
    pub fn connections(&self, host: [u8; 4]) -> usize {
        self.conns.keys().filter(|k| k.src == host).count()
    }

    /// Whether `host` is frozen: an EHO-ACK went out for its connections and no
    /// EHC-ACK yet.
    pub fn is_frozen(&self, host: [u8; 4]) -> bool {
        self.frozen.contains(&host)
    }

    /// The MAC gave up on `host`: an EHO-ACK per live connection, once.
    /// Returns how many were sent.
    pub(crate) fn host_lost(&mut self, host: [u8; 4], out: &mut Out) -> usize {
        if self.frozen.contains(&host) {
            return 0;
        }
        let n = self.signal(host, WiTcp::Eho, out);
        if n > 0 {
            self.frozen.insert(host);
            self.eho_sent += n as u64;
            out.log("witcp_eho", addr_value(host));
        }
        n
    }

    /// `host` is reachable again: an EHC-ACK per connection it froze.
    pub(crate) fn host_back(&mut self, host: [u8; 4], out: &mut Out) -> usize {
        if !self.frozen.remove(&host) {
            return 0;
        }
        let n = self.signal(host, WiTcp::Ehc, out);
        self.ehc_sent += n as u64;
        out.log("witcp_ehc", addr_value(host));
        n
    }

    /// The host itself heard a new agent (the seed's [8]): an explicit
    /// handover notification per live connection. Returns how many.
    pub(crate) fn handover_notify(&mut self, host: [u8; 4], out: &mut Out) -> usize {
        let n = self.signal(host, WiTcp::Ehn, out);
        if n > 0 {
            self.ehn_sent += n as u64;
            out.log("ehn_sent", addr_value(host));
        }
        n
    }

    fn signal(&mut self, host: [u8; 4], sig: WiTcp, out: &mut Out) -> usize {
        let mut n = 0;
        for (key, v) in self.conns.iter().filter(|(k, _)| k.src == host) {
            if v.fin_from_host && v.fin_to_host {
                continue;
            }
            let seg = Segment {
                src_port: key.src_port,
                dst_port: key.dst_port,
                seq: v.seq,
                ack: v.ack,
                flags: TcpFlags::ACK,
                window: v.window,
                timestamps: v.ts,
                witcp: Some(sig),
                ..Default::default()
            };
            let ip_id = out.next_ip_id();
            out.inject(InjectAt::Route, Packet::tcp(key.src, key.dst, AGENT_TTL, ip_id, seg));
            n += 1;
        }
        n
    }
}
