//! Wi-TCP's sender side (seed 001: Bonde, Jharia and Shrivastav, "Wi-TCP",
//! §5): the agent serving a mobile host sends an EHO-ACK when its MAC loses
//! the host, and an EHC-ACK once the host is registered again. Both are
//! ordinary ACKs carrying the experimental option of
//! [`airtcp_core::WITCP_EXID`]; with `TcpConfig::witcp` on, the sender
//!
//! - on EHO-ACK stores cwnd and ssthresh, stops sending (no new data, no
//!   retransmission, no loss or window probe; pure ACKs still go out) and
//!   freezes its timers (retransmission, loss probe, reordering, persist):
//!   nothing can time out while the host is unreachable;
//! - on EHC-ACK restores cwnd and ssthresh and resumes at once: what was in
//!   flight when the host vanished is presumed lost (the paper's packets
//!   dropped at the agent), so every unacknowledged segment is marked lost
//!   and retransmitted under the restored window (ca_state Loss, without the
//!   congestion module's loss hook and without any reduction), then new data
//!   follows. The retransmission timer restarts from a full RTO.
//!
//! The signal segments themselves are control messages: they do not enter
//! ACK processing (no duplicate-ACK count, no window update). A signal whose
//! acknowledgement number lies beyond what was ever sent is ignored (a blind
//! injection cannot freeze the connection). `witcp_max_freeze`, when set,
//! thaws a sender that never hears the EHC-ACK (the paper has no such
//! guard; off by default). With `witcp` off the option is ignored and the
//! segment is an ordinary ACK, as on an unmodified stack.

use airtcp_core::{Instant, Segment, WiTcp};

use super::{Endpoint, State, TimerKind};
use crate::cc::CaState;
use crate::event::Event;

/// The congestion state stored by an EHO-ACK.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Frozen {
    /// When the EHO-ACK froze the sender (for `witcp_max_freeze` and the
    /// freeze duration reported at resume).
    pub since: Instant,
    /// cwnd and ssthresh (packets) when the EHO-ACK arrived.
    pub cwnd: u32,
    /// Slow-start threshold in packets when the EHO-ACK arrived.
    pub ssthresh: u32,
}

impl Endpoint {
    /// The stored state while a Wi-TCP freeze is in force.
    pub fn witcp_frozen(&self) -> Option<Frozen> {
        self.witcp_frozen
    }

    /// A segment carrying a Wi-TCP signal, when the option is on: handled
    /// here instead of as an ACK. Returns false when the segment is to be
    /// processed as usual.
    pub(super) fn on_witcp_signal(&mut self, now: Instant, seg: &Segment) -> bool {
        let Some(sig) = seg.witcp else { return false };
        let on = if sig == WiTcp::Ehn { self.cfg.ehn } else { self.cfg.witcp };
        if !on || seg.flags.rst() || seg.flags.syn() || !seg.flags.ack() {
            return false;
        }
        if !matches!(self.state, State::Established | State::CloseWait | State::FinWait1 | State::Closing | State::LastAck) {
            return false;
        }
        if self.snd_off(seg.ack) > self.snd_max as i64 {
            self.stats.witcp_ignored += 1;
            return true;
        }
        match sig {
            WiTcp::Eho => self.witcp_freeze(now),
            WiTcp::Ehc => self.witcp_thaw(now, false),
            WiTcp::Ehn => self.on_ehn(now, seg),
        }
        true
    }

    fn witcp_freeze(&mut self, now: Instant) {
        if self.witcp_frozen.is_some() {
            self.stats.witcp_ignored += 1;
            return;
        }
        self.witcp_frozen = Some(Frozen { since: now, cwnd: self.tp.snd_cwnd, ssthresh: self.tp.snd_ssthresh });
        self.stats.witcp_freezes += 1;
        self.events.push_back(Event::WiTcpFreeze { cwnd: self.tp.snd_cwnd, ssthresh: self.tp.snd_ssthresh });
        self.tlp_send = None;
        self.probe_pending = false;
        if let Some(d) = self.cfg.witcp_max_freeze {
            self.timers.set(TimerKind::WiTcpThaw, now + d);
        }
        self.witcp_hold_timers();
    }

    /// Resume after an EHC-ACK (`forced`: the `witcp_max_freeze` guard).
    pub(super) fn witcp_thaw(&mut self, now: Instant, forced: bool) {
        let Some(f) = self.witcp_frozen.take() else {
            self.stats.witcp_ignored += 1;
            return;
        };
        self.timers.stop(TimerKind::WiTcpThaw);
        self.stats.witcp_resumes += 1;
        self.stats.witcp_forced_thaws += forced as u64;
        let frozen = now.saturating_since(f.since);
        self.stats.witcp_frozen_ns += frozen.as_nanos();
        self.resend_in_flight(now);
        self.tp.snd_cwnd = f.cwnd;
        self.tp.snd_ssthresh = f.ssthresh;
        self.tp.snd_cwnd_cnt = 0;
        self.events.push_back(Event::WiTcpResume { cwnd: f.cwnd, ssthresh: f.ssthresh, frozen, forced });
        self.update_persist(now);
    }

    /// What was in flight is presumed lost at the agent: mark it all lost
    /// and let the output path resend it at once under the current window
    /// (ca_state Loss, without the congestion module's loss hook), with the
    /// retransmission timer restarted from a full RTO. Returns the count.
    pub(super) fn resend_in_flight(&mut self, now: Instant) -> u32 {
        let n = self.tp.packets_out;
        if n > 0 {
            self.mark_all_lost();
            self.tlp_high_seq = None;
            self.undo_marker = None;
            self.frto = false;
            self.frto_new_data = false;
            self.force_retx = false;
            self.high_seq = self.snd_nxt;
            if self.tp.ca_state != CaState::Loss {
                // Not `set_ca_state`: the congestion module's Loss hook would
                // reset the very state Wi-TCP keeps (CUBIC's w_max, ...).
                let from = self.tp.ca_state;
                self.tp.ca_state = CaState::Loss;
                self.events.push_back(Event::CaStateChanged { from, to: CaState::Loss });
            }
            self.timers.set(TimerKind::Rto, now + self.rtt.rto());
        }
        n
    }

    /// While frozen, nothing may time out: the retransmission, probe,
    /// reordering and persist timers stay disarmed, whatever re-armed them.
    pub(super) fn witcp_hold_timers(&mut self) {
        if self.witcp_frozen.is_some() {
            for k in [TimerKind::Rto, TimerKind::LossProbe, TimerKind::ReoTimeout, TimerKind::Persist] {
                self.timers.stop(k);
            }
            self.probe_pending = false;
            self.tlp_send = None;
        }
    }
}
