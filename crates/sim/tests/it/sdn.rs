//! Seed 000 end to end: OpenFlow-style switches and APs, the controller on
//! out-of-band control channels, the ZWA and statistics modules across a
//! scripted roam (scenarios/sdn-zwa.toml: CN two hops from AP2, 80 ms
//! links, the MN leaves AP1 and comes back on AP2 two seconds later), and
//! the scenario errors of the `[sdn]` keys.

use airtcp_sim::{run, RunOptions, RunOutput, Scenario};

fn scenario_path(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name)
}

fn run_with(over: &[(&str, &str)]) -> RunOutput {
    let over: Vec<(String, String)> = over.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let s = Scenario::from_path(&scenario_path("sdn-zwa.toml"), &over).unwrap();
    run(&s, RunOptions::default()).unwrap()
}

/// The scenario with the roam at `at` and the given applications.
fn roam(at: &str, apps: &str) -> RunOutput {
    run_with(&[("radios.3.roam_at.0.0", at), ("sdn.applications", apps)])
}

const ZWA: &str = r#"["mobility", "statistics", "zwa", "forwarding"]"#;
const ZWA_NO_STATS: &str = r#"["mobility", "zwa", "forwarding"]"#;
const BARE: &str = r#"["mobility", "forwarding"]"#;
/// A roam instant at which a segment of the sender's burst reaches the old
/// AP between T0 and T2 (on the scenario's linux-4.4 stack; the study's
/// Fig. 6(b) should use the same instant). At 10.2 s none does. The instant
/// depends on the phase of the sender's bursts: 10.04 s before the radios'
/// random streams were keyed by name, 10.08 s after (2026-11-29; slipping
/// from 10.072 to 10.082 s), 10.09 s since the jiffy timers fire on the
/// kernel's timer wheel (`timer_wheel`: the station's delayed ACK, for
/// one, 40-44 ms after its segment instead of 40 ms), which shifts the
/// bursts: the roams that slip are now those from 10.086 to 10.096 s
/// (2 ms steps; the same with `delack_adaptive` off, none near 10.08 s
/// with `timer_wheel` off). Of
/// 10.00-10.20 s in 10 ms steps only 10.09 s slips (10.39 and 10.40 s
/// do as well).
const SLIP: &str = "10.09s";

fn count(o: &RunOutput, kind: &str) -> usize {
    o.events.iter().filter(|e| e.kind == kind).count()
}

fn first(o: &RunOutput, kind: &str) -> f64 {
    o.events.iter().find(|e| e.kind == kind).unwrap_or_else(|| panic!("no {kind} event")).t_s
}

/// The first `kind` event after `t` seconds.
fn first_after(o: &RunOutput, kind: &str, t: f64) -> f64 {
    o.events.iter().find(|e| e.kind == kind && e.t_s > t).unwrap_or_else(|| panic!("no {kind} event after {t}")).t_s
}

fn flow(o: &RunOutput, key: &str) -> u64 {
    o.summary["flows"][0][key].as_u64().unwrap_or_else(|| panic!("no {key}: {}", o.summary["flows"][0]))
}

fn sdn(o: &RunOutput, key: &str) -> u64 {
    o.summary["sdn"][key].as_u64().unwrap_or_else(|| panic!("no sdn.{key}: {}", o.summary["sdn"]))
}

fn ctl(o: &RunOutput, key: &str) -> u64 {
    o.summary["sdn"]["controller"][key].as_u64().unwrap_or_else(|| panic!("no controller.{key}: {}", o.summary["sdn"]["controller"]))
}

/// Sender-side timeouts logged after `t` seconds.
fn timeouts_after(o: &RunOutput, t: f64) -> usize {
    o.events.iter().filter(|e| e.kind == "timeout" && e.t_s > t).count()
}

