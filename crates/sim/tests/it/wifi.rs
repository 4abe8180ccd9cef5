//! Wireless scenarios end to end: TCP over an 802.11a hop against the ns-3
//! anchor, determinism, MAC counters in the summary, and the scenario
//! errors of the wireless keys.

use airtcp_sim::{run, RunOptions, Scenario};

fn scenario_path(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name)
}

fn wifi_tcp(fer: f64) -> airtcp_sim::RunOutput {
    wifi_tcp_on(fer, 500)
}

fn wifi_tcp_on(fer: f64, min_bytes: u32) -> airtcp_sim::RunOutput {
    let over = vec![("wifi_errors.0.fer".to_string(), fer.to_string()), ("wifi_errors.0.min_bytes".to_string(), min_bytes.to_string())];
    let s = Scenario::from_path(&scenario_path("wifi-tcp.toml"), &over).unwrap();
    run(&s, RunOptions::default()).unwrap()
}

fn goodput_mbps(o: &airtcp_sim::RunOutput) -> f64 {
    o.summary["flows"][0]["goodput_bps"].as_f64().unwrap() / 1e6
}

fn radio_counter(o: &airtcp_sim::RunOutput, radio: usize, key: &str) -> u64 {
    o.summary["radios"][radio]["counters"][key].as_u64().unwrap_or_else(|| panic!("radio {radio} has no {key}: {}", o.summary["radios"]))
}

/// ns-3 3.44 goodput of one bulk TCP download over the anchor's 802.11a
/// 54 Mb/s hop, 30 s, seeds 1-3 (../shared/anchors/ns3-wifi/README.md,
/// `python3 summarize.py tcp`): no errors 24.681, PER 0.1 on data MPDUs
/// 22.115, PER 0.3 15.877 Mb/s; the AP's MAC retransmissions per data
/// transmission 0.035, 0.128 and 0.317.
const NS3_GOODPUT: [(f64, f64, f64); 3] = [(0.0, 24.681, 0.035), (0.1, 22.115, 0.128), (0.3, 15.877, 0.317)];

#[test]
fn tcp_over_one_wifi_hop_matches_ns3_within_ten_percent() {
    for (fer, ns3, ns3_retx) in NS3_GOODPUT {
        let o = wifi_tcp(fer);
        let g = goodput_mbps(&o);
        let ap_tx = radio_counter(&o, 0, "data_tx");
        let ap_retries = radio_counter(&o, 0, "retries");
        eprintln!("fer {fer}: goodput {g:.3} Mb/s (ns-3 {ns3}), AP data tx {ap_tx}, retries {ap_retries}");
        assert!((g - ns3).abs() / ns3 <= 0.10, "fer {fer}: goodput {g:.3} Mb/s vs ns-3 {ns3}");
        // Retries hide the errors (and the AP's collisions with the
        // station's TCP ACKs): about fer more of its frames are retransmissions.
        let ratio = ap_retries as f64 / ap_tx as f64;
        assert!((ratio - ns3_retx).abs() < 0.03, "retry ratio {ratio} at fer {fer} (ns-3 {ns3_retx})");
    }
}

#[test]
fn errors_on_every_frame_cost_more_than_on_data_frames_as_in_ns3() {
    // ns-3 perAll=1 (seed 1): PER 0.1 on every frame the station receives
    // 21.610 Mb/s, PER 0.3 14.298 Mb/s: the AP's ACKs to the station's
    // TCP ACK frames fail too.
    for (fer, ns3) in [(0.1, 21.610), (0.3, 14.298)] {
        let g = goodput_mbps(&wifi_tcp_on(fer, 0));
        eprintln!("fer {fer} on all frames: goodput {g:.3} Mb/s (ns-3 {ns3})");
        assert!((g - ns3).abs() / ns3 <= 0.10, "fer {fer}: goodput {g:.3} Mb/s vs ns-3 {ns3}");
        assert!(g < goodput_mbps(&wifi_tcp(fer)));
    }
}

#[test]
fn wifi_runs_are_deterministic() {
    let a = wifi_tcp(0.1);
    let b = wifi_tcp(0.1);
    let strip = |o: &airtcp_sim::RunOutput| {
        let mut s = o.summary.clone();
        s["run"]["run_wall_s"] = serde_json::json!(0);
        s
    };
    assert_eq!(strip(&a), strip(&b));
    assert_eq!(format!("{:?}", a.events), format!("{:?}", b.events));
}

fn load(text: &str) -> Result<Scenario, String> {
    Scenario::from_toml_str(text, "w.toml", &[]).map_err(|e| e.to_string())
}

