//! The Mobile IP agents of `[[agents]]` (seed 001): `home_agent`,
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

use super::agent_decl::{iface_addr, AgentDecl, Net};
use super::agent_on::{read_kind, write_kind, On};
use super::keys::Key;
use super::units::format_duration;
use super::value::{Field, Table, R};
use super::{LinkSpec, NodeSpec};
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

/// A boolean key stored in one field of a Mobile IP configuration.
macro_rules! flag {
    ($name:literal => $field:ident, $doc:literal) => {
        Key {
            name: $name,
            ty: "boolean",
            doc: $doc,
            default: "`false`",
            read: |o, f| {
                o.c.$field = f.bool()?;
                Ok(())
            },
            write: |o| Some(json!(o.c.$field)),
        }
    };
}

/// A lifetime key (whole seconds, RFC 5944's 16-bit field).
macro_rules! lifetime_key {
    ($name:literal => $field:ident, $doc:literal, $default:literal) => {
        Key {
            name: $name,
            ty: "seconds (number or whole-second duration)",
            doc: $doc,
            default: $default,
            read: |o, f| {
                o.c.$field = lifetime(f, false)?;
                Ok(())
            },
            write: |o| Some(json!(o.c.$field)),
        }
    };
}

/// A positive duration key.
macro_rules! interval_key {
    ($name:literal => $field:ident, $doc:literal, $default:literal) => {
        Key {
            name: $name,
            ty: "duration > 0",
            doc: $doc,
            default: $default,
            read: |o, f| {
                o.c.$field = positive_duration(f)?;
                Ok(())
            },
            write: |o| Some(json!(format_duration(o.c.$field))),
        }
    };
}

macro_rules! ttl_key {
    () => {
        Key {
            name: "tunnel_ttl",
            ty: "integer 1..=255",
            doc: "TTL of the outer header of the tunnels it opens.",
            default: "`64`",
            read: |o, f| {
                o.c.tunnel_ttl = ttl(f)?;
                Ok(())
            },
            write: |o| Some(json!(o.c.tunnel_ttl)),
        }
    };
}

/// An `addr`-like key: an IPv4 address in `$field` (its default, from an
/// interface, is set once every key is read).
macro_rules! addr_key {
    ($name:literal => $field:ident, $doc:literal, $default:literal) => {
        Key {
            name: $name,
            ty: "IPv4 address",
            doc: $doc,
            default: $default,
            read: |o, f| {
                o.c.$field = addr_field(f)?;
                Ok(())
            },
            write: |o| Some(dotted(o.c.$field)),
        }
    };
}

/// Every key of a `home_agent` agent.
pub fn home_agent_keys<'a>() -> [Key<On<'a, HomeAgentConfig>>; 9] {
    [
        Key {
            name: "home",
            ty: "link name or `\"radio\"`",
            doc: "The home network's interface.",
            default: "required",
            read: |o, f| {
                o.c.home_iface = o.iface(f)?;
                Ok(())
            },
            write: |o| Some(o.link(o.c.home_iface)),
        },
        addr_key!("addr" => addr, "The agent's address.", "the node's first link's address (reachable from foreign networks whatever routes the home subnet takes), else `home`'s"),
        Key {
            name: "mobiles",
            ty: "list of node names or IPv4 addresses",
            doc: "The mobiles it serves (a node: its radio's address, else its first link's).",
            default: "the `mobile_node`s naming it",
            read: |o, f| {
                let net = o.net();
                let items = f.list()?;
                o.c.mobiles.clear();
                for i in 0..items.len() {
                    let it = f.item(i);
                    let s = it.str()?;
                    let a = match net.index.get(s) {
                        Some(n) => match node_addr(&net, n) {
                            Some(a) => a,
                            None => return Err(it.err(format!("node \"{s}\" has no address"))),
                        },
                        None => parse_addr(s).map(|a| a.to_be_bytes()).map_err(|_| it.err(format!("\"{s}\" is neither a node nor an IPv4 address")))?,
                    };
                    o.c.mobiles.push(a);
                }
                if o.c.mobiles.is_empty() {
                    return Err(f.err("mobiles must name at least one mobile (or be left out: every mobile_node naming this home agent)"));
                }
                Ok(())
            },
            write: |o| Some(Value::Array(o.c.mobiles.iter().map(|&a| dotted(a)).collect())),
        },
        lifetime_key!("max_lifetime" => max_lifetime, "Longest registration granted.", "`1800`"),
        flag!("route_optimization" => route_opt, "Send Binding Updates to correspondents."),
        lifetime_key!("binding_lifetime" => bu_lifetime, "Lifetime of those bindings.", "`10`"),
        flag!("witcp" => witcp, "Wi-TCP serving agent for its mobiles at home."),
        ttl_key!(),
        Key {
            name: "advert_interval",
            ty: "duration > 0",
            doc: "Agent advertisements with the H bit on `home` (so a mobile knows when it is back home).",
            default: "`\"1s\"`",
            read: |o, f| {
                o.c.advert_interval = Some(positive_duration(f)?);
                Ok(())
            },
            write: |o| o.c.advert_interval.map(|d| json!(format_duration(d))),
        },
    ]
}

