//! Building the network of a scenario: a medium per link and one for the
//! radios, interfaces with addresses (declared or from the automatic plan),
//! connected routes, agents.

use std::collections::VecDeque;

use airtcp_agents::{Agent, AnyAgent};
use airtcp_core::{Instant, MacAddr, RngStream};

use super::addr::Prefix;
use super::fib::{Fib, Origin, Route};
use super::node::{HopCache, Iface, Node, NO_RADIO};
use super::path::union_hooks;
use super::{AnyMedium, NetStats, Network, PointToPoint};
use crate::link::aqm::{Aqm, AqmSpec, Red};
use crate::link::{LinkDir, LossModel, LossProcess, RateModel, Reorder};
use crate::pcap_out::PcapOut;
use super::cells::{CellParams, CellRadio, Cells};
use crate::scenario::wifi::{P2pSpec, RadioMode, WifiSpec};
use airtcp_core::Duration;
use airtcp_wifi::medium::RadioSpec;
use airtcp_wifi::mgmt::MgmtSpec;
use airtcp_wifi::medium::Wlan;
use airtcp_wifi::mobility::Mobility;
use crate::scenario::{LinkSpec, Scenario, TraceModel, TraceSpec, DIR_NAMES};
use crate::slab::Slab;

impl Network {
    /// The network of a scenario, for tests and tools (no capture).
    pub fn from_scenario(sc: &Scenario, seed: u64) -> Network {
        Self::from_scenario_with_pcap(sc, seed, None)
    }

