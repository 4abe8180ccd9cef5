//! The ad hoc radios of a scenario as a multi-hop mesh (seed 002's
//! baseline): ETX / hop-count shortest paths installed as next hops on the
//! shared channel, TCP end to end over 802.11 unicast with ARQ, and the
//! errors of the `[mesh]` keys.

use airtcp_sim::network::Network;
use airtcp_sim::{run, RunOptions, RunOutput, Scenario};

fn scenario_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/mesh-tcpfender.toml")
}

fn ladder(over: &[(&str, &str)]) -> Scenario {
    let over: Vec<(String, String)> = over.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Scenario::from_path(&scenario_path(), &over).unwrap_or_else(|e| panic!("{e}"))
}

/// Node names along the path IP takes from `from` to `to`.
fn path(sc: &Scenario, from: &str, to: &str) -> Vec<String> {
    let mut net = Network::from_scenario(sc, 1);
    let (f, t) = (sc.node_index(from).unwrap(), sc.node_index(to).unwrap());
    let dst = net.primary_addr(t).unwrap();
    net.path(f, dst).expect("a route").into_iter().map(|n| sc.nodes[n].name.clone()).collect()
}

fn counter(o: &RunOutput, node: &str, key: &str) -> u64 {
    let radios = o.summary["radios"].as_array().unwrap();
    let r = radios.iter().find(|r| r["node"] == node).unwrap_or_else(|| panic!("no radio on {node}"));
    r["counters"][key].as_u64().unwrap_or_else(|| panic!("{node} has no {key}"))
}

#[test]
fn etx_routes_take_the_most_reliable_side_of_the_ladder() {
    let sc = ladder(&[]);
    // Top: S-A 0.2, A-C 0.3, C-F 0.4, F-D 0.3 (ETX 8.4, loss hits data and
    // ACKs); bottom S-B 0.4, B-E 0.5, E-G 0.2, G-D 0.6 (ETX 14.6).
    assert_eq!(path(&sc, "S", "D"), ["S", "A", "C", "F", "D"]);
    assert_eq!(path(&sc, "D", "S"), ["D", "F", "C", "A", "S"]);
}

#[test]
fn etx_detours_around_a_bad_link_that_hop_count_takes() {
    // C-F at 90 % loss: ETX 100 for one hop; the detour C-E-G-F costs 4.0.
    let etx = ladder(&[("wifi_errors.6.fer", "0.9")]);
    assert_eq!(path(&etx, "S", "D"), ["S", "A", "C", "E", "G", "F", "D"]);
    let hops = ladder(&[("wifi_errors.6.fer", "0.9"), ("mesh.routing", "hops")]);
    // Four hops either way; ties go to the lower radio index (A before B, F before G... C-F-D is 2 hops from C).
    assert_eq!(path(&hops, "S", "D"), ["S", "A", "C", "F", "D"]);
}

#[test]
fn summary_reports_links_and_routes_of_the_mesh() {
    let o = run(&ladder(&[("sim.duration", "1s")]), RunOptions::default()).unwrap();
    let m = &o.summary["mesh"];
    assert_eq!(m["routing"], "etx");
    let link = m["links"].as_array().unwrap().iter().find(|l| l["from"] == "S" && l["to"] == "A").unwrap().clone();
    // ns-2's radio decodes 224 m error-free: only the fixed 20 % loss.
    assert!((link["data_delivery"].as_f64().unwrap() - 0.8).abs() < 1e-9, "{link}");
    assert!((link["cost"].as_f64().unwrap() - 1.0 / 0.64).abs() < 1e-9, "{link}");
    // 11 links drawn in the scenario, both directions; nothing else in range.
    assert_eq!(m["links"].as_array().unwrap().len(), 22);
    let r = m["routes"].as_array().unwrap().iter().find(|r| r["node"] == "S" && r["to"] == "D").unwrap().clone();
    assert_eq!(r["via"], "A");
}

