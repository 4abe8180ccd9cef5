//! Classic pcap capture files of simulated packets.
//!
//! Format (libpcap `pcap-savefile(5)`, IETF draft-ietf-opsawg-pcap):
//! a 24-byte file header, then per packet a 16-byte record header and the
//! packet bytes. Choices, so that the same run gives the same file bytes on
//! any machine and nothing is lost from integer-nanosecond time:
//! - always little-endian (not the writer's native order);
//! - nanosecond timestamps: magic `0xa1b23c4d`, version 2.4;
//! - link type `LINKTYPE_RAW` (101) by default: each record is a bare IPv4
//!   datagram, with no link-layer header to invent; or `LINKTYPE_ETHERNET`
//!   (1) when the scenario has link-layer addresses worth seeing, each record
//!   then an Ethernet II frame;
//! - timestamps are simulated time since the run began (the epoch in
//!   Wireshark's absolute-time view is 1970-01-01).

use std::io::{self, Read, Write};

use crate::packet::{Frame, Packet};
use crate::time::Instant;
use crate::wire;

/// Nanosecond-resolution pcap magic (pcap-savefile(5)).
pub const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// Microsecond-resolution pcap magic, accepted by the reader.
pub const MAGIC_MICROS: u32 = 0xa1b2_c3d4;
/// `LINKTYPE_RAW`: raw IPv4/IPv6, version from the first nibble (tcpdump.org link types).
pub const LINKTYPE_RAW: u32 = 101;
/// `LINKTYPE_ETHERNET`: IEEE 802.3 / Ethernet II frames without FCS (tcpdump.org link types).
pub const LINKTYPE_ETHERNET: u32 = 1;
/// Largest IPv4 datagram: nothing is ever cut short by default.
pub const DEFAULT_SNAPLEN: u32 = 65_535;

/// What each record of a capture starts with.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LinkType {
    /// The IPv4 datagram itself ([`LINKTYPE_RAW`]).
    Raw,
    /// An Ethernet II header, then the datagram ([`LINKTYPE_ETHERNET`]).
    Ethernet,
}

impl LinkType {
    /// The number the file header carries.
    pub fn number(self) -> u32 {
        match self {
            LinkType::Raw => LINKTYPE_RAW,
            LinkType::Ethernet => LINKTYPE_ETHERNET,
        }
    }
}

/// Writes a pcap file one packet at a time. Reuses one encoding buffer, so
/// steady-state writes allocate nothing; wrap `W` in a `BufWriter` for files.
pub struct PcapWriter<W: Write> {
    w: W,
    snaplen: u32,
    link: LinkType,
    buf: Vec<u8>,
}

impl<W: Write> PcapWriter<W> {
    /// Write the header of a raw-IP capture; packets are kept whole.
    pub fn new(w: W) -> io::Result<Self> {
        Self::with_snaplen(w, DEFAULT_SNAPLEN)
    }

    /// Keep at most `snaplen` bytes of each packet (e.g. 120 for headers
    /// only: long runs then make small files, but tshark cannot verify the
    /// TCP checksum of a cut packet).
    pub fn with_snaplen(w: W, snaplen: u32) -> io::Result<Self> {
        Self::with_link(w, LinkType::Raw, snaplen)
    }

    /// Write the header of an Ethernet capture, for [`PcapWriter::write_frame`].
    pub fn ethernet(w: W) -> io::Result<Self> {
        Self::with_link(w, LinkType::Ethernet, DEFAULT_SNAPLEN)
    }

    /// Write the header of a capture of `link` frames, each cut to `snaplen`.
    pub fn with_link(mut w: W, link: LinkType, snaplen: u32) -> io::Result<Self> {
        let mut h = [0u8; 24];
        h[0..4].copy_from_slice(&MAGIC_NANOS.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes());
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        // thiszone = 0, sigfigs = 0
        h[16..20].copy_from_slice(&snaplen.to_le_bytes());
        h[20..24].copy_from_slice(&link.number().to_le_bytes());
        w.write_all(&h)?;
        Ok(PcapWriter {
            w,
            snaplen,
            link,
            buf: Vec::with_capacity(1600),
        })
    }

    /// The link type the file header declares (raw IPv4 or Ethernet).
    pub fn link(&self) -> LinkType {
        self.link
    }

