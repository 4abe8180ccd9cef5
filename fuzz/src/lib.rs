//! Fuzz harnesses for airtcp: one function per `cargo fuzz` target.
//!
//! The functions depend only on airtcp-core, airtcp-sim, toml and
//! serde_json (never on libfuzzer-sys), so the stable regression test
//! `crates/sim/tests/it/fuzz_corpus.rs` includes this file with `#[path]` and
//! replays every corpus file through exactly what the fuzz targets run.
//!
//! Property checked by all of them: no panic on any input (errors are fine),
//! bounded time and memory per input.

use std::io::Cursor;

use airtcp_core::pcap::PcapReader;
use airtcp_core::{wire, Duration, Instant};
use airtcp_sim::trace::{
    parse_feup, parse_imc23, parse_ucc, DriveLink, DriveLinkConfig, DriveTimeline, FeupSelect,
    MahimahiSchedule,
};
use airtcp_sim::{RunOptions, Scenario};

/// Trace bytes larger than this are not parsed (keeps each input fast).
const MAX_TEXT: usize = 256 * 1024;

/// `wire::decode` and `wire::decode_ethernet` on the same bytes, and a
/// re-encode of whatever decodes.
pub fn wire_decode(data: &[u8]) {
    let mut buf = Vec::new();
    if let Ok(p) = wire::decode(data) {
        let _ = wire::encode(&p, &mut buf);
    }
    if let Ok(f) = wire::decode_ethernet(data) {
        let _ = wire::encode_ethernet(&f, &mut buf);
    }
}

/// `PcapReader` over arbitrary bytes; every record's data goes through the
/// decoder its link type names (Ethernet 1, raw IPv4 101/228).
pub fn pcap_read(data: &[u8]) {
    let Ok(mut r) = PcapReader::new(Cursor::new(data)) else {
        return;
    };
    let _ = (r.snaplen, r.linktype);
    // Each record consumes at least its 16-byte header, so this ends; the
    // bound is a second guard against a reader that stops consuming.
    for _ in 0..=data.len() / 16 {
        match r.next_record() {
            Ok(Some(rec)) => match r.linktype {
                1 => {
                    let _ = wire::decode_ethernet(&rec.data);
                }
                _ => {
                    let _ = wire::decode(&rec.data);
                }
            },
            Ok(None) | Err(_) => return,
        }
    }
}

fn text(data: &[u8]) -> Option<String> {
    (data.len() <= MAX_TEXT).then(|| String::from_utf8_lossy(data).into_owned())
}

/// A parsed drive log is also turned into a link (what a scenario's
/// `[links.trace]` does) and queried at a few times.
fn drive_link(tl: &DriveTimeline) {
    let _ = tl.duration();
    let cfg = DriveLinkConfig::for_kind(tl.kind);
    if let Ok(mut l) = DriveLink::new(tl, &cfg, Instant::ZERO) {
        let end = l.end();
        for t in [
            Instant::ZERO,
            end,
            Instant::ZERO + Duration::from_millis(1500),
        ] {
            let _ = (
                l.capacity_at(t),
                l.loss_prob(t),
                l.is_down(t),
                l.signal_at(t),
            );
        }
        let _ = l.outage_windows();
        let _ = l.loss_schedule();
        let mut t = Instant::ZERO;
        for _ in 0..64 {
            let next = l.finish_time(t, 1500);
            if next <= t || next > end {
                break;
            }
            t = next;
        }
    }
}

/// The Mahimahi parser, then a few transmissions over the schedule.
pub fn mahimahi(data: &[u8]) {
    let Some(text) = text(data) else { return };
    if let Ok(mut s) = MahimahiSchedule::parse_named("fuzz", &text, Instant::ZERO) {
        let _ = (s.opportunities(), s.period_ms(), s.capacity_bps());
        let mut t = Instant::ZERO;
        for _ in 0..64 {
            t = s.finish_time(t, 1500);
        }
        s.reset();
    }
}

pub fn drive_ucc(data: &[u8]) {
    let Some(text) = text(data) else { return };
    if let Ok(tl) = parse_ucc("fuzz", &text) {
        drive_link(&tl);
    }
}

pub fn drive_imc23(data: &[u8]) {
    let Some(text) = text(data) else { return };
    if let Ok(tl) = parse_imc23("fuzz", &text) {
        drive_link(&tl);
    }
}

/// Three FEUP readings: the default roaming client, one with no
/// hysteresis, and one fixed AP-to-client link.
pub fn drive_feup(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let fixed = FeupSelect::Link {
        sender: "ap1".to_string(),
        receiver: "w2".to_string(),
    };
    for sel in [
        FeupSelect::default(),
        FeupSelect::StrongestAp { hysteresis_db: 0.0 },
        fixed,
    ] {
        if let Ok(tl) = parse_feup("fuzz", &text, &sel) {
            drive_link(&tl);
        }
    }
}

/// A trace `file` in a fuzzed scenario is read from disk while the scenario
/// is validated (relative to the working directory, as origin "fuzz" has no
/// directory). Let through only names of existing regular files of at most
/// 1 MiB: never a device such as `/dev/zero` or `/dev/stdin`, a FIFO or a
/// `/proc` file, which could take unbounded time or memory to read.
fn safe_file_name(s: &str) -> bool {
    match std::fs::metadata(s) {
        Ok(m) => m.is_file() && m.len() > 0 && m.len() <= 1 << 20,
        Err(_) => true, // the reader fails too
    }
}

