//! TCP header and options (RFC 9293 §3.1) with the option layout Linux uses.

use super::checksum;
use super::{be16, be32, WireError};
use crate::packet::{proto, Ipv4Header};
use crate::segment::{Segment, TcpFlags, WiTcp, MAX_SACK_BLOCKS, MAX_TCP_OPTIONS_LEN, WITCP_EXID};
use crate::seq::SeqNum;

/// TCP header length without options.
pub(super) const HEADER_LEN: usize = 20;
/// Offset of the checksum field in the TCP header.
const CSUM_AT: usize = 16;

// TCP option kinds (IANA "TCP Option Kind Numbers"; RFC 9293, 7323, 2018).
const OPT_EOL: u8 = 0;
const OPT_NOP: u8 = 1;
const OPT_MSS: u8 = 2;
const OPT_WS: u8 = 3;
const OPT_SACK_PERM: u8 = 4;
const OPT_SACK: u8 = 5;
const OPT_TS: u8 = 8;
/// RFC 4727 §7.2 experimental kind, shared through ExIDs (RFC 6994).
const OPT_EXP: u8 = 253;
/// Kind, length, 16-bit ExID, one data byte.
const WITCP_OPT_LEN: u8 = 5;

/// Bytes the segment occupies after the IPv4 header, or why it cannot be encoded.
pub(super) fn wire_len(seg: &Segment) -> Result<u64, WireError> {
    let opt_len = seg.options_len() as usize;
    if opt_len > MAX_TCP_OPTIONS_LEN {
        return Err(WireError::OptionsTooLong { len: opt_len });
    }
    Ok((HEADER_LEN + opt_len) as u64 + seg.payload_len as u64)
}

/// Append the segment (header, options, zero payload) and its checksum.
/// The caller has checked [`wire_len`].
pub(super) fn write(seg: &Segment, ip: &Ipv4Header, buf: &mut Vec<u8>) {
    let start = buf.len();
    let hdr_len = HEADER_LEN + seg.options_len() as usize;
    buf.extend_from_slice(&seg.src_port.to_be_bytes());
    buf.extend_from_slice(&seg.dst_port.to_be_bytes());
    buf.extend_from_slice(&seg.seq.0.to_be_bytes());
    buf.extend_from_slice(&seg.ack.0.to_be_bytes());
    buf.push(((hdr_len / 4) as u8) << 4);
    buf.push(seg.flags.0);
    buf.extend_from_slice(&seg.window.to_be_bytes());
    buf.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
    write_options(seg, buf);
    debug_assert_eq!(buf.len() - start, hdr_len);
    buf.resize(start + hdr_len + seg.payload_len as usize, 0);
    let csum = checksum::pseudo(&ip.src, &ip.dst, proto::TCP, &buf[start..], CSUM_AT);
    buf[start + CSUM_AT..start + CSUM_AT + 2].copy_from_slice(&csum.to_be_bytes());
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
    if let Some(sig) = seg.witcp {
        let exid = WITCP_EXID.to_be_bytes();
        buf.extend_from_slice(&[OPT_NOP, OPT_NOP, OPT_NOP, OPT_EXP, WITCP_OPT_LEN, exid[0], exid[1], sig as u8]);
    }
}