const BASE: &str = r#"
[sim]
duration = "1s"
[[nodes]]
name = "ap"
[[nodes]]
name = "sta"
"#;

fn with(radios: &str) -> Result<Scenario, String> {
    load(&format!("{BASE}{radios}"))
}

const AP: &str = "[[radios]]\nnode = \"ap\"\nmode = \"ap\"\n";

#[test]
fn bad_wireless_keys_are_reported_with_their_place() {
    let cases: [(&str, &str); 8] = [
        ("[wifi]\nstandard = \"n\"\n[[radios]]\nnode = \"ap\"\nmode = \"ap\"\n", "w.toml:9: wifi.standard: unknown standard \"n\""),
        ("[[radios]]\nnode = \"ap\"\nmode = \"ap\"\nchannel = 14\n", "radios[0].channel: channel 14 is not a channel of 802.11a"),
        ("[[radios]]\nnode = \"ap\"\nmode = \"ap\"\nx = \"far\"\n", "radios[0].x: expected a number"),
        ("[wifi]\nshort_retry_limit = 0\n[[radios]]\nnode = \"ap\"\nmode = \"ap\"\n", "wifi.short_retry_limit: short_retry_limit must be at least 1"),
        ("[[radios]]\nnode = \"sta\"\nap = \"nobody\"\n", "radios[0].ap: unknown node \"nobody\""),
        ("[[radios]]\nnode = \"ap\"\nmode = \"ap\"\n[[radios]]\nnode = \"sta\"\nap = \"ap\"\nx = 5000.0\n", "it can reach no AP"),
        ("[[radios]]\nnode = \"ap\"\nmode = \"mesh\"\n", "radios[0].mode: unknown mode \"mesh\""),
        ("[[radios]]\nnode = \"ap\"\nmode = \"ap\"\nrate = \"11Mbps\"\n", "radios[0].rate: 11 Mb/s is not a rate of 802.11a"),
    ];
    for (text, want) in cases {
        let err = with(text).err().unwrap_or_else(|| panic!("accepted:\n{text}"));
        assert!(err.contains(want), "error {err:?} should contain {want:?}");
    }
    let err = with(&format!("{AP}[[radios]]\nnode = \"sta\"\nap = \"ap\"\n[[wifi_errors]]\nfrom = \"ap\"\nto = \"sta\"\nfer = 2\n")).unwrap_err();
    assert!(err.contains("wifi_errors[0].fer: probability 2 is outside [0, 1]"), "{err}");
    let err = with(&format!("{AP}[[radios]]\nnode = \"sta\"\nmode = \"station\"\n")).unwrap_err();
    assert!(err.contains("radios[1]: a station needs `ap`"), "{err}");
}

#[test]
fn stations_get_addresses_in_their_bss_and_route_through_the_ap() {
    let text = r#"
[sim]
duration = "3s"
[[nodes]]
name = "server"
[[nodes]]
name = "ap"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
a = "server"
b = "ap"
rate = "100Mbps"
delay = "5ms"
[[radios]]
node = "ap"
mode = "ap"
[[radios]]
node = "a"
ap = "ap"
x = 3.0
[[radios]]
node = "b"
ap = "ap"
y = 4.0
[[flows]]
from = "a"
to = "b"
app = "transfer"
bytes = 200000
[[flows]]
from = "server"
to = "a"
app = "transfer"
bytes = 200000
"#;
    let s = load(text).unwrap();
    let w = s.wifi.as_ref().unwrap();
    let addrs: Vec<String> = w.radios.iter().map(|r| airtcp_sim::network::addr::fmt_addr(r.addr)).collect();
    assert_eq!(addrs, ["172.16.0.1", "172.16.0.2", "172.16.0.3"]);
    let o = run(&s, RunOptions::default()).unwrap();
    for f in 0..2 {
        assert_eq!(o.summary["flows"][f]["bytes_delivered"].as_u64(), Some(200_000), "flow {f}: {}", o.summary["flows"][f]);
    }
    // Station a -> station b goes through the AP's relay: the AP sends
    // b's frames, so its data transmissions cover both flows' data.
    assert!(radio_counter(&o, 0, "data_tx") > 2 * 200_000 / 1500 - 10);
    assert_eq!(o.summary["run"]["no_route_drops"].as_u64(), Some(0));
}

/// The wireless management steps of a run: `(t_s, kind, detail)`.
fn wifi_steps(o: &airtcp_sim::RunOutput) -> Vec<(f64, String, String)> {
    o.events.iter().filter(|e| e.kind.starts_with("wifi_")).map(|e| (e.t_s, e.kind.clone(), e.detail.clone())).collect()
}

