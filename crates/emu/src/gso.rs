//! What a TUN opened with `IFF_VNET_HDR` and TSO offload hands over: each
//! read starts with a `struct virtio_net_hdr` (include/uapi/linux/
//! virtio_net.h, 10 bytes, little-endian on this machine) and may carry a
//! TCP super-packet of up to 64 KiB that the kernel left for the device to
//! cut into `gso_size` segments, and checksums left partial
//! (`VIRTIO_NET_HDR_F_NEEDS_CSUM`). This module does the device's part:
//! one datagram per segment, as the kernel's own software segmentation
//! (`tcp_gso_segment`) would cut it, with complete checksums. One read
//! then brings up to 44 full-sized segments instead of one.

use etherparse::checksum::Sum16BitWords;

/// `sizeof(struct virtio_net_hdr)`, the TUN default (TUNSETVNETHDRSZ).
pub const VNET_HDR_LEN: usize = 10;
const F_NEEDS_CSUM: u8 = 1;
const GSO_NONE: u8 = 0;
const GSO_TCPV4: u8 = 1;
/// `VIRTIO_NET_HDR_GSO_ECN`, or-ed into the type.
const GSO_ECN: u8 = 0x80;
const TCP_FIN: u8 = 0x01;
const TCP_PSH: u8 = 0x08;
const TCP_CWR: u8 = 0x80;

