//! The wireless part of a scenario: the medium (`[wifi]`), the radios of
//! nodes (`[[radios]]`) and fixed per-link frame error rates
//! (`[[wifi_errors]]`), validated with the usual `file:line: key: message`.
//!
//! Addresses: an AP's radio heads a BSS subnet (declared `subnet`, or the
//! automatic /22 at 172.16.0.0 + 1024·k for the k-th AP; the AP takes the
//! first host address, its stations the next ones in declaration order).
//! Ad hoc radios share one subnet (`[wifi] adhoc_subnet`, 192.168.0.0/16).
//!
//! Each radio's keys are read by their table (`super::radio_keys`); this
//! reader checks what depends on several keys and on the other radios.

use std::collections::HashMap;

use airtcp_core::Instant;
use airtcp_wifi::medium::RadioSpec;
use airtcp_wifi::mgmt::{ApSpec, MgmtSpec};
use airtcp_wifi::mobility::{Mobility, Pos};
use airtcp_wifi::phy::PathLoss;

use super::doc::KeyPath;
use super::names::NodeIndex;
use super::radio_keys::{radio_json, read_radio, Context, Declared, Handoff, Mode, MobilityTrace};
use super::value::{Field, Table, R};
pub use super::wifi_types::{P2pSpec, RadioDecl, RadioMode, RandomWaypoint, WifiSpec};
use super::NodeSpec;
use crate::network::addr::{fmt_addr, mask, Prefix};

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
    let mut scripts: Vec<(usize, Field, Vec<Handoff>)> = Vec::new();
    let mut ap_of_node: HashMap<usize, usize> = HashMap::new();
    let mut radio_of_node: HashMap<usize, usize> = HashMap::new();
    let mut declared_addr: Vec<Option<(u32, Field)>> = Vec::with_capacity(items.len());
    let mut declared_subnet: Vec<Option<(Prefix, Field)>> = Vec::with_capacity(items.len());
    for i in 0..items.len() {
        let t = radios_f.item(i).table()?;
        let ctx = Context { nodes, index, standard, p2p: p2p.is_some(), phy, mac: &mac, radio_of_node: &radio_of_node };
        // What the radio is (its node, mode and network) decides which
        // other keys it may have: checked before their values are read.
        let identify = |d: &Declared| -> R<RadioMode> {
            let mode = match d.mode {
                Mode::Ap => RadioMode::Ap { ssid: d.ssid.clone().unwrap_or_else(|| "airtcp".to_string()) },
                Mode::Station => RadioMode::Station { ssid: d.ssid.clone().unwrap_or_default(), ap: None },
                Mode::AdHoc if p2p.is_some() => return Err(t.req("mode")?.err("the p2p medium has no ad hoc radios (only base stations and stations)")),
                Mode::AdHoc => {
                    if let Some(f) = t.opt("ssid") {
                        return Err(f.err("an ad hoc radio has no ssid"));
                    }
                    RadioMode::AdHoc
                }
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
            if is_station && t.opt("ap").is_none() && d.ssid.is_none() {
                return Err(t.err("a station needs `ap` (the AP it starts associated with) or `ssid` (the network it joins by scanning)"));
            }
            Ok(mode)
        };
        let (d, mode) = read_radio(&t, &ctx, identify)?;
        radio_of_node.insert(d.node, i);
        if let RadioMode::Ap { .. } = mode {
            ap_of_node.insert(d.node, i);
        }
        let is_station = matches!(mode, RadioMode::Station { .. });
        station_ap.push(t.opt("ap").filter(|_| is_station).map(|f| (i, f)));
        if let Some(steps) = d.roam_at {
            scripts.push((i, t.req("roam_at")?, steps));
        }
        let channel = d.channel.unwrap_or_else(|| standard.default_channel());
        let (mobility, random_waypoint) = mobility_of(&t, d.pos, d.waypoints, d.random_waypoint, d.mobility_trace, d.trace_node)?;
        let mgmt = match &mode {
            RadioMode::Ap { ssid } if d.beacons => MgmtSpec::Ap(ApSpec { ssid: ssid.clone(), ..d.ap_spec }),
            RadioMode::Ap { .. } | RadioMode::AdHoc => MgmtSpec::Static,
            RadioMode::Station { ssid, .. } => {
                let mut s = d.sta;
                if s.max_channel_time < s.min_channel_time {
                    let f = t.opt("max_channel_time").or_else(|| t.opt("min_channel_time")).expect("one of them was set");
                    return Err(f.err("max_channel_time must be at least min_channel_time"));
                }
                s.ssid = ssid.clone();
                MgmtSpec::Station(s)
            }
        };
        declared_addr.push(d.addr.map(|a| (a, t.opt("addr").expect("read from the table"))));
        declared_subnet.push(match (d.subnet, &mode) {
            (Some(p), RadioMode::Ap { .. }) => Some((p, t.opt("subnet").expect("read from the table"))),
            (Some(_), _) => return Err(t.req("subnet")?.err("only an AP declares a subnet (stations take their network's; ad hoc radios use [wifi] adhoc_subnet)")),
            (None, _) => None,
        });
        out.push(RadioDecl {
            node: d.node,
            mode,
            spec: RadioSpec { name: nodes[d.node].name.clone(), mobility, channel, phy: d.phy, mac: d.mac, ap: None, mgmt },
            subnet: Prefix::new(0, 0),
            addr: 0,
            random_waypoint,
        });
    }
    // The AP radio of node `s`, named at `path`.
    let ap_named = |s: &str, path: &KeyPath| -> R<usize> {
        let n = index.get(s).ok_or_else(|| root.doc.err(path, format!("unknown node \"{s}\"")))?;
        ap_of_node.get(&n).copied().ok_or_else(|| root.doc.err(path, format!("node \"{s}\" has no radio in mode \"ap\"")))
    };
    let ap_ref = |f: &Field| -> R<usize> { ap_named(f.str()?, &f.path) };
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
    for (i, f, steps) in scripts {
        let mut scripted = Vec::with_capacity(steps.len());
        let mut aways = Vec::with_capacity(steps.len());
        for h in steps {
            let target = match h.target {
                Some((name, path)) => Some(ap_named(&name, &path)? as u32),
                None => None,
            };
            scripted.push((Instant::ZERO + h.at, target));
            aways.push(h.away);
        }
        match &mut out[i].spec.mgmt {
            MgmtSpec::Station(st) => {
                st.scripted = scripted;
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

/// The radio's mobility from its keys (each already read): a fixed
/// position (`x`, `y`, `z`), or one of `waypoints`, `random_waypoint` and
/// `mobility_trace` (with `trace_node` for an ns-2 setdest file).
fn mobility_of(
    t: &Table,
    pos: Pos,
    waypoints: Option<Mobility>,
    random_waypoint: Option<(Mobility, RandomWaypoint)>,
    trace: Option<MobilityTrace>,
    trace_node: Option<u32>,
) -> R<(Mobility, Option<RandomWaypoint>)> {
    let kinds: Vec<&str> = ["waypoints", "random_waypoint", "mobility_trace"].into_iter().filter(|k| t.opt(k).is_some()).collect();
    if kinds.len() > 1 {
        return Err(t.opt(kinds[1]).expect("present").err(format!("set one of waypoints, random_waypoint, mobility_trace (also {})", kinds[0])));
    }
    if let Some(m) = waypoints {
        return Ok((m, None));
    }
    if let Some((m, rw)) = random_waypoint {
        return Ok((m, Some(rw)));
    }
    match trace {
        // An ns-2 setdest file: `trace_node` picks the node (default 0).
        Some(MobilityTrace::Setdest(all, path)) => {
            let want = trace_node.unwrap_or(0);
            match all.into_iter().find(|(n, _)| *n == want) {
                Some((_, m)) => Ok((m, None)),
                None => Err(t.req("mobility_trace")?.err(format!("{path}: no $node_({want}) in the setdest file"))),
            }
        }
        Some(MobilityTrace::Csv(m)) => match t.opt("trace_node") {
            Some(g) => Err(g.err("trace_node applies to ns-2 setdest files only")),
            None => Ok((m, None)),
        },
        None => Ok((Mobility::Static(pos), None)),
    }
}

fn t_has(f: Field, key: &str) -> bool {
    f.table().is_ok_and(|t| t.opt(key).is_some())
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
            *v = radio_json(v, r);
        }
    }
    out["radios"] = radios;
    if w.raw[2].as_array().is_some_and(|a| !a.is_empty()) {
        out["wifi_errors"] = w.raw[2].clone();
    }
}
