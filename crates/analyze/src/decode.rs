//! From a captured frame to the TCP header fields the analysis needs.
//!
//! IP and TCP are parsed by `etherparse` in its lax mode, which accepts a
//! packet cut by the capture's snap length (header-only captures are the
//! common case). The link layers `etherparse` does not know (Linux cooked
//! SLL2, radiotap, 802.11) are stepped over here: each is a fixed or
//! self-described header length, then an EtherType.
//!
//! The payload length is the one the IP header declares, not the bytes
//! captured, so a header-only capture counts bytes exactly.

use etherparse::{
    EtherType, IpNumber, LaxNetSlice, LaxSlicedPacket, TcpOptionElement, TransportSlice,
};

/// Link-layer header types (tcpdump.org `LINKTYPE_*` numbers).
pub mod linktype {
    pub const NULL: i32 = 0;
    pub const ETHERNET: i32 = 1;
    pub const RAW: i32 = 101;
    pub const IEEE802_11: i32 = 105;
    pub const LOOP: i32 = 108;
    pub const LINUX_SLL: i32 = 113;
    pub const IEEE802_11_RADIOTAP: i32 = 127;
    pub const IPV4: i32 = 228;
    pub const IPV6: i32 = 229;
    pub const LINUX_SLL2: i32 = 276;
}

/// TCP flag bits as in the header's byte 13.
pub mod flags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const RST: u8 = 0x04;
    pub const PSH: u8 = 0x08;
    pub const ACK: u8 = 0x10;
}

/// One endpoint: an IPv4 address is stored mapped into the IPv6 space
/// (`::ffff:a.b.c.d`) so both families share one key type.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct Endpoint {
    pub addr: [u8; 16],
    pub port: u16,
}

impl Endpoint {
    /// An IPv4 endpoint (mapped into the IPv6 space).
    pub fn v4(a: [u8; 4], port: u16) -> Self {
        let mut addr = [0u8; 16];
        addr[10] = 0xff;
        addr[11] = 0xff;
        addr[12..].copy_from_slice(&a);
        Endpoint { addr, port }
    }

    /// `a.b.c.d:port` or `[v6]:port`.
    pub fn to_string_lossless(&self) -> String {
        let ip = std::net::Ipv6Addr::from(self.addr);
        match ip.to_ipv4_mapped() {
            Some(v4) => format!("{v4}:{}", self.port),
            None => format!("[{ip}]:{}", self.port),
        }
    }
}

/// An 802.11 frame's transmitter address, sequence control and Retry bit.
pub type MacFrame = ([u8; 6], u16, bool);

/// The TCP header of one packet, with what the options say.
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpInfo {
    pub src: Endpoint,
    pub dst: Endpoint,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    /// Raw 16-bit window field (not scaled).
    pub window: u16,
    /// TCP payload bytes the IP header declares.
    pub payload_len: u32,
    pub mss: Option<u16>,
    pub wscale: Option<u8>,
    pub sack_permitted: bool,
    /// (TSval, TSecr)
    pub ts: Option<(u32, u32)>,
    /// SACK blocks (left, right) as raw sequence numbers: only the first
    /// `n_sack` are meaningful.
    pub sack: [(u32, u32); 4],
    pub n_sack: u8,
    /// 802.11 frames: transmitter address, sequence control, Retry bit.
    /// The MAC repeats a frame until it is acknowledged; a repeat is the
    /// same TCP segment, not a TCP retransmission.
    pub mac: Option<MacFrame>,
}


/// Why a frame gave no TCP header. Only `Damaged` is a warning: the others
/// are simply not TCP over IP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    /// Not IP, not TCP, an IP fragment after the first, or an 802.11
    /// management/control/protected frame.
    NotTcp,
    /// A link type this reader does not know.
    UnknownLink,
    /// Claims to be IP/TCP but a header is cut or invalid.
    Damaged(&'static str),
}

