//! Which ad hoc radio pairs of a `[mesh]` are links, with what delivery
//! probability, and the shortest paths among them ([`graph`]).
//!
//! Every ad hoc radio is a mesh node. A radio pair is a link when a data
//! frame from one reaches the other above its receive thresholds (the
//! positions and the PHY model); its delivery probability is the PHY's
//! frame success at that signal times `1 - fer` of the pair's
//! `[[wifi_errors]]` entry (the seed's per-link loss rates). Routes are
//! computed once, at load, from positions at time zero: a mesh with moving
//! radios keeps its first routes. The link costs (ETX or hops) and
//! shortest paths are `network::etx`'s.

use airtcp_core::Instant;
use airtcp_wifi::frame;
use airtcp_wifi::phy::{self, Modulation};

use crate::network::etx::{routes, MeshLink, MeshRouting};

use super::doc::{Doc, KeyPath};
use super::value::R;
use super::wifi::{RadioMode, WifiSpec};
use super::NodeSpec;

/// Bytes of an 802.11 ACK frame (802.11-2016 9.3.1.4).
const ACK_BYTES: u32 = 14;
/// IP datagram of the link-quality estimate's data frame.
const PROBE_IP_BYTES: u32 = 1500;

/// The mesh's nodes, links and routes.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshGraph {
    /// Radio indices of the mesh nodes (the ad hoc radios), ascending.
    pub radios: Vec<usize>,
    /// Directed links with a non-zero delivery probability, by (from, to).
    pub links: Vec<MeshLink>,
    /// `(radio, destination radio, next-hop radio)` for every ordered pair
    /// of mesh radios with a path.
    pub routes: Vec<(usize, usize, usize)>,
}

/// The mesh of `wifi`'s ad hoc radios, routed by `routing`; errors about
/// the mesh as a whole are reported at `at` (the `[mesh]` table).
pub(super) fn graph(doc: &Doc, at: &KeyPath, wifi: Option<&WifiSpec>, nodes: &[NodeSpec], routing: MeshRouting) -> R<MeshGraph> {
    let Some(w) = wifi else { return Err(doc.err(at, "[mesh] needs [[radios]] with mode = \"adhoc\"")) };
    let radios: Vec<usize> = (0..w.radios.len()).filter(|&i| w.radios[i].mode == RadioMode::AdHoc).collect();
    if radios.len() < 2 {
        return Err(doc.err(at, format!("[mesh] needs at least two radios with mode = \"adhoc\" (found {})", radios.len())));
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
            return Err(doc.err(
                &KeyPath::root().key("radios").index(r),
                format!("mesh node \"{name}\" has no path to or from \"{}\" (no radio pair with delivery in both directions connects it)", nodes[w.radios[first].node].name),
            ));
        }
    }
    Ok(MeshGraph { radios, links, routes })
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