pub(super) fn home_agent(t: &Table, net: &Net, node: usize) -> R<AgentSpec> {
    let mut c = HomeAgentConfig::new([0; 4], IfaceId(0), Vec::new());
    // Like a foreign agent, every second by default (ns-2's home agents
    // advertise too), so a mobile knows when it is back home.
    c.advert_interval = Some(DEFAULT_ADVERT_INTERVAL);
    let mut c = read_kind(t, &home_agent_keys(), On::reading(net, node, c), &["home"])?;
    if t.opt("addr").is_none() {
        // Default: its first link's address, reachable from foreign networks
        // whatever routes the home subnet takes; else the home interface's.
        c.addr = if net.links.iter().any(|l| l.a == node || l.b == node) {
            iface_addr(net, node, IfaceId(0)).map(|a| a.to_be_bytes()).unwrap_or([0; 4])
        } else {
            iface_default(t, net, node, c.home_iface, "addr")?
        };
    }
    Ok(AgentSpec::HomeAgent(c))
}

/// The address of `node`'s interface `iface`, the default of key `key`.
fn iface_default(t: &Table, net: &Net, node: usize, iface: IfaceId, key: &str) -> R<[u8; 4]> {
    match iface_addr(net, node, iface) {
        Some(a) => Ok(a.to_be_bytes()),
        None => Err(t.err(format!("node \"{}\" has no address on that interface; declare {key}", net.nodes[node].name))),
    }
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

/// Every key of a `foreign_agent` agent.
pub fn foreign_agent_keys<'a>() -> [Key<On<'a, ForeignAgentConfig>>; 10] {
    [
        Key {
            name: "wireless",
            ty: "link name or `\"radio\"`",
            doc: "The visited link, where it advertises.",
            default: "required",
            read: |o, f| {
                o.c.wireless = o.iface(f)?;
                Ok(())
            },
            write: |o| Some(o.link(o.c.wireless)),
        },
        addr_key!("addr" => addr, "The agent's address (the care-of address).", "`wireless`'s address"),
        interval_key!("advert_interval" => advert_interval, "Agent advertisements on `wireless`.", "`\"1s\"`"),
        lifetime_key!("lifetime" => reg_lifetime, "Registration lifetime it advertises.", "`1800`"),
        Key {
            name: "max_visitors",
            ty: "integer ≥ 1",
            doc: "Visitors it serves at once.",
            default: "`64`",
            read: |o, f| {
                let n = f.u32()?;
                if n == 0 {
                    return Err(f.err("max_visitors must be at least 1"));
                }
                o.c.max_visitors = n as usize;
                Ok(())
            },
            write: |o| Some(json!(o.c.max_visitors)),
        },
        interval_key!("reg_timeout" => reg_timeout, "A relayed registration request with no reply after this long is answered with code 78, registration timeout (RFC 5944 §3.4).", "`\"7s\"`"),
        flag!("route_optimization" => route_opt, "Smooth handoff: forwarding pointers and Binding Warnings."),
        lifetime_key!("forward_lifetime" => max_forward_lifetime, "Cap of a forwarding pointer's lifetime.", "`10`"),
        flag!("witcp" => witcp, "Wi-TCP serving agent for its visitors."),
        ttl_key!(),
    ]
}

pub(super) fn foreign_agent(t: &Table, net: &Net, node: usize) -> R<AgentSpec> {
    let c = ForeignAgentConfig::new([0; 4], IfaceId(0));
    let mut c = read_kind(t, &foreign_agent_keys(), On::reading(net, node, c), &["wireless"])?;
    if t.opt("addr").is_none() {
        c.addr = iface_default(t, net, node, c.wireless, "addr")?;
    }
    Ok(AgentSpec::ForeignAgent(c))
}