/// Decode the TCP header of `data`, a frame of link type `link`, whose
/// original length on the wire was `orig_len`.
pub fn decode(link: i32, data: &[u8], orig_len: u32) -> Result<TcpInfo, Skip> {
    let mut mac = None;
    let lax = match link {
        linktype::ETHERNET => {
            LaxSlicedPacket::from_ethernet(data).map_err(|_| Skip::Damaged("Ethernet header cut"))?
        }
        linktype::RAW | linktype::IPV4 | linktype::IPV6 => from_ip(data)?,
        linktype::NULL | linktype::LOOP => {
            // 4-byte address family, host or network order (2 = AF_INET; 24/28/30 = AF_INET6).
            let rest = data.get(4..).ok_or(Skip::Damaged("loopback header cut"))?;
            from_ip(rest)?
        }
        linktype::LINUX_SLL => {
            // 16-byte header, protocol (EtherType) in bytes 14..16 (pcap-linktype(7)).
            let h = data.get(..16).ok_or(Skip::Damaged("SLL header cut"))?;
            let et = u16::from_be_bytes([h[14], h[15]]);
            LaxSlicedPacket::from_ether_type(EtherType(et), &data[16..])
        }
        linktype::LINUX_SLL2 => {
            // 20-byte header, protocol (EtherType) in bytes 0..2 (pcap-linktype(7)).
            let h = data.get(..20).ok_or(Skip::Damaged("SLL2 header cut"))?;
            let et = u16::from_be_bytes([h[0], h[1]]);
            LaxSlicedPacket::from_ether_type(EtherType(et), &data[20..])
        }
        linktype::IEEE802_11_RADIOTAP => {
            // Radiotap: version, pad, little-endian length of the whole radiotap header.
            let h = data.get(..4).ok_or(Skip::Damaged("radiotap header cut"))?;
            let len = u16::from_le_bytes([h[2], h[3]]) as usize;
            let frame = data.get(len..).ok_or(Skip::Damaged("radiotap header cut"))?;
            let (lax, m) = ieee80211(frame)?;
            mac = Some(m);
            lax
        }
        linktype::IEEE802_11 => {
            let (lax, m) = ieee80211(data)?;
            mac = Some(m);
            lax
        }
        _ => return Err(Skip::UnknownLink),
    };
    let mut info = tcp_of(&lax, orig_len, 0)?;
    info.mac = mac;
    Ok(info)
}

fn from_ip(data: &[u8]) -> Result<LaxSlicedPacket<'_>, Skip> {
    LaxSlicedPacket::from_ip(data).map_err(|_| Skip::Damaged("IP header invalid or cut"))
}

/// An 802.11 data frame (IEEE 802.11-2020 9.2.4.1): frame control, then a
/// header of 24 bytes, +6 with four addresses, +2 for QoS, +4 for HT
/// control; then an LLC/SNAP header (AA AA 03 00 00 00) and the EtherType.
fn ieee80211(f: &[u8]) -> Result<(LaxSlicedPacket<'_>, MacFrame), Skip> {
    let fc = f.get(..2).ok_or(Skip::Damaged("802.11 header cut"))?;
    let ftype = (fc[0] >> 2) & 0x3;
    let subtype = fc[0] >> 4;
    if ftype != 2 || subtype & 0x4 != 0 {
        return Err(Skip::NotTcp); // not data, or a null (no-payload) subtype
    }
    if fc[1] & 0x40 != 0 {
        return Err(Skip::NotTcp); // protected: the payload is encrypted
    }
    let mut hlen = 24;
    if fc[1] & 0x03 == 0x03 {
        hlen += 6;
    }
    let qos = subtype & 0x8 != 0;
    if qos {
        hlen += 2;
        if fc[1] & 0x80 != 0 {
            hlen += 4;
        }
    }
    let llc = f
        .get(hlen..hlen + 8)
        .ok_or(Skip::Damaged("802.11 header cut"))?;
    if llc[..6] != [0xaa, 0xaa, 0x03, 0, 0, 0] {
        return Err(Skip::NotTcp);
    }
    let et = u16::from_be_bytes([llc[6], llc[7]]);
    let mut ta = [0u8; 6];
    ta.copy_from_slice(&f[10..16]);
    let seq_ctl = u16::from_le_bytes([f[22], f[23]]);
    let retry = fc[1] & 0x08 != 0;
    Ok((
        LaxSlicedPacket::from_ether_type(EtherType(et), &f[hlen + 8..]),
        (ta, seq_ctl, retry),
    ))
}