#[test]
fn tcp_crosses_four_lossy_hops_with_802_11_arq() {
    let o = run(&ladder(&[("sim.duration", "30s")]), RunOptions::default()).unwrap();
    let f = &o.summary["flows"][0];
    let goodput = f["goodput_bps"].as_f64().unwrap();
    eprintln!("goodput {goodput:.0} b/s, timeouts {}, retransmissions {}", f["timeouts"], f["retransmissions"]);
    for n in ["S", "A", "B", "C", "E", "F", "G", "D"] {
        eprintln!("{n}: data_tx {} retries {} retry_drops {} queue_drops {} rx_data {}", counter(&o, n, "data_tx"), counter(&o, n, "retries"), counter(&o, n, "retry_drops"), counter(&o, n, "queue_drops"), counter(&o, n, "rx_data"));
    }
    assert!(goodput > 20_000.0, "goodput {goodput}");
    // The relays on the ETX path forward; the other side of the ladder is silent.
    for n in ["A", "C", "F"] {
        assert!(counter(&o, n, "data_tx") > 100, "{n} forwards");
    }
    for n in ["B", "E", "G"] {
        assert_eq!(counter(&o, n, "data_tx"), 0, "{n} is off the path");
    }
    // 20-40 % loss per link: the ARQ retries a good share of the frames.
    let (tx, retries) = (counter(&o, "S", "data_tx"), counter(&o, "S", "retries"));
    assert!(retries * 10 > tx, "S retries {retries} of {tx}");
    assert_eq!(o.summary["run"]["no_route_drops"], 0);
}

#[test]
fn mesh_runs_are_deterministic() {
    let sc = ladder(&[("sim.duration", "5s")]);
    let strip = |o: &RunOutput| {
        let mut s = o.summary.clone();
        s["run"]["run_wall_s"] = serde_json::json!(0);
        s
    };
    let (a, b) = (run(&sc, RunOptions::default()).unwrap(), run(&sc, RunOptions::default()).unwrap());
    assert_eq!(strip(&a), strip(&b));
}

#[test]
fn mesh_loads_back_from_its_json() {
    let sc = ladder(&[("mesh.routing", "hops")]);
    let again = Scenario::from_json_str(&sc.to_json().to_string(), "x.json", &[]).unwrap();
    assert_eq!(again.mesh, sc.mesh);
}

fn load(text: &str) -> Result<Scenario, String> {
    Scenario::from_toml_str(text, "m.toml", &[]).map_err(|e| e.to_string())
}

const TWO: &str = "[sim]\nduration = \"1s\"\n[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n";
const RADIOS: &str = "[[radios]]\nnode = \"a\"\nmode = \"adhoc\"\n[[radios]]\nnode = \"b\"\nmode = \"adhoc\"\nx = 10.0\n";

#[test]
fn bad_mesh_keys_are_reported_with_their_place() {
    let cases = [
        (format!("{TWO}[mesh]\nrouting = \"etx\"\n"), "m.toml:7: mesh: [mesh] needs [[radios]] with mode = \"adhoc\""),
        (format!("{TWO}{RADIOS}[mesh]\nrouting = \"olsr\"\n"), "mesh.routing: unknown routing \"olsr\" (known: etx, hops)"),
        (format!("{TWO}{RADIOS}[mesh]\nbeta = 32\n"), "mesh.beta: unknown key (known: routing, protocol, flow, batch, pipeline, prune, source, batch_timeout, real_bytes, delivery)"),
        (format!("{TWO}[[radios]]\nnode = \"a\"\nmode = \"adhoc\"\n[mesh]\n"), "[mesh] needs at least two radios with mode = \"adhoc\" (found 1)"),
        (format!("{TWO}[[radios]]\nnode = \"a\"\nmode = \"adhoc\"\n[[radios]]\nnode = \"b\"\nmode = \"adhoc\"\nx = 5000.0\n[mesh]\n"), "radios[1]: mesh node \"b\" has no path to or from \"a\""),
        (format!("{TWO}{RADIOS}[[wifi_errors]]\nfrom = \"a\"\nto = \"b\"\nfer = 1.0\n[mesh]\n"), "radios[1]: mesh node \"b\" has no path to or from \"a\""),
    ];
    for (text, want) in cases {
        let err = load(&text).err().unwrap_or_else(|| panic!("accepted:\n{text}"));
        assert!(err.contains(want), "error {err:?} should contain {want:?}");
    }
    assert!(load(&format!("{TWO}{RADIOS}[mesh]\n")).is_ok());
}

