//! The campus benchmark of the WLAN (issue 8): `APS` access points on a
//! square grid (802.11a, eight 20 MHz channels reused in a pattern that
//! keeps neighbours apart), `STATIONS` stations walking (random waypoint,
//! 0.5–1.5 m/s) that join the network by scanning and roam on signal, each
//! downloading with a bulk TCP (Cubic) flow from a server behind a
//! learning switch, for `SECONDS` simulated.
//!
//!   bench_campus [APS] [STATIONS] [SECONDS] [SPACING_M]   (default 100 2000 60 50)
//!
//! Prints the run loop's wall time, events and events/s, peak memory
//! (VmHWM), the total goodput and the number of handoffs. With
//! `BENCH_DIGEST=1` it also prints an FNV-1a digest of the summary (less
//! `run_wall_s`) and the event log, so two builds can be checked for
//! byte-identical results.

use airtcp_sim::{run, RunOptions, Scenario};

const CHANNELS: [u8; 8] = [36, 40, 44, 48, 52, 56, 60, 64];

fn scenario(aps: usize, stations: usize, seconds: u64, spacing: f64) -> String {
    let side = (aps as f64).sqrt().ceil() as usize;
    let extent = spacing * side as f64;
    let mut t = format!("[sim]\nduration = \"{seconds}s\"\nseed = 1\nseries_interval = \"0s\"\n\n");
    t += "[[nodes]]\nname = \"server\"\n\n[[nodes]]\nname = \"sw\"\nlearn_hosts = true\n\n";
    for a in 0..aps {
        t += &format!("[[nodes]]\nname = \"ap{a}\"\n\n");
    }
    for s in 0..stations {
        t += &format!("[[nodes]]\nname = \"sta{s}\"\n\n");
    }
    t += "[[links]]\na = \"server\"\nb = \"sw\"\nrate = \"10Gbps\"\ndelay = \"1ms\"\nqueue_packets = 1000\n\n";
    for a in 0..aps {
        t += &format!("[[links]]\na = \"sw\"\nb = \"ap{a}\"\nrate = \"1Gbps\"\ndelay = \"100us\"\n\n");
    }
    t += "[wifi]\nstandard = \"a\"\nrate_control = \"minstrel\"\npropagation = \"log-distance\"\nexponent = 3.5\nqueue_packets = 100\n\n";
    for a in 0..aps {
        let (i, j) = (a % side, a / side);
        let ch = CHANNELS[(i + 3 * j) % CHANNELS.len()];
        let (x, y) = (spacing * (i as f64 + 0.5), spacing * (j as f64 + 0.5));
        t += &format!("[[radios]]\nnode = \"ap{a}\"\nmode = \"ap\"\nssid = \"campus\"\nchannel = {ch}\nx = {x}\ny = {y}\nsubnet = \"172.16.0.0/12\"\n\n");
    }
    for s in 0..stations {
        t += &format!(
            "[[radios]]\nnode = \"sta{s}\"\nssid = \"campus\"\nroam_threshold_dbm = -75.0\nrandom_waypoint = {{ area = [0.0, 0.0, {extent}, {extent}], speed = [0.5, 1.5], pause = \"5s\" }}\n\n"
        );
    }
    for s in 0..stations {
        let start = (1.0 + 4.0 * s as f64 / stations as f64).min(seconds as f64 / 2.0);
        t += &format!("[[flows]]\nfrom = \"server\"\nto = \"sta{s}\"\nstart = \"{start:.4}s\"\napp = \"bulk\"\n\n[flows.tcp]\ncc = \"cubic\"\n\n");
    }
    t
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|k| k.parse::<f64>().ok()).map_or(f64::NAN, |kb| kb / 1024.0)
}

/// FNV-1a over the summary with the wall time taken out, then every event.
fn digest(o: &airtcp_sim::RunOutput) -> u64 {
    let mut summary = o.summary.clone();
    if let Some(run) = summary.get_mut("run").and_then(|r| r.as_object_mut()) {
        run.remove("run_wall_s");
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |b: &[u8]| {
        for &x in b {
            h = (h ^ x as u64).wrapping_mul(0x100_0000_01b3);
        }
    };
    feed(summary.to_string().as_bytes());
    for e in &o.events {
        feed(format!("{} {} {:?} {:?} {}\n", e.t_s, e.kind, e.flow, e.link, e.detail).as_bytes());
    }
    h
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: f64| args.get(i).and_then(|s| s.parse::<f64>().ok()).unwrap_or(d);
    let (aps, stations, seconds, spacing) = (arg(0, 100.0) as usize, arg(1, 2000.0) as usize, arg(2, 60.0) as u64, arg(3, 50.0));
    let text = scenario(aps, stations, seconds, spacing);
    let t0 = std::time::Instant::now();
    let s = Scenario::from_toml_str(&text, "campus.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let parse = t0.elapsed().as_secs_f64();
    let o = run(&s, RunOptions::default()).unwrap();
    let goodput: f64 = o.summary["flows"].as_array().unwrap().iter().map(|f| f["goodput_bps"].as_f64().unwrap_or(0.0)).sum();
    let handoffs = o.events.iter().filter(|e| e.kind == "wifi_associated" && e.detail.contains("reassoc=true")).count();
    let joins = o.events.iter().filter(|e| e.kind == "wifi_associated").count();
    println!(
        "aps {aps} stations {stations} sim {seconds}s: parse {parse:.2}s, run loop {:.2}s, events {} ({:.2} M/s), peak RSS {:.0} MiB, goodput total {:.1} Mb/s, associations {joins} ({handoffs} reassociations)",
        o.run_wall_s,
        o.events_executed,
        o.events_executed as f64 / o.run_wall_s / 1e6,
        peak_rss_mib(),
        goodput / 1e6
    );
    if std::env::var_os("BENCH_DIGEST").is_some() {
        println!("digest {:016x} ({} events logged)", digest(&o), o.events.len());
    }
}
