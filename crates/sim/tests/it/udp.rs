//! UDP applications end to end: exact CBR delivery and delay over a wired
//! path, loss as the link draws it, on/off mean rate, a mix with TCP
//! through a Snoop agent, errors on bad keys, determinism, and n saturated
//! stations against Bianchi's model (basic access and RTS/CTS, 6 and
//! 54 Mb/s).

use crate::common;
use airtcp_sim::{run, RunOptions, RunOutput, Scenario};
use airtcp_wifi::bianchi::{self, Variant};
use airtcp_wifi::frame;
use airtcp_wifi::phy::{Rate, Standard};

fn parse(text: &str) -> Result<Scenario, String> {
    Scenario::from_toml_str(text, "udp.toml", &[]).map_err(|e| e.to_string())
}

fn go(text: &str) -> RunOutput {
    run(&parse(text).unwrap_or_else(|e| panic!("{e}\n{text}")), RunOptions::default()).unwrap()
}

fn udp(o: &RunOutput, i: usize, key: &str) -> f64 {
    o.summary["udp_flows"][i][key].as_f64().unwrap_or_else(|| panic!("udp_flows[{i}].{key} in {}", o.summary["udp_flows"]))
}

/// snd --10 Mb/s, 5 ms-- rcv, plus `extra` (flows, a loss table on the link).
fn wire(duration: &str, link_extra: &str, extra: &str) -> String {
    format!(
        r#"
[sim]
duration = "{duration}"
series_interval = "100ms"
[[nodes]]
name = "snd"
[[nodes]]
name = "rcv"
[[links]]
a = "snd"
b = "rcv"
rate = "10Mbps"
delay = "5ms"
overhead_bytes = 0
{link_extra}
{extra}
"#
    )
}

const CBR: &str = r#"
[[udp_flows]]
from = "snd"
to = "rcv"
app = "cbr"
rate = "1Mbps"
size = 1222
start = "1s"
stop = "3s"
"#;

#[test]
fn cbr_delivers_every_datagram_with_constant_delay_and_no_jitter() {
    let o = go(&wire("4s", "", CBR));
    // 1250 B IP datagrams (1222 + 8 + 20) at 1 Mb/s: one per 9.776 ms for 2 s.
    assert_eq!(udp(&o, 0, "sent_datagrams"), 205.0);
    assert_eq!(udp(&o, 0, "received_datagrams"), 205.0);
    assert_eq!(udp(&o, 0, "lost"), 0.0);
    assert_eq!(udp(&o, 0, "jitter_s"), 0.0);
    // 5 ms propagation + 1250 B at 10 Mb/s (1 ms).
    assert_eq!(udp(&o, 0, "delay_min_s"), 0.006);
    assert_eq!(udp(&o, 0, "delay_max_s"), 0.006);
    assert_eq!(udp(&o, 0, "throughput_bps"), 205.0 * 1222.0 * 8.0 / 2.0);
    assert_eq!(o.summary["run"]["unmatched_packets"], 0);
    let s = &o.udp_series[0];
    assert_eq!(s.t_s.first(), Some(&1.0));
    assert_eq!(s.received.last(), Some(&205));
    assert!(s.delay_s.iter().skip(1).all(|&d| d == 0.006));
}

#[test]
fn cbr_loss_is_what_the_link_drops() {
    let o = go(&wire("4s", "[links.loss_ab]\nmodel = \"uniform\"\np = 0.1", CBR));
    let drops = o.summary["links"][0]["ab"]["loss_drops"].as_f64().unwrap();
    let lost = udp(&o, 0, "lost");
    let received = udp(&o, 0, "received_datagrams");
    assert!(drops > 5.0, "{drops}");
    // iperf's count misses only drops after the last arrival.
    assert!(lost <= drops && lost >= drops - 3.0, "lost {lost}, link drops {drops}");
    assert_eq!(received + drops, 205.0);
    assert!(udp(&o, 0, "jitter_s") == 0.0, "loss alone adds no jitter");
}

#[test]
fn onoff_sends_at_rate_times_duty_cycle() {
    let flow = r#"
[[udp_flows]]
from = "snd"
to = "rcv"
app = "onoff"
rate = "2Mbps"
size = 1000
on_time = "50ms"
off_time = "150ms"
periods = "exponential"
"#;
    let o = go(&wire("60s", "", flow));
    let offered = udp(&o, 0, "offered_bps");
    // 2 Mb/s x 50 / (50 + 150) = 500 kb/s on average.
    assert!((offered / 500e3 - 1.0).abs() < 0.1, "{offered}");
    assert_eq!(udp(&o, 0, "lost"), 0.0);
    let pareto = go(&wire("60s", "", &flow.replace("\"exponential\"", "\"pareto\"\npareto_shape = 2.5")));
    let p = udp(&pareto, 0, "offered_bps");
    assert!((p / 500e3 - 1.0).abs() < 0.1, "{p}");
    assert_ne!(p, offered);
}