#[test]
fn measured_delivery_counts_every_data_frame_a_neighbour_decodes() {
    let text = format!(
        "{TWO}[wifi]\nstandard = \"b\"\nrate = \"1Mbps\"\n{RADIOS}[[wifi_errors]]\nfrom = \"a\"\nto = \"b\"\nfer = 0.3\n[mesh]\n[[flows]]\nfrom = \"a\"\nto = \"b\"\napp = \"bulk\"\n"
    )
    .replace("duration = \"1s\"", "duration = \"20s\"");
    let o = run(&load(&text).unwrap(), RunOptions::default()).unwrap();
    let measured = o.summary["mesh"]["measured"].as_array().unwrap().clone();
    let ab = measured.iter().find(|m| m["from"] == "a").unwrap();
    let ba = measured.iter().find(|m| m["from"] == "b").unwrap();
    let (sent, decoded) = (ab["sent"].as_u64().unwrap(), ab["decoded"].as_u64().unwrap());
    // Every transmission counts, retries included, once it has ended (the
    // MAC counts one at its start: the frame on the air at the end is not in).
    let tx = counter(&o, "a", "data_tx");
    assert!(sent == tx || sent + 1 == tx, "sent {sent}, data_tx {tx}");
    assert_eq!(decoded, counter(&o, "b", "rx_data") + counter(&o, "b", "rx_duplicates"));
    // 30 % fixed loss, and two stations in carrier-sense range of each
    // other collide only when their backoffs end in the same slot.
    let p = decoded as f64 / sent as f64;
    assert!(p > 0.65 && p <= 0.72, "a->b delivery {p} of {sent}");
    // The TCP ACKs the other way cross a loss-free link.
    assert!(ba["delivery"].as_f64().unwrap() > 0.95, "{ba}");
}