fn dump(o: &RunOutput) {
    for e in o.events.iter().filter(|e| e.kind.starts_with("sdn_t") || e.kind.starts_with("sdn_stats") || e.kind == "timeout" || e.kind.starts_with("window_") || e.kind == "zero_window" || e.kind == "closed") {
        eprintln!("{:.4} {} {}", e.t_s, e.kind, e.detail);
    }
    eprintln!("{}\n{}", o.summary["sdn"]["controller"], o.summary["flows"][0]);
}

#[test]
fn zwa_freezes_the_sender_across_a_roam_without_rto_backoff() {
    let o = roam("10.2s", ZWA);
    dump(&o);
    // The timeline, in order: T0 at the old AP, its notice (5 ms + 1 ms),
    // the old AP's flow-removed with the same counters (statistics: ZWA on),
    // T3 two seconds and a scan later, T4, T5.
    let t = ["sdn_t0_disassociated", "sdn_t1_notice", "sdn_t2_flow_removed", "sdn_stats_zwa_enabled", "sdn_t3_associated", "sdn_t4_notice", "sdn_t5_routes_installed"].map(|k| first_after(&o, k, 10.0));
    assert!(t.windows(2).all(|w| w[0] <= w[1]), "timeline out of order: {t:?}");
    assert!((t[1] - t[0] - 0.006).abs() < 1e-6, "T0->T1 is latency + processing");
    assert!(t[4] - t[0] > 2.0 && t[4] - t[0] < 2.3, "away 2 s plus the scan");
    assert_eq!(ctl(&o, "stats_zwa_enabled"), 1);
    assert_eq!(ctl(&o, "stats_zwa_disabled"), 0);
    assert_eq!(ctl(&o, "zwa_handoffs"), 1);
    // Every segment that reached the controller was acknowledged with a
    // zero window once, stored once and replayed once, none lost: the 26
    // segments in flight past the old AP at T2 (the window-limited
    // sender's phase), and the sender's first zero-window probe (answered,
    // nothing to store). Its second probe reaches S2 after T5 and goes to
    // the station: the persist timer runs on the kernel's timer wheel
    // (`timer_wheel`), whose 8-jiffy (32 ms) grid fires the probes at
    // 11.072 s and 12.256 s (11.039 s and 12.204 s at their exact
    // deadlines, when the controller answered both: 28 ZWAs), and the
    // second crosses the 80 ms CN-S2 link to arrive 3 ms after the routes
    // to AP2 are in.
    assert_eq!(sdn(&o, "zwa_acks"), 27);
    let probes: Vec<f64> = o.events.iter().filter(|e| e.kind == "window_probe").map(|e| e.t_s).collect();
    assert_eq!(o.events.iter().filter(|e| e.kind == "sdn_zwa_ack" && e.t_s > probes[0]).count(), 1, "only the first probe meets the controller");
    assert!(probes[1] + 0.080 > t[6], "the second probe reaches S2 after T5: {probes:?}, T5 {}", t[6]);
    assert_eq!(ctl(&o, "zwa_stored"), 26);
    assert_eq!(ctl(&o, "zwa_replayed"), 26);
    // An even number replayed: the station acknowledges every second
    // segment at once, so the controller's 200 ms replay timer never races
    // its delayed ACK (see `an_odd_replay_waits_for_the_stations_delayed_ack`).
    assert_eq!(ctl(&o, "zwa_replay_retransmits"), 0);
    assert_eq!(ctl(&o, "zwa_replays_done"), 1);
    // The sender: persist, probes, no retransmission timeout at all, no
    // retransmission, and the window reopened 0.2 s after reassociation
    // (the station's ACK of the replay crossing two 80 ms links).
    assert_eq!(flow(&o, "timeouts"), 0);
    assert_eq!(flow(&o, "retransmissions"), 0);
    assert_eq!(count(&o, "zero_window"), 1);
    assert_eq!(flow(&o, "window_probes"), 2);
    let reopen = first(&o, "window_opened") - t[4];
    assert!(reopen > 0.16 && reopen < 0.25, "window reopened {reopen:.3} s after T3");
    assert_eq!(flow(&o, "recv_order_errors"), 0);
    assert_eq!(o.summary["run"]["no_route_drops"].as_u64(), Some(0));
}

