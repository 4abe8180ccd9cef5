//! Freeze-TCP's receiver side (Goff, Moronski, Phatak and Gupta,
//! "Freeze-TCP: a true end-to-end TCP enhancement mechanism for mobile
//! environments", INFOCOM 2000, §III): the mobile host, warned by its own
//! radio that a handoff is imminent, advertises a zero window so that the
//! sender stops *before* the disconnection and waits in persist with its
//! congestion window intact; on reconnection it sends three copies of the ACK
//! for the last segment it received, with the window reopened ("TR-ACKs"),
//! so the sender resumes at once instead of at its next (backed-off) probe.
//!
//! The endpoint only keeps the two states apart; deciding *when* (a signal
//! threshold crossing, the station's own roaming decision, `warning` ahead
//! of the disconnection — the paper's advice is about one RTT) is the
//! driver's business, since it owns the radio. With `TcpConfig::freeze` off
//! both calls do nothing: an unmodified stack has no such interface.
//!
//! What the frozen receiver does: every segment it sends carries window 0
//! (without moving the right edge it promised, `rcv_adv`, so data already in
//! flight is still accepted and ACKed, with window 0); nothing else changes.
//! A Linux sender accepts a zero window only from an ACK that advances
//! SND.UNA or SND.WL1 (`tcp_may_update_window`), so the ZWA that takes
//! effect is the first one acknowledging new data — the reason for a warning
//! period of about an RTT: the data in flight comes back ACKed with window 0,
//! after which the sender has nothing outstanding and probes.

use airtcp_core::Instant;

use super::{Endpoint, State};

/// TR-ACKs sent on reconnection (the paper's three).
pub const TR_ACKS: u32 = 3;

impl Endpoint {
    /// Whether the receiver is advertising a zero window because of Freeze-TCP.
    pub fn freeze_active(&self) -> bool {
        self.freeze_zwa
    }

    /// The radio predicts a disconnection: advertise a zero window from now
    /// on (an ACK goes out at once). Returns whether the freeze began (false:
    /// option off, already frozen, or no connection to freeze).
    pub fn freeze(&mut self, now: Instant) -> bool {
        if !self.cfg.freeze || self.freeze_zwa || !self.state_receives_data() {
            return false;
        }
        self.set_clock(now);
        self.freeze_zwa = true;
        self.tr_acks = 0;
        self.ack_now = true;
        self.stats.freeze_zwas += 1;
        true
    }

    /// The radio is connected again: reopen the window with `TR_ACKS` copies
    /// of the ACK for the last segment received. Returns whether a freeze
    /// ended.
    pub fn unfreeze(&mut self, now: Instant) -> bool {
        if !self.freeze_zwa {
            return false;
        }
        self.set_clock(now);
        self.freeze_zwa = false;
        if !matches!(self.state, State::Closed | State::TimeWait) {
            self.tr_acks = TR_ACKS;
            self.ack_now = true;
        }
        true
    }
}
