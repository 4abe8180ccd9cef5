//! The whole analysis of a capture file or a run directory.

use std::fmt;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::capture::{for_each_packet, CaptureError};
use crate::conn::Analyzer;
use crate::decode::{decode, Skip};
use crate::flow::Settings;
use crate::model::Sink;
use crate::output::DirSink;

/// A capture whose first timestamp is earlier than this (1 day after the
/// epoch) runs on a relative clock (a simulated run): its own times are
/// kept as the time axis. Otherwise times count from the first packet.
const RELATIVE_CLOCK_LIMIT_NS: i64 = 86_400 * 1_000_000_000;
/// Damaged packets whose numbers are listed in the summary (the count is exact).
const LISTED_WARNINGS: usize = 20;

/// Choices of an analysis.
#[derive(Clone, Debug)]
pub struct Options {
    /// Series interval, ns (default 100 ms).
    pub interval_ns: i64,
    /// Shortest delivery gap reported as an interruption, ns (default 1 s).
    pub min_gap_ns: i64,
    /// External events: (start_s, end_s, kind) on the output time axis.
    pub events: Vec<(f64, f64, String)>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            interval_ns: 100_000_000,
            min_gap_ns: 1_000_000_000,
            events: Vec::new(),
        }
    }
}

/// Per-capture totals (`summary.json`'s `capture`).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct CaptureSummary {
    pub file: String,
    pub packets: u64,
    pub tcp_packets: u64,
    /// Frames that are not TCP over IP (ARP, UDP, 802.11 management...).
    pub not_tcp: u64,
    /// Frames that claim IP/TCP but whose headers are cut or invalid: a
    /// counted warning, the rest of the capture is analysed.
    pub damaged: u64,
    pub damaged_packets: Vec<u64>,
    pub unknown_link: u64,
    /// 802.11 frames repeated by the MAC (Retry bit, same sequence number
    /// from the same transmitter as its previous frame): not analysed again.
    pub mac_retries: u64,
    pub connections: u64,
    /// Time origin of every `t_s` in the outputs, ns since the epoch (0 for
    /// a relative clock).
    pub t0_ns: i64,
    pub duration_s: f64,
    /// The file ends inside a record: "packet N (byte offset X): ...".
    pub truncated: Option<String>,
}

/// Why an analysis failed.
#[derive(Debug)]
pub enum AnalyzeError {
    Io { path: PathBuf, error: std::io::Error },
    Capture { path: PathBuf, error: CaptureError },
    Usage(String),
}

