//! Every `[mesh]` key, one entry each of [`mesh_keys`]: the accepted keys,
//! the reader, the resolved scenario's `mesh` record and the reference
//! page's table come from it.
//!
//! The keys are read in the table's order ([`Section::read_in_order`])
//! because each is checked against what comes before it: the mesh itself
//! (its radios, links and routes, `Mesh::graph`) is found after
//! `routing` and before `protocol`; every coding key needs a protocol
//! other than `ip`, and after `flow` (given or the first) has been checked
//! to run between two mesh nodes.
//!
//! [`Section::read_in_order`]: super::keys::Section::read_in_order

use airtcp_agents::tcpfender::FenderSource;
use airtcp_core::Duration;
use serde_json::{json, Value};

use crate::network::etx::MeshRouting;

use super::doc::{Doc, KeyPath};
use super::keys::{key_name, Bool, Codec, Dur, Key};
use super::mesh_coding::{name, source_name, Protocol, DEFAULT_BATCH_TIMEOUT, PROTOCOLS, SOURCES};
use super::mesh_links::{graph, MeshGraph};
use super::value::{Field, R};
use super::wifi::WifiSpec;
use super::{FlowSpec, NodeSpec};

/// The routing metrics by name.
const ROUTINGS: [(&str, MeshRouting); 2] = [("etx", MeshRouting::Etx), ("hops", MeshRouting::Hops)];

/// The names of a by-name list, as an "unknown ... (known: ...)" message lists them.
fn names<T>(list: &[(&str, T)]) -> String {
    list.iter().map(|x| x.0).collect::<Vec<_>>().join(", ")
}

pub fn routing_name(r: MeshRouting) -> &'static str {
    ROUTINGS.iter().find(|x| x.1 == r).expect("every metric has a name").0
}

/// A `[mesh]` table being read or written: its values, with the radios,
/// nodes and flows its names resolve against.
pub struct Mesh<'a> {
    /// The radios (reading: `None` when the scenario has none, an error
    /// once the mesh is needed).
    pub(super) wifi: Option<&'a WifiSpec>,
    pub(super) nodes: &'a [NodeSpec],
    pub(super) flows: &'a [FlowSpec],
    /// Where `[mesh]` is: errors about the table as a whole go there.
    pub(super) at: KeyPath,
    pub(super) routing: MeshRouting,
    /// The mesh's radios, links and routes (reading: once needed).
    pub(super) graph: Option<MeshGraph>,
    /// `None`: plain IP.
    pub(super) protocol: Option<Protocol>,
    protocol_at: KeyPath,
    /// The carried flow, once chosen and checked, and where it was chosen
    /// (`flow`, or `protocol` for the default first flow).
    pub(super) flow: Option<usize>,
    pub(super) flow_at: KeyPath,
    /// `None`: the protocol's default.
    pub(super) beta: Option<usize>,
    pub(super) pipeline: Option<usize>,
    pub(super) prune: f64,
    pub(super) source: FenderSource,
    pub(super) batch_timeout: Option<Duration>,
    pub(super) real_bytes: bool,
    /// Overridden delivery probabilities `(from radio, to radio, p)`.
    pub(super) delivery: Vec<(usize, usize, f64)>,
}

impl<'a> Mesh<'a> {
    /// Every key at its default (routing by ETX, plain IP).
    pub(super) fn new(wifi: Option<&'a WifiSpec>, nodes: &'a [NodeSpec], flows: &'a [FlowSpec], at: KeyPath) -> Self {
        Mesh {
            wifi,
            nodes,
            flows,
            protocol_at: at.clone(),
            flow_at: at.clone(),
            at,
            routing: MeshRouting::Etx,
            graph: None,
            protocol: None,
            flow: None,
            beta: None,
            pipeline: None,
            prune: 0.1,
            source: FenderSource::UntilAck,
            batch_timeout: Some(DEFAULT_BATCH_TIMEOUT),
            real_bytes: false,
            delivery: Vec::new(),
        }
    }

    /// The mesh's radios, links and routes, found on first need.
    pub(super) fn graph(&mut self, doc: &Doc) -> R<&MeshGraph> {
        if self.graph.is_none() {
            self.graph = Some(graph(doc, &self.at, self.wifi, self.nodes, self.routing)?);
        }
        Ok(self.graph.as_ref().expect("just found"))
    }

    /// The mesh radio of `node`, if it is a mesh node.
    fn radio_of(&self, node: usize) -> Option<usize> {
        let (g, w) = (self.graph.as_ref()?, self.wifi?);
        g.radios.iter().copied().find(|&r| w.radios[r].node == node)
    }

    fn radio_name(&self, r: usize) -> Value {
        json!(self.nodes[self.wifi.expect("a mesh has radios").radios[r].node].name)
    }

