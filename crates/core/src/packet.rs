//! Packets beyond TCP: an IPv4 header, an optional IP-in-IP outer header
//! (RFC 2003), and a payload that is a TCP segment, a UDP datagram with a
//! typed message, or an ICMP message; a [`Frame`] adds the link-layer header.
//!
//! Packets stay small `Copy` values: the simulator moves them through slabs and
//! queues by value, and in-network agents (Snoop, Mobile IP, SDN) copy the ones
//! they keep. Payload bytes are not carried; their length is, and
//! [`crate::wire`] materialises them (as zeros) when a capture needs bytes.
//! Tunnelling is a second header, not a boxed inner packet, so an encapsulated
//! packet costs no allocation either.

use crate::coded::Coded;
use crate::mobileip::{AgentAdvert, MipMsg};
use crate::segment::Segment;

/// IPv4 header length without options.
pub const IPV4_HEADER_LEN: u32 = 20;
/// UDP header length (RFC 768).
pub const UDP_HEADER_LEN: u32 = 8;
/// ICMP echo header length (RFC 792): type, code, checksum, id, sequence.
pub const ICMP_ECHO_HEADER_LEN: u32 = 8;

/// IANA protocol numbers carried in the IPv4 protocol field.
pub mod proto {
    /// ICMP (RFC 792).
    pub const ICMP: u8 = 1;
    /// IP in IP (RFC 2003).
    pub const IPIP: u8 = 4;
    /// TCP (RFC 9293).
    pub const TCP: u8 = 6;
    /// UDP (RFC 768).
    pub const UDP: u8 = 17;
    /// Network-coded packets (MORE, TCPFender): 253, reserved for
    /// experimentation and testing (RFC 3692 §2.1, RFC 4727 §7.1).
    pub const CODED: u8 = 253;
}

/// The ECN field: the low two bits of the IPv4 TOS byte (RFC 3168 §5).
/// Discriminants are the codepoints, so `as u8` is the wire value.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
#[repr(u8)]
pub enum Ecn {
    /// Not ECN-capable: a congested queue can only drop it.
    #[default]
    NotEct = 0b00,
    /// ECN-capable, codepoint ECT(1) (RFC 3168; L4S uses it, Linux's classic
    /// ECN never sends it).
    Ect1 = 0b01,
    /// ECN-capable, codepoint ECT(0): what Linux's `INET_ECN_xmit` sets.
    Ect0 = 0b10,
    /// Congestion Experienced: set by a queue instead of dropping.
    Ce = 0b11,
}

impl Ecn {
    /// The codepoint of a TOS byte's low two bits.
    pub fn from_bits(b: u8) -> Ecn {
        match b & 0b11 {
            0b00 => Ecn::NotEct,
            0b01 => Ecn::Ect1,
            0b10 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }

    /// ECT(0), ECT(1) or CE: a queue may mark it rather than drop it
    /// (RFC 3168 §5; CE stays CE).
    #[inline]
    pub fn is_ect(self) -> bool {
        self != Ecn::NotEct
    }
}

/// The IPv4 header fields behaviour depends on; the rest (version, IHL,
/// DSCP, flags, checksum) are fixed or computed by [`crate::wire`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Ipv4Header {
    /// Source address.
    pub src: [u8; 4],
    /// Destination address.
    pub dst: [u8; 4],
    /// Time to live (RFC 791): a router that would forward the packet with
    /// TTL 1 or less drops it instead (and counts it), else decrements it.
    pub ttl: u8,
    /// Identification (RFC 791), numbered by the sending node; kept so that
    /// captures show distinct datagrams as a real stack would.
    pub ip_id: u16,
    /// ECN codepoint (RFC 3168 §5).
    pub ecn: Ecn,
}

/// A UDP message whose meaning the simulator knows. Control protocols that
/// travel over UDP (Mobile IP registration on port 434, ...) add variants here
/// with their fields, so agents match on types instead of parsing bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum UdpMsg {
    /// Application data of `len` bytes with no meaning to the network.
    Opaque {
        /// Bytes of application data.
        len: u32,
    },
    /// A datagram of a measuring UDP application (iperf's UDP test): `len`
    /// bytes of application data that begin with the sender's sequence
    /// number `seq` and its send time `sent_ns` (simulation time, ns), from
    /// which the receiver computes loss, reordering, one-way delay and
    /// jitter. On the wire the first 12 bytes are iperf 2's datagram
    /// header (32-bit id, seconds, microseconds; `crate::wire`).
    Probe {
        /// Bytes of application data, the 12-byte probe header included.
        len: u32,
        /// The sender's datagram number, from 0.
        seq: u32,
        /// Send time in simulation nanoseconds.
        sent_ns: u64,
    },
    /// A Mobile IP message on port 434 (registration, RFC 5944 §3; route
    /// optimisation, draft-ietf-mobileip-optim-11).
    Mip(MipMsg),
}

