//! Seed 001's study on the plain point-to-point wireless hop
//! (`scenarios/wi-tcp-p2p.toml`, `[wifi] medium = "p2p"`): the same Mobile
//! IP agents as over 802.11, driven by the cells' link events; Wi-TCP's
//! freeze and resume as endpoint events (the seed's eqs. 1-4 measured);
//! and the explicit handover notification of the seed's [8] on both media.
//!
//! `cargo test --release -p airtcp-sim --test it mobileip_p2p:: -- --nocapture`
//! prints the measured figures.

use airtcp_sim::{run, LogEvent, RunOptions, RunOutput, Scenario};

use crate::common;
use common::wi_tcp::{NO_RO, NO_WITCP};

const P2P: &str = include_str!("../../../../scenarios/wi-tcp-p2p.toml");
const WLAN: &str = include_str!("../../../../scenarios/wi-tcp-wlan.toml");

const EHN: &[(&str, &str)] = &[("agents.4.ehn", "true"), ("flows.0.tcp.ehn", "true")];

fn run_on(text: &str, sets: &[(&str, &str)]) -> RunOutput {
    let sets: Vec<(String, String)> = sets.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    let s = Scenario::from_toml_str(text, "wi-tcp.toml", &sets).unwrap_or_else(|e| panic!("{e}"));
    run(&s, RunOptions { seed: Some(1), ..Default::default() }).unwrap()
}

fn counter(o: &RunOutput, agent: usize, name: &str) -> u64 {
    o.summary["agents"][agent]["counters"][name].as_u64().unwrap_or_else(|| panic!("no counter {name}"))
}

fn flow(o: &RunOutput, key: &str) -> f64 {
    o.summary["flows"][0][key].as_f64().unwrap_or_else(|| panic!("no flow key {key}"))
}

fn times<'a>(o: &'a RunOutput, kind: &str) -> Vec<&'a LogEvent> {
    o.events.iter().filter(|e| e.kind == kind).collect()
}

/// A `key=value` field of an event's detail.
fn field(e: &LogEvent, key: &str) -> String {
    let pre = format!("{key}=");
    e.detail.split(' ').find_map(|w| w.strip_prefix(pre.as_str())).unwrap_or_else(|| panic!("{key} in {}", e.detail)).to_string()
}

#[test]
fn p2p_cells_carry_mobile_ip_across_the_handoff_timeline() {
    let o = run_on(P2P, &[NO_RO, NO_WITCP].concat());
    // The timeline: out of a cell at 11.5, 15.6, 30 and 42.5 s, in the next 1 s later.
    let lost: Vec<f64> = times(&o, "wifi_link_lost").iter().map(|e| e.t_s).collect();
    let assoc: Vec<f64> = times(&o, "wifi_associated").iter().map(|e| e.t_s).collect();
    assert_eq!(lost, [11.5, 15.6, 30.0, 42.5]);
    assert_eq!(assoc, [0.0, 12.5, 16.6, 31.0, 43.5]);
    assert_eq!(counter(&o, 4, "registrations_accepted"), 4);
    assert_eq!(counter(&o, 1, "deregistrations"), 1);
    let tunnelled = counter(&o, 1, "tunnelled");
    let delivered = counter(&o, 2, "delivered") + counter(&o, 3, "delivered");
    assert!(tunnelled > 3000 && delivered + 100 > tunnelled, "tunnelled {tunnelled}, delivered by the foreign agents {delivered}");
    // Lossless cells: every loss is a handoff's, and the sender pays in RTOs.
    let radios = &o.summary["radios"];
    assert!(radios[0]["counters"]["retry_drops"].as_u64().unwrap() >= 1, "the home base station failed frames to the gone host");
    assert!(radios[1]["counters"]["retry_drops"].as_u64().unwrap() >= 1, "and fa1's");
    // The mobile's ACKs that were on the air as it left fail too (the
    // seed's "acknowledgements dropped at MH"), a few per handoff.
    let mh = radios[3]["counters"]["retry_drops"].as_u64().unwrap();
    assert!((1..=8).contains(&mh), "the mobile's failed frames: {mh}");
    assert!(flow(&o, "timeouts") >= 4.0, "an RTO or more per handoff: {}", flow(&o, "timeouts"));
    assert_eq!(o.summary["flows"][0]["recv_order_errors"], 0);
    println!("p2p MIP: goodput {:.0} b/s, {} RTOs, {tunnelled} tunnelled", flow(&o, "goodput_bps"), flow(&o, "timeouts"));
}