#[test]
fn an_odd_replay_waits_for_the_stations_delayed_ack() {
    // Today's kernel with the 200 ms delayed ACK and 1 s minimum RTO this
    // study used to set: the sender's phase at T0 leaves 27 segments to
    // replay. The station acknowledges every second one at once and the
    // 27th only when its 200 ms delayed-ACK timer fires, which the
    // controller's 200 ms replay timer (zwa_core) beats by a few ms: one
    // spurious replay retransmission, and the window reopens 0.2 s later
    // than with an even count. This is what loosened this file's bounds at
    // the merge of the WLAN timing work: on `linux` with the study's former
    // timer keys, its MAC changes
    // (a fresh backoff drawn at every retune, from the radio's random
    // stream; the 25 us aRxPHYStartDelay in the ACK timeout) moved the MN's
    // frames by tens of microseconds, which turned 26 segments in flight at
    // T2 into 27 (reverting the merge's changes to mac/dcf.rs and
    // mgmt/sta.rs restores 26; reverting the scan changes in sta.rs alone
    // does not).
    // A phase effect of correct MAC changes, not a WLAN defect; on the
    // scenario's linux-4.4 stack the count is 26 either way.
    // The station's kernel predates 6.6's pushed ACK of a full segment
    // with PSH (`push_ack = "short"`); today's is the next test.
    // The roam is at 10.32 s, not 10.2 s, since the adaptive delayed-ACK
    // timeout (`delack_adaptive`): the sender's 27th segment is released
    // by the station's delayed ACK of the lone segment of its previous
    // round, which the ATO, grown past its 200 ms floor, now holds for
    // 282 ms (sent at 10.196 s, at the sender at 10.516 s). With the roam
    // at 10.2 s the controller's zero-window ACKs of the burst reach the
    // sender first (from 10.405 s), so that ACK is old and only 26
    // segments are stored (even: no race); roams from 10.265 to 10.38 s
    // (5 ms steps) let it through and store 27; 10.32 s is the middle.
    // There the station's delayed ACK of the 27th fires 203 ms after it
    // (the 50-jiffy floor, on the timer wheel) and reaches the controller
    // 4.5 ms after its replay timer fired (at 10.375 s the ACK wins: the
    // race is a few ms either way).
    let o = run_with(&[
        ("radios.3.roam_at.0.0", "10.32s"),
        ("flows.0.tcp.profile", "\"linux\""),
        ("flows.0.tcp.delack_timeout", "\"200ms\""),
        ("flows.0.tcp.min_rto", "\"1s\""),
        ("flows.0.tcp.push_ack", "\"short\""),
    ]);
    dump(&o);
    assert_eq!(ctl(&o, "zwa_stored"), 27);
    assert_eq!(ctl(&o, "zwa_replayed"), 27);
    assert_eq!(ctl(&o, "zwa_replay_timeouts"), 1);
    assert_eq!(ctl(&o, "zwa_replay_retransmits"), 1);
    assert_eq!(flow(&o, "timeouts"), 0);
    let reopen = first(&o, "window_opened") - first_after(&o, "sdn_t3_associated", 10.0);
    assert!(reopen > 0.40 && reopen < 0.42, "window reopened {reopen:.3} s after T3");
}

/// The same odd replay to a station with today's receiver: the 27th
/// segment carries PSH (it ends one of the 2-segment TSO chunks the
/// sender transmits, `push_tso`), so the station ACKs it as soon as it
/// has read it (`push_ack = "full"`, Linux 6.6) and the controller's
/// replay timer never fires.
#[test]
fn an_odd_replay_is_acked_at_once_by_todays_station() {
    let o = run_with(&[
        ("radios.3.roam_at.0.0", "10.2s"),
        ("flows.0.tcp.profile", "\"linux\""),
        ("flows.0.tcp.delack_timeout", "\"200ms\""),
        ("flows.0.tcp.min_rto", "\"1s\""),
    ]);
    assert_eq!((ctl(&o, "zwa_stored"), ctl(&o, "zwa_replayed")), (27, 27));
    assert_eq!((ctl(&o, "zwa_replay_timeouts"), ctl(&o, "zwa_replay_retransmits")), (0, 0));
    let reopen = first(&o, "window_opened") - first_after(&o, "sdn_t3_associated", 10.0);
    assert!(reopen > 0.20 && reopen < 0.23, "window reopened {reopen:.3} s after T3");
}

