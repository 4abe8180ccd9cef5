//! Sans-IO TCP for airtcp.
//!
//! [`Endpoint`] is a TCP connection as a pure state machine: the driver (the
//! simulator or the emulator) hands it segments and the current time, and asks
//! it for segments to send and for its next deadline. It never reads a clock.
//! Congestion control goes through the Linux-shaped hooks of [`cc`].

pub mod cc;
pub mod config;
pub mod endpoint;
pub mod event;
pub mod ns2;
pub mod profiles;
pub mod stats;

pub use cc::{CaState, CongestionControl, CongestionOps, TcpSock};
pub use config::{EcnMode, LossExitGrowth, PartialAckRto, Recovery, RenoSacks, RtoSsthresh, RtoTimer, TcpConfig};
pub use endpoint::{Endpoint, Probe, State, TR_ACKS};
pub use event::Event;
pub use stats::TcpStats;
