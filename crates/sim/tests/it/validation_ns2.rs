//! The ns-2 agents against ns-2 2.35 itself. The fixtures under
//! validation/ns2/fixtures were written by the installed ns-2 running
//! validation/ns2/bulk.tcl (regenerate with validation/ns2/regen.sh); the
//! simulator runs the same path with the same loss pattern (ns-2's
//! ErrorModel/List and the `list` loss model drop the same packet numbers)
//! and must send every packet at the same microsecond and time out at the
//! same instants with the same back-off.

use std::path::PathBuf;

use airtcp_sim::{run, RunOptions, Scenario};

struct Fixture {
    name: String,
    agent: String,
    sink: String,
    window: u32,
    loss: String,
    duration: f64,
    boot_time: f64,
    /// (time in µs, packet number) of every packet the sender put on the link.
    sends: Vec<(u64, i64)>,
    /// Timeout instants (s, printed by ns-2 to 10 µs) and the back-off after each.
    timeouts: Vec<f64>,
    backoffs: Vec<u32>,
    sink_bytes: u64,
}

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../validation/ns2/fixtures")
}

fn load(name: &str) -> Fixture {
    let path = fixture_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut fx = Fixture {
        name: name.into(),
        agent: String::new(),
        sink: String::new(),
        window: 0,
        loss: String::new(),
        duration: 0.0,
        boot_time: 0.0,
        sends: Vec::new(),
        timeouts: Vec::new(),
        backoffs: Vec::new(),
        sink_bytes: 0,
    };
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w[0] {
            "A" => {
                fx.agent = w[1].into();
                fx.sink = w[2].into();
                fx.window = w[3].parse().unwrap();
                fx.loss = w[4].into();
                fx.duration = w[5].parse().unwrap();
            }
            "B" => fx.boot_time = w[1].parse().unwrap(),
            "P" => fx.sends.push((w[1].parse().unwrap(), w[2].parse().unwrap())),
            "T" => fx.timeouts.push(w[1].parse().unwrap()),
            "K" => {
                let b: u32 = w[2].parse().unwrap();
                if w[1] != "0.00000" && b > 1 {
                    fx.backoffs.push(b);
                }
            }
            "S" => fx.sink_bytes = w[1].parse().unwrap(),
            _ => {}
        }
    }
    fx
}

/// The scenario twin of bulk.tcl for one fixture.
fn scenario(fx: &Fixture) -> Scenario {
    let loss = match fx.loss.split_once(':') {
        Some(("list", l)) => format!("model = \"list\"\ndrops = [{l}]"),
        Some(("rate", r)) => format!("model = \"uniform\"\np = {}", r.split(':').next().unwrap()),
        _ => "model = \"none\"".into(),
    };
    let text = format!(
        r#"
[sim]
duration = {dur}
seed = 1
series_interval = "0s"
[[nodes]]
name = "n0"
[[nodes]]
name = "n1"
[[links]]
a = "n0"
b = "n1"
rate = "10Mbps"
delay = "20ms"
queue_packets = 99
overhead_bytes = 0
[links.loss_ab]
{loss}
[[flows]]
from = "n0"
to = "n1"
app = "bulk"
[flows.tcp]
profile = "ns2-{agent}"
sink = "ns2-{sink}"
window = {window}
boot_time = {boot}
"#,
        dur = fx.duration,
        agent = fx.agent,
        sink = fx.sink,
        window = fx.window,
        boot = fx.boot_time,
    );
    Scenario::from_toml_str(&text, &fx.name, &[]).unwrap_or_else(|e| panic!("{}: {e}", fx.name))
}

