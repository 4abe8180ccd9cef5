//! `[[radios]]`, each key one entry of [`radio_keys`]: the accepted keys,
//! the reader, the resolved JSON and the reference page's table come from
//! it. A key is read and checked on its own (against the medium: a channel
//! or rate of the standard, no scan on the p2p medium) into a [`Declared`]
//! radio, in the table's order; `super::wifi` then checks what depends on
//! other keys (what a mode may have, which of the mobility keys is set) and
//! on the other radios (a station's AP, the networks, the addresses).
//!
//! The resolved scenario records a radio as written, with its address (and
//! an AP's subnet) filled in: every key's writer is the value as written
//! except those two.

use std::collections::HashMap;

use airtcp_core::{Duration, Instant};
use airtcp_wifi::mac::MacParams;
use airtcp_wifi::mgmt::{ApSpec, ScanKind, StaSpec};
use airtcp_wifi::mobility::{self, Mobility, Pos};
use airtcp_wifi::phy::{RadioParams, Rate, Standard};
use serde_json::{Map, Value};

use super::doc::KeyPath;
use super::keys::{Key, Section, REQUIRED};
use super::names::NodeIndex;
use super::value::{Field, Table, R};
use super::wifi_medium::{at_least_one, finite, mbps, rate_control, std_letter};
use super::wifi_types::{RadioDecl, RadioMode, RandomWaypoint};
use super::NodeSpec;
use crate::network::addr::{fmt_addr, parse_addr, Prefix};

/// What a radio's keys are checked against while it is read.
pub(super) struct Context<'a> {
    pub nodes: &'a [NodeSpec],
    pub index: &'a NodeIndex,
    pub standard: Standard,
    pub p2p: bool,
    /// The medium's radio and MAC parameters, which a radio's keys override.
    pub phy: RadioParams,
    pub mac: &'a MacParams,
    /// The radio already declared on a node (one radio per node).
    pub radio_of_node: &'a HashMap<usize, usize>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Ap,
    Station,
    AdHoc,
}

/// A `mobility_trace` file, parsed.
pub(super) enum MobilityTrace {
    Csv(Mobility),
    /// An ns-2 setdest file: every node's movement (`trace_node` picks
    /// one) and the file's path for errors.
    Setdest(Vec<(u32, Mobility)>, String),
}

/// One scripted handoff of `roam_at`: when, the AP's node name and where
/// it is written (`None`: the best one found; resolved once every radio is
/// read) and the time away.
pub(super) struct Handoff {
    pub at: Duration,
    pub target: Option<(String, KeyPath)>,
    pub away: Duration,
}

/// A radio as its keys declare it, each value read and checked on its own
/// (`ap`, a node name, is resolved once every radio is read).
pub(super) struct Declared {
    pub node: usize,
    pub mode: Mode,
    pub ssid: Option<String>,
    pub channel: Option<u8>,
    pub pos: Pos,
    pub waypoints: Option<Mobility>,
    pub random_waypoint: Option<(Mobility, RandomWaypoint)>,
    pub mobility_trace: Option<MobilityTrace>,
    pub trace_node: Option<u32>,
    pub subnet: Option<Prefix>,
    pub addr: Option<u32>,
    pub phy: RadioParams,
    pub mac: MacParams,
    pub beacons: bool,
    pub ap_spec: ApSpec,
    /// A station's scanning and roaming keys (its SSID is set later).
    pub sta: StaSpec,
    pub roam_at: Option<Vec<Handoff>>,
}

/// A radio being read (`read`), or written back (`written`).
pub struct Radio<'c> {
    read: Option<(&'c Context<'c>, Declared)>,
    written: Option<(&'c Map<String, Value>, &'c RadioDecl)>,
}

impl<'c> Radio<'c> {
    fn ctx(&self) -> &'c Context<'c> {
        self.read.as_ref().expect("only a radio being read is checked").0
    }

    fn d(&mut self) -> &mut Declared {
        &mut self.read.as_mut().expect("only a radio being read is read into").1
    }

