//! TCPFender (Zhang, Chen & Li, seed 002 §III.B): adaptation modules that let
//! an unmodified TCP run over MORE-style opportunistic forwarding with
//! network coding.
//!
//! - [`FenderSender`] sits under the TCP sender. It groups data segments into
//!   batches of β by sequence, releases coded packets of a batch as soon as
//!   its first segment arrives (early release), keeps several batches in
//!   flight (pipelining), keeps the originals until the batch is
//!   acknowledged so a TCP retransmission is mixed back into its batch, and
//!   turns the receiver module's ACKs into TCP ACKs, passing duplicates that
//!   signal loss and absorbing those caused only by extra coded packets.
//! - [`FenderReceiver`] sits under the TCP receiver. It expects batches in
//!   order, discards older ones, answers every coded packet with ACK number
//!   β(b−1)+r in packets (moving to the next non-full batch when b reaches
//!   full rank), and hands each decoded batch to TCP at once.
//!
//! Where §III.B is silent we choose, and say so at the place:
//! - **Tags.** Every coded packet carries the TCP sequence number of the
//!   segment whose arrival released it; a forwarder's recoded packet carries
//!   the newest tag it holds for the batch; the receiver echoes the tag of
//!   the packet that triggered each ACK. A duplicate ACK whose tag is newer
//!   than every tag seen before was triggered by *new data* that could not
//!   raise the rank: a loss signal, passed to TCP. A duplicate whose tag was
//!   seen already was triggered by one more copy of old information (an
//!   extra coded packet from opportunistic forwarding): absorbed.
//! - **Redundancy.** Each segment from TCP earns its batch `z_src` coded
//!   transmissions (MORE's expected transmissions of the source per packet,
//!   the paper's "hop-to-hop redundancy factor" of §IV), spent oldest batch first.
//! - **The source's pacing** ([`FenderSource`]): either those packets only
//!   (the literal reading: the module sends when TCP pushes a segment down),
//!   or MORE's source with the seed's changes on top: it also keeps sending
//!   the oldest batch the receiver's ACKs do not cover whenever the MAC
//!   takes a frame. §III.B says the nodes "run an enhanced version of MORE"
//!   whose two changes concern when a batch may start, not how much is sent.
//! - **ACK numbers.** The receiver counts packets; the sender converts a
//!   count n into the TCP sequence number where packet n starts (it knows,
//!   since it numbered them), and builds the TCP ACK from the receiver's
//!   last real ACK (ports, window, TSval) with TSecr set to the TSval of the
//!   segment named by the tag, so TCP's RTT samples stay true.
//! - **The TCP receiver's own ACKs** still travel back; the sender module
//!   passes those that carry SYN/FIN/RST or acknowledge beyond what it has
//!   already told TCP, and absorbs the rest (they would be duplicates).
//! - **Old batches.** A packet of a batch below the expected one is
//!   discarded but still answered ("in either case, it generates an ACK"),
//!   so an ACK lost on the way back is repaired by the next packet.
//! - **Only data segments are coded**; SYN, FIN, RST and pure ACKs pass
//!   through as ordinary IP packets.
//! - **Flow control.** The module's ACKs move the TCP sender's window edge
//!   before the data reaches the TCP receiver; the receiver module therefore
//!   hands segments up only within the window the TCP receiver last
//!   advertised ([`FenderReceiver::poll_segment`]).
//! - SACK should be off on the TCP: the module's ACKs carry no SACK blocks
//!   (the paper's ns-2 TCP had none).

mod receiver;
mod sender;

#[cfg(test)]
mod e2e;

#[cfg(test)]
mod tests;

use std::fmt;

use airtcp_coding::CodecError;
use airtcp_core::wire::WireError;

pub use receiver::{Delivery, FenderReceiver};
pub use sender::{FenderSender, FenderSource, Release};

/// Parameters shared by the two modules of a flow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FenderConfig {
    /// Segments per batch (the paper: β = 50).
    pub beta: usize,
    /// Bytes per native when real bytes are carried (the TCP/IP datagram,
    /// zero-padded); 0 for coefficients only.
    pub symbol_len: usize,
    /// Batches in flight at once (pipelining depth; sender buffers and
    /// receiver window).
    pub max_batches: usize,
    /// Coded packets released per TCP segment (MORE's z of the source).
    pub z_src: f64,
}

impl Default for FenderConfig {
    fn default() -> Self {
        FenderConfig { beta: 50, symbol_len: 0, max_batches: 8, z_src: 1.0 }
    }
}

/// Why a TCPFender module refused a packet or a segment; the message says
/// which packet or limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenderError {
    /// The code vector or payload does not fit the batch.
    Codec(CodecError),
    /// A decoded native is not a well-formed IP packet (real-bytes runs).
    Wire(WireError),
    /// A packet of another flow.
    WrongFlow {
        /// The flow this module belongs to.
        expected: u16,
        /// The flow the packet carried.
        found: u16,
    },
    /// A data packet where an ACK was expected, or the reverse.
    WrongKind,
    /// The sender holds `max_batches` unacknowledged batches; the segment
    /// was not taken (TCP will retransmit it).
    Backlogged,
    /// A datagram longer than the symbol length.
    TooLong {
        /// Length of the datagram in bytes.
        len: usize,
        /// The configured symbol length in bytes.
        symbol_len: usize,
    },
    /// A segment that is neither new data nor a retransmission of a batch
    /// held, or a receiver ACK counting more packets than were numbered.
    UnknownSegment {
        /// The segment's TCP sequence number; for an ACK, its packet count.
        seq: u32,
    },
}

impl From<CodecError> for FenderError {
    fn from(e: CodecError) -> Self {
        FenderError::Codec(e)
    }
}

impl fmt::Display for FenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenderError::Codec(e) => write!(f, "malformed coded packet: {e}"),
            FenderError::Wire(e) => write!(f, "decoded native is not a packet: {e}"),
            FenderError::WrongFlow { expected, found } => write!(f, "packet of flow {found} at a module of flow {expected}"),
            FenderError::WrongKind => write!(f, "unexpected coded packet kind"),
            FenderError::Backlogged => write!(f, "sender module holds its maximum of unacknowledged batches"),
            FenderError::TooLong { len, symbol_len } => {
                write!(f, "datagram of {len} bytes exceeds the {symbol_len}-byte symbol")
            }
            FenderError::UnknownSegment { seq } => write!(f, "segment at sequence {seq} belongs to no batch held"),
        }
    }
}

impl std::error::Error for FenderError {}