impl UdpMsg {
    /// Bytes after the UDP header.
    pub fn len(&self) -> u32 {
        match *self {
            UdpMsg::Opaque { len } | UdpMsg::Probe { len, .. } => len,
            UdpMsg::Mip(m) => m.len(),
        }
    }

    /// Whether the message carries no byte after the UDP header.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A UDP datagram (RFC 768): ports and a typed message.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Udp {
    /// Source port.
    pub src_port: u16,
    /// Destination port (434 for Mobile IP, 3517 for M-TCP's move notices).
    pub dst_port: u16,
    /// What the datagram carries.
    pub msg: UdpMsg,
}

/// ICMP messages (RFC 792), and the router advertisement carrying the
/// Mobile IP agent advertisement (RFC 1256, RFC 5944 §2.1).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Icmp {
    /// Echo request with `len` data bytes after the 8-byte header.
    EchoRequest {
        /// Identifier, chosen by the sender (one per ping session).
        id: u16,
        /// Sequence number of this request within the session.
        seq: u16,
        /// Data bytes after the header.
        len: u32,
    },
    /// Echo reply: the request's `id`, `seq` and data length returned.
    EchoReply {
        /// Identifier copied from the request.
        id: u16,
        /// Sequence number copied from the request.
        seq: u16,
        /// Data bytes after the header.
        len: u32,
    },
    /// Router advertisement with the mobility agent extension.
    AgentAdvert(AgentAdvert),
}

impl Icmp {
    /// ICMP message length, header included.
    pub fn len(&self) -> u32 {
        match *self {
            Icmp::EchoRequest { len, .. } | Icmp::EchoReply { len, .. } => ICMP_ECHO_HEADER_LEN + len,
            Icmp::AgentAdvert(a) => a.len(),
        }
    }

    /// Always false: every ICMP message has at least its header (here for
    /// clippy's `len_without_is_empty`).
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// What an IPv4 packet carries. More kinds may join; matching code outside
/// this crate must therefore keep a wildcard arm.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum IpPayload {
    /// A TCP segment.
    Tcp(Segment),
    /// A UDP datagram.
    Udp(Udp),
    /// An ICMP message.
    Icmp(Icmp),
    /// A network-coded packet or batch ACK (MORE, TCPFender).
    Coded(Coded),
}

impl Default for IpPayload {
    /// An empty TCP segment: what a recycled slot of a packet arena holds.
    fn default() -> Self {
        IpPayload::Tcp(Segment::default())
    }
}

impl IpPayload {
    /// IPv4 protocol number of this payload.
    pub fn protocol(&self) -> u8 {
        match self {
            IpPayload::Tcp(_) => proto::TCP,
            IpPayload::Udp(_) => proto::UDP,
            IpPayload::Icmp(_) => proto::ICMP,
            IpPayload::Coded(_) => proto::CODED,
        }
    }

    /// Bytes after the IPv4 header. TCP, every hop of every data packet,
    /// stays inline; the control-plane kinds go out of line.
    #[inline]
    pub fn len(&self) -> u32 {
        match self {
            IpPayload::Tcp(seg) => seg.header_len() + seg.payload_len,
            other => other.control_len(),
        }
    }

    #[inline(never)]
    fn control_len(&self) -> u32 {
        match self {
            IpPayload::Tcp(seg) => seg.header_len() + seg.payload_len,
            IpPayload::Udp(u) => UDP_HEADER_LEN + u.msg.len(),
            IpPayload::Icmp(m) => m.len(),
            IpPayload::Coded(c) => c.len(),
        }
    }

    /// Always false: every payload has at least its header (here for clippy's
    /// `len_without_is_empty`).
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// An IPv4 packet. With `outer` set it is an IP-in-IP packet (RFC 2003): the
/// outer header is the one routers see and the one whose TTL they decrement;
/// `ip` and `payload` are the inner packet, untouched until decapsulation.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Packet {
    /// The (inner) IPv4 header: end-to-end addresses.
    pub ip: Ipv4Header,
    /// The IP-in-IP outer header while tunnelled (RFC 2003), `None` otherwise.
    pub outer: Option<Ipv4Header>,
    /// What the packet carries.
    pub payload: IpPayload,
}

impl Packet {
    /// A packet carrying one TCP segment.
    pub fn tcp(src: [u8; 4], dst: [u8; 4], ttl: u8, ip_id: u16, seg: Segment) -> Packet {
        Packet { ip: Ipv4Header { src, dst, ttl, ip_id, ecn: Ecn::NotEct }, outer: None, payload: IpPayload::Tcp(seg) }
    }

