//! Property: under random loss (both directions), reordering and an outage,
//! a transfer's receiving application reads every byte exactly once and in
//! order, and the connection finishes (FIN exchanged, both ends CLOSED).
//! The Linux defaults F-RTO, Eifel/D-SACK undo and D-SACK generation are on
//! or off at random (with SACK on, reordering and duplicates then exercise
//! the D-SACK paths; the outage exercises F-RTO), and so are RACK and the
//! tail loss probe (random loss hits the tail of short transfers and of
//! every flight before an outage; reordering exercises the reordering
//! window, its D-SACK growth and the reordering timer). ECN is negotiated
//! or not at random, and the bottleneck marks CE at random: DCTCP-style
//! above a random threshold or by RED with ECN, so CE marks, ECE echoes and
//! CWR reductions mix with losses, retransmissions and recoveries. Nagle
//! (`nodelay`), the idle restart and a small locked send buffer (8.5 to 20
//! segments; fewer under 10 % loss can outlast the run in backed-off RTOs)
//! are random too: a transfer writes what fits, so a buffer that is not a
//! multiple of the MSS leaves sub-MSS tails for Nagle to hold, and the
//! outage leaves the sender idle.

use airtcp_sim::{run, RunOptions, Scenario};
use proptest::prelude::*;

#[allow(clippy::too_many_arguments)]
fn scenario(
    bytes: u64,
    p_ab: f64,
    p_ba: f64,
    reorder_p: f64,
    reorder_ms: u64,
    outage: (u64, u64),
    sack: bool,
    recovery: &str,
    undo: bool,
    ecn: bool,
    marking: &str,
    rack: bool,
    tlp: bool,
    nagle: bool,
    snd_buf: Option<u32>,
) -> String {
    let snd_buf = snd_buf.map(|b| format!("snd_buf = {b}")).unwrap_or_default();
    format!(
        r#"
[sim]
duration = "900s"
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
delay = "10ms"
queue_packets = 50
[[links]]
a = "rtr"
b = "rcv"
rate = "2Mbps"
delay = "1ms"
queue_packets = 50
{marking}
[links.loss_ab]
model = "uniform"
p = {p_ab}
outages = [["{o1}ms", "{o2}ms"]]
[links.loss_ba]
model = "uniform"
p = {p_ba}
outages = [["{o1}ms", "{o2}ms"]]
[links.reorder]
p = {reorder_p}
delay = "{reorder_ms}ms"
[[flows]]
from = "snd"
to = "rcv"
app = "transfer"
bytes = {bytes}
[flows.tcp]
mss = 1000
initial_cwnd = 2
sack = {sack}
recovery = "{recovery}"
frto = {undo}
undo = {undo}
eifel = {undo}
dsack = {undo}
ecn = {ecn_mode}
rack = {rack}
tlp = {tlp}
nodelay = {nodelay}
slow_start_after_idle = {nagle}
{snd_buf}
# RFC 9293's TIME_WAIT (2 x 60 s) outlasts the peer's FIN retransmissions; the
# 1 s default MSL does not when the last ACK is lost in an outage.
msl = "60s"
"#,
        o1 = outage.0,
        o2 = outage.0 + outage.1 + 1,
        ecn_mode = if ecn { 1 } else { 2 },
        nodelay = !nagle,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn every_byte_arrives_once_in_order_and_the_connection_closes(
        seed in 0u64..1_000_000,
        bytes in 1u64..300_000,
        p_ab in 0.0f64..0.1,
        p_ba in 0.0f64..0.1,
        reorder_p in 0.0f64..0.3,
        reorder_ms in 0u64..30,
        outage in (0u64..4_000, 0u64..3_000),
        sack in any::<bool>(),
        recovery in prop_oneof![Just("reno"), Just("newreno"), Just("prr"), Just("tahoe")],
        undo in any::<bool>(),
        (ecn, rack, tlp, nagle) in (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        (marking_kind, mark_k, snd_buf) in (0u8..3, 1u32..20, prop::option::of(8_500u32..20_000)),
    ) {
        let marking = match marking_kind {
            0 => String::new(),
            1 => format!("ecn_threshold = {mark_k}"),
            _ => format!("[links.red_ab]\nmin_th = {}\nmax_th = {}\nmax_p = 0.2\nw_q = 0.02\necn = true", mark_k / 4, mark_k),
        };
        let text = scenario(bytes, p_ab, p_ba, reorder_p, reorder_ms, outage, sack, recovery, undo, ecn, &marking, rack, tlp, nagle, snd_buf);
        let s = Scenario::from_toml_str(&text, "prop.toml", &[]).unwrap();
        let o = run(&s, RunOptions { seed: Some(seed), ..Default::default() }).unwrap();
        let f = &o.summary["flows"][0];
        prop_assert_eq!(f["recv_order_errors"].as_u64(), Some(0), "{}", f);
        prop_assert_eq!(f["bytes_delivered"].as_u64(), Some(bytes), "{}", f);
        prop_assert!(f["response_time_s"].as_f64().is_some(), "{}", f);
        prop_assert_eq!(f["closed"].as_bool(), Some(true), "{}", f);
        prop_assert_eq!(f["client_state"].as_str(), Some("Closed"));
        prop_assert_eq!(f["server_state"].as_str(), Some("Closed"));
        // The receiver's reads were contiguous: the log covers every offset once.
        let seg = &o.segments[0];
        let covered = seg.seq.iter().zip(&seg.len).map(|(&s, &l)| s + l as u64).max().unwrap_or(0);
        prop_assert_eq!(covered, bytes);
        // D-SACK accounting: the sender accepts no more than were sent, and
        // nothing is undone or D-SACKed with the switches off.
        let n = |v: &serde_json::Value| v.as_u64().unwrap();
        prop_assert!(n(&f["dsacks_received"]) <= n(&f["receiver"]["dsacks_sent"]), "{}", f);
        if !undo || !sack {
            prop_assert_eq!(n(&f["receiver"]["dsacks_sent"]), 0);
        }
        if !nagle {
            prop_assert_eq!(n(&f["sender"]["nagle_deferrals"]), 0);
            prop_assert_eq!(n(&f["sender"]["cwnd_restarts"]), 0);
        }
        if !undo {
            prop_assert_eq!(n(&f["loss_undos"]) + n(&f["recovery_undos"]) + n(&f["dsack_undos"]), 0, "{}", f);
            prop_assert_eq!(n(&f["spurious_rtos_detected"]), 0);
        }
        // ECN accounting: marks only on ECT traffic of a negotiated flow,
        // never more CE arrivals than marks, never more CWR entries than
        // echoes.
        let q = &o.summary["links"][1]["ab"];
        // (A lost SYN falls back to no ECN: the retransmission drops ECE/CWR.)
        let negotiated = f["ecn"].as_bool().unwrap();
        prop_assert!(ecn || !negotiated);
        if !negotiated {
            prop_assert_eq!(n(&q["ecn_marks"]) + n(&f["receiver"]["ecn_ce_received"]) + n(&f["cwr_reductions"]), 0, "{}", f);
        }
        prop_assert!(n(&f["receiver"]["ecn_ce_received"]) <= n(&q["ecn_marks"]), "{} {}", f, q);
        prop_assert!(n(&f["cwr_reductions"]) <= n(&f["ecn_ece_received"]), "{}", f);
        // TLP and the reordering timer act only when switched on (and SACK
        // was negotiated); a probe repairs at most one loss.
        prop_assert!(n(&f["tlp_recoveries"]) <= n(&f["tlp_probes_sent"]), "{}", f);
        if !tlp || !sack {
            prop_assert_eq!(n(&f["tlp_probes_sent"]), 0, "{}", f);
        }
        if !rack || !sack {
            prop_assert_eq!(n(&f["rack_reo_timeouts"]), 0, "{}", f);
        }
    }
}
