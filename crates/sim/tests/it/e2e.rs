//! End-to-end runs with real endpoints: bulk, transfer, slow reader,
//! outages, routing over several hops, and determinism of every output.

use std::path::{Path, PathBuf};

use airtcp_sim::{run, write_outputs, RunOptions, RunOutput, Scenario};
use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn bulk_lossy(sets: &[(&str, &str)]) -> Scenario {
    let sets: Vec<(String, String)> = sets.iter().map(|(p, v)| (p.to_string(), v.to_string())).collect();
    Scenario::from_path(&repo().join("scenarios/bulk-lossy.toml"), &sets).unwrap()
}

fn flow(o: &RunOutput, i: usize) -> &Value {
    &o.summary["flows"][i]
}

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("airtcp-sim-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn bulk_without_loss_fills_the_2mbps_bottleneck() {
    let s = bulk_lossy(&[("links.1.loss_ab.p", "0")]);
    let o = run(&s, RunOptions::default()).unwrap();
    let f = flow(&o, 0);
    let goodput = f["goodput_bps"].as_f64().unwrap();
    // ns-3: 1.8844 Mb/s; the ceiling is 2e6 * 1000/1054 = 1.898 Mb/s.
    assert!(goodput > 1.8e6 && goodput < 1.898e6, "{goodput}");
    assert_eq!(f["recv_order_errors"], 0);
    assert_eq!(f["bytes_delivered"].as_u64().unwrap() as f64 * 8.0 / 60.0, goodput);
    let wl = &o.summary["links"][1]["ab"];
    assert_eq!(wl["loss_drops"], 0);
    assert_eq!(wl["max_frame_bytes"], 1054);
    assert!(wl["queue_drops"].as_u64().unwrap() > 0, "slow start overshoots the 50-packet queue");
    // Series: one row per 10 ms from 0 to 60 s inclusive.
    assert_eq!(o.series[0].t_s.len(), 6001);
    assert_eq!(o.series[0].t_s[6000], 60.0);
    assert_eq!(*o.series[0].bytes_delivered.last().unwrap(), f["bytes_delivered"].as_u64().unwrap());
}

#[test]
fn transfer_reports_response_time_and_closes() {
    let s = bulk_lossy(&[("links.1.loss_ab.p", "0"), ("flows.0.app", "transfer"), ("flows.0.bytes", "100000")]);
    let o = run(&s, RunOptions::default()).unwrap();
    let f = flow(&o, 0);
    assert_eq!(f["bytes_delivered"], 100_000);
    let rt = f["response_time_s"].as_f64().unwrap();
    // At least the serialisation of 100 segments at 2 Mb/s (0.42 s) plus the handshake.
    assert!(rt > 0.45 && rt < 2.0, "{rt}");
    assert_eq!(f["goodput_time_s"].as_f64().unwrap(), rt);
    assert_eq!(f["closed"], true, "{f}");
    let done: Vec<_> = o.events.iter().filter(|e| e.kind == "transfer_complete").collect();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].t_s, rt);
    assert!(o.events.iter().any(|e| e.kind == "closed" && e.detail == "client"));
    assert!(o.events.iter().any(|e| e.kind == "closed" && e.detail == "server"));
    // Every data segment is logged once, none retransmitted.
    assert_eq!(o.segments[0].len.iter().map(|&l| l as u64).sum::<u64>(), 100_000);
    assert!(o.segments[0].retransmission.iter().all(|&r| !r));
}

#[test]
fn slow_reader_causes_zero_windows() {
    let s = bulk_lossy(&[
        ("links.1.loss_ab.p", "0"),
        // Reads 10 000 bytes every 200 ms: the 16 000-byte buffer fills in between.
        ("flows.0.recv_rate", "400kbps"),
        ("flows.0.recv_interval", "200ms"),
        // A multiple of the MSS, so the sender can fill the window to exactly zero.
        ("flows.0.tcp.rcv_buf", "16000"),
        ("sim.duration", "20s"),
    ]);
    let o = run(&s, RunOptions::default()).unwrap();
    let f = flow(&o, 0);
    assert!(f["zero_window_events"].as_u64().unwrap() > 0, "{f}");
    assert!(o.events.iter().any(|e| e.kind == "zero_window"));
    let goodput = f["goodput_bps"].as_f64().unwrap();
    assert!((goodput - 400e3).abs() < 20e3, "{goodput}");
    assert_eq!(f["recv_order_errors"], 0);
}

#[test]
fn outage_is_logged_and_the_flow_recovers() {
    let s = bulk_lossy(&[
        ("links.1.loss_ab.p", "0"),
        ("links.1.loss_ab", "{ model = \"none\", outages = [[\"5s\", \"8s\"]] }"),
        ("links.1.loss_ba", "{ outages = [[\"5s\", \"8s\"]] }"),
        ("sim.duration", "20s"),
    ]);
    assert!(s.links[1].loss[1].outages.len() == 1, "both directions down");
    let o = run(&s, RunOptions::default()).unwrap();
    let kinds: Vec<&str> = o.events.iter().filter(|e| e.link == Some(1)).map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["outage_start", "outage_start", "outage_end", "outage_end"]);
    let f = flow(&o, 0);
    assert!(f["timeouts"].as_u64().unwrap() >= 1, "{f}");
    let ser = &o.series[0];
    let at = |t: f64| ser.bytes_delivered[ser.t_s.iter().position(|&x| x >= t).unwrap()];
    assert_eq!(at(6.0), at(8.0), "nothing delivered during the outage");
    assert!(at(20.0) > at(8.0) + 1_000_000, "the flow recovers after the outage");
    assert!(o.summary["links"][1]["ab"]["outage_drops"].as_u64().unwrap() > 0);
}