fn json_files_safe(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Object(m) => m.iter().all(|(k, v)| {
            (k != "file" || v.as_str().map_or(true, safe_file_name)) && json_files_safe(v)
        }),
        serde_json::Value::Array(a) => a.iter().all(json_files_safe),
        _ => true,
    }
}

fn toml_files_safe(v: &toml::Value) -> bool {
    match v {
        toml::Value::Table(m) => m.iter().all(|(k, v)| {
            (k != "file" || v.as_str().map_or(true, safe_file_name)) && toml_files_safe(v)
        }),
        toml::Value::Array(a) => a.iter().all(toml_files_safe),
        _ => true,
    }
}

/// Inputs we cannot parse ourselves may still parse in the scenario reader;
/// run them only if no key could spell `file` (no escapes either).
fn raw_safe(text: &str) -> bool {
    !text.contains("file") && !text.contains('\\')
}

fn toml_safe(text: &str) -> bool {
    match text.parse::<toml::Table>() {
        Ok(t) => toml_files_safe(&toml::Value::Table(t)),
        Err(_) => raw_safe(text),
    }
}

fn json_safe(text: &str) -> bool {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => json_files_safe(&v),
        Err(_) => raw_safe(text),
    }
}

/// The TOML scenario reader through validation (origin "fuzz", no
/// overrides); a valid scenario also goes through `to_json` and back.
pub fn scenario_toml(data: &[u8]) {
    let Some(text) = text(data) else { return };
    if !toml_safe(&text) {
        return;
    }
    if let Ok(s) = Scenario::from_toml_str(&text, "fuzz", &[]) {
        let j = s.to_json().to_string();
        let _ = Scenario::from_json_str(&j, "fuzz", &[]);
    }
}

/// The JSON scenario reader through validation.
pub fn scenario_json(data: &[u8]) {
    let Some(text) = text(data) else { return };
    if !json_safe(&text) {
        return;
    }
    if let Ok(s) = Scenario::from_json_str(&text, "fuzz", &[]) {
        let _ = s.to_json();
    }
}

/// Limits that keep one simulated input well under a second.
pub const SIM_MAX_NODES: usize = 8;
pub const SIM_MAX_LINKS: usize = 8;
pub const SIM_MAX_FLOWS: usize = 4;
pub const SIM_MAX_AGENTS: usize = 4;
pub const SIM_MAX_ROUTE_CHANGES: usize = 16;
pub const SIM_MAX_RATE_BPS: u64 = 1_000_000_000;
pub const SIM_MAX_DURATION: Duration = Duration::from_secs(2);
pub const SIM_MIN_INTERVAL: Duration = Duration::from_millis(1);

/// Whether a valid scenario is small enough to simulate in a fuzz run.
pub fn sim_small_enough(s: &Scenario) -> bool {
    s.nodes.len() <= SIM_MAX_NODES
        && s.links.len() <= SIM_MAX_LINKS
        && s.flows.len() <= SIM_MAX_FLOWS
        && s.agents.len() <= SIM_MAX_AGENTS
        && s.route_changes.len() <= SIM_MAX_ROUTE_CHANGES
        && s.sim.series_interval >= SIM_MIN_INTERVAL
        && s.links.iter().all(|l| {
            l.trace.iter().all(Option::is_none) && l.rate_bps.iter().all(|&r| r <= SIM_MAX_RATE_BPS)
        })
        && s.flows
            .iter()
            .all(|f| f.recv_rate_bps.is_none() || f.recv_interval >= SIM_MIN_INTERVAL)
}

/// A whole short simulation of a fuzzed TOML scenario: at most 2 s of
/// simulated time (a longer `sim.duration` is overridden to "2s"), small
/// topologies only, no trace files. True if it ran (whatever the result).
pub fn simulate(data: &[u8]) -> bool {
    let Some(text) = text(data) else { return false };
    if data.len() > 16 * 1024 || !toml_safe(&text) {
        return false;
    }
    let Ok(mut s) = Scenario::from_toml_str(&text, "fuzz", &[]) else {
        return false;
    };
    if s.duration() > SIM_MAX_DURATION {
        let o = [("sim.duration".to_string(), "2s".to_string())];
        match Scenario::from_toml_str(&text, "fuzz", &o) {
            Ok(s2) => s = s2,
            Err(_) => return false,
        }
    }
    if s.duration() > SIM_MAX_DURATION || !sim_small_enough(&s) {
        return false;
    }
    let _ = airtcp_sim::run(&s, RunOptions::default());
    true
}

/// `airtcp_analyze::analyze_reader` over the bytes as a capture: the pcap /
/// pcapng reader, every link decoder and the whole TCP analysis.
pub fn analyze_capture(data: &[u8]) {
    let mut sink = airtcp_analyze::model::Collect::default();
    let _ = airtcp_analyze::analyze_reader(Cursor::new(data), &airtcp_analyze::Options::default(), &mut sink);
}
