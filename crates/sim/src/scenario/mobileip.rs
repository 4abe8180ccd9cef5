//! The Mobile IP agents of `[[agents]]` (seed 001, issue 10): `home_agent`,
//! `foreign_agent`, `mobile_node`, `correspondent`, resolved to the agents
//! crate's configurations with the usual `file:line: key: message` errors.
//!
//! Addresses default to the interface the agent names (`home` of a home
//! agent, `wireless` of a foreign agent or mobile node, the node's first
//! interface for a correspondent). A mobile's `home_agent` is an address or
//! the name of a node with a `home_agent` agent; a home agent without
//! `mobiles` serves every mobile node that names it.

use airtcp_agents::mobileip::{CorrespondentConfig, ForeignAgentConfig, HomeAgentConfig, MobileNodeConfig};
use airtcp_agents::{AgentSpec, IfaceId};
use airtcp_core::Duration;
use serde_json::{json, Map, Value};

use super::agent_decl::{iface_addr, iface_of, AgentDecl, Net};
use super::units::format_duration;
use super::value::{Field, Table, R};
use crate::network::addr::{fmt_addr, parse_addr};

/// Agent advertisement interval of a home agent (a foreign agent's default).
const DEFAULT_ADVERT_INTERVAL: Duration = Duration::from_secs(1);

/// A lifetime in whole seconds that fits the 16-bit field of the messages
/// (RFC 5944 §3.3), given as a number of seconds or a duration.
fn lifetime(f: &Field, zero_ok: bool) -> R<u16> {
    let d = f.duration()?;
    let s = d.as_nanos() / 1_000_000_000;
    if s * 1_000_000_000 != d.as_nanos() {
        return Err(f.err(format!("lifetime {} is not a whole number of seconds", format_duration(d))));
    }
    if s == 0 && !zero_ok {
        return Err(f.err("lifetime must be positive"));
    }
    if s > u16::MAX as u64 {
        return Err(f.err(format!("lifetime {s} s exceeds the 16-bit field (at most 65535 s)")));
    }
    Ok(s as u16)
}

fn positive_duration(f: &Field) -> R<Duration> {
    let d = f.duration()?;
    if d == Duration::ZERO {
        return Err(f.err("must be positive"));
    }
    Ok(d)
}

fn addr_field(f: &Field) -> R<[u8; 4]> {
    parse_addr(f.str()?).map(|a| a.to_be_bytes()).map_err(|m| f.err(m))
}

/// The address of the interface named by `key`, or `addr` when declared.
fn own_addr(t: &Table, net: &Net, node: usize, iface: IfaceId) -> R<[u8; 4]> {
    match t.opt("addr") {
        Some(f) => addr_field(&f),
        None => match iface_addr(net, node, iface) {
            Some(a) => Ok(a.to_be_bytes()),
            None => Err(t.err(format!("node \"{}\" has no address on that interface; declare addr", net.nodes[node].name))),
        },
    }
}

fn opt_bool(t: &Table, k: &str, default: bool) -> R<bool> {
    t.opt(k).map(|f| f.bool()).transpose().map(|b| b.unwrap_or(default))
}

