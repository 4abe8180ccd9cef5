//! MORE's forwarder list and transmission credits, computed from link
//! delivery probabilities (Chachulski, Jennings, Katti & Katabi, "Trading
//! structure for randomness in wireless opportunistic routing", SIGCOMM 2007).
//!
//! Nodes are ordered by ETX distance to the destination; "j > i" below
//! means j is farther (upstream). With ε_ij = 1 − p(i→j), per packet the
//! source injects, the paper's equations are
//!
//! ```text
//! z_src = 1 / (1 − Π_{k<src} ε_src,k)                 (the source must reach someone closer)
//! L_i   = Σ_{j>i} z_j (1 − ε_ji) Π_{k<i} ε_jk         (heard by i from upstream, by nobody closer)
//! z_i   = L_i / (1 − Π_{k<i} ε_ik)                    (expected transmissions of i)
//! TX_credit_i = z_i / Σ_{j>i} z_j (1 − ε_ji)          (transmissions per packet heard from upstream)
//! ```
//!
//! and forwarders expected to make a small share of the transmissions are
//! pruned ([`PruneBasis`]); z and credits are then recomputed over the
//! remaining set until no node falls below the threshold.
//!
//! ETX link cost is 1/p(i→j), the forward delivery probability only: MORE's
//! data frames are 802.11 broadcasts, never acknowledged at the MAC, so the
//! reverse direction plays no part in their delivery (De Couto et al.'s ETX
//! multiplies in the reverse ratio for unicast with MAC ACKs). This is an
//! f64 set-up computation done once per flow; no time is involved.

use std::fmt;

/// Delivery probabilities of broadcast frames between nodes `0..n`.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkProbs {
    n: usize,
    p: Vec<f64>,
}

impl LinkProbs {
    /// `n` nodes and no links.
    pub fn new(n: usize) -> LinkProbs {
        LinkProbs { n, p: vec![0.0; n * n] }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the network has no node.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Probability that a frame `from` sends is received by `to`.
    pub fn set(&mut self, from: usize, to: usize, p: f64) -> Result<(), PlanError> {
        if from >= self.n || to >= self.n {
            return Err(PlanError::NoSuchNode { node: from.max(to), nodes: self.n });
        }
        if !(0.0..=1.0).contains(&p) {
            return Err(PlanError::BadProbability { from, to, p });
        }
        self.p[from * self.n + to] = p;
        Ok(())
    }

    /// Both directions at once.
    pub fn set_symmetric(&mut self, a: usize, b: usize, p: f64) -> Result<(), PlanError> {
        self.set(a, b, p)?;
        self.set(b, a, p)
    }

    /// Probability that a frame `from` sends is received by `to` (0 = no link).
    #[inline]
    pub fn get(&self, from: usize, to: usize) -> f64 {
        self.p[from * self.n + to]
    }

    /// ε_ij = 1 − p(i→j).
    #[inline]
    fn loss(&self, from: usize, to: usize) -> f64 {
        1.0 - self.get(from, to)
    }

    /// ETX distance of every node to `dst` (Dijkstra over link cost 1/p);
    /// `f64::INFINITY` where `dst` is unreachable.
    pub fn etx_to(&self, dst: usize) -> Vec<f64> {
        self.dijkstra_to(dst).0
    }

    /// The minimum-ETX path from `from` to `to` (both ends included), the
    /// route of MORE's batch ACK from the destination back to the source;
    /// `None` if there is none.
    pub fn shortest_path(&self, from: usize, to: usize) -> Option<Vec<usize>> {
        if from >= self.n || to >= self.n {
            return None;
        }
        let (dist, next) = self.dijkstra_to(to);
        if !dist[from].is_finite() {
            return None;
        }
        let mut path = vec![from];
        while *path.last().expect("non-empty") != to {
            path.push(next[*path.last().expect("non-empty")]);
        }
        Some(path)
    }

    /// Distances to `dst` and each node's next hop towards it.
    fn dijkstra_to(&self, dst: usize) -> (Vec<f64>, Vec<usize>) {
        let mut dist = vec![f64::INFINITY; self.n];
        let mut next = vec![usize::MAX; self.n];
        let mut done = vec![false; self.n];
        dist[dst] = 0.0;
        next[dst] = dst;
        for _ in 0..self.n {
            // Lowest-index tie-break keeps the order deterministic.
            let Some(u) = (0..self.n).filter(|&v| !done[v] && dist[v].is_finite()).min_by(|&a, &b| dist[a].total_cmp(&dist[b])) else {
                break;
            };
            done[u] = true;
            for v in 0..self.n {
                let p = self.get(v, u);
                if !done[v] && p > 0.0 && dist[u] + 1.0 / p < dist[v] {
                    dist[v] = dist[u] + 1.0 / p;
                    next[v] = u;
                }
            }
        }
        (dist, next)
    }
}

/// What the pruning threshold is a fraction of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PruneBasis {
    /// Σ z over source and forwarders: "less than 10% of all the
    /// transmissions" (our reading of MORE's pruning rule).
    AllTransmissions,
    /// z of the source alone: prune forwarders expected to transmit less
    /// than the fraction of what the source transmits.
    Source,
}

