//! The wireless part of a scenario: the medium (`[wifi]`), the radios of
//! nodes (`[[radios]]`) and fixed per-link frame error rates
//! (`[[wifi_errors]]`), validated with the usual `file:line: key: message`.
//!
//! Addresses: an AP's radio heads a BSS subnet (declared `subnet`, or the
//! automatic /22 at 172.16.0.0 + 1024·k for the k-th AP; the AP takes the
//! first host address, its stations the next ones in declaration order).
//! Ad hoc radios share one subnet (`[wifi] adhoc_subnet`, 192.168.0.0/16).

use std::collections::HashMap;

use airtcp_core::{Duration, Instant};
use airtcp_wifi::medium::RadioSpec;
use airtcp_wifi::mgmt::{ApSpec, MgmtSpec, ScanKind, StaSpec};
use airtcp_wifi::mobility::{self, Mobility, Pos};
use airtcp_wifi::phy::{PathLoss, Rate, Standard};

use super::doc::KeyPath;
use super::names::NodeIndex;
use super::value::{Field, Table, R};
use super::wifi_medium::{at_least_one, finite, rate_control, std_letter};
pub use super::wifi_types::{P2pSpec, RadioDecl, RadioMode, RandomWaypoint, WifiSpec};
use super::NodeSpec;
use crate::network::addr::{fmt_addr, mask, parse_addr, Prefix};

const RADIO_KEYS: &[&str] = &[
    "node", "mode", "ssid", "ap", "channel", "x", "y", "z", "waypoints", "random_waypoint", "mobility_trace", "subnet", "addr", "rate",
    "tx_power_dbm", "rts_threshold", "queue_packets", "beacons", "beacon_interval", "scan", "scan_channels", "min_channel_time",
    "max_channel_time", "passive_dwell", "roam_threshold_dbm", "hysteresis_db", "beacon_loss", "roam_at", "rate_control", "trace_node",
    "handoff_warning", "warning_threshold_dbm", "warn_at", "overhear_probe_responses",
];
/// Keys only a station may have.
const STATION_KEYS: &[&str] =
    &["ap", "scan", "scan_channels", "min_channel_time", "max_channel_time", "passive_dwell", "roam_threshold_dbm", "hysteresis_db", "beacon_loss", "roam_at",
      "handoff_warning", "warning_threshold_dbm", "warn_at", "overhear_probe_responses"];
/// Keys only an AP may have.
const AP_KEYS: &[&str] = &["beacons", "beacon_interval", "subnet"];
/// Automatic BSS subnets: 172.16.0.0/12 in /22 blocks (RFC 1918 space that
/// the link plan, which uses 10.0.0.0/8, never touches).
const AUTO_BSS_BASE: u32 = 0xAC10_0000;
const AUTO_BSS_COUNT: usize = 1024;