pub(super) fn home_agent(t: &Table, net: &Net, node: usize) -> R<AgentSpec> {
    t.known(&["node", "kind", "name", "home", "addr", "mobiles", "max_lifetime", "route_optimization", "binding_lifetime", "witcp", "tunnel_ttl", "advert_interval"])?;
    let home = iface_of(&t.req("home")?, net, node)?;
    // Default: its first link's address, reachable from foreign networks
    // whatever routes the home subnet takes; else the home interface's.
    let addr = match (t.opt("addr"), net.links.iter().any(|l| l.a == node || l.b == node)) {
        (None, true) => iface_addr(net, node, IfaceId(0)).map(|a| a.to_be_bytes()).unwrap_or([0; 4]),
        _ => own_addr(t, net, node, home)?,
    };
    let mut c = HomeAgentConfig::new(addr, home, Vec::new());
    if let Some(f) = t.opt("mobiles") {
        let items = f.list()?;
        for i in 0..items.len() {
            let it = f.item(i);
            let s = it.str()?;
            let a = match net.index.get(s) {
                Some(n) => match node_addr(net, n) {
                    Some(a) => a,
                    None => return Err(it.err(format!("node \"{s}\" has no address"))),
                },
                None => parse_addr(s).map(|a| a.to_be_bytes()).map_err(|_| it.err(format!("\"{s}\" is neither a node nor an IPv4 address")))?,
            };
            c.mobiles.push(a);
        }
        if c.mobiles.is_empty() {
            return Err(f.err("mobiles must name at least one mobile (or be left out: every mobile_node naming this home agent)"));
        }
    }
    if let Some(f) = t.opt("max_lifetime") {
        c.max_lifetime = lifetime(&f, false)?;
    }
    if let Some(f) = t.opt("binding_lifetime") {
        c.bu_lifetime = lifetime(&f, false)?;
    }
    if let Some(f) = t.opt("tunnel_ttl") {
        c.tunnel_ttl = ttl(&f)?;
    }
    // Like a foreign agent, every second by default (ns-2's home agents
    // advertise too), so a mobile knows when it is back home.
    c.advert_interval = Some(match t.opt("advert_interval") {
        Some(f) => positive_duration(&f)?,
        None => DEFAULT_ADVERT_INTERVAL,
    });
    c.route_opt = opt_bool(t, "route_optimization", false)?;
    c.witcp = opt_bool(t, "witcp", false)?;
    Ok(AgentSpec::HomeAgent(c))
}

fn ttl(f: &Field) -> R<u8> {
    let n = f.u32()?;
    if n == 0 || n > 255 {
        return Err(f.err(format!("tunnel_ttl {n} is outside 1..=255")));
    }
    Ok(n as u8)
}

/// A node's address as a mobile: its radio's if it has one, else its first link's.
fn node_addr(net: &Net, node: usize) -> Option<[u8; 4]> {
    if let Some(r) = net.wifi.and_then(|w| w.radios.iter().find(|r| r.node == node)) {
        return Some(r.addr.to_be_bytes());
    }
    iface_addr(net, node, IfaceId(0)).filter(|_| net.links.iter().any(|l| l.a == node || l.b == node)).map(|a| a.to_be_bytes())
}

pub(super) fn foreign_agent(t: &Table, net: &Net, node: usize) -> R<AgentSpec> {
    t.known(&[
        "node", "kind", "name", "wireless", "addr", "advert_interval", "lifetime", "max_visitors", "reg_timeout", "route_optimization", "forward_lifetime",
        "witcp", "tunnel_ttl",
    ])?;
    let wireless = iface_of(&t.req("wireless")?, net, node)?;
    let addr = own_addr(t, net, node, wireless)?;
    let mut c = ForeignAgentConfig::new(addr, wireless);
    if let Some(f) = t.opt("advert_interval") {
        c.advert_interval = positive_duration(&f)?;
    }
    if let Some(f) = t.opt("lifetime") {
        c.reg_lifetime = lifetime(&f, false)?;
    }
    if let Some(f) = t.opt("max_visitors") {
        let n = f.u32()?;
        if n == 0 {
            return Err(f.err("max_visitors must be at least 1"));
        }
        c.max_visitors = n as usize;
    }
    if let Some(f) = t.opt("reg_timeout") {
        c.reg_timeout = positive_duration(&f)?;
    }
    if let Some(f) = t.opt("forward_lifetime") {
        c.max_forward_lifetime = lifetime(&f, false)?;
    }
    if let Some(f) = t.opt("tunnel_ttl") {
        c.tunnel_ttl = ttl(&f)?;
    }
    c.route_opt = opt_bool(t, "route_optimization", false)?;
    c.witcp = opt_bool(t, "witcp", false)?;
    Ok(AgentSpec::ForeignAgent(c))
}

