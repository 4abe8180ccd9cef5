//! OpenFlow 1.3 match fields (OF 1.3.x §7.2.3, OXM), modelled as typed
//! optional fields: `None` is a wildcard, IPv4 addresses carry a bit mask.
//! Only the fields the seed's applications need are modelled: in-port,
//! Ethernet source/destination, IPv4 source/destination (masked), IP
//! protocol and TCP/UDP ports.

use airtcp_core::{IpPayload, MacAddr, Packet};

use super::types::PortNo;

/// An IPv4 address with a mask (OXM_OF_IPV4_SRC_W / _DST_W).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub struct Ipv4Masked {
    /// The address; bits outside `mask` must be 0 ([`Ipv4Masked::well_formed`]).
    pub addr: [u8; 4],
    /// The mask, network order; 1 bits must match.
    pub mask: [u8; 4],
}

impl Ipv4Masked {
    /// One host (mask /32).
    pub const fn host(addr: [u8; 4]) -> Self {
        Ipv4Masked { addr, mask: [255; 4] }
    }

    /// A prefix `addr/len` (`len` above 32 is taken as 32).
    pub fn prefix(addr: [u8; 4], len: u8) -> Self {
        let m = if len == 0 { 0 } else { u32::MAX << (32 - len.min(32) as u32) };
        Ipv4Masked { addr, mask: m.to_be_bytes() }
    }

    fn a(self) -> u32 {
        u32::from_be_bytes(self.addr)
    }
    fn m(self) -> u32 {
        u32::from_be_bytes(self.mask)
    }

    /// Whether `ip` is inside the masked range.
    pub fn matches(self, ip: [u8; 4]) -> bool {
        u32::from_be_bytes(ip) & self.m() == self.a() & self.m()
    }

    /// OF 1.3 §7.2.3.5: a value may not have bits set where the mask is 0.
    pub fn well_formed(self) -> bool {
        self.a() & !self.m() == 0
    }

    /// Every address `other` admits is admitted by `self` (self is at least as wide).
    fn covers(self, other: Ipv4Masked) -> bool {
        self.m() & other.m() == self.m() && other.a() & self.m() == self.a()
    }

    /// Some address is admitted by both.
    fn overlaps(self, other: Ipv4Masked) -> bool {
        let both = self.m() & other.m();
        self.a() & both == other.a() & both
    }
}

/// The header fields of one packet as the datapath sees them.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PacketFields {
    /// The datapath port the packet arrived on.
    pub in_port: PortNo,
    /// Ethernet source, if the packet came as a frame.
    pub eth_src: Option<MacAddr>,
    /// Ethernet destination, if the packet came as a frame.
    pub eth_dst: Option<MacAddr>,
    /// IPv4 source (the outer header for a tunnelled packet).
    pub ipv4_src: [u8; 4],
    /// IPv4 destination (the outer header for a tunnelled packet).
    pub ipv4_dst: [u8; 4],
    /// IP protocol number (4, IP-in-IP, for a tunnelled packet).
    pub ip_proto: u8,
    /// TCP/UDP ports; `None` for other protocols and for IP-in-IP packets
    /// (the switch sees the outer header only).
    pub tp_src: Option<u16>,
    /// Destination port; `None` as for `tp_src`.
    pub tp_dst: Option<u16>,
}

impl PacketFields {
    /// Fields of `pkt` arriving on `in_port`, with the link-layer addresses
    /// if the driver knows them (a frame) or none (a bare packet: a match
    /// on an Ethernet field then never hits).
    pub fn of(in_port: PortNo, pkt: &Packet, eth: Option<(MacAddr, MacAddr)>) -> Self {
        let h = pkt.net_header();
        let (proto, ports) = if pkt.outer.is_some() {
            (airtcp_core::packet::proto::IPIP, None)
        } else {
            let ports = match &pkt.payload {
                IpPayload::Tcp(s) => Some((s.src_port, s.dst_port)),
                IpPayload::Udp(u) => Some((u.src_port, u.dst_port)),
                _ => None,
            };
            (pkt.payload.protocol(), ports)
        };
        PacketFields {
            in_port,
            eth_src: eth.map(|e| e.0),
            eth_dst: eth.map(|e| e.1),
            ipv4_src: h.src,
            ipv4_dst: h.dst,
            ip_proto: proto,
            tp_src: ports.map(|p| p.0),
            tp_dst: ports.map(|p| p.1),
        }
    }
}

/// A flow match; every `None` field is wildcarded.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Match {
    /// Ingress port; `None`: any.
    pub in_port: Option<PortNo>,
    /// Ethernet source; `None`: any.
    pub eth_src: Option<MacAddr>,
    /// Ethernet destination; `None`: any.
    pub eth_dst: Option<MacAddr>,
    /// IPv4 source range; `None`: any.
    pub ipv4_src: Option<Ipv4Masked>,
    /// IPv4 destination range; `None`: any.
    pub ipv4_dst: Option<Ipv4Masked>,
    /// IP protocol number (6 TCP, 17 UDP); `None`: any. Required by a port field.
    pub ip_proto: Option<u8>,
    /// TCP/UDP source port; `None`: any.
    pub tp_src: Option<u16>,
    /// TCP/UDP destination port; `None`: any.
    pub tp_dst: Option<u16>,
}

