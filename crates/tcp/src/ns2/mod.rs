//! ns-2 2.35's one-way TCP agents as sans-IO state machines, so a study
//! that says it runs ns-2's TCP runs ns-2's TCP: the senders `Agent/TCP`
//! (Tahoe), `/Reno` and `/Newreno` and the receivers `Agent/TCPSink` and
//! `/DelAck`, in packet numbers with ns-2's tick-based RTO. The simulator
//! maps packet numbers to TCP sequence numbers on the wire.
//!
//! What ns-2 itself does is the specification: the behaviour was learned
//! from tcp.cc, tcp-reno.cc, tcp-newreno.cc and tcp-sink.cc, and is checked
//! packet for packet against traces of the installed ns-2 (see
//! docs/ns2-profiles.md).

pub mod config;
pub mod rtt;
pub mod sender;
pub mod sink;

pub use config::{Ns2Config, Ns2SinkKind, Ns2Variant};
pub use sender::{HandoverEvent, Ns2Event, Ns2Out, Ns2Sender, TCP_MAXSEQ};
pub use sink::Ns2Sink;

#[cfg(test)]
mod tests;
