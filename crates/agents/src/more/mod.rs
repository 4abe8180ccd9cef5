//! MORE: MAC-independent opportunistic routing with intra-flow random linear
//! network coding (Chachulski, Jennings, Katti & Katabi, SIGCOMM 2007), as
//! sans-IO cores for its three roles.
//!
//! - [`plan`]: ETX distances, the pruned forwarder list and the transmission
//!   credits, from link delivery probabilities.
//! - [`MoreSource`]: splits the flow into batches of β natives and
//!   broadcasts random combinations of the current batch until the batch ACK.
//! - [`MoreForwarder`]: keeps innovative packets, earns TX_credit for every
//!   packet heard from upstream, spends one per recoded broadcast, and
//!   flushes a batch on its ACK or when a newer one crowds it out.
//! - [`MoreDestination`]: decodes and answers each decoded batch with a
//!   batch ACK the driver unicasts to the source along the shortest path.
//!
//! Inputs are coded packets ([`airtcp_core::Coded`], optionally with payload
//! bytes) and ACKs; outputs are packets to broadcast (`poll_transmit`, to be
//! called when the MAC can take a frame: MORE relies on 802.11's own
//! contention for pacing) and ACKs to unicast. No role has a timer. Node ids
//! are the indices of the [`plan::LinkProbs`] the driver builds.

pub mod plan;

mod destination;
mod forwarder;
mod slots;
mod source;

#[cfg(test)]
mod tests;

use std::fmt;

use airtcp_coding::CodecError;

pub use destination::{DecodedBatch, MoreDestination};
pub use forwarder::MoreForwarder;
pub use plan::{ForwarderPlan, LinkProbs, PlanConfig, PlanError, PruneBasis};
pub use source::MoreSource;

pub(crate) use slots::{seq_after, Found, Slots};

/// Batch geometry shared by every role of a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoreConfig {
    /// Natives per batch (MORE: K = 32).
    pub beta: usize,
    /// Bytes per native when real bytes are carried; 0 for coefficients only.
    pub symbol_len: usize,
    /// Batches a node holds at once (MORE: 1).
    pub max_batches: usize,
}

impl Default for MoreConfig {
    fn default() -> Self {
        MoreConfig { beta: 32, symbol_len: 0, max_batches: 1 }
    }
}

/// Why a packet was refused; the role has counted it as malformed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoreError {
    /// The code vector or payload does not fit the batch.
    Codec(CodecError),
    /// A packet of another flow.
    WrongFlow {
        /// The flow this role belongs to.
        expected: u16,
        /// The flow the packet carried.
        found: u16,
    },
    /// A data packet where an ACK was expected, or the reverse.
    WrongKind,
    /// The source already holds `max_batches` batches: wait for an ACK.
    Backlogged,
}

impl From<CodecError> for MoreError {
    fn from(e: CodecError) -> Self {
        MoreError::Codec(e)
    }
}

impl fmt::Display for MoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoreError::Codec(e) => write!(f, "malformed coded packet: {e}"),
            MoreError::WrongFlow { expected, found } => write!(f, "packet of flow {found} at a node of flow {expected}"),
            MoreError::WrongKind => write!(f, "unexpected coded packet kind"),
            MoreError::Backlogged => write!(f, "source holds its maximum of unacknowledged batches"),
        }
    }
}

impl std::error::Error for MoreError {}

/// What a received data packet did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rx {
    /// The packet raised the node's rank: kept, and (at a forwarder) worth credit.
    Innovative,
    /// A combination of packets already held: dropped (linearly dependent).
    Redundant,
    /// Of a batch already acknowledged or flushed: ignored.
    Stale,
}
