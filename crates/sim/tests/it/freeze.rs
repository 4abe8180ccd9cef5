//! Freeze-TCP in a scenario (scenarios/sdn-zwa.toml with the controller
//! routing only): the MN's radio announces its scripted roam
//! `handoff_warning` ahead, the MN's receiver advertises a zero window from
//! then on, and on reassociation sends three TR-ACKs with the window open.

use airtcp_sim::{run, RunOptions, RunOutput, Scenario};

fn scenario_path(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name)
}

const BARE: &str = r#"["mobility", "forwarding"]"#;

/// Roam at 10.2 s for 2 s, controller routing only; `warning` None: plain TCP.
fn run_freeze(warning: Option<&str>) -> RunOutput {
    let mut over = vec![("radios.3.roam_at.0.0".to_string(), "10.2s".to_string()), ("sdn.applications".to_string(), BARE.to_string())];
    if let Some(w) = warning {
        over.push(("radios.3.handoff_warning".into(), w.into()));
        over.push(("flows.0.tcp.freeze".into(), "true".into()));
    }
    let s = Scenario::from_path(&scenario_path("sdn-zwa.toml"), &over).unwrap();
    run(&s, RunOptions::default()).unwrap()
}

fn first_after(o: &RunOutput, kind: &str, t: f64) -> f64 {
    o.events.iter().find(|e| e.kind == kind && e.t_s > t).unwrap_or_else(|| panic!("no {kind} event after {t}")).t_s
}

fn count(o: &RunOutput, kind: &str) -> usize {
    o.events.iter().filter(|e| e.kind == kind).count()
}

fn flow(o: &RunOutput, key: &str) -> u64 {
    o.summary["flows"][0][key].as_u64().unwrap_or_else(|| panic!("no {key}: {}", o.summary["flows"][0]))
}

fn dump(o: &RunOutput) {
    for e in o.events.iter().filter(|e| e.t_s > 9.0 && (e.kind.starts_with("freeze") || e.kind.starts_with("wifi_handoff") || e.kind == "wifi_link_lost" || e.kind == "wifi_associated" || e.kind == "timeout" || e.kind.starts_with("window_") || e.kind == "zero_window")) {
        eprintln!("{:.4} {} {}", e.t_s, e.kind, e.detail);
    }
    eprintln!("{}", o.summary["flows"][0]);
}

#[test]
fn freeze_tcp_warned_an_rtt_ahead_keeps_the_sender_in_persist() {
    // The path RTT is ~0.33 s; warned 0.8 s ahead, every segment in flight
    // comes back ACKed with window 0 before the MN leaves AP1.
    let o = run_freeze(Some("800ms"));
    dump(&o);
    let warn = first_after(&o, "wifi_handoff_warning", 9.0);
    let zwa = first_after(&o, "freeze_zwa", 9.0);
    let lost = first_after(&o, "wifi_link_lost", 9.0);
    assert!((warn - 9.4).abs() < 1e-9 && zwa == warn, "warned at {warn}, froze at {zwa}");
    assert!((lost - 10.2).abs() < 1e-9);
    assert_eq!(o.summary["flows"][0]["freeze"]["zwas"].as_u64(), Some(1));
    assert_eq!(o.summary["flows"][0]["freeze"]["tr_acks"].as_u64(), Some(3));
    assert_eq!(flow(&o, "timeouts"), 0);
    assert_eq!(flow(&o, "retransmissions"), 0);
    assert_eq!(count(&o, "zero_window"), 1);
    assert_eq!(flow(&o, "window_probes"), 1, "one probe, lost while away");
    // The TR-ACKs cross the new AP and two 80-ms links; the sender resumes.
    let back = first_after(&o, "wifi_associated", 10.2);
    assert_eq!(first_after(&o, "freeze_tr_acks", 10.2), back);
    let reopen = first_after(&o, "window_opened", back) - back;
    assert!(reopen > 0.16 && reopen < 0.2, "window reopened {reopen:.3} s after reassociation");
    assert_eq!(flow(&o, "recv_order_errors"), 0);
}

