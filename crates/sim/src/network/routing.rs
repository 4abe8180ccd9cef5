//! Routes toward subnets, computed on demand by hop count.
//!
//! A forwarding table holds its connected subnets from the start; the route
//! toward any other subnet is computed the first time some node needs it: one
//! breadth-first search outward from the subnet's interfaces installs the
//! route in every node it reaches. This is ns-3's nix-vector idea at subnet
//! granularity: building a 10,000-node topology costs nothing per pair, and
//! memory grows with nodes × subnets actually used, not nodes².
//!
//! Determinism: the search visits a node's interfaces in scenario link order,
//! so equal-cost ties always resolve to the first-listed link.
//!
//! Routes change at run time through [`RouteChange`] (association, flow-mod
//! and binding-update mechanisms use it); a change of topology (an interface
//! going down or up) flushes the computed routes, which are then recomputed
//! on demand from the new topology.

use std::collections::VecDeque;

use airtcp_agents::{Agent, IfaceId, NodeEvent};
use airtcp_core::Instant;

use super::addr::Prefix;
use super::fib::{Origin, Route};
use super::node::NO_RADIO;
use super::route_change::RouteChange;
use super::{Cx, Network};

impl Network {
    /// The route from `node` toward `dst`, computing routes to `dst`'s subnet
    /// the first time any node asks.
    #[inline]
    pub(crate) fn resolve(&mut self, node: usize, dst: u32) -> Option<Route> {
        let n = &mut self.nodes[node];
        if n.cache_epoch != self.route_epoch {
            n.cache_epoch = self.route_epoch;
            n.route_cache = [None; 2];
        }
        match n.route_cache {
            [Some((d, r)), _] if d == dst => return Some(r),
            [_, Some((d, r))] if d == dst => {
                n.route_cache.swap(0, 1);
                return Some(r);
            }
            _ => {}
        }
        self.resolve_miss(node, dst)
    }

    /// `resolve` past the node's route cache: the table, then (the first
    /// time anyone asks for the subnet) the route computation. Kept out of
    /// line so the cache hit above inlines into the packet path.
    #[cold]
    #[inline(never)]
    fn resolve_miss(&mut self, node: usize, dst: u32) -> Option<Route> {
        let n = &mut self.nodes[node];
        if let Some(r) = n.fib.lookup(dst) {
            n.route_cache = [Some((dst, r)), n.route_cache[0]];
            return Some(r);
        }
        let s = self.subnet_index.lookup(dst)?.iface as usize;
        if self.resolved[s] {
            return None;
        }
        self.compute_routes(s);
        self.nodes[node].fib.lookup(dst)
    }

    /// Multi-source BFS from the interfaces of subnet `s`: each node reached
    /// routes the subnet through the interface on which it was reached.
    fn compute_routes(&mut self, s: usize) {
        self.resolved[s] = true;
        self.route_epoch += 1;
        let prefix = self.subnets[s].0;
        let n = self.nodes.len();
        let mut seen = vec![false; n];
        let mut queue = VecDeque::new();
        for &i in &self.subnets[s].1 {
            let ifc = &self.ifaces[i as usize];
            if ifc.up && !seen[ifc.node as usize] {
                seen[ifc.node as usize] = true;
                queue.push_back(ifc.node as usize);
            }
        }
        while let Some(u) = queue.pop_front() {
            for k in 0..self.nodes[u].ifaces.len() {
                let i = self.nodes[u].ifaces[k] as usize;
                if !self.ifaces[i].up {
                    continue;
                }
                if self.ifaces[i].radio == NO_RADIO {
                    let p = self.ifaces[i].peer as usize;
                    let v = self.ifaces[p].node as usize;
                    if seen[v] || !self.ifaces[p].up {
                        continue;
                    }
                    seen[v] = true;
                    self.nodes[v].fib.insert(prefix, Route { iface: p as u32, origin: Origin::Computed, via: 0 });
                    queue.push_back(v);
                    continue;
                }
                // A wireless segment: u's radio reaches the radios it can
                // send to directly (an AP its stations, a station its AP,
                // an ad hoc radio every other one), which route via u.
                let via = self.ifaces[i].addr;
                let seg = self.wifi_segment[self.ifaces[i].radio as usize] as usize;
                // A station reaches, as a router for its subnet, only the APs
                // of that subnet: APs of its network on other subnets (the
                // foreign networks of Mobile IP) route it like any remote
                // subnet, through the wired side.
                let station = !self.radio_is_ap(self.ifaces[i].radio);
                let station_subnet = self.ifaces[i].subnet;
                for k in 0..self.wifi_segments[seg].len() {
                    let p = self.wifi_segments[seg][k] as usize;
                    let v = self.ifaces[p].node as usize;
                    if seen[v] || !self.ifaces[p].up {
                        continue;
                    }
                    if station && self.ifaces[p].subnet != station_subnet {
                        continue;
                    }
                    seen[v] = true;
                    self.nodes[v].fib.insert(prefix, Route { iface: p as u32, origin: Origin::Computed, via });
                    queue.push_back(v);
                }
            }
        }
    }

