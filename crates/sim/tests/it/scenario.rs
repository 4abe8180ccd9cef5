//! Scenario parsing, validation errors (file:line: key: message), overrides.

use std::path::PathBuf;

use airtcp_core::Duration;
use airtcp_sim::link::{LossModel, QueueLimit};
use airtcp_sim::scenario::AppSpec;
use airtcp_sim::Scenario;
use airtcp_tcp::Recovery;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn bulk_text() -> String {
    std::fs::read_to_string(repo().join("scenarios/bulk-lossy.toml")).unwrap()
}

fn sets(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(p, v)| (p.to_string(), v.to_string())).collect()
}

/// The error text for `text` with `find` replaced by `replace`.
fn err_with(find: &str, replace: &str) -> String {
    let text = bulk_text();
    assert!(text.contains(find), "{find}");
    let bad = text.replacen(find, replace, 1);
    Scenario::from_toml_str(&bad, "bulk.toml", &[]).unwrap_err().to_string()
}

fn err_set(p: &str, v: &str) -> String {
    Scenario::from_toml_str(&bulk_text(), "bulk.toml", &sets(&[(p, v)])).unwrap_err().to_string()
}

#[test]
fn bulk_lossy_is_the_ns3_anchor() {
    let s = Scenario::from_path(&repo().join("scenarios/bulk-lossy.toml"), &[]).unwrap();
    assert_eq!(s.duration(), Duration::from_secs(60));
    assert_eq!(s.seed(), 1);
    assert_eq!(s.nodes.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(), ["snd", "rtr", "rcv"]);
    let (l0, l1) = (&s.links[0], &s.links[1]);
    assert_eq!(l0.rate_bps, [10_000_000; 2]);
    assert_eq!(l0.delay, [Duration::from_millis(10); 2]);
    assert_eq!(l1.rate_bps, [2_000_000; 2]);
    assert_eq!(l1.delay, [Duration::from_millis(1); 2]);
    assert_eq!(l1.queue, QueueLimit::Packets(50));
    assert_eq!(l1.overhead_bytes, 2);
    // Loss only on rtr -> rcv.
    assert_eq!(l1.loss[0].model, LossModel::Uniform { p: 0.01 });
    assert_eq!(l1.loss[1].model, LossModel::None);
    assert_eq!(l0.loss[0].model, LossModel::None);
    let f = &s.flows[0];
    assert_eq!(f.app, AppSpec::Bulk);
    assert_eq!((f.from, f.to), (0, 2));
    let t = &f.tcp;
    assert_eq!((t.mss, t.initial_cwnd, t.sack, t.timestamps, t.delack_count), (1000, 1, false, true, 2));
    assert_eq!((t.min_rto, t.delack_timeout), (Duration::from_secs(1), Duration::from_millis(200)));
    assert_eq!((t.rcv_buf, t.snd_buf, t.recovery), (131_072, 131_072, Recovery::Ns3Prr));
    assert_eq!(t.cc.name(), "newreno");
}

#[test]
fn fat_pipe_parses() {
    let s = Scenario::from_path(&repo().join("scenarios/fat-pipe.toml"), &[]).unwrap();
    assert_eq!(s.flows[0].tcp.rcv_buf, 64 << 20);
    assert_eq!(s.flows[0].tcp.recovery, Recovery::Reno);
    assert_eq!(s.flows[0].tcp.delack_count, 1);
    assert_eq!(s.links[1].loss[0].model, LossModel::Uniform { p: 0.01 });
}

#[test]
fn impossible_values_name_file_line_and_key() {
    assert_eq!(err_with("delay = \"10ms\"", "delay = \"-5ms\""), "bulk.toml:40: links[0].delay: negative duration \"-5ms\"");
    assert_eq!(err_with("p = 0.01", "p = 1.5"), "bulk.toml:55: links[1].loss_ab.p: probability 1.5 is outside [0, 1]");
    assert_eq!(err_with("p = 0.01", "p = -0.1"), "bulk.toml:55: links[1].loss_ab.p: probability -0.1 is outside [0, 1]");
    assert_eq!(err_with("rate = \"2Mbps\"", "rate = \"0Mbps\""), "bulk.toml:47: links[1].rate: zero rate \"0Mbps\"");
    assert_eq!(err_with("rate = \"2Mbps\"", "rate = 0"), "bulk.toml:47: links[1].rate: zero rate 0");
    assert_eq!(err_with("duration = \"60s\"", "duration = \"0s\""), "bulk.toml:23: sim.duration: duration must be positive");
    assert_eq!(err_with("queue_packets = 50", "queue_packets = 0"), "bulk.toml:41: links[0].queue_packets: queue_packets must be at least 1");
}

