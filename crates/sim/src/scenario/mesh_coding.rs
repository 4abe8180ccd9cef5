//! Network coding over a `[mesh]` (seed 002): which protocol carries one
//! TCP flow across the mesh, with MORE's / TCPFender's parameters
//! ([`CodingSpec`]; its keys are entries of `mesh_keys`), and MORE's
//! forwarder plan computed from them.
//!
//! `ip` is plain TCP/IP over the mesh's shortest paths. `more` codes the
//! flow's data segments with MORE (a batch is sent once it holds β
//! segments or its timer runs out, one batch at a time). `tcpfender` puts
//! the TCPFender modules under TCP at both ends (early release,
//! pipelining, ACKs from the receiver's rank).

use airtcp_agents::more::ForwarderPlan;
use airtcp_agents::tcpfender::FenderSource;
use airtcp_core::Duration;

use crate::network::etx::MeshLink;

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

/// MORE's batch timer when `batch_timeout` is not given.
pub const DEFAULT_BATCH_TIMEOUT: Duration = Duration::from_millis(100);

/// The protocols by name (`ip`: none, plain IP).
pub(super) const PROTOCOLS: [(&str, Option<Protocol>); 3] = [("ip", None), ("more", Some(Protocol::More)), ("tcpfender", Some(Protocol::Fender))];

/// TCPFender's source modes by name.
pub(super) const SOURCES: [(&str, FenderSource); 2] = [("more", FenderSource::UntilAck), ("per-segment", FenderSource::PerSegment)];

pub fn source_name(s: FenderSource) -> &'static str {
    SOURCES.iter().find(|x| x.1 == s).expect("every source has a name").0
}

pub fn name(p: Protocol) -> &'static str {
    PROTOCOLS.iter().find(|x| x.1 == Some(p)).expect("every protocol has a name").0
}