    pub(crate) fn from_scenario_with_pcap(sc: &Scenario, seed: u64, pcap: Option<PcapOut>) -> Network {
        let end = Instant::ZERO + sc.sim.duration;
        let mut nodes: Vec<Node> = sc.nodes.iter().map(|n| Node { learning: n.learn_hosts, ..Node::default() }).collect();
        let mut ifaces = Vec::with_capacity(2 * sc.links.len());
        let mut media = Vec::with_capacity(sc.links.len() + 1);
        let mut media_iface = Vec::with_capacity(sc.links.len() + 1);
        for (li, l) in sc.links.iter().enumerate() {
            media.push(AnyMedium::Link(PointToPoint::new(link_dir(l, 0, seed), link_dir(l, 1, seed))));
            let (subnet, addrs) = (l.subnet, l.addr);
            let first = ifaces.len() as u32;
            for (end, &node) in [l.a, l.b].iter().enumerate() {
                let local = nodes[node].ifaces.len() as u32;
                if local == 0 {
                    nodes[node].primary = Some(addrs[end]);
                }
                nodes[node].ifaces.push(first + end as u32);
                nodes[node].fib.insert(subnet, Route { iface: first + end as u32, origin: Origin::Connected, via: 0 });
                ifaces.push(Iface {
                    node: node as u32,
                    channel: li as u32,
                    end: end as u8,
                    peer: first + 1 - end as u32,
                    addr: addrs[end],
                    subnet,
                    mac: MacAddr::local(first + end as u32 + 1),
                    peer_mac: MacAddr::local(first + 1 - end as u32 + 1),
                    up: true,
                    local,
                    radio: NO_RADIO,
                });
            }
            media_iface.push(first);
        }
        let wifi = sc.wifi.as_ref().map(|w| wifi_ifaces(w, seed, media.len() as u32, &mut nodes, &mut ifaces));
        let mut addr_table: Vec<(u32, u32)> = ifaces.iter().enumerate().map(|(i, f)| (f.addr, i as u32)).collect();
        addr_table.sort_unstable();
        let (subnets, subnet_index) = subnet_table(&ifaces);
        let mut agents = Vec::with_capacity(sc.agents.len());
        let mut agent_at = Vec::with_capacity(sc.agents.len());
        for (ai, decl) in sc.agents.iter().enumerate() {
            let rng = RngStream::component(seed, "agent", &decl.name, "draws");
            let agent = AnyAgent::build(&decl.spec, rng);
            let n = &mut nodes[decl.node];
            agent_at.push((decl.node as u32, n.agents.len() as u32));
            n.agents.push(ai as u32);
            n.hooks = n.hooks | agent.hooks();
            agents.push(agent);
        }
        debug_assert!(nodes.iter().all(|n| n.hooks == union_hooks(n.agents.iter().map(|&a| agents[a as usize].hooks()))));
        let n_agents = agents.len();
        let capture_radios = pcap.as_ref().is_some_and(|p| p.has_radios());
        let (radio_iface, wifi_segment, wifi_segments) = match wifi {
            Some(mut w) => {
                if capture_radios {
                    if let Some(m) = w.medium.wlan_mut() {
                        m.enable_capture();
                    }
                }
                media_iface.push(w.radio_iface.first().copied().unwrap_or(ifaces.len() as u32));
                media.push(w.medium);
                (w.radio_iface, w.segment_of, w.segments)
            }
            None => (Vec::new(), Vec::new(), Vec::new()),
        };
        let n_media = media.len();
        let sdn = sc.sdn.as_ref().map(|spec| {
            for s in &spec.switches {
                nodes[s.node].hooks = nodes[s.node].hooks | airtcp_agents::HookMask(super::sdn::DATAPATH_BIT);
            }
            Box::new(super::sdn::SdnPlane::build(sc, spec))
        });
        let hops = nodes.iter().map(HopCache::new).collect();
        let mut net = Network {
            hops,
            coded: None,
            mesh_routes: false,
            sdn,
            radio_iface,
            wifi_segment,
            wifi_segments,
            cap_payload: Vec::new(),
            cap_bytes: Vec::new(),
            radio_notices: VecDeque::new(),
            release_watch: Vec::new(),
            releases: VecDeque::new(),
            nodes,
            ifaces,
            media,
            media_iface,
            media_timer: vec![[Instant::MAX; 2]; n_media],
            radio_wakes: 0,
            addr_table,
            resolved: vec![false; subnets.len()],
            route_epoch: 0,
            subnets,
            subnet_index,
            frames: Slab::with_capacity(1024),
            agents,
            agent_at,
            agent_timer: vec![None; n_agents],
            agent_drops: vec![0; n_agents],
            pcap,
            stats: NetStats::default(),
            local: VecDeque::with_capacity(16),
            end,
            external: vec![false; sc.nodes.len()],
        };
        if let Some(m) = &sc.mesh {
            net.install_mesh_routes(m);
            if let Some(c) = &m.coding {
                let addr: Vec<u32> = net.radio_iface.iter().map(|&i| net.ifaces[i as usize].addr).collect();
                let mac: Vec<MacAddr> = net.radio_iface.iter().map(|&i| net.ifaces[i as usize].mac).collect();
                let plane = super::coded::CodedPlane::build(sc, c, seed, &addr, &mac).expect("the scenario validated the coded flow's parameters");
                net.coded = Some(Box::new(plane));
            }
        }
        net
    }

    /// Arm every agent's first timer and start the media.
    pub(crate) fn start(&mut self, cx: &mut super::Cx, now: Instant) {
        for a in 0..self.agents.len() {
            self.arm_agent(cx, now, a);
        }
        self.start_media(cx, now);
        self.sdn_arm(cx, now);
    }
}

/// Every distinct subnet with the interfaces on it, and an index from a
/// destination address to its subnet (longest prefix first).
fn subnet_table(ifaces: &[Iface]) -> (Vec<(Prefix, Vec<u32>)>, Fib) {
    let mut by_prefix: Vec<(Prefix, u32)> = ifaces.iter().enumerate().map(|(i, f)| (f.subnet, i as u32)).collect();
    by_prefix.sort_unstable();
    let mut subnets: Vec<(Prefix, Vec<u32>)> = Vec::new();
    for (p, i) in by_prefix {
        match subnets.last_mut() {
            Some((q, v)) if *q == p => v.push(i),
            _ => subnets.push((p, vec![i])),
        }
    }
    let mut index = Fib::default();
    for (s, (p, _)) in subnets.iter().enumerate() {
        index.insert(*p, Route { iface: s as u32, origin: Origin::Static, via: 0 });
    }
    (subnets, index)
}