#[test]
fn unknown_keys_and_wrong_types_are_rejected() {
    let e = err_with("rate = \"2Mbps\"", "rat = \"2Mbps\"");
    assert!(e.starts_with("bulk.toml:47: links[1].rat: unknown key (known: name, a, b, rate,"), "{e}");
    assert_eq!(err_with("sack = false", "sack = \"no\""), "bulk.toml:68: flows[0].tcp.sack: expected true or false, got string \"no\"");
    assert_eq!(err_with("mss = 1000", "mss = \"big\""), "bulk.toml:66: flows[0].tcp.mss: expected an integer, got string \"big\"");
    assert_eq!(err_with("delay = \"10ms\"", "delay = true"), "bulk.toml:40: links[0].delay: expected a duration like \"10ms\", got boolean true");
    assert_eq!(err_with("delay = \"10ms\"", "delay = \"10 parsecs\""), "bulk.toml:40: links[0].delay: unknown duration unit in \"10 parsecs\" (use ns, us, ms, s, min, h)");
    let e = err_with("[sim]", "[simulation]");
    assert_eq!(e, "bulk.toml:22: simulation: unknown key (known: sim, nodes, links, flows, udp_flows, agents, route_changes, wifi, radios, wifi_errors, sdn, mesh)");
    assert_eq!(err_with("rate = \"2Mbps\"\n", ""), "bulk.toml:44: links[1].rate: missing required key");
}

#[test]
fn bad_references_are_rejected() {
    assert_eq!(err_with("name = \"rcv\"", "name = \"rtr\""), "bulk.toml:34: nodes[2].name: duplicate node name \"rtr\" (also nodes[1])");
    assert_eq!(err_with("to = \"rcv\"", "to = \"nowhere\""), "bulk.toml:59: flows[0].to: unknown node \"nowhere\" (nodes: snd, rtr, rcv)");
    assert_eq!(err_with("cc = \"newreno\"", "cc = \"hybla\""), {
        let known = airtcp_tcp::cc::BUILTIN_NAMES.join(", ");
        format!("bulk.toml:65: flows[0].tcp.cc: unknown congestion control 'hybla' (known: {known})")
    });
    assert_eq!(
        err_with("recovery = \"ns3-prr\"", "recovery = \"fast\""),
        "bulk.toml:82: flows[0].tcp.recovery: unknown recovery 'fast' (known: tahoe, reno, newreno, prr, ns3-prr)"
    );
    // Second link now joins rtr and snd: rcv is an island.
    assert_eq!(
        err_with("b = \"rcv\"", "b = \"snd\""),
        "bulk.toml:59: flows[0].to: no route from \"snd\" to \"rcv\" (the nodes are not connected by links)"
    );
    assert_eq!(err_with("app = \"bulk\"", "app = \"video\""), "bulk.toml:61: flows[0].app: unknown app \"video\" (known: bulk, transfer)");
    assert_eq!(err_with("app = \"bulk\"", "app = \"transfer\""), "bulk.toml:57: flows[0].bytes: missing required key");
}

#[test]
fn cross_field_tcp_errors_point_at_the_tcp_table() {
    assert_eq!(err_with("min_rto = \"1s\"", "min_rto = \"90s\""), "bulk.toml:64: flows[0].tcp: min_rto 90000ms exceeds max_rto 60000ms");
}

#[test]
fn toml_syntax_errors_have_a_line() {
    let e = err_with("queue_packets = 50\noverhead_bytes = 2\n\n[[links]]", "queue_packets = [50\n");
    assert!(e.starts_with("bulk.toml:4"), "{e}");
    assert!(e.contains("TOML syntax error"), "{e}");
}

