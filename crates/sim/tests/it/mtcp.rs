//! M-TCP and legacy layer-2 roaming on seed 000's topology
//! (scenarios/sdn-zwa.toml without its controller: the switches learn
//! where stations are from their packets and the APs' IAPP ADD-notify).
//! The MN leaves AP1 at 10.2 s, stays away 2 s and reassociates to AP2.

use airtcp_sim::{run, RunOutput, RunOptions, Scenario};

fn legacy_text(mtcp: bool) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/sdn-zwa.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let (head, rest) = text.split_once("[sdn]").unwrap();
    let flows = &rest[rest.find("[[flows]]").unwrap()..];
    let mut out = head.to_string();
    for s in ["s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8"] {
        out = out.replace(&format!("name = \"{s}\"\n"), &format!("name = \"{s}\"\nlearn_hosts = true\n"));
    }
    if mtcp {
        out.push_str("[[agents]]\nnode = \"ap1\"\nkind = \"mtcp\"\npeers = [\"ap2\", \"ap3\"]\n");
        out.push_str("[[agents]]\nnode = \"ap2\"\nkind = \"mtcp\"\npeers = [\"ap1\", \"ap3\"]\n");
        out.push_str("[[agents]]\nnode = \"ap3\"\nkind = \"mtcp\"\npeers = [\"ap1\", \"ap2\"]\n");
    }
    out.push_str(flows);
    out
}

fn run_legacy(mtcp: bool, tcp: &[(&str, &str)]) -> RunOutput {
    let mut over = vec![("radios.3.roam_at.0.0".to_string(), "10.2s".to_string())];
    for (k, v) in tcp {
        over.push((format!("flows.0.tcp.{k}"), v.to_string()));
    }
    let s = Scenario::from_toml_str(&legacy_text(mtcp), "legacy.toml", &over).unwrap();
    run(&s, RunOptions::default()).unwrap()
}

fn flow(o: &RunOutput, key: &str) -> u64 {
    o.summary["flows"][0][key].as_u64().unwrap_or_else(|| panic!("no {key}: {}", o.summary["flows"][0]))
}

fn first_after(o: &RunOutput, kind: &str, t: f64) -> f64 {
    o.events.iter().find(|e| e.kind == kind && e.t_s > t).unwrap_or_else(|| panic!("no {kind} event after {t}")).t_s
}

fn agent(o: &RunOutput, name: &str, key: &str) -> u64 {
    let a = o.summary["agents"].as_array().unwrap().iter().find(|a| a["name"] == name).unwrap_or_else(|| panic!("no agent {name}"));
    a["counters"][key].as_u64().unwrap()
}

fn dump(o: &RunOutput) {
    for e in o.events.iter().filter(|e| e.t_s > 9.0 && e.t_s < 16.0 && !e.kind.starts_with("window_shrunk") && !e.kind.starts_with("wifi_scan") && !e.kind.starts_with("wifi_auth") && e.kind != "readable") {
        eprintln!("{:.4} {} {}", e.t_s, e.kind, e.detail);
    }
    eprintln!("{}\n{}\n{}", o.summary["flows"][0], o.summary["agents"], o.summary["run"]);
}

#[test]
fn legacy_roaming_backs_off_and_resumes_on_the_new_ap() {
    let o = run_legacy(false, &[]);
    dump(&o);
    assert!(o.summary.get("sdn").is_none_or(|v| v.is_null()));
    // The ADD-notify of AP2 reached every learning switch.
    assert!(o.summary["run"]["hosts_learned"].as_u64().unwrap() >= 8);
    // The `linux` profile's RTO (SRTT + TCP_RTO_MIN, ~0.9 s here) backed
    // off once: 0.9 s and 1.8 s (1 and 2 s with the former RFC 6298 default).
    assert_eq!(flow(&o, "timeouts"), 2, "RTOs of 0.9 and 1.8 s while away");
    let back = first_after(&o, "wifi_associated", 10.2);
    let resumed = first_after(&o, "timeout", back);
    assert!(resumed - back > 0.7, "the backed-off RTO after reassociation: {:.3}", resumed - back);
    assert!(flow(&o, "bytes_delivered") > 2_000_000);
    assert_eq!(o.summary["run"]["misrouted_packets"].as_u64(), Some(0));
}

