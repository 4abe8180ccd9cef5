//! The write side's batching: what GRO does in a NIC driver, done before
//! the write. A TUN write is one system call, and it runs the receiving
//! kernel's whole IP and TCP input in the writer's context; written one
//! datagram at a time, 1500-byte packets cost one call each. A TUN opened
//! with `IFF_VNET_HDR` takes a `struct virtio_net_hdr` before the packet,
//! and a TCPv4 super-packet with `gso_type = VIRTIO_NET_HDR_GSO_TCPV4`,
//! `gso_size` = the segments' payload and a partial checksum
//! (`VIRTIO_NET_HDR_F_NEEDS_CSUM`) becomes one GSO skb, which the
//! receiving stack takes as it takes a GRO-merged packet from a NIC: one
//! pass through IP and TCP for up to 64 KiB.
//!
//! TUN has no multi-packet write (`writev` gathers the pieces of one
//! packet; `tun_get_user`'s batching, `tun_rx_batched`, is reachable only
//! with `MSG_MORE` through vhost-net's `sendmsg`, not from a file
//! descriptor), so merging segments is the batching primitive left.
//!
//! Only what the kernel's own segmentation would cut back into the same
//! datagrams is merged (the rules of `tcp_gro_receive` and the inverse of
//! `tcp_gso_segment`, net/ipv4/tcp_offload.c): consecutive datagrams for
//! the same TUN, of one TCP flow, in sequence, with consecutive IP IDs,
//! identical IP headers otherwise (TOS and ECN, TTL, DF, addresses, no
//! options), identical TCP headers otherwise (ACK number, flags, window,
//! options with timestamps), every payload `gso_size` bytes but the last.
//! PSH may only be on the last (it ends the batch, as in GRO), CWR only on
//! the first (`VIRTIO_NET_HDR_GSO_ECN` then says so); a SYN, RST, FIN or
//! URG segment, or a segment without payload, is written alone. A single
//! datagram leaves as it is, after a zero virtio header.

use etherparse::checksum::Sum16BitWords;

use crate::gso::VNET_HDR_LEN;

const F_NEEDS_CSUM: u8 = 1;
const GSO_TCPV4: u8 = 1;
/// `VIRTIO_NET_HDR_GSO_ECN`: the first segment carries CWR (`SKB_GSO_TCP_ECN`).
const GSO_ECN: u8 = 0x80;
const FIN: u8 = 0x01;
const SYN: u8 = 0x02;
const RST: u8 = 0x04;
const PSH: u8 = 0x08;
const URG: u8 = 0x20;
const CWR: u8 = 0x80;
/// The IPv4 total length is 16 bits: a super-packet is at most this long.
const MAX_DATAGRAM: usize = 65_535;
/// `offsetof(struct tcphdr, check)`.
const TCP_CHECK_AT: usize = 16;

/// What is pending for one TUN: a virtio header, then the first
/// datagram's headers, then the payloads merged so far.
#[derive(Default)]
struct Batch {
    buf: Vec<u8>,
    segs: u32,
    /// IPv4 header length of the first datagram (0: it cannot be merged with).
    ihl: usize,
    /// IPv4 + TCP header length.
    hl: usize,
    /// Payload of the first segment: the `gso_size` every other must match.
    mss: usize,
    next_seq: u32,
    next_id: u16,
    /// Whether another segment may still join (no PSH yet, no short one).
    open: bool,
}

/// One pending batch per TUN, written when a datagram that cannot join
/// arrives for that TUN or at [`Coalescer::flush`] (the end of a wake).
/// Allocates only when a TUN's first batch grows its buffer.
#[derive(Default)]
pub struct Coalescer {
    batches: Vec<Batch>,
}

/// A write the coalescer asks for: the TUN, the bytes (virtio header
/// first), and how many datagrams they carry.
pub type Write<'a> = &'a mut dyn FnMut(usize, &[u8], u32);

impl Coalescer {
    pub fn new(tuns: usize) -> Coalescer {
        Coalescer { batches: (0..tuns).map(|_| Batch { buf: Vec::with_capacity(MAX_DATAGRAM + VNET_HDR_LEN), ..Batch::default() }).collect() }
    }

