//! Run a scenario file and write its outputs: a minimal stand-in for the CLI.
//!
//!   cargo run --release -p airtcp-sim --example run_scenario -- SCENARIO OUTDIR [--pcap] [path=value ...]

use std::path::PathBuf;

use airtcp_sim::{run, write_outputs, RunOptions, Scenario};

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(scenario), Some(out)) = (args.next(), args.next()) else {
        eprintln!("usage: run_scenario SCENARIO OUTDIR [--pcap] [path=value ...]");
        std::process::exit(2);
    };
    let mut pcap = false;
    let mut sets = Vec::new();
    for a in args {
        if a == "--pcap" {
            pcap = true;
        } else if let Some((p, v)) = a.split_once('=') {
            sets.push((p.to_string(), v.to_string()));
        }
    }
    let s = match Scenario::from_path(&PathBuf::from(&scenario), &sets) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let out_dir = PathBuf::from(&out);
    let opts = RunOptions { pcap_dir: pcap.then(|| out_dir.clone()), ..Default::default() };
    let o = run(&s, opts).unwrap_or_else(|e| panic!("{e}"));
    write_outputs(&o, &out_dir).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", serde_json::to_string_pretty(&o.summary["flows"]).unwrap());
    println!("events {} wall {:.4}s", o.events_executed, o.run_wall_s);
}
