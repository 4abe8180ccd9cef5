//! What an endpoint reports to its driver: application notifications and the
//! protocol events that go into a run's event log.

use airtcp_core::{Duration, SeqNum};

use crate::cc::CaState;

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
    Closed { aborted: bool },
    /// Retransmission timer expired; `rto` is the value that fired, `backoff` the new shift.
    Timeout { rto: Duration, backoff: u32 },
    /// Fast retransmit of the segment at `seq`.
    FastRetransmit { seq: SeqNum },
    /// Congestion state changed (Linux ca_state).
    CaStateChanged { from: CaState, to: CaState },
    /// Peer advertised a zero window.
    ZeroWindow,
    /// A zero-window probe was sent.
    WindowProbe,
    /// Peer's window reopened after a zero window.
    WindowOpened,
    /// The peer's ACK shrank the window below SND.NXT (seed 000 §2.2).
    WindowShrunk { usable: i64 },
}