    /// The value as written (the resolved scenario records the table as written).
    fn as_written(&self, key: &str) -> Option<Value> {
        self.written.and_then(|(raw, _)| raw.get(key).cloned())
    }
}

/// A key whose value is recorded as written.
macro_rules! radio_key {
    ($name:ident, $ty:expr, $default:expr, $doc:expr, $read:expr) => {
        Key { name: stringify!($name), ty: $ty, doc: $doc, default: $default, read: $read, write: |r| r.as_written(stringify!($name)) }
    };
}

/// A duration above zero (a scan's timers).
fn positive_duration(f: &Field, key: &str) -> R<Duration> {
    let d = f.duration()?;
    if d == Duration::ZERO {
        return Err(f.err(format!("{key} must be positive")));
    }
    Ok(d)
}

/// "54Mbps" / "5.5Mbps" text or a number of Mb/s, one of the standard's rates.
fn rate(f: &Field, std: Standard) -> R<Rate> {
    let mbps = mbps(f)?;
    Rate::from_mbps(std, mbps).ok_or_else(|| {
        let known: Vec<String> = std.rates().iter().map(|r| format!("{}", r.mbps())).collect();
        f.err(format!("{mbps} Mb/s is not a rate of 802.11{} (known: {})", std_letter(std), known.join(", ")))
    })
}

/// A list of finite numbers.
fn numbers(f: &Field) -> R<Vec<f64>> {
    (0..f.list()?.len()).map(|j| finite(&f.item(j))).collect()
}

fn waypoints(f: &Field) -> R<Mobility> {
    let list = f.list()?;
    if list.is_empty() {
        return Err(f.err("waypoints needs at least one [t_s, x, y] entry"));
    }
    let mut pts = Vec::with_capacity(list.len());
    let mut last: Option<f64> = None;
    for k in 0..list.len() {
        let e = f.item(k);
        let v = e.list()?;
        if v.len() != 3 && v.len() != 4 {
            return Err(e.err("a waypoint is [t_s, x, y] or [t_s, x, y, z]"));
        }
        let nums = numbers(&e)?;
        if nums[0] < 0.0 || last.is_some_and(|l| nums[0] <= l) {
            return Err(e.item(0).err(format!("waypoint time {} must be non-negative and after the previous one", nums[0])));
        }
        last = Some(nums[0]);
        let at = Instant::from_nanos((nums[0] * 1e9).round() as u64);
        pts.push((at, Pos { x: nums[1], y: nums[2], z: nums.get(3).copied().unwrap_or(0.0) }));
    }
    Ok(Mobility::Waypoints(pts))
}

/// A `random_waypoint` table being read, or written back as written.
#[derive(Default)]
pub struct Walk {
    area: Vec<f64>,
    speed: Vec<f64>,
    pause: Duration,
    written: Map<String, Value>,
}

/// A `random_waypoint` key whose value is recorded as written.
macro_rules! walk_key {
    ($name:ident, $ty:expr, $default:expr, $doc:expr, $read:expr) => {
        Key { name: stringify!($name), ty: $ty, doc: $doc, default: $default, read: $read, write: |w: &Walk| w.written.get(stringify!($name)).cloned() }
    };
}

/// Every key of a radio's `random_waypoint` table, in the order they are read.
pub static RANDOM_WAYPOINT: Section<'static, Walk> = Section {
    path: "radios.random_waypoint",
    keys: &[
        walk_key!(area, "`[x0, y0, x1, y1]` (m)", REQUIRED, "The rectangle the radio moves in, with x1 > x0 and y1 > y0.", |w, f| {
            let area = numbers(f)?;
            if area.len() != 4 || area[2] <= area[0] || area[3] <= area[1] {
                return Err(f.err("area is [x0, y0, x1, y1] with x1 > x0 and y1 > y0"));
            }
            w.area = area;
            Ok(())
        }),
        walk_key!(speed, "`[min, max]` (m/s)", REQUIRED, "Each leg's speed is drawn uniformly from [min, max], with 0 < min ≤ max.", |w, f| {
            let speed = numbers(f)?;
            if speed.len() != 2 || speed[0] <= 0.0 || speed[1] < speed[0] {
                return Err(f.err("speed is [min, max] in m/s with 0 < min <= max"));
            }
            w.speed = speed;
            Ok(())
        }),
        walk_key!(pause, "duration", "`\"0s\"`", "The stop at each point reached.", |w, f| {
            w.pause = f.duration()?;
            Ok(())
        }),
    ],
};