    /// Append `pkt` (any payload kind, tunnelled or not) as seen at simulated
    /// time `t`. Only raw-IP captures take bare packets: an Ethernet capture
    /// needs the addresses of [`PcapWriter::write_frame`]. A packet that cannot
    /// be encoded (options over 40 bytes, datagram over 64 KiB), or a packet
    /// given to an Ethernet capture, is an `InvalidInput` error and nothing is
    /// written.
    pub fn write(&mut self, t: Instant, pkt: &Packet) -> io::Result<()> {
        if self.link != LinkType::Raw {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "an Ethernet capture records frames: use write_frame",
            ));
        }
        wire::encode(pkt, &mut self.buf)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        self.write_record(t)
    }

    /// Append `frame` at simulated time `t`: the whole Ethernet frame in an
    /// Ethernet capture, its datagram alone in a raw-IP one (which has no
    /// place for link-layer addresses). Errors as [`PcapWriter::write`].
    pub fn write_frame(&mut self, t: Instant, frame: &Frame) -> io::Result<()> {
        match self.link {
            LinkType::Raw => wire::encode(&frame.pkt, &mut self.buf),
            LinkType::Ethernet => wire::encode_ethernet(frame, &mut self.buf),
        }
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        self.write_record(t)
    }

    /// Append a datagram's real bytes at `t` (a raw-IP capture): what an
    /// emulated run records for packets that came from a kernel.
    pub fn write_bytes(&mut self, t: Instant, bytes: &[u8]) -> io::Result<()> {
        self.buf.clear();
        self.buf.extend_from_slice(bytes);
        self.write_record(t)
    }

    /// The record header and the (possibly cut) bytes in `self.buf`.
    fn write_record(&mut self, t: Instant) -> io::Result<()> {
        let ns = t.as_nanos();
        let secs = u32::try_from(ns / 1_000_000_000).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "pcap timestamp beyond 2^32 seconds",
            )
        })?;
        let orig_len = self.buf.len() as u32;
        let incl_len = orig_len.min(self.snaplen);
        let mut rec = [0u8; 16];
        rec[0..4].copy_from_slice(&secs.to_le_bytes());
        rec[4..8].copy_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        rec[8..12].copy_from_slice(&incl_len.to_le_bytes());
        rec[12..16].copy_from_slice(&orig_len.to_le_bytes());
        self.w.write_all(&rec)?;
        self.w.write_all(&self.buf[..incl_len as usize])
    }

    /// Flush and hand back the underlying writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.w.flush()?;
        Ok(self.w)
    }
}

/// One record read back from a pcap file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PcapRecord {
    /// Timestamp in nanoseconds (microsecond files are scaled up).
    pub t: Instant,
    /// Length on the wire; `data` may be shorter if the capture cut it.
    pub orig_len: u32,
    /// The captured bytes (at most the file's snaplen).
    pub data: Vec<u8>,
}

/// Reads classic pcap files of either byte order and timestamp resolution
/// (for tests and trace analysis; not on any hot path).
pub struct PcapReader<R: Read> {
    r: R,
    big_endian: bool,
    nanos: bool,
    /// Longest record the file keeps, in bytes (the file header's snaplen).
    pub snaplen: u32,
    /// Link-layer type number from the file header (101 raw IP, 1 Ethernet, ...).
    pub linktype: u32,
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg)
}

impl<R: Read> PcapReader<R> {
    /// Read and check the 24-byte file header; an unknown magic number or a
    /// short header is an `InvalidData` error that says which.
    pub fn new(mut r: R) -> io::Result<Self> {
        let mut h = [0u8; 24];
        r.read_exact(&mut h)
            .map_err(|e| invalid(format!("pcap file header: {e}")))?;
        let magic_le = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
        let (big_endian, nanos) = match magic_le {
            MAGIC_NANOS => (false, true),
            MAGIC_MICROS => (false, false),
            m if m.swap_bytes() == MAGIC_NANOS => (true, true),
            m if m.swap_bytes() == MAGIC_MICROS => (true, false),
            m => {
                return Err(invalid(format!(
                    "byte 0: not a pcap file (magic 0x{m:08x})"
                )))
            }
        };
        let rd = |at: usize| {
            let b = [h[at], h[at + 1], h[at + 2], h[at + 3]];
            if big_endian {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            }
        };
        Ok(PcapReader {
            snaplen: rd(16),
            linktype: rd(20),
            r,
            big_endian,
            nanos,
        })
    }

