//! Trace-driven links inside the simulator: `[links.trace]` keys, Mahimahi
//! capacity, drive-log handoffs (event log, stall and drop outages), the
//! loss curve, the summary's signal series, and errors naming file and line.

use std::path::{Path, PathBuf};

use airtcp_core::{Duration, Instant};
use airtcp_sim::link::{LinkDir, QueueLimit, RateModel, Verdict};
use airtcp_sim::trace::MahimahiSchedule;
use airtcp_sim::{run, RunOptions, RunOutput, Scenario};

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/traces").join(rel)
}

/// A fresh directory under the target dir for generated logs and scenarios.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("trace_integration").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const UCC_HEADER: &str = "Timestamp,Longitude,Latitude,Speed,Operatorname,CellID,NetworkMode,RSRP,RSRQ,SNR,CQI,RSSI,DL_bitrate,UL_bitrate,State,PINGAVG,PINGMIN,PINGMAX,PINGSTDEV,PINGLOSS,CELLHEX,NODEHEX,LACHEX,RAWCELLID,NRxRSRP,NRxRSRQ";

/// A G-NetTrack (UCC) log, one row per second: (cell, RSRP dBm, DL kbit/s).
fn ucc_log(rows: &[(&str, i32, u32)]) -> String {
    let mut s = String::from(UCC_HEADER);
    s.push('\n');
    for (i, (cell, rsrp, dl)) in rows.iter().enumerate() {
        let (m, sec) = (24 + i / 60, i % 60);
        s.push_str(&format!(
            "2019.12.14_10.{m:02}.{sec:02},-8.41,51.92,52,B,{cell},LTE,{rsrp},-9,-,15,-74,{dl},200,D,-,-,-,-,-,C,A99B,9CBA,11115276,-90.0,-13.0\n"
        ));
    }
    s
}

/// 20 s at 2 Mbit/s on cell 12, then cell 13 from t = 5 s.
fn handoff_log(dir: &Path) -> PathBuf {
    let rows: Vec<(&str, i32, u32)> = (0..20).map(|i| (if i < 5 { "12" } else { "13" }, -90, 2000)).collect();
    let p = dir.join("drive.csv");
    std::fs::write(&p, ucc_log(&rows)).unwrap();
    p
}

/// server --100 Mb/s, 10 ms-- bs --trace (ab = downlink), 10 ms-- mobile; a
/// bulk flow from the server to the mobile.
fn drive_scenario(trace: &str, duration: &str, cc: &str) -> String {
    format!(
        r#"
[sim]
duration = "{duration}"

[[nodes]]
name = "server"
[[nodes]]
name = "bs"
[[nodes]]
name = "mobile"

[[links]]
a = "server"
b = "bs"
rate = "100Mbps"
delay = "10ms"

[[links]]
a = "bs"
b = "mobile"
rate_ba = "1Mbps"
delay = "10ms"
queue_packets = 100
[links.trace_ab]
{trace}

[[flows]]
from = "server"
to = "mobile"
[flows.tcp]
cc = "{cc}"
"#
    )
}

fn run_text(text: &str, origin: &str) -> RunOutput {
    let s = Scenario::from_toml_str(text, origin, &[]).unwrap_or_else(|e| panic!("{e}"));
    run(&s, RunOptions::default()).unwrap()
}

fn err_text(text: &str, origin: &str) -> String {
    Scenario::from_toml_str(text, origin, &[]).unwrap_err().to_string()
}

