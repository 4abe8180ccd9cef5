//! Real bytes of packets that came from outside the simulation (a kernel's
//! TCP in an emulated run). The network moves [`Packet`]s, which carry
//! header fields and a payload length, never bytes; this store keeps each
//! admitted datagram's bytes once, in a ring, and finds them again from the
//! packet's identity when the packet leaves the network or is captured.
//! Nothing in the packet path touches bytes: a hop costs what it costs in a
//! simulation.
//!
//! A packet leaves as it came (its bytes, with only the TTL and ECN field
//! routers changed and the IPv4 header checksum updated for them) unless an
//! agent rewrote a transport header field (M-TCP's window, a Snoop
//! duplicate-ACK suppression does not rewrite): then the headers are
//! written from the packet and the transport checksum recomputed over the
//! original payload ([`airtcp_core::wire::encode_with_payload`]). Packets
//! the network made itself (an SDN controller's zero-window ACK, a
//! simulated host's segment) have no bytes here and are encoded from their
//! fields, with zero payload bytes.

use std::collections::VecDeque;

use airtcp_core::{wire, Icmp, IpPayload, Packet, UdpMsg};
use rustc_hash::FxHashMap;

/// What identifies one transmission of a datagram: fields no router or
/// agent on the path changes for a packet it forwards.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Key {
    src: [u8; 4],
    dst: [u8; 4],
    ip_id: u16,
    proto: u8,
    /// Ports (TCP, UDP) or id and sequence (ICMP echo).
    a: u32,
    /// TCP sequence number.
    b: u32,
    /// TCP acknowledgement number.
    c: u32,
    /// TCP timestamp value (two duplicate ACKs differ there at most).
    d: u32,
    len: u32,
}

fn key(p: &Packet) -> Option<Key> {
    let (a, b, c, d) = match &p.payload {
        IpPayload::Tcp(s) => {
            ((s.src_port as u32) << 16 | s.dst_port as u32, s.seq.0, s.ack.0, s.timestamps.map_or(0, |t| t.0))
        }
        IpPayload::Udp(u) => ((u.src_port as u32) << 16 | u.dst_port as u32, 0, 0, 0),
        IpPayload::Icmp(Icmp::EchoRequest { id, seq, .. } | Icmp::EchoReply { id, seq, .. }) => {
            ((*id as u32) << 16 | *seq as u32, 0, 0, 0)
        }
        _ => return None,
    };
    Some(Key { src: p.ip.src, dst: p.ip.dst, ip_id: p.ip.ip_id, proto: p.payload.protocol(), a, b, c, d, len: p.payload.len() })
}

struct Entry {
    /// Where the datagram's bytes start in the ring, and their length.
    at: usize,
    len: usize,
    /// The packet as parsed on admission (TTL and ECN as they came).
    pkt: Packet,
}

/// How [`RealBytes::materialize`] produced a datagram.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum Origin {
    /// The admitted bytes (TTL/ECN and the IP checksum updated at most).
    Original = 0,
    /// Headers written from the packet (an agent rewrote them), payload real.
    Rewritten = 1,
    /// No bytes known: encoded from the packet's fields, zero payload.
    Synthesized = 2,
}

/// Counters of the store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RealBytesStats {
    pub admitted: u64,
    /// Entries overwritten by newer bytes: most after their packet left,
    /// some (a copy an agent keeps) before, which then leave as `Synthesized`.
    pub evicted: u64,
}

/// The ring of admitted datagrams and the index from identity to bytes.
pub struct RealBytes {
    ring: Vec<u8>,
    head: usize,
    /// Entries `(identity, ring offset)` oldest first; a record whose
    /// identity was admitted again since is stale and skipped.
    order: VecDeque<(Key, usize)>,
    index: FxHashMap<Key, Entry>,
    pub stats: RealBytesStats,
}

/// The largest datagram IPv4 can carry.
const MAX_DATAGRAM: usize = 65_535;

impl RealBytes {
    /// A store of `capacity` bytes (at least one maximal datagram). At 1 Gb/s
    /// 64 MiB hold half a second of traffic: a Snoop cache or a queue
    /// holding a packet longer than the ring turns around loses its bytes
    /// (counted as `evicted`; the packet then leaves with zero payload).
    pub fn new(capacity: usize) -> RealBytes {
        let capacity = capacity.max(2 * MAX_DATAGRAM);
        RealBytes {
            ring: vec![0; capacity],
            head: 0,
            order: VecDeque::with_capacity(capacity / 1500),
            index: FxHashMap::with_capacity_and_hasher(capacity / 1500, Default::default()),
            stats: RealBytesStats::default(),
        }
    }

