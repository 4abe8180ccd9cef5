//! `[mesh]`: the ad hoc radios of a scenario as a multi-hop wireless mesh
//! (seed 002) — which radio pairs form links, with what delivery
//! probability (`mesh_links`), the shortest paths IP forwards along, and
//! optionally network coding of one TCP flow (`mesh_coding`). Every key is
//! one entry of `mesh_keys::mesh_keys`.

use airtcp_agents::more::{ForwarderPlan, LinkProbs, PlanConfig};

pub use crate::network::etx::{link_costs, MeshLink, MeshRouting};

use super::keys::Section;
use super::mesh_coding::{credit_delivery, CodingSpec, Protocol};
use super::mesh_keys::{mesh_keys, Mesh};
use super::mesh_links::MeshGraph;
use super::value::{Table, R};
use super::wifi::WifiSpec;
use super::{FlowSpec, NodeSpec};

pub use super::mesh_keys::routing_name;

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

pub(super) fn mesh(root: &Table, wifi: Option<&WifiSpec>, nodes: &[NodeSpec], flows: &[FlowSpec]) -> R<Option<MeshSpec>> {
    let Some(f) = root.opt("mesh") else { return Ok(None) };
    let t = f.table()?;
    let mut m = Mesh::new(wifi, nodes, flows, t.path.clone());
    let keys = mesh_keys();
    Section { path: "mesh", keys: &keys }.read_in_order(&t, &mut m)?;
    m.graph(t.doc)?;
    let coding = match m.protocol {
        None => None,
        Some(p) => Some(coding(&t, &mut m, p)?),
    };
    let MeshGraph { radios, links, routes } = m.graph.take().expect("found above");
    Ok(Some(MeshSpec { routing: m.routing, radios, links, routes, coding }))
}

/// The coding of the carried flow, with MORE's forwarder plan.
fn coding(t: &Table, m: &mut Mesh, protocol: Protocol) -> R<CodingSpec> {
    let flow = m.carried(t.doc, protocol)?;
    let (g, w, fl) = (m.graph.as_ref().expect("found"), m.wifi.expect("a mesh has radios"), &m.flows[flow]);
    let radio_of = |node: usize| g.radios.iter().copied().find(|&r| w.radios[r].node == node).expect("checked by carried()");
    let (src, dst) = (radio_of(fl.from), radio_of(fl.to));
    let mut probs = LinkProbs::new(w.radios.len());
    for (a, b, p) in credit_delivery(&m.delivery, &g.links) {
        probs.set(a, b, p).map_err(|e| t.err(e.to_string()))?;
    }
    let cfg = PlanConfig { prune_fraction: m.prune, ..PlanConfig::default() };
    let plan = ForwarderPlan::compute(&probs, src, dst, &cfg).map_err(|e| t.doc.err(&m.flow_at, format!("no MORE forwarder plan for flow \"{}\": {e}", fl.name)))?;
    let more = protocol == Protocol::More;
    Ok(CodingSpec {
        protocol,
        flow,
        src,
        dst,
        beta: m.beta.unwrap_or(if more { 32 } else { 50 }),
        pipeline: m.pipeline.unwrap_or(if more { 1 } else { 4 }),
        prune: m.prune,
        source: m.source,
        batch_timeout: m.batch_timeout,
        real_bytes: m.real_bytes,
        delivery: std::mem::take(&mut m.delivery),
        plan,
    })
}

/// The mesh as the resolved scenario's `mesh` table (it loads back to the
/// same mesh).
pub fn mesh_json(spec: &MeshSpec, w: &WifiSpec, nodes: &[NodeSpec], flows: &[FlowSpec]) -> serde_json::Value {
    let mut m = Mesh::new(Some(w), nodes, flows, super::doc::KeyPath::root());
    m.routing = spec.routing;
    if let Some(c) = &spec.coding {
        m.protocol = Some(c.protocol);
        m.flow = Some(c.flow);
        m.beta = Some(c.beta);
        m.pipeline = Some(c.pipeline);
        m.prune = c.prune;
        m.source = c.source;
        m.batch_timeout = c.batch_timeout;
        m.real_bytes = c.real_bytes;
        m.delivery = c.delivery.clone();
    }
    let keys = mesh_keys();
    Section { path: "mesh", keys: &keys }.write(&m)
}
