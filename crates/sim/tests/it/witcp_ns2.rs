//! Wi-TCP and the explicit handover notification on ns-2's one-way agents
//! (`profile = "ns2-*"`, `airtcp_tcp::ns2` handover hooks) in seed 001's
//! scenario on the plain point-to-point cells: the agents' EHO/EHC-ACKs and
//! the mobile's notification reach the ns-2 sender through the simulator,
//! and the freeze, the resume and the reset show in the run's events.

use airtcp_sim::{run, LogEvent, RunOptions, RunOutput, Scenario};

use crate::common;
use common::wi_tcp::NO_WITCP;

const P2P: &str = include_str!("../../../../scenarios/wi-tcp-p2p.toml");

/// The scenario with its flow on ns-2's NewReno agent, as the seed ran it
/// ("The packet size is set to 1040 bytes (including TCP + IP header)"
/// and "a maximum window size of 20").
fn on_ns2(witcp: bool, ehn: bool) -> String {
    let head = P2P.split("[flows.tcp]").next().unwrap();
    format!("{head}[flows.tcp]\nprofile = \"ns2-newreno\"\npacket_size = 1000\nwindow = 20\nwitcp = {witcp}\nehn = {ehn}\n")
}

fn run_on(text: &str, sets: &[(&str, &str)]) -> RunOutput {
    let sets: Vec<(String, String)> = sets.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    let s = Scenario::from_toml_str(text, "wi-tcp-ns2.toml", &sets).unwrap_or_else(|e| panic!("{e}"));
    run(&s, RunOptions { seed: Some(1), ..Default::default() }).unwrap()
}

fn times<'a>(o: &'a RunOutput, kind: &str) -> Vec<&'a LogEvent> {
    o.events.iter().filter(|e| e.kind == kind).collect()
}

fn flow(o: &RunOutput, key: &str) -> f64 {
    o.summary["flows"][0][key].as_f64().unwrap_or_else(|| panic!("no flow key {key}"))
}

fn field<'a>(e: &'a LogEvent, key: &str) -> &'a str {
    let pre = format!("{key}=");
    e.detail.split(' ').find_map(|w| w.strip_prefix(pre.as_str())).unwrap_or_else(|| panic!("{key} in {}", e.detail))
}

#[test]
fn ns2_witcp_sender_freezes_on_eho_and_resumes_on_ehc_without_a_timeout() {
    let ro = run_on(&on_ns2(false, false), NO_WITCP);
    let w = run_on(&on_ns2(true, false), &[]);
    let (frz, res) = (times(&w, "witcp_freeze"), times(&w, "witcp_resume"));
    assert_eq!((times(&w, "witcp_eho").len(), frz.len(), res.len()), (4, 4, 4));
    assert_eq!(flow(&w, "timeouts"), 0.0, "nothing times out while frozen");
    for (f, r) in frz.iter().zip(&res) {
        assert_eq!((field(f, "cwnd"), field(f, "ssthresh")), (field(r, "cwnd"), field(r, "ssthresh")), "the stored window comes back");
    }
    assert_eq!(w.summary["flows"][0]["witcp"]["resumes"], 4);
    assert!(flow(&ro, "timeouts") >= 4.0, "the ns-2 baseline times out at each handoff: {}", flow(&ro, "timeouts"));
    assert!(flow(&w, "goodput_bps") > flow(&ro, "goodput_bps"));
    assert_eq!(w.summary["scenario"]["flows"][0]["tcp"]["witcp"], true);
}

#[test]
fn ns2_ehn_sender_clears_its_backoff_on_each_notification() {
    let e = run_on(&on_ns2(false, true), &[NO_WITCP, &[("agents.4.ehn", "true")]].concat());
    let obeyed = times(&e, "handover_notified");
    assert_eq!(obeyed.len(), 4);
    assert_eq!(e.summary["flows"][0]["ehn"]["notifications"], 4);
    for n in &obeyed {
        assert!(field(n, "lost").parse::<u32>().unwrap() > 0, "the window in flight is sent again");
        // The next timeout, if any, backs off from 1 again (ns-2 reports the
        // multiplier after doubling).
        if let Some(x) = e.events.iter().find(|x| x.kind == "timeout" && x.t_s > n.t_s) {
            assert_eq!(field(x, "backoff"), "2", "{} after the notification at {}", x.detail, n.t_s);
        }
    }
}