/// How a [`ForwarderPlan`] prunes forwarders that would do little.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanConfig {
    /// Prune forwarders with z below this fraction of the basis (MORE: 10 %).
    pub prune_fraction: f64,
    /// What `prune_fraction` is a fraction of.
    pub prune_basis: PruneBasis,
}

impl Default for PlanConfig {
    fn default() -> Self {
        PlanConfig { prune_fraction: 0.1, prune_basis: PruneBasis::AllTransmissions }
    }
}

/// Why a plan or a link table could not be built; the message names the
/// nodes involved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PlanError {
    /// A node index outside the network.
    NoSuchNode {
        /// The index given.
        node: usize,
        /// How many nodes the network has (valid indices are `0..nodes`).
        nodes: usize,
    },
    /// A delivery probability outside [0, 1].
    BadProbability {
        /// Sending node of the link.
        from: usize,
        /// Receiving node of the link.
        to: usize,
        /// The probability given.
        p: f64,
    },
    /// The destination cannot be reached from the source at all.
    Unreachable {
        /// The flow's source node.
        src: usize,
        /// The flow's destination node.
        dst: usize,
    },
    /// Source and destination are the same node: there is nothing to route.
    SameNode {
        /// The node given as both.
        node: usize,
    },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PlanError::NoSuchNode { node, nodes } => write!(f, "node {node} does not exist (the network has {nodes})"),
            PlanError::BadProbability { from, to, p } => {
                write!(f, "delivery probability {p} of link {from}->{to} is outside [0, 1]")
            }
            PlanError::Unreachable { src, dst } => write!(f, "node {dst} cannot be reached from node {src}"),
            PlanError::SameNode { node } => write!(f, "source and destination are both node {node}"),
        }
    }
}

impl std::error::Error for PlanError {}

/// The forwarder list and credits of one flow. Every node of the flow uses
/// the same plan (MORE puts list and credits in the packet header; the
/// simulator hands each node the plan instead, which is the same information).
#[derive(Clone, Debug, PartialEq)]
pub struct ForwarderPlan {
    src: usize,
    dst: usize,
    etx: Vec<f64>,
    /// Source, forwarders, destination; farthest from the destination first.
    order: Vec<usize>,
    z: Vec<f64>,
    credit: Vec<f64>,
    member: Vec<bool>,
    pruned: Vec<usize>,
}

