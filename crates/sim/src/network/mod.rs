//! Nodes, addresses and routing.

pub mod routing;

pub use routing::{addr_node, node_addr, Hop, Routes};
