//! Shortest-path IP forwarding over a mesh of ad hoc radios: the routes the
//! scenario computed (`scenario::mesh`) become host routes with a next hop
//! on the shared channel, so a packet for a radio two hops away goes to the
//! neighbour on its path instead of straight at the destination.

use super::addr::Prefix;
use super::fib::{Origin, Route};
use super::Network;
use crate::scenario::mesh::MeshSpec;

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
    }
}
