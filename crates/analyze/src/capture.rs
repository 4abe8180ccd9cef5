//! Reading pcap and pcapng files one packet at a time.
//!
//! `pcap-parser` (rusticata) does the file formats: it streams through a
//! fixed buffer, borrows each packet's bytes from it (no copy, no allocation
//! per packet), and knows pcapng's per-interface link types and timestamp
//! resolutions (`if_tsresol`, `if_tsoffset`). The workspace's other capture
//! crate, `pcap-file` 2.0, reads a pcapng timestamp as nanoseconds whatever
//! the interface's resolution (microseconds by default), so it would need
//! patching here; `pcap-parser` also reports where a block fails, which the
//! errors below need.
//!
//! Every packet is numbered from 1 (as Wireshark numbers frames) and carries
//! the byte offset of its record in the file, so an error can say where.

use std::fmt;
use std::io::Read;

use pcap_parser::pcapng::Block;
use pcap_parser::{create_reader, PcapBlockOwned, PcapError};

/// Bytes read from the file at once; a block larger than this grows the
/// buffer up to [`MAX_BLOCK`].
const BUFFER: usize = 1 << 20;
/// Largest block accepted (a jumbo frame fits many times over; a corrupt
/// length field does not make the reader allocate gigabytes).
const MAX_BLOCK: usize = 16 << 20;

/// One captured packet, borrowed from the reader's buffer.
#[derive(Clone, Copy, Debug)]
pub struct RawPacket<'a> {
    /// 1-based packet number (blocks that are not packets are not counted).
    pub number: u64,
    /// Byte offset of the packet's record (pcap) or block (pcapng) in the file.
    pub offset: u64,
    /// Capture timestamp in ns since the Unix epoch (or since the run began,
    /// for the simulator's captures).
    pub t_ns: i64,
    /// `LINKTYPE_*` of the packet's interface.
    pub linktype: i32,
    /// The captured bytes (possibly cut by the snap length).
    pub data: &'a [u8],
    /// The packet's length on the wire.
    pub orig_len: u32,
}

/// A capture that cannot be read on: where and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureError {
    /// Number the next packet would have had.
    pub packet: u64,
    /// Byte offset of the block that failed.
    pub offset: u64,
    pub message: String,
}

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "packet {} (byte offset {}): {}",
            self.packet, self.offset, self.message
        )
    }
}

impl std::error::Error for CaptureError {}

struct Interface {
    linktype: i32,
    /// Timestamp units per second.
    units_per_s: u64,
    /// Seconds added to every timestamp (`if_tsoffset`).
    offset_s: i64,
}

/// How a read ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadEnd {
    /// Packets handed to the callback.
    pub packets: u64,
    /// The file stopped inside a record (a capture copied while tcpdump
    /// was writing, a download cut short): every packet before it was read.
    /// Tools people trust (tshark, tcptrace) read such files too and warn.
    pub truncated: Option<CaptureError>,
}

