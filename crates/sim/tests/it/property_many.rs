//! The delivery property over 10,000 random scenarios (issue 13): random
//! loss both ways, reordering, an outage, a slow reader that closes the
//! window (zero windows and window probes), tiny send and receive buffers,
//! every recovery flavour, SACK on or off. Whatever happens, the receiving
//! application reads every byte exactly once and in order, nothing panics,
//! and the connection closes within the run: no endpoint stalls forever.
//! Small transfers keep each case to a few milliseconds.

use airtcp_sim::{run, RunOptions, Scenario};
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Case {
    bytes: u64,
    p_ab: f64,
    p_ba: f64,
    reorder_p: f64,
    reorder_ms: u64,
    outage: (u64, u64),
    sack: bool,
    recovery: &'static str,
    mss: u32,
    rcv_buf: u32,
    snd_buf: u32,
    /// Reader rate in bit/s, 0 = reads everything at once.
    read_bps: u64,
}

fn text(c: &Case) -> String {
    let recv = if c.read_bps == 0 { "recv_rate = \"unlimited\"".to_string() } else { format!("recv_rate = \"{}bps\"", c.read_bps) };
    format!(
        r#"
[sim]
duration = "3000s"
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
queue_packets = 20
[[links]]
a = "rtr"
b = "rcv"
rate = "2Mbps"
delay = "1ms"
queue_packets = 10
[links.loss_ab]
model = "uniform"
p = {p_ab}
outages = [["{o1}ms", "{o2}ms"]]
[links.loss_ba]
model = "uniform"
p = {p_ba}
outages = [["{o1}ms", "{o2}ms"]]
[links.reorder]
p = {rp}
delay = "{rms}ms"
[[flows]]
from = "snd"
to = "rcv"
app = "transfer"
bytes = {bytes}
{recv}
[flows.tcp]
mss = {mss}
rcv_buf = {rcv_buf}
snd_buf = {snd_buf}
sack = {sack}
recovery = "{recovery}"
max_rto = "8s"
max_retries = 40
msl = "60s"
"#,
        p_ab = c.p_ab,
        p_ba = c.p_ba,
        o1 = c.outage.0,
        o2 = c.outage.0 + c.outage.1 + 1,
        rp = c.reorder_p,
        rms = c.reorder_ms,
        bytes = c.bytes,
        mss = c.mss,
        rcv_buf = c.rcv_buf,
        snd_buf = c.snd_buf,
        sack = c.sack,
        recovery = c.recovery,
    )
}

fn case() -> impl Strategy<Value = Case> {
    (
        (1u64..40_000, 0.0f64..0.15, 0.0f64..0.15, 0.0f64..0.3, 0u64..20),
        ((0u64..3_000, 0u64..3_000), any::<bool>(), prop_oneof![Just("reno"), Just("newreno"), Just("prr"), Just("tahoe")]),
        (prop_oneof![Just(536u32), Just(1000), Just(1460)], 1u32..8, 1u32..8, prop_oneof![Just(0u64), 64_000u64..2_000_000]),
    )
        .prop_map(|((bytes, p_ab, p_ba, reorder_p, reorder_ms), (outage, sack, recovery), (mss, rcv_segs, snd_segs, read_bps))| Case {
            bytes,
            p_ab,
            p_ba,
            reorder_p,
            reorder_ms,
            outage,
            sack,
            recovery,
            mss,
            // Buffers of 1..8 segments: the tiny end keeps the window at one
            // segment and, with a slow reader, at zero for long stretches.
            rcv_buf: rcv_segs * mss,
            snd_buf: snd_segs * mss,
            read_bps,
        })
}

proptest! {
    // A fixed RNG seed keeps CI deterministic (the same 10,000 cases every
    // run); set PROPTEST_RNG_SEED to explore others. The 3000-s budget
    // covers the slowest corner (one-segment buffers, a 64 kb/s reader and
    // 15 % loss both ways took 1156 s plus 120 s of TIME_WAIT: the run had
    // to end closed, not cut off at 1200 s).
    #![proptest_config(ProptestConfig {
        cases: 10_000,
        failure_persistence: None,
        rng_seed: match std::env::var("PROPTEST_RNG_SEED") {
            Ok(_) => ProptestConfig::default().rng_seed,
            Err(_) => proptest::test_runner::RngSeed::Fixed(20_261_126),
        },
        ..ProptestConfig::default()
    })]

    #[test]
    fn ten_thousand_scenarios_deliver_every_byte_once_in_order_and_close(seed in 0u64..1_000_000, c in case()) {
        let s = Scenario::from_toml_str(&text(&c), "many.toml", &[]).unwrap();
        let o = run(&s, RunOptions { seed: Some(seed), ..Default::default() }).unwrap();
        let f = &o.summary["flows"][0];
        prop_assert_eq!(f["recv_order_errors"].as_u64(), Some(0), "{:?} {}", c, f);
        prop_assert_eq!(f["bytes_delivered"].as_u64(), Some(c.bytes), "{:?} {}", c, f);
        prop_assert_eq!(f["closed"].as_bool(), Some(true), "{:?} {}", c, f);
    }
}

/// The case a random run of the property found on 2026-11-26: every byte
/// arrived, but with one-segment buffers, a 64 kb/s reader and ~10-15 %
/// loss each way the transfer took 1156 s and the client was still in
/// TIME_WAIT (2 MSL = 120 s) when the old 1200-s budget ran out.
#[test]
fn slowest_corner_found_by_the_property_closes_within_the_budget() {
    let c = Case {
        bytes: 38914,
        p_ab: 0.09527814740583125,
        p_ba: 0.14768101289644542,
        reorder_p: 0.0,
        reorder_ms: 0,
        outage: (0, 0),
        sack: false,
        recovery: "reno",
        mss: 536,
        rcv_buf: 536,
        snd_buf: 536,
        read_bps: 64000,
    };
    let s = Scenario::from_toml_str(&text(&c), "many.toml", &[]).unwrap();
    let o = run(&s, RunOptions { seed: Some(829768), ..Default::default() }).unwrap();
    let f = &o.summary["flows"][0];
    assert_eq!(f["bytes_delivered"].as_u64(), Some(c.bytes), "{f}");
    assert_eq!(f["recv_order_errors"].as_u64(), Some(0), "{f}");
    assert_eq!(f["closed"].as_bool(), Some(true), "{f}");
}
