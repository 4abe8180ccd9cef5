//! Mobile IP, route optimisation and Wi-TCP in scenarios (seed 001, issue
//! 10), on `scenarios/wi-tcp-wlan.toml`: the seed's Fig. 4 topology over the
//! 802.11b MAC at 2 Mb/s, the mobile leaving home at 11.5 s, back at 15.6 s,
//! away again at 30 s and from the first to the second foreign network at
//! 42.5 s. Three variants: plain Mobile IP, route-optimised Mobile IP
//! (with smooth handoff), and Wi-TCP on top of the latter.
//!
//! `cargo test --release -p airtcp-sim --test it mobileip:: -- --nocapture`
//! prints the measured figures.

use airtcp_sim::{run, LogEvent, RunOptions, RunOutput, Scenario};

use crate::common;
use common::wi_tcp::{NO_RO, NO_WITCP};

const SCENARIO: &str = include_str!("../../../../scenarios/wi-tcp-wlan.toml");

fn sets(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}


fn run_with(extra: &[(&str, &str)], seed: u64) -> RunOutput {
    let s = Scenario::from_toml_str(SCENARIO, "wi-tcp-wlan.toml", &sets(extra)).unwrap_or_else(|e| panic!("{e}"));
    run(&s, RunOptions { seed: Some(seed), ..Default::default() }).unwrap()
}

fn mip(seed: u64) -> RunOutput {
    run_with(&[NO_RO, NO_WITCP].concat(), seed)
}

fn counter(o: &RunOutput, agent: usize, name: &str) -> u64 {
    o.summary["agents"][agent]["counters"][name].as_u64().unwrap_or_else(|| panic!("no counter {name}: {}", o.summary["agents"][agent]["counters"]))
}

fn flow(o: &RunOutput, key: &str) -> f64 {
    o.summary["flows"][0][key].as_f64().unwrap_or_else(|| panic!("no flow key {key}"))
}

fn times<'a>(o: &'a RunOutput, kind: &str) -> Vec<&'a LogEvent> {
    o.events.iter().filter(|e| e.kind == kind).collect()
}

#[test]
fn registration_and_tunnelling_carry_a_download_across_handoffs() {
    let o = mip(1);
    // Four movements: home -> fa1, fa1 -> home, home -> fa1, fa1 -> fa2.
    assert_eq!(counter(&o, 4, "registrations_accepted"), 4, "the mobile's registrations");
    assert_eq!(counter(&o, 1, "registrations_accepted"), 3, "bindings at the home agent");
    assert_eq!(counter(&o, 1, "deregistrations"), 1, "back home once");
    let tunnelled = counter(&o, 1, "tunnelled");
    assert!(tunnelled > 1000, "the home agent tunnels to the care-of address: {tunnelled}");
    let (d1, d2) = (counter(&o, 2, "delivered"), counter(&o, 3, "delivered"));
    assert!(d1 > 500 && d2 > 500, "both foreign agents decapsulate and deliver: {d1} {d2}");
    // What the home agent tunnels to a foreign agent the host has just left
    // is lost there (no smooth handoff in plain Mobile IP).
    assert!(d1 + d2 <= tunnelled && d1 + d2 + 50 > tunnelled, "tunnelled packets delivered by a foreign agent: {} of {tunnelled}", d1 + d2);
    assert_eq!(counter(&o, 2, "tunnel_dropped") + counter(&o, 3, "tunnel_dropped"), 0);
    // The registration through fa2 happens after the 42.5 s move, and data
    // keeps flowing to the end.
    let regs = times(&o, "mip_registered");
    assert!(regs.iter().any(|e| e.t_s > 42.5 && e.detail.contains("mh.")), "registered through fa2");
    let g = flow(&o, "goodput_bps");
    assert!(g > 0.7e6, "download goodput {g}");
    assert_eq!(o.summary["flows"][0]["recv_order_errors"], 0);
    println!("MIP: goodput {g:.0} b/s, {tunnelled} packets tunnelled by the home agent, timeouts {}", flow(&o, "timeouts"));
}