#[test]
fn bad_coding_keys_are_reported_with_their_place() {
    let flow = "[[flows]]\nfrom = \"a\"\nto = \"b\"\n[flows.tcp]\nsack = false\n";
    let mesh = |keys: &str| format!("{TWO}{RADIOS}{flow}[mesh]\n{keys}");
    let cases = [
        (mesh("protocol = \"nc\"\n"), "mesh.protocol: unknown protocol \"nc\" (known: ip, more, tcpfender)"),
        (mesh("batch = 32\n"), "mesh.batch: batch needs protocol = \"more\" or \"tcpfender\""),
        (mesh("protocol = \"more\"\nbatch = 53\n"), "mesh.batch: batch 53 is outside 1..=52"),
        (mesh("protocol = \"tcpfender\"\npipeline = 0\n"), "mesh.pipeline: pipeline 0 is outside 1..=64"),
        (mesh("protocol = \"more\"\nprune = 1.0\n"), "mesh.prune: prune must be below 1"),
        (mesh("protocol = \"more\"\nreal_bytes = 1\n"), "mesh.real_bytes: expected true or false, got integer 1"),
        (mesh("protocol = \"more\"\nflow = \"nope\"\n"), "mesh.flow: unknown flow \"nope\""),
        (mesh("protocol = \"more\"\ndelivery = [[\"a\", \"x\", 0.5]]\n"), "mesh.delivery[0][1]: unknown node \"x\""),
        (mesh("protocol = \"more\"\ndelivery = [[\"a\", \"b\", 0.0]]\n"), "mesh.delivery[0][2]: a delivery probability must be above 0"),
        (mesh("protocol = \"more\"\ndelivery = [[\"a\", \"b\"]]\n"), "mesh.delivery[0]: a delivery entry is [from, to, probability]"),
        (mesh("protocol = \"tcpfender\"\nsource = \"flood\"\n"), "mesh.source: unknown source \"flood\" (known: more, per-segment)"),
        (mesh("protocol = \"more\"\nsource = \"more\"\n"), "mesh.source: source needs protocol = \"tcpfender\""),
        (mesh("protocol = \"tcpfender\"\nbatch_timeout = \"1s\"\n"), "mesh.batch_timeout: batch_timeout needs protocol = \"more\""),
        (format!("{TWO}{RADIOS}[mesh]\nprotocol = \"more\"\n"), "mesh: protocol \"more\" needs a flow to carry (there are no [[flows]])"),
        (format!("{TWO}{RADIOS}[[flows]]\nfrom = \"a\"\nto = \"b\"\n[mesh]\nprotocol = \"tcpfender\"\n"), "mesh.protocol: flow \"flow0\" must have sack = false under tcpfender"),
    ];
    for (text, want) in cases {
        let err = load(&text).err().unwrap_or_else(|| panic!("accepted:\n{text}"));
        assert!(err.contains(want), "error {err:?} should contain {want:?}");
    }
    let sc = load(&mesh("protocol = \"tcpfender\"\nbatch = 8\npipeline = 2\ndelivery = [[\"a\", \"b\", 0.5]]\n")).unwrap();
    let c = sc.mesh.as_ref().unwrap().coding.as_ref().unwrap();
    assert_eq!((c.beta, c.pipeline, c.delivery.clone()), (8, 2, vec![(0, 1, 0.5)]));
    // z of the source from the overridden delivery: 1 / 0.5.
    assert!((c.plan.z(0) - 2.0).abs() < 1e-12);
    let again = Scenario::from_json_str(&sc.to_json().to_string(), "x.json", &[]).unwrap();
    assert_eq!(again.mesh, sc.mesh);
}

/// Delivery for the credits about as a TCP/IP run measures it on the
/// ladder's links with collisions (the study measures its own).
const MEASURED: &str = r#"[["S","A",0.7],["S","B",0.6],["A","S",0.8],["A","B",0.9],["A","C",0.52],["C","A",0.49],["C","E",0.9],["C","F",0.55],["F","C",0.42],["F","G",0.9],["F","D",0.7],["D","F",0.58],["D","G",0.4]]"#;

fn coded(over: &[(&str, &str)]) -> RunOutput {
    let mut all = vec![("sim.duration", "60s"), ("mesh.delivery", MEASURED)];
    all.extend_from_slice(over);
    run(&ladder(&all), RunOptions::default()).unwrap()
}

fn coding_counter(o: &RunOutput, node: &str, key: &str) -> u64 {
    let nodes = o.summary["mesh"]["coding"]["nodes"].as_array().unwrap();
    let n = nodes.iter().find(|n| n["node"] == node).unwrap_or_else(|| panic!("{node} has no role"));
    n["counters"][key].as_u64().unwrap_or_else(|| panic!("{node} has no {key}: {n}"))
}