#[test]
fn loss_table_errors() {
    assert_eq!(
        err_with("model = \"uniform\"", "model = \"rayleigh\""),
        "bulk.toml:54: links[1].loss_ab.model: unknown loss model \"rayleigh\" (known: none, uniform, ber, gilbert, list)"
    );
    assert_eq!(
        err_with("p = 0.01", "p = 0.01\nouttages = []"),
        "bulk.toml:56: links[1].loss_ab.outtages: unknown key (known: model, p, outages)"
    );
    assert_eq!(
        err_with("p = 0.01", "p = 0.01\noutages = [[\"5s\", \"7s\"], [\"6s\", \"8s\"]]"),
        "bulk.toml:56: links[1].loss_ab.outages: outages overlap ([5s, 7s) and [6s, 8s))"
    );
    assert_eq!(
        err_with("p = 0.01", "p = 0.01\noutages = [[\"7s\", \"5s\"]]"),
        "bulk.toml:56: links[1].loss_ab.outages[0]: outage ends (5s) before it starts (7s)"
    );
    assert_eq!(
        err_with("[links.loss_ab]", "[links.loss]\nmodel = \"none\"\n[links.loss_ab]"),
        "bulk.toml:55: links[1].loss_ab: conflicts with links[1].loss; use either loss or loss_ab/loss_ba"
    );
}

#[test]
fn loss_models_and_outages_parse() {
    let text = bulk_text().replace(
        "model = \"uniform\"\np = 0.01",
        "model = \"gilbert\"\np_gb = 0.01\np_bg = 0.3\noutages = [[\"10s\", \"12.5s\"], [\"1s\", \"2s\"]]",
    );
    let s = Scenario::from_toml_str(&text, "x.toml", &[]).unwrap();
    let l = &s.links[1].loss[0];
    assert_eq!(l.model, LossModel::GilbertElliott { p_gb: 0.01, p_bg: 0.3, loss_good: 0.0, loss_bad: 1.0 });
    assert_eq!(
        l.outages,
        [(Duration::from_secs(1), Duration::from_secs(2)), (Duration::from_secs(10), Duration::from_millis(12_500))]
    );
    let s = Scenario::from_toml_str(&bulk_text(), "x.toml", &sets(&[("links.0.loss", "{ model = \"ber\", ber = 1e-6 }")])).unwrap();
    assert_eq!(s.links[0].loss, [s.links[0].loss[1].clone(), s.links[0].loss[0].clone()]);
    assert_eq!(s.links[0].loss[0].model, LossModel::BitErrorRate { ber: 1e-6 });
}

#[test]
fn set_overrides_apply_before_validation() {
    let s = Scenario::from_toml_str(
        &bulk_text(),
        "bulk.toml",
        &sets(&[("flows.0.tcp.cc", "reno"), ("links.1.loss_ab.p", "0.05"), ("sim.duration", "600s"), ("flows.0.tcp.sack", "true")]),
    )
    .unwrap();
    assert_eq!(s.flows[0].tcp.cc.name(), "reno");
    assert!(s.flows[0].tcp.sack);
    assert_eq!(s.links[1].loss[0].model, LossModel::Uniform { p: 0.05 });
    assert_eq!(s.duration(), Duration::from_secs(600));
    // New keys and tables can be created by an override.
    let s = Scenario::from_toml_str(&bulk_text(), "bulk.toml", &sets(&[("links.0.reorder.p", "0.1"), ("links.0.reorder.delay", "2ms")])).unwrap();
    assert_eq!(s.links[0].reorder[1].as_ref().unwrap().delay, Duration::from_millis(2));
}

#[test]
fn bad_overrides_name_the_override() {
    assert_eq!(err_set("links.0.delay", "-5ms"), "bulk.toml: --set links.0.delay=-5ms: links[0].delay: negative duration \"-5ms\"");
    assert_eq!(err_set("links.5.delay", "1ms"), "bulk.toml: bad override --set links.5.delay=1ms: links has 2 entries, no index 5");
    assert_eq!(err_set("links.x.delay", "1ms"), "bulk.toml: bad override --set links.x.delay=1ms: links is a list; \"x\" is not an index");
    assert_eq!(err_set("sim.duration.s", "1"), "bulk.toml: bad override --set sim.duration.s=1: sim.duration is not a table or list");
    let e = err_set("links.0.dely", "5ms");
    assert!(e.starts_with("bulk.toml: --set links.0.dely=5ms: links[0].dely: unknown key"), "{e}");
}

#[test]
fn json_input_and_round_trip() {
    let s = Scenario::from_toml_str(&bulk_text(), "bulk.toml", &[]).unwrap();
    let j = s.to_json();
    let back = Scenario::from_json_str(&j.to_string(), "<dict>", &[]).unwrap();
    assert_eq!(back.to_json(), j);
    // JSON errors have no line; the key path still says where.
    let mut bad = j.clone();
    bad["links"][0]["delay_ab"] = serde_json::json!("-1ms");
    let e = Scenario::from_json_str(&bad.to_string(), "<dict>", &[]).unwrap_err();
    assert_eq!(e.to_string(), "<dict>: links[0].delay_ab: negative duration \"-1ms\"");
    let e = Scenario::from_json_str(&j.to_string(), "<dict>", &sets(&[("flows.0.tcp.mss", "0")])).unwrap_err();
    assert_eq!(e.to_string(), "<dict>: --set flows.0.tcp.mss=0: flows[0].tcp: mss = 0 is outside 1..=65495");
}

