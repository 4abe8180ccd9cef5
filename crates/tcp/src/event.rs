//! What an endpoint reports to its driver: application notifications and the
//! protocol events that go into a run's event log.

use airtcp_core::{Duration, SeqNum};

use crate::cc::CaState;

/// Something the driver should know, drained with `Endpoint::poll_event`:
/// application notifications (connected, readable, closed) and protocol
/// events for the run's event log.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Event {
    /// Handshake completed (both sides).
    Connected,
    /// New in-order data can be read with `Endpoint::recv`.
    Readable,
    /// The peer closed its side (FIN received and all data before it read).
    PeerClosed,
    /// Every byte written was acknowledged and our FIN too.
    SendComplete,
    /// The connection reached CLOSED (normally, or aborted with `aborted = true`).
    Closed {
        /// True when the connection was reset or gave up (RST, retries
        /// exhausted), false after an orderly close.
        aborted: bool,
    },
    /// Retransmission timer expired; `rto` is the value that fired, `backoff` the new shift.
    Timeout {
        /// The (backed-off) timeout that just expired.
        rto: Duration,
        /// Exponential backoff shift after this timeout (RFC 6298 §5.5).
        backoff: u32,
    },
    /// Fast retransmit of the segment at `seq`.
    FastRetransmit {
        /// First sequence number of the retransmitted segment.
        seq: SeqNum,
    },
    /// Congestion state changed (Linux ca_state).
    CaStateChanged {
        /// State before the change.
        from: CaState,
        /// State after the change.
        to: CaState,
    },
    /// Peer advertised a zero window.
    ZeroWindow,
    /// A zero-window probe was sent.
    WindowProbe,
    /// Peer's window reopened after a zero window.
    WindowOpened,
    /// The peer's ACK shrank the window below SND.NXT (seed 000 §2.2).
    WindowShrunk {
        /// Usable window SND.UNA + SND.WND - SND.NXT in bytes after this ACK;
        /// negative by how far the right edge moved back.
        usable: i64,
    },
    /// Wi-TCP (seed 001 §5): an EHO-ACK froze the sender, which stored
    /// `cwnd` and `ssthresh` (packets). The time of this event is the
    /// seed's T_EHO-ACK (its eq. 1).
    WiTcpFreeze {
        /// cwnd stored at the freeze, packets.
        cwnd: u32,
        /// ssthresh stored at the freeze, packets.
        ssthresh: u32,
    },
    /// Wi-TCP: the sender resumed with the stored `cwnd` and `ssthresh`,
    /// on an EHC-ACK (T_EHC-ACK, eqs. 2-3) or, `forced`, on the
    /// `witcp_max_freeze` guard. `frozen` is T_IDEAL (eq. 4).
    WiTcpResume {
        /// cwnd restored, packets.
        cwnd: u32,
        /// ssthresh restored, packets.
        ssthresh: u32,
        /// How long the sender stayed frozen (T_IDEAL, eq. 4).
        frozen: Duration,
        /// True when the `witcp_max_freeze` guard thawed the sender
        /// because no EHC-ACK came.
        forced: bool,
    },
    /// Explicit handover notification (the seed's \[8\], `endpoint/ehn.rs`):
    /// the retransmission timer was reset and sending restarted from the
    /// notified sequence number: `lost` segments marked lost, sent again as
    /// the window allows.
    HandoverNotified {
        /// Segments marked lost from the notified sequence number on.
        lost: u32,
    },
}
