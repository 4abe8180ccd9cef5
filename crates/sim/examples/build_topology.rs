//! Building a large network: a generated tree of routers with hosts, parsed
//! from a scenario text, turned into nodes, interfaces, subnets and forwarding
//! tables, then one route computed across it (the requirement: a 10,000-node topology
//! builds in under 1 s with memory linear in its size).
//!
//!     cargo run --release -p airtcp-sim --example build_topology [HOSTS_PER_ACCESS] [REPEATS]
//!
//! Prints one line per size: nodes, links, parse and build times (median of
//! REPEATS), the first route computation, and the peak RSS growth (VmHWM).

use std::time::Instant as Wall;

use airtcp_sim::network::Network;
use airtcp_sim::Scenario;

/// A core router, `agg` aggregation routers under it, `acc` access routers
/// under each, `hosts` hosts under each access router.
fn tree(agg: usize, acc: usize, hosts: usize) -> String {
    let mut nodes = vec!["core".to_string()];
    let mut links = Vec::new();
    for a in 0..agg {
        let an = format!("agg{a}");
        links.push(("core".to_string(), an.clone()));
        nodes.push(an.clone());
        for c in 0..acc {
            let cn = format!("acc{a}.{c}");
            links.push((an.clone(), cn.clone()));
            nodes.push(cn.clone());
            for h in 0..hosts {
                let hn = format!("h{a}.{c}.{h}");
                links.push((cn.clone(), hn.clone()));
                nodes.push(hn);
            }
        }
    }
    let mut s = String::with_capacity(64 * (nodes.len() + links.len()));
    s.push_str("{\"sim\": {\"duration\": \"1s\"}, \"nodes\": [");
    s.push_str(&nodes.iter().map(|n| format!("{{\"name\": \"{n}\"}}")).collect::<Vec<_>>().join(","));
    s.push_str("], \"links\": [");
    s.push_str(
        &links
            .iter()
            .map(|(a, b)| format!("{{\"a\": \"{a}\", \"b\": \"{b}\", \"rate\": \"1Gbps\", \"delay\": \"1ms\"}}"))
            .collect::<Vec<_>>()
            .join(","),
    );
    s.push_str("]}");
    s
}

fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()))
        .unwrap_or(0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let hosts_max: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(99);
    let repeats: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    for hosts in [hosts_max / 9, hosts_max / 3, hosts_max] {
        let text = tree(10, 10, hosts);
        let before = vm_hwm_kib();
        let (mut parse, mut build) = (Vec::new(), Vec::new());
        let mut last = None;
        for _ in 0..repeats {
            let t0 = Wall::now();
            let sc = Scenario::from_json_str(&text, "tree.json", &[]).expect("valid scenario");
            let t1 = Wall::now();
            let net = Network::from_scenario(&sc, 1);
            let t2 = Wall::now();
            parse.push((t1 - t0).as_secs_f64() * 1e3);
            build.push((t2 - t1).as_secs_f64() * 1e3);
            last = Some((sc, net));
        }
        let (sc, mut net) = last.expect("one repeat");
        // One destination across the tree: the first lookup computes its subnet's routes.
        let far = sc.node_index(&format!("h9.9.{}", hosts - 1)).expect("host");
        let dst = net.primary_addr(far).expect("address");
        let t0 = Wall::now();
        let path = net.path(sc.node_index("h0.0.0").expect("host"), dst).expect("route");
        let route_ms = (Wall::now() - t0).as_secs_f64() * 1e3;
        println!(
            "topology nodes={} links={} parse_ms={:.1} build_ms={:.1} first_route_ms={:.2} path_hops={} peak_rss_growth_mib={:.1}",
            sc.nodes.len(),
            sc.links.len(),
            median(parse),
            median(build),
            route_ms,
            path.len() - 1,
            (vm_hwm_kib().saturating_sub(before)) as f64 / 1024.0,
        );
    }
}