pub(super) fn mobile_node(t: &Table, net: &Net, node: usize) -> R<AgentSpec> {
    t.known(&[
        "node", "kind", "name", "wireless", "home_addr", "home_agent", "lifetime", "retransmissions", "retransmit_timeout", "smooth_handoff",
        "forward_lifetime", "ehn",
    ])?;
    let wireless = iface_of(&t.req("wireless")?, net, node)?;
    let home_addr = match t.opt("home_addr") {
        Some(f) => addr_field(&f)?,
        None => match iface_addr(net, node, wireless) {
            Some(a) => a.to_be_bytes(),
            None => return Err(t.err(format!("node \"{}\" has no address on that interface; declare home_addr", net.nodes[node].name))),
        },
    };
    let hf = t.req("home_agent")?;
    let s = hf.str()?;
    // A node name is resolved once every agent is read.
    let home_agent = match net.index.get(s) {
        Some(_) => [0; 4],
        None => parse_addr(s).map(|a| a.to_be_bytes()).map_err(|_| hf.err(format!("\"{s}\" is neither a node nor an IPv4 address")))?,
    };
    let mut c = MobileNodeConfig::new(home_addr, home_agent, wireless);
    if let Some(f) = t.opt("lifetime") {
        c.lifetime = lifetime(&f, false)?;
    }
    if let Some(f) = t.opt("retransmissions") {
        c.retx_max = f.u32()?;
    }
    if let Some(f) = t.opt("retransmit_timeout") {
        c.retx_initial = positive_duration(&f)?;
    }
    if let Some(f) = t.opt("forward_lifetime") {
        c.forward_lifetime = lifetime(&f, false)?;
    }
    c.smooth_handoff = opt_bool(t, "smooth_handoff", false)?;
    c.ehn = opt_bool(t, "ehn", false)?;
    Ok(AgentSpec::MobileNode(c))
}

pub(super) fn correspondent(t: &Table, net: &Net, node: usize) -> R<AgentSpec> {
    t.known(&["node", "kind", "name", "addr", "refresh_before", "tunnel_ttl"])?;
    let addr = match t.opt("addr") {
        Some(f) => addr_field(&f)?,
        None => match node_addr(net, node) {
            Some(a) => a,
            None => return Err(t.err(format!("node \"{}\" has no address; declare addr", net.nodes[node].name))),
        },
    };
    let mut c = CorrespondentConfig::new(addr);
    if let Some(f) = t.opt("refresh_before") {
        c.refresh_before = match f.v {
            Value::Bool(false) => None,
            _ => Some(positive_duration(&f)?),
        };
    }
    if let Some(f) = t.opt("tunnel_ttl") {
        c.tunnel_ttl = ttl(&f)?;
    }
    Ok(AgentSpec::Correspondent(c))
}

/// Second pass: a mobile's `home_agent` naming a node becomes that node's
/// home agent address; a home agent without `mobiles` serves the mobiles
/// that name it.
pub(super) fn resolve_home_agents(list: &[Table], out: &mut [AgentDecl], net: &Net) -> R<()> {
    let has_mobiles: Vec<bool> = list.iter().map(|t| t.opt("mobiles").is_some()).collect();
    for i in 0..out.len() {
        let AgentSpec::MobileNode(m) = &out[i].spec else { continue };
        let hf = list[i].req("home_agent")?;
        let s = hf.str()?;
        let home_addr = m.home_addr;
        let ha = match net.index.get(s) {
            Some(n) => {
                let Some(j) = out.iter().position(|a| a.node == n && matches!(a.spec, AgentSpec::HomeAgent(_))) else {
                    return Err(hf.err(format!("node \"{s}\" has no home_agent agent")));
                };
                let AgentSpec::HomeAgent(h) = &out[j].spec else { unreachable!("matched above") };
                h.addr
            }
            None => m.home_agent,
        };
        if let AgentSpec::MobileNode(m) = &mut out[i].spec {
            m.home_agent = ha;
        }
        for j in 0..out.len() {
            if has_mobiles[j] {
                continue;
            }
            if let AgentSpec::HomeAgent(h) = &mut out[j].spec {
                if h.addr == ha && !h.mobiles.contains(&home_addr) {
                    h.mobiles.push(home_addr);
                }
            }
        }
    }
    for (j, a) in out.iter().enumerate() {
        if let AgentSpec::HomeAgent(h) = &a.spec {
            if h.mobiles.is_empty() {
                return Err(list[j].err("home agent serves no mobile: no mobile_node names it and mobiles is not given"));
            }
        }
    }
    Ok(())
}

