//! CSV time series, streamed through a chunk buffer: no `String` per row or
//! per file. Numbers are formatted by [`super::num`], byte-identical to
//! Rust's `Display` (shortest round-trip floats, the same on every platform).

use std::io::{self, Write};

use super::num::{push_secs, push_short, push_u64};
use crate::{ca_state_name, FlowSeries, SegmentLog};

/// Rows are appended to a buffer of about this size, then written out: large
/// enough that the write syscalls cost nothing next to the formatting.
const CHUNK: usize = 64 * 1024;
/// Room kept free for the next row: a series row of `secs` values is at
/// most ~150 bytes. Only a flush heuristic: an odd float (`Display` of
/// 1e-300 is 300+ digits) just makes the buffer grow.
const ROW_MAX: usize = 512;

fn flush_if_full<W: Write>(buf: &mut Vec<u8>, w: &mut W) -> io::Result<()> {
    if buf.len() + ROW_MAX > CHUNK {
        w.write_all(buf)?;
        buf.clear();
    }
    Ok(())
}

pub fn series<W: Write>(s: &FlowSeries, w: &mut W) -> io::Result<()> {
    let mut buf = Vec::with_capacity(CHUNK);
    buf.extend_from_slice(b"t_s,cwnd,ssthresh,srtt_s,rto_s,snd_una,snd_nxt,bytes_delivered,ca_state\n");
    for i in 0..s.t_s.len() {
        push_secs(&mut buf, s.t_s[i]);
        buf.push(b',');
        push_u64(&mut buf, s.cwnd[i] as u64);
        buf.push(b',');
        push_u64(&mut buf, s.ssthresh[i] as u64);
        buf.push(b',');
        push_secs(&mut buf, s.srtt_s[i]);
        buf.push(b',');
        push_secs(&mut buf, s.rto_s[i]);
        buf.push(b',');
        push_u64(&mut buf, s.snd_una[i]);
        buf.push(b',');
        push_u64(&mut buf, s.snd_nxt[i]);
        buf.push(b',');
        push_u64(&mut buf, s.bytes_delivered[i]);
        buf.push(b',');
        push_short(&mut buf, ca_state_name(s.ca_state[i]));
        buf.push(b'\n');
        flush_if_full(&mut buf, w)?;
    }
    w.write_all(&buf)
}

/// A UDP flow's receiver series (`crate::udp::UdpSeries`).
pub fn udp_series<W: Write>(s: &crate::UdpSeries, w: &mut W) -> io::Result<()> {
    let mut buf = Vec::with_capacity(CHUNK);
    buf.extend_from_slice(b"t_s,sent,received,bytes_received,lost,jitter_s,delay_s\n");
    for i in 0..s.t_s.len() {
        push_secs(&mut buf, s.t_s[i]);
        for v in [s.sent[i], s.received[i], s.bytes_received[i], s.lost[i]] {
            buf.push(b',');
            push_u64(&mut buf, v);
        }
        buf.push(b',');
        push_secs(&mut buf, s.jitter_s[i]);
        buf.push(b',');
        push_secs(&mut buf, s.delay_s[i]);
        buf.push(b'\n');
        flush_if_full(&mut buf, w)?;
    }
    w.write_all(&buf)
}

pub fn segments<W: Write>(s: &SegmentLog, w: &mut W) -> io::Result<()> {
    let mut buf = Vec::with_capacity(CHUNK);
    buf.extend_from_slice(b"t_s,seq,len,retransmission\n");
    for i in 0..s.t_s.len() {
        push_secs(&mut buf, s.t_s[i]);
        buf.push(b',');
        push_u64(&mut buf, s.seq[i]);
        buf.push(b',');
        push_u64(&mut buf, s.len[i] as u64);
        buf.push(b',');
        buf.push(if s.retransmission[i] { b'1' } else { b'0' });
        buf.push(b'\n');
        flush_if_full(&mut buf, w)?;
    }
    w.write_all(&buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The format the CSVs had when they were written with `writeln!`.
    fn series_with_fmt(s: &FlowSeries) -> String {
        let mut out = String::from("t_s,cwnd,ssthresh,srtt_s,rto_s,snd_una,snd_nxt,bytes_delivered,ca_state\n");
        for i in 0..s.t_s.len() {
            out += &format!(
                "{},{},{},{},{},{},{},{},{}\n",
                s.t_s[i],
                s.cwnd[i],
                s.ssthresh[i],
                s.srtt_s[i],
                s.rto_s[i],
                s.snd_una[i],
                s.snd_nxt[i],
                s.bytes_delivered[i],
                ca_state_name(s.ca_state[i])
            );
        }
        out
    }

    fn sample_series(rows: usize) -> FlowSeries {
        let mut s = FlowSeries::default();
        for i in 0..rows as u64 {
            s.t_s.push(crate::secs(i * 10_000_000));
            s.cwnd.push((i % 97) as u32 + 1);
            s.ssthresh.push(if i < 10 { 0x7fff_ffff } else { (i % 13) as u32 + 2 });
            s.srtt_s.push(crate::secs(48_000_000 + i * 12_345));
            s.rto_s.push(if i == 7 { 0.1 + 0.2 } else { crate::secs(1_000_000_000 << (i % 3)) });
            s.snd_una.push(i * 1000);
            s.snd_nxt.push(i * 1000 + 4000);
            s.bytes_delivered.push(i * 999);
            s.ca_state.push((i % 6) as u8);
        }
        s
    }

    #[test]
    fn series_matches_display_format_across_chunks() {
        // Enough rows to cross several chunk flushes.
        let s = sample_series(20_000);
        let mut out = Vec::new();
        series(&s, &mut out).unwrap();
        assert!(out.len() > 3 * CHUNK);
        assert_eq!(String::from_utf8(out).unwrap(), series_with_fmt(&s));
    }

    #[test]
    fn segments_rows() {
        let log = SegmentLog {
            t_s: vec![0.0225952, 60.0],
            seq: vec![0, 1 << 33],
            len: vec![1000, 1],
            retransmission: vec![false, true],
        };
        let mut out = Vec::new();
        segments(&log, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "t_s,seq,len,retransmission\n0.0225952,0,1000,0\n60,8589934592,1,1\n"
        );
    }
}
