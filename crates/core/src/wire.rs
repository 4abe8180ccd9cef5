//! IPv4/TCP wire format: a [`Packet`] as the bytes a real stack would put on
//! the wire, and back.
//!
//! Captures must open in Wireshark with valid checksums and the same header
//! sizes the simulator charged to the link, so [`encode`] writes exactly
//! `pkt.ip_len()` bytes with options laid out as [`Segment::options_len`]
//! documents (Linux's `tcp_options_write` order). The payload is zeros: the
//! simulator carries lengths, not bytes.
//!
//! [`decode`] accepts anything a real capture may hold (IP options, unknown
//! TCP options, options in any order, link padding after the datagram) and
//! rejects, with the byte offset of the culprit, what it cannot represent or
//! what is damaged. It never panics, whatever the input.

use std::fmt;

use etherparse::checksum::Sum16BitWords;

use crate::segment::{Packet, Segment, TcpFlags, MAX_SACK_BLOCKS};
use crate::seq::SeqNum;

/// IP protocol number of TCP (RFC 790 / IANA).
const IPPROTO_TCP: u8 = 6;
/// IPv4 header flags: Don't Fragment (RFC 791 §3.1). Linux sets it on TCP
/// because of path-MTU discovery (RFC 1191).
const IP_FLAG_DF: u16 = 0x4000;
const IP_FLAG_MF: u16 = 0x2000;
const IP_FRAG_OFFSET_MASK: u16 = 0x1fff;
/// The TCP data offset field counts 32-bit words in 4 bits: at most 60 bytes
/// of header, 40 of options (RFC 9293 §3.1).
pub const MAX_TCP_OPTIONS_LEN: usize = 40;

// TCP option kinds (IANA "TCP Option Kind Numbers"; RFC 9293, 7323, 2018).
const OPT_EOL: u8 = 0;
const OPT_NOP: u8 = 1;
const OPT_MSS: u8 = 2;
const OPT_WS: u8 = 3;
const OPT_SACK_PERM: u8 = 4;
const OPT_SACK: u8 = 5;
const OPT_TS: u8 = 8;

/// Why bytes are not a packet (or a packet not bytes). Offsets count from the
/// first byte of the IPv4 header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireError {
    /// Input ends at `have` bytes but a field at `offset` needs `needed` bytes in all.
    Truncated {
        offset: usize,
        needed: usize,
        have: usize,
    },
    /// IP version nibble is not 4.
    BadVersion {
        version: u8,
    },
    /// IHL below 5 words.
    BadIhl {
        ihl: u8,
    },
    /// Total length shorter than the headers it must contain.
    BadTotalLength {
        total_len: u16,
        min: usize,
    },
    /// Protocol field is not TCP.
    NotTcp {
        protocol: u8,
    },
    /// A fragment (MF set or nonzero offset): cannot hold a whole segment.
    Fragmented {
        flags_frag: u16,
    },
    BadIpChecksum {
        found: u16,
        expected: u16,
    },
    /// TCP data offset below 5 words or beyond the datagram.
    BadDataOffset {
        offset: usize,
        data_offset: u8,
    },
    /// A TCP option's length byte is missing, too short, runs past the
    /// options, or is wrong for its kind.
    BadOptionLength {
        offset: usize,
        kind: u8,
        len: u8,
    },
    /// Checksum over pseudo-header, header and payload does not verify.
    BadTcpChecksum {
        offset: usize,
        found: u16,
        expected: u16,
    },
    /// Encoding: the options need more than 40 bytes.
    OptionsTooLong {
        len: usize,
    },
    /// Encoding: the datagram would exceed 65535 bytes.
    DatagramTooLong {
        len: u64,
    },
}

