//! ECN end to end: a bulk flow through a RED (Floyd & Jacobson 1993) or a
//! step-marking bottleneck, with and without ECN negotiated.
//!
//! ```text
//!   snd --[10 Mb/s, 5 ms]-- rtr --[2 Mb/s, 20 ms, queue 250]-- rcv
//! ```
//!
//! The buffer is deep on purpose: RED's average (w_q = 0.002) lags the
//! instantaneous queue by hundreds of arrivals, so slow start's overshoot
//! must fit in the buffer while the average catches up; a shallow buffer
//! tail-drops in slow start with or without ECN.
//!
//! The bottleneck's a->b direction runs the discipline. With `ecn = 1` on
//! the flow (the receiver keeps Linux's default 2 and accepts), data is
//! ECT(0): RED marks where it would drop, so the queue never overflows and
//! nothing is lost, while the sender halves once per window on the echoes
//! (CWR). Without ECN the same RED drops instead. Throughput stays in the
//! same ballpark either way (RED keeps the 2 Mb/s link busy).

use std::process::Command;

use airtcp_sim::{run, RunOptions, RunOutput, Scenario};
use serde_json::Value;

fn scenario(ecn: u8, discipline: &str, cc: &str) -> String {
    format!(
        r#"
[sim]
duration = "60s"
series_interval = "0s"
[[nodes]]
name = "snd"
[[nodes]]
name = "rtr"
[[nodes]]
name = "rcv"
[[links]]
a = "snd"
b = "rtr"
rate = "10Mbps"
delay = "5ms"
queue_packets = 100
[[links]]
a = "rtr"
b = "rcv"
rate = "2Mbps"
delay = "20ms"
queue_packets = 250
{discipline}
[[flows]]
from = "snd"
to = "rcv"
app = "bulk"
[flows.tcp]
cc = "{cc}"
ecn = {ecn}
rcv_buf = "1MiB"
snd_buf = "1MiB"
"#
    )
}

const RED_ECN: &str = "[links.red_ab]\nmin_th = 5\nmax_th = 15\nmax_p = 0.1\necn = true\n";
const RED_NO_ECN: &str = "[links.red_ab]\nmin_th = 5\nmax_th = 15\nmax_p = 0.1\n";

