//! Wire format: a [`Packet`] (or [`Frame`]) as the bytes a real stack would
//! put on the wire, and back.
//!
//! Captures must open in Wireshark with valid checksums and the same sizes
//! the simulator charged to the link, so [`encode`] writes exactly
//! `pkt.ip_len()` bytes: TCP with options laid out as
//! [`crate::segment::Segment::options_len`] documents (Linux's
//! `tcp_options_write` order), UDP (RFC 768) with Mobile IP messages on port
//! 434 (RFC 5944, draft-ietf-mobileip-optim), ICMP echo (RFC 792) and agent
//! advertisements (RFC 1256 + RFC 5944 §2.1), and
//! IP-in-IP (RFC 2003) as an outer header before the inner datagram. Payload
//! bytes are zeros: the simulator carries lengths, not bytes.
//!
//! [`decode`] accepts anything a real capture may hold (IP options, unknown
//! TCP options, options in any order, link padding after the datagram) and
//! rejects, with the byte offset of the culprit, what it cannot represent or
//! what is damaged. It never panics, whatever the input.
//!
//! One file per layer: `ipv4` frames datagrams and tunnels; `tcp`, `udp`
//! and `icmp` write and parse their payloads; `ethernet` adds the link
//! header; `checksum` is the RFC 1071 sum they share.

mod advert;
mod checksum;
mod coded;
mod error;
mod ethernet;
mod icmp;
mod ipv4;
mod mobileip;
mod tcp;
mod udp;

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod proptests;

pub use error::WireError;
pub use ethernet::{ETHERNET_HEADER_LEN, ETHERTYPE_IPV4};
pub use crate::segment::MAX_TCP_OPTIONS_LEN;

use crate::packet::{Frame, Packet};

/// Serialise `pkt` into `buf` (cleared first; its capacity is reused, so a
/// caller that keeps one buffer allocates nothing per packet). Writes exactly
/// `pkt.ip_len()` bytes.
///
/// Only `sack_len` clamped to [`crate::MAX_SACK_BLOCKS`] blocks are written.
/// Fails only if TCP options exceed 40 bytes or the datagram 65535 bytes.
pub fn encode(pkt: &Packet, buf: &mut Vec<u8>) -> Result<(), WireError> {
    buf.clear();
    ipv4::write_packet(pkt, buf)
}

/// Serialise `pkt` as [`encode`] does, but with `payload` as the bytes after
/// the transport header (TCP, UDP, ICMP echo data) and that header's
/// checksum computed over them: how an emulator sends a real packet whose
/// headers an agent rewrote. `payload` must be exactly the length `pkt`
/// carries (`WireError::PayloadLength` otherwise).
pub fn encode_with_payload(pkt: &Packet, payload: &[u8], buf: &mut Vec<u8>) -> Result<(), WireError> {
    use crate::packet::{IpPayload, IPV4_HEADER_LEN, UDP_HEADER_LEN, ICMP_ECHO_HEADER_LEN};
    encode(pkt, buf)?;
    let (hdr, csum_at) = match &pkt.payload {
        IpPayload::Tcp(seg) => (seg.header_len() as usize, 16),
        IpPayload::Udp(_) => (UDP_HEADER_LEN as usize, 6),
        IpPayload::Icmp(crate::packet::Icmp::EchoRequest { .. } | crate::packet::Icmp::EchoReply { .. }) => {
            (ICMP_ECHO_HEADER_LEN as usize, 2)
        }
        _ => return if payload.is_empty() { Ok(()) } else { Err(WireError::PayloadLength { expected: 0, have: payload.len() }) },
    };
    let l4 = (IPV4_HEADER_LEN as usize) * (1 + pkt.outer.is_some() as usize);
    let expected = buf.len() - l4 - hdr;
    if payload.len() != expected {
        return Err(WireError::PayloadLength { expected, have: payload.len() });
    }
    buf[l4 + hdr..].copy_from_slice(payload);
    let csum = match &pkt.payload {
        IpPayload::Icmp(_) => checksum::internet(&buf[l4..], csum_at),
        p => {
            let c = checksum::pseudo(&pkt.ip.src, &pkt.ip.dst, p.protocol(), &buf[l4..], csum_at);
            // RFC 768: a computed UDP checksum of zero is sent as all ones.
            if c == 0 && p.protocol() == crate::packet::proto::UDP { 0xffff } else { c }
        }
    };
    buf[l4 + csum_at..l4 + csum_at + 2].copy_from_slice(&csum.to_be_bytes());
    if pkt.outer.is_some() {
        // The outer header's checksum covers only itself: unchanged.
    }
    Ok(())
}