#[test]
fn tcpfender_hands_tcp_whole_batches_over_coded_broadcasts() {
    let o = coded(&[("mesh.protocol", "tcpfender")]);
    let m = &o.summary["mesh"]["coding"];
    assert_eq!(m["protocol"], "tcpfender");
    // MORE's plan on the ladder: the top side forwards, the bottom is pruned.
    assert_eq!(m["forwarders"], serde_json::json!(["A", "C", "F"]));
    let delivered = o.summary["flows"][0]["bytes_delivered"].as_u64().unwrap();
    let batches = coding_counter(&o, "D", "batches_decoded");
    assert!(batches >= 1, "no batch decoded");
    // Decoded batches go up to TCP whole: 50 segments of 1000 bytes each.
    assert_eq!(delivered % 50_000, 0, "delivered {delivered}");
    assert!(delivered >= 50_000 * batches.saturating_sub(1), "delivered {delivered} of {batches} batches");
    // Data crossed as coded broadcasts, not as IP unicast: S sent its
    // segments to the sender module, and only SYN / ACKs went by unicast.
    assert!(counter(&o, "S", "broadcast_tx") > 100);
    assert!(counter(&o, "S", "data_tx") < 20, "S unicast {}", counter(&o, "S", "data_tx"));
    let natives = coding_counter(&o, "S", "natives");
    assert!(natives >= 50 && coding_counter(&o, "A", "innovative") <= natives);
    // The receiver module answered coded packets; the sender module turned
    // the new ones into TCP ACKs.
    assert!(m["counters"]["acks_sent"].as_u64().unwrap() > 50);
    assert!(coding_counter(&o, "S", "acks_new") > 40);
}

#[test]
fn plain_more_closes_short_batches_by_timer_and_delivers() {
    // β = 32 against TCP's 20-packet window: no batch ever fills, so each
    // closes 100 ms after its first native (the batch timer) and is sent as
    // a batch of the k segments it has; the destination decodes it and
    // hands TCP k segments at once.
    let o = coded(&[("mesh.protocol", "more"), ("sim.duration", "30s")]);
    let timer = coding_counter(&o, "S", "batches_closed_by_timer");
    let decoded = coding_counter(&o, "D", "batches_decoded");
    assert!(timer >= 3, "{timer} batches closed by the timer");
    assert!(decoded + 1 >= timer, "{decoded} of {timer} decoded");
    assert_eq!(o.summary["scenario"]["mesh"]["batch_timeout"], "100ms");
    let delivered = o.summary["flows"][0]["bytes_delivered"].as_u64().unwrap();
    // Slowly at the study's losses (a batch of the one or two segments
    // TCP's window allows per round trip), but it delivers.
    assert!(delivered >= 5_000 && delivered % 1000 == 0, "delivered {delivered}");
    // Size only (timer off): the batch never fills and nothing is sent.
    let o = coded(&[("mesh.protocol", "more"), ("mesh.batch_timeout", "0s"), ("sim.duration", "20s")]);
    assert_eq!(o.summary["flows"][0]["bytes_delivered"], 0);
    assert_eq!(coding_counter(&o, "S", "coded_sent"), 0);
}

#[test]
fn coded_runs_are_deterministic() {
    let sc = ladder(&[("sim.duration", "20s"), ("mesh.protocol", "tcpfender")]);
    let strip = |o: &RunOutput| {
        let mut s = o.summary.clone();
        s["run"]["run_wall_s"] = serde_json::json!(0);
        s
    };
    let (a, b) = (run(&sc, RunOptions::default()).unwrap(), run(&sc, RunOptions::default()).unwrap());
    assert_eq!(strip(&a), strip(&b));
}

/// The plane's own counters in the summary.
fn plane_counter(o: &RunOutput, key: &str) -> u64 {
    o.summary["mesh"]["coding"]["counters"][key].as_u64().unwrap_or_else(|| panic!("no plane counter {key}"))
}

