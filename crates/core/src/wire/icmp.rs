//! ICMP echo request and reply (RFC 792, "Echo or Echo Reply Message"), and
//! the agent advertisement (its own file, `advert.rs`).
//!
//! Echo layout: type, code (0), checksum, identifier, sequence number, data.
//! The data is zeros: the simulator carries its length only.

use super::advert;
use super::checksum;
use super::{be16, WireError};
use crate::packet::{Icmp, ICMP_ECHO_HEADER_LEN};

/// ICMP types (RFC 792).
const ECHO_REPLY: u8 = 0;
const ECHO_REQUEST: u8 = 8;
/// Offset of the checksum field in every ICMP message.
const CSUM_AT: usize = 2;

pub(super) fn wire_len(m: &Icmp) -> u64 {
    match *m {
        Icmp::EchoRequest { len, .. } | Icmp::EchoReply { len, .. } => {
            ICMP_ECHO_HEADER_LEN as u64 + len as u64
        }
        Icmp::AgentAdvert(a) => a.len() as u64,
    }
}

/// Append the message; the caller has checked that it fits the datagram.
pub(super) fn write(m: &Icmp, buf: &mut Vec<u8>) {
    let start = buf.len();
    let (icmp_type, id, seq) = match *m {
        Icmp::EchoRequest { id, seq, .. } => (ECHO_REQUEST, id, seq),
        Icmp::EchoReply { id, seq, .. } => (ECHO_REPLY, id, seq),
        Icmp::AgentAdvert(a) => {
            advert::write(&a, buf);
            (advert::ROUTER_ADVERT, 0, 0)
        }
    };
    if icmp_type != advert::ROUTER_ADVERT {
        buf.extend_from_slice(&[icmp_type, 0, 0, 0]); // type, code, checksum
        buf.extend_from_slice(&id.to_be_bytes());
        buf.extend_from_slice(&seq.to_be_bytes());
        buf.resize(start + wire_len(m) as usize, 0);
    }
    debug_assert_eq!(buf.len() - start, wire_len(m) as usize);
    let csum = checksum::internet(&buf[start..], CSUM_AT);
    buf[start + CSUM_AT..start + CSUM_AT + 2].copy_from_slice(&csum.to_be_bytes());
}

/// Parse the message from `bytes[at]` to the end of `bytes` (the end of the
/// IP datagram); the caller guarantees the 8-byte header. The checksum is
/// verified before the type is interpreted.
pub(super) fn parse(bytes: &[u8], at: usize) -> Result<Icmp, WireError> {
    let icmp = &bytes[at..];
    let found = be16(icmp, CSUM_AT);
    let expected = checksum::internet(icmp, CSUM_AT);
    if found != expected {
        return Err(WireError::BadIcmpChecksum {
            offset: at + CSUM_AT,
            found,
            expected,
        });
    }
    let (icmp_type, code) = (icmp[0], icmp[1]);
    if icmp_type == advert::ROUTER_ADVERT {
        return advert::parse(icmp, at).map(Icmp::AgentAdvert);
    }
    let (id, seq) = (be16(icmp, 4), be16(icmp, 6));
    let len = (icmp.len() - ICMP_ECHO_HEADER_LEN as usize) as u32;
    match (icmp_type, code) {
        (ECHO_REQUEST, 0) => Ok(Icmp::EchoRequest { id, seq, len }),
        (ECHO_REPLY, 0) => Ok(Icmp::EchoReply { id, seq, len }),
        _ => Err(WireError::UnsupportedIcmp {
            offset: at,
            icmp_type,
            code,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{encoded, fix_checksums, icmp_packet};
    use super::super::{decode, WireError};
    use super::*;

    #[test]
    fn echo_request_bytes_match_etherparse() {
        let pkt = icmp_packet(Icmp::EchoRequest {
            id: 0x1234,
            seq: 7,
            len: 56,
        });
        let b = encoded(&pkt);
        assert_eq!(
            b.len(),
            84,
            "ping's default 56 data bytes make an 84-byte datagram"
        );
        assert_eq!(b[9], 1, "IP protocol ICMP");
        assert_eq!(&b[20..22], &[8, 0]);
        assert_eq!(&b[24..28], &[0x12, 0x34, 0, 7]);
        let (_, rest) = etherparse::Ipv4Header::from_slice(&b).unwrap();
        let (h, data) = etherparse::Icmpv4Header::from_slice(rest).unwrap();
        assert_eq!(
            h.icmp_type,
            etherparse::Icmpv4Type::EchoRequest(etherparse::IcmpEchoHeader { id: 0x1234, seq: 7 })
        );
        assert_eq!(h.checksum, h.icmp_type.calc_checksum(data));
        assert_eq!(decode(&b).unwrap(), pkt);
    }

    #[test]
    fn echo_reply_round_trips() {
        let pkt = icmp_packet(Icmp::EchoReply {
            id: 1,
            seq: 65535,
            len: 0,
        });
        let b = encoded(&pkt);
        assert_eq!((b.len(), b[20]), (28, 0));
        assert_eq!(decode(&b).unwrap(), pkt);
    }

    #[test]
    fn errors_are_located() {
        let b = encoded(&icmp_packet(Icmp::EchoRequest {
            id: 1,
            seq: 2,
            len: 3,
        }));
        let mut v = b.clone();
        v[30] = 1;
        let e = decode(&v).unwrap_err();
        assert!(
            matches!(e, WireError::BadIcmpChecksum { offset: 22, .. }),
            "{e}"
        );

        let mut v = b.clone();
        v[20] = 3; // destination unreachable
        v[21] = 1;
        fix_checksums(&mut v, 0);
        assert_eq!(
            decode(&v),
            Err(WireError::UnsupportedIcmp {
                offset: 20,
                icmp_type: 3,
                code: 1
            })
        );
        assert_eq!(
            decode(&v).unwrap_err().to_string(),
            "byte 20: unsupported ICMP type 3 code 1 (decoded: echo 8/0, echo reply 0/0, agent advertisement 9/0 and 9/16)"
        );
    }
}