/// Read `[wifi]`, `[[radios]]` and `[[wifi_errors]]`; `None` when the
/// scenario has no radios.
pub(super) fn wifi(root: &Table, nodes: &[NodeSpec], index: &NodeIndex) -> R<Option<WifiSpec>> {
    let radios_f = root.opt("radios");
    let wifi_t = root.opt("wifi").map(|f| f.table()).transpose()?;
    let Some(radios_f) = radios_f else {
        if let Some(t) = &wifi_t {
            return Err(t.err("[wifi] is set but there are no [[radios]]"));
        }
        if let Some(f) = root.opt("wifi_errors") {
            return Err(f.err("[[wifi_errors]] needs [[radios]]"));
        }
        return Ok(None);
    };
    let empty = serde_json::Value::Object(Default::default());
    let w = match wifi_t {
        Some(t) => t,
        None => Table::new(root.doc, KeyPath::root().key("wifi"), &empty)?,
    };
    let super::wifi_medium::Medium { standard, phy, path_loss, shadowing, mac, p2p, adhoc_subnet } = super::wifi_medium::medium(&w)?;

    // Radios: first pass reads each; stations resolve their AP after.
    let items = radios_f.list()?;
    let mut out: Vec<RadioDecl> = Vec::with_capacity(items.len());
    let mut station_ap: Vec<Option<(usize, Field)>> = Vec::with_capacity(items.len());
    let mut scripts: Vec<(usize, Field)> = Vec::new();
    let mut ap_of_node: HashMap<usize, usize> = HashMap::new();
    let mut seen_node: HashMap<usize, usize> = HashMap::new();
    let mut declared_addr: Vec<Option<(u32, Field)>> = Vec::with_capacity(items.len());
    let mut declared_subnet: Vec<Option<(Prefix, Field)>> = Vec::with_capacity(items.len());
    for i in 0..items.len() {
        let t = radios_f.item(i).table()?;
        t.known(RADIO_KEYS)?;
        let nf = t.req("node")?;
        let ns = nf.str()?;
        let node = index.get(ns).ok_or_else(|| nf.err(format!("unknown node \"{ns}\"")))?;
        if let Some(j) = seen_node.insert(node, i) {
            return Err(nf.err(format!("node \"{}\" already has a radio (radios[{j}]); one radio per node", nodes[node].name)));
        }
        let mode_f = t.opt("mode");
        let mode_s = mode_f.as_ref().map(|f| f.str()).transpose()?.unwrap_or("station");
        let ssid = match t.opt("ssid") {
            Some(f) => {
                let s = f.str()?;
                if s.is_empty() || s.len() > 32 {
                    return Err(f.err("ssid must be 1 to 32 bytes (802.11-2016 9.4.2.2)"));
                }
                Some(s.to_string())
            }
            None => None,
        };
        let mode = match mode_s {
            "ap" => {
                ap_of_node.insert(node, i);
                RadioMode::Ap { ssid: ssid.clone().unwrap_or_else(|| "airtcp".to_string()) }
            }
            "station" => RadioMode::Station { ssid: ssid.clone().unwrap_or_default(), ap: None },
            "adhoc" if p2p.is_some() => return Err(mode_f.expect("non-default mode is declared").err("the p2p medium has no ad hoc radios (only base stations and stations)")),
            "adhoc" => {
                if let Some(f) = t.opt("ssid") {
                    return Err(f.err("an ad hoc radio has no ssid"));
                }
                RadioMode::AdHoc
            }
            s => return Err(mode_f.expect("non-default mode is declared").err(format!("unknown mode \"{s}\" (known: ap, station, adhoc)"))),
        };
        let is_station = matches!(mode, RadioMode::Station { .. });
        for k in STATION_KEYS {
            if let (Some(f), false) = (t.opt(k), is_station) {
                return Err(f.err(format!("only a station has `{k}`")));
            }
        }
        for k in AP_KEYS {
            if let (Some(f), false) = (t.opt(k), matches!(mode, RadioMode::Ap { .. })) {
                return Err(f.err(format!("only an AP has `{k}`")));
            }
        }
        station_ap.push(match (is_station, t.opt("ap")) {
            (true, Some(f)) => Some((i, f)),
            (true, None) if ssid.is_none() => return Err(t.err("a station needs `ap` (the AP it starts associated with) or `ssid` (the network it joins by scanning)")),
            (_, _) => None,
        });
        if let Some(f) = t.opt("roam_at") {
            scripts.push((i, f));
        }
        let channel = match t.opt("channel") {
            Some(f) => {
                let c = f.u32()?;
                if c > 255 || !standard.valid_channel(c as u8) {
                    return Err(f.err(format!("channel {c} is not a channel of 802.11{}", std_letter(standard))));
                }
                c as u8
            }
            None => standard.default_channel(),
        };
        let (mobility, random_waypoint) = mobility_of(&t)?;
        let mut rp = phy;
        read_dbm(&t, "tx_power_dbm", &mut rp.tx_power_dbm)?;
        let mut mp = mac.clone();
        if let Some(f) = t.opt("rate") {
            mp.data_rate = rate(&f, standard)?;
        }
        if let Some(f) = t.opt("rts_threshold") {
            mp.rts_threshold = f.u32()?;
        }
        if let Some(f) = t.opt("queue_packets") {
            mp.queue_limit = at_least_one(&f, "queue_packets")?;
        }
        if let Some(f) = t.opt("rate_control") {
            mp.rate_control = rate_control(&f)?;
        }
        let mgmt = match &mode {
            RadioMode::Ap { ssid } => {
                let beacons = t.opt("beacons").map(|f| f.bool()).transpose()?.unwrap_or(true);
                if beacons {
                    let mut a = ApSpec::new(ssid);
                    if let Some(f) = t.opt("beacon_interval") {
                        a.beacon_interval = f.duration()?;
                        if a.beacon_interval < Duration::from_millis(1) {
                            return Err(f.err("beacon_interval must be at least 1ms"));
                        }
                    }
                    MgmtSpec::Ap(a)
                } else {
                    MgmtSpec::Static
                }
            }
            RadioMode::Station { ssid, .. } => MgmtSpec::Station(station_spec(&t, ssid)?),
            RadioMode::AdHoc => MgmtSpec::Static,
        };
        declared_addr.push(t.opt("addr").map(|f| f.str().and_then(|s| parse_addr(s).map_err(|m| f.err(m))).map(|a| (a, f.clone()))).transpose()?);
        declared_subnet.push(match (t.opt("subnet"), &mode) {
            (Some(f), RadioMode::Ap { .. }) => Some((Prefix::parse(f.str()?).map_err(|m| f.err(m))?, f)),
            (Some(f), _) => return Err(f.err("only an AP declares a subnet (stations take their network's; ad hoc radios use [wifi] adhoc_subnet)")),
            (None, _) => None,
        });
        out.push(RadioDecl {
            node,
            mode,
            spec: RadioSpec { name: nodes[node].name.clone(), mobility, channel, phy: rp, mac: mp, ap: None, mgmt },
            subnet: Prefix::new(0, 0),
            addr: 0,
            random_waypoint,
        });
    }
    let ap_ref = |f: &Field| -> R<usize> {
        let s = f.str()?;
        let n = index.get(s).ok_or_else(|| f.err(format!("unknown node \"{s}\"")))?;
        ap_of_node.get(&n).copied().ok_or_else(|| f.err(format!("node \"{s}\" has no radio in mode \"ap\"")))
    };
    for (i, f) in station_ap.into_iter().flatten() {
        let ap = ap_ref(&f)?;
        let s = f.str()?;
        if out[ap].spec.channel != out[i].spec.channel && t_has(radios_f.item(i), "channel") {
            return Err(f.err(format!("AP \"{s}\" is on channel {} and this station on {}", out[ap].spec.channel, out[i].spec.channel)));
        }
        out[i].spec.channel = out[ap].spec.channel;
        let RadioMode::Ap { ssid: ap_ssid } = out[ap].mode.clone() else { unreachable!("ap_of_node holds APs") };
        let RadioMode::Station { ssid, .. } = &mut out[i].mode else { unreachable!("only stations have `ap`") };
        if ssid.is_empty() {
            *ssid = ap_ssid.clone();
        } else if *ssid != ap_ssid {
            return Err(f.err(format!("AP \"{s}\" has ssid \"{ap_ssid}\", this station \"{ssid}\"")));
        }
        out[i].mode = RadioMode::Station { ssid: ap_ssid.clone(), ap: Some(ap) };
        out[i].spec.ap = Some(ap as u32);
        if let MgmtSpec::Station(st) = &mut out[i].spec.mgmt {
            st.ssid = ap_ssid;
        }
        if matches!(out[ap].spec.mgmt, MgmtSpec::Static) {
            out[i].spec.mgmt = MgmtSpec::Static;
        }
    }
    // Every station's network must have an AP; scan lists default to the
    // channels of that network's APs.
    for i in 0..out.len() {
        let RadioMode::Station { ssid, .. } = out[i].mode.clone() else { continue };
        let chans: std::collections::BTreeSet<u8> =
            out.iter().filter(|r| matches!(&r.mode, RadioMode::Ap { ssid: s } if *s == ssid)).map(|r| r.spec.channel).collect();
        if chans.is_empty() {
            return Err(root.doc.err(&KeyPath::root().key("radios").index(i).key("ssid"), format!("no AP has ssid \"{ssid}\"")));
        }
        if let MgmtSpec::Station(st) = &mut out[i].spec.mgmt {
            if st.channels.is_empty() {
                st.channels = chans.into_iter().collect();
            }
        }
    }
    for (i, f) in scripts {
        let list = f.list()?;
        let mut steps = Vec::with_capacity(list.len());
        let mut aways = Vec::with_capacity(list.len());
        let mut last = None;
        for k in 0..list.len() {
            let e = f.item(k);
            let v = e.list()?;
            if v.len() != 2 && v.len() != 3 {
                return Err(e.err("a scripted handoff is [time, \"ap-node\"] or [time, \"best\"], optionally with an away time [time, \"ap2\", \"2s\"]"));
            }
            aways.push(if v.len() == 3 { e.item(2).duration()? } else { Duration::ZERO });
            let at = e.item(0).duration()?;
            if last.is_some_and(|l| at <= l) {
                return Err(e.item(0).err("scripted handoffs must be in increasing time order"));
            }
            // On the p2p medium a handoff is a stretch out of coverage: the
            // next may not begin before the station is in a cell again.
            if let (Some(_), Some(&prev_away), Some(l)) = (p2p, aways.get(k.wrapping_sub(1)), last) {
                if at <= l + prev_away {
                    return Err(e.item(0).err(format!(
                        "handoff at {} begins before the previous one ends ({} + {} away)",
                        super::units::format_duration(at),
                        super::units::format_duration(l),
                        super::units::format_duration(prev_away)
                    )));
                }
            }
            last = Some(at);
            let target = match e.item(1).str()? {
                "best" if p2p.is_some() => return Err(e.item(1).err("the p2p medium has no scan: a handoff names its AP")),
                "best" => None,
                _ => Some(ap_ref(&e.item(1))? as u32),
            };
            steps.push((Instant::ZERO + at, target));
        }
        match &mut out[i].spec.mgmt {
            MgmtSpec::Station(st) => {
                st.scripted = steps;
                st.scripted_away = aways;
            }
            _ => return Err(f.err("roam_at needs an AP that beacons (its `beacons` is false)")),
        }
    }
    assign_addresses(root, &mut out, &declared_subnet, &declared_addr, adhoc_subnet)?;
    if p2p.is_none() {
        check_reach(root, &out, &path_loss)?;
    } else if let Some(i) = out.iter().position(|r| matches!(r.mode, RadioMode::Station { ap: None, .. })) {
        return Err(root.doc.err(&KeyPath::root().key("radios").index(i), "a station of the p2p medium needs `ap` (the cell it starts in)"));
    }
    let errors = super::wifi_errors::wifi_errors(root, &out, nodes, index)?;
    let raw = [
        root.opt("wifi").map(|f| f.v.clone()).unwrap_or_else(|| serde_json::json!({})),
        radios_f.v.clone(),
        root.opt("wifi_errors").map(|f| f.v.clone()).unwrap_or_else(|| serde_json::json!([])),
    ];
    Ok(Some(WifiSpec { raw, standard, path_loss, shadowing, radios: out, errors, p2p }))
}

