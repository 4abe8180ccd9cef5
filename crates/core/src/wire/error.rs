//! Why bytes are not a packet, or a packet not bytes.
//!
//! Every decoding error names the byte offset of the field at fault, counted
//! from the first byte handed to the decoder (the outer IPv4 header for
//! [`super::decode`], the Ethernet header for [`super::decode_ethernet`]), so
//! a message can be checked against a hex dump or Wireshark's byte view.

use std::fmt;

use crate::segment::MAX_TCP_OPTIONS_LEN;

/// Why bytes could not be decoded into a packet, or a packet encoded into
/// bytes. Decoding errors carry the byte offset of the field at fault (see
/// the module docs); `Display` puts it first ("byte 20: ...").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireError {
    /// Input ends at `have` bytes but a field at `offset` needs `needed` bytes in all.
    Truncated {
        /// Where the field that does not fit starts.
        offset: usize,
        /// Bytes the input would need, counted from its first byte.
        needed: usize,
        /// Bytes the input has.
        have: usize,
    },
    /// IP version nibble is not 4; `offset` is the header's first byte.
    BadVersion {
        /// The header's first byte.
        offset: usize,
        /// The version found.
        version: u8,
    },
    /// IHL below 5 words; `offset` is the header's first byte.
    BadIhl {
        /// The header's first byte.
        offset: usize,
        /// The header length found, in 32-bit words.
        ihl: u8,
    },
    /// Total length shorter than the headers it must contain.
    BadTotalLength {
        /// The total-length field.
        offset: usize,
        /// The total length found, bytes.
        total_len: u16,
        /// The least the headers need, bytes.
        min: usize,
    },
    /// A fragment (MF set or nonzero offset): cannot hold a whole payload.
    Fragmented {
        /// The flags/fragment-offset field.
        offset: usize,
        /// That 16-bit field as found.
        flags_frag: u16,
    },
    /// The IPv4 header checksum does not verify (RFC 791).
    BadIpChecksum {
        /// The checksum field.
        offset: usize,
        /// The checksum in the header.
        found: u16,
        /// The checksum the header's bytes give.
        expected: u16,
    },
    /// An IP protocol the simulator has no payload type for.
    UnsupportedProtocol {
        /// The protocol field.
        offset: usize,
        /// The protocol number found.
        protocol: u8,
    },
    /// IP-in-IP inside IP-in-IP: [`crate::packet::Packet`] holds one tunnel level.
    NestedTunnel {
        /// The inner header's protocol field (4, IP-in-IP).
        offset: usize,
    },
    /// The inner datagram's total length is not the outer payload length
    /// (RFC 2003 §3.1: the outer total length covers exactly the inner datagram).
    TunnelLengthMismatch {
        /// The inner header's total-length field.
        offset: usize,
        /// The inner total length found, bytes.
        inner_len: u16,
        /// The outer datagram's payload length, bytes.
        outer_payload: usize,
    },
    /// TCP data offset below 5 words or beyond the datagram.
    BadDataOffset {
        /// The data-offset byte of the TCP header.
        offset: usize,
        /// The data offset found, in 32-bit words.
        data_offset: u8,
    },
    /// A TCP option's length byte is missing, too short, runs past the
    /// options, or is wrong for its kind.
    BadOptionLength {
        /// The option's kind byte.
        offset: usize,
        /// The option kind.
        kind: u8,
        /// The length byte found (0 when missing).
        len: u8,
    },
    /// Checksum over pseudo-header, header and payload does not verify.
    BadTcpChecksum {
        /// The TCP checksum field.
        offset: usize,
        /// The checksum in the header.
        found: u16,
        /// The checksum the segment's bytes give.
        expected: u16,
    },
    /// The UDP length field disagrees with the IP payload length (RFC 768).
    BadUdpLength {
        /// The UDP length field.
        offset: usize,
        /// The UDP length found, bytes.
        udp_len: u16,
        /// The IP payload length, bytes.
        ip_payload: usize,
    },
    /// A nonzero UDP checksum that does not verify (RFC 768; zero means
    /// "none computed" and is accepted).
    BadUdpChecksum {
        /// The UDP checksum field.
        offset: usize,
        /// The checksum in the header.
        found: u16,
        /// The checksum the datagram's bytes give.
        expected: u16,
    },
    /// An ICMP message other than echo request/reply with code 0 and the
    /// router advertisement (type 9, code 0 or 16).
    UnsupportedIcmp {
        /// The ICMP message's first byte.
        offset: usize,
        /// The ICMP type found.
        icmp_type: u8,
        /// The ICMP code found.
        code: u8,
    },
    /// The ICMP checksum does not verify (RFC 792).
    BadIcmpChecksum {
        /// The ICMP checksum field.
        offset: usize,
        /// The checksum in the header.
        found: u16,
        /// The checksum the message's bytes give.
        expected: u16,
    },
    /// A Mobile IP message or agent advertisement whose field at `offset`
    /// breaks its format (RFC 5944, RFC 1256, draft-ietf-mobileip-optim);
    /// `what` says which rule.
    Malformed {
        /// The field at fault.
        offset: usize,
        /// The rule it breaks, for the message.
        what: &'static str,
    },
    /// An Ethernet frame that does not carry IPv4.
    UnsupportedEtherType {
        /// The EtherType field.
        offset: usize,
        /// The EtherType found.
        ethertype: u16,
    },
    /// Encoding: the options need more than 40 bytes.
    OptionsTooLong {
        /// Bytes the options would need.
        len: usize,
    },
    /// Encoding: the datagram (outer header included) would exceed 65535 bytes.
    DatagramTooLong {
        /// Bytes the datagram would have.
        len: u64,
    },
    /// Encoding with real payload bytes: `have` bytes given for a packet
    /// that carries `expected`.
    PayloadLength {
        /// The payload length the packet declares, bytes.
        expected: usize,
        /// The payload bytes given.
        have: usize,
    },
}