    /// The protocol a coding key (`f`) needs: not plain IP.
    fn protocol_for(&mut self, f: &Field) -> R<Protocol> {
        self.graph(f.doc)?;
        match self.protocol {
            Some(p) => Ok(p),
            None => Err(f.err(format!("{} needs protocol = \"more\" or \"tcpfender\"", key_name(f)))),
        }
    }

    /// [`Mesh::protocol_for`], with the carried flow chosen and checked.
    fn coded(&mut self, f: &Field) -> R<Protocol> {
        let p = self.protocol_for(f)?;
        self.carried(f.doc, p)?;
        Ok(p)
    }

    /// The carried flow: the one `flow` named, else the first.
    pub(super) fn carried(&mut self, doc: &Doc, p: Protocol) -> R<usize> {
        if let Some(k) = self.flow {
            return Ok(k);
        }
        if self.flows.is_empty() {
            return Err(doc.err(&self.at, format!("protocol \"{}\" needs a flow to carry (there are no [[flows]])", name(p))));
        }
        self.flow_at = self.protocol_at.clone();
        self.check_flow(doc, p, 0)?;
        self.flow = Some(0);
        Ok(0)
    }

    /// Flow `k` can be carried by `p`: it runs between two mesh nodes, and
    /// without SACK under TCPFender.
    fn check_flow(&self, doc: &Doc, p: Protocol, k: usize) -> R<()> {
        let fl = &self.flows[k];
        if self.radio_of(fl.from).is_none() || self.radio_of(fl.to).is_none() {
            return Err(doc.err(&self.flow_at, format!("flow \"{}\" must run between two mesh nodes ({} -> {})", fl.name, self.nodes[fl.from].name, self.nodes[fl.to].name)));
        }
        // ns-2's one-way agents carry no SACK (`tcp` is unused beside them).
        if p == Protocol::Fender && fl.ns2.is_none() && fl.tcp.sack {
            return Err(doc.err(&self.flow_at, format!("flow \"{}\" must have sack = false under tcpfender (the module's ACKs carry no SACK blocks)", fl.name)));
        }
        Ok(())
    }
}

/// A whole number in `range`.
fn count_in(f: &Field, range: std::ops::RangeInclusive<usize>) -> R<usize> {
    let n = f.u32()? as usize;
    if !range.contains(&n) {
        return Err(f.err(format!("{} {n} is outside {}..={}", key_name(f), range.start(), range.end())));
    }
    Ok(n)
}

