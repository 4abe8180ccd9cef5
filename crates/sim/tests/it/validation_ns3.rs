//! Issue 2, item 10a: bulk-lossy with NewReno at loss 0, 0.001, 0.01 and
//! 0.05, mean goodput of 10 seeds within ±10 % of ns-3 3.44's 10-seed means
//! (../shared/anchors/ns3/README.md, "Spread over seeds 1–10").
//!
//! The scenario (scenarios/bulk-lossy.toml) selects ns-3's own recovery
//! behaviour (`recovery = "ns3-prr"` and the switches beside it). On ns-3's
//! own loss patterns that sender repeats ns-3's transmissions segment for
//! segment (crates/tcp/tests/it/anchor.rs); what remains here is the sampling
//! difference between our loss draws and ns-3's.

use std::path::PathBuf;

use airtcp_sim::{run, RunOptions, Scenario};

/// ns-3 3.44, 60 s, seeds 1–10: (loss, goodput Mb/s, retransmissions, RTOs).
const NS3_MEANS: [(f64, f64, f64, f64); 4] =
    [(0.0, 1.884, 34.0, 0.0), (0.001, 1.882, 42.0, 0.0), (0.01, 1.593, 132.0, 0.9), (0.05, 0.528, 233.0, 15.6)];

fn scenario(loss: f64) -> Scenario {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/bulk-lossy.toml");
    let sets = vec![("links.1.loss_ab.p".to_string(), loss.to_string())];
    Scenario::from_path(&path, &sets).unwrap()
}

#[test]
fn bulk_lossy_newreno_matches_ns3_ten_seed_means() {
    let mut report = String::from("loss   airtcp Mb/s  ns-3 Mb/s  gap     retx (ns-3)   RTOs (ns-3)\n");
    let mut failures = Vec::new();
    for (loss, ns3_goodput, ns3_retx, ns3_rtos) in NS3_MEANS {
        let s = scenario(loss);
        let (mut goodput, mut retx, mut rtos) = (0.0, 0.0, 0.0);
        for seed in 1..=10u64 {
            let o = run(&s, RunOptions { seed: Some(seed), ..Default::default() }).unwrap();
            let f = &o.summary["flows"][0];
            goodput += f["goodput_bps"].as_f64().unwrap() / 1e6 / 10.0;
            retx += f["retransmissions"].as_f64().unwrap() / 10.0;
            rtos += f["timeouts"].as_f64().unwrap() / 10.0;
        }
        let gap = goodput / ns3_goodput - 1.0;
        report += &format!(
            "{loss:<6} {goodput:>11.3} {ns3_goodput:>10.3} {:>+6.1}% {retx:>6.0} ({ns3_retx:>4.0}) {rtos:>6.1} ({ns3_rtos:>4.1})\n",
            gap * 100.0
        );
        if gap.abs() > 0.10 {
            failures.push(format!("loss {loss}: {goodput:.3} vs ns-3 {ns3_goodput:.3} ({:+.1} %)", gap * 100.0));
        }
    }
    eprintln!("{report}");
    assert!(failures.is_empty(), "outside ±10 % of ns-3:\n{}\n{report}", failures.join("\n"));
}