impl WireError {
    /// Byte offset of the offending field, from the start of the IPv4 header.
    pub fn offset(&self) -> usize {
        match *self {
            WireError::Truncated { offset, .. } => offset,
            WireError::BadVersion { .. } | WireError::BadIhl { .. } => 0,
            WireError::BadTotalLength { .. } => 2,
            WireError::Fragmented { .. } => 6,
            WireError::NotTcp { .. } => 9,
            WireError::BadIpChecksum { .. } => 10,
            WireError::BadDataOffset { offset, .. } => offset,
            WireError::BadOptionLength { offset, .. } => offset,
            WireError::BadTcpChecksum { offset, .. } => offset,
            WireError::OptionsTooLong { .. } | WireError::DatagramTooLong { .. } => 0,
        }
    }
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.offset();
        match *self {
            WireError::Truncated { needed, have, .. } => {
                write!(f, "byte {at}: truncated: need {needed} bytes, have {have}")
            }
            WireError::BadVersion { version } => {
                write!(f, "byte {at}: IP version {version}, expected 4")
            }
            WireError::BadIhl { ihl } => {
                write!(f, "byte {at}: IPv4 header length {ihl} words, minimum is 5")
            }
            WireError::BadTotalLength { total_len, min } => {
                write!(
                    f,
                    "byte {at}: IPv4 total length {total_len} is below the {min} header bytes"
                )
            }
            WireError::NotTcp { protocol } => {
                write!(f, "byte {at}: IP protocol {protocol} is not TCP (6)")
            }
            WireError::Fragmented { flags_frag } => {
                write!(
                    f,
                    "byte {at}: IPv4 fragment (flags/offset 0x{flags_frag:04x}) not supported"
                )
            }
            WireError::BadIpChecksum { found, expected } => {
                write!(
                    f,
                    "byte {at}: bad IPv4 header checksum 0x{found:04x}, expected 0x{expected:04x}"
                )
            }
            WireError::BadDataOffset { data_offset, .. } => {
                write!(f, "byte {at}: bad TCP data offset {data_offset} words")
            }
            WireError::BadOptionLength { kind, len, .. } => {
                write!(f, "byte {at}: bad length {len} for TCP option kind {kind}")
            }
            WireError::BadTcpChecksum {
                found, expected, ..
            } => {
                write!(
                    f,
                    "byte {at}: bad TCP checksum 0x{found:04x}, expected 0x{expected:04x}"
                )
            }
            WireError::OptionsTooLong { len } => {
                write!(
                    f,
                    "TCP options need {len} bytes, at most {MAX_TCP_OPTIONS_LEN} fit"
                )
            }
            WireError::DatagramTooLong { len } => {
                write!(f, "IPv4 datagram of {len} bytes exceeds 65535")
            }
        }
    }
}

impl std::error::Error for WireError {}

/// Serialise `pkt` into `buf` (cleared first; its capacity is reused, so a
/// caller that keeps one buffer allocates nothing per packet). Writes exactly
/// `pkt.ip_len()` bytes.
///
/// Only `sack_len` clamped to [`MAX_SACK_BLOCKS`] blocks are written. Fails
/// only if the options exceed 40 bytes or the datagram 65535 bytes.
pub fn encode(pkt: &Packet, buf: &mut Vec<u8>) -> Result<(), WireError> {
    let seg = &pkt.seg;
    let opt_len = seg.options_len() as usize;
    if opt_len > MAX_TCP_OPTIONS_LEN {
        return Err(WireError::OptionsTooLong { len: opt_len });
    }
    let tcp_hdr_len = 20 + opt_len;
    let total = 20u64 + tcp_hdr_len as u64 + seg.payload_len as u64;
    if total > u16::MAX as u64 {
        return Err(WireError::DatagramTooLong { len: total });
    }
    buf.clear();

    // IPv4 header (RFC 791 §3.1): version 4, IHL 5, DSCP/ECN 0, DF, no options.
    buf.push(0x45);
    buf.push(0);
    buf.extend_from_slice(&(total as u16).to_be_bytes());
    buf.extend_from_slice(&pkt.ip_id.to_be_bytes());
    buf.extend_from_slice(&IP_FLAG_DF.to_be_bytes());
    buf.push(pkt.ttl);
    buf.push(IPPROTO_TCP);
    buf.extend_from_slice(&[0, 0]); // checksum, filled below
    buf.extend_from_slice(&pkt.src);
    buf.extend_from_slice(&pkt.dst);
    let ip_csum = fold(Sum16BitWords::new().add_slice(&buf[..20]));
    buf[10..12].copy_from_slice(&ip_csum.to_be_bytes());

    // TCP header (RFC 9293 §3.1).
    buf.extend_from_slice(&seg.src_port.to_be_bytes());
    buf.extend_from_slice(&seg.dst_port.to_be_bytes());
    buf.extend_from_slice(&seg.seq.0.to_be_bytes());
    buf.extend_from_slice(&seg.ack.0.to_be_bytes());
    buf.push(((tcp_hdr_len / 4) as u8) << 4);
    buf.push(seg.flags.0);
    buf.extend_from_slice(&seg.window.to_be_bytes());
    buf.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
    write_options(seg, buf);
    debug_assert_eq!(buf.len(), 20 + tcp_hdr_len);
    buf.resize(total as usize, 0);

    let csum = tcp_checksum(&pkt.src, &pkt.dst, &buf[20..]);
    buf[36..38].copy_from_slice(&csum.to_be_bytes());
    Ok(())
}

