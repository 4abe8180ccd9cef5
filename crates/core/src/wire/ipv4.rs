//! IPv4 headers (RFC 791 §3.1) and IP-in-IP encapsulation (RFC 2003): the
//! datagram layer that frames every payload kind.

use super::{be16, checksum, coded, icmp, need, tcp, udp, WireError};
use crate::coded::CODED_HEADER_LEN;
use crate::packet::{
    proto, Ecn, IpPayload, Ipv4Header, Packet, ICMP_ECHO_HEADER_LEN, IPV4_HEADER_LEN, UDP_HEADER_LEN,
};

/// Header length without options: the only one we write.
pub(super) const HEADER_LEN: usize = IPV4_HEADER_LEN as usize;
/// Version 4, IHL 5 words (RFC 791 §3.1).
const VERSION_IHL: u8 = 0x45;
/// Flags: Don't Fragment (RFC 791 §3.1). Set on every datagram we write:
/// Linux sets it on TCP, UDP and ping sockets by default for path-MTU
/// discovery (RFC 1191; `IP_PMTUDISC_WANT`, ip(7)), and on the outer header
/// of an ipip tunnel both because `pmtudisc` is its default (iproute2
/// ip-link(8); the kernel's `ipip` netlink parameters start from
/// `frag_off = IP_DF`) and because `ip_tunnel_xmit` copies the inner DF.
/// (Echo replies the Linux kernel itself sends may leave DF clear, its ICMP
/// socket skipping PMTU discovery; no size depends on the bit, so one rule
/// is kept.) [`Packet`] keeps no DF bit, so decoding ignores it.
const FLAG_DF: u16 = 0x4000;
const FLAG_MF: u16 = 0x2000;
const FRAG_OFFSET_MASK: u16 = 0x1fff;
/// Offsets of header fields.
const TOTAL_LEN_AT: usize = 2;
const FLAGS_FRAG_AT: usize = 6;
const PROTOCOL_AT: usize = 9;
const CSUM_AT: usize = 10;

/// Append the whole datagram: the outer header when tunnelled, the inner
/// header, the payload. Checks every length before writing a byte.
pub(super) fn write_packet(pkt: &Packet, buf: &mut Vec<u8>) -> Result<(), WireError> {
    let inner_len = HEADER_LEN as u64 + payload_len(&pkt.payload)?;
    let outer_len = pkt.outer.map_or(0, |_| HEADER_LEN as u64);
    let total = inner_len + outer_len;
    if total > u16::MAX as u64 {
        return Err(WireError::DatagramTooLong { len: total });
    }
    buf.reserve(total as usize); // no-op when a reused buffer is big enough
    if let Some(outer) = &pkt.outer {
        // RFC 2003 §3.1: protocol 4, total length covering the inner datagram.
        write_header(outer, proto::IPIP, total as u16, buf);
    }
    write_header(&pkt.ip, pkt.payload.protocol(), inner_len as u16, buf);
    match &pkt.payload {
        IpPayload::Tcp(seg) => tcp::write(seg, &pkt.ip, buf),
        IpPayload::Udp(u) => udp::write(u, &pkt.ip, buf),
        IpPayload::Icmp(m) => icmp::write(m, buf),
        IpPayload::Coded(c) => coded::write(c, None, buf),
    }
    Ok(())
}

fn payload_len(payload: &IpPayload) -> Result<u64, WireError> {
    Ok(match payload {
        IpPayload::Tcp(seg) => tcp::wire_len(seg)?,
        IpPayload::Udp(u) => udp::wire_len(u),
        IpPayload::Icmp(m) => icmp::wire_len(m),
        IpPayload::Coded(c) => coded::wire_len(c),
    })
}

/// A 20-byte header: no options, DSCP 0, the ECN codepoint in the TOS
/// byte's low bits (RFC 3168 §5), DF (see [`FLAG_DF`]).
fn write_header(h: &Ipv4Header, protocol: u8, total_len: u16, buf: &mut Vec<u8>) {
    let start = buf.len();
    buf.extend_from_slice(&[VERSION_IHL, h.ecn as u8]);
    buf.extend_from_slice(&total_len.to_be_bytes());
    buf.extend_from_slice(&h.ip_id.to_be_bytes());
    buf.extend_from_slice(&FLAG_DF.to_be_bytes());
    buf.extend_from_slice(&[h.ttl, protocol, 0, 0]); // checksum filled below
    buf.extend_from_slice(&h.src);
    buf.extend_from_slice(&h.dst);
    let csum = checksum::internet(&buf[start..], CSUM_AT);
    buf[start + CSUM_AT..start + CSUM_AT + 2].copy_from_slice(&csum.to_be_bytes());
}