#[test]
fn bare_tcp_backs_off_and_idles_after_reassociation() {
    let o = roam("10.2s", BARE);
    dump(&o);
    let t3 = first_after(&o, "sdn_t3_associated", 10.0);
    assert_eq!(sdn(&o, "zwa_acks"), 0);
    // RTOs while away, backing off; the first transmission that reaches the
    // station is the retransmission after reassociation, seconds later.
    assert_eq!(flow(&o, "timeouts"), 2);
    assert!(timeouts_after(&o, t3) >= 1, "a backed-off RTO fires after reassociation");
    // Linux's RTO here: SRTT plus the 200 ms floor on the variance term
    // (tcp_set_rto), 0.903 s from the last ACK (10.460 s), doubled to
    // 1.806 s (the station back 2.12 s after T0: two seconds away and the
    // scan). Both are over 63 jiffies at HZ 250, so the kernel's timer
    // wheel (`timer_wheel`) fires them on its 8-jiffy (32 ms) grid, after
    // their deadlines: at 11.392 s (29 ms late) and 13.216 s (24 ms late),
    // 0.893 s after T3 (0.83 s at the exact deadlines).
    for e in o.events.iter().filter(|e| e.kind == "timeout") {
        let jiffies = e.t_s * 250.0;
        assert!((jiffies - jiffies.round()).abs() < 1e-6 && jiffies.round() as u64 % 8 == 0, "RTO at {} s is off the 8-jiffy grid", e.t_s);
    }
    let idle = o.events.iter().find(|e| e.kind == "timeout" && e.t_s > t3).map(|e| e.t_s - t3).unwrap();
    assert!(idle > 0.88 && idle < 0.90, "bare TCP idles {idle:.4} s after reassociation");
    assert!(flow(&o, "retransmissions") > 20);
    // The duplicate ACK of the retransmission echoes the retransmission's
    // timestamp (Linux tcp_replace_ts_recent), so the sender's Eifel check
    // does not undo the real loss. No ACK of the MN was pending when it
    // left (its delayed-ACK timer had fired), so its MAC refused
    // none; with the 200 ms timer of the study's former keys one was
    // pending and refused (mac80211 drops data while not associated:
    // crates/wifi/tests/it/disassociation.rs).
    let mn = o.summary["radios"].as_array().unwrap().iter().find(|r| r["node"] == "mn").unwrap();
    assert_eq!(mn["counters"]["not_associated_drops"].as_u64(), Some(0), "{}", mn["counters"]);
    assert_eq!(flow(&o, "loss_undos"), 0);
    assert_eq!(flow(&o, "timeouts"), 2, "go-back-N after the second RTO, no third");
}

#[test]
fn statistics_module_falls_back_when_a_segment_slips_in_between_t0_and_t2() {
    let o = roam(SLIP, ZWA);
    dump(&o);
    let (t0, t2) = (first(&o, "sdn_t0_disassociated"), first(&o, "sdn_t2_flow_removed"));
    assert!(t2 > t0);
    assert_eq!(ctl(&o, "stats_zwa_disabled"), 1);
    assert_eq!(ctl(&o, "stats_zwa_enabled"), 0);
    assert_eq!(ctl(&o, "zwa_handoffs_bare"), 1);
    assert_eq!(sdn(&o, "zwa_acks"), 0, "no zero-window ACK after a fallback");
    // Bare TCP for this handoff: RTOs, but the connection recovers and
    // keeps delivering in order.
    assert!(flow(&o, "timeouts") >= 2);
    assert_eq!(flow(&o, "recv_order_errors"), 0);
    let after = o.summary["flows"][0]["bytes_delivered"].as_u64().unwrap();
    assert!(after > 1_500_000);
}