#[test]
fn witcp_freeze_and_resume_events_give_the_delay_analysis_on_p2p() {
    let ro = run_on(P2P, NO_WITCP);
    let w = run_on(P2P, &[]);
    let (eho, ehc) = (times(&w, "witcp_eho"), times(&w, "witcp_ehc"));
    let (frz, res) = (times(&w, "witcp_freeze"), times(&w, "witcp_resume"));
    assert_eq!((eho.len(), ehc.len(), frz.len(), res.len()), (4, 4, 4, 4));
    assert_eq!(flow(&w, "timeouts"), 0.0);
    let lost = times(&w, "wifi_link_lost");
    let mut ideal = 0.0;
    for k in 0..4 {
        // Eq. 1's alpha: the agent's frame on the air fails its 7 attempts
        // of 4.16 ms (the first began before the host left); then the
        // EHO-ACK's trip to the sender (RTT/2 - rtt, ~20 ms).
        let alpha = eho[k].t_s - lost[k].t_s;
        assert!(alpha > 0.02 && alpha < 0.04, "handoff {k}: EHO-ACK {alpha:.4} s after the cell was left");
        let t_eho = frz[k].t_s - eho[k].t_s;
        assert!(t_eho > 0.01 && t_eho < 0.03, "handoff {k}: EHO-ACK trip {t_eho:.4} s");
        let t_ehc = res[k].t_s - ehc[k].t_s;
        assert!(t_ehc > 0.01 && t_ehc < 0.03, "handoff {k}: EHC-ACK trip {t_ehc:.4} s");
        // The stored values come back unchanged.
        assert_eq!((field(frz[k], "cwnd"), field(frz[k], "ssthresh")), (field(res[k], "cwnd"), field(res[k], "ssthresh")));
        let frozen: f64 = field(res[k], "frozen_s").parse().unwrap();
        assert!((frozen - (res[k].t_s - frz[k].t_s)).abs() < 1e-6, "eq. 4 from the two events");
        ideal += frozen;
    }
    let total = w.summary["flows"][0]["witcp"]["frozen_s"].as_f64().unwrap();
    assert!((total - ideal).abs() < 1e-6, "frozen_s {total} = sum of T_IDEAL {ideal}");
    let (g_ro, g_w) = (flow(&ro, "goodput_bps"), flow(&w, "goodput_bps"));
    assert!(g_w > g_ro, "Wi-TCP {g_w:.0} vs route-optimised {g_ro:.0} b/s");
    println!("p2p: route-optimised {g_ro:.0} b/s ({} RTOs), Wi-TCP {g_w:.0} b/s; T_IDEAL total {ideal:.3} s", flow(&ro, "timeouts"));
}