fn read_dbm(t: &Table, key: &str, into: &mut f64) -> R<()> {
    if let Some(f) = t.opt(key) {
        *into = finite(&f)?;
    }
    Ok(())
}

/// "54Mbps" / "5.5Mbps" text or a number of Mb/s, one of the standard's rates.
fn rate(f: &Field, std: Standard) -> R<Rate> {
    let mbps = match f.v {
        serde_json::Value::String(_) => f.rate()? as f64 / 1e6,
        _ => finite(f)?,
    };
    Rate::from_mbps(std, mbps).ok_or_else(|| {
        let known: Vec<String> = std.rates().iter().map(|r| format!("{}", r.mbps())).collect();
        f.err(format!("{mbps} Mb/s is not a rate of 802.11{} (known: {})", std_letter(std), known.join(", ")))
    })
}

/// The radio's mobility: a fixed position (`x`, `y`, `z`), `waypoints =
/// [[t_s, x, y], ...]`, `random_waypoint = { area = [x0, y0, x1, y1], speed
/// = [min, max], pause = "2s", seed_name }` or `mobility_trace = "file.csv"`.
fn mobility_of(t: &Table) -> R<(Mobility, Option<RandomWaypoint>)> {
    let coord = |k: &str| t.opt(k).map(|f| finite(&f)).transpose().map(|v| v.unwrap_or(0.0));
    let pos = Pos { x: coord("x")?, y: coord("y")?, z: coord("z")? };
    let kinds: Vec<&str> = ["waypoints", "random_waypoint", "mobility_trace"].into_iter().filter(|k| t.opt(k).is_some()).collect();
    if kinds.len() > 1 {
        return Err(t.opt(kinds[1]).expect("present").err(format!("set one of waypoints, random_waypoint, mobility_trace (also {})", kinds[0])));
    }
    if let Some(f) = t.opt("waypoints") {
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
            let nums: Vec<f64> = (0..v.len()).map(|j| finite(&e.item(j))).collect::<R<_>>()?;
            if nums[0] < 0.0 || last.is_some_and(|l| nums[0] <= l) {
                return Err(e.item(0).err(format!("waypoint time {} must be non-negative and after the previous one", nums[0])));
            }
            last = Some(nums[0]);
            let at = Instant::from_nanos((nums[0] * 1e9).round() as u64);
            pts.push((at, Pos { x: nums[1], y: nums[2], z: nums.get(3).copied().unwrap_or(0.0) }));
        }
        return Ok((Mobility::Waypoints(pts), None));
    }
    if let Some(f) = t.opt("random_waypoint") {
        let rt = f.table()?;
        rt.known(&["area", "speed", "pause"])?;
        let af = rt.req("area")?;
        let area: Vec<f64> = (0..af.list()?.len()).map(|j| finite(&af.item(j))).collect::<R<_>>()?;
        if area.len() != 4 || area[2] <= area[0] || area[3] <= area[1] {
            return Err(af.err("area is [x0, y0, x1, y1] with x1 > x0 and y1 > y0"));
        }
        let sf = rt.req("speed")?;
        let speed: Vec<f64> = (0..sf.list()?.len()).map(|j| finite(&sf.item(j))).collect::<R<_>>()?;
        if speed.len() != 2 || speed[0] <= 0.0 || speed[1] < speed[0] {
            return Err(sf.err("speed is [min, max] in m/s with 0 < min <= max"));
        }
        let pause = rt.opt("pause").map(|f| f.duration()).transpose()?.unwrap_or(Duration::ZERO);
        let area = (area[0], area[1], area[2], area[3]);
        // Checked here so a bad table fails at load, not at build.
        let m = Mobility::random_waypoint(area, speed[0], speed[1], pause, 0, "check").map_err(|m| f.err(m))?;
        return Ok((m, Some((area, speed[0], speed[1], pause))));
    }
    if let Some(f) = t.opt("mobility_trace") {
        let rel = f.str()?;
        let path = super::trace::resolve(&t.doc.origin, rel);
        let text = std::fs::read_to_string(&path).map_err(|e| f.err(format!("cannot read {}: {e}", path.display())))?;
        if text.contains("$node_(") {
            // An ns-2 setdest file: `trace_node` picks the node (default 0).
            let want = t.opt("trace_node").map(|g| g.u32()).transpose()?.unwrap_or(0);
            let all = mobility::parse_setdest(&text).map_err(|m| f.err(format!("{}: {m}", path.display())))?;
            return match all.into_iter().find(|(n, _)| *n == want) {
                Some((_, m)) => Ok((m, None)),
                None => Err(f.err(format!("{}: no $node_({want}) in the setdest file", path.display()))),
            };
        }
        if let Some(g) = t.opt("trace_node") {
            return Err(g.err("trace_node applies to ns-2 setdest files only"));
        }
        return mobility::parse_csv(&text).map(|m| (m, None)).map_err(|m| f.err(format!("{}: {m}", path.display())));
    }
    Ok((Mobility::Static(pos), None))
}

