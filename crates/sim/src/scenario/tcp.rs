//! `[flows.tcp]`: a named profile (`profile = "linux"`, the default; see
//! `airtcp_tcp::profiles` and docs/tcp-profiles.md) and every `TcpConfig`
//! field by name, each overriding the profile's value. Without `profile`,
//! `recovery = "ns3-prr"` selects the `ns3` profile (the ns-3 anchor
//! scenarios name no profile), anything else `linux`. An explicit `rcv_buf`
//! / `snd_buf` locks that buffer's autotuning, as a program's SO_RCVBUF /
//! SO_SNDBUF does. Both ends of a flow use the same configuration.

use airtcp_tcp::config::{EcnMode, LossExitGrowth, PartialAckRto, Recovery, RenoSacks, RtoSsthresh, RtoTimer, ShrinkPolicy};
use airtcp_tcp::profiles::{self, DEFAULT_PROFILE};
use airtcp_tcp::TcpConfig;
use serde_json::{json, Value};

use super::units::format_duration;
use super::value::{Table, R};

pub const TCP_KEYS: &[&str] = &[
    "profile",
    "mss",
    "initial_cwnd",
    "initial_ssthresh",
    "rcv_buf",
    "snd_buf",
    "sack",
    "timestamps",
    "window_scaling",
    "delack_count",
    "delack_timeout",
    "initial_rto",
    "min_rto",
    "max_rto",
    "clock_granularity",
    "rto_tick",
    "recovery",
    "dupack_threshold",
    "limited_transmit",
    "cc",
    "hz",
    "persist_min",
    "persist_max",
    "shrink_policy",
    "max_retries",
    "syn_retries",
    "ts_granularity",
    "msl",
    "initial_quickacks",
    "syn_rto",
    "reno_sacks",
    "loss_exit_growth",
    "rto_ssthresh",
    "partial_ack_rto",
    "rto_timer",
    "rack",
    "tlp",
    "frto",
    "frto_nonsack_guard",
    "dsack",
    "undo",
    "eifel",
    "ecn",
    "rcv_buf_autotune",
    "tcp_rmem",
    "snd_buf_autotune",
    "tcp_wmem",
    "nodelay",
    "window_update_ack",
    "slow_start_after_idle",
    "witcp",
    "witcp_max_freeze",
    "ehn",
    "freeze",
];

/// A `[min, default, max]` list of sizes (`tcp_rmem`, `tcp_wmem`).
fn size_triple(f: &super::value::Field) -> R<[u32; 3]> {
    let items = f.list()?;
    if items.len() != 3 {
        return Err(f.err(format!("expected [min, default, max] (3 sizes), got {} items", items.len())));
    }
    Ok([f.item(0).size_u32()?, f.item(1).size_u32()?, f.item(2).size_u32()?])
}

/// The configuration of a flow (or proxy connection) without a `tcp`
/// table: the default profile.
pub(crate) fn tcp_default() -> TcpConfig {
    profiles::config(DEFAULT_PROFILE).expect("the default profile exists")
}

/// An optional duration: a duration, or "none".
fn opt_duration(f: &super::value::Field) -> R<Option<airtcp_core::Duration>> {
    match f.v {
        Value::String(s) if s == "none" => Ok(None),
        _ => Ok(Some(f.duration()?)),
    }
}

