//! `[mesh]`: the ad hoc radios of a scenario as a multi-hop wireless mesh
//! (seed 002) — which radio pairs form links, with what delivery
//! probability, and the shortest paths IP forwards along.
//!
//! ```toml
//! [mesh]
//! routing = "etx"       # etx | hops: the metric of the shortest paths
//!                       # (default etx)
//! ```
//!
//! Every ad hoc radio is a mesh node. A radio pair is a link when a data
//! frame from one reaches the other above its receive thresholds (the
//! positions and the PHY model); its delivery probability is the PHY's
//! frame success at that signal times `1 - fer` of the pair's
//! `[[wifi_errors]]` entry (the seed's per-link loss rates). Routes are
//! computed once, at load, from positions at time zero: a mesh with moving
//! radios keeps its first routes.
//!
//! The link costs (ETX or hops) and shortest paths are computed by
//! `network::etx` from the links found here.

use airtcp_core::Instant;
use airtcp_wifi::frame;
use airtcp_wifi::phy::{self, Modulation};

pub use crate::network::etx::{link_costs, MeshLink, MeshRouting};
use crate::network::etx::routes;

use super::doc::KeyPath;
use super::value::{Table, R};
use super::wifi::{RadioMode, WifiSpec};
use super::mesh_coding::{coding, coding_json, CodingSpec, CODING_KEYS};
use super::{FlowSpec, NodeSpec};

#[derive(Clone, Debug, PartialEq)]
pub struct MeshSpec {
    pub routing: MeshRouting,
    /// Radio indices of the mesh nodes (the ad hoc radios), ascending.
    pub radios: Vec<usize>,
    /// Directed links with a non-zero delivery probability, by (from, to).
    pub links: Vec<MeshLink>,
    /// `(radio, destination radio, next-hop radio)` for every ordered pair
    /// of mesh radios with a path.
    pub routes: Vec<(usize, usize, usize)>,
    /// MORE or TCPFender carrying one flow (`scenario::mesh_coding`); `None`: plain IP.
    pub coding: Option<CodingSpec>,
}

/// Bytes of an 802.11 ACK frame (802.11-2016 9.3.1.4).
const ACK_BYTES: u32 = 14;
/// IP datagram of the link-quality estimate's data frame.
const PROBE_IP_BYTES: u32 = 1500;

pub(super) fn mesh(root: &Table, wifi: Option<&WifiSpec>, nodes: &[NodeSpec], flows: &[FlowSpec]) -> R<Option<MeshSpec>> {
    let Some(f) = root.opt("mesh") else { return Ok(None) };
    let t = f.table()?;
    let keys: Vec<&str> = std::iter::once("routing").chain(CODING_KEYS.iter().copied()).collect();
    t.known(&keys)?;
    let routing = match t.opt("routing") {
        None => MeshRouting::Etx,
        Some(f) => match f.str()? {
            "etx" => MeshRouting::Etx,
            "hops" => MeshRouting::Hops,
            s => return Err(f.err(format!("unknown routing \"{s}\" (known: etx, hops)"))),
        },
    };
    let Some(w) = wifi else { return Err(t.err("[mesh] needs [[radios]] with mode = \"adhoc\"")) };
    let radios: Vec<usize> = (0..w.radios.len()).filter(|&i| w.radios[i].mode == RadioMode::AdHoc).collect();
    if radios.len() < 2 {
        return Err(t.err(format!("[mesh] needs at least two radios with mode = \"adhoc\" (found {})", radios.len())));
    }
    let links = links(w, &radios);
    let routes = routes(&radios, &links, routing);
    // Every mesh node must reach every other one (a route to the first
    // radio and back is enough: links are checked in both directions).
    let first = radios[0];
    for &r in &radios[1..] {
        let has = |a: usize, b: usize| routes.iter().any(|&(x, d, _)| x == a && d == b);
        if !has(r, first) || !has(first, r) {
            let name = &nodes[w.radios[r].node].name;
            let i = r;
            return Err(root.doc.err(
                &KeyPath::root().key("radios").index(i),
                format!("mesh node \"{name}\" has no path to or from \"{}\" (no radio pair with delivery in both directions connects it)", nodes[w.radios[first].node].name),
            ));
        }
    }
    let coding = coding(&t, w, &radios, &links, nodes, flows)?;
    Ok(Some(MeshSpec { routing, radios, links, routes, coding }))
}

