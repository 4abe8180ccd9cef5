//! The resolved scenario as JSON (for summary.json). It uses the input
//! format's own keys and canonical unit text, so it can be loaded again.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::Scenario;

/// The resolved scenario: one field per section of the format. A section's
/// records are written by its key tables (`Section::write` and the
/// sections' `*_json` functions), which name the keys; this struct names
/// only the sections. The records stay JSON values, so a key is declared
/// in its table alone.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResolvedScenario {
    /// `[sim]`, with the seed the run used.
    pub sim: Value,
    pub nodes: Vec<Value>,
    pub links: Vec<Value>,
    pub flows: Vec<Value>,
    pub agents: Vec<Value>,
    pub route_changes: Vec<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub udp_flows: Vec<Value>,
    #[serde(flatten)]
    pub wireless: Wireless,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdn: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<Value>,
}

/// `[wifi]`, `[[radios]]` and `[[wifi_errors]]` as `wifi::wifi_json`
/// records them (absent without radios; `wifi_errors` without entries).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Wireless {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wifi: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radios: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wifi_errors: Option<Vec<Value>>,
}


pub fn resolved(s: &Scenario) -> ResolvedScenario {
    let nodes: Vec<Value> = s.nodes.iter().map(super::run::node_json).collect();
    let links: Vec<Value> = s.links.iter().map(|l| super::link_keys::link_json(l, &s.nodes)).collect();
    let flows: Vec<Value> = s.flows.iter().map(|f| super::flows::flow_json(f, &s.nodes)).collect();
    let wireless = match &s.wifi {
        Some(w) => {
            let mut v = json!({});
            super::wifi::wifi_json(w, &mut v);
            serde_json::from_value(v).expect("wifi_json writes the wireless sections")
        }
        None => Wireless::default(),
    };
    ResolvedScenario {
        sim: super::run::sim_json(&s.sim),
        nodes,
        links,
        flows,
        agents: s.agents.iter().map(|a| super::agents::agent_json(a, &s.nodes, &s.links)).collect(),
        route_changes: s.route_changes.iter().map(|r| super::routes::route_change_json(r, &s.nodes, &s.links)).collect(),
        udp_flows: match super::udp_keys::udp_flows_json(&s.udp_flows, &s.nodes) {
            Value::Array(list) => list,
            other => unreachable!("udp_flows_json writes a list, not {other}"),
        },
        wireless,
        sdn: s.sdn.as_ref().map(|c| super::sdn::sdn_json(c, &s.nodes)),
        mesh: s.mesh.as_ref().zip(s.wifi.as_ref()).map(|(m, w)| super::mesh::mesh_json(m, w, &s.nodes, &s.flows)),
    }
}