    /// A packet carrying one UDP datagram.
    pub fn udp(src: [u8; 4], dst: [u8; 4], ttl: u8, ip_id: u16, udp: Udp) -> Packet {
        Packet { ip: Ipv4Header { src, dst, ttl, ip_id, ecn: Ecn::NotEct }, outer: None, payload: IpPayload::Udp(udp) }
    }

    /// The Mobile IP message, if this (inner) packet carries one.
    pub fn mip(&self) -> Option<&MipMsg> {
        match &self.payload {
            IpPayload::Udp(Udp { msg: UdpMsg::Mip(m), .. }) => Some(m),
            _ => None,
        }
    }

    /// The coded header, if this (inner) packet carries one.
    pub fn coded(&self) -> Option<&Coded> {
        match &self.payload {
            IpPayload::Coded(c) => Some(c),
            _ => None,
        }
    }

    /// The TCP segment, if this (inner) packet carries one.
    #[inline]
    pub fn segment(&self) -> Option<&Segment> {
        match &self.payload {
            IpPayload::Tcp(seg) => Some(seg),
            _ => None,
        }
    }

    /// The TCP segment for changes in place, if this (inner) packet carries one.
    #[inline]
    pub fn segment_mut(&mut self) -> Option<&mut Segment> {
        match &mut self.payload {
            IpPayload::Tcp(seg) => Some(seg),
            _ => None,
        }
    }

    /// Length of the (inner) datagram: IPv4 header + payload.
    #[inline]
    pub fn inner_len(&self) -> u32 {
        IPV4_HEADER_LEN + self.payload.len()
    }

    /// Length on the wire: the inner datagram plus the outer header when tunnelled.
    #[inline]
    pub fn ip_len(&self) -> u32 {
        self.inner_len() + if self.outer.is_some() { IPV4_HEADER_LEN } else { 0 }
    }

    /// The header routers act on: the outer one when tunnelled.
    #[inline]
    pub fn net_header(&self) -> &Ipv4Header {
        self.outer.as_ref().unwrap_or(&self.ip)
    }

    /// The header routers act on, for changes (TTL, ECN marks).
    #[inline]
    pub fn net_header_mut(&mut self) -> &mut Ipv4Header {
        match &mut self.outer {
            Some(o) => o,
            None => &mut self.ip,
        }
    }

    /// Wrap the packet in `outer` (RFC 2003 §3). Fails if it is already
    /// tunnelled: nested tunnels are not modelled. The outer header takes
    /// the inner ECN codepoint (RFC 6040 §4.1 normal mode, Linux
    /// `ip_tunnel_ecn_encap`), so queues inside the tunnel can mark it.
    pub fn encapsulate(&mut self, outer: Ipv4Header) -> Result<(), Ipv4Header> {
        match self.outer {
            Some(o) => Err(o),
            None => {
                self.outer = Some(Ipv4Header { ecn: self.ip.ecn, ..outer });
                Ok(())
            }
        }
    }

    /// Remove and return the outer header, leaving the inner packet. A CE
    /// mark the tunnel picked up moves to an ECN-capable inner header
    /// (RFC 6040 §4.2, Linux `INET_ECN_decapsulate`); a Not-ECT inner
    /// packet stays as it is.
    pub fn decapsulate(&mut self) -> Option<Ipv4Header> {
        let outer = self.outer.take()?;
        if outer.ecn == Ecn::Ce && self.ip.ecn.is_ect() {
            self.ip.ecn = Ecn::Ce;
        }
        Some(outer)
    }

    /// The packet with the given ECN codepoint on its (only) header.
    pub fn with_ecn(mut self, ecn: Ecn) -> Packet {
        self.net_header_mut().ecn = ecn;
        self
    }

    /// The TCP connection this packet belongs to, as seen from its sender.
    pub fn conn_key(&self) -> Option<ConnKey> {
        self.segment().map(|s| ConnKey { src: self.ip.src, dst: self.ip.dst, src_port: s.src_port, dst_port: s.dst_port })
    }
}

/// A TCP connection's 4-tuple in one direction.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct ConnKey {
    /// Source address.
    pub src: [u8; 4],
    /// Destination address.
    pub dst: [u8; 4],
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
}

impl ConnKey {
    /// The same connection seen from the other end.
    pub fn reversed(&self) -> ConnKey {
        ConnKey { src: self.dst, dst: self.src, src_port: self.dst_port, dst_port: self.src_port }
    }
}

/// A link-layer (IEEE 802 / Ethernet-style) address.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct MacAddr(pub [u8; 6]);

impl MacAddr {
    /// ff:ff:ff:ff:ff:ff, every station on the link.
    pub const BROADCAST: MacAddr = MacAddr([0xff; 6]);