    /// The next record, `None` at a clean end of file.
    pub fn next_record(&mut self) -> io::Result<Option<PcapRecord>> {
        let mut rec = [0u8; 16];
        let mut got = 0;
        while got < 16 {
            let n = self.r.read(&mut rec[got..])?;
            if n == 0 {
                if got == 0 {
                    return Ok(None);
                }
                return Err(invalid(format!(
                    "truncated record header ({got} of 16 bytes)"
                )));
            }
            got += n;
        }
        let rd = |at: usize| {
            let b = [rec[at], rec[at + 1], rec[at + 2], rec[at + 3]];
            if self.big_endian {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            }
        };
        let (secs, frac, incl_len, orig_len) = (rd(0), rd(4), rd(8), rd(12));
        if incl_len > self.snaplen.max(DEFAULT_SNAPLEN) {
            return Err(invalid(format!(
                "record length {incl_len} exceeds snaplen {}",
                self.snaplen
            )));
        }
        // Grow with the bytes actually there: `incl_len` (and the header's
        // snaplen it is checked against) come from the file, so allocating
        // it up front lets a 40-byte file ask for 4 GiB.
        let mut data = Vec::new();
        (&mut self.r)
            .take(incl_len as u64)
            .read_to_end(&mut data)
            .map_err(|e| invalid(format!("truncated record data: {e}")))?;
        if data.len() < incl_len as usize {
            return Err(invalid(format!(
                "truncated record data ({} of {incl_len} bytes)",
                data.len()
            )));
        }
        let frac_ns = if self.nanos {
            frac as u64
        } else {
            frac as u64 * 1_000
        };
        Ok(Some(PcapRecord {
            t: Instant(secs as u64 * 1_000_000_000 + frac_ns),
            orig_len,
            data,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Icmp, IpPayload, Ipv4Header, L2Header, L2Kind, MacAddr, Udp, UdpMsg};
    use crate::segment::{Segment, TcpFlags};
    use crate::seq::SeqNum;

    fn pkt(seq: u32, len: u32) -> Packet {
        let seg = Segment {
            src_port: 1234,
            dst_port: 80,
            seq: SeqNum(seq),
            ack: SeqNum(1),
            flags: TcpFlags::ACK,
            window: 1000,
            timestamps: Some((5, 6)),
            payload_len: len,
            ..Default::default()
        };
        Packet::tcp([10, 0, 0, 1], [10, 0, 0, 2], 64, seq as u16, seg)
    }

    fn frame(pkt: Packet) -> Frame {
        Frame {
            l2: L2Header {
                src: MacAddr::local(1),
                dst: MacAddr::local(2),
                kind: L2Kind::Data,
                proxied: false,
            },
            pkt,
        }
    }

    #[test]
    fn header_and_record_bytes() {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        w.write(Instant(1_500_000_123), &pkt(1, 100)).unwrap();
        let bytes = w.finish().unwrap();
        assert_eq!(
            &bytes[..24],
            &[
                0x4d, 0x3c, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 101,
                0, 0, 0
            ]
        );
        // 1 s + 500_000_123 ns; 100 + 20 + 32 = 152 bytes.
        assert_eq!(
            &bytes[24..40],
            &[1, 0, 0, 0, 0x7b, 0x65, 0xcd, 0x1d, 152, 0, 0, 0, 152, 0, 0, 0]
        );
        assert_eq!(bytes.len(), 24 + 16 + 152);
        assert_eq!(wire::decode(&bytes[40..]).unwrap(), pkt(1, 100));
    }

    #[test]
    fn snaplen_cuts_records_but_keeps_orig_len() {
        let mut w = PcapWriter::with_snaplen(Vec::new(), 60).unwrap();
        w.write(Instant(0), &pkt(1, 1000)).unwrap();
        let bytes = w.finish().unwrap();
        let mut r = PcapReader::new(&bytes[..]).unwrap();
        let rec = r.next_record().unwrap().unwrap();
        assert_eq!((rec.data.len(), rec.orig_len), (60, 1052));
        assert!(r.next_record().unwrap().is_none());
    }

    #[test]
    fn own_reader_and_pcap_file_crate_agree() {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        for i in 0..5u32 {
            w.write(Instant(i as u64 * 4_216_000 + 7), &pkt(1 + i * 1000, 1000))
                .unwrap();
        }
        let bytes = w.finish().unwrap();

        let mut ours = PcapReader::new(&bytes[..]).unwrap();
        let mut theirs = pcap_file::pcap::PcapReader::new(&bytes[..]).unwrap();
        let h = theirs.header();
        assert_eq!(h.ts_resolution, pcap_file::TsResolution::NanoSecond);
        assert_eq!(h.datalink, pcap_file::DataLink::RAW);
        for i in 0..5u32 {
            let a = ours.next_record().unwrap().unwrap();
            let b = theirs.next_packet().unwrap().unwrap();
            assert_eq!(a.t.as_nanos() as u128, b.timestamp.as_nanos());
            assert_eq!(a.t, Instant(i as u64 * 4_216_000 + 7));
            assert_eq!(&a.data[..], &b.data[..]);
            assert_eq!(
                wire::decode(&a.data).unwrap().segment().unwrap().seq,
                SeqNum(1 + i * 1000)
            );
        }
        assert!(ours.next_record().unwrap().is_none());
        assert!(theirs.next_packet().is_none());
    }

    #[test]
    fn raw_capture_holds_every_packet_kind() {
        let udp = IpPayload::Udp(Udp {
            src_port: 434,
            dst_port: 434,
            msg: UdpMsg::Opaque { len: 24 },
        });
        let icmp = IpPayload::Icmp(Icmp::EchoRequest {
            id: 1,
            seq: 2,
            len: 56,
        });
        let mut tunnelled = pkt(7, 10);
        tunnelled.outer = Some(Ipv4Header {
            src: [1, 1, 1, 1],
            dst: [2, 2, 2, 2],
            ttl: 9,
            ip_id: 3,
            ..Default::default()
        });
        let pkts = [
            pkt(1, 10),
            Packet {
                payload: udp,
                ..pkt(2, 0)
            },
            Packet {
                payload: icmp,
                ..pkt(3, 0)
            },
            tunnelled,
        ];
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        for (i, p) in pkts.iter().enumerate() {
            w.write(Instant(i as u64), p).unwrap();
        }
        let bytes = w.finish().unwrap();
        let mut r = PcapReader::new(&bytes[..]).unwrap();
        assert_eq!(r.linktype, LINKTYPE_RAW);
        for p in &pkts {
            let rec = r.next_record().unwrap().unwrap();
            assert_eq!(rec.orig_len, p.ip_len());
            assert_eq!(&wire::decode(&rec.data).unwrap(), p);
        }
        assert!(r.next_record().unwrap().is_none());
    }

    #[test]
    fn ethernet_capture_records_frames() {
        let mut w = PcapWriter::ethernet(Vec::new()).unwrap();
        assert_eq!(w.link(), LinkType::Ethernet);
        let f = frame(pkt(1, 100));
        w.write_frame(Instant(5), &f).unwrap();
        let e = w.write(Instant(6), &f.pkt).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        let bytes = w.finish().unwrap();
        assert_eq!(&bytes[20..24], &[1, 0, 0, 0], "LINKTYPE_ETHERNET");
        assert_eq!(
            bytes.len(),
            24 + 16 + 14 + 152,
            "the refused packet wrote nothing"
        );

        let mut ours = PcapReader::new(&bytes[..]).unwrap();
        let mut theirs = pcap_file::pcap::PcapReader::new(&bytes[..]).unwrap();
        assert_eq!(theirs.header().datalink, pcap_file::DataLink::ETHERNET);
        let a = ours.next_record().unwrap().unwrap();
        let b = theirs.next_packet().unwrap().unwrap();
        assert_eq!((ours.linktype, a.orig_len), (LINKTYPE_ETHERNET, 166));
        assert_eq!(&a.data[..], &b.data[..]);
        assert_eq!(wire::decode_ethernet(&a.data).unwrap(), f);
    }

    #[test]
    fn raw_capture_of_frames_keeps_the_datagram() {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        w.write_frame(Instant(0), &frame(pkt(1, 0))).unwrap();
        let bytes = w.finish().unwrap();
        let rec = PcapReader::new(&bytes[..])
            .unwrap()
            .next_record()
            .unwrap()
            .unwrap();
        assert_eq!(wire::decode(&rec.data).unwrap(), pkt(1, 0));
    }

    #[test]
    fn reader_rejects_garbage() {
        let e = PcapReader::new(&[0u8; 24][..]).err().unwrap();
        assert_eq!(e.to_string(), "byte 0: not a pcap file (magic 0x00000000)");
        assert!(PcapReader::new(&[0u8; 3][..]).is_err());
    }

    /// Found by `cargo fuzz run pcap_read` (out-of-memory): the header's
    /// snaplen and a record's length come from the file, and the reader used
    /// to allocate the record's claimed 1.4 GB before reading a byte of it.
    #[test]
    fn huge_record_length_is_an_error_not_an_allocation() {
        let mut f = Vec::new();
        f.extend_from_slice(&0xa1b2_3c4du32.to_le_bytes()); // nanosecond magic
        f.extend_from_slice(&[2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        f.extend_from_slice(&u32::MAX.to_le_bytes()); // snaplen
        f.extend_from_slice(&101u32.to_le_bytes()); // LINKTYPE_RAW
        f.extend_from_slice(&[0; 8]); // record time
        f.extend_from_slice(&0x5600_0000u32.to_le_bytes()); // incl_len 1.4 GB
        f.extend_from_slice(&60u32.to_le_bytes());
        f.extend_from_slice(&[0x45, 0, 0, 60]); // 4 of those bytes
        let mut r = PcapReader::new(&f[..]).unwrap();
        let e = r.next_record().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert_eq!(
            e.to_string(),
            "truncated record data (4 of 1442840576 bytes)"
        );
    }
}