/// Serialise `frame` as an Ethernet II frame: the 14-byte header (destination
/// MAC, source MAC, EtherType IPv4), then the datagram [`encode`] writes. No
/// padding and no FCS, as a capture on the sender shows it.
pub fn encode_ethernet(frame: &Frame, buf: &mut Vec<u8>) -> Result<(), WireError> {
    buf.clear();
    ethernet::write_frame(frame, buf)
}

/// Parse one IPv4 datagram, verifying every checksum (both headers and the
/// payload's when tunnelled). Bytes after the IPv4 total length (link
/// padding) are ignored; IP options and unknown TCP options are skipped; a
/// payload length is what the datagram carries after its header.
pub fn decode(bytes: &[u8]) -> Result<Packet, WireError> {
    ipv4::parse_packet(bytes, 0)
}

/// Serialise a coded packet's header, code vector and payload (the IPv4
/// payload of protocol 253) into `buf` (cleared first). With `payload`
/// `None`, `c.payload_len` zeros are written, as [`encode`] does.
pub fn encode_coded(c: &crate::coded::Coded, payload: Option<&[u8]>, buf: &mut Vec<u8>) {
    buf.clear();
    coded::write(c, payload, buf)
}

/// Parse a coded packet (the IPv4 payload of protocol 253): its header and
/// its payload bytes. Malformed input is an error naming the byte, never a panic.
pub fn parse_coded(bytes: &[u8]) -> Result<(crate::coded::Coded, &[u8]), WireError> {
    let (c, at) = coded::parse(bytes, 0)?;
    Ok((c, &bytes[at..]))
}

/// Parse one Ethernet II frame carrying IPv4, as [`decode`] does the
/// datagram. Error offsets count from the first byte of the frame.
pub fn decode_ethernet(bytes: &[u8]) -> Result<Frame, WireError> {
    ethernet::parse_frame(bytes)
}

/// Check that `bytes` holds `len` bytes from `offset`.
fn need(bytes: &[u8], offset: usize, len: usize) -> Result<(), WireError> {
    if bytes.len() < offset + len {
        Err(WireError::Truncated {
            offset,
            needed: offset + len,
            have: bytes.len(),
        })
    } else {
        Ok(())
    }
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[cfg(test)]
mod tests {
    use super::fixtures::{all_kinds, tcp_template};
    use super::*;

    #[test]
    fn encode_reuses_buffer() {
        let mut buf = vec![0xffu8; 3];
        let pkt = tcp_template();
        encode(&pkt, &mut buf).unwrap();
        assert_eq!(buf.len(), 40);
        let cap = buf.capacity();
        encode(&pkt, &mut buf).unwrap();
        assert_eq!(buf.capacity(), cap);
    }

    #[test]
    fn encoding_into_a_big_enough_buffer_never_reallocates() {
        let mut buf = Vec::with_capacity(2048);
        let ptr = buf.as_ptr();
        for pkt in all_kinds() {
            encode(&pkt, &mut buf).unwrap();
            assert_eq!(buf.len() as u32, pkt.ip_len());
            let frame = Frame {
                l2: Default::default(),
                pkt,
            };
            encode_ethernet(&frame, &mut buf).unwrap();
            assert_eq!(buf.len() as u32, ETHERNET_HEADER_LEN as u32 + pkt.ip_len());
            assert_eq!((buf.as_ptr(), buf.capacity()), (ptr, 2048), "{pkt:?}");
        }
    }
}