impl fmt::Display for AnalyzeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnalyzeError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            AnalyzeError::Capture { path, error } => write!(f, "{}: {error}", path.display()),
            AnalyzeError::Usage(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for AnalyzeError {}

/// Analyse one capture stream into `sink`.
pub fn analyze_reader<R: Read + Send>(input: R, opts: &Options, sink: &mut dyn Sink) -> Result<CaptureSummary, CaptureError> {
    let mut sum = CaptureSummary::default();
    let settings = Settings {
        interval_ns: opts.interval_ns.max(1),
        min_gap_ns: opts.min_gap_ns,
        t0_ns: 0,
        external: Vec::new(),
    };
    let mut an = Analyzer::new(settings, sink);
    let mut first: Option<i64> = None;
    let mut last = 0i64;
    let mut external = Some(&opts.events);
    // Last 802.11 sequence control per transmitter (bounded by radios).
    let mut mac_last: rustc_hash::FxHashMap<[u8; 6], u16> = Default::default();
    let end = for_each_packet(input, |p| {
        if first.is_none() {
            let t0 = if p.t_ns < RELATIVE_CLOCK_LIMIT_NS { 0 } else { p.t_ns };
            first = Some(p.t_ns);
            an.set_t0(t0);
            sum.t0_ns = t0;
            if let Some(ev) = external.take() {
                an.set_external(ev.iter().map(|(s, e, k)| (t0.saturating_add((s * 1e9) as i64), t0.saturating_add((e * 1e9) as i64), k.clone())).collect());
            }
        }
        last = last.max(p.t_ns);
        sum.packets += 1;
        match decode(p.linktype, p.data, p.orig_len) {
            Ok(tcp) => {
                if let Some((ta, seq_ctl, retry)) = tcp.mac {
                    if mac_last.insert(ta, seq_ctl) == Some(seq_ctl) && retry {
                        sum.mac_retries += 1;
                        return;
                    }
                }
                an.packet(p.t_ns, p.number, &tcp)
            }
            Err(Skip::NotTcp) => sum.not_tcp += 1,
            Err(Skip::UnknownLink) => sum.unknown_link += 1,
            Err(Skip::Damaged(_)) => {
                sum.damaged += 1;
                if sum.damaged_packets.len() < LISTED_WARNINGS {
                    sum.damaged_packets.push(p.number);
                }
            }
        }
        if sum.packets % 4096 == 0 {
            an.reap_closed();
        }
    })?;
    sum.tcp_packets = an.tcp_packets;
    sum.connections = an.connections;
    an.finish();
    sum.truncated = end.truncated.map(|e| e.to_string());
    sum.duration_s = first.map_or(0.0, |f| (last - f) as f64 / 1e9);
    Ok(sum)
}

/// Analyse the capture at `path` into `out` (see docs/analyze.md, "Output
/// files"). Nothing is left in `out` if the capture cannot be read.
pub fn analyze_file(path: &Path, out: &Path, opts: &Options) -> Result<CaptureSummary, AnalyzeError> {
    let io = |error| AnalyzeError::Io { path: path.to_path_buf(), error };
    let f = File::open(path).map_err(io)?;
    let mut sink = DirSink::create(out).map_err(|error| AnalyzeError::Io { path: out.to_path_buf(), error })?;
    match analyze_reader(BufReader::with_capacity(1 << 16, f), opts, &mut sink) {
        Ok(mut sum) => {
            sum.file = path.display().to_string();
            let v = serde_json::to_value(&sum).expect("plain data");
            sink.finish(v).map_err(|error| AnalyzeError::Io { path: out.to_path_buf(), error })?;
            Ok(sum)
        }
        Err(error) => {
            sink.abandon();
            Err(AnalyzeError::Capture { path: path.to_path_buf(), error })
        }
    }
}

/// Analyse a capture, or every capture (`*.pcap`, `*.pcapng`) of a run
/// directory, each into `out/<file stem>/`. Returns (capture, summary) pairs.
pub fn analyze_path(path: &Path, out: &Path, opts: &Options) -> Result<Vec<(PathBuf, CaptureSummary)>, AnalyzeError> {
    if !path.is_dir() {
        return Ok(vec![(path.to_path_buf(), analyze_file(path, out, opts)?)]);
    }
    let mut caps: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|error| AnalyzeError::Io { path: path.to_path_buf(), error })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pcap" || x == "pcapng"))
        .collect();
    caps.sort();
    if caps.is_empty() {
        return Err(AnalyzeError::Usage(format!(
            "{}: no .pcap or .pcapng file in this directory (run with --pcap to write captures)",
            path.display()
        )));
    }
    caps.into_iter()
        .map(|c| {
            let stem = c.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let sum = analyze_file(&c, &out.join(stem), opts)?;
            Ok((c, sum))
        })
        .collect()
}

/// Read an events file (CSV with a header): each row one event, its start
/// from the first column present of `t_s`, `start_s`, `t0`, `link_lost`, its
/// end from `end_s`, `associated` (else the start), its kind from `kind`
/// (else "handoff"). A run's handoff table (`Result.handoffs()` written as
/// CSV) is accepted as it is. Times are seconds on the output time axis.
pub fn read_events(path: &Path) -> Result<Vec<(f64, f64, String)>, AnalyzeError> {
    let text = std::fs::read_to_string(path).map_err(|error| AnalyzeError::Io { path: path.to_path_buf(), error })?;
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        return Err(AnalyzeError::Usage(format!("{}: empty events file", path.display())));
    };
    let cols: Vec<&str> = header.split(',').map(str::trim).collect();
    let find = |names: &[&str]| names.iter().find_map(|n| cols.iter().position(|c| c == n));
    let start = find(&["t_s", "start_s", "t0", "link_lost"]).ok_or_else(|| {
        AnalyzeError::Usage(format!("{}:1: no time column (t_s, start_s, t0 or link_lost)", path.display()))
    })?;
    let end = find(&["end_s", "associated"]);
    let kind = find(&["kind"]);
    let mut out = Vec::new();
    for (i, line) in lines {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let num = |c: usize| -> Result<Option<f64>, AnalyzeError> {
            match f.get(c).copied().unwrap_or("") {
                "" | "nan" | "NaN" => Ok(None),
                v => v.parse::<f64>().map(Some).map_err(|_| {
                    AnalyzeError::Usage(format!("{}:{}: column {:?}: {v:?} is not a number", path.display(), i + 1, cols[c]))
                }),
            }
        };
        let Some(s) = num(start)? else { continue };
        let e = match end {
            Some(c) => num(c)?.unwrap_or(s),
            None => s,
        };
        let k = kind.and_then(|c| f.get(c)).map_or("handoff".to_string(), |k| k.to_string());
        out.push((s, e.max(s), k));
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(out)
}
