//! Writing an analysis to a directory: CSV files streamed as the capture
//! is read, `summary.json` at the end. Files are written under a temporary
//! name and renamed when complete, so a failed analysis leaves no
//! half-written result.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::model::{ConnSummary, Event, RttSample, SeriesRow, Sink};

/// Output files, in the order they are listed in docs/analyze.md.
pub const FILES: [&str; 5] = [
    "connections.csv",
    "series.csv",
    "events.csv",
    "rtt.csv",
    "summary.json",
];

/// A sink writing the CSV files of an analysis, keeping only the
/// connection summaries (small) for `summary.json`.
pub struct DirSink {
    dir: PathBuf,
    series: BufWriter<File>,
    events: BufWriter<File>,
    rtt: BufWriter<File>,
    conns: BufWriter<File>,
    pub summaries: Vec<ConnSummary>,
    error: Option<io::Error>,
}

fn tmp(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!(".{name}.partial"))
}

fn s(t_ns: i64) -> f64 {
    t_ns as f64 / 1e9
}

impl DirSink {
    pub fn create(dir: &Path) -> io::Result<Self> {
        fs::create_dir_all(dir)?;
        let open = |name: &str, header: &str| -> io::Result<BufWriter<File>> {
            let mut w = BufWriter::with_capacity(1 << 16, File::create(tmp(dir, name))?);
            writeln!(w, "{header}")?;
            Ok(w)
        };
        Ok(DirSink {
            dir: dir.to_path_buf(),
            series: open(
                "series.csv",
                "t_s,conn,dir,sent_bytes,delivered_bytes,goodput_bps,flight_max_bytes,rwnd_bytes,limit,retransmissions,rtt_ms",
            )?,
            events: open("events.csv", "t_s,conn,dir,packet,kind,seq,len,detail")?,
            rtt: open("rtt.csv", "t_s,conn,dir,packet,source,rtt_ms")?,
            conns: open(
                "connections.csv",
                "conn,dir,src,dst,first_s,last_s,capture_point,packets,data_packets,bytes_sent,bytes_unique,bytes_delivered,goodput_bps,\
retransmissions,fast_retransmits,fast_recovery,timeouts,rto_recovery,tlp,other_retransmissions,already_received,\
spurious_dsack,spurious_eifel,dup_acks,sack_blocks,dsacks,zero_window_acks,zero_window_probes,zero_windows,\
interruptions,rtt_karn_samples,rtt_ambiguous,rtt_sack_samples,rtt_karn_mean_ms,rtt_ts_samples,rtt_ts_mean_ms",
            )?,
            summaries: Vec::new(),
            error: None,
        })
    }

    fn keep(&mut self, r: io::Result<()>) {
        if let (Err(e), None) = (r, &self.error) {
            self.error = Some(e);
        }
    }

    /// Write `summary.json` (with `capture`, the per-capture totals) and
    /// move every file to its final name.
    pub fn finish(mut self, capture: serde_json::Value) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        for w in [&mut self.series, &mut self.events, &mut self.rtt, &mut self.conns] {
            w.flush()?;
        }
        let summary = serde_json::json!({
            "capture": capture,
            "connections": self.summaries,
        });
        let mut text = serde_json::to_string_pretty(&summary).map_err(io::Error::other)?;
        text.push('\n');
        fs::write(tmp(&self.dir, "summary.json"), text)?;
        for name in FILES {
            fs::rename(tmp(&self.dir, name), self.dir.join(name))?;
        }
        Ok(())
    }

    /// Remove the partial files (after an error).
    pub fn abandon(self) {
        for name in FILES {
            let _ = fs::remove_file(tmp(&self.dir, name));
        }
    }
}

fn opt(v: Option<f64>) -> String {
    v.map_or(String::new(), |x| format!("{x:.3}"))
}

impl Sink for DirSink {
    fn event(&mut self, e: &Event) {
        let r = writeln!(
            self.events,
            "{:.9},{},{},{},{},{},{},{}",
            s(e.t_ns),
            e.conn,
            e.dir.name(),
            e.packet,
            e.kind,
            e.seq,
            e.len,
            e.detail
        );
        self.keep(r);
    }

    fn series(&mut self, r: &SeriesRow) {
        let w = writeln!(
            self.series,
            "{:.9},{},{},{},{},{:.1},{},{},{},{},{}",
            s(r.t_ns),
            r.conn,
            r.dir.name(),
            r.sent_bytes,
            r.delivered_bytes,
            r.goodput_bps,
            r.flight_max_bytes,
            r.rwnd_bytes,
            r.limit,
            r.retransmissions,
            if r.rtt_ms.is_nan() { String::new() } else { format!("{:.3}", r.rtt_ms) }
        );
        self.keep(w);
    }

    fn rtt(&mut self, x: &RttSample) {
        let w = writeln!(
            self.rtt,
            "{:.9},{},{},{},{},{:.6}",
            s(x.t_ns),
            x.conn,
            x.dir.name(),
            x.packet,
            x.source,
            x.rtt_ns as f64 / 1e6
        );
        self.keep(w);
    }

    fn connection(&mut self, c: &ConnSummary) {
        for (dir, src, dst, d) in [("fwd", &c.a, &c.b, &c.fwd), ("rev", &c.b, &c.a, &c.rev)] {
            let w = writeln!(
                self.conns,
                "{},{dir},{src},{dst},{:.9},{:.9},{},{},{},{},{},{},{:.3},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                c.conn,
                s(c.first_ns),
                s(c.last_ns),
                d.capture_point,
                d.packets,
                d.data_packets,
                d.bytes_sent,
                d.bytes_unique,
                d.bytes_delivered,
                d.goodput_bps,
                d.retransmissions,
                d.fast_retransmits,
                d.fast_recovery,
                d.timeouts,
                d.rto_recovery,
                d.tlp,
                d.other_retransmissions,
                d.already_received,
                d.spurious_dsack,
                d.spurious_eifel,
                d.dup_acks,
                d.sack_blocks,
                d.dsacks,
                d.zero_window_acks,
                d.zero_window_probes,
                d.zero_windows.len(),
                d.interruptions.len(),
                d.rtt_karn_samples,
                d.rtt_ambiguous,
                d.rtt_sack_samples,
                opt(d.rtt_karn_mean_ms),
                d.rtt_ts_samples,
                opt(d.rtt_ts_mean_ms),
            );
            self.keep(w);
        }
        self.summaries.push(c.clone());
    }
}