#[test]
fn route_optimisation_has_the_correspondent_tunnel_directly() {
    let plain = mip(1);
    let ro = run_with(NO_WITCP, 1);
    let (via_ha_plain, via_ha_ro) = (counter(&plain, 1, "tunnelled"), counter(&ro, 1, "tunnelled"));
    let direct = counter(&ro, 0, "tunnelled");
    assert!(counter(&ro, 0, "bindings_cached") >= 3, "a binding per move away from home");
    assert!(counter(&ro, 1, "binding_updates_sent") >= 3);
    assert!(direct > 1000, "the correspondent tunnels to the care-of address: {direct}");
    assert!(via_ha_ro * 50 < via_ha_plain, "the home agent is bypassed: {via_ha_ro} vs {via_ha_plain} without route optimisation");
    // Smooth handoff: the old foreign agent holds a forwarding pointer and
    // warns the home agent about the stale binding.
    assert!(counter(&ro, 2, "binding_warnings_sent") >= 1);
    assert!(counter(&ro, 3, "previous_agents_notified") >= 1);
    assert_eq!(counter(&plain, 0, "tunnelled"), 0, "no binding without route optimisation");
    println!(
        "through the home agent: MIP {via_ha_plain}, route-optimised {via_ha_ro} (correspondent tunnelled {direct}); goodput {:.0} vs {:.0} b/s",
        flow(&plain, "goodput_bps"),
        flow(&ro, "goodput_bps")
    );
}

#[test]
fn witcp_freezes_the_sender_across_every_handoff() {
    let ro = run_with(NO_WITCP, 1);
    let w = run_with(&[], 1);
    let st = &w.summary["flows"][0]["witcp"];
    let (eho, ehc) = (times(&w, "witcp_eho"), times(&w, "witcp_ehc"));
    assert_eq!(eho.len(), 4, "an EHO-ACK per handoff");
    assert_eq!(ehc.len(), 4, "an EHC-ACK per handoff");
    assert_eq!(st["freezes"], 4);
    assert_eq!(st["resumes"], 4);
    assert_eq!(st["forced_thaws"], 0, "every resumption from an EHC-ACK");
    assert_eq!(flow(&w, "timeouts"), 0.0, "no RTO during the handoffs");
    assert!(flow(&ro, "timeouts") >= 3.0, "without Wi-TCP each handoff costs an RTO or more");
    // Who sends them: home agent for HA->FA, the foreign agent that lost
    // the host otherwise (the FA->FA EHC-ACK when the Binding Update
    // reaches the old agent).
    let who: Vec<&str> = eho.iter().map(|e| if e.detail.contains("home_agent") { "ha" } else { "fa" }).collect();
    assert_eq!(who, ["ha", "fa", "ha", "fa"]);
    let links_lost = times(&w, "wifi_link_lost");
    let assoc: Vec<&LogEvent> = times(&w, "wifi_associated").into_iter().skip(1).collect();
    let fwd = times(&w, "mip_forward_pointer");
    let mut frozen_ideal = 0.0;
    for k in 0..4 {
        let (t_eho, t_ehc) = (eho[k].t_s, ehc[k].t_s);
        // Eq. 1: the agent's MAC gives up on the host before beacon loss
        // tells the host it has lost its AP.
        assert!(t_eho < links_lost[k].t_s, "EHO-ACK {t_eho} before the link loss {}", links_lost[k].t_s);
        // Eqs. 2-3: the EHC-ACK follows the reassociation by the wait for an
        // advertisement (1 s interval) plus the registration (HA->FA) or the
        // Binding Update's trip to the old agent (FA->FA).
        let reconnect = t_ehc - assoc[k].t_s;
        assert!(reconnect > 0.0 && reconnect < 1.1, "handoff {k}: EHC-ACK {reconnect:.3} s after reassociation");
        if k == 1 || k == 3 {
            assert!(fwd.iter().any(|e| (e.t_s - t_ehc).abs() < 1e-6), "handoff {k}: EHC-ACK at the Binding Update's arrival");
        }
        frozen_ideal += t_ehc - t_eho;
        println!("handoff {k}: T_EHO {t_eho:.4} s, link lost {:.4}, reassociated {:.4}, T_EHC {t_ehc:.4}, T_IDEAL {:.4} s", links_lost[k].t_s, assoc[k].t_s, t_ehc - t_eho);
    }
    // Eq. 4: the sender is frozen for T_EHC - T_EHO per handoff, give or
    // take the difference of the two signals' trips to the sender.
    let frozen = st["frozen_s"].as_f64().unwrap();
    assert!((frozen - frozen_ideal).abs() < 0.05, "frozen {frozen:.4} s vs sum of T_IDEAL {frozen_ideal:.4} s");
    let (g_ro, g_w) = (flow(&ro, "goodput_bps"), flow(&w, "goodput_bps"));
    assert!(g_w > 1.1 * g_ro, "Wi-TCP {g_w:.0} vs route-optimised {g_ro:.0} b/s");
    println!("goodput: route-optimised {g_ro:.0}, Wi-TCP {g_w:.0} b/s (+{:.1} %); frozen {frozen:.3} s", 100.0 * (g_w / g_ro - 1.0));
}

