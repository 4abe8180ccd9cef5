//! Handover signals on ns-2's one-way sender: Wi-TCP's EHO-ACK / EHC-ACK
//! (seed 001 §5) and the explicit handover notification of the seed's [8]
//! (Izumikawa, Yamaguchi and Katto, WCNC 2004), so that a study can run
//! both schemes on the very agent its baselines run. The Linux-style
//! endpoint has the same two schemes (`endpoint/witcp.rs`, `endpoint/ehn.rs`);
//! this file says what each becomes in ns-2's terms (packet numbers,
//! `cwnd_` and `ssthresh_` in packets, go-back-N from `highest_ack_ + 1`).
//!
//! Wi-TCP (`Ns2Config::witcp`):
//!
//! - **EHO-ACK**: store `cwnd_` and `ssthresh_` and freeze: nothing is
//!   sent (no new packet, no retransmission) and the retransmission timer
//!   neither fires nor is reported. ACKs arriving meanwhile are processed
//!   as usual (they may move the window; the stored one is restored).
//! - **EHC-ACK**: restore `cwnd_` and `ssthresh_` and resume at once. What
//!   was in flight when the host vanished is presumed lost at the agent (the
//!   seed's "packets 769-778 are dropped at home agent"), so the sender goes
//!   back to `highest_ack_ + 1` as a timeout does, without a timeout's
//!   reduction and back-off: `recover_` is set to `maxseq_` (ns-2's
//!   `bugFix_` guard then keeps the duplicates of the resent window from
//!   starting a fast retransmit), the RTT timing is dropped (Karn) and the
//!   timer restarts from the RTO as it stands.
//!
//! Explicit handover notification (`Ns2Config::ehn`), sent by the mobile
//! when it hears its new agent: an acknowledgement beyond `highest_ack_` is
//! taken as an ordinary ACK first (without sending on it), then the
//! back-off is cleared (`t_backoff_ = 1`), the timer restarts from the
//! un-backed-off RTO and the sender goes back to the notified number,
//! under the window as it stands (timeouts taken during the disconnection
//! keep their reduction: the scheme removes the wait, not the loss).
//!
//! A signal acknowledging beyond the highest packet sent is ignored (a
//! blind injection cannot freeze the sender), as are an EHO-ACK while
//! frozen and an EHC-ACK while not. With a scheme off its signal is an
//! ordinary ACK (a duplicate, usually), as on an unmodified agent. The
//! Linux endpoint's optional `witcp_max_freeze` guard has no ns-2 twin.

use airtcp_core::{Duration, Instant, WiTcp};

use super::{CwndAction, Ns2Event, Ns2Sender};

/// What the handover signals did, for the run's event log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandoverEvent {
    /// An EHO-ACK froze the sender with this window (packets, `int(cwnd_)`).
    Freeze {
        /// `int(cwnd_)` stored at the freeze, packets.
        cwnd: u32,
        /// `ssthresh_` stored at the freeze, packets.
        ssthresh: i64,
    },
    /// An EHC-ACK restored this window after `frozen`; `resent` packets
    /// were outstanding and are sent again.
    Resume {
        /// Window restored, packets.
        cwnd: u32,
        /// `ssthresh_` restored, packets.
        ssthresh: i64,
        /// How long the sender stayed frozen.
        frozen: Duration,
        /// Packets outstanding at the resume, sent again.
        resent: i64,
    },
    /// A handover notification sent `resent` outstanding packets again.
    Notified {
        /// Outstanding packets sent again.
        resent: i64,
    },
}

/// The sender's handover state: what an EHO-ACK stored, and whether
/// output is held while an EHN's acknowledgement is absorbed.
#[derive(Clone, Debug, Default)]
pub(super) struct Handover {
    frozen: Option<(Instant, f64, i64)>,
    hold: bool,
}

impl Handover {
    /// No packet may leave (frozen, or an EHN's ACK being absorbed).
    pub(super) fn holds_output(&self) -> bool {
        self.hold || self.frozen.is_some()
    }

    /// The retransmission timer is frozen.
    pub(super) fn frozen(&self) -> bool {
        self.frozen.is_some()
    }
}

impl Ns2Sender {
    /// Whether an EHO-ACK froze the sender.
    pub fn witcp_frozen(&self) -> bool {
        self.handover.frozen()
    }

    /// An ACK for packet `ack` carrying the handover signal `sig`. Returns
    /// false when the scheme is off: the caller then hands the ACK to
    /// [`Ns2Sender::handle_ack`] as an ordinary one.
    pub fn handle_signal(&mut self, now: Instant, ack: i64, sig: WiTcp) -> bool {
        let on = match sig {
            WiTcp::Ehn => self.cfg.ehn,
            WiTcp::Eho | WiTcp::Ehc => self.cfg.witcp,
        };
        if !on {
            return false;
        }
        self.stats.segs_received += 1;
        if ack > self.maxseq {
            self.stats.witcp_ignored += 1;
            return true;
        }
        match sig {
            WiTcp::Eho => self.freeze(now),
            WiTcp::Ehc => self.resume(now),
            WiTcp::Ehn => self.notified(now, ack),
        }
        true
    }

    fn freeze(&mut self, now: Instant) {
        if self.handover.frozen.is_some() {
            self.stats.witcp_ignored += 1;
            return;
        }
        self.handover.frozen = Some((now, self.cwnd, self.ssthresh));
        self.stats.witcp_freezes += 1;
        self.events.push_back(Ns2Event::Handover(HandoverEvent::Freeze { cwnd: self.cwnd as u32, ssthresh: self.ssthresh }));
    }

    fn resume(&mut self, now: Instant) {
        let Some((since, cwnd, ssthresh)) = self.handover.frozen.take() else {
            self.stats.witcp_ignored += 1;
            return;
        };
        let frozen = now.saturating_since(since);
        self.stats.witcp_resumes += 1;
        self.stats.witcp_frozen_ns += frozen.as_nanos();
        self.cwnd = cwnd;
        self.ssthresh = ssthresh;
        let resent = self.go_back_n(now);
        self.events.push_back(Ns2Event::Handover(HandoverEvent::Resume { cwnd: cwnd as u32, ssthresh, frozen, resent }));
        self.send_much(now, self.cfg.maxburst);
    }

    fn notified(&mut self, now: Instant, ack: i64) {
        self.stats.ehn_received += 1;
        if ack > self.highest_ack {
            self.handover.hold = true;
            self.handle_ack(now, ack);
            self.stats.segs_received -= 1;
            self.handover.hold = false;
        }
        self.rtt.t_backoff = 1;
        let resent = self.go_back_n(now);
        self.events.push_back(Ns2Event::Handover(HandoverEvent::Notified { resent }));
        self.send_much(now, self.cfg.maxburst);
    }

    /// Back to the first unacknowledged packet as a timeout does, without
    /// touching the window or the back-off. Returns the packets outstanding.
    fn go_back_n(&mut self, now: Instant) -> i64 {
        let outstanding = (self.maxseq - self.highest_ack).max(0);
        self.dupacks = 0;
        self.dupwnd = 0;
        self.recover = self.maxseq;
        self.last_cwnd_action = CwndAction::Timeout;
        self.firstpartial = false;
        // reset_rtx_timer(mild = 0, backoff = 0): timer from the current
        // RTO, t_seqno_ = highest_ack_ + 1, no RTT timing of a resent packet.
        self.reset_rtx_timer(now, false, false);
        outstanding
    }
}

#[cfg(test)]
#[path = "handover_tests.rs"]
mod tests;