#[test]
fn udp_and_tcp_share_a_path_through_a_snoop_agent() {
    let mut s = common::topology("5s", "100ms", "");
    s += &common::snoop("ap", "ap-m1", "1s");
    s += r#"
[[flows]]
from = "server"
to = "m1"
app = "bulk"
[[udp_flows]]
from = "server"
to = "m1"
app = "cbr"
rate = "2Mbps"
size = 1000
[[udp_flows]]
from = "m1"
to = "server"
app = "cbr"
rate = "500kbps"
size = 500
"#;
    let o = go(&s);
    assert!(o.summary["flows"][0]["goodput_bps"].as_f64().unwrap() > 1e6);
    assert!(udp(&o, 0, "received_datagrams") > 1000.0);
    assert!(udp(&o, 1, "received_datagrams") >= 620.0, "{}", udp(&o, 1, "received_datagrams"));
    assert_eq!(udp(&o, 1, "lost"), 0.0);
    assert!(udp(&o, 0, "delay_mean_s") > 0.001, "queueing behind TCP");
    assert_eq!(o.summary["run"]["unmatched_packets"], 0);
}

#[test]
fn udp_runs_are_deterministic() {
    let text = wire("3s", "[links.loss]\nmodel = \"uniform\"\np = 0.05", &CBR.replace("\"cbr\"", "\"onoff\"").replace("size = 1222", "size = 1222\non_time = \"20ms\"\noff_time = \"20ms\""));
    let a = go(&text);
    let b = go(&text);
    let strip = |o: &RunOutput| {
        let mut s = o.summary.clone();
        s["run"]["run_wall_s"] = serde_json::json!(0);
        s
    };
    assert_eq!(strip(&a), strip(&b));
    assert_eq!(a.udp_series, b.udp_series);
}

#[test]
fn bad_udp_keys_are_reported_with_their_place() {
    let bad = |flow: &str| parse(&wire("4s", "", flow)).unwrap_err();
    let base = "[[udp_flows]]\nfrom = \"snd\"\nto = \"rcv\"\n";
    let e = bad(&format!("{base}app = \"cbr\"\nrate = \"-1Mbps\""));
    assert!(e.contains("udp_flows[0].rate"), "{e}");
    let e = bad(&format!("{base}app = \"cbr\"\nrate = -5"));
    assert!(e.contains("udp_flows[0].rate") && e.contains("non-negative"), "{e}");
    let e = bad(&format!("{base}app = \"cbr\"\nrate = \"1Mbps\"\nsize = 0"));
    assert!(e.contains("udp_flows[0].size") && e.contains("outside"), "{e}");
    let e = bad(&format!("{base}app = \"cbr\"\nrate = \"1Mbps\"\nsize = 70000"));
    assert!(e.contains("udp_flows[0].size"), "{e}");
    let e = bad(&format!("{base}app = \"voip\""));
    assert!(e.contains("unknown UDP app \"voip\""), "{e}");
    let e = bad(&format!("{base}app = \"cbr\"\nrate = \"1Mbps\"\non_time = \"1s\""));
    assert!(e.contains("udp_flows[0].on_time") && e.contains("takes no on_time"), "{e}");
    let e = bad(&format!("{base}app = \"onoff\"\nrate = \"1Mbps\"\nperiods = \"pareto\"\npareto_shape = 1.0"));
    assert!(e.contains("udp_flows[0].pareto_shape") && e.contains("above 1"), "{e}");
    let e = bad(&format!("{base}app = \"onoff\"\nrate = \"1Mbps\"\noff_time = \"0s\""));
    assert!(e.contains("off_time must be positive"), "{e}");
    let e = bad(&format!("{base}app = \"saturated\""));
    assert!(e.contains("udp_flows[0].from") && e.contains("802.11 radio"), "{e}");
    let e = bad(&format!("{base}app = \"cbr\"\nrate = \"1Mbps\"\nstart = \"2s\"\nstop = \"1s\""));
    assert!(e.contains("udp_flows[0].stop") && e.contains("not after start"), "{e}");
    let e = bad(&format!("{base}app = \"trace\"\nfile = \"/nonexistent/t.txt\""));
    assert!(e.contains("udp_flows[0].file") && e.contains("cannot read"), "{e}");
    let e = bad(&format!("{base}app = \"cbr\"\nrate = \"1Mbps\"\nbogus = 1"));
    assert!(e.contains("bogus"), "{e}");
}