#[test]
fn same_seed_same_summary() {
    let strip = |o: RunOutput| {
        let mut s = o.summary;
        s["run"]["run_wall_s"] = serde_json::Value::Null;
        (s, o.events.len())
    };
    assert_eq!(strip(run_with(&[], 3)), strip(run_with(&[], 3)));
    let (a, b) = (strip(run_with(&[], 3)).0, strip(run_with(&[], 4)).0);
    assert_ne!(a["flows"], b["flows"], "another seed, another run (beacon phases)");
}

/// The scenario with `from` replaced by `to` (which must occur).
fn edited(from: &str, to: &str) -> String {
    assert!(SCENARIO.contains(from), "{from}");
    SCENARIO.replacen(from, to, 1)
}

fn error(text: &str) -> String {
    Scenario::from_toml_str(text, "mip.toml", &[]).map(|_| ()).unwrap_err().to_string()
}

#[test]
fn bad_mobile_ip_keys_are_one_line_errors() {
    let cases: &[(&str, &str, &str)] = &[
        ("node = \"ha\"\nkind = \"home_agent\"", "node = \"hq\"\nkind = \"home_agent\"", "agents[1].node: unknown node \"hq\""),
        ("home = \"radio\"", "home = \"eth9\"", "agents[1].home: unknown link \"eth9\""),
        ("home_agent = \"ha\"", "home_agent = \"fa1\"", "agents[4].home_agent: node \"fa1\" has no home_agent agent"),
        ("home_agent = \"ha\"", "home_agent = \"10.0.0\"", "agents[4].home_agent: \"10.0.0\" is neither a node nor an IPv4 address"),
        ("smooth_handoff = true", "smooth_handoff = true\nlifetime = -5", "agents[4].lifetime: negative duration -5"),
        ("smooth_handoff = true", "smooth_handoff = true\nlifetime = 70000", "agents[4].lifetime: lifetime 70000 s exceeds the 16-bit field"),
        ("smooth_handoff = true", "smooth_handoff = true\nlifetime = \"1.5s\"", "agents[4].lifetime: lifetime 1500ms is not a whole number of seconds"),
        ("home = \"radio\"", "home = \"radio\"\nmax_lifetime = 0", "agents[1].max_lifetime: lifetime must be positive"),
        ("home = \"radio\"", "home = \"radio\"\nadvert_interval = \"0s\"", "agents[1].advert_interval: must be positive"),
        ("home = \"radio\"", "home = \"radio\"\nmobiles = []", "agents[1].mobiles: mobiles must name at least one mobile"),
        ("home = \"radio\"", "home = \"radio\"\nmobiles = [\"nowhere\"]", "agents[1].mobiles[0]: \"nowhere\" is neither a node nor an IPv4 address"),
        ("home = \"radio\"", "home = \"radio\"\ntunnel_ttl = 0", "agents[1].tunnel_ttl: tunnel_ttl 0 is outside 1..=255"),
        ("home = \"radio\"", "home = \"radio\"\nroute_optimisation = true", "agents[1].route_optimisation: unknown key"),
        ("kind = \"foreign_agent\"\nwireless = \"radio\"", "kind = \"foreign_agent\"\nwireless = \"radio\"\nmax_visitors = 0", "agents[2].max_visitors: max_visitors must be at least 1"),
        ("kind = \"foreign_agent\"\nwireless = \"radio\"", "kind = \"foreign_agent\"\nwireless = \"radio\"\naddr = \"1.2.3\"", "agents[2].addr: \"1.2.3\" is not an IPv4 address"),
        ("kind = \"correspondent\"", "kind = \"correspondent\"\nrefresh_before = \"-1s\"", "agents[0].refresh_before:"),
        ("kind = \"correspondent\"", "kind = \"corespondent\"", "agents[0].kind: unknown agent kind \"corespondent\""),
        ("rcv_buf = 20000\nwitcp = true", "rcv_buf = 20000\nwitcp = \"yes\"", "flows[0].tcp.witcp: expected true or false"),
        ("rcv_buf = 20000\nwitcp = true", "rcv_buf = 20000\nwitcp = true\nwitcp_max_freeze = \"0s\"", "witcp_max_freeze must be positive"),
    ];
    for (from, to, want) in cases {
        let e = error(&edited(from, to));
        assert!(e.starts_with("mip.toml:"), "{e}");
        assert!(e.contains(want), "{to}: got {e}, want {want}");
        assert_eq!(e.lines().count(), 1, "one line: {e}");
    }
    // A station in a subnet no AP heads is still refused as before; a
    // home agent that no mobile names serves nobody.
    let e = error(&edited("home_agent = \"ha\"", "home_agent = \"172.16.9.9\""));
    assert!(e.contains("home agent serves no mobile"), "{e}");
}