/// Direction `d` of link `l`: rate (constant or trace), loss, outages, reordering.
fn link_dir(l: &LinkSpec, d: usize, seed: u64) -> LinkDir {
    let (rate, trace_loss, drops) = trace_models(l.trace[d].as_ref(), l.rate_bps[d]);
    let mut dir = LinkDir::new(rate, l.delay[d], l.queue, l.overhead_bytes);
    let spec = &l.loss[d];
    let rng = RngStream::component(seed, "link", &l.name, &format!("{}.loss", DIR_NAMES[d]));
    let mut windows: Vec<(Instant, Instant)> = spec.outages.iter().map(|&(s, e)| (Instant::ZERO + s, Instant::ZERO + e)).collect();
    windows.extend_from_slice(drops);
    let model = trace_loss.unwrap_or_else(|| spec.model.clone());
    dir.loss = LossProcess::new(model, merge_windows(windows), rng);
    if let Some(r) = &l.reorder[d] {
        let rng = RngStream::component(seed, "link", &l.name, &format!("{}.reorder", DIR_NAMES[d]));
        dir.reorder = Some(Reorder::new(r.p, r.delay, rng));
    }
    dir.aqm = l.aqm[d].as_ref().map(|spec| match spec {
        AqmSpec::StepMark(k) => Aqm::StepMark(*k),
        AqmSpec::Red(p) => {
            let rng = RngStream::component(seed, "link", &l.name, &format!("{}.red", DIR_NAMES[d]));
            Aqm::Red(Box::new(Red::new(p.clone(), dir.rate.nominal_bps(), rng)))
        }
    });
    dir
}

/// A direction's rate model, the loss model its trace imposes (a drive log's
/// loss curve), and the windows in which its handoffs drop frames.
fn trace_models(trace: Option<&TraceSpec>, bps: u64) -> (RateModel, Option<LossModel>, &[(Instant, Instant)]) {
    match trace.map(|t| &t.model) {
        None => (RateModel::Constant { bps }, None, &[]),
        Some(TraceModel::Mahimahi(m)) => {
            let mut m = m.clone();
            m.reset();
            (RateModel::Mahimahi(m), None, &[])
        }
        Some(TraceModel::Drive(d)) => {
            let loss = d.has_loss().then(|| LossModel::Schedule(d.link.loss_schedule()));
            (RateModel::Drive(Box::new(d.link.clone())), loss, &d.drop_windows)
        }
    }
}