fn t_has(f: Field, key: &str) -> bool {
    f.table().is_ok_and(|t| t.opt(key).is_some())
}

/// A station's scanning and roaming keys.
fn station_spec(t: &Table, ssid: &str) -> R<StaSpec> {
    let mut s = StaSpec::new(ssid, Vec::new());
    if let Some(f) = t.opt("scan") {
        s.scan = match f.str()? {
            "active" => ScanKind::Active,
            "passive" => ScanKind::Passive,
            x => return Err(f.err(format!("unknown scan \"{x}\" (known: active, passive)"))),
        };
    }
    if let Some(f) = t.opt("scan_channels") {
        let n = f.list()?.len();
        if n == 0 {
            return Err(f.err("scan_channels needs at least one channel"));
        }
        for k in 0..n {
            let c = f.item(k).u32()?;
            if c == 0 || c > 255 {
                return Err(f.item(k).err(format!("{c} is not a channel number")));
            }
            s.channels.push(c as u8);
        }
    }
    for (key, slot) in [("min_channel_time", &mut s.min_channel_time), ("max_channel_time", &mut s.max_channel_time), ("passive_dwell", &mut s.passive_dwell)] {
        if let Some(f) = t.opt(key) {
            *slot = f.duration()?;
            if *slot == Duration::ZERO {
                return Err(f.err(format!("{key} must be positive")));
            }
        }
    }
    if s.max_channel_time < s.min_channel_time {
        let f = t.opt("max_channel_time").or_else(|| t.opt("min_channel_time")).expect("one of them was set");
        return Err(f.err("max_channel_time must be at least min_channel_time"));
    }
    if let Some(f) = t.opt("roam_threshold_dbm") {
        s.roam_threshold_dbm = Some(finite(&f)?);
    }
    if let Some(f) = t.opt("hysteresis_db") {
        s.hysteresis_db = finite(&f)?;
        if s.hysteresis_db < 0.0 {
            return Err(f.err("hysteresis_db must not be negative"));
        }
    }
    if let Some(f) = t.opt("beacon_loss") {
        s.beacon_loss = at_least_one(&f, "beacon_loss")?;
    }
    if let Some(f) = t.opt("handoff_warning") {
        s.handoff_warning = Some(f.duration()?);
    }
    if let Some(f) = t.opt("warning_threshold_dbm") {
        s.warning_threshold_dbm = Some(finite(&f)?);
    }
    if let Some(f) = t.opt("overhear_probe_responses") {
        s.overhear_probe_responses = f.bool()?;
    }
    if let Some(f) = t.opt("warn_at") {
        let items = f.list()?;
        for i in 0..items.len() {
            let at = airtcp_core::Instant::ZERO + f.item(i).duration()?;
            if s.warn_at.last().is_some_and(|&p| at <= p) {
                return Err(f.item(i).err("warn_at must be increasing"));
            }
            s.warn_at.push(at);
        }
    }
    Ok(s)
}

