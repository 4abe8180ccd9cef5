//! `[[agents]]`: in-network agents on nodes, validated like everything else
//! and resolved to the agents crate's typed configurations. A node's agents
//! form a stack in declaration order, first = closest to IP.

use airtcp_agents::mtcp::MtcpConfig;
use airtcp_agents::{AgentSpec, IfaceId, ItcpConfig, PegConfig, SnoopConfig, SnoopTimer};
use airtcp_core::Duration;
use serde_json::{json, Value};

use super::agent_decl::{iface_addr, AgentDecl, Net};
use super::agent_head::{head_json, head_keys, read_head_key, Head};
use super::agent_on::{read_kind, write_kind, On};
use super::keys::Key;
use super::names::NodeIndex;
use super::tcp::{tcp_config, tcp_json};
use super::units::format_duration;
use super::value::{Table, R};
use super::{LinkSpec, NodeSpec};

/// Seed 004: "Snoop Retransmission Timeout 1 sec".
const DEFAULT_SNOOP_TIMEOUT: Duration = Duration::from_secs(1);
/// Bounds of the adaptive Snoop timer: Linux's TCP_RTO_MIN (200 ms) keeps it
/// above the wireless hop's delayed-ACK-free RTT noise; the upper bound is the
/// seed's fixed 1 s, past which the end-to-end RTO takes over anyway.
const ADAPTIVE_MIN: Duration = Duration::from_millis(200);
const ADAPTIVE_MAX: Duration = Duration::from_secs(1);
const ADAPTIVE_INITIAL: Duration = Duration::from_secs(1);
/// Per-connection cache bound: 64 segments, twice the 32 KB window of the
/// paper's era at 1 KB segments (Balakrishnan et al. 1995 §4).
const DEFAULT_CACHE_PACKETS: u32 = 64;
/// Relay buffer of the I-TCP proxy: 64 KiB, a classic socket buffer.
const DEFAULT_RELAY_BYTES: u64 = 65_536;

pub(super) fn agents(
    list: Vec<Table>,
    nodes: &[NodeSpec],
    index: &NodeIndex,
    links: &[LinkSpec],
    wifi: Option<&super::wifi::WifiSpec>,
) -> R<Vec<AgentDecl>> {
    let mut out = Vec::with_capacity(list.len());
    let net = Net { nodes, links, wifi, index };
    for (i, t) in list.iter().enumerate() {
        let [node_key, kind_key, name_key] = head_keys();
        let mut h = Head::reading(nodes, index, &out);
        read_head_key(t, &node_key, &mut h)?;
        read_head_key(t, &kind_key, &mut h)?;
        let node = h.node;
        let spec = match h.kind {
            "peg" => peg(t, nodes, links, node)?,
            "snoop" => snoop(t, nodes, links, node)?,
            "itcp" => itcp(t, nodes, links, node)?,
            "home_agent" => super::mobileip::home_agent(t, &net, node)?,
            "foreign_agent" => super::mobileip::foreign_agent(t, &net, node)?,
            "mobile_node" => super::mobileip::mobile_node(t, &net, node)?,
            "correspondent" => super::mobileip::correspondent(t, &net, node)?,
            "mtcp" => mtcp(t, &net, node)?,
            other => unreachable!("kind {other} is in KINDS but has no reader"),
        };
        read_head_key(t, &name_key, &mut h)?;
        let name = h.name_or_default(i);
        out.push(AgentDecl { name, node, spec });
    }
    super::mobileip::resolve_home_agents(&list, &mut out, &net)?;
    Ok(out)
}


/// Every key of a `peg` agent (seed 004's packet error generator).
pub fn peg_keys<'a>() -> [Key<On<'a, PegConfig>>; 4] {
    [
        Key {
            name: "send_data_drop_rate",
            ty: "probability",
            doc: "Drop rate of packets leaving the node (`Send_Data_Drop_Rate`).",
            default: "`0.0`",
            read: |o, f| {
                o.c.send_drop_rate = f.prob()?;
                Ok(())
            },
            write: |o| Some(json!(o.c.send_drop_rate)),
        },
        Key {
            name: "recv_data_drop_rate",
            ty: "probability",
            doc: "Drop rate of packets arriving at the node (`Recv_Data_Drop_Rate`).",
            default: "`0.0`",
            read: |o, f| {
                o.c.recv_drop_rate = f.prob()?;
                Ok(())
            },
            write: |o| Some(json!(o.c.recv_drop_rate)),
        },
        Key {
            name: "data_only",
            ty: "boolean",
            doc: "Drop only TCP segments with payload; `false`: every packet, ACKs and control traffic included.",
            default: "`true`",
            read: |o, f| {
                o.c.data_only = f.bool()?;
                Ok(())
            },
            write: |o| Some(json!(o.c.data_only)),
        },
        Key {
            name: "iface",
            ty: "link name or `\"radio\"`",
            doc: "Only this interface of the node.",
            default: "all of the node's",
            read: |o, f| {
                o.c.iface = Some(o.iface(f)?);
                Ok(())
            },
            write: |o| o.c.iface.map(|i| o.link(i)),
        },
    ]
}