/// IP-in-IP headers followed at most (Mobile IP uses one).
const MAX_TUNNEL_DEPTH: u8 = 4;

fn tcp_of(lax: &LaxSlicedPacket<'_>, orig_len: u32, depth: u8) -> Result<TcpInfo, Skip> {
    let (ip_start, ip_total, src, dst, proto, inner) = match &lax.net {
        Some(LaxNetSlice::Ipv4(v4)) => {
            let h = v4.header();
            // A sender-side capture with segmentation offload shows total
            // length 0: take the frame's length then (what was on the wire
            // is unknown; the capture's original length is the best bound).
            let total = match h.total_len() {
                0 => orig_len.min(65_535) as usize,
                n => n as usize,
            };
            let p = v4.payload();
            (
                h.slice().as_ptr() as usize,
                total,
                Endpoint::v4(h.source(), 0).addr,
                Endpoint::v4(h.destination(), 0).addr,
                p.ip_number,
                p.payload,
            )
        }
        Some(LaxNetSlice::Ipv6(v6)) => {
            let h = v6.header();
            let p = v6.payload();
            (
                h.slice().as_ptr() as usize,
                40 + h.payload_length() as usize,
                h.source(),
                h.destination(),
                p.ip_number,
                p.payload,
            )
        }
        _ => return Err(Skip::NotTcp),
    };
    if proto == IpNumber::IPV4 || proto == IpNumber::IPV6 {
        // IP in IP (Mobile IP tunnels): the inner datagram is what TCP sees.
        if depth >= MAX_TUNNEL_DEPTH {
            return Err(Skip::Damaged("IP tunnels nested too deep"));
        }
        let inner_lax = from_ip(inner)?;
        return tcp_of(&inner_lax, inner.len() as u32, depth + 1);
    }
    let Some(TransportSlice::Tcp(tcp)) = &lax.transport else {
        if proto == IpNumber::TCP {
            return Err(Skip::Damaged("TCP header cut"));
        }
        return Err(Skip::NotTcp);
    };
    let th = tcp.slice();
    let hlen = tcp.data_offset() as usize * 4;
    let off = th.as_ptr() as usize - ip_start;
    let payload_len = ip_total.saturating_sub(off + hlen) as u32;
    let mut info = TcpInfo {
        src: Endpoint {
            addr: src,
            port: tcp.source_port(),
        },
        dst: Endpoint {
            addr: dst,
            port: tcp.destination_port(),
        },
        seq: tcp.sequence_number(),
        ack: tcp.acknowledgment_number(),
        flags: th[13],
        window: tcp.window_size(),
        payload_len,
        ..TcpInfo::default()
    };
    for opt in tcp.options_iterator() {
        let Ok(opt) = opt else { break };
        match opt {
            TcpOptionElement::MaximumSegmentSize(m) => info.mss = Some(m),
            TcpOptionElement::WindowScale(s) => info.wscale = Some(s),
            TcpOptionElement::SelectiveAcknowledgementPermitted => info.sack_permitted = true,
            TcpOptionElement::Timestamp(v, e) => info.ts = Some((v, e)),
            TcpOptionElement::SelectiveAcknowledgement(first, rest) => {
                info.sack[0] = first;
                info.n_sack = 1;
                for b in rest.iter().flatten() {
                    info.sack[info.n_sack as usize] = *b;
                    info.n_sack += 1;
                }
            }
            TcpOptionElement::Noop => {}
        }
    }
    Ok(info)
}