fn random_waypoint(f: &Field) -> R<(Mobility, RandomWaypoint)> {
    let mut w = Walk::default();
    RANDOM_WAYPOINT.read_in_order(&f.table()?, &mut w)?;
    let area = (w.area[0], w.area[1], w.area[2], w.area[3]);
    // Checked here so a bad table fails at load, not at build.
    let m = Mobility::random_waypoint(area, w.speed[0], w.speed[1], w.pause, 0, "check").map_err(|m| f.err(m))?;
    Ok((m, (area, w.speed[0], w.speed[1], w.pause)))
}

fn mobility_trace(f: &Field) -> R<MobilityTrace> {
    let path = super::trace::resolve(&f.doc.origin, f.str()?);
    let text = std::fs::read_to_string(&path).map_err(|e| f.err(format!("cannot read {}: {e}", path.display())))?;
    if text.contains("$node_(") {
        let all = mobility::parse_setdest(&text).map_err(|m| f.err(format!("{}: {m}", path.display())))?;
        return Ok(MobilityTrace::Setdest(all, path.display().to_string()));
    }
    mobility::parse_csv(&text).map(MobilityTrace::Csv).map_err(|m| f.err(format!("{}: {m}", path.display())))
}

/// `roam_at`: each entry `[time, "ap-node" | "best"(, time away)]`, in
/// increasing time; on the p2p medium a handoff names its AP and begins
/// after the previous one's time away.
fn roam_at(f: &Field, p2p: bool) -> R<Vec<Handoff>> {
    let list = f.list()?;
    let mut steps: Vec<Handoff> = Vec::with_capacity(list.len());
    for k in 0..list.len() {
        let e = f.item(k);
        let v = e.list()?;
        if v.len() != 2 && v.len() != 3 {
            return Err(e.err("a scripted handoff is [time, \"ap-node\"] or [time, \"best\"], optionally with an away time [time, \"ap2\", \"2s\"]"));
        }
        let away = if v.len() == 3 { e.item(2).duration()? } else { Duration::ZERO };
        let at = e.item(0).duration()?;
        let prev = steps.last();
        if prev.is_some_and(|p| at <= p.at) {
            return Err(e.item(0).err("scripted handoffs must be in increasing time order"));
        }
        // On the p2p medium a handoff is a stretch out of coverage: the
        // next may not begin before the station is in a cell again.
        if let (true, Some(p)) = (p2p, prev) {
            if at <= p.at + p.away {
                return Err(e.item(0).err(format!(
                    "handoff at {} begins before the previous one ends ({} + {} away)",
                    super::units::format_duration(at),
                    super::units::format_duration(p.at),
                    super::units::format_duration(p.away)
                )));
            }
        }
        let target = match e.item(1).str()? {
            "best" if p2p => return Err(e.item(1).err("the p2p medium has no scan: a handoff names its AP")),
            "best" => None,
            s => Some((s.to_string(), e.item(1).path)),
        };
        steps.push(Handoff { at, target, away });
    }
    Ok(steps)
}