/// Why a read could not be cut into datagrams (the caller counts it as
/// malformed).
#[derive(Debug, PartialEq, Eq)]
pub struct GsoError(pub &'static str);

/// Cut `read` (virtio header + packet) into complete IPv4 datagrams, each
/// handed to `emit` (built in `scratch`).
pub fn split(read: &[u8], scratch: &mut Vec<u8>, mut emit: impl FnMut(&[u8])) -> Result<(), GsoError> {
    if read.len() < VNET_HDR_LEN + 20 {
        return Err(GsoError("shorter than a virtio header and an IPv4 header"));
    }
    let (h, pkt) = read.split_at(VNET_HDR_LEN);
    let (flags, gso_type) = (h[0], h[1] & !GSO_ECN);
    let gso_size = u16::from_le_bytes([h[4], h[5]]) as usize;
    let needs_csum = flags & F_NEEDS_CSUM != 0;
    match gso_type {
        GSO_NONE => {
            if !needs_csum {
                emit(pkt);
                return Ok(());
            }
            scratch.clear();
            scratch.extend_from_slice(pkt);
            fill_transport_checksum(scratch)?;
            emit(scratch);
            Ok(())
        }
        GSO_TCPV4 => {
            let ihl = ((pkt[0] & 0x0f) as usize) * 4;
            if pkt.len() < ihl + 20 || pkt[9] != 6 || gso_size == 0 {
                return Err(GsoError("a TCPv4 super-packet without a TCP header"));
            }
            let thl = ((pkt[ihl + 12] >> 4) as usize) * 4;
            let hl = ihl + thl;
            if pkt.len() < hl {
                return Err(GsoError("a TCPv4 super-packet shorter than its headers"));
            }
            let payload = &pkt[hl..];
            let n = payload.len().div_ceil(gso_size).max(1);
            let id = u16::from_be_bytes([pkt[4], pkt[5]]);
            let seq = u32::from_be_bytes([pkt[ihl + 4], pkt[ihl + 5], pkt[ihl + 6], pkt[ihl + 7]]);
            for i in 0..n {
                let chunk = &payload[(i * gso_size).min(payload.len())..((i + 1) * gso_size).min(payload.len())];
                scratch.clear();
                scratch.extend_from_slice(&pkt[..hl]);
                scratch.extend_from_slice(chunk);
                let total = scratch.len() as u16;
                scratch[2..4].copy_from_slice(&total.to_be_bytes());
                // Consecutive IP IDs, as tcp_gso_segment's inet_gso_segment assigns them.
                scratch[4..6].copy_from_slice(&id.wrapping_add(i as u16).to_be_bytes());
                let s = seq.wrapping_add((i * gso_size) as u32);
                scratch[ihl + 4..ihl + 8].copy_from_slice(&s.to_be_bytes());
                // FIN and PSH stay on the last segment, CWR on the first (tcp_gso_segment).
                if i + 1 < n {
                    scratch[ihl + 13] &= !(TCP_FIN | TCP_PSH);
                }
                if i > 0 {
                    scratch[ihl + 13] &= !TCP_CWR;
                }
                fill_ip_checksum(scratch, ihl);
                fill_transport_checksum(scratch)?;
                emit(scratch);
            }
            Ok(())
        }
        _ => Err(GsoError("a super-packet of a kind the TUN was not offered (not TCPv4)")),
    }
}

fn fold(sum: Sum16BitWords) -> [u8; 2] {
    sum.ones_complement().to_be().to_be_bytes()
}

fn fill_ip_checksum(d: &mut [u8], ihl: usize) {
    d[10] = 0;
    d[11] = 0;
    let c = fold(Sum16BitWords::new().add_slice(&d[..ihl]));
    d[10..12].copy_from_slice(&c);
}

/// The TCP or UDP checksum of the IPv4 datagram `d`, computed in full
/// (RFC 9293 §3.1, RFC 768) over the pseudo-header and the segment.
fn fill_transport_checksum(d: &mut [u8]) -> Result<(), GsoError> {
    let ihl = ((d[0] & 0x0f) as usize) * 4;
    let at = match d[9] {
        6 => 16,
        17 => 6,
        _ => return Ok(()),
    };
    if d.len() < ihl + at + 2 {
        return Err(GsoError("a transport header shorter than its checksum field"));
    }
    let (ip, seg) = d.split_at_mut(ihl);
    seg[at] = 0;
    seg[at + 1] = 0;
    let sum = Sum16BitWords::new()
        .add_slice(&ip[12..20])
        .add_2bytes([0, ip[9]])
        .add_2bytes((seg.len() as u16).to_be_bytes())
        .add_slice(seg);
    let c = fold(sum);
    seg[at..at + 2].copy_from_slice(&c);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use airtcp_core::{wire, Packet, Segment, SeqNum, TcpFlags};

    /// A kernel's 3-segment TSO super-packet (payload 3 x 1000 bytes minus
    /// 200, FIN|PSH set) with a partial checksum: cut into three datagrams
    /// that decode with valid checksums, consecutive IDs and sequence
    /// numbers, FIN and PSH on the last only.
    #[test]
    fn tso_superpacket_becomes_valid_segments() {
        let seg = Segment {
            src_port: 40000,
            dst_port: 5201,
            seq: SeqNum(1000),
            ack: SeqNum(7),
            flags: TcpFlags::ACK | TcpFlags::PSH | TcpFlags::FIN,
            window: 500,
            timestamps: Some((11, 22)),
            payload_len: 2800,
            ..Default::default()
        };
        let pkt = Packet::tcp([10, 0, 0, 1], [10, 0, 0, 2], 64, 9, seg);
        let mut bytes = Vec::new();
        wire::encode_with_payload(&pkt, &vec![0x5a; 2800], &mut bytes).unwrap();
        bytes[36] ^= 0xff; // the partial checksum the kernel leaves: anything
        let mut read = vec![F_NEEDS_CSUM, GSO_TCPV4, 52, 0, 0xe8, 0x03, 0, 0, 0, 0];
        read.extend_from_slice(&bytes);
        let mut out = Vec::new();
        split(&read, &mut Vec::new(), |d| out.push(wire::decode(d).expect("valid checksums"))).unwrap();
        assert_eq!(out.len(), 3);
        let s: Vec<_> = out.iter().map(|p| *p.segment().unwrap()).collect();
        assert_eq!(s.iter().map(|s| (s.seq.0, s.payload_len)).collect::<Vec<_>>(), vec![(1000, 1000), (2000, 1000), (3000, 800)]);
        assert_eq!(out.iter().map(|p| p.ip.ip_id).collect::<Vec<_>>(), vec![9, 10, 11]);
        assert!(!s[0].flags.fin() && !s[1].flags.contains(TcpFlags::PSH) && s[2].flags.fin() && s[2].flags.contains(TcpFlags::PSH));
    }

    #[test]
    fn plain_packet_passes_and_garbage_is_an_error() {
        let mut got = 0;
        let mut read = vec![0u8; VNET_HDR_LEN];
        read.extend_from_slice(&[0x45; 40]);
        split(&read, &mut Vec::new(), |_| got += 1).unwrap();
        assert_eq!(got, 1);
        assert!(split(&[0; 12], &mut Vec::new(), |_| {}).is_err());
        let mut bad = vec![0, 7, 0, 0, 0, 0, 0, 0, 0, 0];
        bad.extend_from_slice(&[0x45; 40]);
        assert!(split(&bad, &mut Vec::new(), |_| {}).is_err());
    }
}