/// Options in the order and padding of Linux `tcp_options_write`
/// (net/ipv4/tcp_output.c), matching [`Segment::options_len`].
fn write_options(seg: &Segment, buf: &mut Vec<u8>) {
    if let Some(mss) = seg.mss {
        buf.extend_from_slice(&[OPT_MSS, 4]);
        buf.extend_from_slice(&mss.to_be_bytes());
    }
    if let Some((tsval, tsecr)) = seg.timestamps {
        if seg.sack_permitted {
            buf.extend_from_slice(&[OPT_SACK_PERM, 2, OPT_TS, 10]);
        } else {
            buf.extend_from_slice(&[OPT_NOP, OPT_NOP, OPT_TS, 10]);
        }
        buf.extend_from_slice(&tsval.to_be_bytes());
        buf.extend_from_slice(&tsecr.to_be_bytes());
    } else if seg.sack_permitted {
        buf.extend_from_slice(&[OPT_NOP, OPT_NOP, OPT_SACK_PERM, 2]);
    }
    if let Some(shift) = seg.wscale {
        buf.extend_from_slice(&[OPT_NOP, OPT_WS, 3, shift]);
    }
    let n = (seg.sack_len as usize).min(MAX_SACK_BLOCKS);
    if n > 0 {
        buf.extend_from_slice(&[OPT_NOP, OPT_NOP, OPT_SACK, (2 + 8 * n) as u8]);
        for &(left, right) in &seg.sack_blocks[..n] {
            buf.extend_from_slice(&left.0.to_be_bytes());
            buf.extend_from_slice(&right.0.to_be_bytes());
        }
    }
}

/// TCP checksum over the IPv4 pseudo-header (RFC 9293 §3.1) and `tcp`
/// (header + payload) with the checksum field taken as zero.
fn tcp_checksum(src: &[u8; 4], dst: &[u8; 4], tcp: &[u8]) -> u16 {
    let sum = Sum16BitWords::new()
        .add_slice(src)
        .add_slice(dst)
        .add_2bytes([0, IPPROTO_TCP])
        .add_2bytes((tcp.len() as u16).to_be_bytes())
        .add_slice(&tcp[..16])
        .add_slice(&tcp[18..]);
    fold(sum)
}

/// The RFC 1071 checksum as the number to store big-endian. etherparse sums
/// words in native byte order, so its folded result is byte-swapped on
/// little-endian machines; `to_be` undoes that (a no-op on big-endian).
fn fold(sum: Sum16BitWords) -> u16 {
    sum.ones_complement().to_be()
}

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

/// Parse one IPv4 datagram carrying TCP and verify both checksums. Bytes
/// after the IPv4 total length (link padding) are ignored; IP options and
/// unknown TCP options are skipped; `payload_len` is what the datagram
/// carries after the TCP header.
pub fn decode(bytes: &[u8]) -> Result<Packet, WireError> {
    need(bytes, 0, 20)?;
    let version = bytes[0] >> 4;
    if version != 4 {
        return Err(WireError::BadVersion { version });
    }
    let ihl = bytes[0] & 0x0f;
    if ihl < 5 {
        return Err(WireError::BadIhl { ihl });
    }
    let ip_hdr_len = ihl as usize * 4;
    need(bytes, 0, ip_hdr_len)?;
    let total_len = be16(bytes, 2);
    if (total_len as usize) < ip_hdr_len + 20 {
        return Err(WireError::BadTotalLength {
            total_len,
            min: ip_hdr_len + 20,
        });
    }
    need(bytes, 0, total_len as usize)?;
    let dgram = &bytes[..total_len as usize];

    let found = be16(dgram, 10);
    let expected = fold(
        Sum16BitWords::new()
            .add_slice(&dgram[..10])
            .add_slice(&dgram[12..ip_hdr_len]),
    );
    if found != expected {
        return Err(WireError::BadIpChecksum { found, expected });
    }
    let protocol = dgram[9];
    if protocol != IPPROTO_TCP {
        return Err(WireError::NotTcp { protocol });
    }
    let flags_frag = be16(dgram, 6);
    if flags_frag & (IP_FLAG_MF | IP_FRAG_OFFSET_MASK) != 0 {
        return Err(WireError::Fragmented { flags_frag });
    }
    let src: [u8; 4] = [dgram[12], dgram[13], dgram[14], dgram[15]];
    let dst: [u8; 4] = [dgram[16], dgram[17], dgram[18], dgram[19]];

    let t = ip_hdr_len; // start of TCP header
    let tcp = &dgram[t..];
    let data_offset = tcp[12] >> 4;
    let tcp_hdr_len = data_offset as usize * 4;
    if data_offset < 5 || tcp_hdr_len > tcp.len() {
        return Err(WireError::BadDataOffset {
            offset: t + 12,
            data_offset,
        });
    }
    let found = be16(tcp, 16);
    let expected = tcp_checksum(&src, &dst, tcp);
    if found != expected {
        return Err(WireError::BadTcpChecksum {
            offset: t + 16,
            found,
            expected,
        });
    }

    let mut seg = Segment {
        src_port: be16(tcp, 0),
        dst_port: be16(tcp, 2),
        seq: SeqNum(be32(tcp, 4)),
        ack: SeqNum(be32(tcp, 8)),
        flags: TcpFlags(tcp[13]),
        window: be16(tcp, 14),
        payload_len: (tcp.len() - tcp_hdr_len) as u32,
        ..Default::default()
    };
    parse_options(&tcp[20..tcp_hdr_len], t + 20, &mut seg)?;
    Ok(Packet {
        src,
        dst,
        ttl: dgram[8],
        ip_id: be16(dgram, 4),
        seg,
    })
}

