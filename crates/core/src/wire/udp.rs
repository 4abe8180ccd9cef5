//! UDP datagrams (RFC 768).
//!
//! Message bodies are zeros on the wire: [`UdpMsg::Opaque`] has no bytes to
//! write. Typed control messages are written by their own module (Mobile IP:
//! `mobileip`) and recognised on their port (434) when parsing; an unknown
//! message type on that port stays opaque.

use super::checksum;
use super::mobileip;
use super::{be16, WireError};
use crate::packet::{proto, Ipv4Header, Udp, UdpMsg, UDP_HEADER_LEN};

/// Offsets of the length and checksum fields in the UDP header (RFC 768).
const LEN_AT: usize = 4;
const CSUM_AT: usize = 6;

pub(super) fn wire_len(udp: &Udp) -> u64 {
    UDP_HEADER_LEN as u64 + udp.msg.len() as u64
}

/// Append header and zero payload. The caller has checked that the datagram
/// fits in 65535 bytes, so the UDP length fits its 16-bit field.
pub(super) fn write(udp: &Udp, ip: &Ipv4Header, buf: &mut Vec<u8>) {
    let start = buf.len();
    let len = wire_len(udp) as usize;
    buf.extend_from_slice(&udp.src_port.to_be_bytes());
    buf.extend_from_slice(&udp.dst_port.to_be_bytes());
    buf.extend_from_slice(&(len as u16).to_be_bytes());
    buf.extend_from_slice(&[0, 0]); // checksum, filled below
    match udp.msg {
        UdpMsg::Opaque { .. } => buf.resize(start + len, 0),
        UdpMsg::Probe { seq, sent_ns, .. } => write_probe(seq, sent_ns, buf, start + len),
        UdpMsg::Mip(m) => mobileip::write(&m, buf),
    }
    debug_assert_eq!(buf.len() - start, len);
    let csum = transmitted(checksum::pseudo(
        &ip.src,
        &ip.dst,
        proto::UDP,
        &buf[start..],
        CSUM_AT,
    ));
    buf[start + CSUM_AT..start + CSUM_AT + 2].copy_from_slice(&csum.to_be_bytes());
}

/// A probe's body: iperf 2's UDP datagram header (32-bit packet id, then
/// the send time as 32-bit seconds and microseconds, all big-endian),
/// cut to the body when it is shorter than 12 bytes, then zeros.
fn write_probe(seq: u32, sent_ns: u64, buf: &mut Vec<u8>, end: usize) {
    let mut head = [0u8; 12];
    head[..4].copy_from_slice(&seq.to_be_bytes());
    head[4..8].copy_from_slice(&((sent_ns / 1_000_000_000) as u32).to_be_bytes());
    head[8..].copy_from_slice(&((sent_ns % 1_000_000_000 / 1000) as u32).to_be_bytes());
    let room = end - buf.len();
    buf.extend_from_slice(&head[..room.min(12)]);
    buf.resize(end, 0);
}

/// RFC 768: a computed checksum of zero is sent as all ones, because zero
/// in the field means "no checksum".
fn transmitted(csum: u16) -> u16 {
    if csum == 0 {
        0xffff
    } else {
        csum
    }
}