/// Parse the segment starting at `bytes[at]` and running to the end of
/// `bytes` (the end of the IP datagram), verifying its checksum. The caller
/// guarantees at least [`HEADER_LEN`] bytes. Unknown options are skipped;
/// `payload_len` is what follows the header.
pub(super) fn parse(bytes: &[u8], at: usize, ip: &Ipv4Header) -> Result<Segment, WireError> {
    let tcp = &bytes[at..];
    let data_offset = tcp[12] >> 4;
    let hdr_len = data_offset as usize * 4;
    if data_offset < 5 || hdr_len > tcp.len() {
        return Err(WireError::BadDataOffset {
            offset: at + 12,
            data_offset,
        });
    }
    let found = be16(tcp, CSUM_AT);
    let expected = checksum::pseudo(&ip.src, &ip.dst, proto::TCP, tcp, CSUM_AT);
    if found != expected {
        return Err(WireError::BadTcpChecksum {
            offset: at + CSUM_AT,
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
        payload_len: (tcp.len() - hdr_len) as u32,
        ..Default::default()
    };
    parse_options(&tcp[HEADER_LEN..hdr_len], at + HEADER_LEN, &mut seg)?;
    Ok(seg)
}

/// `base` is the offset of `opts[0]` in the input, for error messages.
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
                for (k, block) in body.chunks_exact(8).enumerate() {
                    seg.sack_blocks[k] = (SeqNum(be32(block, 0)), SeqNum(be32(block, 4)));
                }
                seg.sack_len = ((l - 2) / 8) as u8;
            }
            OPT_MSS | OPT_WS | OPT_SACK_PERM | OPT_TS | OPT_SACK => return Err(bad(len)),
            // RFC 6994 §3: an experimental option carries its ExID first; only
            // ours is interpreted, other experiments are skipped like unknown
            // kinds, and so is a Wi-TCP byte we do not know.
            OPT_EXP if l >= 4 && be16(body, 0) == WITCP_EXID => {
                if len != WITCP_OPT_LEN {
                    return Err(bad(len));
                }
                seg.witcp = WiTcp::from_byte(body[2]);
            }
            _ => {} // unknown option: its length is sane, skip it
        }
        i += l;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{encoded, fix_checksums, seg, tcp_template};
    use super::super::{decode, encode};
    use super::*;

    #[test]
    fn syn_options_match_linux_layout() {
        let mut pkt = tcp_template();
        let s = seg(&mut pkt);
        s.flags = TcpFlags::SYN;
        s.mss = Some(1460);
        s.sack_permitted = true;
        s.timestamps = Some((0x01020304, 0));
        s.wscale = Some(7);
        let b = encoded(&pkt);
        assert_eq!(b.len(), 60);
        assert_eq!(b.len() as u32, pkt.ip_len());
        assert_eq!(b[32], 10 << 4, "data offset 10 words");
        assert_eq!(
            &b[40..60],
            &[2, 4, 0x05, 0xb4, 4, 2, 8, 10, 1, 2, 3, 4, 0, 0, 0, 0, 1, 3, 3, 7]
        );
    }

    #[test]
    fn sack_perm_without_timestamps_is_nop_padded() {
        let mut pkt = tcp_template();
        seg(&mut pkt).sack_permitted = true;
        let b = encoded(&pkt);
        assert_eq!(&b[40..44], &[1, 1, 4, 2]);
    }

    #[test]
    fn ack_with_timestamps_and_sack_blocks() {
        let mut pkt = tcp_template();
        let s = seg(&mut pkt);
        s.timestamps = Some((7, 9));
        s.push_sack(SeqNum(3000), SeqNum(4000));
        s.push_sack(SeqNum(5000), SeqNum(6000));
        let b = encoded(&pkt);
        assert_eq!(b.len(), 20 + 20 + 12 + 4 + 16);
        assert_eq!(&b[40..44], &[1, 1, 8, 10]);
        assert_eq!(&b[52..56], &[1, 1, 5, 18]);
        assert_eq!(&b[56..60], &3000u32.to_be_bytes());
        assert_eq!(decode(&b).unwrap(), pkt);
    }

    #[test]
    fn known_checksums() {
        // Cross-checked with etherparse's own TCP header checksum routine.
        let mut pkt = tcp_template();
        seg(&mut pkt).payload_len = 3;
        seg(&mut pkt).mss = Some(536);
        let b = encoded(&pkt);
        let (ip, rest) = etherparse::Ipv4Header::from_slice(&b).unwrap();
        assert_eq!(ip.header_checksum, ip.calc_header_checksum());
        let (tcp, payload) = etherparse::TcpHeader::from_slice(rest).unwrap();
        assert_eq!(tcp.checksum, tcp.calc_checksum_ipv4(&ip, payload).unwrap());
        assert_eq!(tcp.options.as_slice(), &[2, 4, 2, 24]);
    }

    #[test]
    fn options_over_40_bytes_are_refused() {
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
    }

    #[test]
    fn bad_option_length_is_located() {
        let mut pkt = tcp_template();
        seg(&mut pkt).mss = Some(1460);
        let mut v = encoded(&pkt);
        v[41] = 5; // MSS claims 5 bytes
        fix_checksums(&mut v, 0);
        assert_eq!(
            decode(&v),
            Err(WireError::BadOptionLength {
                offset: 40,
                kind: 2,
                len: 5
            })
        );
        v[41] = 1;
        fix_checksums(&mut v, 0);
        assert_eq!(
            decode(&v).unwrap_err().to_string(),
            "byte 40: bad length 1 for TCP option kind 2"
        );
    }

    #[test]
    fn bad_checksum_and_data_offset_are_located() {
        let b = encoded(&tcp_template());
        let mut v = b.clone();
        v[39] ^= 1; // urgent pointer
        let e = decode(&v).unwrap_err();
        assert!(
            matches!(e, WireError::BadTcpChecksum { offset: 36, .. }),
            "{e}"
        );

        let mut v = b.clone();
        v[32] = 6 << 4; // 24-byte header in a 20-byte segment
        assert_eq!(
            decode(&v),
            Err(WireError::BadDataOffset {
                offset: 32,
                data_offset: 6
            })
        );
    }

    #[test]
    fn witcp_option_is_kind_253_with_its_exid_after_the_others() {
        let mut pkt = tcp_template();
        let s = seg(&mut pkt);
        s.timestamps = Some((7, 9));
        s.witcp = Some(WiTcp::Eho);
        let b = encoded(&pkt);
        assert_eq!(b.len(), 20 + 20 + 12 + 8);
        assert_eq!(&b[52..60], &[1, 1, 1, 253, 5, 0x57, 0x54, 1]);
        assert_eq!(decode(&b).unwrap(), pkt);
        seg(&mut pkt).witcp = Some(WiTcp::Ehc);
        assert_eq!(encoded(&pkt)[59], 2);
        assert_eq!(decode(&encoded(&pkt)).unwrap(), pkt);

        // Another experiment's ExID, or an unknown Wi-TCP byte: skipped.
        let mut v = b.clone();
        v[57] = 0x55;
        fix_checksums(&mut v, 0);
        assert_eq!(decode(&v).unwrap().segment().unwrap().witcp, None);
        let mut v = b.clone();
        v[59] = 9;
        fix_checksums(&mut v, 0);
        assert_eq!(decode(&v).unwrap().segment().unwrap().witcp, None);
        // Our ExID with the wrong length is an error at the option.
        let mut v = b.clone();
        v[55..60].copy_from_slice(&[253, 4, 0x57, 0x54, 1]);
        fix_checksums(&mut v, 0);
        assert_eq!(decode(&v), Err(WireError::BadOptionLength { offset: 55, kind: 253, len: 4 }));
    }

    #[test]
    fn decode_skips_unknown_options_and_link_padding() {
        let mut pkt = tcp_template();
        seg(&mut pkt).mss = Some(1460);
        let mut v = encoded(&pkt);
        v[40..44].copy_from_slice(&[30, 4, 0xaa, 0xbb]); // unknown kind 30 (MPTCP)
        fix_checksums(&mut v, 0);
        v.extend_from_slice(&[0; 6]); // Ethernet minimum-frame padding
        let got = decode(&v).unwrap();
        assert_eq!(got.segment().unwrap().mss, None);
        assert_eq!(got.segment().unwrap().payload_len, 0);
    }
}