/// Read every packet of a pcap or pcapng stream, in file order, calling
/// `on_packet` for each. A file cut inside its last record ends the read
/// with [`ReadEnd::truncated`]; anything else unreadable (bad magic, a
/// corrupt block, an interface never described) is an error naming the
/// packet number and byte offset.
pub fn for_each_packet<R, F>(input: R, mut on_packet: F) -> Result<ReadEnd, CaptureError>
where
    R: Read + Send,
    F: FnMut(&RawPacket<'_>),
{
    let err = |packet: u64, offset: u64, message: String| CaptureError {
        packet,
        offset,
        message,
    };
    let mut reader = create_reader(BUFFER, input).map_err(|e| {
        err(
            1,
            0,
            match e {
                PcapError::HeaderNotRecognized => {
                    "not a pcap or pcapng file (unknown magic number)".into()
                }
                PcapError::Eof | PcapError::UnexpectedEof | PcapError::Incomplete(_) => {
                    "file too short for a capture header".into()
                }
                other => format!("cannot read the file header: {other}"),
            },
        )
    })?;
    let mut capacity = BUFFER;
    let mut offset: u64 = 0;
    let mut number: u64 = 0;
    // Legacy pcap: one link type and resolution for the file.
    let mut legacy_link = 0i32;
    let mut legacy_nanos = false;
    // pcapng: the interfaces of the current section.
    let mut ifaces: Vec<Interface> = Vec::new();
    // Format and byte order of what is being read, to tell a file cut short
    // from a block whose length field is corrupt.
    let mut ng = false;
    let mut big_endian = false;
    loop {
        match reader.next() {
            Ok((len, block)) => {
                let at = offset;
                let mut packet = |if_id: Option<u32>, t_ns: i64, data: &[u8], orig_len: u32| {
                    number += 1;
                    let linktype = match if_id {
                        None => legacy_link,
                        Some(i) => ifaces.get(i as usize).map_or(-1, |f| f.linktype),
                    };
                    on_packet(&RawPacket {
                        number,
                        offset: at,
                        t_ns,
                        linktype,
                        data,
                        orig_len,
                    });
                };
                match block {
                    PcapBlockOwned::LegacyHeader(h) => {
                        big_endian = h.is_bigendian();
                        legacy_link = h.network.0;
                        legacy_nanos = h.is_nanosecond_precision();
                    }
                    PcapBlockOwned::Legacy(b) => {
                        let frac = if legacy_nanos {
                            b.ts_usec as i64
                        } else {
                            b.ts_usec as i64 * 1000
                        };
                        packet(None, clamp_time(b.ts_sec as i64 * 1_000_000_000 + frac), b.data, b.origlen);
                    }
                    PcapBlockOwned::NG(Block::SectionHeader(shb)) => {
                        ng = true;
                        big_endian = shb.big_endian();
                        ifaces.clear();
                    }
                    PcapBlockOwned::NG(Block::InterfaceDescription(idb)) => ifaces.push(Interface {
                        linktype: idb.linktype.0,
                        units_per_s: idb.ts_resolution().unwrap_or(0),
                        offset_s: idb.ts_offset(),
                    }),
                    PcapBlockOwned::NG(Block::EnhancedPacket(epb)) => {
                        let Some(f) = ifaces.get(epb.if_id as usize) else {
                            return Err(err(
                                number + 1,
                                at,
                                format!("packet names interface {} which was not described", epb.if_id),
                            ));
                        };
                        if f.units_per_s == 0 {
                            return Err(err(number + 1, at, "interface has an unusable timestamp resolution".into()));
                        }
                        let raw = ((epb.ts_high as u64) << 32) | epb.ts_low as u64;
                        let secs = raw / f.units_per_s;
                        let frac = raw % f.units_per_s;
                        let frac_ns = (frac as u128 * 1_000_000_000 / f.units_per_s as u128) as i64;
                        let secs = i64::try_from(secs).unwrap_or(i64::MAX).saturating_add(f.offset_s);
                        let t_ns = clamp_time(secs.saturating_mul(1_000_000_000).saturating_add(frac_ns));
                        let data = &epb.data[..(epb.caplen as usize).min(epb.data.len())];
                        packet(Some(epb.if_id), t_ns, data, epb.origlen);
                    }
                    PcapBlockOwned::NG(Block::SimplePacket(spb)) => {
                        // No timestamp: 0 (pcapng spec: SPB carries none).
                        if ifaces.is_empty() {
                            return Err(err(number + 1, at, "simple packet before any interface".into()));
                        }
                        let n = (spb.origlen as usize).min(spb.data.len());
                        packet(Some(0), 0, &spb.data[..n], spb.origlen);
                    }
                    PcapBlockOwned::NG(_) => {}
                }
                offset += len as u64;
                reader.consume(len);
            }
            Err(PcapError::Eof) => {
                return Ok(ReadEnd {
                    packets: number,
                    truncated: None,
                })
            }
            Err(PcapError::Incomplete(_)) => {
                if reader.reader_exhausted() {
                    return cut_or_corrupt(reader.data(), ng, big_endian, number, offset);
                }
                reader
                    .refill()
                    .map_err(|e| err(number + 1, offset, format!("read failed: {e}")))?;
            }
            Err(PcapError::BufferTooSmall) => {
                if capacity >= MAX_BLOCK || !reader.grow(capacity * 2) {
                    return Err(err(
                        number + 1,
                        offset,
                        format!("block larger than {} MiB (corrupt length field?)", MAX_BLOCK >> 20),
                    ));
                }
                capacity *= 2;
                reader
                    .refill()
                    .map_err(|e| err(number + 1, offset, format!("read failed: {e}")))?;
            }
            Err(PcapError::UnexpectedEof) => return cut_or_corrupt(reader.data(), ng, big_endian, number, offset),
            Err(e) => {
                return Err(err(
                    number + 1,
                    offset,
                    format!("corrupt block: {}", describe(&e)),
                ))
            }
        }
    }
}

/// Timestamps are kept within [0, 2^61 ns] (73 years past 2262 is not a
/// capture): differences of two of them never overflow.
const MAX_TIME_NS: i64 = 1 << 61;

fn clamp_time(t: i64) -> i64 {
    t.clamp(0, MAX_TIME_NS)
}

/// The file ended while a record was incomplete. It was cut short if the
/// record's declared length runs past the end of the file and is plausible;
/// otherwise the length field (or what follows it) is corrupt.
fn cut_or_corrupt(rest: &[u8], ng: bool, big_endian: bool, number: u64, offset: u64) -> Result<ReadEnd, CaptureError> {
    let word = |at: usize| -> Option<u64> {
        let b: [u8; 4] = rest.get(at..at + 4)?.try_into().ok()?;
        Some(if big_endian { u32::from_be_bytes(b) } else { u32::from_le_bytes(b) } as u64)
    };
    // pcapng: total block length at bytes 4..8; pcap: 16-byte record header
    // whose captured length is at bytes 8..12.
    let declared = if ng { word(4) } else { word(8).map(|n| n + 16) };
    match declared {
        Some(len) if len > MAX_BLOCK as u64 || len <= rest.len() as u64 => Err(CaptureError {
            packet: number + 1,
            offset,
            message: format!(
                "corrupt block: its length field says {len} bytes{}",
                if len > MAX_BLOCK as u64 { " (more than any packet)" } else { " but its content does not parse" }
            ),
        }),
        _ => Ok(truncated(number, offset)),
    }
}

fn truncated(number: u64, offset: u64) -> ReadEnd {
    ReadEnd {
        packets: number,
        truncated: Some(CaptureError {
            packet: number + 1,
            offset,
            message: "file ends inside this packet's record (truncated capture)".into(),
        }),
    }
}

fn describe(e: &PcapError<&[u8]>) -> String {
    match e {
        PcapError::NomError(_, kind) | PcapError::OwnedNomError(_, kind) => {
            format!("invalid structure ({kind:?})")
        }
        other => other.to_string(),
    }
}
