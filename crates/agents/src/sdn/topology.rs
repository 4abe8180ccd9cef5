//! The controller's view of the network: datapaths, their ports and the
//! links between them (given by the scenario, as Floodlight's
//! LinkDiscovery would learn them), and shortest paths by BFS.
//!
//! Ties are deterministic: BFS expands a datapath's ports in ascending
//! port number, and the first discovery of a datapath fixes its parent, so
//! among equal-length paths the one through lower port numbers (at the
//! first point of difference) wins.

use std::collections::{BTreeMap, VecDeque};

use super::types::{Dpid, PortNo};

/// One step of a path: leave `dpid` on `out_port`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Hop {
    /// The datapath of this step.
    pub dpid: Dpid,
    /// The port the packet enters `dpid` on (`None` at the first datapath).
    pub in_port: Option<PortNo>,
    /// The port it leaves on.
    pub out_port: PortNo,
}

/// Datapaths and the links between them, as the scenario declares them.
#[derive(Clone, Debug, Default)]
pub struct Topology {
    /// dpid -> port -> (peer dpid, peer port), for inter-switch links.
    adj: BTreeMap<Dpid, BTreeMap<PortNo, (Dpid, PortNo)>>,
}

impl Topology {
    /// An empty topology.
    pub fn new() -> Topology {
        Topology::default()
    }

    /// Declare a datapath (one with no inter-switch link still needs declaring).
    pub fn add_switch(&mut self, dpid: Dpid) {
        self.adj.entry(dpid).or_default();
    }

    /// A bidirectional link `a:pa <-> b:pb`. Fails if either port is in use.
    pub fn add_link(&mut self, a: Dpid, pa: PortNo, b: Dpid, pb: PortNo) -> Result<(), String> {
        let used = |t: &Self, d: Dpid, p: PortNo| t.adj.get(&d).is_some_and(|m| m.contains_key(&p));
        if used(self, a, pa) || used(self, b, pb) || (a == b && pa == pb) {
            return Err(format!("link {a}:{pa} - {b}:{pb} reuses a port"));
        }
        self.adj.entry(a).or_default().insert(pa, (b, pb));
        self.adj.entry(b).or_default().insert(pb, (a, pa));
        Ok(())
    }

    /// Every declared datapath, in dpid order.
    pub fn switches(&self) -> impl Iterator<Item = Dpid> + '_ {
        self.adj.keys().copied()
    }

    /// The other end of the link on `dpid:port`, if it is an inter-switch link.
    pub fn peer(&self, dpid: Dpid, port: PortNo) -> Option<(Dpid, PortNo)> {
        self.adj.get(&dpid)?.get(&port).copied()
    }

    /// The port is an inter-switch link (not a host port).
    pub fn is_link_port(&self, dpid: Dpid, port: PortNo) -> bool {
        self.adj.get(&dpid).is_some_and(|m| m.contains_key(&port))
    }

    /// Shortest path from `src` to `dst` as the hops between datapaths,
    /// excluding `dst`'s own output (the caller knows the host port).
    /// `Some(vec![])` when `src == dst`; `None` when unreachable.
    pub fn path(&self, src: Dpid, dst: Dpid) -> Option<Vec<Hop>> {
        if !self.adj.contains_key(&src) || !self.adj.contains_key(&dst) {
            return None;
        }
        let mut parent: BTreeMap<Dpid, (Dpid, PortNo, PortNo)> = BTreeMap::new();
        let mut q = VecDeque::from([src]);
        while let Some(d) = q.pop_front() {
            if d == dst {
                break;
            }
            for (&port, &(peer, peer_port)) in &self.adj[&d] {
                if peer != src && !parent.contains_key(&peer) {
                    parent.insert(peer, (d, port, peer_port));
                    q.push_back(peer);
                }
            }
        }
        if src != dst && !parent.contains_key(&dst) {
            return None;
        }
        // Walk back: (dpid, out_port) and the in_port of the next datapath.
        let mut rev: Vec<(Dpid, PortNo, PortNo)> = Vec::new();
        let mut cur = dst;
        while cur != src {
            let (p, out, peer_in) = parent[&cur];
            rev.push((p, out, peer_in));
            cur = p;
        }
        rev.reverse();
        let mut hops = Vec::with_capacity(rev.len());
        let mut in_port = None;
        for (d, out, peer_in) in rev {
            hops.push(Hop { dpid: d, in_port, out_port: out });
            in_port = Some(peer_in);
        }
        Some(hops)
    }

    /// The full route from a host at `(a, a_port)` to one at `(b, b_port)`:
    /// every datapath with its input and output port, `b`'s host port last.
    pub fn route(&self, a: Dpid, a_port: PortNo, b: Dpid, b_port: PortNo) -> Option<Vec<Hop>> {
        let mut hops = self.path(a, b)?;
        // The input port at `b` is the far end of the last inter-switch hop.
        let last_in = hops.last().and_then(|h| self.peer(h.dpid, h.out_port)).map(|x| x.1);
        if let Some(first) = hops.first_mut() {
            first.in_port = Some(a_port);
        }
        hops.push(Hop { dpid: b, in_port: if a == b { Some(a_port) } else { last_in }, out_port: b_port });
        Some(hops)
    }
}