pub(crate) fn tcp_config(t: &Table) -> R<TcpConfig> {
    t.known(TCP_KEYS)?;
    let mut c = match t.opt("profile") {
        Some(f) => profiles::config(f.str()?).map_err(|m| f.err(m))?,
        None => {
            let ns3 = t.opt("recovery").is_some_and(|f| matches!(f.v, Value::String(s) if s == "ns3-prr"));
            profiles::config(if ns3 { "ns3" } else { DEFAULT_PROFILE }).expect("built-in profile")
        }
    };
    for key in t.map.keys() {
        let f = t.opt(key).expect("present");
        match key.as_str() {
            "profile" => {}
            "mss" => c.mss = f.u32()?,
            "initial_cwnd" => c.initial_cwnd = f.u32()?,
            "initial_ssthresh" => {
                c.initial_ssthresh = match f.v {
                    Value::String(s) if s == "infinite" => airtcp_tcp::cc::TCP_INFINITE_SSTHRESH,
                    _ => f.u32()?,
                }
            }
            "rcv_buf" => c.rcv_buf = f.size_u32()?,
            "snd_buf" => c.snd_buf = f.size_u32()?,
            "sack" => c.sack = f.bool()?,
            "timestamps" => c.timestamps = f.bool()?,
            "window_scaling" => c.window_scaling = f.bool()?,
            "delack_count" => c.delack_count = f.u32()?,
            "delack_timeout" => c.delack_timeout = f.duration()?,
            "initial_rto" => c.initial_rto = f.duration()?,
            "min_rto" => c.min_rto = f.duration()?,
            "max_rto" => c.max_rto = f.duration()?,
            "clock_granularity" => c.clock_granularity = f.duration()?,
            "rto_tick" => c.rto_tick = opt_duration(&f)?,
            "recovery" => c.recovery = Recovery::from_name(f.str()?).map_err(|m| f.err(m))?,
            "dupack_threshold" => c.dupack_threshold = f.u32()?,
            "limited_transmit" => c.limited_transmit = f.bool()?,
            "cc" => {
                let name = f.str()?;
                airtcp_tcp::CongestionControl::from_name(name).map_err(|m| f.err(m))?;
                c.cc = name.to_string();
            }
            "hz" => c.hz = f.u32()?,
            "persist_min" => c.persist_min = f.duration()?,
            "persist_max" => c.persist_max = f.duration()?,
            "shrink_policy" => {
                c.shrink_policy = match f.str()? {
                    "linux" => ShrinkPolicy::Linux,
                    "rfc" => ShrinkPolicy::Rfc,
                    other => return Err(f.err(format!("unknown shrink_policy \"{other}\" (known: linux, rfc)"))),
                }
            }
            "max_retries" => c.max_retries = f.u32()?,
            "syn_retries" => c.syn_retries = f.u32()?,
            "ts_granularity" => c.ts_granularity = f.duration()?,
            "msl" => c.msl = f.duration()?,
            "initial_quickacks" => c.initial_quickacks = f.u32()?,
            "syn_rto" => c.syn_rto = opt_duration(&f)?,
            "reno_sacks" => c.reno_sacks = RenoSacks::from_name(f.str()?).map_err(|m| f.err(m))?,
            "loss_exit_growth" => c.loss_exit_growth = LossExitGrowth::from_name(f.str()?).map_err(|m| f.err(m))?,
            "rto_ssthresh" => c.rto_ssthresh = RtoSsthresh::from_name(f.str()?).map_err(|m| f.err(m))?,
            "partial_ack_rto" => c.partial_ack_rto = PartialAckRto::from_name(f.str()?).map_err(|m| f.err(m))?,
            "rto_timer" => c.rto_timer = RtoTimer::from_name(f.str()?).map_err(|m| f.err(m))?,
            "rack" => c.rack = f.bool()?,
            "tlp" => c.tlp = f.bool()?,
            "frto" => c.frto = f.bool()?,
            "frto_nonsack_guard" => c.frto_nonsack_guard = f.bool()?,
            "dsack" => c.dsack = f.bool()?,
            "undo" => c.undo = f.bool()?,
            "eifel" => c.eifel = f.bool()?,
            "ecn" => {
                c.ecn = match f.v {
                    Value::Number(n) => n.as_i64().ok_or_else(|| f.err(format!("ecn = {n} is not 0, 1 or 2")))
                        .and_then(|n| EcnMode::from_sysctl(n).map_err(|m| f.err(m)))?,
                    _ => EcnMode::from_name(f.str()?).map_err(|m| f.err(m))?,
                }
            }
            "rcv_buf_autotune" => c.rcv_buf_autotune = f.bool()?,
            "tcp_rmem" => c.tcp_rmem = size_triple(&f)?,
            "snd_buf_autotune" => c.snd_buf_autotune = f.bool()?,
            "tcp_wmem" => c.tcp_wmem = size_triple(&f)?,
            "nodelay" => c.nodelay = f.bool()?,
            "window_update_ack" => c.window_update_ack = f.bool()?,
            "slow_start_after_idle" => c.slow_start_after_idle = f.bool()?,
            "witcp" => c.witcp = f.bool()?,
            "freeze" => c.freeze = f.bool()?,
            "witcp_max_freeze" => c.witcp_max_freeze = opt_duration(&f)?,
            "ehn" => c.ehn = f.bool()?,
            _ => unreachable!("checked by known()"),
        }
    }
    // A program's SO_RCVBUF / SO_SNDBUF locks that buffer
    // (SOCK_RCVBUF_LOCK, SOCK_SNDBUF_LOCK): an explicit size turns the
    // profile's autotuning off unless the autotune key is given too.
    if t.opt("rcv_buf").is_some() && t.opt("rcv_buf_autotune").is_none() {
        c.rcv_buf_autotune = false;
    }
    if t.opt("snd_buf").is_some() && t.opt("snd_buf_autotune").is_none() {
        c.snd_buf_autotune = false;
    }
    c.validate().map_err(|m| t.err(m))?;
    Ok(c)
}