#[test]
fn freeze_tcp_warned_too_late_still_times_out() {
    // Warned 0.1 s ahead (< RTT): the ZWA reaches the sender after the data
    // sent meanwhile is lost with the MN; with data outstanding a Linux
    // sender keeps its retransmission timer, not persist, and backs off.
    let o = run_freeze(Some("100ms"));
    dump(&o);
    assert_eq!(first_after(&o, "freeze_zwa", 9.0), 10.1);
    assert_eq!(flow(&o, "timeouts"), 2);
    assert!(flow(&o, "retransmissions") > 20);
    // The TR-ACKs reopen the window, but only the first is a window update:
    // two duplicate ACKs, no fast retransmit; the backed-off RTO resends.
    assert_eq!(o.summary["flows"][0]["fast_retransmits"].as_u64(), Some(0));
    // The second RTO (1.8 s = the `linux` profile's 0.9 s backed off)
    // fires 0.8 s after reassociation.
    let back = first_after(&o, "wifi_associated", 10.2);
    assert!(first_after(&o, "timeout", back) - back > 0.7);
}

#[test]
fn plain_tcp_on_the_same_roam_times_out() {
    let o = run_freeze(None);
    assert_eq!(count(&o, "freeze_zwa"), 0);
    assert_eq!(count(&o, "wifi_handoff_warning"), 0);
    assert!(o.summary["flows"][0].get("freeze").is_none());
    assert_eq!(flow(&o, "timeouts"), 2);
}

#[test]
fn handoff_warning_is_a_station_key() {
    let over = vec![("radios.0.handoff_warning".to_string(), "1s".to_string())];
    let e = Scenario::from_path(&scenario_path("sdn-zwa.toml"), &over).unwrap_err().to_string();
    assert!(e.contains("handoff_warning"), "{e}");
    let over = vec![("radios.3.handoff_warning".to_string(), "-1s".to_string())];
    let e = Scenario::from_path(&scenario_path("sdn-zwa.toml"), &over).unwrap_err().to_string();
    assert!(e.contains("handoff_warning"), "{e}");
}

#[test]
fn oracle_warning_at_a_given_instant() {
    let over = vec![
        ("radios.3.roam_at.0.0".to_string(), "10.2s".to_string()),
        ("sdn.applications".to_string(), BARE.to_string()),
        ("radios.3.warn_at".to_string(), r#"["9.5s", "11s"]"#.to_string()),
        ("flows.0.tcp.freeze".to_string(), "true".to_string()),
    ];
    let s = Scenario::from_path(&scenario_path("sdn-zwa.toml"), &over).unwrap();
    let o = run(&s, RunOptions::default()).unwrap();
    // 9.5 s: associated, warned; 11 s: away, the warning is stale and dropped.
    let warnings: Vec<f64> = o.events.iter().filter(|e| e.kind == "wifi_handoff_warning").map(|e| e.t_s).collect();
    assert_eq!(warnings, vec![9.5]);
    assert_eq!(first_after(&o, "freeze_zwa", 9.0), 9.5);
    assert_eq!(flow(&o, "timeouts"), 0);
    let bad = vec![("radios.3.warn_at".to_string(), r#"["9s", "8s"]"#.to_string())];
    let e = Scenario::from_path(&scenario_path("sdn-zwa.toml"), &bad).unwrap_err().to_string();
    assert!(e.contains("increasing"), "{e}");
}

#[test]
fn signal_threshold_warns_before_each_signal_roam() {
    // scenarios/wifi-roaming.toml: the station walks past three APs and
    // roams when the beacons' EWMA falls below -70 dBm; a warning level of
    // -65 dBm announces each roam earlier, once per association.
    let over = vec![("radios.3.warning_threshold_dbm".to_string(), "-65.0".to_string()), ("flows.0.tcp.freeze".to_string(), "true".to_string())];
    let s = Scenario::from_path(&scenario_path("wifi-roaming.toml"), &over).unwrap();
    let o = run(&s, RunOptions::default()).unwrap();
    let warnings: Vec<f64> = o.events.iter().filter(|e| e.kind == "wifi_handoff_warning").map(|e| e.t_s).collect();
    let roams: Vec<f64> = o.events.iter().filter(|e| e.kind == "wifi_link_lost").map(|e| e.t_s).collect();
    eprintln!("warnings {warnings:?} roams {roams:?}");
    assert!(!roams.is_empty());
    // One warning per roam, a crossing of -65 dBm while the signal fades
    // (not right after a roam, when the new AP may still be below it).
    assert_eq!(warnings.len(), roams.len());
    for (w, r) in warnings.iter().zip(&roams) {
        assert!(r - w > 0.5 && r - w < 10.0, "warned {:.2} s ahead", r - w);
    }
    assert!(o.events.iter().all(|e| e.kind != "wifi_handoff_warning" || e.detail.contains("trigger=signal")));
    assert_eq!(count(&o, "freeze_zwa"), warnings.len());
    assert_eq!(count(&o, "freeze_tr_acks"), roams.len());
}