impl WireError {
    /// Byte offset of the offending field (0 for encoding errors).
    pub fn offset(&self) -> usize {
        use WireError::*;
        match *self {
            Truncated { offset, .. }
            | BadVersion { offset, .. }
            | BadIhl { offset, .. }
            | BadTotalLength { offset, .. }
            | Fragmented { offset, .. }
            | BadIpChecksum { offset, .. }
            | UnsupportedProtocol { offset, .. }
            | NestedTunnel { offset }
            | TunnelLengthMismatch { offset, .. }
            | BadDataOffset { offset, .. }
            | BadOptionLength { offset, .. }
            | BadTcpChecksum { offset, .. }
            | BadUdpLength { offset, .. }
            | BadUdpChecksum { offset, .. }
            | UnsupportedIcmp { offset, .. }
            | BadIcmpChecksum { offset, .. }
            | Malformed { offset, .. }
            | UnsupportedEtherType { offset, .. } => offset,
            OptionsTooLong { .. } | DatagramTooLong { .. } | PayloadLength { .. } => 0,
        }
    }
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use WireError::*;
        let at = self.offset();
        match *self {
            Truncated { needed, have, .. } => write!(f, "byte {at}: truncated: need {needed} bytes, have {have}"),
            BadVersion { version, .. } => write!(f, "byte {at}: IP version {version}, expected 4"),
            BadIhl { ihl, .. } => write!(f, "byte {at}: IPv4 header length {ihl} words, minimum is 5"),
            BadTotalLength { total_len, min, .. } => {
                write!(f, "byte {at}: IPv4 total length {total_len} is below the {min} header bytes")
            }
            Fragmented { flags_frag, .. } => {
                write!(f, "byte {at}: IPv4 fragment (flags/offset 0x{flags_frag:04x}) not supported")
            }
            BadIpChecksum { found, expected, .. } => {
                write!(f, "byte {at}: bad IPv4 header checksum 0x{found:04x}, expected 0x{expected:04x}")
            }
            UnsupportedProtocol { protocol, .. } => write!(
                f,
                "byte {at}: unsupported IP protocol {protocol} (decoded: ICMP 1, IP-in-IP 4, TCP 6, UDP 17, coded 253)"
            ),
            NestedTunnel { .. } => write!(f, "byte {at}: IP-in-IP inside IP-in-IP not supported"),
            TunnelLengthMismatch { inner_len, outer_payload, .. } => write!(
                f,
                "byte {at}: inner IPv4 total length {inner_len} differs from the {outer_payload} bytes the outer datagram carries"
            ),
            BadDataOffset { data_offset, .. } => write!(f, "byte {at}: bad TCP data offset {data_offset} words"),
            BadOptionLength { kind, len, .. } => write!(f, "byte {at}: bad length {len} for TCP option kind {kind}"),
            BadTcpChecksum { found, expected, .. } => {
                write!(f, "byte {at}: bad TCP checksum 0x{found:04x}, expected 0x{expected:04x}")
            }
            BadUdpLength { udp_len, ip_payload, .. } => {
                write!(f, "byte {at}: UDP length {udp_len} differs from the {ip_payload}-byte IP payload")
            }
            BadUdpChecksum { found, expected, .. } => {
                write!(f, "byte {at}: bad UDP checksum 0x{found:04x}, expected 0x{expected:04x}")
            }
            UnsupportedIcmp { icmp_type, code, .. } => {
                write!(f, "byte {at}: unsupported ICMP type {icmp_type} code {code} (decoded: echo 8/0, echo reply 0/0, agent advertisement 9/0 and 9/16)")
            }
            BadIcmpChecksum { found, expected, .. } => {
                write!(f, "byte {at}: bad ICMP checksum 0x{found:04x}, expected 0x{expected:04x}")
            }
            Malformed { what, .. } => write!(f, "byte {at}: malformed {what}"),
            UnsupportedEtherType { ethertype, .. } => {
                write!(f, "byte {at}: EtherType 0x{ethertype:04x} is not IPv4 (0x0800)")
            }
            OptionsTooLong { len } => write!(f, "TCP options need {len} bytes, at most {MAX_TCP_OPTIONS_LEN} fit"),
            DatagramTooLong { len } => write!(f, "IPv4 datagram of {len} bytes exceeds 65535"),
            PayloadLength { expected, have } => write!(f, "{have} payload bytes given for a packet carrying {expected}"),
        }
    }
}

impl std::error::Error for WireError {}