#[test]
fn explicit_handover_notification_resets_the_sender_after_each_handoff() {
    for (name, text) in [("p2p", P2P), ("802.11", WLAN)] {
        let ro = run_on(text, NO_WITCP);
        let e = run_on(text, &[NO_WITCP, EHN].concat());
        let (sent, obeyed) = (times(&e, "ehn_sent"), times(&e, "handover_notified"));
        assert_eq!((sent.len(), obeyed.len()), (4, 4), "{name}: a notification per handoff");
        assert_eq!(counter(&e, 4, "ehn_sent"), 4);
        assert_eq!(e.summary["flows"][0]["ehn"]["notifications"], 4);
        let assoc: Vec<&LogEvent> = times(&e, "wifi_associated").into_iter().skip(1).collect();
        for k in 0..4 {
            // Sent when the new agent's advertisement is heard (1 s
            // interval), obeyed one trip later.
            let wait = sent[k].t_s - assoc[k].t_s;
            assert!(wait > 0.0 && wait <= 1.0, "{name} handoff {k}: notification {wait:.3} s after association");
            let trip = obeyed[k].t_s - sent[k].t_s;
            assert!(trip > 0.01 && trip < 0.03, "{name} handoff {k}: trip {trip:.4} s");
            assert!(field(obeyed[k], "lost").parse::<u32>().unwrap() > 0, "the window in flight was lost");
        }
        // No sender wait for a backed-off timer after the notification: the
        // next timeout (if any) is a fresh one. (While away the timer may
        // back off: the `linux` profile's RTO, SRTT + 200 ms, fires more than
        // once in a second out of reach.)
        for n in &obeyed {
            if let Some(x) = e.events.iter().find(|x| x.kind == "timeout" && x.t_s > n.t_s) {
                assert!(x.detail.contains("backoff=1"), "{name}: {} after the notification at {}", x.detail, n.t_s);
            }
        }
        println!("{name}: route-optimised {:.0} b/s, {} RTOs; with EHN {:.0} b/s, {} RTOs", flow(&ro, "goodput_bps"), flow(&ro, "timeouts"), flow(&e, "goodput_bps"), flow(&e, "timeouts"));
    }
}

#[test]
fn p2p_runs_are_deterministic_and_load_back() {
    let a = run_on(P2P, &[]);
    let b = run_on(P2P, &[]);
    assert_eq!(a.summary["flows"], b.summary["flows"]);
    assert_eq!(a.events, b.events);
    let text = serde_json::to_string(&a.summary["scenario"]).unwrap();
    let again = Scenario::from_json_str(&text, "resolved.json", &[]).unwrap_or_else(|e| panic!("{e}"));
    let c = run(&again, RunOptions { seed: Some(1), ..Default::default() }).unwrap();
    assert_eq!(a.summary["flows"], c.summary["flows"]);
}

#[test]
fn bad_p2p_keys_are_one_line_errors() {
    let cases: &[(&str, &str, &str)] = &[
        ("\nmedium = \"p2p\"", "\nmedium = \"p2q\"", "wifi.medium: unknown medium \"p2q\" (known: 802.11, p2p)"),
        ("[30, \"fa1\", \"1s\"]", "[30, \"best\", \"1s\"]", "the p2p medium has no scan: a handoff names its AP"),
        ("ap = \"ha\"\nroam_at", "ssid = \"mip\"\nroam_at", "a station of the p2p medium needs `ap`"),
        ("p2p_delay = \"1us\"", "p2p_delay = \"-1us\"", "wifi.p2p_delay:"),
        ("[15.6, \"ha\", \"1s\"]", "[15.6, \"ha\", \"1s\"], [12, \"fa2\"]", "scripted handoffs must be in increasing time order"),
        ("[11.5, \"fa1\", \"1s\"]", "[11.5, \"fa1\", \"4.2s\"]", "roam_at[1][0]: handoff at 15600ms begins before the previous one ends (11500ms + 4200ms away)"),
    ];
    for (from, to, want) in cases {
        assert!(P2P.contains(from), "{from}");
        let text = P2P.replacen(from, to, 1);
        let e = Scenario::from_toml_str(&text, "p2p.toml", &[]).map(|_| ()).expect_err(to).to_string();
        assert!(e.starts_with("p2p.toml:") && e.contains(want), "{to}: got {e}, want {want}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    let e = Scenario::from_toml_str(&WLAN.replacen("rate = \"2Mbps\"", "rate = \"2Mbps\"\np2p_delay = \"1ms\"", 1), "w.toml", &[]).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("p2p_delay needs medium = \"p2p\""), "{e}");
}
