//! docs/tcp-profiles.md, generated from the profile data: a table of every
//! field (rows) for every profile (columns), then each profile's sources
//! and gaps. The test `docs_table_is_current` fails when the file is stale
//! and rewrites it with `AIRTCP_BLESS=1`.

use std::fmt::Write;

use super::{Profile, ALL};
use crate::config::TcpConfig;

fn dur(d: airtcp_core::Duration) -> String {
    let ns = d.0;
    if ns == 0 {
        "0".into()
    } else if ns % 1_000_000_000 == 0 {
        format!("{} s", ns / 1_000_000_000)
    } else if ns % 1_000_000 == 0 {
        format!("{} ms", ns / 1_000_000)
    } else {
        format!("{} µs", ns / 1000)
    }
}

fn opt(d: Option<airtcp_core::Duration>, none: &str) -> String {
    d.map_or(none.to_string(), dur)
}

/// Every field of `c` as (scenario key, value). The destructuring lists
/// every field, so a new one does not compile until it has a row.
pub fn rows(c: &TcpConfig) -> Vec<(&'static str, String)> {
    let TcpConfig {
        profile: _,
        mss,
        initial_cwnd,
        initial_ssthresh,
        rcv_buf,
        snd_buf,
        rcv_buf_autotune,
        tcp_rmem,
        snd_buf_autotune,
        tcp_wmem,
        nodelay,
        window_update_ack,
        push_ack,
        push_segs,
        push_tso,
        slow_start_after_idle,
        sack,
        timestamps,
        rtt_samples,
        window_scaling,
        delack_count,
        delack_timeout,
        comp_sack_nr,
        comp_sack_delay,
        comp_sack_slack,
        initial_quickacks,
        idle_quickack,
        delack_adaptive,
        timer_wheel,
        initial_rto,
        syn_rto,
        min_rto,
        max_rto,
        clock_granularity,
        rto_tick,
        recovery,
        dupack_threshold,
        limited_transmit,
        rack,
        tlp,
        frto,
        frto_nonsack_guard,
        dsack,
        undo,
        eifel,
        ecn,
        reno_sacks,
        loss_exit_growth,
        rto_ssthresh,
        partial_ack_rto,
        rto_timer,
        cc,
        hz,
        persist_min,
        persist_max,
        shrink_policy,
        max_retries,
        syn_retries,
        ts_granularity,
        msl,
        witcp,
        witcp_max_freeze,
        ehn,
        freeze,
    } = c;
    let ssthresh = if *initial_ssthresh == crate::cc::TCP_INFINITE_SSTHRESH { "infinite".into() } else { initial_ssthresh.to_string() };
    let shrink = match shrink_policy {
        crate::config::ShrinkPolicy::Linux => "linux",
        crate::config::ShrinkPolicy::Rfc => "rfc",
    };
    vec![
        ("cc", cc.name().to_string()),
        ("recovery", recovery.name().into()),
        ("initial_cwnd", initial_cwnd.to_string()),
        ("initial_ssthresh", ssthresh),
        ("mss", mss.to_string()),
        ("sack", sack.to_string()),
        ("timestamps", timestamps.to_string()),
        ("rtt_samples", rtt_samples.name().into()),
        ("window_scaling", window_scaling.to_string()),
        ("rto_timer", rto_timer.name().into()),
        ("initial_rto", dur(*initial_rto)),
        ("min_rto", dur(*min_rto)),
        ("max_rto", dur(*max_rto)),
        ("clock_granularity", dur(*clock_granularity)),
        ("rto_tick", opt(*rto_tick, "none")),
        ("syn_rto", opt(*syn_rto, "= initial_rto")),
        ("delack_count", delack_count.to_string()),
        ("delack_timeout", dur(*delack_timeout)),
        ("comp_sack_nr", comp_sack_nr.to_string()),
        ("comp_sack_delay", dur(*comp_sack_delay)),
        ("comp_sack_slack", dur(*comp_sack_slack)),
        ("initial_quickacks", initial_quickacks.to_string()),
        ("idle_quickack", idle_quickack.to_string()),
        ("delack_adaptive", delack_adaptive.to_string()),
        ("timer_wheel", timer_wheel.to_string()),
        ("dupack_threshold", dupack_threshold.to_string()),
        ("limited_transmit", limited_transmit.to_string()),
        ("frto", frto.to_string()),
        ("frto_nonsack_guard", frto_nonsack_guard.to_string()),
        ("undo", undo.to_string()),
        ("eifel", eifel.to_string()),
        ("dsack", dsack.to_string()),
        ("tlp", tlp.to_string()),
        ("rack", rack.to_string()),
        ("ecn", ecn.sysctl().to_string()),
        ("reno_sacks", reno_sacks.name().into()),
        ("loss_exit_growth", loss_exit_growth.name().into()),
        ("rto_ssthresh", rto_ssthresh.name().into()),
        ("partial_ack_rto", partial_ack_rto.name().into()),
        ("rcv_buf_autotune", rcv_buf_autotune.to_string()),
        ("tcp_rmem", format!("{} {} {}", tcp_rmem[0], tcp_rmem[1], tcp_rmem[2])),
        ("rcv_buf", rcv_buf.to_string()),
        ("snd_buf_autotune", snd_buf_autotune.to_string()),
        ("tcp_wmem", format!("{} {} {}", tcp_wmem[0], tcp_wmem[1], tcp_wmem[2])),
        ("snd_buf", snd_buf.to_string()),
        ("nodelay", nodelay.to_string()),
        ("window_update_ack", window_update_ack.to_string()),
        ("push_ack", push_ack.name().into()),
        ("push_segs", push_segs.to_string()),
        ("push_tso", push_tso.to_string()),
        ("slow_start_after_idle", slow_start_after_idle.to_string()),
        ("hz", hz.to_string()),
        ("ts_granularity", dur(*ts_granularity)),
        ("persist_min", dur(*persist_min)),
        ("persist_max", dur(*persist_max)),
        ("shrink_policy", shrink.into()),
        ("max_retries", max_retries.to_string()),
        ("syn_retries", syn_retries.to_string()),
        ("msl", dur(*msl)),
        ("witcp", witcp.to_string()),
        ("witcp_max_freeze", opt(*witcp_max_freeze, "none")),
        ("ehn", ehn.to_string()),
        ("freeze", freeze.to_string()),
    ]
}