/// Sorted, non-overlapping union of `[start, end)` windows.
fn merge_windows(mut w: Vec<(Instant, Instant)>) -> Vec<(Instant, Instant)> {
    w.sort_unstable();
    let mut out: Vec<(Instant, Instant)> = Vec::with_capacity(w.len());
    for (s, e) in w {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// The medium and the interfaces of a scenario's radios.
struct WifiParts {
    /// The 802.11 WLAN or the point-to-point cells.
    medium: AnyMedium,
    radio_iface: Vec<u32>,
    segment_of: Vec<u32>,
    segments: Vec<Vec<u32>>,
}

/// Add an interface per radio (after every link's, so link interface
/// numbers do not move) on medium `medium` and build the medium. Segments
/// say which radios a radio sends to directly: an AP its stations, a
/// station its AP, an ad hoc radio every other ad hoc radio.
fn wifi_ifaces(w: &WifiSpec, seed: u64, medium: u32, nodes: &mut [Node], ifaces: &mut Vec<Iface>) -> WifiParts {
    let first = ifaces.len() as u32;
    let mut specs = Vec::with_capacity(w.radios.len());
    for (i, r) in w.radios.iter().enumerate() {
        let g = first + i as u32;
        let n = &mut nodes[r.node];
        let local = n.ifaces.len() as u32;
        if local == 0 {
            n.primary = Some(r.addr);
        }
        n.ifaces.push(g);
        n.fib.insert(r.subnet, Route { iface: g, origin: Origin::Connected, via: 0 });
        ifaces.push(Iface { node: r.node as u32, channel: medium, end: 0, peer: g, addr: r.addr, subnet: r.subnet, mac: MacAddr::local(g + 1), peer_mac: MacAddr::local(g + 1), up: true, local, radio: i as u32 });
        let mut spec = r.spec.clone();
        if let Some((area, lo, hi, pause)) = r.random_waypoint {
            spec.mobility = Mobility::random_waypoint(area, lo, hi, pause, seed, &r.spec.name).expect("validated with the scenario");
        }
        specs.push(spec);
    }
    // Segments: per network (SSID) its APs send to its stations and its
    // stations to its APs; ad hoc radios all to each other.
    let mut segments: Vec<Vec<u32>> = Vec::new();
    let mut segment_of = vec![u32::MAX; w.radios.len()];
    let mut by_ssid: Vec<(&str, u32, u32)> = Vec::new();
    let mut adhoc: Option<u32> = None;
    for (i, r) in w.radios.iter().enumerate() {
        let g = first + i as u32;
        match &r.mode {
            RadioMode::Ap { ssid } | RadioMode::Station { ssid, .. } => {
                let k = match by_ssid.iter().position(|e| e.0 == ssid.as_str()) {
                    Some(k) => k,
                    None => {
                        segments.push(Vec::new());
                        segments.push(Vec::new());
                        by_ssid.push((ssid.as_str(), (segments.len() - 2) as u32, (segments.len() - 1) as u32));
                        by_ssid.len() - 1
                    }
                };
                let (stations, aps) = (by_ssid[k].1, by_ssid[k].2);
                if matches!(r.mode, RadioMode::Ap { .. }) {
                    segment_of[i] = stations;
                    segments[aps as usize].push(g);
                } else {
                    segment_of[i] = aps;
                    segments[stations as usize].push(g);
                }
            }
            RadioMode::AdHoc => {
                let s = *adhoc.get_or_insert_with(|| {
                    segments.push(Vec::new());
                    (segments.len() - 1) as u32
                });
                segment_of[i] = s;
                segments[s as usize].push(g);
            }
        }
    }
    let medium = match w.p2p {
        Some(p) => AnyMedium::Cells(Box::new(p2p_cells(p, &specs))),
        None => {
            let mut wlan = Wlan::new(specs, w.path_loss, w.shadowing, seed);
            for &(a, b, fer, min_bytes) in &w.errors {
                wlan.set_fixed_fer(a as u32, b as u32, fer, min_bytes);
            }
            AnyMedium::Wlan(Box::new(wlan))
        }
    };
    WifiParts { medium, radio_iface: (0..w.radios.len() as u32).map(|i| first + i).collect(), segment_of, segments }
}

/// The point-to-point cells of `[wifi] medium = "p2p"`: each station's
/// timeline from its starting AP and scripted handoffs (`roam_at`).
fn p2p_cells(p: P2pSpec, specs: &[RadioSpec]) -> Cells {
    let radios = specs
        .iter()
        .map(|r| match &r.mgmt {
            MgmtSpec::Station(st) => {
                let handoffs: Vec<(Instant, u32, Duration)> = st
                    .scripted
                    .iter()
                    .enumerate()
                    .filter_map(|(k, &(at, ap))| Some((at, ap?, st.scripted_away.get(k).copied().unwrap_or(Duration::ZERO))))
                    .collect();
                CellRadio::station(r.mac.queue_limit, r.ap, &handoffs)
            }
            _ if r.ap.is_some() => CellRadio::station(r.mac.queue_limit, r.ap, &[]),
            _ => CellRadio { is_ap: true, queue_limit: r.mac.queue_limit, timeline: Vec::new() },
        })
        .collect();
    Cells::new(CellParams { bps: p.bps, delay: p.delay, attempts: p.attempts }, radios)
}