#[test]
fn saturated_mahimahi_link_carries_the_trace_capacity() {
    // Frames of exactly one opportunity (1500 B, no link overhead), the queue
    // never empty: every opportunity carries one frame.
    let sched = MahimahiSchedule::from_path(data("mahimahi/TMobile-UMTS-driving.up.head300"), Instant::ZERO).unwrap();
    let cap = sched.capacity_bps();
    assert_eq!((sched.opportunities(), sched.period_ms()), (300, 3742));
    let mut link = LinkDir::new(RateModel::Mahimahi(Box::new(sched)), Duration::ZERO, QueueLimit::Packets(10), 0);
    let horizon = Instant::from_secs(60);
    let mut delivered_bits = 0u64;
    let mut now = Instant::ZERO;
    let mut last_finish = Instant::ZERO;
    while now < horizon {
        match link.enqueue(now, 1500) {
            Verdict::Delivered { finish, .. } => {
                if finish <= horizon {
                    delivered_bits += 1500 * 8;
                }
                last_finish = finish;
            }
            Verdict::QueueDrop => now = last_finish.min(horizon),
            Verdict::Lost { .. } => unreachable!("no loss model"),
        }
    }
    let rate = delivered_bits as f64 / 60.0;
    assert!((rate / cap - 1.0).abs() < 0.01, "carried {rate} b/s, trace capacity {cap} b/s");
    assert_eq!(RateModel::Mahimahi(Box::new(MahimahiSchedule::from_path(data("mahimahi/TMobile-UMTS-driving.up.head300"), Instant::ZERO).unwrap())).nominal_bps(), cap.round() as u64);
}

#[test]
fn tcp_over_a_mahimahi_link_never_exceeds_the_trace() {
    let file = data("mahimahi/TMobile-UMTS-driving.up.head300");
    let trace = format!("kind = \"mahimahi\"\nfile = \"{}\"", file.display());
    // MSS 1448 + 52 B of headers (timestamps) = one 1500 B opportunity.
    let text = drive_scenario(&trace, "60s", "cubic").replace("[[links]]\na = \"bs\"", "[[links]]\noverhead_bytes = 0\na = \"bs\"");
    let out = run_text(&text, "mm.toml");
    let opps: Vec<u64> = std::fs::read_to_string(&file).unwrap().lines().map(|l| l.trim().parse().unwrap()).collect();
    let period = *opps.last().unwrap();
    // Opportunities at or before t ms (the trace repeats every `period` ms).
    let opps_until = |t_ms: u64| -> u64 {
        let (cycles, rem) = (t_ms / period, t_ms % period);
        cycles * opps.len() as u64 + opps.iter().filter(|&&o| o <= rem).count() as u64
    };
    let s = &out.series[0];
    for (i, &t) in s.t_s.iter().enumerate() {
        let t_ms = (t * 1000.0).round() as u64;
        // Bytes read by time t left the bottleneck at least 10 ms earlier.
        let bound = opps_until(t_ms.saturating_sub(10)) * 1448;
        assert!(s.bytes_delivered[i] <= bound, "t={t}: {} bytes > {bound}", s.bytes_delivered[i]);
    }
    let cap = 300.0 * 1500.0 * 8.0 * 1000.0 / period as f64;
    let goodput = out.summary["flows"][0]["goodput_bps"].as_f64().unwrap();
    // Payload share of each 1500 B opportunity is 1448/1500; TCP fills most of it.
    assert!(goodput <= cap * 1448.0 / 1500.0, "goodput {goodput} > capacity {cap}");
    assert!(goodput > 0.85 * cap, "goodput {goodput} far below capacity {cap}");
    let tr = &out.summary["links"][1]["trace_ab"];
    assert_eq!(tr["kind"], "mahimahi");
    assert_eq!(tr["opportunities"], 300);
}

