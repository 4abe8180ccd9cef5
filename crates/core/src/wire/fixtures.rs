//! Packets and byte surgery shared by the wire tests.

use super::checksum;
use super::encode;
use crate::mobileip::MipMsg;
use crate::packet::{proto, Icmp, IpPayload, Ipv4Header, Packet, Udp, UdpMsg};
use crate::segment::{Segment, TcpFlags};
use crate::seq::SeqNum;

pub(super) fn tcp_template() -> Packet {
    let seg = Segment {
        src_port: 49152,
        dst_port: 5001,
        seq: SeqNum(1000),
        ack: SeqNum(2000),
        flags: TcpFlags::ACK,
        window: 65535,
        ..Default::default()
    };
    Packet::tcp([10, 0, 0, 1], [10, 0, 1, 2], 64, 0x1234, seg)
}

/// Mobile IP registration ports (RFC 5944 §3.3), `len` message bytes.
pub(super) fn udp_template(len: u32) -> Packet {
    let udp = Udp {
        src_port: 434,
        dst_port: 434,
        msg: UdpMsg::Opaque { len },
    };
    Packet {
        payload: IpPayload::Udp(udp),
        ..tcp_template()
    }
}

/// A Mobile IP message from an ephemeral port to 434.
pub(super) fn mip_packet(m: MipMsg) -> Packet {
    let udp = Udp {
        src_port: 49200,
        dst_port: 434,
        msg: UdpMsg::Mip(m),
    };
    Packet {
        payload: IpPayload::Udp(udp),
        ..tcp_template()
    }
}

pub(super) fn icmp_packet(m: Icmp) -> Packet {
    Packet {
        payload: IpPayload::Icmp(m),
        ..tcp_template()
    }
}

/// `pkt` in an IP-in-IP tunnel from 192.168.0.1 to 192.168.9.9.
pub(super) fn tunnelled(mut pkt: Packet) -> Packet {
    pkt.outer = Some(Ipv4Header {
        src: [192, 168, 0, 1],
        dst: [192, 168, 9, 9],
        ttl: 32,
        ip_id: 0xbeef,
        ..Default::default()
    });
    pkt
}

/// One of each payload kind, bare and tunnelled.
pub(super) fn all_kinds() -> Vec<Packet> {
    let mut syn = tcp_template();
    let s = seg(&mut syn);
    s.flags = TcpFlags::SYN;
    s.mss = Some(1460);
    s.timestamps = Some((1, 0));
    s.payload_len = 100;
    let bare = [
        syn,
        udp_template(33),
        icmp_packet(Icmp::EchoRequest {
            id: 9,
            seq: 1,
            len: 56,
        }),
        icmp_packet(Icmp::EchoReply {
            id: 9,
            seq: 1,
            len: 57,
        }),
        mip_packet(MipMsg::RegRequest(Default::default())),
        icmp_packet(Icmp::AgentAdvert(Default::default())),
    ];
    bare.iter().flat_map(|&p| [p, tunnelled(p)]).collect()
}

pub(super) fn seg(pkt: &mut Packet) -> &mut Segment {
    pkt.segment_mut().expect("a TCP packet")
}

pub(super) fn encoded(pkt: &Packet) -> Vec<u8> {
    let mut buf = Vec::new();
    encode(pkt, &mut buf).unwrap();
    buf
}

/// Recompute every checksum of the datagram at `v[at]` (both headers when
/// tunnelled, then the payload's), so a test can damage a field behind the
/// checksums. Lenient: whatever does not fit is left alone; never panics.
pub(super) fn fix_checksums(v: &mut [u8], at: usize) {
    fix_datagram(v, at, true);
}

fn fix_datagram(v: &mut [u8], at: usize, may_recurse: bool) {
    let Some(&first) = v.get(at) else { return };
    let hdr_len = (first & 0x0f) as usize * 4;
    if hdr_len < 20 || v.len() < at + hdr_len {
        return;
    }
    let c = checksum::internet(&v[at..at + hdr_len], 10);
    v[at + 10..at + 12].copy_from_slice(&c.to_be_bytes());
    let total = u16::from_be_bytes([v[at + 2], v[at + 3]]) as usize;
    let end = (at + total).min(v.len());
    let p = at + hdr_len;
    if end < p {
        return;
    }
    let src = [v[at + 12], v[at + 13], v[at + 14], v[at + 15]];
    let dst = [v[at + 16], v[at + 17], v[at + 18], v[at + 19]];
    let (csum_at, c) = match v[at + 9] {
        proto::IPIP if may_recurse => return fix_datagram(&mut v[..end], p, false),
        proto::TCP if end - p >= 20 => {
            (16, checksum::pseudo(&src, &dst, proto::TCP, &v[p..end], 16))
        }
        proto::UDP if end - p >= 8 => match checksum::pseudo(&src, &dst, proto::UDP, &v[p..end], 6)
        {
            0 => (6, 0xffff),
            c => (6, c),
        },
        proto::ICMP if end - p >= 8 => (2, checksum::internet(&v[p..end], 2)),
        _ => return,
    };
    v[p + csum_at..p + csum_at + 2].copy_from_slice(&c.to_be_bytes());
}
