//! Prints the PFTK validation table: simulated Reno goodput on
//! scenarios/fat-pipe.toml beside the PFTK full model fed with each run's own
//! mean RTT and base RTO.
//!
//!   cargo run --release -p airtcp-sim --example pftk_table [SEEDS] [SCENARIO]
//!
//! SEEDS (default 4) seeds per loss rate, numbered 1..=SEEDS.

use std::path::PathBuf;
use std::process::ExitCode;

use airtcp_sim::analysis::{format_table, pftk_sweep};

const LOSS: [f64; 5] = [0.001, 0.005, 0.01, 0.02, 0.05];

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let seeds: u64 = match args.next().map(|s| s.parse()) {
        None => 4,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("usage: pftk_table [SEEDS (a positive integer)] [SCENARIO.toml]");
            return ExitCode::FAILURE;
        }
    };
    let path = args.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/fat-pipe.toml")
    });
    let path = path.canonicalize().unwrap_or(path);
    let seeds: Vec<u64> = (1..=seeds).collect();
    match pftk_sweep(&path, "links.1.loss_ab.p", &LOSS, &seeds) {
        Ok(rows) => {
            println!(
                "{} ({} seeds each; ratio = sim / PFTK)",
                path.display(),
                seeds.len()
            );
            print!("{}", format_table(&rows));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