/// Every field of the resolved configuration, under the input format's
/// keys (so the JSON loads back to the same configuration), with the
/// profile it started from.
pub(crate) fn tcp_json(c: &TcpConfig) -> Value {
    let mut v = tcp_json_fixed(c);
    // Separate from `tcp_json_fixed`: one json! literal of every key
    // exceeds serde_json's macro recursion limit.
    let opt = |d: Option<airtcp_core::Duration>| d.map_or(json!("none"), |d| json!(format_duration(d)));
    if let Some(map) = v.as_object_mut() {
        let rest = [
            ("profile", json!(c.profile)),
            ("rcv_buf_autotune", json!(c.rcv_buf_autotune)),
            ("tcp_rmem", json!(c.tcp_rmem)),
            ("snd_buf_autotune", json!(c.snd_buf_autotune)),
            ("tcp_wmem", json!(c.tcp_wmem)),
            ("nodelay", json!(c.nodelay)),
            ("window_update_ack", json!(c.window_update_ack)),
            ("frto_nonsack_guard", json!(c.frto_nonsack_guard)),
            ("slow_start_after_idle", json!(c.slow_start_after_idle)),
            ("rto_tick", opt(c.rto_tick)),
            ("syn_rto", opt(c.syn_rto)),
            ("witcp", json!(c.witcp)),
            ("witcp_max_freeze", opt(c.witcp_max_freeze)),
            ("ehn", json!(c.ehn)),
            ("freeze", json!(c.freeze)),
        ];
        for (k, val) in rest {
            map.insert(k.into(), val);
        }
    }
    v
}

fn tcp_json_fixed(c: &TcpConfig) -> Value {
    json!({
        "mss": c.mss,
        "initial_cwnd": c.initial_cwnd,
        "initial_ssthresh": c.initial_ssthresh,
        "rcv_buf": c.rcv_buf,
        "snd_buf": c.snd_buf,
        "sack": c.sack,
        "timestamps": c.timestamps,
        "window_scaling": c.window_scaling,
        "delack_count": c.delack_count,
        "delack_timeout": format_duration(c.delack_timeout),
        "initial_rto": format_duration(c.initial_rto),
        "min_rto": format_duration(c.min_rto),
        "max_rto": format_duration(c.max_rto),
        "clock_granularity": format_duration(c.clock_granularity),
        "recovery": c.recovery.name(),
        "dupack_threshold": c.dupack_threshold,
        "limited_transmit": c.limited_transmit,
        "cc": c.cc,
        "hz": c.hz,
        "persist_min": format_duration(c.persist_min),
        "persist_max": format_duration(c.persist_max),
        "shrink_policy": match c.shrink_policy { ShrinkPolicy::Linux => "linux", ShrinkPolicy::Rfc => "rfc" },
        "max_retries": c.max_retries,
        "syn_retries": c.syn_retries,
        "ts_granularity": format_duration(c.ts_granularity),
        "msl": format_duration(c.msl),
        "initial_quickacks": c.initial_quickacks,
        "reno_sacks": c.reno_sacks.name(),
        "loss_exit_growth": c.loss_exit_growth.name(),
        "rto_ssthresh": c.rto_ssthresh.name(),
        "partial_ack_rto": c.partial_ack_rto.name(),
        "rto_timer": c.rto_timer.name(),
        "rack": c.rack,
        "tlp": c.tlp,
        "frto": c.frto,
        "dsack": c.dsack,
        "undo": c.undo,
        "eifel": c.eifel,
        "ecn": c.ecn.sysctl(),
    })
}