/// Run the twin and compare packet for packet; returns the first difference.
fn compare(fx: &Fixture) -> Result<usize, String> {
    let out = run(&scenario(fx), RunOptions::default()).map_err(|e| e.to_string())?;
    let log = &out.segments[0];
    // The SYN (packet 0) carries no payload and is not in the segment log.
    let ns2: Vec<(u64, i64)> = fx.sends.iter().copied().filter(|&(_, k)| k > 0).collect();
    let ours: Vec<(u64, i64)> = log.t_s.iter().zip(&log.seq).map(|(&t, &s)| ((t * 1e6).round() as u64, (s / 1000) as i64 + 1)).collect();
    for (i, (a, b)) in ns2.iter().zip(&ours).enumerate() {
        if a != b {
            let from = i.saturating_sub(3);
            return Err(format!(
                "{}: packet {i} differs: ns-2 sent {:?}, airtcp {:?}\n  ns-2 around: {:?}\n  airtcp around: {:?}",
                fx.name,
                a,
                b,
                &ns2[from..(i + 4).min(ns2.len())],
                &ours[from..(i + 4).min(ours.len())]
            ));
        }
    }
    if ns2.len() != ours.len() {
        return Err(format!("{}: ns-2 sent {} data packets, airtcp {}", fx.name, ns2.len(), ours.len()));
    }
    let timeouts: Vec<(f64, u32)> = out
        .events
        .iter()
        .filter(|e| e.kind == "timeout")
        .map(|e| {
            let b = e.detail.split("backoff=").nth(1).and_then(|s| s.split_whitespace().next()).and_then(|s| s.parse().ok()).unwrap_or(0);
            (e.t_s, b)
        })
        .collect();
    if timeouts.len() != fx.timeouts.len() {
        return Err(format!("{}: ns-2 timed out {} times, airtcp {} ({timeouts:?} vs {:?})", fx.name, fx.timeouts.len(), timeouts.len(), fx.timeouts));
    }
    for (i, (&(t, _), &n)) in timeouts.iter().zip(&fx.timeouts).enumerate() {
        // ns-2 prints traced variables' times to 10 µs.
        if (t - n).abs() > 6e-6 {
            return Err(format!("{}: timeout {i} at {t} s, ns-2 at {n} s", fx.name));
        }
    }
    let ours_backoff: Vec<u32> = timeouts.iter().map(|&(_, b)| b).filter(|&b| b > 1).collect();
    if ours_backoff != fx.backoffs {
        return Err(format!("{}: back-offs {ours_backoff:?}, ns-2 {:?}", fx.name, fx.backoffs));
    }
    Ok(ns2.len())
}

