//! The random-loss half of the ns-2 validation: run scenarios/ns2-bulk.toml
//! for every agent, sink and loss rate over seeds 1..=10 and compare the
//! mean goodput with ns-2 2.35's over its own seeds 1..=10
//! (validation/ns2/goodput_ns2.txt, written by validation/ns2/goodput.sh).
//! Goodput = data packets acknowledged x packetSize_ x 8 / 60 s on both
//! sides. Prints a Markdown table; `ns2_goodput --check` exits 1 when a
//! point is more than 5 % off.
use std::collections::BTreeMap;
use std::path::PathBuf;

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let check = std::env::args().any(|a| a == "--check");
    let text = std::fs::read_to_string(root.join("validation/ns2/goodput_ns2.txt")).expect("goodput_ns2.txt");
    // (agent, sink, p) -> highest ACKs of ns-2's runs.
    let mut ns2: BTreeMap<(String, String, String), Vec<f64>> = BTreeMap::new();
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        ns2.entry((w[0].into(), w[1].into(), w[2].into())).or_default().push(w[4].parse().unwrap());
    }
    let path = root.join("scenarios/ns2-bulk.toml");
    println!("| agent | sink | loss p | ns-2 Mb/s | airtcp Mb/s | diff | ns-2 runs | airtcp runs |");
    println!("|---|---|---|---|---|---|---|---|");
    let mut worst: f64 = 0.0;
    for ((agent, sink, p), acks) in &ns2 {
        let ns2_mbps = mean(acks) * 1000.0 * 8.0 / 60.0 / 1e6;
        let seeds: Vec<u64> = if p == "0" { vec![1] } else { (1..=10).collect() };
        let mut ours = Vec::new();
        for &seed in &seeds {
            let ov = vec![
                ("links.0.loss_ab.p".to_string(), p.clone()),
                ("flows.0.tcp.profile".to_string(), format!("\"ns2-{agent}\"")),
                ("flows.0.tcp.sink".to_string(), format!("\"ns2-{sink}\"")),
            ];
            let sc = airtcp_sim::Scenario::from_path(&path, &ov).expect("scenario");
            let out = airtcp_sim::run(&sc, airtcp_sim::RunOptions { seed: Some(seed), ..Default::default() }).expect("run");
            let acked = out.summary["flows"][0]["sender"]["bytes_acked"].as_f64().unwrap();
            ours.push(acked * 8.0 / 60.0 / 1e6);
        }
        let our_mbps = mean(&ours);
        let diff = (our_mbps / ns2_mbps - 1.0) * 100.0;
        worst = worst.max(diff.abs());
        println!("| {agent} | {sink} | {p} | {ns2_mbps:.3} | {our_mbps:.3} | {diff:+.1} % | {} | {} |", acks.len(), ours.len());
    }
    println!("\nlargest difference: {worst:.1} %");
    if check && worst > 5.0 {
        std::process::exit(1);
    }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}
