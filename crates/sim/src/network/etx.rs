//! Route computation for a multi-hop wireless mesh: each link's cost (ETX
//! or one per hop) and every radio's next hop toward every other along the
//! cheapest path. A leaf of the model: the scenario reader finds the links
//! (from positions and the PHY) and hands them here.
//!
//! ETX (De Couto, Aguayo, Bicket and Morris, "A high-throughput path metric
//! for multi-hop wireless routing", MobiCom 2003) of a link is
//! `1 / (d_f · d_r)`: the expected transmissions of a unicast frame whose
//! 802.11 ACK must come back. `d_f` is taken for a 1500-byte data MPDU at
//! the data rate, `d_r` for the 14-byte ACK at the control rate (a
//! `min_bytes` above 14 spares the ACKs). With `routing = "hops"` every link
//! costs 1. Ties go to the lower radio index, so paths are deterministic.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshRouting {
    Etx,
    Hops,
}

/// One directed link between mesh radios.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshLink {
    pub from: usize,
    pub to: usize,
    /// Delivery probability of a 1500-byte data frame `from -> to`.
    pub data: f64,
    /// Delivery probability of an 802.11 ACK `from -> to`.
    pub ack: f64,
}

/// Cost of a link for `routing`, `None` when it is not usable (no ACK
/// ever comes back).
fn cost(l: &MeshLink, reverse_ack: f64, routing: MeshRouting) -> Option<f64> {
    let p = l.data * reverse_ack;
    if p <= 0.0 {
        return None;
    }
    Some(match routing {
        MeshRouting::Etx => 1.0 / p,
        MeshRouting::Hops => 1.0,
    })
}

/// The ETX (or hop) cost of each usable link `(from, to, cost)`.
pub fn link_costs(links: &[MeshLink], routing: MeshRouting) -> Vec<(usize, usize, f64)> {
    links
        .iter()
        .filter_map(|l| {
            let back = links.iter().find(|r| r.from == l.to && r.to == l.from).map_or(0.0, |r| r.ack);
            cost(l, back, routing).map(|c| (l.from, l.to, c))
        })
        .collect()
}

/// Shortest paths toward every destination (Dijkstra on the reversed
/// graph), then each radio's next hop: the neighbour minimising link cost +
/// its distance, lower radio index on ties.
pub fn routes(radios: &[usize], links: &[MeshLink], routing: MeshRouting) -> Vec<(usize, usize, usize)> {
    let costs = link_costs(links, routing);
    let mut out = Vec::new();
    for &d in radios {
        let mut dist: Vec<(usize, f64)> = radios.iter().map(|&r| (r, if r == d { 0.0 } else { f64::INFINITY })).collect();
        let mut done = vec![false; radios.len()];
        loop {
            let next = (0..radios.len()).filter(|&k| !done[k] && dist[k].1.is_finite()).min_by(|&x, &y| dist[x].1.total_cmp(&dist[y].1).then(x.cmp(&y)));
            let Some(k) = next else { break };
            done[k] = true;
            let v = radios[k];
            for &(u, to, c) in &costs {
                if to != v {
                    continue;
                }
                let j = radios.iter().position(|&r| r == u).expect("links join mesh radios");
                if dist[k].1 + c < dist[j].1 {
                    dist[j].1 = dist[k].1 + c;
                }
            }
        }
        for (j, &u) in radios.iter().enumerate() {
            if u == d || !dist[j].1.is_finite() {
                continue;
            }
            let hop = costs
                .iter()
                .filter(|&&(from, _, _)| from == u)
                .filter_map(|&(_, to, c)| radios.iter().position(|&r| r == to).map(|k| (to, c + dist[k].1)))
                .min_by(|x, y| x.1.total_cmp(&y.1).then(x.0.cmp(&y.0)))
                .map(|(to, _)| to);
            if let Some(h) = hop {
                out.push((u, d, h));
            }
        }
    }
    out
}
