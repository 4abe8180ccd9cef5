//! The `[mesh]` keys of network coding (seed 002): which protocol carries
//! one TCP flow across the mesh, and MORE's / TCPFender's parameters.
//!
//! ```toml
//! [mesh]
//! protocol = "tcpfender"   # ip (default) | more | tcpfender
//! flow = "flow0"           # the flow it carries (default: the first)
//! batch = 50               # β natives per batch, 1..=52 (default: more 32, tcpfender 50)
//! pipeline = 4             # batches in flight (default: more 1, tcpfender 4)
//! prune = 0.1              # MORE's pruning: forwarders expected to make less
//!                          # than this share of all transmissions are dropped
//! source = "more"          # tcpfender: "more" (MORE's source: keeps sending
//!                          # the oldest batch the receiver has not got, as
//!                          # often as the MAC takes a frame; default) or
//!                          # "per-segment" (z_src packets per TCP segment
//!                          # and nothing more: the literal reading)
//! batch_timeout = "100ms"  # more: a batch closes at β natives or this long
//!                          # after its first one (default 100ms; "0s" for
//!                          # size only)
//! real_bytes = false       # carry real payload bytes through the codec
//!                          # and check every decoded datagram against the
//!                          # original (default: coefficients only)
//! delivery = [["S", "A", 0.62]]   # broadcast delivery probabilities the
//!                          # credits (MORE's z and TX_credit, TCPFender's
//!                          # redundancy) are computed from; links not listed
//!                          # keep the mesh's own estimate
//! ```
//!
//! `ip` is plain TCP/IP over the mesh's shortest paths. `more` codes the
//! flow's data segments with MORE (a batch is sent once it holds β
//! segments or its timer runs out, one batch at a time: MORE's paper has
//! file transfers whose batches always fill; TCP's window may never fill
//! one, so the timer is our addition where the paper is silent).
//! `tcpfender` puts the TCPFender modules under TCP at both ends (early
//! release, pipelining, ACKs from the receiver's rank). Either way only data
//! segments are coded; SYN, FIN and TCP's own ACKs travel by IP.

use airtcp_agents::more::{ForwarderPlan, LinkProbs, PlanConfig};
use airtcp_agents::tcpfender::FenderSource;
use airtcp_core::Duration;

use crate::network::etx::MeshLink;
use super::value::{Table, R};
use super::wifi::WifiSpec;
use super::{FlowSpec, NodeSpec};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    More,
    Fender,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CodingSpec {
    pub protocol: Protocol,
    /// Index of the carried flow.
    pub flow: usize,
    /// Radios of the flow's source and destination.
    pub src: usize,
    pub dst: usize,
    pub beta: usize,
    pub pipeline: usize,
    pub prune: f64,
    /// TCPFender: how the sender module paces its broadcasts.
    pub source: FenderSource,
    /// MORE: a short batch closes this long after its first native (`None`: by size only).
    pub batch_timeout: Option<Duration>,
    /// Carry real bytes: coded frames hold the linear combination of the
    /// natives' datagrams, and each decoded datagram is checked against the
    /// original (`real_bytes_mismatches` in the summary).
    pub real_bytes: bool,
    /// Overridden delivery probabilities `(from radio, to radio, p)`, as written.
    pub delivery: Vec<(usize, usize, f64)>,
    /// MORE's forwarder list and credits over radio indices, from the
    /// credit deliveries.
    pub plan: ForwarderPlan,
}

/// The delivery probability of every mesh link for the credits: the
/// override when there is one, else the link's data-frame estimate.
pub fn credit_delivery(delivery: &[(usize, usize, f64)], links: &[MeshLink]) -> Vec<(usize, usize, f64)> {
    let mut out: Vec<(usize, usize, f64)> = links.iter().map(|l| (l.from, l.to, l.data)).collect();
    for &(a, b, p) in delivery {
        match out.iter_mut().find(|e| e.0 == a && e.1 == b) {
            Some(e) => e.2 = p,
            None => out.push((a, b, p)),
        }
    }
    out
}

pub(super) const CODING_KEYS: &[&str] = &["protocol", "flow", "batch", "pipeline", "prune", "source", "batch_timeout", "real_bytes", "delivery"];

/// MORE's batch timer when `batch_timeout` is not given.
pub const DEFAULT_BATCH_TIMEOUT: Duration = Duration::from_millis(100);