    /// Queue datagram `d` (a complete IPv4 datagram with valid checksums)
    /// for TUN `tun`: merged into its pending batch if it continues it,
    /// else that batch is written first and `d` starts the next.
    pub fn push(&mut self, tun: usize, d: &[u8], write: Write) {
        let b = &mut self.batches[tun];
        if b.segs > 0 && b.accepts(d) {
            b.append(d);
            return;
        }
        b.write(tun, write);
        b.start(d);
    }

    /// Write every pending batch.
    pub fn flush(&mut self, write: Write) {
        for (tun, b) in self.batches.iter_mut().enumerate() {
            b.write(tun, write);
        }
    }
}

fn be16(d: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([d[at], d[at + 1]])
}

fn be32(d: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([d[at], d[at + 1], d[at + 2], d[at + 3]])
}

impl Batch {
    fn pkt(&self) -> &[u8] {
        &self.buf[VNET_HDR_LEN..]
    }

    fn start(&mut self, d: &[u8]) {
        self.buf.clear();
        self.buf.extend_from_slice(&[0; VNET_HDR_LEN]);
        self.buf.extend_from_slice(d);
        self.segs = 1;
        self.ihl = 0;
        self.open = false;
        // An IPv4 TCP datagram without IP options or fragmentation.
        if d.len() < 40 || d[0] != 0x45 || d[9] != 6 || be16(d, 6) & 0x3fff != 0 {
            return;
        }
        let thl = usize::from(d[20 + 12] >> 4) * 4;
        if thl < 20 || d.len() < 20 + thl || usize::from(be16(d, 2)) != d.len() {
            return;
        }
        let flags = d[20 + 13];
        self.ihl = 20;
        self.hl = 20 + thl;
        self.mss = d.len() - self.hl;
        self.next_seq = be32(d, 24).wrapping_add(self.mss as u32);
        self.next_id = be16(d, 4).wrapping_add(1);
        self.open = self.mss > 0 && flags & (SYN | RST | FIN | URG | PSH) == 0;
    }

    /// Whether `d` is the next segment of this batch, one the kernel's
    /// segmentation would cut back out unchanged.
    fn accepts(&self, d: &[u8]) -> bool {
        let p = self.pkt();
        let (ihl, hl) = (self.ihl, self.hl);
        if !self.open || d.len() <= hl || d.len() - hl > self.mss || p.len() + d.len() - hl > MAX_DATAGRAM {
            return false;
        }
        if usize::from(be16(d, 2)) != d.len() {
            return false;
        }
        // IPv4: all but total length, ID and checksum equal; IDs consecutive.
        if d[..2] != p[..2] || d[6..10] != p[6..10] || d[12..20] != p[12..20] || be16(d, 4) != self.next_id {
            return false;
        }
        // TCP: ports, ACK number, data offset, window, urgent pointer and
        // options equal; the sequence number follows on.
        let (t, u) = (&d[ihl..hl], &p[ihl..hl]);
        if t[..4] != u[..4] || be32(t, 4) != self.next_seq || t[8..13] != u[8..13] || t[14..16] != u[14..16] || t[18..] != u[18..] {
            return false;
        }
        // Flags: those of the first but CWR (first only), PSH allowed (last).
        t[13] & (SYN | RST | FIN | URG | CWR) == 0 && t[13] & !PSH == u[13] & !CWR
    }

    fn append(&mut self, d: &[u8]) {
        let (ihl, hl) = (self.ihl, self.hl);
        let len = d.len() - hl;
        self.buf.extend_from_slice(&d[hl..]);
        self.segs += 1;
        self.next_seq = self.next_seq.wrapping_add(len as u32);
        self.next_id = self.next_id.wrapping_add(1);
        if d[ihl + 13] & PSH != 0 {
            // tcp_gso_segment leaves PSH on the last segment only.
            self.buf[VNET_HDR_LEN + ihl + 13] |= PSH;
            self.open = false;
        }
        if len < self.mss {
            self.open = false;
        }
    }

    /// Write what is pending (nothing if empty): one datagram after a zero
    /// virtio header, or the super-packet after its GSO header.
    fn write(&mut self, tun: usize, write: Write) {
        if self.segs == 0 {
            return;
        }
        if self.segs > 1 {
            self.seal();
        }
        write(tun, &self.buf, self.segs);
        self.segs = 0;
    }