/// Why a match is refused (OF 1.3 `ofp_bad_match_code` names).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BadMatch {
    /// A transport port without `ip_proto` TCP (6) or UDP (17) (OFPBMC_BAD_PREREQ, §7.2.3.6).
    BadPrereq,
    /// Address bits set outside the mask (OFPBMC_BAD_WILDCARDS, §7.2.3.5).
    BadWildcards,
}

fn field_eq<T: PartialEq>(m: Option<T>, v: T) -> bool {
    m.is_none_or(|x| x == v)
}

/// `wide` admits everything `narrow` admits, for one exact-valued field.
fn field_covers<T: PartialEq + Copy>(wide: Option<T>, narrow: Option<T>) -> bool {
    match (wide, narrow) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(a), Some(b)) => a == b,
    }
}

fn field_overlaps<T: PartialEq + Copy>(a: Option<T>, b: Option<T>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

fn ip_covers(wide: Option<Ipv4Masked>, narrow: Option<Ipv4Masked>) -> bool {
    match (wide, narrow) {
        (None, _) => true,
        (Some(w), None) => w.m() == 0,
        (Some(w), Some(n)) => w.covers(n),
    }
}

fn ip_overlaps(a: Option<Ipv4Masked>, b: Option<Ipv4Masked>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => x.overlaps(y),
        _ => true,
    }
}

impl Match {
    /// Everything (the table-miss match).
    pub const ANY: Match = Match {
        in_port: None,
        eth_src: None,
        eth_dst: None,
        ipv4_src: None,
        ipv4_dst: None,
        ip_proto: None,
        tp_src: None,
        tp_dst: None,
    };

    /// Packets to one IPv4 host.
    pub fn to_host(ip: [u8; 4]) -> Match {
        Match { ipv4_dst: Some(Ipv4Masked::host(ip)), ..Match::ANY }
    }

    /// Packets from one IPv4 host.
    pub fn from_host(ip: [u8; 4]) -> Match {
        Match { ipv4_src: Some(Ipv4Masked::host(ip)), ..Match::ANY }
    }

    /// The prerequisites and masks of OF 1.3 §7.2.3.5–6.
    pub fn validate(&self) -> Result<(), BadMatch> {
        if (self.tp_src.is_some() || self.tp_dst.is_some()) && !matches!(self.ip_proto, Some(6) | Some(17)) {
            return Err(BadMatch::BadPrereq);
        }
        if self.ipv4_src.is_some_and(|m| !m.well_formed()) || self.ipv4_dst.is_some_and(|m| !m.well_formed()) {
            return Err(BadMatch::BadWildcards);
        }
        Ok(())
    }

    /// The packet is admitted by this match.
    #[inline]
    pub fn matches(&self, f: &PacketFields) -> bool {
        field_eq(self.in_port, f.in_port)
            && self.eth_src.is_none_or(|m| f.eth_src == Some(m))
            && self.eth_dst.is_none_or(|m| f.eth_dst == Some(m))
            && self.ipv4_src.is_none_or(|m| m.matches(f.ipv4_src))
            && self.ipv4_dst.is_none_or(|m| m.matches(f.ipv4_dst))
            && field_eq(self.ip_proto, f.ip_proto)
            && self.tp_src.is_none_or(|p| f.tp_src == Some(p))
            && self.tp_dst.is_none_or(|p| f.tp_dst == Some(p))
    }

    /// Every packet `narrow` admits, `self` admits too: the selection rule of
    /// non-strict modify and delete (OF 1.3 §6.4: an entry is affected when
    /// it is identical to or more specific than the request's match).
    pub fn covers(&self, narrow: &Match) -> bool {
        field_covers(self.in_port, narrow.in_port)
            && field_covers(self.eth_src, narrow.eth_src)
            && field_covers(self.eth_dst, narrow.eth_dst)
            && ip_covers(self.ipv4_src, narrow.ipv4_src)
            && ip_covers(self.ipv4_dst, narrow.ipv4_dst)
            && field_covers(self.ip_proto, narrow.ip_proto)
            && field_covers(self.tp_src, narrow.tp_src)
            && field_covers(self.tp_dst, narrow.tp_dst)
    }

    /// Some packet could match both (OFPFF_CHECK_OVERLAP, OF 1.3 §6.4).
    pub fn overlaps(&self, o: &Match) -> bool {
        field_overlaps(self.in_port, o.in_port)
            && field_overlaps(self.eth_src, o.eth_src)
            && field_overlaps(self.eth_dst, o.eth_dst)
            && ip_overlaps(self.ipv4_src, o.ipv4_src)
            && ip_overlaps(self.ipv4_dst, o.ipv4_dst)
            && field_overlaps(self.ip_proto, o.ip_proto)
            && field_overlaps(self.tp_src, o.tp_src)
            && field_overlaps(self.tp_dst, o.tp_dst)
    }
}
