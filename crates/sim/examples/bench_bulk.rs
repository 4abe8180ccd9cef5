//! Benchmark: bulk-lossy, NewReno + PRR, loss 0.01, 600 s simulated (the ns-3
//! anchor's long run: Simulator::Run() 2.08-2.30 s, 1,417,533 events).
//!
//!   cargo run --release -p airtcp-sim --example bench_bulk [-- RUNS [--out DIR] [path=value ...]]
//!
//! Prints per run: events executed, the simulation loop's wall time
//! (`run_wall_s`), events/s, goodput, and with `--out` the time
//! `write_outputs` took (into DIR/run<i>); then the medians and the
//! process's peak RSS (VmHWM). For the peak RSS of one run as the CLI does it, run with RUNS=1
//! (scripts/bench.sh does): later runs reuse the freed heap of earlier ones.
//! The last line is machine-readable (`key=value`, for scripts/bench.sh).

use std::path::PathBuf;
use std::time::Instant;

use airtcp_sim::{run, write_outputs, RunOptions, Scenario};

fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let runs: usize = match args.peek().and_then(|a| a.parse().ok()) {
        Some(n) => {
            args.next();
            n
        }
        None => 5,
    };
    let runs = runs.max(1);
    let mut sets = vec![
        ("sim.duration".to_string(), "600s".to_string()),
        ("links.1.loss_ab.p".to_string(), "0.01".to_string()),
        ("flows.0.tcp.cc".to_string(), "newreno".to_string()),
    ];
    let mut out_dir: Option<PathBuf> = None;
    while let Some(a) = args.next() {
        if a == "--out" {
            out_dir = Some(PathBuf::from(args.next().unwrap_or_else(|| panic!("--out needs a directory"))));
        } else if let Some((p, v)) = a.split_once('=') {
            sets.push((p.to_string(), v.to_string()));
        } else {
            panic!("unexpected argument {a:?}: expected RUNS, --out DIR or path=value");
        }
    }
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/bulk-lossy.toml");
    let s = Scenario::from_path(&path, &sets).unwrap_or_else(|e| panic!("{e}"));
    let mut walls = Vec::new();
    let mut writes = Vec::new();
    let mut events = 0;
    for i in 0..runs {
        let o = run(&s, RunOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let f = &o.summary["flows"][0];
        let write_ms = out_dir.as_ref().map(|d| {
            // A fresh directory per run: replacing the files of an earlier
            // run adds the kernel's work of freeing them (see scripts/bench.sh).
            let d = d.join(format!("run{i}"));
            let t = Instant::now();
            write_outputs(&o, &d).unwrap_or_else(|e| panic!("{e}"));
            t.elapsed().as_secs_f64() * 1e3
        });
        println!(
            "run {i}: events {} wall {:.2} ms  {:.2} M events/s  goodput {:.4} Mb/s  retx {}  timeouts {}{}",
            o.events_executed,
            o.run_wall_s * 1e3,
            o.events_executed as f64 / o.run_wall_s / 1e6,
            f["goodput_bps"].as_f64().unwrap() / 1e6,
            f["retransmissions"],
            f["timeouts"],
            write_ms.map_or(String::new(), |w| format!("  write_outputs {w:.2} ms")),
        );
        walls.push(o.run_wall_s * 1e3);
        writes.extend(write_ms);
        events = o.events_executed;
    }
    let best = walls.iter().copied().fold(f64::INFINITY, f64::min);
    let med = median(&mut walls);
    let rss = peak_rss_kib().map_or("?".into(), |k| k.to_string());
    println!("best {best:.2} ms  median {med:.2} ms  (ns-3 Simulator::Run(): 2080-2300 ms)  peak RSS {rss} KiB");
    let write_med = if writes.is_empty() { "-".to_string() } else { format!("{:.2}", median(&mut writes)) };
    println!(
        "bench runs={runs} events={events} sim_ms_median={med:.2} sim_ms_best={best:.2} events_per_s={:.0} write_ms_median={write_med} peak_rss_kib={rss}",
        events as f64 / (med / 1e3)
    );
}