/// Every `[[radios]]` key, in the order they are read and errors and the
/// reference page list them.
pub fn radio_keys<'c>() -> [Key<Radio<'c>>; 34] {
    [
        radio_key!(node, "node name", "required", "The node the radio belongs to; one radio per node (its interface comes after the node's links).", |r, f| {
            let s = f.str()?;
            let node = r.ctx().index.get(s).ok_or_else(|| f.err(format!("unknown node \"{s}\"")))?;
            if let Some(j) = r.ctx().radio_of_node.get(&node) {
                return Err(f.err(format!("node \"{}\" already has a radio (radios[{j}]); one radio per node", r.ctx().nodes[node].name)));
            }
            r.d().node = node;
            Ok(())
        }),
        radio_key!(mode, "`\"ap\"` | `\"station\"` | `\"adhoc\"`", "`\"station\"`", "An access point, a station of an AP's network, or an ad hoc radio (no AP; not on the p2p medium).", |r, f| {
            r.d().mode = match f.str()? {
                "ap" => Mode::Ap,
                "station" => Mode::Station,
                "adhoc" => Mode::AdHoc,
                s => return Err(f.err(format!("unknown mode \"{s}\" (known: ap, station, adhoc)"))),
            };
            Ok(())
        }),
        radio_key!(ssid, "string (1 to 32 bytes)", "AP: `\"airtcp\"`; station: its `ap`'s", "An AP's network; a station joins that network (by scanning, without `ap`). Not for an ad hoc radio.", |r, f| {
            let s = f.str()?;
            if s.is_empty() || s.len() > 32 {
                return Err(f.err("ssid must be 1 to 32 bytes (802.11-2016 9.4.2.2)"));
            }
            r.d().ssid = Some(s.to_string());
            Ok(())
        }),
        radio_key!(ap, "node name", "—", "Station: the AP (a node with a radio in mode `\"ap\"`) it is associated with from the start; without it, `ssid` is required and the station scans to join. Required on the p2p medium.", |_, f| {
            // Resolved once every radio is read (`super::wifi`).
            f.str().map(|_| ())
        }),
        radio_key!(channel, "integer", "the standard's default; a station with `ap`: its AP's", "A channel of the standard; a station with `ap` must be on its AP's.", |r, f| {
            let c = f.u32()?;
            let standard = r.ctx().standard;
            if c > 255 || !standard.valid_channel(c as u8) {
                return Err(f.err(format!("channel {c} is not a channel of 802.11{}", std_letter(standard))));
            }
            r.d().channel = Some(c as u8);
            Ok(())
        }),
        radio_key!(x, "number (m)", "`0.0`", "Position (also `y`, `z`) of a radio that does not move.", |r, f| {
            r.d().pos.x = finite(f)?;
            Ok(())
        }),
        radio_key!(y, "number (m)", "`0.0`", "Position.", |r, f| {
            r.d().pos.y = finite(f)?;
            Ok(())
        }),
        radio_key!(z, "number (m)", "`0.0`", "Position (height).", |r, f| {
            r.d().pos.z = finite(f)?;
            Ok(())
        }),
        radio_key!(waypoints, "list of `[t_s, x, y]` or `[t_s, x, y, z]`", "—", "Moves in straight lines between the points, at increasing times in seconds. At most one of `waypoints`, `random_waypoint`, `mobility_trace`.", |r, f| {
            r.d().waypoints = Some(waypoints(f)?);
            Ok(())
        }),
        Key {
            name: "random_waypoint",
            ty: "inline table (keys below)",
            doc: "The random waypoint model; its stream is seeded from the run's seed.",
            default: "—",
            read: |r, f| {
                r.d().random_waypoint = Some(random_waypoint(f)?);
                Ok(())
            },
            write: |r| {
                let v = r.as_written("random_waypoint")?;
                match v {
                    Value::Object(written) => Some(RANDOM_WAYPOINT.write(&Walk { written, ..Walk::default() })),
                    other => Some(other),
                }
            },
        },
        radio_key!(mobility_trace, "path", "—", "A movement file relative to the scenario: `t,x,y` rows, or an ns-2 setdest file (`$node_(i) set X_ ...`, see `trace_node`).", |r, f| {
            r.d().mobility_trace = Some(mobility_trace(f)?);
            Ok(())
        }),
        Key {
            name: "subnet",
            ty: "prefix",
            doc: "AP: its network's subnet (its first AP's; a later AP of the network may head its own, for Mobile IP roaming). Recorded resolved.",
            default: "the next /22 of 172.16.0.0/12",
            read: |r, f| {
                r.d().subnet = Some(Prefix::parse(f.str()?).map_err(|m| f.err(m))?);
                Ok(())
            },
            write: |r| match r.written {
                Some((_, d)) if matches!(d.mode, RadioMode::Ap { .. }) => Some(Value::from(d.subnet.to_string())),
                _ => r.as_written("subnet"),
            },
        },
        Key {
            name: "addr",
            ty: "IPv4 address",
            doc: "A host address of the radio's subnet (ad hoc: `[wifi] adhoc_subnet`). Recorded resolved.",
            default: "the subnet's next free host address",
            read: |r, f| {
                r.d().addr = Some(parse_addr(f.str()?).map_err(|m| f.err(m))?);
                Ok(())
            },
            write: |r| r.written.map(|(_, d)| Value::from(fmt_addr(d.addr))),
        },
        radio_key!(rate, "rate or number (Mb/s)", "`[wifi] rate`", "The data rate; one of the standard's rates.", |r, f| {
            let standard = r.ctx().standard;
            r.d().mac.data_rate = rate(f, standard)?;
            Ok(())
        }),
        radio_key!(tx_power_dbm, "number (dBm)", "`[wifi] tx_power_dbm`", "Transmit power.", |r, f| {
            r.d().phy.tx_power_dbm = finite(f)?;
            Ok(())
        }),
        radio_key!(rts_threshold, "integer (bytes)", "`[wifi] rts_threshold`", "MPDUs above this size are sent after RTS/CTS.", |r, f| {
            r.d().mac.rts_threshold = f.u32()?;
            Ok(())
        }),
        radio_key!(queue_packets, "integer ≥ 1", "`[wifi] queue_packets`", "The interface queue.", |r, f| {
            r.d().mac.queue_limit = at_least_one(f, "queue_packets")?;
            Ok(())
        }),
        radio_key!(beacons, "boolean", "`true`", "AP: send beacons and answer probes, authentication and association; `false`: no management frames, its stations associated with it throughout (no `roam_at`).", |r, f| {
            r.d().beacons = f.bool()?;
            Ok(())
        }),
        radio_key!(beacon_interval, "duration ≥ 1 ms", "`\"102.4ms\"` (100 TU)", "AP: time between beacons; not read when `beacons = false`.", |r, f| {
            if !r.d().beacons {
                return Ok(());
            }
            let d = f.duration()?;
            if d < Duration::from_millis(1) {
                return Err(f.err("beacon_interval must be at least 1ms"));
            }
            r.d().ap_spec.beacon_interval = d;
            Ok(())
        }),
        radio_key!(scan, "`\"active\"` | `\"passive\"`", "`\"active\"`", "Station: probe requests on each channel, or wait for beacons.", |r, f| {
            r.d().sta.scan = match f.str()? {
                "active" => ScanKind::Active,
                "passive" => ScanKind::Passive,
                x => return Err(f.err(format!("unknown scan \"{x}\" (known: active, passive)"))),
            };
            Ok(())
        }),
        radio_key!(scan_channels, "list of channels", "the channels of the network's APs", "Station: the channels scanned, in order.", |r, f| {
            let n = f.list()?.len();
            if n == 0 {
                return Err(f.err("scan_channels needs at least one channel"));
            }
            for k in 0..n {
                let c = f.item(k).u32()?;
                if c == 0 || c > 255 {
                    return Err(f.item(k).err(format!("{c} is not a channel number")));
                }
                r.d().sta.channels.push(c as u8);
            }
            Ok(())
        }),
        radio_key!(min_channel_time, "duration > 0", "`\"20ms\"`", "Station, active scan: wait this long on a channel for a first probe response.", |r, f| {
            r.d().sta.min_channel_time = positive_duration(f, "min_channel_time")?;
            Ok(())
        }),
        radio_key!(max_channel_time, "duration > 0", "`\"40ms\"`", "Station, active scan: ...and this long once one arrived; at least `min_channel_time`.", |r, f| {
            r.d().sta.max_channel_time = positive_duration(f, "max_channel_time")?;
            Ok(())
        }),
        radio_key!(passive_dwell, "duration > 0", "`\"110ms\"`", "Station, passive scan: time on each channel (longer than a beacon interval).", |r, f| {
            r.d().sta.passive_dwell = positive_duration(f, "passive_dwell")?;
            Ok(())
        }),
        radio_key!(roam_threshold_dbm, "number (dBm)", "off", "Station: roam when the beacons' signal (EWMA) falls below this.", |r, f| {
            r.d().sta.roam_threshold_dbm = Some(finite(f)?);
            Ok(())
        }),
        radio_key!(hysteresis_db, "number ≥ 0 (dB)", "`5.0`", "Station: a new AP must be this much stronger than the current one.", |r, f| {
            let h = finite(f)?;
            if h < 0.0 {
                return Err(f.err("hysteresis_db must not be negative"));
            }
            r.d().sta.hysteresis_db = h;
            Ok(())
        }),
        radio_key!(beacon_loss, "integer ≥ 1", "`7` (mac80211's IEEE80211_BEACON_LOSS_COUNT)", "Station: beacons missed in a row before the link counts as lost.", |r, f| {
            r.d().sta.beacon_loss = at_least_one(f, "beacon_loss")?;
            Ok(())
        }),
        radio_key!(roam_at, "list of `[time, \"ap-node\" | \"best\"(, time away)]`", "—", "Station: scripted handoffs, in increasing time: leave the AP (disassociation frame), stay away for the optional time, then join the named AP or the best one found by a scan. The AP must beacon. On the p2p medium a handoff names its AP and is a stretch out of coverage.", |r, f| {
            let p2p = r.ctx().p2p;
            r.d().roam_at = Some(roam_at(f, p2p)?);
            Ok(())
        }),
        radio_key!(rate_control, "`\"constant\"` | `\"minstrel\"`", "`[wifi] rate_control`", "Rate adaptation.", |r, f| {
            r.d().mac.rate_control = rate_control(f)?;
            Ok(())
        }),
        radio_key!(trace_node, "integer", "`0`", "With an ns-2 setdest `mobility_trace`: the `$node_(i)` whose movement the radio follows (an error with a `t,x,y` trace; not read without a trace).", |r, f| {
            if matches!(r.d().mobility_trace, Some(MobilityTrace::Setdest(..))) {
                r.d().trace_node = Some(f.u32()?);
            }
            Ok(())
        }),
        radio_key!(handoff_warning, "duration", "off", "Station, Freeze-TCP cue: announce each scripted handoff this long ahead.", |r, f| {
            r.d().sta.handoff_warning = Some(f.duration()?);
            Ok(())
        }),
        radio_key!(warning_threshold_dbm, "number (dBm)", "off", "Station: ...or warn when the beacons' EWMA crosses below this (once per association).", |r, f| {
            r.d().sta.warning_threshold_dbm = Some(finite(f)?);
            Ok(())
        }),
        radio_key!(warn_at, "list of durations", "—", "Station: ...or warn at these instants, increasing (an oracle predictor).", |r, f| {
            let n = f.list()?.len();
            let sta = &mut r.d().sta;
            for i in 0..n {
                let at = Instant::ZERO + f.item(i).duration()?;
                if sta.warn_at.last().is_some_and(|&p| at <= p) {
                    return Err(f.item(i).err("warn_at must be increasing"));
                }
                sta.warn_at.push(at);
            }
            Ok(())
        }),
        radio_key!(overhear_probe_responses, "boolean", "`false`", "Station: while scanning, take probe responses sent to others too (mac80211 scanning from a random address, NetworkManager's default).", |r, f| {
            r.d().sta.overhear_probe_responses = f.bool()?;
            Ok(())
        }),
    ]
}