fn dotted(a: [u8; 4]) -> Value {
    json!(fmt_addr(u32::from_be_bytes(a)))
}

/// The declaration's keys as scenario JSON (loads back to the same agent).
pub(super) fn agent_json(spec: &AgentSpec, m: &mut Map<String, Value>, iface: &dyn Fn(IfaceId) -> String) {
    match spec {
        AgentSpec::HomeAgent(c) => {
            m.insert("kind".into(), json!("home_agent"));
            m.insert("home".into(), json!(iface(c.home_iface)));
            m.insert("addr".into(), dotted(c.addr));
            m.insert("mobiles".into(), Value::Array(c.mobiles.iter().map(|&a| dotted(a)).collect()));
            m.insert("max_lifetime".into(), json!(c.max_lifetime));
            m.insert("route_optimization".into(), json!(c.route_opt));
            m.insert("binding_lifetime".into(), json!(c.bu_lifetime));
            m.insert("witcp".into(), json!(c.witcp));
            m.insert("tunnel_ttl".into(), json!(c.tunnel_ttl));
            if let Some(d) = c.advert_interval {
                m.insert("advert_interval".into(), json!(format_duration(d)));
            }
        }
        AgentSpec::ForeignAgent(c) => {
            m.insert("kind".into(), json!("foreign_agent"));
            m.insert("wireless".into(), json!(iface(c.wireless)));
            m.insert("addr".into(), dotted(c.addr));
            m.insert("advert_interval".into(), json!(format_duration(c.advert_interval)));
            m.insert("lifetime".into(), json!(c.reg_lifetime));
            m.insert("max_visitors".into(), json!(c.max_visitors));
            m.insert("reg_timeout".into(), json!(format_duration(c.reg_timeout)));
            m.insert("route_optimization".into(), json!(c.route_opt));
            m.insert("forward_lifetime".into(), json!(c.max_forward_lifetime));
            m.insert("witcp".into(), json!(c.witcp));
            m.insert("tunnel_ttl".into(), json!(c.tunnel_ttl));
        }
        AgentSpec::MobileNode(c) => {
            m.insert("kind".into(), json!("mobile_node"));
            m.insert("wireless".into(), json!(iface(c.wireless)));
            m.insert("home_addr".into(), dotted(c.home_addr));
            m.insert("home_agent".into(), dotted(c.home_agent));
            m.insert("lifetime".into(), json!(c.lifetime));
            m.insert("retransmissions".into(), json!(c.retx_max));
            m.insert("retransmit_timeout".into(), json!(format_duration(c.retx_initial)));
            m.insert("smooth_handoff".into(), json!(c.smooth_handoff));
            m.insert("forward_lifetime".into(), json!(c.forward_lifetime));
            m.insert("ehn".into(), json!(c.ehn));
        }
        AgentSpec::Correspondent(c) => {
            m.insert("kind".into(), json!("correspondent"));
            m.insert("addr".into(), dotted(c.addr));
            m.insert("refresh_before".into(), c.refresh_before.map_or(json!(false), |d| json!(format_duration(d))));
            m.insert("tunnel_ttl".into(), json!(c.tunnel_ttl));
        }
        _ => {}
    }
}