#[test]
fn without_the_statistics_module_the_hole_stalls_the_connection() {
    // Fig. 6(b): the same roam, statistics module off. A segment dropped at
    // the old AP between T0 and T2 is behind what the ZWA acknowledged:
    // the sender has freed it and never sends it again.
    let ok = roam(SLIP, ZWA);
    let o = roam(SLIP, ZWA_NO_STATS);
    dump(&o);
    assert!(sdn(&o, "zwa_acks") > 0);
    // The receiver delivers nothing after the roam; the sender stays in
    // persist (probing, each probe answered by an old ACK it ignores).
    let delivered = o.summary["flows"][0]["bytes_delivered"].as_u64().unwrap();
    let good = ok.summary["flows"][0]["bytes_delivered"].as_u64().unwrap();
    assert!(delivered < good / 2, "stalled: {delivered} vs {good} bytes with the module on");
    assert!(flow(&o, "window_probes") >= 3);
    assert_eq!(count(&o, "window_opened"), 0);
    assert_eq!(flow(&o, "recv_order_errors"), 0);
}

#[test]
fn sdn_runs_are_deterministic() {
    let a = roam("10.2s", ZWA);
    let b = roam("10.2s", ZWA);
    let strip = |o: &RunOutput| {
        let mut s = o.summary.clone();
        s["run"]["run_wall_s"] = serde_json::json!(0);
        s
    };
    assert_eq!(strip(&a), strip(&b));
    assert_eq!(a.events.len(), b.events.len());
    assert!(a.events.iter().zip(&b.events).all(|(x, y)| x.t_s == y.t_s && x.kind == y.kind && x.detail == y.detail));
}