/// A parsed, verified header and where its datagram lies in the input.
struct Header {
    fields: Ipv4Header,
    protocol: u8,
    /// Offset of the header's first byte.
    at: usize,
    /// Header length (20 + options).
    hdr_len: usize,
    total_len: u16,
}

impl Header {
    fn payload_at(&self) -> usize {
        self.at + self.hdr_len
    }
    fn end(&self) -> usize {
        self.at + self.total_len as usize
    }
}

/// Parse the header at `bytes[at]` and check its checksum and that the
/// datagram is whole and unfragmented. `expect_len`: inside a tunnel, the
/// total length the outer datagram leaves for this one.
fn parse_header(bytes: &[u8], at: usize, expect_len: Option<usize>) -> Result<Header, WireError> {
    need(bytes, at, HEADER_LEN)?;
    let version = bytes[at] >> 4;
    if version != 4 {
        return Err(WireError::BadVersion {
            offset: at,
            version,
        });
    }
    let ihl = bytes[at] & 0x0f;
    if ihl < 5 {
        return Err(WireError::BadIhl { offset: at, ihl });
    }
    let hdr_len = ihl as usize * 4;
    need(bytes, at, hdr_len)?;
    let total_len = be16(bytes, at + TOTAL_LEN_AT);
    if (total_len as usize) < hdr_len {
        return Err(WireError::BadTotalLength {
            offset: at + TOTAL_LEN_AT,
            total_len,
            min: hdr_len,
        });
    }
    if let Some(outer_payload) = expect_len.filter(|&n| n != total_len as usize) {
        return Err(WireError::TunnelLengthMismatch {
            offset: at + TOTAL_LEN_AT,
            inner_len: total_len,
            outer_payload,
        });
    }
    need(bytes, at, total_len as usize)?;
    let hdr = &bytes[at..at + hdr_len];
    let found = be16(hdr, CSUM_AT);
    let expected = checksum::internet(hdr, CSUM_AT);
    if found != expected {
        return Err(WireError::BadIpChecksum {
            offset: at + CSUM_AT,
            found,
            expected,
        });
    }
    let flags_frag = be16(hdr, FLAGS_FRAG_AT);
    if flags_frag & (FLAG_MF | FRAG_OFFSET_MASK) != 0 {
        return Err(WireError::Fragmented {
            offset: at + FLAGS_FRAG_AT,
            flags_frag,
        });
    }
    let fields = Ipv4Header {
        src: [hdr[12], hdr[13], hdr[14], hdr[15]],
        dst: [hdr[16], hdr[17], hdr[18], hdr[19]],
        ttl: hdr[8],
        ip_id: be16(hdr, 4),
        ecn: Ecn::from_bits(hdr[1]),
    };
    Ok(Header {
        fields,
        protocol: hdr[PROTOCOL_AT],
        at,
        hdr_len,
        total_len,
    })
}

/// Parse the datagram at `bytes[at]`, unwrapping one level of IP-in-IP.
/// Bytes after the outer total length (link padding) are ignored; IP options
/// are skipped.
pub(super) fn parse_packet(bytes: &[u8], at: usize) -> Result<Packet, WireError> {
    let h = parse_header(bytes, at, None)?;
    if h.protocol != proto::IPIP {
        let payload = parse_payload(&bytes[..h.end()], &h)?;
        return Ok(Packet {
            ip: h.fields,
            outer: None,
            payload,
        });
    }
    let dgram = &bytes[..h.end()];
    let inner = parse_header(
        dgram,
        h.payload_at(),
        Some(h.total_len as usize - h.hdr_len),
    )?;
    if inner.protocol == proto::IPIP {
        return Err(WireError::NestedTunnel {
            offset: inner.at + PROTOCOL_AT,
        });
    }
    let payload = parse_payload(dgram, &inner)?;
    Ok(Packet {
        ip: inner.fields,
        outer: Some(h.fields),
        payload,
    })
}

