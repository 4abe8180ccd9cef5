//! `[flows.tcp]` for an ns-2 agent pair: `profile = "ns2-tahoe" |
//! "ns2-reno" | "ns2-newreno"` selects ns-2's one-way sender
//! (`airtcp_tcp::ns2`) instead of the Linux-style endpoint, `sink =
//! "ns2-tcpsink" | "ns2-delack"` its receiver, and the ns-2 knobs below
//! override ns-default.tcl's values. Kept apart from `tcp.rs` so the
//! named-profile table can hand `ns2-*` names here.

use airtcp_tcp::ns2::{Ns2Config, Ns2SinkKind, Ns2Variant};
use serde_json::{json, Value};

use super::units::format_duration;
use super::value::{Table, R};

/// Keys an ns-2 `[flows.tcp]` accepts.
pub const NS2_KEYS: &[&str] = &[
    "profile",
    "sink",
    "packet_size",
    "window",
    "window_init",
    "maxburst",
    "tcp_tick",
    "min_rto",
    "max_rto",
    "initial_rto",
    "dupack_threshold",
    "bug_fix",
    "syn",
    "delack_interval",
    "boot_time",
    "witcp",
    "ehn",
];

/// The ns-2 variant a profile name selects, if it is an ns-2 profile.
pub fn ns2_variant(profile: &str) -> Option<Ns2Variant> {
    match profile {
        "ns2-tahoe" => Some(Ns2Variant::Tahoe),
        "ns2-reno" => Some(Ns2Variant::Reno),
        "ns2-newreno" => Some(Ns2Variant::NewReno),
        _ => None,
    }
}

/// `Some(config)` when the table's `profile` names an ns-2 agent, `None`
/// when it names none (the Linux-style endpoint then reads the table).
pub(crate) fn ns2_config(t: &Table) -> R<Option<Ns2Config>> {
    let variant = match t.opt("profile") {
        Some(f) => match ns2_variant(f.str()?) {
            Some(v) => v,
            None if f.str()?.starts_with("ns2") => {
                return Err(f.err(format!("unknown ns-2 profile \"{}\" (expected ns2-tahoe, ns2-reno or ns2-newreno)", f.str()?)))
            }
            None => return Ok(None),
        },
        None => {
            if let Some(f) = t.opt("sink") {
                return Err(f.err("sink is an ns-2 key: set profile = \"ns2-tahoe\", \"ns2-reno\" or \"ns2-newreno\" with it"));
            }
            return Ok(None);
        }
    };
    t.known(NS2_KEYS)?;
    let sink = match t.opt("sink") {
        None => Ns2SinkKind::TcpSink,
        Some(f) => match f.str()? {
            "ns2-tcpsink" => Ns2SinkKind::TcpSink,
            "ns2-delack" => Ns2SinkKind::DelAck,
            other => return Err(f.err(format!("unknown sink \"{other}\" (expected \"ns2-tcpsink\" or \"ns2-delack\")"))),
        },
    };
    let mut c = Ns2Config::new(variant, sink);
    for key in t.map.keys() {
        let f = t.opt(key).expect("present");
        match key.as_str() {
            "profile" | "sink" => {}
            "packet_size" => c.packet_size = f.u32()?,
            "window" => c.window = f.u32()?,
            "window_init" => c.window_init = f.u32()?,
            "maxburst" => c.maxburst = f.u32()?,
            "tcp_tick" => c.tcp_tick = f.duration()?,
            "min_rto" => c.min_rto = f.duration()?,
            "max_rto" => c.max_rto = f.duration()?,
            "initial_rto" => c.rtxcur_init = f.duration()?,
            "dupack_threshold" => c.numdupacks = f.u32()?,
            "bug_fix" => c.bug_fix = f.bool()?,
            "syn" => c.syn = f.bool()?,
            "delack_interval" => c.delack_interval = f.duration()?,
            "boot_time" => c.boot_time = f.duration()?,
            "witcp" => c.witcp = f.bool()?,
            "ehn" => c.ehn = f.bool()?,
            _ => unreachable!("checked by known()"),
        }
    }
    c.validate().map_err(|m| t.err(m))?;
    Ok(Some(c))
}

/// The resolved configuration, every knob, for the scenario echo in summary.json.
pub(crate) fn ns2_json(c: &Ns2Config) -> Value {
    json!({
        "profile": c.variant.name(),
        "sink": c.sink.name(),
        "packet_size": c.packet_size,
        "window": c.window,
        "window_init": c.window_init,
        "maxburst": c.maxburst,
        "tcp_tick": format_duration(c.tcp_tick),
        "min_rto": format_duration(c.min_rto),
        "max_rto": format_duration(c.max_rto),
        "initial_rto": format_duration(c.rtxcur_init),
        "dupack_threshold": c.numdupacks,
        "bug_fix": c.bug_fix,
        "syn": c.syn,
        "delack_interval": format_duration(c.delack_interval),
        "boot_time": format_duration(c.boot_time),
        "witcp": c.witcp,
        "ehn": c.ehn,
    })
}