fn peg(t: &Table, nodes: &[NodeSpec], links: &[LinkSpec], node: usize) -> R<AgentSpec> {
    let c = PegConfig { send_drop_rate: 0.0, recv_drop_rate: 0.0, data_only: true, iface: None };
    Ok(AgentSpec::Peg(read_kind(t, &peg_keys(), On::local(nodes, links, node, c), &[])?))
}

/// Every key of a `snoop` agent.
pub fn snoop_keys<'a>() -> [Key<On<'a, SnoopConfig>>; 3] {
    [
        Key {
            name: "wireless",
            ty: "link name or `\"radio\"`",
            doc: "The interface facing the wireless hop: data leaving through it is cached, ACKs arriving on it are snooped.",
            default: "required",
            read: |o, f| {
                o.c.wireless = o.iface(f)?;
                Ok(())
            },
            write: |o| Some(o.link(o.c.wireless)),
        },
        Key {
            name: "timer",
            ty: "duration or `\"adaptive\"`",
            doc: "Local retransmission timer: fixed, or adaptive (from the wireless hop's RTT, between 200 ms and 1 s).",
            default: "`\"1s\"`",
            read: |o, f| {
                o.c.timer = if f.v.as_str() == Some("adaptive") {
                    SnoopTimer::Adaptive { initial: ADAPTIVE_INITIAL, min: ADAPTIVE_MIN, max: ADAPTIVE_MAX }
                } else {
                    let d = f.duration()?;
                    if d == Duration::ZERO {
                        return Err(f.err("timer must be positive (or \"adaptive\")"));
                    }
                    SnoopTimer::Fixed(d)
                };
                Ok(())
            },
            write: |o| {
                Some(match o.c.timer {
                    SnoopTimer::Fixed(d) => json!(format_duration(d)),
                    SnoopTimer::Adaptive { .. } => json!("adaptive"),
                })
            },
        },
        Key {
            name: "cache_packets",
            ty: "integer ≥ 1",
            doc: "Segments cached per connection.",
            default: "`64`",
            read: |o, f| {
                o.c.cache_packets = f.u32()?;
                if o.c.cache_packets == 0 {
                    return Err(f.err("cache_packets must be at least 1"));
                }
                Ok(())
            },
            write: |o| Some(json!(o.c.cache_packets)),
        },
    ]
}

fn snoop(t: &Table, nodes: &[NodeSpec], links: &[LinkSpec], node: usize) -> R<AgentSpec> {
    let c = SnoopConfig { wireless: IfaceId(0), timer: SnoopTimer::Fixed(DEFAULT_SNOOP_TIMEOUT), cache_packets: DEFAULT_CACHE_PACKETS };
    Ok(AgentSpec::Snoop(read_kind(t, &snoop_keys(), On::local(nodes, links, node, c), &["wireless"])?))
}

/// Every key of an `itcp` agent (the I-TCP split-connection proxy).
pub fn itcp_keys<'a>() -> [Key<On<'a, ItcpConfig>>; 4] {
    /// A proxy connection's `[flows.tcp]`-style table. The proxy's
    /// endpoints are built at the start of the run; a configuration they
    /// would refuse is a scenario error, not a panic.
    fn tcp(f: &super::value::Field) -> R<airtcp_tcp::TcpConfig> {
        let c = tcp_config(&f.table()?)?;
        c.validate().map_err(|m| f.err(m))?;
        Ok(c)
    }
    [
        Key {
            name: "wireless",
            ty: "link name or `\"radio\"`",
            doc: "The interface facing the mobile host: the proxy splits each connection there.",
            default: "required",
            read: |o, f| {
                o.c.wireless = o.iface(f)?;
                Ok(())
            },
            write: |o| Some(o.link(o.c.wireless)),
        },
        Key {
            name: "relay_bytes",
            ty: "size (bytes)",
            doc: "The relay buffer between the two connections (a classic 64 KiB socket buffer by default).",
            default: "`65536`",
            read: |o, f| {
                o.c.relay_bytes = f.size()?;
                if o.c.relay_bytes == 0 {
                    return Err(f.err("relay_bytes must be positive"));
                }
                Ok(())
            },
            write: |o| Some(json!(o.c.relay_bytes)),
        },
        Key {
            name: "tcp",
            ty: "table",
            doc: "The fixed-side connection's TCP options (the keys of [`[flows.tcp]`](#flowstcp)).",
            default: "the `linux` profile",
            read: |o, f| {
                o.c.fixed_tcp = tcp(f)?;
                Ok(())
            },
            write: |o| Some(tcp_json(&o.c.fixed_tcp)),
        },
        Key {
            name: "wireless_tcp",
            ty: "table",
            doc: "The wireless-side connection's TCP options (the keys of [`[flows.tcp]`](#flowstcp)).",
            default: "`tcp`'s",
            read: |o, f| {
                o.c.wireless_tcp = tcp(f)?;
                Ok(())
            },
            write: |o| Some(tcp_json(&o.c.wireless_tcp)),
        },
    ]
}