/// Every key of a `mobile_node` agent.
pub fn mobile_node_keys<'a>() -> [Key<On<'a, MobileNodeConfig>>; 9] {
    [
        Key {
            name: "wireless",
            ty: "link name or `\"radio\"`",
            doc: "The interface it roams with.",
            default: "required",
            read: |o, f| {
                o.c.wireless = o.iface(f)?;
                Ok(())
            },
            write: |o| Some(o.link(o.c.wireless)),
        },
        addr_key!("home_addr" => home_addr, "Its home address.", "`wireless`'s address"),
        Key {
            name: "home_agent",
            ty: "node name or IPv4 address",
            doc: "Its home agent: a node with a `home_agent` agent, or an address.",
            default: "required",
            read: |o, f| {
                let s = f.str()?;
                // A node name is resolved once every agent is read.
                o.c.home_agent = match o.net().index.get(s) {
                    Some(_) => [0; 4],
                    None => parse_addr(s).map(|a| a.to_be_bytes()).map_err(|_| f.err(format!("\"{s}\" is neither a node nor an IPv4 address")))?,
                };
                Ok(())
            },
            write: |o| Some(dotted(o.c.home_agent)),
        },
        lifetime_key!("lifetime" => lifetime, "Registration lifetime it requests.", "`1800`"),
        Key {
            name: "retransmissions",
            ty: "integer",
            doc: "Registration retransmissions before it gives up on an agent.",
            default: "`5`",
            read: |o, f| {
                o.c.retx_max = f.u32()?;
                Ok(())
            },
            write: |o| Some(json!(o.c.retx_max)),
        },
        interval_key!("retransmit_timeout" => retx_initial, "First retransmission timeout of a registration request (doubling).", "`\"1s\"`"),
        flag!("smooth_handoff" => smooth_handoff, "Send a Binding Update to the previous foreign agent."),
        lifetime_key!("forward_lifetime" => forward_lifetime, "Lifetime of the forwarding pointer it asks the previous foreign agent for.", "`10`"),
        flag!("ehn" => ehn, "Explicit handover notification (seed 001's [8]) on a new agent."),
    ]
}

pub(super) fn mobile_node(t: &Table, net: &Net, node: usize) -> R<AgentSpec> {
    let c = MobileNodeConfig::new([0; 4], [0; 4], IfaceId(0));
    let mut c = read_kind(t, &mobile_node_keys(), On::reading(net, node, c), &["wireless", "home_agent"])?;
    if t.opt("home_addr").is_none() {
        c.home_addr = iface_default(t, net, node, c.wireless, "home_addr")?;
    }
    Ok(AgentSpec::MobileNode(c))
}

/// Every key of a `correspondent` agent.
pub fn correspondent_keys<'a>() -> [Key<On<'a, CorrespondentConfig>>; 3] {
    [
        addr_key!("addr" => addr, "Its address.", "the node's radio's, else its first link's"),
        Key {
            name: "refresh_before",
            ty: "duration > 0 or `false`",
            doc: "Send a Binding Request this long before a used binding lapses; `false`: never.",
            default: "`\"1s\"`",
            read: |o, f| {
                o.c.refresh_before = match f.v {
                    Value::Bool(false) => None,
                    _ => Some(positive_duration(f)?),
                };
                Ok(())
            },
            write: |o| Some(o.c.refresh_before.map_or(json!(false), |d| json!(format_duration(d)))),
        },
        ttl_key!(),
    ]
}

pub(super) fn correspondent(t: &Table, net: &Net, node: usize) -> R<AgentSpec> {
    let c = CorrespondentConfig::new([0; 4]);
    let mut c = read_kind(t, &correspondent_keys(), On::reading(net, node, c), &[])?;
    if t.opt("addr").is_none() {
        c.addr = match node_addr(net, node) {
            Some(a) => a,
            None => return Err(t.err(format!("node \"{}\" has no address; declare addr", net.nodes[node].name))),
        };
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
pub(super) fn agent_json(spec: &AgentSpec, m: &mut Map<String, Value>, nodes: &[NodeSpec], links: &[LinkSpec], node: usize) {
    match spec {
        AgentSpec::HomeAgent(c) => {
            write_kind(m, &home_agent_keys(), On::local(nodes, links, node, c.clone()));
        }
        AgentSpec::ForeignAgent(c) => {
            write_kind(m, &foreign_agent_keys(), On::local(nodes, links, node, c.clone()));
        }
        AgentSpec::MobileNode(c) => {
            write_kind(m, &mobile_node_keys(), On::local(nodes, links, node, c.clone()));
        }
        AgentSpec::Correspondent(c) => {
            write_kind(m, &correspondent_keys(), On::local(nodes, links, node, c.clone()));
        }
        _ => {}
    }
}