/// The Markdown document.
pub fn markdown() -> String {
    let configs: Vec<(&Profile, TcpConfig)> = ALL.iter().map(|p| (p, (p.config)())).collect();
    let tables: Vec<Vec<(&str, String)>> = configs.iter().map(|(_, c)| rows(c)).collect();
    let mut s = String::new();
    s.push_str(HEADER);
    s.push_str("| key |");
    for (p, _) in &configs {
        let _ = write!(s, " `{}` |", p.name);
    }
    s.push_str("\n|---|");
    s.push_str(&"---|".repeat(configs.len()));
    s.push('\n');
    for (i, (key, _)) in tables[0].iter().enumerate() {
        let differs = tables.iter().any(|t| t[i].1 != tables[0][i].1);
        let _ = write!(s, "| {} |", if differs { format!("**{key}**") } else { key.to_string() });
        for t in &tables {
            let _ = write!(s, " {} |", t[i].1);
        }
        s.push('\n');
    }
    s.push_str("\nRows in bold differ between profiles.\n");
    for (p, _) in &configs {
        let _ = write!(s, "\n## `{}`: {}\n\nSources:\n\n", p.name, p.title);
        for (field, src) in p.sources {
            let _ = writeln!(s, "- `{field}`: {src}");
        }
        if !p.gaps.is_empty() {
            s.push_str("\nNot modelled:\n\n");
            for g in p.gaps {
                let _ = writeln!(s, "- {g}");
            }
        }
    }
    s.push_str(FOOTER);
    s
}

const HEADER: &str = "# TCP profiles

<!-- Generated from crates/tcp/src/profiles by the test
`profiles::doc::tests::docs_table_is_current`; edit the profile data, then
run `AIRTCP_BLESS=1 cargo test -p airtcp-tcp docs_table_is_current`. -->

