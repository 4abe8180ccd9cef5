//! `[flows.tcp]` for an ns-2 agent pair: `profile = "ns2-tahoe" |
//! "ns2-reno" | "ns2-newreno"` selects ns-2's one-way sender
//! (`airtcp_tcp::ns2`) instead of the Linux-style endpoint, `sink =
//! "ns2-tcpsink" | "ns2-delack"` its receiver, and the ns-2 knobs below
//! override ns-default.tcl's values. Kept apart from `tcp.rs` so the
//! named-profile table can hand `ns2-*` names here.

use airtcp_tcp::ns2::{Ns2Config, Ns2SinkKind, Ns2Variant};
use serde_json::Value;

use super::keys::{field, Bool, Dur, Key, Section, U32};
use super::value::{Table, R};

/// `profile` and `sink` choose the agent pair (`Ns2Config::new`) before
/// the other keys are read, so reading them here does nothing.
const PROFILE: Key<Ns2Config> = Key {
    name: "profile",
    ty: "`\"ns2-tahoe\"` | `\"ns2-reno\"` | `\"ns2-newreno\"`",
    doc: "ns-2 2.35's `Agent/TCP` (Tahoe), `Agent/TCP/Reno` or `Agent/TCP/Newreno` sender, one-way, in place of the Linux-style endpoint ([ns-2's agents](ns2-profiles.md)).",
    read: |_, _| Ok(()),
    write: |c| Some(Value::from(c.variant.name())),
    default: "",
};

const SINK: Key<Ns2Config> = Key {
    name: "sink",
    ty: "`\"ns2-tcpsink\"` | `\"ns2-delack\"`",
    doc: "The receiver: `Agent/TCPSink` (one ACK per packet) or `Agent/TCPSink/DelAck` (delays an in-order ACK up to `delack_interval`).",
    read: |_, _| Ok(()),
    write: |c| Some(Value::from(c.sink.name())),
    default: "",
};

/// Keys an ns-2 `[flows.tcp]` accepts; the defaults are ns-default.tcl's.
pub static NS2: Section<'static, Ns2Config> = Section {
    path: "flows.tcp",
    keys: &[
        PROFILE,
        SINK,
        field!(packet_size: U32, "`packetSize_`: payload bytes of a data packet (the wire adds the 40-byte header)."),
        field!(window: U32, "`window_`: the receiver's window, a cap on the window in packets."),
        field!(window_init: U32, "`windowInit_`: the initial window in packets."),
        field!(maxburst: U32, "`maxburst_`: packets one call of send_much may send (0 = no limit)."),
        field!(tcp_tick: Dur, "`tcpTick_`: the RTT clock's granularity."),
        field!(min_rto: Dur, "`minrto_`: lower bound of the RTO."),
        field!(max_rto: Dur, "`maxrto_`: upper bound of the RTO."),
        field!(initial_rto => rtxcur_init: Dur, "`rtxcur_init_`: the RTO before the first RTT sample."),
        field!(dupack_threshold => numdupacks: U32, "`numdupacks_`: duplicate ACKs that trigger fast retransmit."),
        field!(bug_fix: Bool, "`bugFix_`: no new fast retransmit until the ACK passes the highest packet sent when the last one began."),
        field!(syn: Bool, "`syn_` with `delay_growth_`: packet 0 is a 40-byte SYN and the window stays at one packet until it is acknowledged."),
        field!(delack_interval: Dur, "`Agent/TCPSink/DelAck`'s `interval_`: the longest an in-order ACK is delayed."),
        field!(boot_time: Dur, "Where between two ticks of `tcp_tick` the agent's clock started (ns-2 draws `boot_time_` in [0, `tcpTick_`) at every reset)."),
        field!(witcp: Bool, "Not ns-2: obey Wi-TCP's EHO-ACK / EHC-ACK, as `witcp` of the Linux-style endpoint."),
        field!(ehn: Bool, "Not ns-2: obey the explicit handover notification, as `ehn` of the Linux-style endpoint."),
    ],
};

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
    NS2.known(t)?;
    let sink = match t.opt("sink") {
        None => Ns2SinkKind::TcpSink,
        Some(f) => match f.str()? {
            "ns2-tcpsink" => Ns2SinkKind::TcpSink,
            "ns2-delack" => Ns2SinkKind::DelAck,
            other => return Err(f.err(format!("unknown sink \"{other}\" (expected \"ns2-tcpsink\" or \"ns2-delack\")"))),
        },
    };
    let mut c = Ns2Config::new(variant, sink);
    NS2.read_present(t, &mut c)?;
    c.validate().map_err(|m| t.err(m))?;
    Ok(Some(c))
}

/// The resolved configuration, every knob, for the scenario echo in summary.json.
pub(crate) fn ns2_json(c: &Ns2Config) -> Value {
    NS2.write(c)
}
