//! `[flows.tcp]`: every `TcpConfig` field by name. Fields not given keep
//! `TcpConfig::default()` (documented in the tcp crate), except those whose
//! default follows the profile (Linux, or ns-3 with `recovery = "ns3-prr"`)
//! and the buffer autotuning that an explicit `rcv_buf` / `snd_buf` locks;
//! both ends of a flow use the same configuration.

use airtcp_tcp::config::{EcnMode, LossExitGrowth, PartialAckRto, Recovery, RenoSacks, RtoSsthresh, RtoTimer, ShrinkPolicy};
use airtcp_tcp::TcpConfig;
use serde_json::{json, Value};

use super::units::format_duration;
use super::value::{Table, R};

pub const TCP_KEYS: &[&str] = &[
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

/// Keys whose default follows the profile: Linux's value normally, ns-3
/// 3.44's (off: no F-RTO, no undo, no D-SACK, no TLP) when the flow selects ns-3's
/// recovery (`recovery = "ns3-prr"`), so the ns-3 anchor scenarios keep
/// ns-3's behaviour without naming them. Given explicitly, they win.
/// `ecn` goes to 0 (ns-3's `UseEcn` default Off).
const NS3_PROFILE_OFF: &[&str] = &["frto", "dsack", "undo", "eifel", "ecn", "tlp", "slow_start_after_idle"];

/// A `[min, default, max]` list of sizes (`tcp_rmem`, `tcp_wmem`).
fn size_triple(f: &super::value::Field) -> R<[u32; 3]> {
    let items = f.list()?;
    if items.len() != 3 {
        return Err(f.err(format!("expected [min, default, max] (3 sizes), got {} items", items.len())));
    }
    Ok([f.item(0).size_u32()?, f.item(1).size_u32()?, f.item(2).size_u32()?])
}

/// The configuration of a flow (or proxy connection) without a `tcp`
/// table: what an empty table gives, i.e. the Linux profile with both
/// buffers autotuned.
pub(crate) fn tcp_default() -> TcpConfig {
    TcpConfig { rcv_buf_autotune: true, snd_buf_autotune: true, ..TcpConfig::default() }
}

pub(crate) fn tcp_config(t: &Table) -> R<TcpConfig> {
    t.known(TCP_KEYS)?;
    let mut c = TcpConfig::default();
    for key in t.map.keys() {
        let f = t.opt(key).expect("present");
        match key.as_str() {
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
            "syn_rto" => c.syn_rto = Some(f.duration()?),
            "reno_sacks" => c.reno_sacks = RenoSacks::from_name(f.str()?).map_err(|m| f.err(m))?,
            "loss_exit_growth" => c.loss_exit_growth = LossExitGrowth::from_name(f.str()?).map_err(|m| f.err(m))?,
            "rto_ssthresh" => c.rto_ssthresh = RtoSsthresh::from_name(f.str()?).map_err(|m| f.err(m))?,
            "partial_ack_rto" => c.partial_ack_rto = PartialAckRto::from_name(f.str()?).map_err(|m| f.err(m))?,
            "rto_timer" => c.rto_timer = RtoTimer::from_name(f.str()?).map_err(|m| f.err(m))?,
            "rack" => c.rack = f.bool()?,
            "tlp" => c.tlp = f.bool()?,
            "frto" => c.frto = f.bool()?,
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
            "witcp_max_freeze" => c.witcp_max_freeze = Some(f.duration()?),
            "ehn" => c.ehn = f.bool()?,
            _ => unreachable!("checked by known()"),
        }
    }
    let ns3 = c.recovery == Recovery::Ns3Prr;
    if ns3 {
        for &key in NS3_PROFILE_OFF {
            if t.opt(key).is_none() {
                match key {
                    "frto" => c.frto = false,
                    "dsack" => c.dsack = false,
                    "undo" => c.undo = false,
                    "ecn" => c.ecn = EcnMode::Off,
                    "tlp" => c.tlp = false,
                    "slow_start_after_idle" => c.slow_start_after_idle = false,
                    _ => c.eifel = false,
                }
            }
        }
        // ns-3 3.44 TcpSocket::TcpNoDelay defaults to true.
        if t.opt("nodelay").is_none() {
            c.nodelay = true;
        }
    }
    // Buffers autotune in the Linux profile unless the flow sets them:
    // a program's SO_RCVBUF / SO_SNDBUF locks them (SOCK_RCVBUF_LOCK,
    // SOCK_SNDBUF_LOCK). ns-3's buffers are fixed. An explicit key wins.
    if t.opt("rcv_buf_autotune").is_none() {
        c.rcv_buf_autotune = !ns3 && t.opt("rcv_buf").is_none();
    }
    if t.opt("snd_buf_autotune").is_none() {
        c.snd_buf_autotune = !ns3 && t.opt("snd_buf").is_none();
    }
    c.validate().map_err(|m| t.err(m))?;
    Ok(c)
}

pub(crate) fn tcp_json(c: &TcpConfig) -> Value {
    let mut v = tcp_json_fixed(c);
    // Separate from `tcp_json_fixed`: one json! literal of every key
    // exceeds serde_json's macro recursion limit.
    if let Some(map) = v.as_object_mut() {
        let buffers = [
            ("rcv_buf_autotune", json!(c.rcv_buf_autotune)),
            ("tcp_rmem", json!(c.tcp_rmem)),
            ("snd_buf_autotune", json!(c.snd_buf_autotune)),
            ("tcp_wmem", json!(c.tcp_wmem)),
            ("nodelay", json!(c.nodelay)),
            ("window_update_ack", json!(c.window_update_ack)),
            ("slow_start_after_idle", json!(c.slow_start_after_idle)),
        ];
        for (k, val) in buffers {
            map.insert(k.into(), val);
        }
    }
    // Wi-TCP (seed 001): written only when on, so other scenarios' resolved
    // JSON is unchanged.
    if let (true, Some(map)) = (c.freeze, v.as_object_mut()) {
        map.insert("freeze".into(), json!(true));
    }
    if let (true, Some(map)) = (c.witcp, v.as_object_mut()) {
        map.insert("witcp".into(), json!(true));
    }
    if let (true, Some(map)) = (c.ehn, v.as_object_mut()) {
        map.insert("ehn".into(), json!(true));
    }
    if let (Some(d), Some(map)) = (c.witcp_max_freeze, v.as_object_mut()) {
        map.insert("witcp_max_freeze".into(), Value::String(format_duration(d)));
    }
    // Unset means "same as initial_rto"; omitted so the JSON loads back.
    if let (Some(d), Some(map)) = (c.syn_rto, v.as_object_mut()) {
        map.insert("syn_rto".into(), Value::String(format_duration(d)));
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