fn go(text: &str) -> RunOutput {
    let s = Scenario::from_toml_str(text, "ecn.toml", &[]).unwrap();
    run(&s, RunOptions { seed: Some(7), ..Default::default() }).unwrap()
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

#[test]
fn bulk_flow_over_red_ecn_bottleneck_gets_marks_and_no_drops() {
    for cc in ["reno", "cubic"] {
        let on = go(&scenario(1, RED_ECN, cc));
        let f = &on.summary["flows"][0];
        let q = &on.summary["links"][1]["ab"];
        assert_eq!(f["ecn"], Value::Bool(true), "{cc}: {f}");
        assert!(n(&q["ecn_marks"]) > 10, "{cc}: {q}");
        assert_eq!(n(&q["queue_drops"]), 0, "{cc}: {q}");
        assert_eq!(n(&f["retransmissions"]), 0, "{cc}: {f}");
        assert_eq!(n(&f["timeouts"]), 0, "{cc}");
        assert!(n(&f["cwr_reductions"]) > 0, "{cc}: {f}");
        // Every mark the receiver saw was echoed; one CWR per window at most.
        let ce = n(&f["receiver"]["ecn_ce_received"]);
        assert!(ce > 0 && ce <= n(&q["ecn_marks"]), "{cc}: {f}");
        assert!(n(&f["ecn_ece_received"]) >= n(&f["cwr_reductions"]), "{cc}: {f}");
        assert!(n(&f["cwr_reductions"]) <= ce, "{cc}: {f}");
        // RED, not the buffer, bounded the queue.
        assert!(n(&q["max_queue_packets"]) < 250, "{cc}: {q}");

        let off = go(&scenario(0, RED_ECN, cc));
        let g_on = f["goodput_bps"].as_f64().unwrap();
        let g_off = off.summary["flows"][0]["goodput_bps"].as_f64().unwrap();
        assert!(g_on > 1.6e6 && g_off > 1.6e6, "{cc}: {g_on} vs {g_off}");
        assert!((g_on - g_off).abs() / g_off < 0.15, "{cc}: {g_on} vs {g_off}");
    }
}

/// The same RED without ECN (or with ECN configured on the queue but a
/// flow that did not negotiate it): early drops, no marks.
#[test]
fn red_drops_without_ecn() {
    for (ecn, disc) in [(0, RED_NO_ECN), (1, RED_NO_ECN), (0, RED_ECN)] {
        let o = go(&scenario(ecn, disc, "reno"));
        let f = &o.summary["flows"][0];
        let q = &o.summary["links"][1]["ab"];
        assert_eq!(n(&q["ecn_marks"]), 0, "{q}");
        assert!(n(&q["aqm_drops"]) > 0, "{q}");
        assert!(n(&q["queue_drops"]) >= n(&q["aqm_drops"]));
        assert!(n(&f["retransmissions"]) > 0);
        assert_eq!(n(&f["cwr_reductions"]), 0);
        assert_eq!(n(&f["receiver"]["ecn_ce_received"]), 0);
    }
}

/// Linux's default on both ends (`tcp_ecn = 2`) never negotiates: data is
/// Not-ECT and the marking queue has nothing to mark.
#[test]
fn default_passive_ends_do_not_negotiate() {
    let o = go(&scenario(2, "ecn_threshold = 10", "reno"));
    let f = &o.summary["flows"][0];
    assert_eq!(f["ecn"], Value::Bool(false));
    assert_eq!(n(&o.summary["links"][1]["ab"]["ecn_marks"]), 0);
    assert!(n(&o.summary["links"][1]["ab"]["queue_drops"]) > 0);
}

/// DCTCP-style step marking: ECT arrivals that find 10 frames waiting are
/// marked; the queue hovers near the threshold instead of filling the
/// buffer, with no loss.
///
/// The link stays mostly busy: 1.75 Mb/s at 10 frames, 1.595 Mb/s at
/// 10 500 bytes (7 frames, below the path's 8.5-frame BDP). It was
/// 1.92 and 1.62 before the `linux` profile's forced PSH on TSO chunks
/// (`push_tso`): while cwnd shrinks after an echo (CWR), one ACK often
/// releases one segment, which then carries no PSH, so the receiver
/// holds it until the next one arrives (up to a round trip later) instead of
/// ACKing it at once (every second segment had PSH before); the 2 Mb/s
/// link idles for those waits (5.5 s of the minute at 10 frames).
#[test]
fn step_marking_keeps_the_queue_near_the_threshold() {
    for k in ["ecn_threshold = 10", "ecn_threshold = \"10500B\""] {
        let o = go(&scenario(1, k, "reno"));
        let f = &o.summary["flows"][0];
        let q = &o.summary["links"][1]["ab"];
        assert!(n(&q["ecn_marks"]) > 0, "{k}: {q}");
        assert_eq!(n(&q["queue_drops"]), 0, "{k}: {q}");
        assert_eq!(n(&f["retransmissions"]), 0, "{k}: {f}");
        assert!(n(&q["max_queue_packets"]) < 40, "{k}: {q}");
        assert!(f["goodput_bps"].as_f64().unwrap() > 1.55e6, "{k}: {f}");
    }
}

#[test]
fn runs_are_deterministic_with_red() {
    let a = go(&scenario(0, RED_NO_ECN, "reno"));
    let b = go(&scenario(0, RED_NO_ECN, "reno"));
    assert_eq!(a.summary["links"], b.summary["links"]);
    assert_eq!(a.summary["flows"][0]["bytes_delivered"], b.summary["flows"][0]["bytes_delivered"]);
}

fn err(extra_link: &str, tcp: &str) -> String {
    let text = scenario(1, extra_link, "reno").replace("ecn = 1\n", tcp);
    match Scenario::from_toml_str(&text, "bad.toml", &[]) {
        Ok(_) => panic!("accepted: {extra_link} / {tcp}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_aqm_and_ecn_keys_get_one_line_errors_naming_the_key() {
    let cases = [
        ("[links.red]\nmax_p = 1.5\n", "ecn = 1\n", "max_p"),
        ("[links.red]\nmin_th = 20\nmax_th = 10\n", "ecn = 1\n", "min_th"),
        ("[links.red]\nw_q = -0.5\n", "ecn = 1\n", "w_q"),
        ("[links.red]\nmin_th = -1\n", "ecn = 1\n", "min_th"),
        ("[links.red]\nmaxp = 0.1\n", "ecn = 1\n", "maxp"),
        ("ecn_threshold = 0", "ecn = 1\n", "ecn_threshold"),
        ("ecn_threshold = 5\n[links.red]\necn = true\n", "ecn = 1\n", "ecn_threshold"),
        ("", "ecn = 3\n", "ecn"),
        ("", "ecn = \"yes\"\n", "ecn"),
    ];
    for (link, tcp, key) in cases {
        let e = err(link, tcp);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(key), "{key}: {e}");
    }
}

/// The resolved scenario in the summary loads back to the same spec.
#[test]
fn resolved_scenario_round_trips_aqm_and_ecn() {
    for disc in [RED_ECN, "ecn_threshold = 12", "ecn_threshold = \"9KB\""] {
        let s = Scenario::from_toml_str(&scenario(1, disc, "reno"), "a.toml", &[]).unwrap();
        let o = run(&s, RunOptions { seed: Some(1), ..Default::default() }).unwrap();
        let json = serde_json::to_string(&o.summary["scenario"]).unwrap();
        let back = Scenario::from_json_str(&json, "back.json", &[]).unwrap();
        assert_eq!(back.links[1].aqm, s.links[1].aqm, "{disc}");
        assert_eq!(back.flows[0].tcp.ecn, s.flows[0].tcp.ecn);
    }
}

/// The capture shows the codepoints: ECT(0) data, CE where RED marked,
/// Not-ECT ACKs with ECE, and CWR on data (skipped when tshark is absent).
#[test]
fn capture_shows_ecn_bits_in_tshark() {
    let s = Scenario::from_toml_str(&scenario(1, RED_ECN, "reno").replace("\"60s\"", "\"10s\""), "cap.toml", &[]).unwrap();
    let dir = std::env::temp_dir().join(format!("airtcp-ecn-capture-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    run(&s, RunOptions { seed: Some(7), pcap_dir: Some(dir.clone()), ..Default::default() }).unwrap();
    let pcap = dir.join("link1_rtr-rcv.pcap");
    assert!(pcap.exists(), "{:?}", std::fs::read_dir(&dir).map(|d| d.count()));
    if !Command::new("tshark").arg("--version").output().is_ok_and(|o| o.status.success()) {
        eprintln!("note: tshark not found; decoding not checked");
        return;
    }
    let out = Command::new("tshark")
        .args(["-r", pcap.to_str().unwrap(), "-T", "fields", "-e", "ip.dsfield.ecn", "-e", "tcp.len", "-e", "tcp.flags.ece", "-e", "tcp.flags.cwr", "-e", "ip.checksum.status", "-o", "ip.check_checksum:TRUE"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let (mut ect_data, mut ce_data, mut ece_acks, mut cwr_data) = (0, 0, 0, 0);
    for line in text.lines() {
        let c: Vec<&str> = line.split('\t').collect();
        let data = c[1] != "0";
        let flag = |s: &str| s == "1" || s == "True";
        assert_ne!(c.get(4).copied(), Some("0"), "bad IP checksum: {line}");
        match (c[0], data) {
            ("2", true) => ect_data += 1,
            ("3", true) => ce_data += 1,
            ("0", false) => {}
            (_, false) => panic!("a pure ACK must be Not-ECT: {line}"),
            _ => {}
        }
        ece_acks += (!data && flag(c[2])) as u32;
        cwr_data += (data && flag(c[3])) as u32;
    }
    assert!(ect_data > 100 && ce_data > 0 && ece_acks > 0 && cwr_data > 0, "{ect_data} {ce_data} {ece_acks} {cwr_data}");
    let _ = std::fs::remove_dir_all(&dir);
}


/// `ecn` follows the ns-3 profile like `frto`: off with `recovery =
/// "ns3-prr"` unless given.
#[test]
fn ns3_recovery_turns_ecn_off_unless_given() {
    use airtcp_tcp::EcnMode;
    let base = scenario(1, "", "reno");
    let ns3 = base.replace("ecn = 1\n", "recovery = \"ns3-prr\"\n");
    let s = Scenario::from_toml_str(&ns3, "a.toml", &[]).unwrap();
    assert_eq!(s.flows[0].tcp.ecn, EcnMode::Off);
    let ns3_on = base.replace("ecn = 1\n", "recovery = \"ns3-prr\"\necn = \"on\"\n");
    let s = Scenario::from_toml_str(&ns3_on, "a.toml", &[]).unwrap();
    assert_eq!(s.flows[0].tcp.ecn, EcnMode::On);
    let s = Scenario::from_toml_str(&base.replace("ecn = 1\n", ""), "a.toml", &[]).unwrap();
    assert_eq!(s.flows[0].tcp.ecn, EcnMode::Passive);
}