#[test]
fn real_bytes_decode_to_the_original_datagrams_and_change_nothing_else() {
    for protocol in ["tcpfender", "more"] {
        let mut over = vec![("sim.duration", "20s"), ("mesh.protocol", protocol)];
        if protocol == "more" {
            over.push(("mesh.batch", "8"));
        }
        let plain = coded(&over);
        over.push(("mesh.real_bytes", "true"));
        let real = coded(&over);
        assert_eq!(real.summary["mesh"]["coding"]["real_bytes"], true);
        // Every datagram decoded from real coded bytes (recoded at the
        // forwarders on the way) equals the one the source coded.
        let checked = plane_counter(&real, "real_bytes_checked");
        assert!(checked >= 8, "{protocol}: {checked} datagrams checked");
        assert_eq!(plane_counter(&real, "real_bytes_mismatches"), 0, "{protocol}");
        assert_eq!(plane_counter(&plain, "real_bytes_checked"), 0);
        // Same coefficients, same air time: the run is the same run.
        let f = |o: &RunOutput, k: &str| o.summary["flows"][0][k].clone();
        for k in ["bytes_delivered", "retransmissions", "timeouts"] {
            assert_eq!(f(&real, k), f(&plain, k), "{protocol}: {k}");
        }
        assert_eq!(plane_counter(&real, "segments_to_tcp"), plane_counter(&plain, "segments_to_tcp"), "{protocol}");
    }
}

#[test]
fn more_batch_ack_lost_on_the_way_back_is_repeated_by_a_forwarder() {
    // β = 8 on the ladder: the batch ACK is lost on its way back (a relay's
    // retry limit); the forwarders it passed flushed the batch. A forwarder
    // still hearing the batch from upstream repeats the ACK, so the source
    // stops sending it instead of broadcasting it for the rest of the run.
    let o = coded(&[("mesh.protocol", "more"), ("mesh.batch", "8"), ("mesh.batch_timeout", "0s")]);
    let reacks: u64 = ["A", "C", "F"].iter().map(|n| coding_counter(&o, n, "reacks")).sum();
    assert!(reacks >= 1, "no forwarder repeated an ACK");
    // How many batches the ladder gets through in 60 s depends on the
    // draws (seeds 1-5: 1 to 3); the source learns of every one.
    let decoded = coding_counter(&o, "D", "batches_decoded");
    assert!(decoded >= 1, "D decoded nothing");
    assert_eq!(coding_counter(&o, "S", "batches_acked"), decoded, "the source learnt its batches were decoded");
    // A batch of 8 takes tens of broadcasts (seeds 1-5: 72-84 for one,
    // 163 for two, 202 for three), not the rest of a 60 s run.
    let sent = coding_counter(&o, "S", "coded_sent");
    assert!(sent < 100 * decoded, "S sent {sent} for {decoded} batches");
}

