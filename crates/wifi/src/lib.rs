//! The wireless world of airtcp, sans-IO: radios and propagation (`phy`),
//! node positions over time (`mobility`), the 802.11 frames (`frame`) and
//! their capture encoding (`capture`), the DCF MAC (`mac`) and the shared
//! medium that connects radios (`medium`).
//!
//! Nothing here knows about the simulator's event loop: every component
//! answers `poll_timeout` / `handle_timeout` and is driven from outside, so
//! the simulator and the emulator run the same code.

pub mod bianchi;
pub mod capture;
pub mod frame;
pub mod mac;
pub mod medium;
pub mod mgmt;
pub mod mobility;
pub mod phy;
