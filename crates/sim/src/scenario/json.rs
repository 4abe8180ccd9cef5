//! The resolved scenario as JSON (for summary.json). It uses the input
//! format's own keys and canonical unit text, so it can be loaded again.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::units::{format_duration, format_rate};
use super::{LossSpec, Scenario, DIR_NAMES};
use crate::link::aqm::AqmSpec;
use crate::link::{LossModel, QueueLimit};
use crate::network::addr::fmt_addr;

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

fn loss_json(l: &LossSpec) -> Value {
    let mut m = Map::new();
    match &l.model {
        LossModel::None => {
            m.insert("model".into(), json!("none"));
        }
        &LossModel::Uniform { p } => {
            m.insert("model".into(), json!("uniform"));
            m.insert("p".into(), json!(p));
        }
        &LossModel::BitErrorRate { ber } => {
            m.insert("model".into(), json!("ber"));
            m.insert("ber".into(), json!(ber));
        }
        &LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad } => {
            m.insert("model".into(), json!("gilbert"));
            m.insert("p_gb".into(), json!(p_gb));
            m.insert("p_bg".into(), json!(p_bg));
            m.insert("loss_good".into(), json!(loss_good));
            m.insert("loss_bad".into(), json!(loss_bad));
        }
        LossModel::List { drops } => {
            m.insert("model".into(), json!("list"));
            m.insert("drops".into(), json!(drops));
        }
        // Only the simulator builds it (from a drive trace); specs never hold one.
        LossModel::Schedule(_) => {
            m.insert("model".into(), json!("none"));
        }
    }
    if !l.outages.is_empty() {
        let w: Vec<Value> = l.outages.iter().map(|&(s, e)| json!([format_duration(s), format_duration(e)])).collect();
        m.insert("outages".into(), Value::Array(w));
    }
    Value::Object(m)
}

pub fn resolved(s: &Scenario) -> ResolvedScenario {
    let nodes: Vec<Value> = s.nodes.iter().map(super::run::node_json).collect();
    let links: Vec<Value> = s
        .links
        .iter()
        .map(|l| {
            let mut m = Map::new();
            m.insert("name".into(), json!(l.name));
            m.insert("a".into(), json!(s.nodes[l.a].name));
            m.insert("b".into(), json!(s.nodes[l.b].name));
            for (i, d) in DIR_NAMES.iter().enumerate() {
                match &l.trace[i] {
                    Some(t) => m.insert(format!("trace_{d}"), super::trace::trace_json(t)),
                    None => m.insert(format!("rate_{d}"), json!(format_rate(l.rate_bps[i]))),
                };
                m.insert(format!("delay_{d}"), json!(format_duration(l.delay[i])));
                m.insert(format!("loss_{d}"), loss_json(&l.loss[i]));
                if let Some(r) = &l.reorder[i] {
                    m.insert(format!("reorder_{d}"), super::link_tables::reorder_json(r));
                }
                if let Some(AqmSpec::Red(p)) = &l.aqm[i] {
                    m.insert(format!("red_{d}"), super::link_tables::red_json(p));
                }
            }
            match l.queue {
                QueueLimit::Packets(n) => m.insert("queue_packets".into(), json!(n)),
                QueueLimit::Bytes(n) => m.insert("queue_bytes".into(), json!(n)),
            };
            if let Some(AqmSpec::StepMark(k)) = &l.aqm[0] {
                match k {
                    QueueLimit::Packets(n) => m.insert("ecn_threshold".into(), json!(n)),
                    QueueLimit::Bytes(n) => m.insert("ecn_threshold".into(), json!(format!("{n}B"))),
                };
            }
            m.insert("overhead_bytes".into(), json!(l.overhead_bytes));
            m.insert("subnet".into(), json!(l.subnet.to_string()));
            m.insert("addr_a".into(), json!(fmt_addr(l.addr[0])));
            m.insert("addr_b".into(), json!(fmt_addr(l.addr[1])));
            Value::Object(m)
        })
        .collect();
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
