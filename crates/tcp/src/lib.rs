//! Sans-IO TCP for airtcp.
//!
//! [`Endpoint`] is a TCP connection as a pure state machine: the driver (the
//! simulator or the emulator) hands it segments and the current time, and asks
//! it for segments to send and for its next deadline. It never reads a clock.
//! Congestion control goes through the Linux-shaped hooks of [`cc`].
//!
//! # Layer map
//!
//! Above `airtcp-core` (segments, time, sequence numbers), below `agents`
//! (which run endpoints inside proxies) and `sim`. Inside, from the bottom:
//! [`config`] and [`profiles`] (every constant, with its source), [`cc`]
//! (the congestion modules), [`endpoint`] (the connection: input, ACK path,
//! recovery, timers, output), [`event`] and [`stats`] (what it reports);
//! [`ns2`] holds ns-2's one-way agents beside it.
//!
//! ```
//! use airtcp_core::{Instant, SeqNum};
//! use airtcp_tcp::{Endpoint, State, TcpConfig};
//!
//! // A three-way handshake, driven by hand: no clock, no socket.
//! let now = Instant::ZERO;
//! let mut client = Endpoint::new(TcpConfig::default(), 49152, 1024, SeqNum(1000)).unwrap();
//! let mut server = Endpoint::new(TcpConfig::default(), 1024, 49152, SeqNum(5000)).unwrap();
//! server.listen();
//! client.connect(now);
//! let syn = client.poll_transmit(now).unwrap();
//! assert!(syn.flags.syn() && syn.seq == SeqNum(1000));
//! server.handle_segment(now, &syn);
//! let syn_ack = server.poll_transmit(now).unwrap();
//! assert_eq!((syn_ack.seq, syn_ack.ack), (SeqNum(5000), SeqNum(1001)));
//! client.handle_segment(now, &syn_ack);
//! assert_eq!(client.state(), State::Established);
//! ```

#![deny(missing_docs)]

pub mod cc;
pub mod config;
pub mod endpoint;
pub mod event;
pub mod ns2;
pub mod profiles;
pub mod stats;

pub use cc::{CaState, CcAlgorithm, CongestionControl, CongestionOps, TcpSock};
pub use config::{EcnMode, LossExitGrowth, PartialAckRto, Recovery, RenoSacks, RtoSsthresh, RtoTimer, TcpConfig};
pub use endpoint::{Endpoint, Probe, State, TR_ACKS};
pub use event::Event;
pub use stats::TcpStats;
