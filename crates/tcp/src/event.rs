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
    /// Wi-TCP (seed 001 §5): an EHO-ACK froze the sender, which stored
    /// `cwnd` and `ssthresh` (packets). The time of this event is the
    /// seed's T_EHO-ACK (its eq. 1).
    WiTcpFreeze { cwnd: u32, ssthresh: u32 },
    /// Wi-TCP: the sender resumed with the stored `cwnd` and `ssthresh`,
    /// on an EHC-ACK (T_EHC-ACK, eqs. 2-3) or, `forced`, on the
    /// `witcp_max_freeze` guard. `frozen` is T_IDEAL (eq. 4).
    WiTcpResume { cwnd: u32, ssthresh: u32, frozen: Duration, forced: bool },
    /// Explicit handover notification (the seed's \[8\], `endpoint/ehn.rs`):
    /// the retransmission timer was reset and sending restarted from the
    /// notified sequence number: `lost` segments marked lost, sent again as
    /// the window allows.
    HandoverNotified { lost: u32 },
}