/// Every `[mesh]` key.
pub fn mesh_keys<'a>() -> [Key<Mesh<'a>>; 10] {
    [
        Key {
            name: "routing",
            ty: "`\"etx\"` | `\"hops\"`",
            doc: "The metric of the shortest paths IP forwards along: ETX (expected transmissions of a frame and its ACK) or one per hop.",
            default: "`\"etx\"`",
            read: |m, f| {
                let s = f.str()?;
                m.routing = ROUTINGS.iter().find(|r| r.0 == s).ok_or_else(|| f.err(format!("unknown routing \"{s}\" (known: {})", names(&ROUTINGS))))?.1;
                Ok(())
            },
            write: |m| Some(json!(routing_name(m.routing))),
        },
        Key {
            name: "protocol",
            ty: "`\"ip\"` | `\"more\"` | `\"tcpfender\"`",
            doc: "What carries one TCP flow across the mesh: plain TCP/IP along the shortest paths, MORE's network coding of its data segments, or TCPFender's modules under TCP at both ends. Only data segments are coded; SYN, FIN and TCP's ACKs travel by IP.",
            default: "`\"ip\"`",
            read: |m, f| {
                m.graph(f.doc)?;
                let s = f.str()?;
                m.protocol = PROTOCOLS.iter().find(|p| p.0 == s).ok_or_else(|| f.err(format!("unknown protocol \"{s}\" (known: {})", names(&PROTOCOLS))))?.1;
                m.protocol_at = f.path.clone();
                Ok(())
            },
            write: |m| m.protocol.map(|p| json!(name(p))),
        },
        Key {
            name: "flow",
            ty: "flow name",
            doc: "The TCP flow the protocol carries; it must run between two mesh nodes.",
            default: "the first flow",
            read: |m, f| {
                let p = m.protocol_for(f)?;
                let s = f.str()?;
                let k = m.flows.iter().position(|x| x.name == s).ok_or_else(|| f.err(format!("unknown flow \"{s}\"")))?;
                m.flow_at = f.path.clone();
                m.check_flow(f.doc, p, k)?;
                m.flow = Some(k);
                Ok(())
            },
            write: |m| m.protocol.and(m.flow).map(|k| json!(m.flows[k].name)),
        },
        Key {
            name: "batch",
            ty: "integer, 1 to 52",
            doc: "β: native segments per batch.",
            default: "more 32, tcpfender 50",
            read: |m, f| {
                m.coded(f)?;
                m.beta = Some(count_in(f, 1..=airtcp_core::MAX_BATCH)?);
                Ok(())
            },
            write: |m| m.protocol.and(m.beta).map(Value::from),
        },
        Key {
            name: "pipeline",
            ty: "integer, 1 to 64",
            doc: "Batches in flight.",
            default: "more 1, tcpfender 4",
            read: |m, f| {
                m.coded(f)?;
                m.pipeline = Some(count_in(f, 1..=64)?);
                Ok(())
            },
            write: |m| m.protocol.and(m.pipeline).map(Value::from),
        },
        Key {
            name: "prune",
            ty: "probability below 1",
            doc: "MORE's pruning: forwarders expected to make less than this share of all transmissions are dropped from the plan.",
            default: "`0.1`",
            read: |m, f| {
                m.coded(f)?;
                let p = f.prob()?;
                if p >= 1.0 {
                    return Err(f.err(format!("{} must be below 1 (1 would prune every forwarder)", key_name(f))));
                }
                m.prune = p;
                Ok(())
            },
            write: |m| m.protocol.map(|_| json!(m.prune)),
        },
        Key {
            name: "source",
            ty: "`\"more\"` | `\"per-segment\"`",
            doc: "TCPFender only: how the sender module sends. `more`: MORE's source, which keeps sending the oldest batch the receiver has not got as often as the MAC takes a frame; `per-segment`: z_src coded packets per TCP segment and nothing more (the seed's literal reading).",
            default: "`\"more\"`",
            read: |m, f| {
                if m.coded(f)? != Protocol::Fender {
                    return Err(f.err(format!("{} needs protocol = \"tcpfender\"", key_name(f))));
                }
                let s = f.str()?;
                m.source = SOURCES.iter().find(|x| x.0 == s).ok_or_else(|| f.err(format!("unknown source \"{s}\" (known: {})", names(&SOURCES))))?.1;
                Ok(())
            },
            write: |m| (m.protocol == Some(Protocol::Fender)).then(|| json!(source_name(m.source))),
        },
        Key {
            name: "batch_timeout",
            ty: Dur::TY,
            doc: "MORE only: a batch closes at β natives or this long after its first one (`\"0s\"`: by size only). MORE's paper sends file transfers whose batches always fill; TCP's window may never fill one, so the timer is our addition where the paper is silent.",
            default: "`\"100ms\"`",
            read: |m, f| {
                if m.coded(f)? != Protocol::More {
                    return Err(f.err(format!("{} needs protocol = \"more\"", key_name(f))));
                }
                m.batch_timeout = Some(f.duration()?).filter(|d| *d > Duration::ZERO);
                Ok(())
            },
            write: |m| (m.protocol == Some(Protocol::More)).then(|| Dur::write(&m.batch_timeout.unwrap_or(Duration::ZERO))),
        },
        Key {
            name: "real_bytes",
            ty: Bool::TY,
            doc: "Carry real payload bytes through the codec and check every decoded datagram against the original (`real_bytes_mismatches` in the summary); `false`: coefficients only.",
            default: "`false`",
            read: |m, f| {
                m.coded(f)?;
                m.real_bytes = Bool::read(f)?;
                Ok(())
            },
            write: |m| m.protocol.map(|_| Bool::write(&m.real_bytes)),
        },
        Key {
            name: "delivery",
            ty: "list of `[from, to, probability]`",
            doc: "Broadcast delivery probabilities the credits (MORE's z and TX_credit, TCPFender's redundancy) are computed from, by node name; links not listed keep the mesh's own estimate.",
            default: "`[]`",
            read: |m, f| {
                m.coded(f)?;
                for k in 0..f.list()?.len() {
                    let e = f.item(k);
                    if e.list()?.len() != 3 {
                        return Err(e.err("a delivery entry is [from, to, probability]"));
                    }
                    let mut ends = [0usize; 2];
                    for (j, end) in ends.iter_mut().enumerate() {
                        let g = e.item(j);
                        let s = g.str()?;
                        let node = m.nodes.iter().position(|n| n.name == s).ok_or_else(|| g.err(format!("unknown node \"{s}\"")))?;
                        *end = m.radio_of(node).ok_or_else(|| g.err(format!("node \"{s}\" is not a mesh node")))?;
                    }
                    let p = e.item(2).prob()?;
                    if p <= 0.0 {
                        return Err(e.item(2).err("a delivery probability must be above 0 (leave the link out instead)"));
                    }
                    m.delivery.push((ends[0], ends[1], p));
                }
                Ok(())
            },
            write: |m| m.protocol.map(|_| m.delivery.iter().map(|&(a, b, p)| json!([m.radio_name(a), m.radio_name(b), p])).collect()),
        },
    ]
}

