//! The bulk-lossy matrix of ../shared/anchors/ns3/README.md for every
//! congestion-control module, 10 seeds each, beside ns-3 3.44's 10-seed means.
//!
//!     cargo run --release -p airtcp-sim --example ns3_matrix [SEEDS]
//!
//! NewReno runs with the scenario's ns-3 behaviour switches (ns-3 is the
//! reference for it). Cubic, Veno and Westwood+ are the Linux modules on the
//! Linux/RFC endpoint behaviour (Linux is the reference for those; ns-3's
//! TcpCubic, TcpVeno and TcpWestwoodPlus are ns-3's own code), so the
//! switches are reset to their Linux defaults for them.

use std::path::PathBuf;

use airtcp_sim::{run, RunOptions, Scenario};

/// ns-3 3.44, 60 s, seeds 1–10 ("Spread over seeds 1–10"): goodput mean Mb/s
/// (NewReno's figures for the two NewReno/Reno comparison rows).
const NS3: [(&str, [f64; 4]); 7] = [
    ("newreno", [1.884, 1.882, 1.593, 0.528]),
    // The same RFC NewReno module on the Linux/RFC endpoint behaviour: shows
    // how much of a gap below comes from ns-3's endpoint, not the module.
    ("newreno/linux-endpoint", [1.884, 1.882, 1.593, 0.528]),
    // Linux's tcp_reno (what Linux's Veno and Westwood+ fall back to).
    ("reno", [1.884, 1.882, 1.593, 0.528]),
    ("cubic", [1.864, 1.863, 1.793, 0.956]),
    // Linux CUBIC on ns-3's endpoint behaviour (the switches kept).
    ("cubic/ns3-endpoint", [1.864, 1.863, 1.793, 0.956]),
    ("veno", [1.884, 1.882, 1.584, 0.569]),
    ("westwood", [1.871, 1.866, 1.760, 0.949]),
];
const LOSSES: [f64; 4] = [0.0, 0.001, 0.01, 0.05];

fn main() {
    let seeds: u64 = std::env::args().nth(1).map(|s| s.parse().expect("SEEDS must be a number")).unwrap_or(10);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/bulk-lossy.toml");
    println!("| cc | loss | airtcp Mb/s | ns-3 Mb/s | gap | airtcp retx | airtcp RTOs |");
    println!("|---|---|---|---|---|---|---|");
    for (cc, ns3) in NS3 {
        for (i, loss) in LOSSES.iter().enumerate() {
            let module = cc.split('/').next().unwrap_or(cc);
            let mut sets =
                vec![("links.1.loss_ab.p".to_string(), loss.to_string()), ("flows.0.tcp.cc".into(), module.into())];
            let ns3_endpoint = cc == "newreno" || cc.ends_with("/ns3-endpoint");
            if !ns3_endpoint {
                for (k, v) in [
                    ("recovery", "prr"),
                    ("reno_sacks", "reset"),
                    ("rto_ssthresh", "once-per-window"),
                    ("loss_exit_growth", "all-acked"),
                    ("partial_ack_rto", "every"),
                    ("initial_quickacks", "0"),
                ] {
                    sets.push((format!("flows.0.tcp.{k}"), v.to_string()));
                }
            }
            let s = Scenario::from_path(&path, &sets).unwrap_or_else(|e| panic!("{e}"));
            let (mut g, mut retx, mut rtos) = (0.0, 0.0, 0.0);
            for seed in 1..=seeds {
                let o = run(&s, RunOptions { seed: Some(seed), ..Default::default() }).expect("run");
                let f = &o.summary["flows"][0];
                g += f["goodput_bps"].as_f64().unwrap() / 1e6;
                retx += f["retransmissions"].as_f64().unwrap();
                rtos += f["timeouts"].as_f64().unwrap();
            }
            let n = seeds as f64;
            let (g, retx, rtos) = (g / n, retx / n, rtos / n);
            println!(
                "| {cc} | {loss} | {g:.3} | {:.3} | {:+.1} % | {retx:.0} | {rtos:.1} |",
                ns3[i],
                (g / ns3[i] - 1.0) * 100.0
            );
        }
    }
}