/// `base` is the offset of `opts[0]` in the datagram, for error messages.
fn parse_options(opts: &[u8], base: usize, seg: &mut Segment) -> Result<(), WireError> {
    let mut i = 0;
    while i < opts.len() {
        let kind = opts[i];
        match kind {
            OPT_EOL => break,
            OPT_NOP => {
                i += 1;
                continue;
            }
            _ => {}
        }
        let bad = |len: u8| WireError::BadOptionLength {
            offset: base + i,
            kind,
            len,
        };
        let Some(&len) = opts.get(i + 1) else {
            return Err(bad(0));
        };
        let l = len as usize;
        if l < 2 || i + l > opts.len() {
            return Err(bad(len));
        }
        let body = &opts[i + 2..i + l];
        match kind {
            OPT_MSS if l == 4 => seg.mss = Some(be16(body, 0)),
            OPT_WS if l == 3 => seg.wscale = Some(body[0]),
            OPT_SACK_PERM if l == 2 => seg.sack_permitted = true,
            OPT_TS if l == 10 => seg.timestamps = Some((be32(body, 0), be32(body, 4))),
            OPT_SACK if (l - 2) & 7 == 0 && (1..=MAX_SACK_BLOCKS).contains(&((l - 2) / 8)) => {
                let n = (l - 2) / 8;
                for (k, block) in body.chunks_exact(8).enumerate() {
                    seg.sack_blocks[k] = (SeqNum(be32(block, 0)), SeqNum(be32(block, 4)));
                }
                seg.sack_len = n as u8;
            }
            OPT_MSS | OPT_WS | OPT_SACK_PERM | OPT_TS | OPT_SACK => return Err(bad(len)),
            _ => {} // unknown option: its length is sane, skip it
        }
        i += l;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn template() -> Packet {
        Packet {
            src: [10, 0, 0, 1],
            dst: [10, 0, 1, 2],
            ttl: 64,
            ip_id: 0x1234,
            seg: Segment {
                src_port: 49152,
                dst_port: 5001,
                seq: SeqNum(1000),
                ack: SeqNum(2000),
                flags: TcpFlags::ACK,
                window: 65535,
                ..Default::default()
            },
        }
    }

    fn encoded(pkt: &Packet) -> Vec<u8> {
        let mut buf = Vec::new();
        encode(pkt, &mut buf).unwrap();
        buf
    }

    #[test]
    fn syn_options_match_linux_layout() {
        let mut pkt = template();
        pkt.seg.flags = TcpFlags::SYN;
        pkt.seg.mss = Some(1460);
        pkt.seg.sack_permitted = true;
        pkt.seg.timestamps = Some((0x01020304, 0));
        pkt.seg.wscale = Some(7);
        let b = encoded(&pkt);
        assert_eq!(b.len(), 60);
        assert_eq!(b.len() as u32, pkt.ip_len());
        assert_eq!(b[32], 10 << 4, "data offset 10 words");
        assert_eq!(
            &b[40..60],
            &[2, 4, 0x05, 0xb4, 4, 2, 8, 10, 1, 2, 3, 4, 0, 0, 0, 0, 1, 3, 3, 7],
        );
    }

    #[test]
    fn sack_perm_without_timestamps_is_nop_padded() {
        let mut pkt = template();
        pkt.seg.sack_permitted = true;
        let b = encoded(&pkt);
        assert_eq!(&b[40..44], &[1, 1, 4, 2]);
    }

    #[test]
    fn ack_with_timestamps_and_sack_blocks() {
        let mut pkt = template();
        pkt.seg.timestamps = Some((7, 9));
        pkt.seg.push_sack(SeqNum(3000), SeqNum(4000));
        pkt.seg.push_sack(SeqNum(5000), SeqNum(6000));
        let b = encoded(&pkt);
        assert_eq!(b.len(), 20 + 20 + 12 + 4 + 16);
        assert_eq!(&b[40..44], &[1, 1, 8, 10]);
        assert_eq!(&b[52..56], &[1, 1, 5, 18]);
        assert_eq!(&b[56..60], &3000u32.to_be_bytes());
        assert_eq!(decode(&b).unwrap(), pkt);
    }

    #[test]
    fn ip_header_fields_and_checksum() {
        let mut pkt = template();
        pkt.seg.payload_len = 1000;
        pkt.seg.timestamps = Some((1, 2));
        let b = encoded(&pkt);
        assert_eq!(b.len(), 1052);
        assert_eq!(
            &b[0..12],
            &[0x45, 0, 0x04, 0x1c, 0x12, 0x34, 0x40, 0, 64, 6, b[10], b[11]]
        );
        // A correct header sums to 0xffff (RFC 1071).
        assert_eq!(fold(Sum16BitWords::new().add_slice(&b[..20])), 0);
        assert!(b[72..].iter().all(|&x| x == 0));
    }

    #[test]
    fn known_checksums() {
        // Cross-checked with etherparse's own TCP header checksum routine.
        let mut pkt = template();
        pkt.seg.payload_len = 3;
        pkt.seg.mss = Some(536);
        let b = encoded(&pkt);
        let (ip, rest) = etherparse::Ipv4Header::from_slice(&b).unwrap();
        assert_eq!(ip.header_checksum, ip.calc_header_checksum());
        let (tcp, payload) = etherparse::TcpHeader::from_slice(rest).unwrap();
        assert_eq!(tcp.checksum, tcp.calc_checksum_ipv4(&ip, payload).unwrap());
        assert_eq!(tcp.options.as_slice(), &[2, 4, 2, 24]);
    }

    #[test]
    fn encode_reuses_buffer() {
        let mut buf = vec![0xffu8; 3];
        let pkt = template();
        encode(&pkt, &mut buf).unwrap();
        assert_eq!(buf.len(), 40);
        let cap = buf.capacity();
        encode(&pkt, &mut buf).unwrap();
        assert_eq!(buf.capacity(), cap);
    }

    #[test]
    fn encode_rejects_oversize() {
        let mut pkt = template();
        pkt.seg.payload_len = 65535 - 40 + 1;
        assert_eq!(
            encode(&pkt, &mut Vec::new()),
            Err(WireError::DatagramTooLong { len: 65536 })
        );
        let mut pkt = template();
        pkt.seg.mss = Some(1);
        pkt.seg.timestamps = Some((0, 0));
        pkt.seg.wscale = Some(0);
        pkt.seg.sack_len = 3;
        assert_eq!(
            encode(&pkt, &mut Vec::new()),
            Err(WireError::OptionsTooLong { len: 48 })
        );
    }

    #[test]
    fn decode_errors_name_the_offset() {
        let b = encoded(&template());
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
        assert_eq!(decode(&v), Err(WireError::BadVersion { version: 6 }));

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
        v[39] ^= 1; // urgent pointer
        let e = decode(&v).unwrap_err();
        assert!(
            matches!(e, WireError::BadTcpChecksum { offset: 36, .. }),
            "{e}"
        );

        let mut v = b.clone();
        v[9] = 17;
        fix_ip_checksum(&mut v);
        assert_eq!(decode(&v), Err(WireError::NotTcp { protocol: 17 }));
        assert_eq!(
            decode(&v).unwrap_err().to_string(),
            "byte 9: IP protocol 17 is not TCP (6)"
        );
    }

    fn fix_ip_checksum(v: &mut [u8]) {
        v[10] = 0;
        v[11] = 0;
        let c = fold(Sum16BitWords::new().add_slice(&v[..20]));
        v[10..12].copy_from_slice(&c.to_be_bytes());
    }

    fn fix_tcp_checksum(v: &mut [u8]) {
        let src = [v[12], v[13], v[14], v[15]];
        let dst = [v[16], v[17], v[18], v[19]];
        let c = tcp_checksum(&src, &dst, &v[20..]);
        v[36..38].copy_from_slice(&c.to_be_bytes());
    }

    #[test]
    fn bad_option_length_is_located() {
        let mut pkt = template();
        pkt.seg.mss = Some(1460);
        let mut v = encoded(&pkt);
        v[41] = 5; // MSS claims 5 bytes
        fix_tcp_checksum(&mut v);
        assert_eq!(
            decode(&v),
            Err(WireError::BadOptionLength {
                offset: 40,
                kind: 2,
                len: 5
            })
        );
        v[41] = 1;
        fix_tcp_checksum(&mut v);
        assert_eq!(
            decode(&v).unwrap_err().to_string(),
            "byte 40: bad length 1 for TCP option kind 2"
        );
    }

    #[test]
    fn decode_skips_unknown_options_and_link_padding() {
        let mut pkt = template();
        pkt.seg.mss = Some(1460);
        let mut v = encoded(&pkt);
        v[40..44].copy_from_slice(&[30, 4, 0xaa, 0xbb]); // unknown kind 30 (MPTCP)
        fix_tcp_checksum(&mut v);
        v.extend_from_slice(&[0; 6]); // Ethernet minimum-frame padding
        let got = decode(&v).unwrap();
        assert_eq!(got.seg.mss, None);
        assert_eq!(got.seg.payload_len, 0);
    }

    fn arb_packet() -> impl Strategy<Value = Packet> {
        (
            (
                any::<[u8; 4]>(),
                any::<[u8; 4]>(),
                any::<u8>(),
                any::<u16>(),
            ),
            (
                any::<u16>(),
                any::<u16>(),
                any::<u32>(),
                any::<u32>(),
                any::<u8>(),
                any::<u16>(),
            ),
            (
                proptest::option::of(any::<u16>()),
                proptest::option::of(0u8..15),
                any::<bool>(),
                proptest::option::of(any::<(u32, u32)>()),
            ),
            proptest::collection::vec(any::<(u32, u32)>(), 0..=MAX_SACK_BLOCKS),
            0u32..3000,
        )
            .prop_filter_map(
                "options fit in 40 bytes",
                |(ip, tcp, opts, sacks, payload_len)| {
                    let mut seg = Segment {
                        src_port: tcp.0,
                        dst_port: tcp.1,
                        seq: SeqNum(tcp.2),
                        ack: SeqNum(tcp.3),
                        flags: TcpFlags(tcp.4),
                        window: tcp.5,
                        mss: opts.0,
                        wscale: opts.1,
                        sack_permitted: opts.2,
                        timestamps: opts.3,
                        payload_len,
                        ..Default::default()
                    };
                    for (l, r) in sacks {
                        seg.push_sack(SeqNum(l), SeqNum(r));
                    }
                    (seg.options_len() as usize <= MAX_TCP_OPTIONS_LEN).then_some(Packet {
                        src: ip.0,
                        dst: ip.1,
                        ttl: ip.2,
                        ip_id: ip.3,
                        seg,
                    })
                },
            )
    }

    proptest! {
        #[test]
        fn roundtrip(pkt in arb_packet()) {
            let mut buf = Vec::new();
            encode(&pkt, &mut buf).unwrap();
            prop_assert_eq!(buf.len() as u32, pkt.ip_len());
            prop_assert_eq!(decode(&buf).unwrap(), pkt);
        }

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode(&bytes);
        }

        #[test]
        fn mutated_packets_never_panic(pkt in arb_packet(), at in any::<usize>(), val in any::<u8>(), cut in any::<usize>()) {
            let mut buf = Vec::new();
            encode(&pkt, &mut buf).unwrap();
            let i = at % buf.len();
            buf[i] = val;
            // Keep the checksums right sometimes so option parsing is reached.
            if at % 2 == 0 { fix_ip_checksum(&mut buf); }
            if at % 3 == 0 && buf.len() >= 40 { fix_tcp_checksum(&mut buf); }
            let _ = decode(&buf);
            let _ = decode(&buf[..cut % (buf.len() + 1)]);
        }
    }
}
