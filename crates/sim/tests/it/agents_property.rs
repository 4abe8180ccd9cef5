//! Property: with Snoop on the access point and packet error generators
//! under it and/or on the mobile, plus reordering on the wireless hop, a
//! transfer in either direction delivers every application byte exactly
//! once and in order, and the connection closes within the run.

use crate::common;
use common::*;
use proptest::prelude::*;

/// PEG rates and `data_only`, or no PEG.
type PegArgs = Option<(f64, f64, bool)>;

fn peg_strategy() -> impl Strategy<Value = PegArgs> {
    // Dropping ACKs and control segments as well (`data_only = false`)
    // compounds over both PEGs and both directions; half the rates keep a
    // transfer within a few minutes of simulated time.
    prop::option::of((0.0f64..0.5, 0.0f64..0.5, any::<bool>()).prop_map(|(s, r, data_only)| {
        if data_only {
            (s, r, true)
        } else {
            (s / 2.0, r / 2.0, false)
        }
    }))
}

#[allow(clippy::too_many_arguments)]
fn scenario(download: bool, bytes: u64, reorder_p: f64, reorder_ms: u64, ap_peg: PegArgs, m1_peg: PegArgs, adaptive: bool) -> String {
    // The seed's TCP with a 4 s RTO ceiling (so 50 % loss still finishes),
    // retry limits high enough that loss alone never aborts a connection,
    // and RFC 9293's TIME_WAIT so a lost last ACK is answered (property.rs).
    let tcp = SEED_TCP.replace("max_rto = \"8s\"", "max_rto = \"4s\"").replace("msl = \"1s\"", "msl = \"30s\"")
        + "max_retries = 100\nsyn_retries = 100\n";
    let wireless = format!("[links.reorder]\np = {reorder_p}\ndelay = \"{reorder_ms}ms\"\n");
    let (from, to) = if download { ("server", "m1") } else { ("m1", "server") };
    // An upload gets no help from the base station's Snoop (it caches only
    // data towards the mobile): with both PEGs at 0.5 the sender alone would
    // face 75 % loss and take longer than the run. Halve its rates.
    let scale = |p: PegArgs| if download { p } else { p.map(|(s, r, d)| (s / 2.0, r / 2.0, d)) };
    let (ap_peg, m1_peg) = (scale(ap_peg), scale(m1_peg));
    let mut text = topology("600s", "100ms", &wireless) + &transfer("f", from, to, bytes, &tcp);
    text += &snoop("ap", "ap-m1", if adaptive { "adaptive" } else { "1s" });
    if let Some((s, r, d)) = ap_peg {
        text += &peg("ap", s, r, d, "ap-m1");
    }
    if let Some((s, r, d)) = m1_peg {
        text += &peg("m1", s, r, d, "");
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn snoop_with_pegs_and_reordering_delivers_every_byte_once_in_order(
        seed in 0u64..1_000_000,
        download in prop::bool::weighted(0.75),
        bytes in 1u64..150_000,
        reorder_p in 0.0f64..0.3,
        reorder_ms in 0u64..30,
        ap_peg in peg_strategy(),
        m1_peg in peg_strategy(),
        adaptive in any::<bool>(),
    ) {
        let text = scenario(download, bytes, reorder_p, reorder_ms, ap_peg, m1_peg, adaptive);
        let o = run_seed(&text, seed);
        let f = &o.summary["flows"][0];
        prop_assert_eq!(f["recv_order_errors"].as_u64(), Some(0), "{}", f);
        prop_assert_eq!(f["bytes_delivered"].as_u64(), Some(bytes), "{}", f);
        prop_assert!(f["response_time_s"].as_f64().is_some(), "{}", f);
        prop_assert_eq!(f["closed"].as_bool(), Some(true), "{}", f);
        prop_assert_eq!(f["client_state"].as_str(), Some("Closed"));
        prop_assert_eq!(f["server_state"].as_str(), Some("Closed"));
        // The sender's log covers every offset.
        let seg = &o.segments[0];
        let covered = seg.seq.iter().zip(&seg.len).map(|(&s, &l)| s + l as u64).max().unwrap_or(0);
        prop_assert_eq!(covered, bytes);
        prop_assert_eq!(o.summary["run"]["misrouted_packets"].as_u64(), Some(0));

        let agents = o.summary["agents"].as_array().unwrap();
        // Snoop: a download is cached and the cache is empty at the end; an
        // upload passes the base station untouched.
        let sn = &agents[0];
        let cached: Vec<u64> = sn["series"]["value"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
        prop_assert_eq!(cached.len(), 6001);
        prop_assert_eq!(*cached.last().unwrap(), 0, "{}", sn);
        // Sampled every 100 ms, the gauge may miss the peak, never exceed it.
        prop_assert!(cached.iter().all(|&c| c <= counter(&o, 0, "max_cached")), "{}", sn);
        if download {
            prop_assert!(counter(&o, 0, "connections") >= 1, "{}", sn);
        } else {
            prop_assert_eq!(counter(&o, 0, "connections"), 0, "{}", sn);
            prop_assert_eq!(sn["dropped_packets"].as_u64(), Some(0));
        }
        prop_assert_eq!(events_of(&o, "snoop_local_rexmit") as u64, counter(&o, 0, "local_retransmissions"));
        // Each PEG's drops are its counters' drops.
        for (i, a) in agents.iter().enumerate().skip(1) {
            prop_assert_eq!(a["kind"].as_str(), Some("peg"));
            prop_assert_eq!(
                a["dropped_packets"].as_u64(),
                Some(counter(&o, i, "send_dropped") + counter(&o, i, "recv_dropped")),
                "{}", a
            );
        }
    }
}
