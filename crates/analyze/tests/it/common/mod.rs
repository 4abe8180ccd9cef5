//! Building captures for the tests: TCP/IP packets (etherparse), link
//! headers, and pcap / pcapng files around them.
#![allow(dead_code)]

use etherparse::{PacketBuilder, TcpHeader, TcpOptionElement};

pub const CLIENT: [u8; 4] = [10, 0, 0, 1];
pub const SERVER: [u8; 4] = [10, 0, 0, 2];
pub const CPORT: u16 = 40000;
pub const SPORT: u16 = 80;

/// A TCP segment template: fill what a test needs, the rest is zero.
#[derive(Clone, Debug, Default)]
pub struct Seg {
    pub from_server: bool,
    pub seq: u32,
    pub ack: Option<u32>,
    pub syn: bool,
    pub fin: bool,
    pub rst: bool,
    pub win: u16,
    pub len: usize,
    pub opts: Vec<TcpOptionElement>,
}

/// An IPv4 datagram with the segment (payload zeros).
pub fn ipv4(s: &Seg) -> Vec<u8> {
    let (src, dst, sp, dp) = if s.from_server { (SERVER, CLIENT, SPORT, CPORT) } else { (CLIENT, SERVER, CPORT, SPORT) };
    let mut h = TcpHeader::new(sp, dp, s.seq, s.win);
    if let Some(a) = s.ack {
        h.ack = true;
        h.acknowledgment_number = a;
    }
    h.syn = s.syn;
    h.fin = s.fin;
    h.rst = s.rst;
    h.set_options(&s.opts).unwrap();
    let mut v = Vec::new();
    PacketBuilder::ipv4(src, dst, 64).tcp_header(h).write(&mut v, &vec![0u8; s.len]).unwrap();
    v
}

/// The same segment over IPv6 (addresses 2001:db8::1 and ::2).
pub fn ipv6(s: &Seg) -> Vec<u8> {
    let mut a = [0u8; 16];
    a[0] = 0x20;
    a[1] = 0x01;
    a[2] = 0x0d;
    a[3] = 0xb8;
    let (mut c, mut sv) = (a, a);
    c[15] = 1;
    sv[15] = 2;
    let (src, dst, sp, dp) = if s.from_server { (sv, c, SPORT, CPORT) } else { (c, sv, CPORT, SPORT) };
    let mut h = TcpHeader::new(sp, dp, s.seq, s.win);
    if let Some(x) = s.ack {
        h.ack = true;
        h.acknowledgment_number = x;
    }
    h.syn = s.syn;
    h.set_options(&s.opts).unwrap();
    let mut v = Vec::new();
    PacketBuilder::ipv6(src, dst, 64).tcp_header(h).write(&mut v, &vec![0u8; s.len]).unwrap();
    v
}

pub fn ethernet(ip: &[u8]) -> Vec<u8> {
    let et: u16 = if ip[0] >> 4 == 6 { 0x86dd } else { 0x0800 };
    let mut v = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1];
    v.extend_from_slice(&et.to_be_bytes());
    v.extend_from_slice(ip);
    v
}

/// Linux cooked capture v1: packet type, ARPHRD, address length, address (8), protocol.
pub fn sll(ip: &[u8]) -> Vec<u8> {
    let mut v = vec![0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, 0x08, 0x00];
    v.extend_from_slice(ip);
    v
}

/// Linux cooked capture v2: protocol, reserved, ifindex, ARPHRD, type, address length, address (8).
pub fn sll2(ip: &[u8]) -> Vec<u8> {
    let mut v = vec![0x08, 0x00, 0, 0, 0, 0, 0, 2, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0];
    v.extend_from_slice(ip);
    v
}

