mod common;
use common::*;

#[test]
fn explore() {
    // PEG on mobile, download + upload
    let n = 200_000;
    let base = topology("300s", "10ms", "");
    let flows = transfer("down", "server", "m1", n, SEED_TCP) + &transfer("up", "m1", "server", n, SEED_TCP);
    for (label, agents) in [
        ("none", String::new()),
        ("peg0.2", peg("m1", 0.2, 0.2, true, "")),
        ("peg0.2all", peg("m1", 0.2, 0.2, false, "")),
        ("peg0", peg("m1", 0.0, 0.0, true, "")),
    ] {
        let t = std::time::Instant::now();
        let o = run_seed(&format!("{base}{flows}{agents}"), 1);
        println!("{label}: {:?} wall {:?}", o.summary["agents"].as_array().map(|a| a.iter().map(|x| (x["counters"].clone(), x["dropped_packets"].clone())).collect::<Vec<_>>()), t.elapsed());
        for f in 0..2 { let f = &o.summary["flows"][f]; println!("  {} {} rt {} to {} fr {} closed {}", f["name"], f["bytes_delivered"], f["response_time_s"], f["timeouts"], f["fast_retransmits"], f["closed"]); }
        println!("  links {}", o.summary["links"]);
    }
    // Snoop at ap, download, PEG below on ap iface
    let n = 100_000;
    for seed in 1..=5u64 {
        for with in [false, true] {
            let agents = if with { snoop("ap", "ap-m1", "1s") } else { String::new() } + &peg("ap", 0.2, 0.2, true, "ap-m1");
            let t = std::time::Instant::now();
            let o = run_seed(&format!("{base}{}{agents}", transfer("down", "server", "m1", n, SEED_TCP)), seed);
            let f = &o.summary["flows"][0];
            println!("seed {seed} snoop {with}: {} rt {} to {} fr {} closed {} wall {:?}", f["bytes_delivered"], f["response_time_s"], f["timeouts"], f["fast_retransmits"], f["closed"], t.elapsed());
            for a in o.summary["agents"].as_array().unwrap() { println!("   {} {} drops {} series len {} last {:?}", a["kind"], a["counters"], a["dropped_packets"], a["series"]["value"].as_array().unwrap().len(), a["series"]["value"].as_array().unwrap().last()); }
        }
    }
}