#[test]
fn mtcp_freezes_the_sender_at_the_aps_association_loss() {
    let o = run_legacy(true, &[("initial_cwnd", "2")]);
    dump(&o);
    assert!(agent(&o, "ap1.mtcp0", "withheld") > 100, "AP1 withheld the last byte of the MN's ACKs");
    let left = first_after(&o, "wifi_ap_station_left", 10.0);
    assert_eq!(first_after(&o, "mtcp_freeze", 10.0), left);
    assert_eq!(agent(&o, "ap1.mtcp0", "zwa_sent"), 1);
    assert!(first_after(&o, "zero_window", left) - left < 0.5);
    // AP2's move notice reaches AP1, which reopens the window.
    let back = first_after(&o, "wifi_ap_station_joined", left);
    assert_eq!(agent(&o, "ap2.mtcp1", "notices_sent"), 2);
    assert_eq!(agent(&o, "ap1.mtcp0", "notices_received"), 1);
    assert_eq!(agent(&o, "ap1.mtcp0", "reopen_sent"), 1);
    let release = first_after(&o, "mtcp_release", back);
    assert!(release - back > 0.3 && release - back < 0.35, "notice over AP2-S2-S4-S1-AP1: {:.3}", release - back);
    assert!(first_after(&o, "window_opened", release) > release);
    // A Linux sender with data outstanding keeps its retransmission timer
    // under a zero window (tcp_retransmit_timer: "receiver dastardly shrinks
    // window"), so the freeze does not spare it the RTO.
    assert!(first_after(&o, "timeout", left) < back);
    // After the reassociation the transfer goes on through AP2 (whose own
    // supervisor lets the ACK of a retransmitted byte pass whole).
    let series_end = flow(&o, "bytes_delivered");
    assert!(series_end > 600_000, "delivered {series_end} (about 360,000 before the roam)");
}

#[test]
fn mtcp_withholding_costs_a_one_segment_window_an_rto() {
    // IW 1: the first segment's ACK arrives one byte short; a partial ACK
    // delivers no whole packet, so Linux's cwnd does not grow and the 1-byte
    // remainder fills the window until the RTO. The retransmitted byte's ACK
    // would be withheld into a duplicate, so it passes whole (the agent's
    // liveness rule) and the transfer goes on.
    let o = run_legacy(true, &[]);
    dump(&o);
    let before_roam: Vec<f64> = o.events.iter().filter(|e| e.kind == "timeout" && e.t_s < 10.0).map(|e| e.t_s).collect();
    assert_eq!(before_roam.len(), 1, "one RTO at the start: {before_roam:?}");
    assert!(before_roam[0] < 4.0);
    assert!(flow(&o, "bytes_delivered") > 600_000);
}

#[test]
fn mtcp_agent_key_errors() {
    let bad = |extra: &str| {
        let text = legacy_text(false).replace("[[flows]]", &format!("[[agents]]\nnode = \"ap1\"\nkind = \"mtcp\"\n{extra}\n[[flows]]"));
        Scenario::from_toml_str(&text, "x.toml", &[]).unwrap_err().to_string()
    };
    assert!(bad("peers = [\"nowhere\"]").contains("neither a node nor an IPv4 address"));
    assert!(bad("peers = [\"ap1\"]").contains("own node"));
    assert!(bad("colour = 1").contains("colour"));
    let text = legacy_text(false).replace("[[flows]]", "[[agents]]\nnode = \"s1\"\nkind = \"mtcp\"\n[[flows]]");
    assert!(Scenario::from_toml_str(&text, "x.toml", &[]).unwrap_err().to_string().contains("no radio"));
}