/// The keys that say what a radio is (`node`, `mode`, `ssid`): read first,
/// so that which keys the radio may have is checked before their values.
const IDENTITY: usize = 3;

/// Read radio table `t`: the keys that say what the radio is, then
/// `identify` (which checks them together and which other keys the radio
/// may have), then every other key in the table's order.
pub(super) fn read_radio<T>(t: &Table, ctx: &Context, identify: impl FnOnce(&Declared) -> R<T>) -> R<(Declared, T)> {
    let keys = radio_keys();
    let section = Section { path: "radios", keys: &keys };
    section.known(t)?;
    t.req("node")?;
    let declared = Declared {
        node: 0,
        mode: Mode::Station,
        ssid: None,
        channel: None,
        pos: Pos { x: 0.0, y: 0.0, z: 0.0 },
        waypoints: None,
        random_waypoint: None,
        mobility_trace: None,
        trace_node: None,
        subnet: None,
        addr: None,
        phy: ctx.phy,
        mac: ctx.mac.clone(),
        beacons: true,
        ap_spec: ApSpec::new(""),
        sta: StaSpec::new("", Vec::new()),
        roam_at: None,
    };
    fn read<'c>(t: &Table, r: &mut Radio<'c>, keys: &[Key<Radio<'c>>]) -> R<()> {
        for k in keys {
            if let Some(f) = t.opt(k.name) {
                (k.read)(r, &f)?;
            }
        }
        Ok(())
    }
    let mut r = Radio { read: Some((ctx, declared)), written: None };
    read(t, &mut r, &keys[..IDENTITY])?;
    let what = identify(r.d())?;
    read(t, &mut r, &keys[IDENTITY..])?;
    Ok((r.read.expect("read").1, what))
}