    /// Turn the merged datagram into a GSO super-packet: total length and
    /// IPv4 checksum of the whole, the TCP checksum field holding the
    /// pseudo-header sum (what `CHECKSUM_PARTIAL` expects the device or
    /// the segmentation to complete), and the virtio header.
    fn seal(&mut self) {
        let (ihl, hl, mss) = (self.ihl, self.hl, self.mss);
        let first_flags = self.pkt()[ihl + 13];
        let (h, p) = self.buf.split_at_mut(VNET_HDR_LEN);
        let total = p.len() as u16;
        p[2..4].copy_from_slice(&total.to_be_bytes());
        p[10] = 0;
        p[11] = 0;
        let ip_sum = Sum16BitWords::new().add_slice(&p[..ihl]).ones_complement();
        p[10..12].copy_from_slice(&ip_sum.to_ne_bytes());
        let pseudo = Sum16BitWords::new()
            .add_slice(&p[12..20])
            .add_2bytes([0, 6])
            .add_2bytes((total - ihl as u16).to_be_bytes())
            .ones_complement();
        p[ihl + TCP_CHECK_AT..ihl + TCP_CHECK_AT + 2].copy_from_slice(&(!pseudo).to_ne_bytes());
        h[0] = F_NEEDS_CSUM;
        h[1] = GSO_TCPV4 | if first_flags & CWR != 0 { GSO_ECN } else { 0 };
        h[2..4].copy_from_slice(&(hl as u16).to_le_bytes());
        h[4..6].copy_from_slice(&(mss as u16).to_le_bytes());
        h[6..8].copy_from_slice(&(ihl as u16).to_le_bytes());
        h[8..10].copy_from_slice(&(TCP_CHECK_AT as u16).to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use airtcp_core::{wire, Packet, Segment, SeqNum, TcpFlags};

    /// Data segment number `i` (1000 bytes, payload byte `i`) of one flow,
    /// as a kernel sends them: consecutive sequence numbers and IP IDs,
    /// the same ACK, window and timestamps.
    fn data(i: u32) -> (Segment, u16) {
        let seg = Segment {
            src_port: 40000,
            dst_port: 5201,
            seq: SeqNum(1_000_000 + 1000 * i),
            ack: SeqNum(7),
            flags: TcpFlags::ACK,
            window: 500,
            timestamps: Some((11, 22)),
            payload_len: 1000,
            ..Default::default()
        };
        (seg, 300 + i as u16)
    }

    fn bytes((seg, id): (Segment, u16)) -> Vec<u8> {
        let pkt = Packet::tcp([10, 0, 0, 1], [10, 0, 0, 2], 64, id, seg);
        let mut out = Vec::new();
        wire::encode_with_payload(&pkt, &vec![id as u8; seg.payload_len as usize], &mut out).unwrap();
        out
    }

    /// Push `ds` (TUN, datagram) then flush; the writes asked for.
    fn writes(ds: &[(usize, Vec<u8>)]) -> Vec<(usize, Vec<u8>, u32)> {
        let mut c = Coalescer::new(2);
        let mut w = Vec::new();
        let mut record = |tun: usize, b: &[u8], segs: u32| w.push((tun, b.to_vec(), segs));
        for (tun, d) in ds {
            c.push(*tun, d, &mut record);
        }
        c.flush(&mut record);
        w
    }

    fn le16(h: &[u8], at: usize) -> u16 {
        u16::from_le_bytes([h[at], h[at + 1]])
    }

    #[test]
    fn in_order_segments_merge_into_one_gso_super_packet() {
        let (mut last, id) = data(2);
        last.payload_len = 500;
        last.flags |= TcpFlags::PSH;
        let ds = [bytes(data(0)), bytes(data(1)), bytes((last, id))];
        let w = writes(&ds.iter().map(|d| (1, d.clone())).collect::<Vec<_>>());
        assert_eq!(w.len(), 1);
        let (tun, b, segs) = &w[0];
        assert_eq!((*tun, *segs), (1, 3));
        let (h, p) = b.split_at(VNET_HDR_LEN);
        // 20 bytes of IPv4, 32 of TCP with timestamps.
        assert_eq!((h[0], h[1]), (F_NEEDS_CSUM, GSO_TCPV4));
        assert_eq!((le16(h, 2), le16(h, 4), le16(h, 6), le16(h, 8)), (52, 1000, 20, 16));
        assert_eq!((be16(p, 2) as usize, p.len()), (52 + 2500, 52 + 2500));
        assert_eq!(Sum16BitWords::new().add_slice(&p[..20]).ones_complement(), 0, "IPv4 header checksum");
        // The TCP field holds the pseudo-header sum: completing it over the
        // segment (as the device or the segmentation does) gives the full checksum.
        let completed = Sum16BitWords::new().add_slice(&p[20..]).ones_complement();
        let mut zeroed = p.to_vec();
        zeroed[36..38].fill(0);
        let full = Sum16BitWords::new().add_slice(&p[12..20]).add_2bytes([0, 6]).add_2bytes(2532u16.to_be_bytes()).add_slice(&zeroed[20..]).ones_complement();
        assert_eq!(completed, full);
        // Cut again as tcp_gso_segment would: the very datagrams pushed.
        let mut back = Vec::new();
        crate::gso::split(b, &mut Vec::new(), |d| back.push(d.to_vec())).unwrap();
        assert_eq!(back, ds);
    }

    #[test]
    fn a_gap_or_another_flow_breaks_the_batch() {
        let mut other = data(1);
        other.0.src_port = 40001;
        let mut id_gap = data(1);
        id_gap.1 += 1;
        for second in [data(2), other, id_gap] {
            let w = writes(&[(0, bytes(data(0))), (0, bytes(second))]);
            assert_eq!(w.iter().map(|x| x.2).collect::<Vec<_>>(), [1, 1]);
            assert!(w.iter().all(|x| x.1[..VNET_HDR_LEN] == [0; VNET_HDR_LEN]), "single datagrams after a zero header");
        }
    }

    #[test]
    fn fin_rst_syn_are_written_alone() {
        for flag in [TcpFlags::FIN, TcpFlags::RST, TcpFlags::SYN] {
            let mut s = data(1);
            s.0.flags |= flag;
            let w = writes(&[(0, bytes(data(0))), (0, bytes(s)), (0, bytes(data(2)))]);
            assert_eq!(w.iter().map(|x| x.2).collect::<Vec<_>>(), [1, 1, 1], "{flag:?}");
        }
    }

    #[test]
    fn another_tun_is_another_batch() {
        let w = writes(&[(0, bytes(data(0))), (1, bytes(data(1)))]);
        assert_eq!(w.iter().map(|x| (x.0, x.2)).collect::<Vec<_>>(), [(0, 1), (1, 1)]);
        // A datagram for another TUN between two segments leaves their batch whole.
        let mut other = data(5);
        other.0.src_port = 40001;
        let w = writes(&[(0, bytes(data(0))), (1, bytes(other)), (0, bytes(data(1)))]);
        assert_eq!(w.iter().map(|x| (x.0, x.2)).collect::<Vec<_>>(), [(0, 2), (1, 1)]);
    }

    #[test]
    fn short_segment_or_psh_ends_the_batch_and_cwr_only_leads() {
        let (mut short, id) = data(1);
        short.payload_len = 400;
        let mut next = data(2);
        next.0.seq = SeqNum(1_000_000 + 1400);
        let w = writes(&[(0, bytes(data(0))), (0, bytes((short, id))), (0, bytes(next))]);
        assert_eq!(w.iter().map(|x| x.2).collect::<Vec<_>>(), [2, 1]);
        let mut psh = data(1);
        psh.0.flags |= TcpFlags::PSH;
        let w = writes(&[(0, bytes(data(0))), (0, bytes(psh)), (0, bytes(data(2)))]);
        assert_eq!(w.iter().map(|x| x.2).collect::<Vec<_>>(), [2, 1]);
        assert_ne!(w[0].1[VNET_HDR_LEN + 20 + 13] & PSH, 0, "PSH of the last on the super-packet");
        let mut cwr = data(0);
        cwr.0.flags |= TcpFlags::CWR;
        let w = writes(&[(0, bytes(cwr)), (0, bytes(data(1)))]);
        assert_eq!((w.len(), w[0].1[1]), (1, GSO_TCPV4 | GSO_ECN), "CWR on the first: the ECN GSO type");
        let mut late_cwr = data(1);
        late_cwr.0.flags |= TcpFlags::CWR;
        assert_eq!(writes(&[(0, bytes(data(0))), (0, bytes(late_cwr))]).len(), 2);
    }
}
