//! The wireless world of airtcp, sans-IO: radios and propagation (`phy`),
//! node positions over time (`mobility`), the 802.11 frames (`frame`) and
//! their capture encoding (`capture`), the DCF MAC (`mac`) and the shared
//! medium that connects radios (`medium`).
//!
//! Nothing here knows about the simulator's event loop: every component
//! answers `poll_timeout` / `handle_timeout` and is driven from outside, so
//! the simulator and the emulator run the same code.
//!
//! # Layer map
//!
//! Above `airtcp-core` only; `sim` wraps the medium as one of its channels.
//! Inside, from the bottom: [`phy`] (propagation, reception, error rates)
//! and [`mobility`]; [`frame`] and [`capture`]; [`mac`] (DCF, rate control)
//! and [`mgmt`] (beacons, scan, association, roaming); [`medium`], which
//! owns the radios and drives the other three. [`bianchi`] is the
//! analytical model the MAC is checked against.
//!
//! ```
//! use airtcp_wifi::phy::dbm_to_mw;
//!
//! // Powers are dBm at the edges and milliwatts inside the SINR sums.
//! assert_eq!(dbm_to_mw(0.0), 1.0);
//! assert!((dbm_to_mw(20.0) - 100.0).abs() < 1e-9);
//! ```

#![deny(missing_docs)]

pub mod bianchi;
pub mod capture;
pub mod frame;
pub mod mac;
pub mod medium;
pub mod mgmt;
pub mod mobility;
pub mod phy;