/// Parse the payload of `h`; `dgram` ends where the datagram ends.
fn parse_payload(dgram: &[u8], h: &Header) -> Result<IpPayload, WireError> {
    let min = match h.protocol {
        proto::TCP => tcp::HEADER_LEN,
        proto::UDP => UDP_HEADER_LEN as usize,
        proto::ICMP => ICMP_ECHO_HEADER_LEN as usize,
        proto::CODED => CODED_HEADER_LEN as usize,
        protocol => {
            return Err(WireError::UnsupportedProtocol {
                offset: h.at + PROTOCOL_AT,
                protocol,
            })
        }
    };
    if (h.total_len as usize) < h.hdr_len + min {
        return Err(WireError::BadTotalLength {
            offset: h.at + TOTAL_LEN_AT,
            total_len: h.total_len,
            min: h.hdr_len + min,
        });
    }
    let at = h.payload_at();
    Ok(match h.protocol {
        proto::TCP => IpPayload::Tcp(tcp::parse(dgram, at, &h.fields)?),
        proto::UDP => IpPayload::Udp(udp::parse(dgram, at, &h.fields)?),
        proto::CODED => IpPayload::Coded(coded::parse(dgram, at)?.0),
        _ => IpPayload::Icmp(icmp::parse(dgram, at)?),
    })
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{encoded, fix_checksums, seg, tcp_template, tunnelled};
    use super::super::{decode, encode};
    use super::*;
    use crate::packet::{Icmp, Udp, UdpMsg};
    use etherparse::checksum::Sum16BitWords;

    #[test]
    fn ip_header_fields_and_checksum() {
        let mut pkt = tcp_template();
        seg(&mut pkt).payload_len = 1000;
        seg(&mut pkt).timestamps = Some((1, 2));
        let b = encoded(&pkt);
        assert_eq!(b.len(), 1052);
        assert_eq!(
            &b[0..12],
            &[0x45, 0, 0x04, 0x1c, 0x12, 0x34, 0x40, 0, 64, 6, b[10], b[11]]
        );
        // A correct header sums to 0xffff (RFC 1071).
        assert_eq!(checksum::fold(Sum16BitWords::new().add_slice(&b[..20])), 0);
        assert!(b[72..].iter().all(|&x| x == 0));
    }

    #[test]
    fn ecn_codepoint_is_the_tos_low_bits_and_round_trips() {
        for ecn in [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce] {
            let mut pkt = tcp_template();
            pkt.ip.ecn = ecn;
            let b = encoded(&pkt);
            assert_eq!(b[1], ecn as u8, "RFC 3168 §5: DSCP 0, ECN in bits 6-7");
            assert_eq!(checksum::fold(Sum16BitWords::new().add_slice(&b[..20])), 0);
            assert_eq!(decode(&b).unwrap().ip.ecn, ecn);
        }
    }

    #[test]
    fn ipip_outer_header_then_inner_datagram() {
        let inner = encoded(&tcp_template());
        let pkt = tunnelled(tcp_template());
        let b = encoded(&pkt);
        assert_eq!(b.len() as u32, pkt.ip_len());
        assert_eq!(b.len(), 20 + inner.len());
        // Outer: total 60, its own id 0xbeef, DF, TTL 32, protocol 4.
        assert_eq!(&b[0..10], &[0x45, 0, 0, 60, 0xbe, 0xef, 0x40, 0, 32, 4]);
        assert_eq!(&b[12..20], &[192, 168, 0, 1, 192, 168, 9, 9]);
        assert_eq!(checksum::fold(Sum16BitWords::new().add_slice(&b[..20])), 0);
        assert_eq!(
            &b[20..],
            &inner[..],
            "the inner datagram is carried unchanged"
        );
        let (outer, rest) = etherparse::Ipv4Header::from_slice(&b).unwrap();
        assert_eq!(outer.header_checksum, outer.calc_header_checksum());
        assert!(outer.dont_fragment);
        assert_eq!(
            etherparse::Ipv4Header::from_slice(rest)
                .unwrap()
                .0
                .identification,
            0x1234
        );
        assert_eq!(decode(&b).unwrap(), pkt);
    }

    #[test]
    fn every_kind_writes_ip_len_bytes() {
        let udp = IpPayload::Udp(Udp {
            src_port: 1,
            dst_port: 2,
            msg: UdpMsg::Opaque { len: 7 },
        });
        let icmp = IpPayload::Icmp(Icmp::EchoReply {
            id: 1,
            seq: 2,
            len: 9,
        });
        for payload in [tcp_template().payload, udp, icmp] {
            let pkt = Packet {
                payload,
                ..tcp_template()
            };
            for p in [pkt, tunnelled(pkt)] {
                let b = encoded(&p);
                assert_eq!(b.len() as u32, p.ip_len(), "{p:?}");
                assert_eq!(decode(&b).unwrap(), p);
            }
        }
    }

    #[test]
    fn encode_rejects_oversize() {
        let mut pkt = tcp_template();
        seg(&mut pkt).payload_len = 65535 - 40 + 1;
        assert_eq!(
            encode(&pkt, &mut Vec::new()),
            Err(WireError::DatagramTooLong { len: 65536 })
        );
        let mut pkt = tcp_template();
        let s = seg(&mut pkt);
        s.mss = Some(1);
        s.timestamps = Some((0, 0));
        s.wscale = Some(0);
        s.sack_len = 3;
        assert_eq!(
            encode(&pkt, &mut Vec::new()),
            Err(WireError::OptionsTooLong { len: 48 })
        );
        // The outer header counts, and huge lengths do not overflow.
        let mut pkt = tcp_template();
        seg(&mut pkt).payload_len = 65535 - 40;
        assert!(encode(&pkt, &mut Vec::new()).is_ok());
        assert_eq!(
            encode(&tunnelled(pkt), &mut Vec::new()),
            Err(WireError::DatagramTooLong { len: 65555 })
        );
        let pkt = Packet {
            payload: IpPayload::Icmp(Icmp::EchoRequest {
                id: 0,
                seq: 0,
                len: u32::MAX,
            }),
            ..pkt
        };
        assert_eq!(
            encode(&pkt, &mut Vec::new()),
            Err(WireError::DatagramTooLong {
                len: 28 + u32::MAX as u64
            })
        );
    }

    #[test]
    fn decode_errors_name_the_offset() {
        let b = encoded(&tcp_template());
        assert_eq!(
            decode(&b[..10]),
            Err(WireError::Truncated {
                offset: 0,
                needed: 20,
                have: 10
            })
        );
        assert_eq!(
            decode(&b[..39]),
            Err(WireError::Truncated {
                offset: 0,
                needed: 40,
                have: 39
            })
        );

        let mut v = b.clone();
        v[0] = 0x65;
        assert_eq!(
            decode(&v),
            Err(WireError::BadVersion {
                offset: 0,
                version: 6
            })
        );

        let mut v = b.clone();
        v[11] ^= 1;
        let e = decode(&v).unwrap_err();
        assert_eq!(e.offset(), 10);
        assert!(
            e.to_string()
                .starts_with("byte 10: bad IPv4 header checksum"),
            "{e}"
        );

        let mut v = b.clone();
        v[7] = 1; // fragment offset 8 bytes
        fix_checksums(&mut v, 0);
        assert_eq!(
            decode(&v),
            Err(WireError::Fragmented {
                offset: 6,
                flags_frag: 0x4001
            })
        );

        let mut v = b.clone();
        v[9] = 47; // GRE
        fix_checksums(&mut v, 0);
        assert_eq!(
            decode(&v),
            Err(WireError::UnsupportedProtocol {
                offset: 9,
                protocol: 47
            })
        );
        assert_eq!(
            decode(&v).unwrap_err().to_string(),
            "byte 9: unsupported IP protocol 47 (decoded: ICMP 1, IP-in-IP 4, TCP 6, UDP 17, coded 253)"
        );
    }

    #[test]
    fn tunnel_errors_name_the_inner_offset() {
        let b = encoded(&tunnelled(tcp_template()));
        let mut v = b.clone();
        v[20 + 11] ^= 1;
        assert!(matches!(
            decode(&v),
            Err(WireError::BadIpChecksum { offset: 30, .. })
        ));

        let mut v = b.clone();
        v[20 + 36] ^= 1;
        assert!(matches!(
            decode(&v),
            Err(WireError::BadTcpChecksum { offset: 56, .. })
        ));

        let mut v = b.clone();
        v[20 + 3] -= 1; // inner total length 39 in a 40-byte outer payload
        fix_checksums(&mut v, 0);
        assert_eq!(
            decode(&v),
            Err(WireError::TunnelLengthMismatch {
                offset: 22,
                inner_len: 39,
                outer_payload: 40
            })
        );

        let mut v = b.clone();
        v[20 + 9] = 4; // a tunnel in the tunnel
        fix_checksums(&mut v, 0);
        assert_eq!(decode(&v), Err(WireError::NestedTunnel { offset: 29 }));

        let mut v = b[..30].to_vec();
        v[3] = 30; // outer carries 10 bytes: not even an inner header
        fix_checksums(&mut v, 0);
        assert_eq!(
            decode(&v),
            Err(WireError::Truncated {
                offset: 20,
                needed: 40,
                have: 30
            })
        );
    }
}
