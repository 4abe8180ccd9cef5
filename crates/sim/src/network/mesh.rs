//! Shortest-path IP forwarding over a mesh of ad hoc radios: the routes the
//! scenario computed (`scenario::mesh`) become host routes with a next hop
//! on the shared channel, so a packet for a radio two hops away goes to the
//! neighbour on its path instead of straight at the destination.

use super::addr::Prefix;
use super::fib::{Origin, Route};
use super::Network;
use crate::scenario::mesh::{link_costs, routing_name, MeshSpec};
use crate::scenario::mesh_coding;
use crate::summary::{MeasuredLink, MeshLinkSummary, MeshRoute, MeshSummary};
use crate::scenario::Scenario;

impl Network {
    /// Install every route of `mesh` as a /32 toward the destination radio's
    /// address through the radio's interface, next hop the neighbour's address.
    pub(super) fn install_mesh_routes(&mut self, mesh: &MeshSpec) {
        for &(u, d, via) in &mesh.routes {
            let iface = self.radio_iface[u];
            let node = self.ifaces[iface as usize].node as usize;
            let dst = self.ifaces[self.radio_iface[d] as usize].addr;
            let hop = self.ifaces[self.radio_iface[via] as usize].addr;
            self.nodes[node].fib.insert(Prefix::new(dst, 32), Route { iface, origin: Origin::Static, via: hop });
        }
        self.route_epoch += 1;
        self.mesh_routes = true;
        if let Some(w) = self.radio_medium_index().and_then(|m| self.media[m].wlan_mut()) {
            w.enable_link_stats();
        }
    }

    /// The mesh for summary.json: the scenario's links (with their cost)
    /// and routes, and per link the data frames sent and decoded during the
    /// run (`measured`: delivery under load, collisions included).
    pub(crate) fn mesh_report(&self, sc: &Scenario) -> Option<MeshSummary> {
        let (m, w, wlan) = (sc.mesh.as_ref()?, sc.wifi.as_ref()?, self.wlan()?);
        let name = |r: usize| sc.nodes[w.radios[r].node].name.clone();
        let costs = link_costs(&m.links, m.routing);
        let links = m
            .links
            .iter()
            .map(|l| MeshLinkSummary {
                from: name(l.from),
                to: name(l.to),
                data_delivery: l.data,
                ack_delivery: l.ack,
                cost: costs.iter().find(|c| c.0 == l.from && c.1 == l.to).map(|c| c.2),
            })
            .collect();
        let measured = m
            .links
            .iter()
            .map(|l| {
                let (sent, decoded) = wlan.link_stats(l.from as u32, l.to as u32);
                let delivery = if sent > 0 { Some(decoded as f64 / sent as f64) } else { None };
                MeasuredLink { from: name(l.from), to: name(l.to), sent, decoded, delivery }
            })
            .collect();
        Some(MeshSummary {
            routing: routing_name(m.routing).to_string(),
            protocol: m.coding.as_ref().map_or("ip", |c| mesh_coding::name(c.protocol)).to_string(),
            links,
            routes: m.routes.iter().map(|&(u, d, h)| MeshRoute { node: name(u), to: name(d), via: name(h) }).collect(),
            measured,
            coding: self.coded.as_ref().zip(m.coding.as_ref()).map(|(p, c)| p.report(c, &name)),
        })
    }
}