#[cfg(test)]
mod tests {
    use crate::Scenario;

    fn ladder(over: &[(&str, &str)]) -> Result<Scenario, String> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/mesh-tcpfender.toml");
        let over: Vec<(String, String)> = over.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Scenario::from_path(&path, &over).map_err(|e| e.to_string())
    }

    #[test]
    fn resolved_mesh_loads_back_to_the_same_mesh() {
        for over in [
            vec![],
            vec![("mesh.routing", "\"hops\""), ("mesh.protocol", "\"ip\"")],
            vec![("mesh.protocol", "\"more\""), ("mesh.batch_timeout", "\"0s\""), ("mesh.delivery", r#"[["S", "A", 0.7]]"#), ("mesh.real_bytes", "true"), ("mesh.batch", "16")],
            vec![("mesh.protocol", "\"tcpfender\""), ("mesh.source", "\"per-segment\""), ("mesh.pipeline", "2"), ("mesh.prune", "0.2")],
        ] {
            let s = ladder(&over).unwrap();
            let json = s.to_json();
            let back = Scenario::from_json_str(&json.to_string(), "back.json", &[]).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(back.mesh, s.mesh, "{over:?}");
            assert_eq!(back.to_json(), json);
        }
    }

    /// Plain IP records only the routing; a coding protocol every coding
    /// key of its own, defaults filled in (MORE: its batch timer, not
    /// TCPFender's source).
    #[test]
    fn resolved_mesh_records_the_keys_of_its_protocol() {
        assert_eq!(ladder(&[]).unwrap().to_json()["mesh"], serde_json::json!({ "routing": "etx" }));
        assert_eq!(
            ladder(&[("mesh.protocol", "\"more\"")]).unwrap().to_json()["mesh"],
            serde_json::json!({ "routing": "etx", "protocol": "more", "flow": "flow0", "batch": 32, "pipeline": 1, "prune": 0.1, "batch_timeout": "100ms", "real_bytes": false, "delivery": [] })
        );
        let fender = ladder(&[("mesh.protocol", "\"tcpfender\"")]).unwrap().to_json();
        assert_eq!((&fender["mesh"]["source"], &fender["mesh"]["batch"], &fender["mesh"]["pipeline"]), (&serde_json::json!("more"), &serde_json::json!(50), &serde_json::json!(4)));
        assert!(fender["mesh"].get("batch_timeout").is_none());
    }

    #[test]
    fn every_listed_value_reads() {
        let keys = super::mesh_keys();
        for (key, with) in [("routing", ""), ("protocol", ""), ("source", "tcpfender")] {
            let k = keys.iter().find(|k| k.name == key).unwrap();
            let listed = crate::scenario::keys::listed_values(k.ty);
            assert!(listed.len() >= 2, "{key}");
            for v in listed {
                let mut over = vec![(format!("mesh.{key}"), v.to_string())];
                if !with.is_empty() {
                    over.push(("mesh.protocol".into(), format!("\"{with}\"")));
                }
                let over: Vec<(&str, &str)> = over.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
                let s = ladder(&over).unwrap_or_else(|e| panic!("{key} = {v}: {e}"));
                assert_eq!(s.to_json()["mesh"].get(key).map_or("\"ip\"".into(), |x| x.to_string()), v, "{key}");
            }
        }
    }

    /// Keys are checked in the table's order, not the document's: with
    /// plain IP, `source` (listed after `real_bytes` in sorted order) is the
    /// first coding key reported; the mesh's radios are checked before
    /// `protocol`, after `routing`.
    #[test]
    fn keys_are_checked_in_the_tables_order() {
        let e = ladder(&[("mesh.real_bytes", "true"), ("mesh.source", "\"more\"")]).unwrap_err();
        assert!(e.ends_with("mesh.source: source needs protocol = \"more\" or \"tcpfender\""), "{e}");
        let e = ladder(&[("mesh.protocol", "\"olsr\""), ("radios.7.x", "5000.0")]).unwrap_err();
        assert!(e.ends_with("radios[7]: mesh node \"D\" has no path to or from \"S\" (no radio pair with delivery in both directions connects it)"), "{e}");
        let e = ladder(&[("mesh.routing", "\"ospf\""), ("radios.7.x", "5000.0")]).unwrap_err();
        assert!(e.ends_with("mesh.routing: unknown routing \"ospf\" (known: etx, hops)"), "{e}");
        // The default flow is checked (at `protocol`) before `batch` is read.
        let e = ladder(&[("mesh.protocol", "\"tcpfender\""), ("flows.0.tcp.sack", "true"), ("mesh.batch", "0")]).unwrap_err();
        assert!(e.ends_with("mesh.protocol: flow \"flow0\" must have sack = false under tcpfender (the module's ACKs carry no SACK blocks)"), "{e}");
    }
}