/// Give every radio its subnet and address (see the module doc).
fn assign_addresses(root: &Table, out: &mut [RadioDecl], subnets: &[Option<(Prefix, Field)>], addrs: &[Option<(u32, Field)>], adhoc: Prefix) -> R<()> {
    let radios_path = KeyPath::root().key("radios");
    // One subnet per network (SSID), from its first AP: declared or the
    // next automatic block; every AP of the network must agree.
    let mut ess: Vec<(String, Prefix, u32)> = Vec::new();
    for i in 0..out.len() {
        let RadioMode::Ap { ssid } = &out[i].mode else { continue };
        match ess.iter().position(|e| e.0 == *ssid) {
            // A later AP that declares another subnet heads its own BSS
            // subnet (a network routed per AP: roaming between them changes
            // subnet, what Mobile IP handles); its stations still take the
            // network's first subnet.
            Some(_) => {}
            None => {
                let p = match &subnets[i] {
                    Some((p, _)) => *p,
                    None => {
                        let k = ess.iter().filter(|e| e.2 == u32::MAX).count();
                        if k >= AUTO_BSS_COUNT {
                            return Err(root.doc.err(&radios_path.index(i), format!("more than {AUTO_BSS_COUNT} networks need declared subnets")));
                        }
                        Prefix::new(AUTO_BSS_BASE + (k as u32) * 1024, 22)
                    }
                };
                let auto = if subnets[i].is_some() { 0 } else { u32::MAX };
                ess.push((ssid.clone(), p, auto));
            }
        }
    }
    // Next free host address of every subnet in use, in order of first use.
    let mut next: Vec<(Prefix, u32)> = ess.iter().map(|e| (e.1, e.1.addr + 1)).collect();
    let mut adhoc_next = adhoc.addr + 1;
    for i in 0..out.len() {
        let (subnet, counter) = match &out[i].mode {
            RadioMode::Ap { ssid } | RadioMode::Station { ssid, .. } => {
                let k = ess.iter().position(|e| e.0 == *ssid).expect("every network has an AP (checked)");
                let own = match (&out[i].mode, &subnets[i]) {
                    (RadioMode::Ap { .. }, Some((p, _))) => *p,
                    _ => ess[k].1,
                };
                let j = match next.iter().position(|e| e.0 == own) {
                    Some(j) => j,
                    None => {
                        next.push((own, own.addr + 1));
                        next.len() - 1
                    }
                };
                (own, &mut next[j].1)
            }
            RadioMode::AdHoc => (adhoc, &mut adhoc_next),
        };
        let bcast = subnet.addr | !mask(subnet.len);
        let addr = match &addrs[i] {
            Some((a, f)) => {
                if !subnet.contains(*a) || *a == subnet.addr || *a == bcast {
                    return Err(f.err(format!("{} is not a host address of the radio's subnet {subnet}", fmt_addr(*a))));
                }
                *a
            }
            None => {
                let a = *counter;
                *counter += 1;
                if a >= bcast {
                    return Err(root.doc.err(&radios_path.index(i), format!("subnet {subnet} has no free host address left")));
                }
                a
            }
        };
        out[i].subnet = subnet;
        out[i].addr = addr;
    }
    let mut all: Vec<(u32, usize)> = out.iter().enumerate().map(|(i, r)| (r.addr, i)).collect();
    all.sort_unstable();
    for w in all.windows(2) {
        if w[0].0 == w[1].0 {
            return Err(root.doc.err(&radios_path.index(w[1].1).key("addr"), format!("address {} is also used by radios[{}]", fmt_addr(w[0].0), w[0].1)));
        }
    }
    Ok(())
}