const CHAIN: &str = r#"
[sim]
duration = "10s"
[[nodes]]
name = "h1"
[[nodes]]
name = "r1"
[[nodes]]
name = "r2"
[[nodes]]
name = "h2"
[[links]]
a = "h1"
b = "r1"
rate = "10Mbps"
delay = "5ms"
[[links]]
a = "r1"
b = "r2"
rate = "5Mbps"
delay = "10ms"
[[links]]
a = "r2"
b = "h2"
rate = "10Mbps"
delay = "5ms"
[[flows]]
from = "h1"
to = "h2"
[[flows]]
from = "h2"
to = "h1"
start = "1s"
app = "transfer"
bytes = 500000
"#;

#[test]
fn flows_are_routed_over_three_hops_both_ways() {
    let s = Scenario::from_toml_str(CHAIN, "chain.toml", &[]).unwrap();
    let o = run(&s, RunOptions::default()).unwrap();
    let (f0, f1) = (flow(&o, 0), flow(&o, 1));
    assert_eq!(f1["bytes_delivered"], 500_000);
    assert!(f1["response_time_s"].as_f64().unwrap() > 0.8);
    assert!(f0["bytes_delivered"].as_u64().unwrap() > 2_000_000, "{f0}");
    // Minimum RTT: 2 x 20 ms propagation plus serialisation.
    let rtt = f0["srtt_min_s"].as_f64().unwrap();
    assert!(rtt > 0.040 && rtt < 0.045, "{rtt}");
    assert_eq!(o.summary["run"]["misrouted_packets"], 0);
    // Both flows cross the middle link in both directions.
    let mid = &o.summary["links"][1];
    assert!(mid["ab"]["frames_sent"].as_u64().unwrap() > 2000 && mid["ba"]["frames_sent"].as_u64().unwrap() > 300);
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap())
        })
        .collect();
    v.sort();
    v
}

/// Same scenario and seed: every output byte-identical, except `run.run_wall_s`
/// in summary.json (the simulation's own wall time), which is removed before comparing.
#[test]
fn two_runs_give_byte_identical_outputs() {
    let s = bulk_lossy(&[("sim.duration", "15s"), ("links.1.loss_ab.p", "0.02")]);
    let dirs = [tmpdir("det-a"), tmpdir("det-b")];
    for d in &dirs {
        let o = run(&s, RunOptions { pcap_dir: Some(d.clone()), ..Default::default() }).unwrap();
        write_outputs(&o, d).unwrap();
    }
    let (a, b) = (files(&dirs[0]), files(&dirs[1]));
    let names: Vec<&str> = a.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "events.jsonl",
            "flow0.csv",
            "flow0.parquet",
            "flow0_segments.csv",
            "flow0_segments.parquet",
            "link0_snd-rtr.pcap",
            "link1_rtr-rcv.pcap",
            "summary.json"
        ]
    );
    for ((na, ba), (nb, bb)) in a.iter().zip(&b) {
        assert_eq!(na, nb);
        if na == "summary.json" {
            let mut ja: Value = serde_json::from_slice(ba).unwrap();
            let mut jb: Value = serde_json::from_slice(bb).unwrap();
            for j in [&mut ja, &mut jb] {
                assert!(j["run"]["run_wall_s"].as_f64().unwrap() > 0.0);
                j["run"].as_object_mut().unwrap().remove("run_wall_s");
            }
            assert_eq!(ja, jb);
        } else {
            assert!(ba == bb, "{na} differs between runs");
        }
    }
    // A different seed gives a different loss pattern.
    let o = run(&s, RunOptions { seed: Some(2), ..Default::default() }).unwrap();
    assert_eq!(o.summary["seed"], 2);
    assert_eq!(o.summary["scenario"]["sim"]["seed"], 2);
    let first: Value = serde_json::from_slice(&a.iter().find(|(n, _)| n == "summary.json").unwrap().1).unwrap();
    assert_ne!(o.summary["flows"][0]["bytes_delivered"], first["flows"][0]["bytes_delivered"]);
    for d in &dirs {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn pcap_frames_are_valid_and_in_time_order() {
    use airtcp_core::pcap::PcapReader;
    let s = bulk_lossy(&[("sim.duration", "3s")]);
    let d = tmpdir("pcap");
    let o = run(&s, RunOptions { pcap_dir: Some(d.clone()), ..Default::default() }).unwrap();
    let mut r = PcapReader::new(std::fs::File::open(d.join("link1_rtr-rcv.pcap")).unwrap()).unwrap();
    let mut n = 0u64;
    let mut last = airtcp_core::Instant::ZERO;
    while let Some(rec) = r.next_record().unwrap() {
        assert!(rec.t >= last, "records out of order");
        last = rec.t;
        airtcp_core::wire::decode(&rec.data).unwrap();
        n += 1;
    }
    let l = &o.summary["links"][1];
    assert_eq!(n, l["ab"]["frames_sent"].as_u64().unwrap() + l["ba"]["frames_sent"].as_u64().unwrap());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn progress_is_reported_up_to_one() {
    let s = bulk_lossy(&[("sim.duration", "2s")]);
    let mut seen = Vec::new();
    let mut cb = |x: f64| seen.push(x);
    run(&s, RunOptions { progress: Some(&mut cb), ..Default::default() }).unwrap();
    assert!(seen.len() >= 50 && seen.len() <= 102, "{}", seen.len());
    assert!(seen.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(*seen.last().unwrap(), 1.0);
}