/// The directed links among `radios`: PHY reach and success at positions of
/// time zero, times the fixed error rates.
fn links(w: &WifiSpec, radios: &[usize]) -> Vec<MeshLink> {
    let mut out = Vec::new();
    for &a in radios {
        for &b in radios {
            if a == b || w.radios[a].spec.channel != w.radios[b].spec.channel {
                continue;
            }
            let data_rate = w.radios[a].spec.mac.data_rate;
            let ack_rate = w.radios[a].spec.mac.standard.control_rate(w.radios[b].spec.mac.data_rate);
            let data = phy_success(w, a, b, data_rate, frame::data_mpdu_len(PROBE_IP_BYTES)) * (1.0 - fixed_fer(w, a, b, frame::data_mpdu_len(PROBE_IP_BYTES)));
            let ack = phy_success(w, a, b, ack_rate, ACK_BYTES) * (1.0 - fixed_fer(w, a, b, ACK_BYTES));
            if data > 0.0 {
                out.push(MeshLink { from: a, to: b, data, ack });
            }
        }
    }
    out
}

/// Success probability of a frame of `bytes` at `rate` from radio `a` to
/// radio `b` with nothing else on the air: zero below `b`'s receive
/// sensitivity or preamble detection, else the PHY's error model at the SNR.
fn phy_success(w: &WifiSpec, a: usize, b: usize, rate: phy::Rate, bytes: u32) -> f64 {
    let (ra, rb) = (&w.radios[a], &w.radios[b]);
    let pa = ra.spec.mobility.clone().position(Instant::ZERO);
    let pb = rb.spec.mobility.clone().position(Instant::ZERO);
    let rx = w.path_loss.rx_power_dbm(ra.spec.phy.tx_power_dbm + ra.spec.phy.antenna_gain_db, pa.dist(&pb)) + rb.spec.phy.antenna_gain_db;
    let noise = rb.spec.phy.noise_dbm(rb.spec.mac.standard.bandwidth_hz());
    let pre = rb.spec.phy.preamble;
    if rx < rb.spec.phy.rx_sensitivity_dbm || rx < pre.min_rssi_dbm || rx - noise < pre.min_snr_db {
        return 0.0;
    }
    let snr = phy::dbm_to_mw(rx) / phy::dbm_to_mw(noise);
    let modulation: Modulation = rate.modulation;
    phy::chunk_success(modulation, snr, bytes * 8)
}

/// The `[[wifi_errors]]` rate that hits a frame of `bytes` from `a` to `b`:
/// as in the medium, the pair's last entry, if the frame is long enough.
fn fixed_fer(w: &WifiSpec, a: usize, b: usize, bytes: u32) -> f64 {
    match w.errors.iter().rev().find(|e| e.0 == a && e.1 == b) {
        Some(e) if bytes >= e.3 => e.2,
        _ => 0.0,
    }
}

/// The mesh as scenario JSON (it loads back to the same mesh).
pub fn mesh_json(m: &MeshSpec, w: &WifiSpec, nodes: &[NodeSpec], flows: &[FlowSpec]) -> serde_json::Value {
    let mut v = serde_json::json!({ "routing": routing_name(m.routing) });
    if let Some(c) = &m.coding {
        coding_json(c, w, nodes, flows, &mut v);
    }
    v
}

fn routing_name(r: MeshRouting) -> &'static str {
    match r {
        MeshRouting::Etx => "etx",
        MeshRouting::Hops => "hops",
    }
}

/// The mesh for summary.json: links with delivery probabilities and cost,
/// and every route's next hop, by node name.
pub fn mesh_report(m: &MeshSpec, w: &WifiSpec, nodes: &[NodeSpec]) -> serde_json::Value {
    let name = |r: usize| nodes[w.radios[r].node].name.clone();
    let costs = link_costs(&m.links, m.routing);
    let links: Vec<_> = m
        .links
        .iter()
        .map(|l| {
            let c = costs.iter().find(|c| c.0 == l.from && c.1 == l.to).map(|c| c.2);
            serde_json::json!({ "from": name(l.from), "to": name(l.to), "data_delivery": l.data, "ack_delivery": l.ack, "cost": c })
        })
        .collect();
    let routes: Vec<_> = m.routes.iter().map(|&(u, d, h)| serde_json::json!({ "node": name(u), "to": name(d), "via": name(h) })).collect();
    let protocol = m.coding.as_ref().map_or("ip", |c| super::mesh_coding::name(c.protocol));
    serde_json::json!({ "routing": routing_name(m.routing), "protocol": protocol, "links": links, "routes": routes })
}