#[test]
fn plain_numbers_mean_seconds_bits_per_second_and_bytes() {
    let text = bulk_text()
        .replace("duration = \"60s\"", "duration = 1.5")
        .replace("rate = \"2Mbps\"", "rate = 2000000")
        .replace("rcv_buf = 131072", "rcv_buf = \"128KiB\"");
    let s = Scenario::from_toml_str(&text, "x.toml", &[]).unwrap();
    assert_eq!(s.duration(), Duration::from_millis(1500));
    assert_eq!(s.links[1].rate_bps, [2_000_000; 2]);
    assert_eq!(s.flows[0].tcp.rcv_buf, 131_072);
}

#[test]
fn a_rejected_scenario_writes_nothing() {
    let out = std::env::temp_dir().join(format!("airtcp-sim-reject-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    // What the CLI does: validate, then run, then write.
    let result = Scenario::from_toml_str(&bulk_text(), "bulk.toml", &sets(&[("links.0.delay", "-1ms")])).map(|s| {
        let o = airtcp_sim::run(&s, Default::default()).unwrap();
        airtcp_sim::write_outputs(&o, &out).unwrap();
    });
    assert!(result.is_err());
    assert!(!out.exists());
}

#[test]
fn tlp_follows_the_profile_and_names_its_key() {
    // ns-3's recovery (bulk-lossy.toml): no tail loss probe unless asked.
    let s = Scenario::from_toml_str(&bulk_text(), "bulk.toml", &[]).unwrap();
    assert!(!s.flows[0].tcp.tlp);
    let s = Scenario::from_toml_str(&bulk_text(), "bulk.toml", &sets(&[("flows.0.tcp.tlp", "true")])).unwrap();
    assert!(s.flows[0].tcp.tlp);
    // Linux recovery: on by default, off when given.
    let s = Scenario::from_toml_str(&bulk_text(), "bulk.toml", &sets(&[("flows.0.tcp.recovery", "prr")])).unwrap();
    assert!(s.flows[0].tcp.tlp && s.flows[0].tcp.rack);
    let s = Scenario::from_toml_str(&bulk_text(), "bulk.toml", &sets(&[("flows.0.tcp.recovery", "prr"), ("flows.0.tcp.tlp", "false")]))
        .unwrap();
    assert!(!s.flows[0].tcp.tlp);
    assert_eq!(
        err_with("sack = false", "sack = false\ntlp = 1"),
        "bulk.toml:69: flows[0].tcp.tlp: expected true or false, got integer 1"
    );
}

/// A two-node scenario whose `[flows.tcp]` is `tcp` (omitted when empty).
fn with_tcp(tcp: &str) -> String {
    let table = if tcp.is_empty() { String::new() } else { format!("[flows.tcp]\n{tcp}\n") };
    format!(
        "[sim]\nduration = \"1s\"\n[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n[[links]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"10ms\"\n[[flows]]\nfrom = \"a\"\nto = \"b\"\napp = \"bulk\"\n{table}"
    )
}

#[test]
fn a_flow_naming_no_profile_runs_linux() {
    for tcp in ["", "cc = \"reno\""] {
        let s = Scenario::from_toml_str(&with_tcp(tcp), "x.toml", &[]).unwrap();
        let t = &s.flows[0].tcp;
        assert_eq!(t.profile, "linux");
        assert_eq!((t.min_rto, t.max_rto, t.rto_timer), (Duration::from_millis(200), Duration::from_secs(120), airtcp_tcp::RtoTimer::Linux));
        assert_eq!((t.delack_timeout, t.initial_quickacks, t.hz), (Duration::from_millis(40), 16, 250));
        assert!(t.rcv_buf_autotune && t.snd_buf_autotune);
    }
    let s = Scenario::from_toml_str(&with_tcp(""), "x.toml", &[]).unwrap();
    assert_eq!(s.flows[0].tcp.cc.name(), "cubic");
}

#[test]
fn keys_beside_a_profile_override_only_themselves() {
    let s = Scenario::from_toml_str(&with_tcp("profile = \"linux-3.16\"\ncc = \"westwood\"\nrcv_buf = 65536"), "x.toml", &[]).unwrap();
    let t = &s.flows[0].tcp;
    assert_eq!((t.profile, t.cc.name(), t.rack, t.tlp), ("linux-3.16", "westwood", false, true));
    assert_eq!(t.tcp_rmem, [4096, 87_380, 6_291_456]);
    // An explicit buffer locks its autotuning, the other stays on.
    assert!(!t.rcv_buf_autotune && t.snd_buf_autotune);
    let s = Scenario::from_toml_str(&with_tcp("profile = \"opnet-2003\""), "x.toml", &[]).unwrap();
    let t = &s.flows[0].tcp;
    assert_eq!((t.mss, t.rcv_buf, t.min_rto, t.rto_tick), (2264, 8760, Duration::from_millis(500), Some(Duration::from_millis(500))));
    // ns-3's recovery alone selects the ns3 profile; a profile given wins.
    let s = Scenario::from_toml_str(&with_tcp("recovery = \"ns3-prr\""), "x.toml", &[]).unwrap();
    assert_eq!((s.flows[0].tcp.profile, s.flows[0].tcp.cc.name(), s.flows[0].tcp.frto), ("ns3", "newreno", false));
    let s = Scenario::from_toml_str(&with_tcp("profile = \"linux\"\nrecovery = \"ns3-prr\""), "x.toml", &[]).unwrap();
    assert_eq!((s.flows[0].tcp.profile, s.flows[0].tcp.frto), ("linux", true));
}

#[test]
fn a_bad_profile_names_its_line() {
    let e = Scenario::from_toml_str(&with_tcp("profile = \"linux-2.4\""), "x.toml", &[]).unwrap_err().to_string();
    assert_eq!(e, "x.toml:17: flows[0].tcp.profile: unknown profile \"linux-2.4\" (known: linux, linux-4.4, linux-3.16, ns3, opnet-2003, rfc, ns2-tahoe, ns2-reno, ns2-newreno)");
    // ns-2 names select the ns-2 agent pair instead of an Endpoint.
    let s = Scenario::from_toml_str(&with_tcp("profile = \"ns2-newreno\""), "x.toml", &[]).unwrap();
    assert!(s.flows[0].ns2.is_some());
}

#[test]
fn summary_records_the_profile_and_every_value() {
    let s = Scenario::from_toml_str(&with_tcp("profile = \"opnet-2003\"\ninitial_cwnd = 2"), "x.toml", &[]).unwrap();
    let j = s.to_json();
    let t = &j["flows"][0]["tcp"];
    assert_eq!((t["profile"].as_str(), t["rto_tick"].as_str(), t["initial_cwnd"].as_u64()), (Some("opnet-2003"), Some("500ms"), Some(2)));
    assert_eq!((t["syn_rto"].as_str(), t["witcp"].as_bool(), t["witcp_max_freeze"].as_str()), (Some("none"), Some(false), Some("none")));
    // Every key the input accepts is written, so the record is complete
    // and loads back to the same configuration.
    let keys: Vec<&str> = t.as_object().unwrap().keys().map(String::as_str).collect();
    let mut want = airtcp_sim::scenario::tcp::TCP.names();
    want.sort_unstable();
    let mut have = keys.clone();
    have.sort_unstable();
    assert_eq!(have, want);
    let back = Scenario::from_json_str(&j.to_string(), "<dict>", &[]).unwrap();
    assert_eq!(back.flows[0].tcp, s.flows[0].tcp);
}

#[test]
fn overhear_probe_responses_reaches_the_station_and_rejects_non_booleans() {
    let text = std::fs::read_to_string(repo().join("scenarios/wifi-roaming.toml")).unwrap();
    let sc = Scenario::from_toml_str(&text, "roam.toml", &sets(&[("radios.3.overhear_probe_responses", "true")])).unwrap();
    let w = sc.wifi.as_ref().unwrap();
    match &w.radios[3].spec.mgmt {
        airtcp_wifi::mgmt::MgmtSpec::Station(s) => assert!(s.overhear_probe_responses),
        other => panic!("radio 3 is the station: {other:?}"),
    }
    let e = Scenario::from_toml_str(&text, "roam.toml", &sets(&[("radios.3.overhear_probe_responses", "\"yes\"")])).unwrap_err().to_string();
    assert!(e.contains("overhear_probe_responses") && e.contains("true or false"), "{e}");
}