    /// Parse `bytes` (one IPv4 datagram, checksums verified) and keep them.
    /// Returns the packet to inject, or why it cannot be carried.
    pub fn admit(&mut self, bytes: &[u8]) -> Result<Packet, wire::WireError> {
        let pkt = wire::decode(bytes)?;
        let total = u16::from_be_bytes([bytes[2], bytes[3]]) as usize;
        let bytes = &bytes[..total.min(bytes.len())];
        if let Some(k) = key(&pkt) {
            let at = self.reserve(bytes.len());
            self.ring[at..at + bytes.len()].copy_from_slice(bytes);
            // The same identity admitted again (a retransmission sent with
            // the same IP ID) replaces the older bytes.
            self.index.insert(k, Entry { at, len: bytes.len(), pkt });
            self.order.push_back((k, at));
            self.stats.admitted += 1;
        }
        Ok(pkt)
    }

    /// Room for `len` bytes at the head, wrapping to the start when the
    /// tail is too short (the tail's entries are then forgotten); entries
    /// the new bytes overlap are forgotten too. `order` lists entries
    /// oldest first, so the ones in the way are always at its front.
    fn reserve(&mut self, len: usize) -> usize {
        let wrapped_from = if self.head + len > self.ring.len() { Some(std::mem::replace(&mut self.head, 0)) } else { None };
        let (start, end) = (self.head, self.head + len);
        while let Some(&(k, at)) = self.order.front() {
            let live = self.index.get(&k).is_some_and(|e| e.at == at);
            let in_tail = wrapped_from.is_some_and(|h| at >= h);
            let overlaps = at < end && at + self.index.get(&k).map_or(0, |e| e.len) > start;
            if !live {
                self.order.pop_front();
            } else if in_tail || overlaps {
                self.index.remove(&k);
                self.order.pop_front();
                self.stats.evicted += 1;
            } else {
                break;
            }
        }
        self.head = end;
        start
    }

    /// The bytes `pkt` leaves with, into `out` (cleared first).
    pub fn materialize(&self, pkt: &Packet, out: &mut Vec<u8>) -> Origin {
        out.clear();
        let found = key(pkt).and_then(|k| self.index.get(&k));
        let Some(e) = found else {
            if wire::encode(pkt, out).is_err() {
                out.clear();
            }
            return Origin::Synthesized;
        };
        let orig = &self.ring[e.at..e.at + e.len];
        let mut same = e.pkt;
        same.ip.ttl = pkt.ip.ttl;
        same.ip.ecn = pkt.ip.ecn;
        if same == *pkt {
            out.extend_from_slice(orig);
            if out[8] != pkt.ip.ttl || out[1] & 3 != pkt.ip.ecn as u8 {
                out[8] = pkt.ip.ttl;
                out[1] = (out[1] & !3) | pkt.ip.ecn as u8;
                fix_ip_checksum(out);
            }
            return Origin::Original;
        }
        let payload_len = payload_len(pkt);
        let payload = &orig[orig.len().saturating_sub(payload_len)..];
        if wire::encode_with_payload(pkt, payload, out).is_err() && wire::encode(pkt, out).is_err() {
            out.clear();
        }
        Origin::Rewritten
    }
}

/// Bytes after the transport header.
fn payload_len(p: &Packet) -> usize {
    match &p.payload {
        IpPayload::Tcp(s) => s.payload_len as usize,
        IpPayload::Udp(u) => match u.msg {
            UdpMsg::Opaque { len } => len as usize,
            _ => 0,
        },
        IpPayload::Icmp(Icmp::EchoRequest { len, .. } | Icmp::EchoReply { len, .. }) => *len as usize,
        _ => 0,
    }
}