fn itcp(t: &Table, nodes: &[NodeSpec], links: &[LinkSpec], node: usize) -> R<AgentSpec> {
    let linux = super::tcp::tcp_default();
    let c = ItcpConfig { wireless: IfaceId(0), relay_bytes: DEFAULT_RELAY_BYTES, fixed_tcp: linux.clone(), wireless_tcp: linux };
    let mut c = read_kind(t, &itcp_keys(), On::local(nodes, links, node, c), &["wireless"])?;
    if t.opt("wireless_tcp").is_none() {
        c.wireless_tcp = c.fixed_tcp.clone();
    }
    Ok(AgentSpec::Itcp(c))
}

/// Every key of an `mtcp` agent (M-TCP's supervisor host at an AP).
pub fn mtcp_keys<'a>() -> [Key<On<'a, MtcpConfig>>; 3] {
    [
        Key {
            name: "wireless",
            ty: "link name or `\"radio\"`",
            doc: "The interface facing the mobile hosts.",
            default: "`\"radio\"` (the node must have one)",
            read: |o, f| {
                o.c.wireless = o.iface(f)?;
                Ok(())
            },
            write: |o| Some(o.link(o.c.wireless)),
        },
        Key {
            name: "uplink",
            ty: "link name or `\"radio\"`",
            doc: "Where the move notices to the peers leave.",
            default: "the node's first link",
            read: |o, f| {
                o.c.uplink = o.iface(f)?;
                Ok(())
            },
            write: |o| Some(o.link(o.c.uplink)),
        },
        Key {
            name: "peers",
            ty: "list of node names or IPv4 addresses",
            doc: "The other M-TCP APs, which get this one's move notices; a node is reached at its first link's address.",
            default: "`[]`",
            read: |o, f| {
                let net = o.net();
                let items = f.list()?;
                o.c.peers.clear();
                for i in 0..items.len() {
                    let it = f.item(i);
                    let s = it.str()?;
                    let a = match net.index.get(s) {
                        Some(n) if n == o.node => return Err(it.err(format!("peers names the agent's own node \"{s}\""))),
                        Some(n) => match net.links.iter().any(|l| l.a == n || l.b == n).then(|| iface_addr(&net, n, IfaceId(0))).flatten() {
                            Some(a) => a.to_be_bytes(),
                            None => return Err(it.err(format!("node \"{s}\" has no wired address"))),
                        },
                        None => crate::network::addr::parse_addr(s).map(|a| a.to_be_bytes()).map_err(|_| it.err(format!("\"{s}\" is neither a node nor an IPv4 address")))?,
                    };
                    o.c.peers.push(a);
                }
                Ok(())
            },
            write: |o| Some(json!(o.c.peers.iter().map(|p| crate::network::addr::fmt_addr(u32::from_be_bytes(*p))).collect::<Vec<_>>())),
        },
    ]
}

/// An `mtcp` agent; `wireless` defaults to the node's radio and `uplink`
/// to its first link, and a node without them must name them.
fn mtcp(t: &Table, net: &Net, node: usize) -> R<AgentSpec> {
    let c = MtcpConfig { wireless: IfaceId(0), uplink: IfaceId(0), peers: Vec::new() };
    let mut c = read_kind(t, &mtcp_keys(), On::reading(net, node, c), &[])?;
    let wired = net.links.iter().filter(|l| l.a == node || l.b == node).count();
    if t.opt("wireless").is_none() {
        if !net.nodes[node].radio {
            return Err(t.err(format!("an mtcp agent belongs on an AP: node \"{}\" has no radio", net.nodes[node].name)));
        }
        c.wireless = IfaceId(wired as u32);
    }
    if t.opt("uplink").is_none() && wired == 0 {
        return Err(t.err(format!("node \"{}\" has no wired link for the move notices", net.nodes[node].name)));
    }
    Ok(AgentSpec::Mtcp(c))
}

/// The declaration as scenario JSON (it loads back to the same agent).
pub fn agent_json(a: &AgentDecl, nodes: &[NodeSpec], links: &[LinkSpec]) -> Value {
    let mut m = head_json(a, nodes);
    match &a.spec {
        AgentSpec::Peg(c) => {
            let keys = peg_keys();
            write_kind(&mut m, &keys, On::local(nodes, links, a.node, c.clone()));
        }
        AgentSpec::Snoop(c) => {
            let keys = snoop_keys();
            write_kind(&mut m, &keys, On::local(nodes, links, a.node, c.clone()));
        }
        AgentSpec::Itcp(c) => {
            let keys = itcp_keys();
            write_kind(&mut m, &keys, On::local(nodes, links, a.node, c.clone()));
        }
        AgentSpec::Mtcp(c) => {
            let keys = mtcp_keys();
            write_kind(&mut m, &keys, On::local(nodes, links, a.node, c.clone()));
        }
        AgentSpec::HomeAgent(_) | AgentSpec::ForeignAgent(_) | AgentSpec::MobileNode(_) | AgentSpec::Correspondent(_) => {
            super::mobileip::agent_json(&a.spec, &mut m, nodes, links, a.node);
        }
    }
    Value::Object(m)
}