    /// Apply a typed route change at `now`. Errors name what does not exist.
    #[inline(never)]
    pub(crate) fn apply(&mut self, cx: &mut Cx, now: Instant, ch: RouteChange) -> Result<(), String> {
        self.route_epoch += 1;
        let iface_of = |net: &Network, node: u32, iface: u32| -> Result<u32, String> {
            let nd = net.nodes.get(node as usize).ok_or_else(|| format!("no node {node}"))?;
            nd.ifaces.get(iface as usize).copied().ok_or_else(|| format!("node {node} has no interface {iface}"))
        };
        match ch {
            RouteChange::Add { node, prefix, iface } => {
                let g = iface_of(self, node, iface)?;
                self.nodes[node as usize].fib.insert(prefix, Route { iface: g, origin: Origin::Static, via: 0 });
            }
            RouteChange::Remove { node, prefix } => {
                let nd = self.nodes.get_mut(node as usize).ok_or_else(|| format!("no node {node}"))?;
                nd.fib.remove(prefix).ok_or_else(|| format!("node {node} has no route for {prefix}"))?;
            }
            RouteChange::IfaceState { node, iface, up } => {
                let g = iface_of(self, node, iface)?;
                if self.ifaces[g as usize].up != up {
                    self.ifaces[g as usize].up = up;
                    self.flush_computed();
                    let ev = if up { NodeEvent::IfaceUp(IfaceId(iface)) } else { NodeEvent::IfaceDown(IfaceId(iface)) };
                    for pos in 0..self.nodes[node as usize].agents.len() {
                        let a = self.nodes[node as usize].agents[pos] as usize;
                        self.agents[a].on_node_event(now, ev);
                        self.after_agent(cx, now, a);
                    }
                }
            }
        }
        Ok(())
    }

    fn flush_computed(&mut self) {
        for n in &mut self.nodes {
            n.fib.flush_computed();
        }
        self.resolved.iter_mut().for_each(|r| *r = false);
    }
}

impl Network {
    /// Nodes a packet from `from` to `dst` visits (both ends included), by
    /// the forwarding tables as they are (computing routes on demand), or
    /// `None` without a route. For tests and reports.
    pub fn path(&mut self, from: usize, dst: [u8; 4]) -> Option<Vec<usize>> {
        let d = u32::from_be_bytes(dst);
        let mut path = vec![from];
        let mut u = from;
        while !self.is_local(u, d) {
            let r = self.resolve(u, d)?;
            let ifc = &self.ifaces[r.iface as usize];
            u = if ifc.radio == NO_RADIO {
                self.ifaces[ifc.peer as usize].node as usize
            } else {
                let hop = if r.via != 0 { r.via } else { d };
                self.ifaces[self.iface_of(hop)? as usize].node as usize
            };
            path.push(u);
            if path.len() > self.nodes.len() {
                return None;
            }
        }
        Some(path)
    }

    /// Apply a route change outside a run (no agent sees it). Errors name
    /// what does not exist.
    pub fn change_routes(&mut self, ch: RouteChange) -> Result<(), String> {
        let mut q = crate::engine::EventQueue::default();
        let mut log = Vec::new();
        let mut cx = Cx { q: &mut q, log: &mut log };
        self.apply(&mut cx, Instant::ZERO, ch)
    }

    /// Routes installed at `node` (connected, computed and static).
    pub fn routes(&self, node: usize) -> Vec<(Prefix, Route)> {
        self.nodes[node].fib.routes().collect()
    }
}