    /// A locally administered unicast address (IEEE 802 U/L bit set, I/G
    /// clear) numbered by `n`, for interfaces the scenario does not name.
    pub fn local(n: u32) -> MacAddr {
        let b = n.to_be_bytes();
        MacAddr([0x02, 0x00, b[0], b[1], b[2], b[3]])
    }
}

/// What a frame is at the link layer. 802.11 management and control frames
/// join this enum with the WLAN work.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum L2Kind {
    /// A data frame carrying an IPv4 packet.
    #[default]
    Data,
}

/// The link-layer header of a [`Frame`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct L2Header {
    /// Transmitter address.
    pub src: MacAddr,
    /// Receiver address ([`MacAddr::BROADCAST`] for broadcasts).
    pub dst: MacAddr,
    /// What the frame is.
    pub kind: L2Kind,
    /// Sent by an agent in another host's name (M-TCP's ACKs carry the
    /// mobile's IP address): on a real LAN its link-layer source is the
    /// agent's node, so bridges must not learn the IP source's location from
    /// it. Not on the wire (Ethernet has no such bit).
    pub proxied: bool,
}

/// A link-layer frame and the packet it carries.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Frame {
    /// Link-layer header.
    pub l2: L2Header,
    /// The IPv4 packet carried.
    pub pkt: Packet,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::TcpFlags;

    fn data(len: u32) -> Packet {
        let seg = Segment { payload_len: len, timestamps: Some((1, 2)), flags: TcpFlags::ACK, ..Default::default() };
        Packet::tcp([10, 0, 0, 1], [10, 0, 0, 2], 64, 7, seg)
    }

    #[test]
    fn data_segment_with_timestamps_is_1052_bytes_of_ip() {
        // ns-3 anchor: 1000-byte payload = 1054-byte PPP frame = 1052 IP + 2 PPP.
        assert_eq!(data(1000).ip_len(), 1052);
    }

    #[test]
    fn encapsulation_adds_one_header_and_routes_on_the_outer_one() {
        let mut p = data(1000);
        let outer = Ipv4Header { src: [192, 168, 0, 1], dst: [192, 168, 9, 9], ttl: 64, ip_id: 1, ecn: Ecn::NotEct };
        p.encapsulate(outer).unwrap();
        assert_eq!(p.ip_len(), 1072);
        assert_eq!(p.net_header().dst, [192, 168, 9, 9]);
        p.net_header_mut().ttl -= 1;
        assert_eq!(p.ip.ttl, 64, "the inner TTL is untouched in the tunnel");
        assert_eq!(p.encapsulate(outer), Err(Ipv4Header { ttl: 63, ..outer }));
        assert_eq!(p.decapsulate().map(|h| h.ttl), Some(63));
        assert_eq!(p.ip_len(), 1052);
        assert_eq!(p.net_header().dst, [10, 0, 0, 2]);
    }

    #[test]
    fn tunnel_carries_ce_to_an_ect_inner_packet_only() {
        let outer = Ipv4Header { src: [192, 168, 0, 1], dst: [192, 168, 9, 9], ttl: 64, ip_id: 1, ecn: Ecn::NotEct };
        for (inner, after) in [(Ecn::Ect0, Ecn::Ce), (Ecn::NotEct, Ecn::NotEct), (Ecn::Ect1, Ecn::Ce)] {
            let mut p = data(1000).with_ecn(inner);
            p.encapsulate(outer).unwrap();
            assert_eq!(p.net_header().ecn, inner, "RFC 6040: the outer header copies the inner codepoint");
            p.net_header_mut().ecn = Ecn::Ce;
            p.decapsulate();
            assert_eq!(p.ip.ecn, after);
        }
        assert_eq!(Ecn::from_bits(0b10), Ecn::Ect0);
        assert_eq!(Ecn::Ce as u8, 3);
    }

    #[test]
    fn udp_and_icmp_lengths_count_their_headers() {
        let mut p = data(0);
        p.payload = IpPayload::Udp(Udp { src_port: 434, dst_port: 434, msg: UdpMsg::Opaque { len: 24 } });
        assert_eq!((p.ip_len(), p.payload.protocol()), (20 + 8 + 24, proto::UDP));
        p.payload = IpPayload::Icmp(Icmp::EchoRequest { id: 1, seq: 2, len: 56 });
        assert_eq!((p.ip_len(), p.payload.protocol()), (84, proto::ICMP));
        assert_eq!(p.conn_key(), None);
    }

    #[test]
    fn conn_key_reverses() {
        let k = data(1).conn_key().unwrap();
        assert_eq!(k.reversed().reversed(), k);
        assert_eq!(k.reversed().src, [10, 0, 0, 2]);
    }
}
