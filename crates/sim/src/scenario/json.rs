//! The resolved scenario as JSON (for summary.json). It uses the input
//! format's own keys and canonical unit text, so it can be loaded again.

use serde_json::{json, Value};

use super::Scenario;

pub fn scenario_json(s: &Scenario) -> Value {
    let nodes: Vec<Value> = s.nodes.iter().map(super::run::node_json).collect();
    let links: Vec<Value> = s.links.iter().map(|l| super::link_keys::link_json(l, &s.nodes)).collect();
    let flows: Vec<Value> = s.flows.iter().map(|f| super::flows::flow_json(f, &s.nodes)).collect();
    let mut out = json!({
        "sim": super::run::sim_json(&s.sim),
        "nodes": nodes,
        "links": links,
        "flows": flows,
        "agents": s.agents.iter().map(|a| super::agents::agent_json(a, &s.nodes, &s.links)).collect::<Vec<_>>(),
        "route_changes": s.route_changes.iter().map(|r| super::routes::route_change_json(r, &s.nodes, &s.links)).collect::<Vec<_>>(),
    });
    if !s.udp_flows.is_empty() {
        out["udp_flows"] = super::udp::udp_flows_json(&s.udp_flows, &s.nodes);
    }
    if let Some(w) = &s.wifi {
        super::wifi::wifi_json(w, &mut out);
    }
    if let (Some(m), Some(w)) = (&s.mesh, &s.wifi) {
        out["mesh"] = super::mesh::mesh_json(m, w, &s.nodes, &s.flows);
    }
    out
}