/// A radio as the resolved scenario records it: as written (`raw`), with
/// its address and an AP's subnet.
pub(super) fn radio_json(raw: &Value, decl: &RadioDecl) -> Value {
    let Some(raw) = raw.as_object() else { return raw.clone() };
    let keys = radio_keys();
    Section { path: "radios", keys: &keys }.write(&Radio { read: None, written: Some((raw, decl)) })
}

#[cfg(test)]
mod tests {
    use super::super::keys::listed_values;
    use super::*;
    use crate::Scenario;

    /// An AP on `ap` and the radio `lines` on node `sta` (its first line is 13).
    fn with_radio(medium: &str, lines: &str) -> Result<Scenario, String> {
        let text = format!(
            "[sim]\nduration = \"2s\"\n[[nodes]]\nname = \"ap\"\n[[nodes]]\nname = \"sta\"\n[[radios]]\nnode = \"ap\"\nmode = \"ap\"\nssid = \"n\"\n[[radios]]\nnode = \"sta\"\n{lines}\n{medium}"
        );
        Scenario::from_toml_str(&text, "t.toml", &[]).map_err(|e| e.to_string())
    }

    fn error(lines: &str) -> String {
        with_radio("", lines).err().unwrap_or_else(|| panic!("accepted: {lines}"))
    }