/// RFC 1071 checksum of the IPv4 header at the start of `d`, written in place.
fn fix_ip_checksum(d: &mut [u8]) {
    let ihl = ((d[0] & 0x0f) as usize * 4).min(d.len());
    d[10] = 0;
    d[11] = 0;
    let mut sum = 0u32;
    for w in d[..ihl].chunks(2) {
        sum += u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)]) as u32;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    d[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use airtcp_core::{Segment, SeqNum, TcpFlags};

    fn datagram(payload: u32, fill: u8) -> Vec<u8> {
        let seg = Segment {
            src_port: 40000,
            dst_port: 5201,
            seq: SeqNum(1000),
            ack: SeqNum(7),
            flags: TcpFlags::ACK,
            window: 500,
            timestamps: Some((11, 22)),
            payload_len: payload,
            ..Default::default()
        };
        let pkt = Packet::tcp([10, 0, 0, 1], [10, 0, 1, 2], 64, 9, seg);
        let mut buf = Vec::new();
        wire::encode_with_payload(&pkt, &vec![fill; payload as usize], &mut buf).unwrap();
        buf
    }

    #[test]
    fn forwarded_packet_leaves_with_its_bytes_and_a_new_ttl() {
        let mut rb = RealBytes::new(1 << 20);
        let bytes = datagram(100, 0xab);
        let mut pkt = rb.admit(&bytes).unwrap();
        pkt.ip.ttl -= 2;
        let mut out = Vec::new();
        assert_eq!(rb.materialize(&pkt, &mut out), Origin::Original);
        assert_eq!(out[8], 62);
        assert_eq!(&out[20..], &bytes[20..]);
        // The updated header still verifies, and decodes to the forwarded packet.
        assert_eq!(wire::decode(&out).unwrap(), pkt);
    }

    #[test]
    fn rewritten_window_keeps_the_payload_and_a_valid_checksum() {
        let mut rb = RealBytes::new(1 << 20);
        let bytes = datagram(100, 0x5a);
        let mut pkt = rb.admit(&bytes).unwrap();
        pkt.segment_mut().unwrap().window = 0;
        let mut out = Vec::new();
        assert_eq!(rb.materialize(&pkt, &mut out), Origin::Rewritten);
        assert_eq!(wire::decode(&out).unwrap(), pkt);
        assert!(out.ends_with(&[0x5a; 100]));
    }

    #[test]
    fn unknown_packet_is_synthesized() {
        let rb = RealBytes::new(1 << 20);
        let pkt = wire::decode(&datagram(10, 1)).unwrap();
        let mut out = Vec::new();
        assert_eq!(rb.materialize(&pkt, &mut out), Origin::Synthesized);
        assert!(out.ends_with(&[0; 10]));
    }

    #[test]
    fn wrapping_ring_evicts_the_oldest() {
        let mut rb = RealBytes::new(0);
        let cap = rb.ring.len();
        let mut first = None;
        for i in 0..(cap / 1000 + 10) as u32 {
            let mut b = datagram(960, 3);
            b[4..6].copy_from_slice(&(i as u16).to_be_bytes());
            b[10] = 0;
            b[11] = 0;
            fix_ip_checksum(&mut b);
            let p = rb.admit(&b).unwrap();
            first.get_or_insert(p);
        }
        assert!(rb.stats.evicted > 0);
        let mut out = Vec::new();
        assert_eq!(rb.materialize(&first.unwrap(), &mut out), Origin::Synthesized);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let mut rb = RealBytes::new(0);
        assert!(rb.admit(&[0x60, 0, 0]).is_err());
        assert!(rb.admit(&[]).is_err());
        let mut b = datagram(10, 1);
        b[30] ^= 0xff;
        assert!(matches!(rb.admit(&b), Err(wire::WireError::BadTcpChecksum { .. })));
    }

    proptest::proptest! {
        /// A kernel may write anything to its TUN: a damaged datagram (any
        /// byte changed, cut short or extended) is admitted or refused with
        /// a reason, never a panic, and whatever is admitted leaves again
        /// with bytes that decode to the packet.
        #[test]
        fn damaged_datagrams_are_admitted_or_refused_never_a_panic(
            payload in 0u32..300,
            flips in proptest::collection::vec((0usize..400, proptest::prelude::any::<u8>()), 0..4),
            cut in 0usize..400,
            extra in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..8),
        ) {
            let mut rb = RealBytes::new(0);
            let mut b = datagram(payload, 0x42);
            for (at, x) in flips {
                let n = b.len();
                b[at % n] ^= x;
            }
            b.truncate(cut.max(1));
            b.extend_from_slice(&extra);
            if let Ok(pkt) = rb.admit(&b) {
                let mut out = Vec::new();
                rb.materialize(&pkt, &mut out);
                proptest::prop_assert_eq!(wire::decode(&out).unwrap(), pkt);
            }
        }
    }
}