fn check(name: &str) {
    let fx = load(name);
    assert!(fx.sends.len() > 100, "{name}: fixture too short");
    match compare(&fx) {
        Ok(n) => assert_eq!(n, fx.sends.iter().filter(|s| s.1 > 0).count()),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn tahoe_tcpsink_matches_ns2_packet_for_packet() {
    for f in ["tahoe-tcpsink-a.fx", "tahoe-tcpsink-b.fx", "tahoe-tcpsink-c.fx", "tahoe-tcpsink-d.fx"] {
        check(f);
    }
}

#[test]
fn tahoe_delack_matches_ns2_packet_for_packet() {
    for f in ["tahoe-delack-a.fx", "tahoe-delack-b.fx", "tahoe-delack-c.fx", "tahoe-delack-d.fx"] {
        check(f);
    }
}

#[test]
fn reno_tcpsink_matches_ns2_packet_for_packet() {
    for f in ["reno-tcpsink-a.fx", "reno-tcpsink-b.fx", "reno-tcpsink-c.fx", "reno-tcpsink-d.fx"] {
        check(f);
    }
}

#[test]
fn reno_delack_matches_ns2_packet_for_packet() {
    for f in ["reno-delack-a.fx", "reno-delack-b.fx", "reno-delack-c.fx", "reno-delack-d.fx"] {
        check(f);
    }
}

#[test]
fn newreno_tcpsink_matches_ns2_packet_for_packet() {
    for f in ["newreno-tcpsink-a.fx", "newreno-tcpsink-b.fx", "newreno-tcpsink-c.fx", "newreno-tcpsink-d.fx"] {
        check(f);
    }
}

#[test]
fn newreno_delack_matches_ns2_packet_for_packet() {
    for f in ["newreno-delack-a.fx", "newreno-delack-b.fx", "newreno-delack-c.fx", "newreno-delack-d.fx"] {
        check(f);
    }
}


fn ns2_text(tcp: &str) -> String {
    format!(
        "[sim]\nduration = \"1s\"\n[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n[[links]]\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"20ms\"\n[[flows]]\nfrom = \"a\"\nto = \"b\"\napp = \"bulk\"\n[flows.tcp]\n{tcp}\n"
    )
}

#[test]
fn ns2_profile_errors_name_the_key() {
    let cases = [
        ("profile = \"ns2-vegas\"", "unknown ns-2 profile \"ns2-vegas\""),
        ("profile = \"ns2-reno\"\nsink = \"ns2-sack\"", "unknown sink \"ns2-sack\""),
        ("profile = \"ns2-reno\"\nwindow = 0", "window must be at least 1 packet"),
        ("profile = \"ns2-reno\"\nboot_time = \"20ms\"", "boot_time must be below tcp_tick"),
        ("profile = \"ns2-reno\"\nsack = true", "sack"),
        ("sink = \"ns2-delack\"", "sink is an ns-2 key"),
    ];
    for (tcp, want) in cases {
        let err = Scenario::from_toml_str(&ns2_text(tcp), "t.toml", &[]).err().unwrap_or_else(|| panic!("{tcp}: accepted")).to_string();
        assert!(err.contains(want), "{tcp}: {err}");
        assert!(err.contains("flows"), "{tcp}: error does not say where: {err}");
    }
}

#[test]
fn ns2_flow_fills_summary_counters() {
    let text = ns2_text("profile = \"ns2-newreno\"\nwindow = 1000").replace("duration = \"1s\"", "duration = \"6s\"").replace(
        "delay = \"20ms\"",
        "delay = \"20ms\"\nqueue_packets = 99\noverhead_bytes = 0\n[links.loss_ab]\nmodel = \"list\"\ndrops = [50, 51, 300]",
    );
    let out = run(&Scenario::from_toml_str(&text, "t.toml", &[]).unwrap(), RunOptions::default()).unwrap();
    let f = &out.summary["flows"][0];
    let fx = load("newreno-tcpsink-a.fx");
    let data = fx.sends.iter().filter(|s| s.1 > 0).count() as u64;
    let mut seen = std::collections::HashSet::new();
    let rexmit = fx.sends.iter().filter(|s| s.1 > 0 && !seen.insert(s.1)).count() as u64;
    assert_eq!(f["sender"]["data_segs_sent"], data);
    assert_eq!(f["retransmissions"], rexmit);
    assert_eq!(f["timeouts"], fx.timeouts.len() as u64);
    assert_eq!(f["fast_retransmits"], 2);
    // The sink's byte count in ns-2 includes the 40-byte headers and the SYN.
    let delivered = f["bytes_delivered"].as_u64().unwrap();
    assert_eq!(fx.sink_bytes, delivered / 1000 * 1040 + 40);
    assert_eq!(out.summary["scenario"]["flows"][0]["tcp"]["profile"], "ns2-newreno");
}

/// Mean goodput (Mb/s) of ns-2's ten runs of one point (goodput_ns2.txt).
fn ns2_goodput(agent: &str, sink: &str, p: &str) -> f64 {
    let text = std::fs::read_to_string(fixture_dir().join("../goodput_ns2.txt")).unwrap();
    let acks: Vec<f64> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w[0] == agent && w[1] == sink && w[2] == p)
        .map(|w| w[4].parse().unwrap())
        .collect();
    assert_eq!(acks.len(), 10, "{agent} {sink} {p}");
    acks.iter().sum::<f64>() / 10.0 * 1000.0 * 8.0 / 60.0 / 1e6
}

#[test]
fn random_loss_goodput_within_5_percent_of_ns2() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/ns2-bulk.toml");
    for (agent, sink, p) in [("newreno", "tcpsink", "0.01"), ("tahoe", "delack", "0.05")] {
        let ov = vec![
            ("links.0.loss_ab.p".to_string(), p.to_string()),
            ("flows.0.tcp.profile".to_string(), format!("\"ns2-{agent}\"")),
            ("flows.0.tcp.sink".to_string(), format!("\"ns2-{sink}\"")),
        ];
        let sc = Scenario::from_path(&path, &ov).unwrap();
        let mut sum = 0.0;
        for seed in 1..=10 {
            let out = run(&sc, RunOptions { seed: Some(seed), ..Default::default() }).unwrap();
            sum += out.summary["flows"][0]["sender"]["bytes_acked"].as_f64().unwrap() * 8.0 / 60.0 / 1e6;
        }
        let ours = sum / 10.0;
        let ns2 = ns2_goodput(agent, sink, p);
        assert!((ours / ns2 - 1.0).abs() <= 0.05, "{agent} {sink} p={p}: airtcp {ours:.3} Mb/s, ns-2 {ns2:.3} Mb/s");
    }
}