/// n saturated stations 2 m around an AP (the ns-3 anchor's layout), 1500 B
/// of UDP payload in 1528 B IP datagrams to the AP node itself.
fn saturation(n: usize, rate: u32, rts: bool, secs: u32) -> String {
    let mut s = format!("[sim]\nduration = \"{secs}s\"\nseries_interval = \"0s\"\n[[nodes]]\nname = \"ap\"\n");
    for i in 0..n {
        s += &format!("[[nodes]]\nname = \"sta{i}\"\n");
    }
    s += &format!(
        "[wifi]\nstandard = \"a\"\nrate = \"{rate}Mbps\"\npropagation = \"log-distance\"\nqueue_packets = 500\nrts_threshold = {}\n",
        if rts { 0 } else { 65535 }
    );
    s += "[[radios]]\nnode = \"ap\"\nmode = \"ap\"\nssid = \"sat\"\nx = 0.0\ny = 0.0\n";
    for i in 0..n {
        let a = 2.0 * std::f64::consts::PI * i as f64 / n as f64;
        s += &format!("[[radios]]\nnode = \"sta{i}\"\nmode = \"station\"\nap = \"ap\"\nx = {:.6}\ny = {:.6}\n", 2.0 * a.cos(), 2.0 * a.sin());
    }
    for i in 0..n {
        s += &format!("[[udp_flows]]\nfrom = \"sta{i}\"\nto = \"ap\"\napp = \"saturated\"\nsize = 1500\n");
    }
    s
}

fn check_bianchi(rate: Rate, rts: bool, secs: u32) {
    let mut rows = Vec::new();
    let mut worst: f64 = 0.0;
    // The row of the table in docs/udp.md.
    let mut table = format!("| {} Mb/s {} |", rate.mbps(), if rts { "RTS/CTS" } else { "basic" });
    for n in [1usize, 5, 20] {
        let o = go(&saturation(n, rate.mbps() as u32, rts, secs));
        let total: f64 = (0..n).map(|i| udp(&o, i, "throughput_bps")).sum::<f64>() / 1e6;
        let model = bianchi::throughput_mbps(Standard::A, rate, n, frame::data_mpdu_len(1528), 1500, rts, Variant::Paper);
        let err = (total - model) / model;
        worst = worst.max(err.abs());
        table += &format!(" {total:.3} / {model:.3} ({:+.2} %) |", 100.0 * err);
        rows.push(format!("n={n:2} UDP {total:7.3} Mb/s | Bianchi {model:7.3} ({:+.2} %)", 100.0 * err));
    }
    eprintln!("11a {} Mb/s rts={rts}\n  {}\n{table}", rate.mbps(), rows.join("\n  "));
    assert!(worst <= 0.05, "outside ±5 %:\n  {}", rows.join("\n  "));
}

#[test]
fn saturated_udp_54mbps_basic_matches_bianchi() {
    check_bianchi(Rate::OFDM54, false, 2);
}

#[test]
fn saturated_udp_54mbps_rts_matches_bianchi() {
    check_bianchi(Rate::OFDM54, true, 2);
}

#[test]
fn saturated_udp_6mbps_basic_matches_bianchi() {
    check_bianchi(Rate::OFDM6, false, 6);
}

#[test]
fn saturated_udp_6mbps_rts_matches_bianchi() {
    check_bianchi(Rate::OFDM6, true, 6);
}

#[test]
fn udp_follows_a_mobile_host_through_the_home_agents_tunnel() {
    // The Wi-TCP scenario's Mobile IP network (route optimisation on), its
    // TCP flow replaced by 200 kb/s of CBR from the fixed host to the mobile
    // host, which moves to fa1 at 11.5 s (away 1 s) and back home at 15.6 s.
    let base = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/wi-tcp-p2p.toml")).unwrap();
    let cut = base.find("[[flows]]").expect("the scenario's flow");
    let text = base[..cut].replace("duration = \"60s\"", "duration = \"15s\"")
        + "[[udp_flows]]\nfrom = \"fh\"\nto = \"mh\"\napp = \"cbr\"\nrate = \"200kbps\"\nsize = 500\nstart = \"1s\"\n";
    let o = go(&text);
    let agent = |kind: &str, key: &str| {
        let a = o.summary["agents"].as_array().unwrap().iter().find(|a| a["kind"] == kind).unwrap_or_else(|| panic!("{kind} in {}", o.summary["agents"]));
        a["counters"][key].as_u64().unwrap_or_else(|| panic!("{kind}.{key} in {a}"))
    };
    // Away from home the datagrams reach the mobile host through the tunnel
    // (and, once the correspondent has the binding, straight to fa1).
    let s = &o.udp_series[0];
    let idx = |t: f64| s.t_s.iter().position(|&x| x >= t).unwrap();
    let at = |t: f64| s.received[idx(t)];
    let home = idx(11.4);
    assert!(s.sent[home] - s.received[home] <= 2, "at home everything but what is in flight arrives: {} of {}", s.received[home], s.sent[home]);
    assert!(at(15.0) > at(13.0) + 80, "delivered away from home: {} -> {}", at(13.0), at(15.0));
    assert!(agent("home_agent", "tunnelled") > 0, "{}", o.summary["agents"]);
}
