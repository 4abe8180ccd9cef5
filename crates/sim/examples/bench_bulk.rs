//! Benchmark: bulk-lossy, NewReno + PRR, loss 0.01, 600 s simulated (the ns-3
//! anchor's long run: Simulator::Run() 2.08-2.30 s, 1,417,533 events).
//!
//!   cargo run --release -p airtcp-sim --example bench_bulk [-- RUNS [path=value ...]]
//!
//! Prints per run: events executed, the simulation loop's wall time
//! (`run_wall_s`), events/s, goodput; then the best and median wall time and
//! the process's peak RSS.

use std::path::PathBuf;

use airtcp_sim::{run, RunOptions, Scenario};

fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let mut sets = vec![
        ("sim.duration".to_string(), "600s".to_string()),
        ("links.1.loss_ab.p".to_string(), "0.01".to_string()),
        ("flows.0.tcp.cc".to_string(), "newreno".to_string()),
    ];
    for a in args {
        if let Some((p, v)) = a.split_once('=') {
            sets.push((p.to_string(), v.to_string()));
        }
    }
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/bulk-lossy.toml");
    let s = Scenario::from_path(&path, &sets).unwrap_or_else(|e| panic!("{e}"));
    let mut walls = Vec::new();
    for i in 0..runs {
        let o = run(&s, RunOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let f = &o.summary["flows"][0];
        println!(
            "run {i}: events {} wall {:.2} ms  {:.2} M events/s  goodput {:.4} Mb/s  retx {}  timeouts {}",
            o.events_executed,
            o.run_wall_s * 1e3,
            o.events_executed as f64 / o.run_wall_s / 1e6,
            f["goodput_bps"].as_f64().unwrap() / 1e6,
            f["retransmissions"],
            f["timeouts"],
        );
        walls.push(o.run_wall_s);
    }
    walls.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "best {:.2} ms  median {:.2} ms  (ns-3 Simulator::Run(): 2080-2300 ms)  peak RSS {} KiB",
        walls[0] * 1e3,
        walls[walls.len() / 2] * 1e3,
        peak_rss_kib().map_or("?".into(), |k| k.to_string())
    );
}