A flow's stack is a named profile: `[flows.tcp] profile = \"NAME\"`. Every
key set beside it overrides that one value (e.g. `profile = \"linux-3.16\"`
with `cc = \"westwood\"`). Without `profile` a flow runs `linux`, except
that `recovery = \"ns3-prr\"` alone selects `ns3` (the ns-3 anchor
scenarios name no profile). An explicit `rcv_buf` / `snd_buf` turns that
buffer's autotuning off, as a program's `SO_RCVBUF` / `SO_SNDBUF` does.
Each run's summary.json records, per flow, the profile and every resolved
value (`scenario.flows[i].tcp`).

`ns2-tahoe`, `ns2-reno` and `ns2-newreno` are reserved for ns-2's one-way
agents, a separate sender and sink rather than a configuration of this
endpoint.

`mss` is a property of the path (1460 = a 1500-byte MTU without options;
Linux sends 1448 with timestamps), so profiles keep 1460 except
`opnet-2003`, whose table gives it.

";

const FOOTER: &str = "
## What each Linux era had

| behaviour | 3.16 (2014) | 4.4 (2016) | 6.x (today) | came in |
|---|---|---|---|---|
| initial window 10 | yes | yes | yes | 2.6.39 |
| initial RTO 1 s (RFC 6298) | yes | yes | yes | 3.1 (3 s before) |
| TCP_RTO_MIN 200 ms, TCP_RTO_MAX 120 s | yes | yes | yes | always |
| PRR (RFC 6937) | yes | yes | yes | 3.2 |
| F-RTO, SACK-enhanced (tcp_frto = 2) | yes | yes | yes | rewritten in 3.10 |
| no F-RTO undo on a non-SACK ACK of a retransmission (`frto_nonsack_guard`) | no | no | yes | 4.17 |
| early retransmit (RFC 5827) | yes | yes | no (RACK replaced it) | 3.5 to 4.13 (not modelled) |
| tail loss probe | yes | yes | yes (as RACK-TLP) | 3.10 |
| RACK loss detection | no | first version | yes | 4.4; reordering timer 4.10; adaptive window 4.18 |
| FACK | yes | yes | no | removed in 4.15 (not modelled) |
| tcp_rmem default | 87380 | 87380 | 131072 | 5.4 |
| timestamp clock | jiffies (HZ 250: 4 ms) | jiffies | 1 ms | 4.13 |
| RTT samples from send times first, and from new SACKs (`rtt_samples = \"linux\"`) | yes | yes | yes | 3.12 |
| HZ (Ubuntu generic; Kconfig default) | 250 | 250 | 250 | - |
| delayed ACK: ATO from 40 ms (TCP_DELACK_MIN), at most 200 ms | yes | yes | yes | always |
| a read that empties the queue ACKs a short segment at once (`push_ack`) | yes | yes | yes | always |
| ... and a full-sized one with PSH (`push_ack = \"full\"`) | no | no | yes | 6.6 |
| SACK compression: out-of-order ACKs after the third held up to 1 ms (`comp_sack_nr`) | no | no | yes | 4.18; first three at once since 5.10 |
| quick ACKs (up to 16 at start, after idle, on out-of-window data) | yes | yes | yes | always |
| tcp_syn_retries 6 | yes | yes | yes | 3.7 |
| cubic the default module | yes | yes | yes | 2.6.19 |

The kernel facts above are from the kernel's include/net/tcp.h,
Documentation/networking/ip-sysctl.rst and net/ipv4/tcp_*.c of each
release, as cited beside each value in crates/tcp/src/profiles/linux.rs.
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_table_is_current() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/tcp-profiles.md");
        let want = markdown();
        if std::env::var_os("AIRTCP_BLESS").is_some() {
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(have == want, "docs/tcp-profiles.md is stale: run AIRTCP_BLESS=1 cargo test -p airtcp-tcp docs_table_is_current");
    }

    #[test]
    fn rows_show_the_linux_timers() {
        let r = rows(&super::super::config("linux").unwrap());
        let get = |k: &str| r.iter().find(|(key, _)| *key == k).map(|(_, v)| v.clone()).unwrap();
        assert_eq!((get("min_rto"), get("delack_timeout"), get("rto_timer")), ("200 ms".into(), "40 ms".into(), "linux".into()));
    }
}