#[test]
fn a_cell_change_logs_a_handoff_and_stalls_the_link() {
    let dir = scratch("stall");
    handoff_log(&dir);
    let trace = r#"kind = "drive"
file = "drive.csv"
handoff_outage = "1s"
[links.trace_ab.capacity]
kind = "reported"
[links.trace_ab.loss]
max_loss = 0"#;
    let origin = dir.join("scenario.toml");
    let out = run_text(&drive_scenario(trace, "10s", "reno"), origin.to_str().unwrap());
    let h: Vec<_> = out.events.iter().filter(|e| e.kind == "handoff").collect();
    assert_eq!(h.len(), 1, "{:?}", out.events);
    assert_eq!((h[0].t_s, h[0].link, h[0].detail.as_str()), (5.0, Some(1), "12->13 ab outage=1s stall"));
    // Nothing leaves the base station between 5 s and 6 s: what was read at
    // 5.1 s (the last frames landing 10 ms after the stall) is all there is at 6 s.
    let s = &out.series[0];
    let at = |t: f64| s.bytes_delivered[s.t_s.iter().position(|&x| (x - t).abs() < 1e-9).unwrap()];
    assert!(at(5.0) > 0);
    assert_eq!(at(5.1), at(6.0));
    assert!(at(6.5) > at(6.0));
    let l = &out.summary["links"][1];
    assert_eq!(l["ab"]["outage_drops"], 0);
    assert_eq!(l["trace_ab"]["handoffs"], 1);
    assert_eq!(l["trace_ab"]["handoff_times"][0]["t_s"], 5.0);
    assert_eq!(l["trace_ab"]["format"], "ucc");
    // Step series: 1 s samples plus the outage edges, 0 capacity inside it.
    let ser = &l["trace_ab"]["series"];
    let t: Vec<f64> = ser["t_s"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    let cap: Vec<u64> = ser["capacity_bps"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert_eq!(t, (0..=10).map(|i| i as f64).collect::<Vec<_>>());
    assert_eq!(cap[4..7], [2_000_000, 0, 2_000_000]);
    assert_eq!(ser["signal_dbm"][3], -90.0);
    assert_eq!(out.summary["run"]["events_by_kind"]["handoff"], 1);
}

#[test]
fn handoff_drops_lose_the_frames_of_the_outage() {
    let dir = scratch("drop");
    handoff_log(&dir);
    let trace = r#"kind = "drive"
file = "drive.csv"
handoff_outage = "500ms"
handoff_drops = true
[links.trace_ab.capacity]
kind = "reported"
[links.trace_ab.loss]
max_loss = 0"#;
    // A fixed 128 KiB receive buffer (SO_RCVBUF; the default before Linux
    // autotuning was modelled) keeps the flow window-limited with a steady,
    // nearly full bottleneck queue. With autotuning the window outgrows the
    // queue, the flow becomes cwnd-limited and how many frames are queued
    // at the handoff depends on where Reno's sawtooth is (55 at 5 s).
    let text = drive_scenario(trace, "10s", "reno").replace("cc = \"reno\"", "cc = \"reno\"\nrcv_buf = 131072");
    let out = run_text(&text, dir.join("s.toml").to_str().unwrap());
    let l = &out.summary["links"][1];
    // 500 ms at 2 Mbit/s of 1502-byte frames: 83 frames drain into the void.
    let drops = l["ab"]["outage_drops"].as_u64().unwrap();
    assert!((80..=84).contains(&drops), "outage drops {drops}");
    assert_eq!(l["ab"]["loss_drops"], 0);
    let f = &out.summary["flows"][0];
    assert!(f["retransmissions"].as_u64().unwrap() >= drops, "{f}");
    let h = out.events.iter().find(|e| e.kind == "handoff").unwrap();
    assert_eq!(h.detail, "12->13 ab outage=500ms drop");
    // The rate model stays up: the capacity series shows the drop window as 0.
    let cap = &l["trace_ab"]["series"]["capacity_bps"];
    assert_eq!((cap[5].as_u64(), cap[6].as_u64()), (Some(0), Some(2_000_000)));
}

#[test]
fn the_loss_curve_drops_frames_at_its_probability() {
    let dir = scratch("loss");
    // RSRP at the curve's midpoint: p = max_loss / 2 = 0.05.
    let rows: Vec<(&str, i32, u32)> = (0..30).map(|_| ("7", -120, 5000)).collect();
    std::fs::write(dir.join("weak.csv"), ucc_log(&rows)).unwrap();
    let trace = r#"kind = "drive"
file = "weak.csv"
[links.trace_ab.capacity]
kind = "reported"
[links.trace_ab.loss]
midpoint_dbm = -120
max_loss = 0.1"#;
    let out = run_text(&drive_scenario(trace, "30s", "reno"), dir.join("s.toml").to_str().unwrap());
    let ab = &out.summary["links"][1]["ab"];
    let (lost, sent) = (ab["loss_drops"].as_f64().unwrap(), ab["frames_sent"].as_f64().unwrap());
    assert!(sent > 1000.0, "{ab}");
    assert!((lost / sent - 0.05).abs() < 0.015, "loss {lost}/{sent}");
    assert!(out.events.iter().all(|e| e.kind != "handoff"));
}

#[test]
fn shared_drive_logs_run_with_their_defaults() {
    // The IMC'23 excerpt with the default cellular mapping (Shannon on RSRP/RSSNR).
    let file = data("cellular_handover_logs_imc23/lv_to_slc__12041FDD4002ET_1660105596.9522562.lines1672-1971.out");
    let trace = format!("kind = \"drive\"\nfile = \"{}\"", file.display());
    let s = Scenario::from_toml_str(&drive_scenario(&trace, "30s", "cubic"), "imc.toml", &[]).unwrap();
    let out = run(&s, RunOptions::default()).unwrap();
    let tr = &out.summary["links"][1]["trace_ab"];
    assert_eq!(tr["format"], "imc23");
    assert_eq!(tr["handoff_outage_s"], 0.05);
    let n = out.events.iter().filter(|e| e.kind == "handoff").count() as u64;
    assert_eq!(tr["handoffs"].as_u64().unwrap(), n);
    assert!(out.summary["flows"][0]["bytes_delivered"].as_u64().unwrap() > 0);
    // The resolved scenario (every trace default filled in) loads again as the same scenario.
    let json = s.to_json().to_string();
    let again = Scenario::from_json_str(&json, "<resolved>", &[]).unwrap();
    // serde_json reads floats to within an ulp (-123.24000000000001 comes
    // back as -123.24), so compare the resolved text after one more trip.
    let twice = Scenario::from_json_str(&again.to_json().to_string(), "<resolved>", &[]).unwrap();
    assert_eq!(twice.links, again.links);
    assert_eq!(again.links[1].rate_bps, s.links[1].rate_bps);
    let t = &s.to_json()["links"][1]["trace_ab"];
    assert_eq!(t["capacity"]["kind"], "shannon");
    assert_eq!(t["handoff_outage"], "50ms");
    assert!(s.to_json()["links"][1].get("rate_ab").is_none());
}

#[test]
fn feup_default_is_the_wifi_roaming_client() {
    let file = data("wifi_vehicular_feup/final-exp-log.excerpt.csv");
    let trace = format!("kind = \"drive\"\nfile = \"{}\"\nfeup_hysteresis = 5.0", file.display());
    let s = Scenario::from_toml_str(&drive_scenario(&trace, "5s", "reno"), "feup.toml", &[]).unwrap();
    let t = &s.to_json()["links"][1]["trace_ab"];
    assert_eq!((t["format"].as_str(), t["handoff_outage"].as_str()), (Some("feup"), Some("200ms")));
    assert_eq!(t["capacity"]["kind"], "linear");
    assert_eq!(t["feup_hysteresis"], 5.0);
}

#[test]
fn a_scenario_file_with_a_byte_that_is_not_utf8_names_its_line() {
    // As in a drive log: the file's line and the byte's column, not a bare
    // "stream did not contain valid UTF-8".
    let path = scratch("scenario-utf8").join("s.toml");
    let mut bytes = drive_scenario("kind = \"drive\"\nfile = \"x.csv\"", "5s", "reno").into_bytes();
    let at = bytes.windows(6).position(|w| w == b"[sim]\n").unwrap() + 7;
    bytes[at] = 0xe9; // a Latin-1 'é', second byte of the line after [sim]
    std::fs::write(&path, &bytes).unwrap();
    let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    let e = Scenario::from_path(&path, &[]).unwrap_err();
    assert_eq!(e.to_string(), format!("{}:{line}: not valid UTF-8 (byte 0xe9 at column 2)", path.display()));
    assert_eq!(e.line, Some(line as u32));
}

#[test]
fn trace_errors_name_the_scenario_key_and_the_trace_line() {
    let dir = scratch("errors");
    let origin = dir.join("s.toml");
    let origin = origin.to_str().unwrap();
    // Missing file: the scenario's line of `file`, the resolved path.
    let e = err_text(&drive_scenario("kind = \"drive\"\nfile = \"nope.csv\"", "5s", "reno"), origin);
    assert!(e.starts_with(&format!("{origin}:26: links[1].trace_ab.file: cannot read trace file {}", dir.join("nope.csv").display())), "{e}");
    // A malformed line: the trace's own file:line after the scenario key.
    let mut text = ucc_log(&[("1", -90, 100), ("1", -91, 100), ("1", -92, 100)]);
    text = text.replacen("-91,", "minus91,", 1);
    std::fs::write(dir.join("bad.csv"), &text).unwrap();
    let e = err_text(&drive_scenario("kind = \"drive\"\nfile = \"bad.csv\"", "5s", "reno"), origin);
    let bad = dir.join("bad.csv");
    assert_eq!(
        e,
        format!("{origin}:26: links[1].trace_ab.file: bad trace: {}:3: column RSRP: expected a number, found \"minus91\"", bad.display())
    );
    // A byte that is not UTF-8 on line 3 of a drive log: the log's file:line,
    // not a bare "stream did not contain valid UTF-8".
    let mut bytes = ucc_log(&[("1", -90, 100), ("1", -91, 100), ("1", -92, 100)]).into_bytes();
    let at = bytes.windows(4).position(|w| w == b"-91,").unwrap();
    bytes[at] = 0xff;
    std::fs::write(dir.join("latin1.csv"), &bytes).unwrap();
    let e = err_text(&drive_scenario("kind = \"drive\"\nfile = \"latin1.csv\"", "5s", "reno"), origin);
    let col = at - bytes[..at].iter().rposition(|&b| b == b'\n').unwrap();
    assert_eq!(
        e,
        format!(
            "{origin}:26: links[1].trace_ab.file: bad trace: {}:3: not valid UTF-8 (byte 0xff at column {col})",
            dir.join("latin1.csv").display()
        )
    );
    // A truncated Mahimahi line.
    std::fs::write(dir.join("mm.trace"), "1\n2\nx3\n").unwrap();
    let e = err_text(&drive_scenario("kind = \"mahimahi\"\nfile = \"mm.trace\"", "5s", "reno"), origin);
    assert!(e.ends_with(&format!("{}:3: expected a millisecond timestamp (unsigned integer), found \"x3\"", dir.join("mm.trace").display())), "{e}");
    // Keys.
    let e = err_text(&drive_scenario("kind = \"mahimahi\"\nfile = \"mm.trace\"\noffset = \"1s\"", "5s", "reno"), origin);
    assert_eq!(e, format!("{origin}:27: links[1].trace_ab.offset: unknown key (known: kind, file)"));
    let e = err_text(&drive_scenario("kind = \"ns2\"\nfile = \"x\"", "5s", "reno"), origin);
    assert_eq!(e, format!("{origin}:25: links[1].trace_ab.kind: unknown trace kind \"ns2\" (known: mahimahi, drive)"));
    handoff_log(&dir);
    let e = err_text(&drive_scenario("kind = \"drive\"\nfile = \"drive.csv\"\nformat = \"csv\"", "5s", "reno"), origin);
    assert!(e.contains("links[1].trace_ab.format: unknown drive-log format \"csv\""), "{e}");
    let e = err_text(&drive_scenario("kind = \"drive\"\nfile = \"drive.csv\"\nfeup_link = \"ap2->m1\"", "5s", "reno"), origin);
    assert!(e.contains("links[1].trace_ab.feup_link: feup_link applies to FEUP logs only (this log is read as \"ucc\")"), "{e}");
    let e = err_text(
        &drive_scenario("kind = \"drive\"\nfile = \"drive.csv\"\n[links.trace_ab.capacity]\nkind = \"shannon\"\nbandwidth = 5e6", "5s", "reno"),
        origin,
    );
    assert!(e.contains("links[1].trace_ab.capacity: unknown field `bandwidth`"), "{e}");
    let e = err_text(&drive_scenario("kind = \"drive\"\nfile = \"drive.csv\"\noffset = \"60s\"", "5s", "reno"), origin);
    assert!(e.contains("links[1].trace_ab.offset: offset 60s is not before the end of the log (19s)"), "{e}");
    // A trace replaces the rate of its direction; a second rate is a conflict.
    let text = drive_scenario("kind = \"drive\"\nfile = \"drive.csv\"", "5s", "reno").replace("rate_ba = \"1Mbps\"", "rate_ab = \"1Mbps\"");
    let e = err_text(&text, origin);
    assert!(e.contains("links[1].rate_ab: conflicts with the trace of direction ab"), "{e}");
    let text = drive_scenario("kind = \"drive\"\nfile = \"drive.csv\"", "5s", "reno").replace("rate_ba = \"1Mbps\"", "");
    assert!(err_text(&text, origin).contains("links[1].rate: missing required key"));
    // A drive trace's loss curve and a loss model on the same direction.
    let text = drive_scenario("kind = \"drive\"\nfile = \"drive.csv\"", "5s", "reno")
        .replace("[links.trace_ab]", "[links.loss_ab]\nmodel = \"uniform\"\np = 0.01\n[links.trace_ab]");
    let e = err_text(&text, origin);
    assert!(e.contains("links[1].loss_ab.model: conflicts with the drive trace of direction ab"), "{e}");
    // ...which is fine once the curve is off.
    let text = text.replace("file = \"drive.csv\"", "file = \"drive.csv\"\n[links.trace_ab.loss]\nmax_loss = 0");
    Scenario::from_toml_str(&text, origin, &[]).unwrap();
}

#[test]
fn reported_mapping_needs_a_throughput_column() {
    let file = data("cellular_handover_logs_imc23/lv_to_slc__12041FDD4002ET_1660105596.9522562.lines1672-1971.out");
    let trace = format!("kind = \"drive\"\nfile = \"{}\"\n[links.trace_ab.capacity]\nkind = \"reported\"", file.display());
    let e = err_text(&drive_scenario(&trace, "5s", "reno"), "r.toml");
    assert!(e.starts_with("r.toml:27: links[1].trace_ab.capacity: "), "{e}");
    assert!(e.ends_with("mapping \"reported\" needs a throughput column, and this log has no throughput values"), "{e}");
}

#[test]
fn traced_runs_are_deterministic() {
    let dir = scratch("det");
    handoff_log(&dir);
    let trace = "kind = \"drive\"\nfile = \"drive.csv\"\nhandoff_outage = \"300ms\"\nhandoff_drops = true";
    let text = drive_scenario(trace, "8s", "cubic");
    let origin = dir.join("s.toml");
    let a = run_text(&text, origin.to_str().unwrap());
    let b = run_text(&text, origin.to_str().unwrap());
    assert_eq!(a.series, b.series);
    assert_eq!(a.events, b.events);
    assert_eq!(a.summary["flows"], b.summary["flows"]);
}