    #[test]
    fn bad_radio_keys_are_reported_where_written() {
        let p2p = "[wifi]\nmedium = \"p2p\"\nstandard = \"b\"\nrate = \"2Mbps\"";
        let cases = [
            ("", "ap = \"ap\"\nchannel = 14", "t.toml:14: radios[1].channel: channel 14 is not a channel of 802.11a"),
            ("", "x = 1.0", "t.toml:11: radios[1]: a station needs `ap` (the AP it starts associated with) or `ssid` (the network it joins by scanning)"),
            // What a radio is decides which keys it may have, before their values are read.
            ("", "mode = \"ap\"\nscan = \"lazy\"", "t.toml:14: radios[1].scan: only a station has `scan`"),
            ("", "ap = \"ap\"\nbeacons = true", "t.toml:14: radios[1].beacons: only an AP has `beacons`"),
            ("", "mode = \"adhoc\"\nssid = \"n\"", "t.toml:14: radios[1].ssid: an ad hoc radio has no ssid"),
            ("", "ap = \"ap\"\nwaypoints = [[0, 1.0, 1.0]]\nrandom_waypoint = { area = [0, 0, 10, 10], speed = [1.0, 2.0] }", "t.toml:15: radios[1].random_waypoint: set one of waypoints, random_waypoint, mobility_trace (also waypoints)"),
            ("", "ap = \"ap\"\nmin_channel_time = \"30ms\"\nmax_channel_time = \"20ms\"", "t.toml:15: radios[1].max_channel_time: max_channel_time must be at least min_channel_time"),
            ("", "ap = \"ap\"\nroam_at = [[\"1s\", \"zz\"]]", "t.toml:14: radios[1].roam_at[0][1]: unknown node \"zz\""),
            ("", "ap = \"sta\"", "t.toml:13: radios[1].ap: node \"sta\" has no radio in mode \"ap\""),
            (p2p, "ap = \"ap\"\nroam_at = [[\"1s\", \"best\"]]", "t.toml:14: radios[1].roam_at[0][1]: the p2p medium has no scan: a handoff names its AP"),
            ("", "ap = \"ap\"\ncolour = 1", "t.toml:14: radios[1].colour: unknown key (known: node, mode, ssid, ap, channel, x, y, z, waypoints, random_waypoint, mobility_trace, subnet, addr, rate, tx_power_dbm, rts_threshold, queue_packets, beacons, beacon_interval, scan, scan_channels, min_channel_time, max_channel_time, passive_dwell, roam_threshold_dbm, hysteresis_db, beacon_loss, roam_at, rate_control, trace_node, handoff_warning, warning_threshold_dbm, warn_at, overhear_probe_responses)"),
        ];
        let wrong: Vec<String> = cases
            .iter()
            .filter_map(|(m, l, w)| {
                let got = with_radio(m, l).err().unwrap_or_else(|| "(accepted)".into());
                (got != *w).then(|| format!("{l:?}\n  got {got}"))
            })
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    /// `beacon_interval` of an AP without beacons and `trace_node` without
    /// a setdest trace are not read (so not checked), as before the table.
    #[test]
    fn keys_without_effect_are_not_read() {
        with_radio("", "mode = \"ap\"\nssid = \"m\"\nbeacons = false\nbeacon_interval = \"0s\"").unwrap();
        with_radio("", "ap = \"ap\"\ntrace_node = \"x\"").unwrap();
        assert_eq!(error("mode = \"ap\"\nssid = \"m\"\nbeacon_interval = \"0s\""), "t.toml:15: radios[1].beacon_interval: beacon_interval must be at least 1ms");
    }

    /// A radio is recorded as written, with its resolved address (and an
    /// AP's subnet); the record reads back to the same radios.
    #[test]
    fn resolved_radio_is_as_written_with_its_address() {
        let s = with_radio("", "ap = \"ap\"\nx = 3\nscan = \"passive\"\nrate = \"24Mbps\"").unwrap();
        let j = s.to_json();
        assert_eq!(j["radios"][0].to_string(), r#"{"addr":"172.16.0.1","mode":"ap","node":"ap","ssid":"n","subnet":"172.16.0.0/22"}"#);
        assert_eq!(j["radios"][1].to_string(), r#"{"addr":"172.16.0.2","ap":"ap","node":"sta","rate":"24Mbps","scan":"passive","x":3}"#);
        let back = Scenario::from_json_str(&j.to_string(), "back.json", &[]).unwrap();
        assert_eq!(back.to_json()["radios"], j["radios"]);
    }

    /// Every value a type column lists reads.
    #[test]
    fn every_listed_value_reads() {
        let mut checked = 0;
        for k in radio_keys() {
            for v in listed_values(k.ty) {
                if v.contains('<') || !v.starts_with('"') {
                    continue;
                }
                let lines = match (k.name, v) {
                    ("mode", "\"ap\"") => "mode = \"ap\"\nssid = \"m\"".to_string(),
                    ("mode", "\"adhoc\"") => "mode = \"adhoc\"".to_string(),
                    _ => format!("ap = \"ap\"\n{} = {v}", k.name),
                };
                with_radio("", &lines).unwrap_or_else(|e| panic!("{}: {e}", k.name));
                checked += 1;
            }
        }
        // mode 3, scan 2, rate_control 2.
        assert_eq!(checked, 7);
    }
}
