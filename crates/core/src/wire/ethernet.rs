//! Ethernet II framing (IEEE 802.3 §3.2, "Ethernet II"/DIX: destination,
//! source, EtherType), for captures that show link-layer addresses.
//!
//! Frames are written as a capture on the sending host sees them: no
//! frame check sequence and no padding to the 60-byte minimum (the NIC adds
//! both after the capture point). The decoder accepts padding after the
//! datagram, as [`super::decode`] does.

use super::{be16, ipv4, need, WireError};
use crate::packet::{Frame, L2Header, L2Kind, MacAddr, Packet};

/// Destination MAC, source MAC, EtherType.
pub const ETHERNET_HEADER_LEN: usize = 14;
/// EtherType of IPv4 (IEEE "EtherType" registry; RFC 894).
pub const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_AT: usize = 12;

/// Append the Ethernet header, then the datagram.
pub(super) fn write_frame(frame: &Frame, buf: &mut Vec<u8>) -> Result<(), WireError> {
    // Every kind is a data frame today; 802.11 management and control frames
    // will have no Ethernet form and need their own link type.
    match frame.l2.kind {
        L2Kind::Data => {}
    }
    buf.extend_from_slice(&frame.l2.dst.0);
    buf.extend_from_slice(&frame.l2.src.0);
    buf.extend_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
    ipv4::write_packet(&frame.pkt, buf)
}

pub(super) fn parse_frame(bytes: &[u8]) -> Result<Frame, WireError> {
    need(bytes, 0, ETHERNET_HEADER_LEN)?;
    let ethertype = be16(bytes, ETHERTYPE_AT);
    if ethertype != ETHERTYPE_IPV4 {
        return Err(WireError::UnsupportedEtherType {
            offset: ETHERTYPE_AT,
            ethertype,
        });
    }
    let mac = |at: usize| {
        let mut m = [0u8; 6];
        m.copy_from_slice(&bytes[at..at + 6]);
        MacAddr(m)
    };
    let pkt: Packet = ipv4::parse_packet(bytes, ETHERNET_HEADER_LEN)?;
    Ok(Frame {
        l2: L2Header {
            dst: mac(0),
            src: mac(6),
            kind: L2Kind::Data,
            proxied: false,
        },
        pkt,
    })
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{encoded, fix_checksums, tcp_template, tunnelled};
    use super::super::{decode_ethernet, encode_ethernet};
    use super::*;

    fn frame(pkt: Packet) -> Frame {
        Frame {
            l2: L2Header {
                src: MacAddr::local(1),
                dst: MacAddr::BROADCAST,
                kind: L2Kind::Data,
                proxied: false,
            },
            pkt,
        }
    }

    #[test]
    fn header_then_the_raw_datagram() {
        let f = frame(tcp_template());
        let mut b = Vec::new();
        encode_ethernet(&f, &mut b).unwrap();
        assert_eq!(
            &b[..14],
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x00]
        );
        assert_eq!(&b[14..], &encoded(&f.pkt)[..]);
        let (eth, rest) = etherparse::Ethernet2Header::from_slice(&b).unwrap();
        assert_eq!(eth.ether_type, etherparse::EtherType::IPV4);
        assert_eq!(rest.len() as u32, f.pkt.ip_len());
        assert_eq!(decode_ethernet(&b).unwrap(), f);
    }

    #[test]
    fn padding_is_ignored_and_errors_count_from_the_frame() {
        let f = frame(tunnelled(tcp_template()));
        let mut b = Vec::new();
        encode_ethernet(&f, &mut b).unwrap();
        b.extend_from_slice(&[0; 4]);
        assert_eq!(decode_ethernet(&b).unwrap(), f);

        let mut v = b.clone();
        v[14 + 20 + 36] ^= 1; // inner TCP checksum
        assert!(matches!(
            decode_ethernet(&v),
            Err(WireError::BadTcpChecksum { offset: 70, .. })
        ));
        fix_checksums(&mut v, 14);
        assert!(decode_ethernet(&v).is_ok());

        let mut v = b.clone();
        v[12] = 0x86;
        v[13] = 0xdd;
        assert_eq!(
            decode_ethernet(&v),
            Err(WireError::UnsupportedEtherType {
                offset: 12,
                ethertype: 0x86dd
            })
        );
        assert_eq!(
            decode_ethernet(&b[..13]),
            Err(WireError::Truncated {
                offset: 0,
                needed: 14,
                have: 13
            })
        );
        assert_eq!(
            decode_ethernet(&b[..20]),
            Err(WireError::Truncated {
                offset: 14,
                needed: 34,
                have: 20
            })
        );
    }
}