/// A station must hear its AP at the start (received power at or above its
/// sensitivity), or it could never have associated.
fn check_reach(root: &Table, out: &[RadioDecl], pl: &PathLoss) -> R<()> {
    for (i, r) in out.iter().enumerate() {
        if let RadioMode::Station { ap: Some(ap), .. } = r.mode {
            let a = &out[ap];
            if a.random_waypoint.is_some() || r.random_waypoint.is_some() {
                continue;
            }
            let d = a.spec.mobility.clone().position(Instant::ZERO).dist(&r.spec.mobility.clone().position(Instant::ZERO));
            let p = pl.rx_power_dbm(a.spec.phy.tx_power_dbm + a.spec.phy.antenna_gain_db + r.spec.phy.antenna_gain_db, d);
            if p < r.spec.phy.rx_sensitivity_dbm {
                return Err(root.doc.err(
                    &KeyPath::root().key("radios").index(i),
                    format!("station is {d:.1} m from its AP and receives it at {p:.1} dBm, below its sensitivity {:.1} dBm: it can reach no AP", r.spec.phy.rx_sensitivity_dbm),
                ));
            }
        }
    }
    Ok(())
}

/// Node pairs a wireless segment connects (every radio of a network with
/// its first AP; every ad hoc radio with the first one), for reachability
/// checks.
pub(super) fn segment_pairs(w: &WifiSpec) -> Vec<(usize, usize)> {
    let first_adhoc = w.radios.iter().position(|r| r.mode == RadioMode::AdHoc);
    let first_ap = |ssid: &str| w.radios.iter().position(|r| matches!(&r.mode, RadioMode::Ap { ssid: s } if s == ssid));
    w.radios
        .iter()
        .filter_map(|r| match &r.mode {
            RadioMode::Station { ssid, .. } | RadioMode::Ap { ssid } => first_ap(ssid).map(|a| (r.node, w.radios[a].node)),
            RadioMode::AdHoc => first_adhoc.map(|f| (r.node, w.radios[f].node)),
        })
        .collect()
}

/// Add the wireless sections to a resolved scenario's JSON: as written, with
/// each radio's resolved address (and an AP's subnet) filled in.
pub(super) fn wifi_json(w: &WifiSpec, out: &mut serde_json::Value) {
    out["wifi"] = w.raw[0].clone();
    let mut radios = w.raw[1].clone();
    if let Some(list) = radios.as_array_mut() {
        for (r, v) in w.radios.iter().zip(list.iter_mut()) {
            v["addr"] = serde_json::json!(fmt_addr(r.addr));
            if let RadioMode::Ap { .. } = r.mode {
                v["subnet"] = serde_json::json!(r.subnet.to_string());
            }
        }
    }
    out["radios"] = radios;
    if w.raw[2].as_array().is_some_and(|a| !a.is_empty()) {
        out["wifi_errors"] = w.raw[2].clone();
    }
}