#[test]
fn resolved_scenario_loads_back() {
    let o = run_with(&[], 1);
    let text = serde_json::to_string(&o.summary["scenario"]).unwrap();
    let again = Scenario::from_json_str(&text, "resolved.json", &[]).unwrap_or_else(|e| panic!("{e}"));
    let o2 = run(&again, RunOptions { seed: Some(1), ..Default::default() }).unwrap();
    assert_eq!(o.summary["flows"], o2.summary["flows"]);
    assert_eq!(o.summary["agents"], o2.summary["agents"]);
}

/// IPv4 datagrams of a link capture (raw IP or Ethernet framing).
fn pcap_datagrams(path: &std::path::Path) -> Vec<Vec<u8>> {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let le = b[0] == 0xd4 || b[0] == 0x4d;
    let u32_at = |i: usize| {
        let w = [b[i], b[i + 1], b[i + 2], b[i + 3]];
        if le { u32::from_le_bytes(w) } else { u32::from_be_bytes(w) }
    };
    let skip = match u32_at(20) {
        1 => 14,
        _ => 0,
    };
    let mut out = Vec::new();
    let mut i = 24;
    while i + 16 <= b.len() {
        let n = u32_at(i + 8) as usize;
        let rec = &b[i + 16..(i + 16 + n).min(b.len())];
        if rec.len() > skip + 20 {
            out.push(rec[skip..].to_vec());
        }
        i += 16 + n;
    }
    out
}

#[test]
fn tunnelled_packets_are_ip_in_ip_in_the_captures() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mobileip_pcap");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let s = Scenario::from_toml_str(SCENARIO, "wi-tcp-wlan.toml", &sets(&[NO_RO, NO_WITCP].concat())).unwrap();
    run(&s, RunOptions { seed: Some(1), pcap_dir: Some(dir.clone()), ..Default::default() }).unwrap();
    // Link 2 is r - fa1: the home agent's tunnel to fa1's care-of address
    // (the first visit carries only the RTO-backed-off retransmissions; the
    // second, from 30 s, the bulk).
    let file = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).find(|p| p.file_name().unwrap().to_string_lossy().starts_with("link2_")).expect("link2 capture");
    let grams = pcap_datagrams(&file);
    let tunnelled: Vec<&Vec<u8>> = grams.iter().filter(|g| g[0] >> 4 == 4 && g[9] == 4).collect();
    assert!(tunnelled.len() > 100, "IP-in-IP datagrams on r-fa1: {} of {}", tunnelled.len(), grams.len());
    let g = tunnelled[0];
    let ihl = (g[0] & 15) as usize * 4;
    assert_eq!(&g[16..20], &[172, 16, 1, 1], "outer destination: fa1's care-of address");
    assert_eq!(g[ihl] >> 4, 4, "an inner IPv4 header");
    assert_eq!(&g[ihl + 16..ihl + 20], &[172, 16, 0, 2], "inner destination: the mobile's home address");
}