/// The ladder with every link's loss rate times `scale`, RTS/CTS off,
/// credits from the mesh's own estimate; `over` on top.
fn scaled(scale: f64, over: &[(&str, &str)]) -> RunOutput {
    const FER: [f64; 11] = [0.2, 0.4, 0.1, 0.3, 0.5, 0.1, 0.4, 0.2, 0.1, 0.3, 0.6];
    let mut o: Vec<(String, String)> = vec![("sim.duration".into(), "30s".into())];
    for (i, f) in FER.iter().enumerate() {
        o.push((format!("wifi_errors.{i}.fer"), format!("{}", f * scale)));
    }
    o.extend(over.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let sc = Scenario::from_path(&scenario_path(), &o).unwrap_or_else(|e| panic!("{e}"));
    run(&sc, RunOptions::default()).unwrap()
}

fn goodput(o: &RunOutput) -> f64 {
    o.summary["flows"][0]["goodput_bps"].as_f64().unwrap_or(0.0)
}

/// Longest time (s) the receiving application went without new data,
/// counting the start of the run and its end.
/// When the first byte reached the application (the run's end if none did).
fn first_delivery(o: &RunOutput) -> f64 {
    let s = &o.series[0];
    s.t_s.iter().zip(&s.bytes_delivered).find(|(_, &b)| b > 0).map(|(&t, _)| t).unwrap_or(f64::INFINITY)
}

/// The longest time without delivery after the first delivery.
fn longest_stall_after_start(o: &RunOutput) -> f64 {
    let s = &o.series[0];
    let (mut last_t, mut last_b, mut worst) = (f64::NAN, 0, 0.0f64);
    for (&t, &b) in s.t_s.iter().zip(&s.bytes_delivered) {
        if b > last_b {
            if last_b > 0 {
                worst = worst.max(t - last_t);
            }
            (last_t, last_b) = (t, b);
        }
    }
    if last_b == 0 { f64::INFINITY } else { worst.max(s.t_s.last().copied().unwrap_or(0.0) - last_t) }
}

fn longest_stall(o: &RunOutput) -> f64 {
    let s = &o.series[0];
    let (mut last_t, mut last_b, mut worst) = (0.0, 0, 0.0f64);
    for (&t, &b) in s.t_s.iter().zip(&s.bytes_delivered) {
        if b > last_b {
            worst = worst.max(t - last_t);
            (last_t, last_b) = (t, b);
        }
    }
    worst.max(s.t_s.last().copied().unwrap_or(0.0) - last_t)
}

const LOSS_SCALES: [f64; 3] = [1.0, 0.5, 0.0];

#[test]
fn goodput_does_not_fall_as_every_link_loss_falls() {
    for (arm, over) in [("tcpip", vec![]), ("tcpfender", vec![("mesh.protocol", "tcpfender")])] {
        let g: Vec<f64> = LOSS_SCALES.iter().map(|&k| goodput(&scaled(k, &over))).collect();
        assert!(g[0] > 0.0, "{arm} moves data at the study's losses: {g:?}");
        for w in g.windows(2) {
            assert!(w[1] >= w[0], "{arm}: goodput at loss x1, x0.5, x0 = {g:?}");
        }
    }
}

/// A decoded batch (50 segments) at least this often while the path
/// delivers: several batch times at the TCP/IP rate of the study's losses
/// (about 85 kb/s here, 4.7 s a batch).
const STALL_BOUND_S: f64 = 15.0;
/// The first delivery: the server's handshake can need its SYN/ACK
/// retransmitted three times (3 s initial RTO doubling: at 3, 9 and 21 s)
/// before the client's first coded batch reaches it, and the batch's own
/// time. Measured at loss x1 over seeds 1-10: 3.3-21.7 s (four above the
/// 16 s this bound was before the streams were keyed by name, when seed 1
/// took 15.51 s).
const START_BOUND_S: f64 = 25.0;

#[test]
fn tcpfender_never_stalls_while_the_path_delivers() {
    for k in LOSS_SCALES {
        assert!(goodput(&scaled(k, &[])) > 50_000.0, "TCP/IP delivers at loss x{k}");
        let o = scaled(k, &[("mesh.protocol", "tcpfender")]);
        let stall = longest_stall_after_start(&o);
        assert!(stall < STALL_BOUND_S, "MORE's source, loss x{k}: {stall} s without delivery");
        // The start is slower: the first batch can need a chain of RTOs
        // (1 + 2 + 4 + 8 s) before it decodes, and the server's handshake
        // backed-off SYN/ACKs. Measured at loss x1 (seed 1): 18.94 s, after
        // the server's second SYN/ACK retransmission; before the streams
        // were keyed by name, 15.51 s with four timeouts on this SACK-less
        // Linux endpoint, 8.71 s with two before Linux 4.17's guard against F-RTO undos on non-SACK
        // ACKs (`frto_nonsack_guard`), whose bogus undos restarted it sooner.
        let first = first_delivery(&o);
        assert!(first < START_BOUND_S, "MORE's source, loss x{k}: first delivery at {first} s");
    }
    // The literal reading (z_src packets per segment, nothing more) is the
    // one that stalls: a batch short of a degree of freedom waits for TCP.
    let o = scaled(1.0, &[("mesh.protocol", "tcpfender"), ("mesh.source", "per-segment")]);
    assert!(longest_stall(&o) >= STALL_BOUND_S, "per-segment: {} s", longest_stall(&o));
}