/// Read the coding keys of `[mesh]`; `None` for `protocol = "ip"`.
pub(super) fn coding(t: &Table, w: &WifiSpec, radios: &[usize], links: &[MeshLink], nodes: &[NodeSpec], flows: &[FlowSpec]) -> R<Option<CodingSpec>> {
    let protocol = match t.opt("protocol") {
        None => None,
        Some(f) => match f.str()? {
            "ip" => None,
            "more" => Some(Protocol::More),
            "tcpfender" => Some(Protocol::Fender),
            s => return Err(f.err(format!("unknown protocol \"{s}\" (known: ip, more, tcpfender)"))),
        },
    };
    let Some(protocol) = protocol else {
        if let Some(k) = CODING_KEYS[1..].iter().find(|k| t.opt(k).is_some()) {
            return Err(t.opt(k).expect("found").err(format!("{k} needs protocol = \"more\" or \"tcpfender\"")));
        }
        return Ok(None);
    };
    let radio_of = |node: usize| radios.iter().copied().find(|&r| w.radios[r].node == node);
    let flow = match t.opt("flow") {
        None => {
            if flows.is_empty() {
                return Err(t.err(format!("protocol \"{}\" needs a flow to carry (there are no [[flows]])", name(protocol))));
            }
            0
        }
        Some(f) => {
            let s = f.str()?;
            flows.iter().position(|x| x.name == s).ok_or_else(|| f.err(format!("unknown flow \"{s}\"")))?
        }
    };
    let fl = &flows[flow];
    let here = t.opt("flow").unwrap_or_else(|| t.opt("protocol").expect("protocol is set"));
    let (Some(src), Some(dst)) = (radio_of(fl.from), radio_of(fl.to)) else {
        return Err(here.err(format!("flow \"{}\" must run between two mesh nodes ({} -> {})", fl.name, nodes[fl.from].name, nodes[fl.to].name)));
    };
    // ns-2's one-way agents carry no SACK (`tcp` is unused beside them).
    if protocol == Protocol::Fender && fl.ns2.is_none() && fl.tcp.sack {
        return Err(here.err(format!("flow \"{}\" must have sack = false under tcpfender (the module's ACKs carry no SACK blocks)", fl.name)));
    }
    let beta = match t.opt("batch") {
        None => if protocol == Protocol::More { 32 } else { 50 },
        Some(f) => {
            let b = f.u32()? as usize;
            if !(1..=airtcp_core::MAX_BATCH).contains(&b) {
                return Err(f.err(format!("batch {b} is outside 1..={}", airtcp_core::MAX_BATCH)));
            }
            b
        }
    };
    let pipeline = match t.opt("pipeline") {
        None => if protocol == Protocol::More { 1 } else { 4 },
        Some(f) => {
            let p = f.u32()? as usize;
            if !(1..=64).contains(&p) {
                return Err(f.err(format!("pipeline {p} is outside 1..=64")));
            }
            p
        }
    };
    let prune = match t.opt("prune") {
        None => 0.1,
        Some(f) => {
            let p = f.prob()?;
            if p >= 1.0 {
                return Err(f.err("prune must be below 1 (1 would prune every forwarder)"));
            }
            p
        }
    };
    let source = match t.opt("source") {
        None => FenderSource::UntilAck,
        Some(f) => {
            if protocol != Protocol::Fender {
                return Err(f.err("source needs protocol = \"tcpfender\""));
            }
            match f.str()? {
                "more" => FenderSource::UntilAck,
                "per-segment" => FenderSource::PerSegment,
                s => return Err(f.err(format!("unknown source \"{s}\" (known: more, per-segment)"))),
            }
        }
    };
    let batch_timeout = match t.opt("batch_timeout") {
        None => Some(DEFAULT_BATCH_TIMEOUT),
        Some(f) => {
            if protocol != Protocol::More {
                return Err(f.err("batch_timeout needs protocol = \"more\""));
            }
            Some(f.duration()?).filter(|d| *d > Duration::ZERO)
        }
    };
    let real_bytes = match t.opt("real_bytes") {
        None => false,
        Some(f) => f.bool()?,
    };
    let mut delivery = Vec::new();
    if let Some(f) = t.opt("delivery") {
        for k in 0..f.list()?.len() {
            let e = f.item(k);
            let v = e.list()?;
            if v.len() != 3 {
                return Err(e.err("a delivery entry is [from, to, probability]"));
            }
            let mut ends = [0usize; 2];
            for (j, end) in ends.iter_mut().enumerate() {
                let g = e.item(j);
                let s = g.str()?;
                let node = nodes.iter().position(|n| n.name == s).ok_or_else(|| g.err(format!("unknown node \"{s}\"")))?;
                *end = radio_of(node).ok_or_else(|| g.err(format!("node \"{s}\" is not a mesh node")))?;
            }
            let p = e.item(2).prob()?;
            if p <= 0.0 {
                return Err(e.item(2).err("a delivery probability must be above 0 (leave the link out instead)"));
            }
            delivery.push((ends[0], ends[1], p));
        }
    }
    let mut probs = LinkProbs::new(w.radios.len());
    for (a, b, p) in credit_delivery(&delivery, links) {
        probs.set(a, b, p).map_err(|e| t.err(e.to_string()))?;
    }
    let cfg = PlanConfig { prune_fraction: prune, ..PlanConfig::default() };
    let plan = ForwarderPlan::compute(&probs, src, dst, &cfg).map_err(|e| here.err(format!("no MORE forwarder plan for flow \"{}\": {e}", fl.name)))?;
    Ok(Some(CodingSpec { protocol, flow, src, dst, beta, pipeline, prune, source, batch_timeout, real_bytes, delivery, plan }))
}

pub fn source_name(s: FenderSource) -> &'static str {
    match s {
        FenderSource::UntilAck => "more",
        FenderSource::PerSegment => "per-segment",
    }
}

pub fn name(p: Protocol) -> &'static str {
    match p {
        Protocol::More => "more",
        Protocol::Fender => "tcpfender",
    }
}

/// The coding keys as scenario JSON, into `out` (the `[mesh]` table).
pub fn coding_json(c: &CodingSpec, w: &WifiSpec, nodes: &[NodeSpec], flows: &[FlowSpec], out: &mut serde_json::Value) {
    let n = |r: usize| nodes[w.radios[r].node].name.clone();
    out["protocol"] = name(c.protocol).into();
    out["flow"] = flows[c.flow].name.clone().into();
    out["batch"] = c.beta.into();
    out["pipeline"] = c.pipeline.into();
    out["prune"] = c.prune.into();
    match c.protocol {
        Protocol::Fender => out["source"] = source_name(c.source).into(),
        Protocol::More => out["batch_timeout"] = super::units::format_duration(c.batch_timeout.unwrap_or(Duration::ZERO)).into(),
    }
    out["real_bytes"] = c.real_bytes.into();
    out["delivery"] = c.delivery.iter().map(|&(a, b, p)| serde_json::json!([n(a), n(b), p])).collect();
}
