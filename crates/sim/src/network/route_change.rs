//! The typed changes to forwarding state that association, flow-mod and
//! binding-update mechanisms (and a scenario's `[[route_changes]]`) make at
//! run time. A leaf: the scenario reader names them without depending on
//! the network that applies them (`routing.rs`).

use super::addr::Prefix;

/// A typed change to forwarding state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteChange {
    /// Install (or replace) a static route at `node` toward `prefix` through
    /// its interface `iface` (node-local index).
    Add { node: u32, prefix: Prefix, iface: u32 },
    /// Remove the route for exactly `prefix` at `node`.
    Remove { node: u32, prefix: Prefix },
    /// Take interface `iface` of `node` down or up.
    IfaceState { node: u32, iface: u32, up: bool },
}