fn err(over: &[(&str, &str)]) -> String {
    let over: Vec<(String, String)> = over.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    match Scenario::from_path(&scenario_path("sdn-zwa.toml"), &over) {
        Ok(_) => panic!("accepted {over:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn sdn_key_errors_are_one_line_with_file_line_and_key() {
    type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, &'a str);
    let cases: [Case; 5] = [
        (&[("sdn.applications", r#"["mobility", "teleport"]"#)], "sdn.applications[1]", "unknown application \"teleport\""),
        (&[("sdn.channels.10.switch", "\"s1\"")], "sdn.channels[10].switch", "second control channel"),
        (&[("sdn.channels.0.latency", "\"-5ms\"")], "sdn.channels[0].latency", "negative duration"),
        (&[("sdn.applications", r#"["zwa", "forwarding"]"#)], "sdn.applications", "need the mobility application"),
        (&[("sdn.controller", "\"nowhere\"")], "sdn.controller", "unknown node"),
    ];
    for (over, key, msg) in cases {
        let e = err(over);
        eprintln!("{e}");
        assert!(!e.contains('\n'), "one line: {e}");
        assert!(e.contains("sdn-zwa.toml"), "names the file: {e}");
        assert!(e.contains(key) && e.contains(msg), "{key}: {msg} in {e}");
    }
    // A switch without a control channel (ap3's channel removed by naming
    // it for another switch... here: a new switch with none).
    let e = err(&[("sdn.switches", r#"["s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "ap1", "ap2", "ap3", "cn"]"#)]);
    assert!(e.contains("sdn.switches[11]") && e.contains("has no control channel"), "{e}");
    assert!(!e.contains('\n'));
}

/// Records of a pcap file: (link type, record bytes).
fn pcap_records(path: &std::path::Path) -> (u32, Vec<Vec<u8>>) {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let lt = u32::from_le_bytes(b[20..24].try_into().unwrap());
    let mut out = Vec::new();
    let mut i = 24;
    while i + 16 <= b.len() {
        let n = u32::from_le_bytes(b[i + 8..i + 12].try_into().unwrap()) as usize;
        out.push(b[i + 16..(i + 16 + n).min(b.len())].to_vec());
        i += 16 + n;
    }
    (lt, out)
}

#[test]
fn captures_keep_the_disassociation_frame_and_the_zero_window_acks() {
    let over = [("radios.3.roam_at.0.0".to_string(), "10.2s".to_string())];
    let s = Scenario::from_path(&scenario_path("sdn-zwa.toml"), &over).unwrap();
    let dir = std::env::temp_dir().join(format!("airtcp-sdn-capture-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    run(&s, RunOptions { pcap_dir: Some(dir.clone()), ..Default::default() }).unwrap();
    // The MN's radio: radiotap (127); a disassociation frame (type 0,
    // subtype 10: frame control 0xa0) after the radiotap header.
    let (lt, recs) = pcap_records(&dir.join("radio3_mn.pcap"));
    assert_eq!(lt, 127);
    let disassoc = recs.iter().filter(|r| r.len() > 4 && r.get(u16::from_le_bytes([r[2], r[3]]) as usize) == Some(&0xa0)).count();
    assert!(disassoc >= 1, "no disassociation frame in the MN's capture");
    // The CN's link: TCP segments from the MN's address with a zero window
    // (the controller's ZWAs), found by their IPv4 header.
    let name = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().to_string()).find(|n| n.contains("cn-s2") || n.contains("cn_s2") || (n.starts_with("link10_"))).unwrap();
    let (_, recs) = pcap_records(&dir.join(&name));
    let zwa = recs
        .iter()
        .filter(|r| {
            (0..r.len().saturating_sub(40)).find(|&o| r[o] == 0x45 && r[o + 9] == 6).is_some_and(|o| r[o + 12..o + 16] == [172, 16, 0, 4] && r[o + 20 + 14..o + 20 + 16] == [0, 0])
        })
        .count();
    let _ = std::fs::remove_dir_all(&dir);
    // 26 stored segments and the first of the sender's two probes (the
    // second reaches S2 after T5 since the persist timer runs on the timer
    // wheel: `zwa_freezes_the_sender_across_a_roam_without_rto_backoff`).
    assert_eq!(zwa, 27, "zero-window ACKs on {name}");
}

#[test]
fn without_the_statistics_module_the_sender_gives_up_after_tcp_retries2_probes() {
    // Fig. 6(b) run long enough for Linux's persist abort: every probe is
    // answered by an old ACK (the station is stuck at its hole, behind
    // SND.UNA), so after `tcp_retries2` = 15 probes the sender aborts and
    // resets the connection, as the seed reports.
    let o = run_with(&[("radios.3.roam_at.0.0", SLIP), ("sdn.applications", ZWA_NO_STATS), ("sim.duration", "1800s")]);
    dump(&o);
    // 17 probes: the first two still meet the controller's acceptable
    // zero-window ACK (the station is away); the 15 after it meet only the
    // station's old ACKs.
    assert_eq!(flow(&o, "window_probes"), 17);
    let closed: Vec<_> = o.events.iter().filter(|e| e.kind == "closed").collect();
    assert!(!closed.is_empty(), "the sender aborted");
    let t_abort = closed[0].t_s;
    eprintln!("abort at {t_abort:.1} s: {}", closed[0].detail);
    assert!(closed[0].detail.contains("aborted"), "{}", closed[0].detail);
    // Backed-off probes (1, 2, 4 ... s, then every 120 s, Linux's
    // TCP_RTO_MAX): about 22 minutes, 1349.6 s. A 120 s probe is 30,000
    // jiffies ahead, on the timer wheel's 512-jiffy (2.048 s) grid
    // (`timer_wheel`): it fires up to 2 s late (1338.5 s at the exact
    // deadlines, with the roam of then at 10.08 s).
    assert!(t_abort > 1300.0 && t_abort < 1400.0, "15 backed-off probes take minutes: {t_abort}");
    assert_eq!(o.summary["flows"][0]["server_state"], "Closed", "the reset reached the station");
}