#[test]
fn station_walking_past_three_aps_hands_off_twice_and_the_download_survives() {
    let s = Scenario::from_path(&scenario_path("wifi-roaming.toml"), &[]).unwrap();
    let o = run(&s, RunOptions::default()).unwrap();
    let steps = wifi_steps(&o);
    let assoc: Vec<&(f64, String, String)> = steps.iter().filter(|e| e.1 == "wifi_associated").collect();
    let aps: Vec<&str> = assoc.iter().map(|e| e.2.split("ap=").nth(1).unwrap().split(' ').next().unwrap()).collect();
    assert_eq!(aps, ["ap1", "ap2", "ap3"], "{steps:#?}");
    // Each handoff's timeline, in order: T0 (link lost) -> authentication
    // -> association, within a few milliseconds after the scan decided.
    for handoff in &assoc[1..] {
        let t_assoc = handoff.0;
        let before: Vec<&(f64, String, String)> = steps.iter().filter(|e| e.0 <= t_assoc && e.0 > t_assoc - 0.5).collect();
        let kinds: Vec<&str> = before.iter().map(|e| e.1.as_str()).collect();
        let seq = ["wifi_scan_start", "wifi_scan_end", "wifi_link_lost", "wifi_auth_start", "wifi_authenticated", "wifi_assoc_start", "wifi_associated"];
        let mut at = 0;
        for k in &kinds {
            if at < seq.len() && *k == seq[at] {
                at += 1;
            }
        }
        assert_eq!(at, seq.len(), "handoff at {t_assoc}: {kinds:?}");
        let t0 = before.iter().find(|e| e.1 == "wifi_link_lost").unwrap().0;
        assert!(t_assoc - t0 < 0.02, "authentication + reassociation took {} s", t_assoc - t0);
    }
    // The switch learned the station behind each new AP.
    assert!(o.summary["run"]["hosts_learned"].as_u64().unwrap() >= 3);
    // The download survives: data keeps arriving after the last handoff.
    let last = assoc.last().unwrap().0;
    let series = &o.series[0];
    let at = |t: f64| series.t_s.iter().position(|&x| x >= t).map(|i| series.bytes_delivered[i]).unwrap();
    let after = at(41.0) - at(last + 1.0);
    assert!(after > 1_000_000, "only {after} bytes in the {} s after the last handoff", 40.0 - last);
    let signal = &o.summary["radios"][3]["signal"]["dbm"];
    assert!(signal.as_array().unwrap().len() > 300, "beacon signal samples");
}

#[test]
fn mobility_traces_in_csv_and_ns2_setdest_form() {
    let dir = std::env::temp_dir().join(format!("airtcp-mobility-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("walk.csv"), "t,x,y\n0,1,0\n10,50,0\n").unwrap();
    std::fs::write(
        dir.join("walk.ns_movements"),
        "$node_(0) set X_ 1.0\n$node_(0) set Y_ 0.0\n$node_(0) set Z_ 0.0\n$node_(1) set X_ 3.0\n$node_(1) set Y_ 0.0\n$node_(1) set Z_ 0.0\n$ns_ at 1.0 \"$node_(1) setdest 20.0 0.0 2.0\"\n",
    )
    .unwrap();
    let text = |trace: &str, extra: &str| {
        format!("{BASE}{AP}[[radios]]\nnode = \"sta\"\nap = \"ap\"\nmobility_trace = \"{}\"\n{extra}", dir.join(trace).display())
    };
    let s = load(&text("walk.csv", "")).unwrap();
    assert!(matches!(s.wifi.as_ref().unwrap().radios[1].spec.mobility, airtcp_wifi::mobility::Mobility::Trace(_)));
    let mut m = load(&text("walk.ns_movements", "trace_node = 1\n")).unwrap().wifi.unwrap().radios[1].spec.mobility.clone();
    // Node 1 starts at x = 3 and moves at 2 m/s from t = 1 s toward x = 20.
    let p = m.position(airtcp_core::Instant::from_nanos(3_000_000_000));
    assert!((p.x - 7.0).abs() < 1e-9, "{p:?}");
    let err = load(&text("walk.ns_movements", "trace_node = 5\n")).unwrap_err();
    assert!(err.contains("no $node_(5) in the setdest file"), "{err}");
    let err = load(&format!("{BASE}{AP}[[radios]]\nnode = \"sta\"\nap = \"ap\"\nwaypoints = [[0, 1.0, 0.0], [0, 2.0, 0.0]]\n")).unwrap_err();
    assert!(err.contains("radios[1].waypoints[1][0]: waypoint time 0 must be non-negative and after the previous one"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
