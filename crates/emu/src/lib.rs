//! `airtcp emulate`: real Linux TCP stacks, each in its own network
//! namespace behind TUN devices, through the simulated network of a
//! scenario (links, WLAN, agents, simulated hosts), in real time. The
//! network is the simulator's, driven by the same engine
//! ([`airtcp_sim::Driver`]); only the clock and the hosts at the edge
//! differ. See docs/emulate.md.

pub mod cli;
pub mod coalesce;
pub mod emulate;
pub mod exec;
pub mod gso;
pub mod lateness;
pub mod netns;
pub mod signals;
pub mod tun;