impl ForwarderPlan {
    /// The plan of the flow `src` → `dst` over `links`: ETX order, pruning,
    /// then z and TX_credit of every remaining node (see the module docs).
    pub fn compute(links: &LinkProbs, src: usize, dst: usize, cfg: &PlanConfig) -> Result<ForwarderPlan, PlanError> {
        let n = links.len();
        for node in [src, dst] {
            if node >= n {
                return Err(PlanError::NoSuchNode { node, nodes: n });
            }
        }
        if src == dst {
            return Err(PlanError::SameNode { node: src });
        }
        let etx = links.etx_to(dst);
        if !etx[src].is_finite() {
            return Err(PlanError::Unreachable { src, dst });
        }
        // Candidates: the source and every node strictly closer to the destination.
        let mut order: Vec<usize> = (0..n).filter(|&v| v == src || etx[v] < etx[src]).collect();
        order.sort_by(|&a, &b| etx[b].total_cmp(&etx[a]).then(a.cmp(&b)));
        let mut pruned = Vec::new();
        loop {
            let z = expected_transmissions(links, &order);
            let total: f64 = order.iter().map(|&v| z[v]).sum();
            let basis = match cfg.prune_basis {
                PruneBasis::AllTransmissions => total,
                PruneBasis::Source => z[src],
            };
            let threshold = cfg.prune_fraction * basis;
            let weak: Vec<usize> = order.iter().copied().filter(|&v| v != src && v != dst && z[v] < threshold).collect();
            if weak.is_empty() {
                let credit = credits(links, &order, &z);
                let mut member = vec![false; n];
                order.iter().for_each(|&v| member[v] = true);
                return Ok(ForwarderPlan { src, dst, etx, order, z, credit, member, pruned });
            }
            order.retain(|v| !weak.contains(v));
            pruned.extend(weak);
        }
    }

    /// The flow's source node.
    pub fn src(&self) -> usize {
        self.src
    }

    /// The flow's destination node.
    pub fn dst(&self) -> usize {
        self.dst
    }

    /// ETX distance of `node` to the destination.
    pub fn etx(&self, node: usize) -> f64 {
        self.etx[node]
    }

    /// Source, forwarders and destination, farthest from the destination first.
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// The forwarders proper (neither source nor destination), farthest first.
    pub fn forwarders(&self) -> impl Iterator<Item = usize> + '_ {
        self.order.iter().copied().filter(|&v| v != self.src && v != self.dst)
    }

    /// Nodes dropped by pruning, in the order they were dropped.
    pub fn pruned(&self) -> &[usize] {
        &self.pruned
    }

    /// Whether `node` is a forwarder proper of this flow (in the pruned list,
    /// neither source nor destination).
    pub fn is_forwarder(&self, node: usize) -> bool {
        node != self.src && node != self.dst && self.member.get(node).copied().unwrap_or(false)
    }

    /// Expected transmissions of `node` per packet the source injects (0 off the list).
    pub fn z(&self, node: usize) -> f64 {
        self.z.get(node).copied().unwrap_or(0.0)
    }

    /// Transmissions `node` makes per packet it hears from upstream (0 off the list).
    pub fn tx_credit(&self, node: usize) -> f64 {
        self.credit.get(node).copied().unwrap_or(0.0)
    }

    /// Is `from` upstream of `node` (on the list and farther from the destination)?
    pub fn is_upstream(&self, from: usize, node: usize) -> bool {
        self.member.get(from).copied().unwrap_or(false) && self.etx[from] > self.etx[node]
    }
}

/// z for every node of `order` (farthest first); 0 elsewhere.
fn expected_transmissions(links: &LinkProbs, order: &[usize]) -> Vec<f64> {
    let mut z = vec![0.0; links.len()];
    let dst = *order.last().expect("order holds source and destination");
    for (pos, &i) in order.iter().enumerate() {
        if i == dst {
            break;
        }
        let closer = &order[pos + 1..];
        let upstream = &order[..pos];
        let l = if pos == 0 {
            1.0
        } else {
            upstream.iter().map(|&j| z[j] * links.get(j, i) * closer.iter().map(|&k| links.loss(j, k)).product::<f64>()).sum()
        };
        let reach = 1.0 - closer.iter().map(|&k| links.loss(i, k)).product::<f64>();
        z[i] = if reach > 0.0 { l / reach } else { 0.0 };
    }
    z
}

fn credits(links: &LinkProbs, order: &[usize], z: &[f64]) -> Vec<f64> {
    let mut credit = vec![0.0; links.len()];
    for (pos, &i) in order.iter().enumerate().skip(1) {
        let heard: f64 = order[..pos].iter().map(|&j| z[j] * links.get(j, i)).sum();
        if heard > 0.0 {
            credit[i] = z[i] / heard;
        }
    }
    credit
}