/// Parse the datagram from `bytes[at]` to the end of `bytes` (the end of
/// the IP datagram); the caller guarantees the 8-byte header. A zero
/// checksum field (sender computed none, RFC 768) is accepted.
pub(super) fn parse(bytes: &[u8], at: usize, ip: &Ipv4Header) -> Result<Udp, WireError> {
    let udp = &bytes[at..];
    let udp_len = be16(udp, LEN_AT);
    if udp_len as usize != udp.len() {
        return Err(WireError::BadUdpLength {
            offset: at + LEN_AT,
            udp_len,
            ip_payload: udp.len(),
        });
    }
    let found = be16(udp, CSUM_AT);
    if found != 0 {
        let expected = transmitted(checksum::pseudo(&ip.src, &ip.dst, proto::UDP, udp, CSUM_AT));
        if found != expected {
            return Err(WireError::BadUdpChecksum {
                offset: at + CSUM_AT,
                found,
                expected,
            });
        }
    }
    let len = (udp.len() - UDP_HEADER_LEN as usize) as u32;
    let (src_port, dst_port) = (be16(udp, 0), be16(udp, 2));
    let mut msg = UdpMsg::Opaque { len };
    if mobileip::on_mip_port(src_port, dst_port) {
        if let Some(m) = mobileip::parse(bytes, at + UDP_HEADER_LEN as usize)? {
            msg = UdpMsg::Mip(m);
        }
    }
    Ok(Udp { src_port, dst_port, msg })
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{encoded, fix_checksums, udp_template};
    use super::super::{decode, WireError};
    use crate::packet::IpPayload;

    #[test]
    fn header_fields_and_checksum_match_etherparse() {
        let pkt = udp_template(13);
        let b = encoded(&pkt);
        assert_eq!(b.len(), 20 + 8 + 13);
        assert_eq!(b[9], 17, "IP protocol UDP");
        assert_eq!(&b[20..26], &[0x01, 0xb2, 0x01, 0xb2, 0, 21]); // ports 434, length 21
        let (ip, rest) = etherparse::Ipv4Header::from_slice(&b).unwrap();
        let (udp, payload) = etherparse::UdpHeader::from_slice(rest).unwrap();
        assert_eq!(payload, &[0; 13]);
        assert_eq!(udp.checksum, udp.calc_checksum_ipv4(&ip, payload).unwrap());
        assert_eq!(decode(&b).unwrap(), pkt);
    }

    #[test]
    fn probe_body_starts_with_iperf_header() {
        let mut pkt = udp_template(20);
        if let IpPayload::Udp(u) = &mut pkt.payload {
            (u.src_port, u.dst_port) = (49152, 5001);
            u.msg = crate::packet::UdpMsg::Probe { len: 20, seq: 0x0102_0304, sent_ns: 3_000_005_000 };
        }
        let b = encoded(&pkt);
        assert_eq!(b.len(), 20 + 8 + 20);
        assert_eq!(&b[28..40], &[1, 2, 3, 4, 0, 0, 0, 3, 0, 0, 0, 5]);
        assert_eq!(&b[40..], &[0; 8]);
        // Decoding cannot tell a probe from other data: it comes back opaque.
        let IpPayload::Udp(u) = decode(&b).unwrap().payload else { panic!("udp") };
        assert_eq!(u.msg, crate::packet::UdpMsg::Opaque { len: 20 });
        let mut short = udp_template(6);
        if let IpPayload::Udp(u) = &mut short.payload {
            (u.src_port, u.dst_port) = (49152, 5001);
            u.msg = crate::packet::UdpMsg::Probe { len: 6, seq: 7, sent_ns: 0 };
        }
        assert_eq!(&encoded(&short)[28..], &[0, 0, 0, 7, 0, 0]);
    }

    #[test]
    fn zero_checksum_is_sent_as_all_ones_and_absent_is_accepted() {
        // Pick the source port that makes the computed sum zero: with port 0
        // the checksum is the complement c of the other words' sum S, and
        // S + c is all ones, whose complement is zero.
        let with_port = |port: u16| {
            let mut pkt = udp_template(0);
            if let IpPayload::Udp(u) = &mut pkt.payload {
                u.src_port = port;
            }
            pkt
        };
        let b = encoded(&with_port(0));
        let c = u16::from_be_bytes([b[26], b[27]]);
        let pkt = with_port(c);
        let b = encoded(&pkt);
        assert_eq!(&b[26..28], &[0xff, 0xff]);
        assert_eq!(decode(&b).unwrap(), pkt);

        let mut v = encoded(&udp_template(5));
        v[26..28].copy_from_slice(&[0, 0]);
        assert_eq!(decode(&v).unwrap(), udp_template(5));
    }

    #[test]
    fn errors_are_located() {
        let b = encoded(&udp_template(4));
        let mut v = b.clone();
        v[30] ^= 0x80;
        let e = decode(&v).unwrap_err();
        assert!(
            matches!(e, WireError::BadUdpChecksum { offset: 26, .. }),
            "{e}"
        );
        assert!(
            e.to_string().starts_with("byte 26: bad UDP checksum"),
            "{e}"
        );

        let mut v = b.clone();
        v[25] = 11; // UDP length 11 in a 12-byte IP payload
        fix_checksums(&mut v, 0);
        assert_eq!(
            decode(&v),
            Err(WireError::BadUdpLength {
                offset: 24,
                udp_len: 11,
                ip_payload: 12
            })
        );

        let mut v = b[..27].to_vec();
        v[3] = 27; // IP total length leaves no room for the UDP header
        fix_checksums(&mut v, 0);
        assert_eq!(
            decode(&v),
            Err(WireError::BadTotalLength {
                offset: 2,
                total_len: 27,
                min: 28
            })
        );
    }
}