/// Radiotap (8-byte header, no fields) + 802.11 QoS data frame (to DS) + LLC/SNAP.
pub fn radiotap_qos(ip: &[u8], seq_ctl: u16, retry: bool) -> Vec<u8> {
    let mut v = vec![0, 0, 8, 0, 0, 0, 0, 0];
    v.push(0x88); // type data (2), subtype QoS data (8)
    v.push(0x01 | if retry { 0x08 } else { 0 }); // to DS, retry bit
    v.extend_from_slice(&[0, 0]); // duration
    v.extend_from_slice(&[0xaa; 6]); // addr1 (BSSID)
    v.extend_from_slice(&[0x02, 0, 0, 0, 0, 0x11]); // addr2 (transmitter)
    v.extend_from_slice(&[0xbb; 6]); // addr3
    v.extend_from_slice(&seq_ctl.to_le_bytes());
    v.extend_from_slice(&[0, 0]); // QoS control
    v.extend_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00]);
    v.extend_from_slice(ip);
    v
}

/// A classic pcap file (little-endian), `nanos` selecting the magic.
pub fn pcap(link: u32, nanos: bool, snaplen: u32, pkts: &[(u64, Vec<u8>)]) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(&(if nanos { 0xa1b2_3c4du32 } else { 0xa1b2_c3d4 }).to_le_bytes());
    v.extend_from_slice(&2u16.to_le_bytes());
    v.extend_from_slice(&4u16.to_le_bytes());
    v.extend_from_slice(&[0; 8]);
    v.extend_from_slice(&snaplen.to_le_bytes());
    v.extend_from_slice(&link.to_le_bytes());
    for (t_ns, d) in pkts {
        let frac = if nanos { t_ns % 1_000_000_000 } else { (t_ns % 1_000_000_000) / 1000 };
        let incl = (d.len() as u32).min(snaplen);
        v.extend_from_slice(&((t_ns / 1_000_000_000) as u32).to_le_bytes());
        v.extend_from_slice(&(frac as u32).to_le_bytes());
        v.extend_from_slice(&incl.to_le_bytes());
        v.extend_from_slice(&(d.len() as u32).to_le_bytes());
        v.extend_from_slice(&d[..incl as usize]);
    }
    v
}

/// A pcapng file under construction (little-endian).
pub struct PcapNg(pub Vec<u8>);

fn block(v: &mut Vec<u8>, kind: u32, body: &[u8]) {
    let mut b = body.to_vec();
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    let len = (b.len() + 12) as u32;
    v.extend_from_slice(&kind.to_le_bytes());
    v.extend_from_slice(&len.to_le_bytes());
    v.extend_from_slice(&b);
    v.extend_from_slice(&len.to_le_bytes());
}

impl PcapNg {
    pub fn new() -> Self {
        let mut v = Vec::new();
        let mut body = Vec::new();
        body.extend_from_slice(&0x1a2b_3c4du32.to_le_bytes());
        body.extend_from_slice(&1u16.to_le_bytes());
        body.extend_from_slice(&0u16.to_le_bytes());
        body.extend_from_slice(&(-1i64).to_le_bytes());
        block(&mut v, 0x0a0d_0d0a, &body);
        PcapNg(v)
    }

    /// An interface; `tsresol` 9 for nanoseconds (default: microseconds).
    pub fn iface(&mut self, link: u16, tsresol: Option<u8>) {
        let mut body = Vec::new();
        body.extend_from_slice(&link.to_le_bytes());
        body.extend_from_slice(&0u16.to_le_bytes());
        body.extend_from_slice(&65535u32.to_le_bytes());
        if let Some(r) = tsresol {
            body.extend_from_slice(&9u16.to_le_bytes()); // if_tsresol
            body.extend_from_slice(&1u16.to_le_bytes());
            body.extend_from_slice(&[r, 0, 0, 0]);
            body.extend_from_slice(&[0, 0, 0, 0]); // opt_endofopt
        }
        block(&mut self.0, 1, &body);
    }

    /// An enhanced packet block; `ts` in the interface's units.
    pub fn packet(&mut self, iface: u32, ts: u64, data: &[u8], orig_len: u32) {
        let mut body = Vec::new();
        body.extend_from_slice(&iface.to_le_bytes());
        body.extend_from_slice(&((ts >> 32) as u32).to_le_bytes());
        body.extend_from_slice(&(ts as u32).to_le_bytes());
        body.extend_from_slice(&(data.len() as u32).to_le_bytes());
        body.extend_from_slice(&orig_len.to_le_bytes());
        body.extend_from_slice(data);
        block(&mut self.0, 6, &body);
    }
}
