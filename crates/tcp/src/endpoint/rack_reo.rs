//! RACK's reordering window (RFC 8985 §6.2 step 4 and §6.2.1, Linux
//! net/ipv4/tcp_recovery.c `tcp_rack_reo_wnd` / `tcp_rack_update_reo_wnd`,
//! net/ipv4/tcp_input.c `tcp_check_sack_reordering`, 6.6).
//!
//! Why adaptive: a fixed min_rtt/4 is too short on a path that reorders
//! by more (every reordering becomes a spurious recovery) and needlessly
//! slow on one that never does. So the window is zero until reordering has
//! been seen — in Recovery, or once DupThresh segments are SACKed, exactly
//! like DupThresh — and min_rtt/4 once it has; each round trip that brings
//! a D-SACK (a spurious retransmission, probably caused by too small a
//! window) adds another min_rtt/4 step, up to 255 steps and never more than
//! SRTT; after 16 recoveries without one (`TCP_RACK_RECOVERY_THRESH`) it
//! falls back to one step.
//!
//! Not modelled: `tp->reordering` (the DupThresh Linux raises with the
//! reordering degree); `TcpConfig::dupack_threshold` stays fixed.

use airtcp_core::Duration;

use super::scoreboard::SACKED;
use super::Endpoint;
use crate::cc::CaState;

/// `TCP_RACK_RECOVERY_THRESH` (include/net/tcp.h): recoveries without a
/// D-SACK after which the window returns to one step.
const RACK_RECOVERY_THRESH: u8 = 16;

impl Endpoint {
    /// `tcp_highest_sack_seq`: start of the highest SACKed segment, SND.UNA
    /// when nothing is SACKed. A segment delivered below it without ever
    /// being retransmitted was reordered, not lost.
    pub(super) fn highest_sack_start(&self) -> u64 {
        if self.tp.sacked_out == 0 {
            return self.snd_una;
        }
        self.rtx.iter().rev().find(|s| s.has(SACKED)).map_or(self.snd_una, |s| s.start)
    }

    /// `tcp_check_sack_reordering`'s "exciting event": a never-retransmitted
    /// hole below SACKed data was filled (by SACK or cumulative ACK).
    pub(super) fn note_reordering(&mut self) {
        self.rack.reord_seen = self.rack.reord_seen.saturating_add(1);
        self.stats.reordering_seen += 1;
    }

    /// RACK's reordering window now (`tcp_rack_reo_wnd`).
    pub fn rack_reo_wnd(&self) -> Duration {
        if self.rack.reord_seen == 0
            && (self.tp.ca_state >= CaState::Recovery || self.tp.sacked_out >= self.cfg.dupack_threshold)
        {
            return Duration::ZERO;
        }
        if self.tp.min_rtt_us == u32::MAX {
            return Duration::ZERO; // no RTT sample yet: no min_rtt to scale
        }
        let quarter = (self.tp.min_rtt_us as u64 >> 2) * self.rack.reo_wnd_steps as u64;
        Duration::from_micros(quarter).min(self.rtt.srtt())
    }

    /// `tcp_dsack_seen`'s RACK part: a believable D-SACK after reordering
    /// was seen, and not the echo of a tail loss probe (a probe is sent by
    /// timer, not because RACK judged too early).
    pub(super) fn rack_note_dsack(&mut self, for_tlp: bool) {
        if self.rack.reord_seen > 0 && !for_tlp {
            self.rack.dsack_seen = true;
        }
    }

    /// `tcp_rack_update_reo_wnd`, once per ACK after the cumulative ACK is
    /// processed. `prior_delivered` is the rate sample's (`delivered` when
    /// the newest segment this ACK delivered was sent; 0 without a sample).
    pub(super) fn rack_update_reo_wnd(&mut self, prior_delivered: u32) {
        if !self.rack_active() || prior_delivered == 0 {
            return;
        }
        // A D-SACK for data sent before the last step was taken belongs to
        // the round trip that already grew the window.
        if (prior_delivered.wrapping_sub(self.rack.last_delivered) as i32) < 0 {
            self.rack.dsack_seen = false;
        }
        if self.rack.dsack_seen {
            self.rack.reo_wnd_steps = self.rack.reo_wnd_steps.saturating_add(1);
            self.rack.dsack_seen = false;
            self.rack.last_delivered = self.tp.delivered;
            self.rack.reo_wnd_persist = RACK_RECOVERY_THRESH;
        } else if self.rack.reo_wnd_persist == 0 {
            self.rack.reo_wnd_steps = 1;
        }
    }

    /// `tcp_try_undo_recovery` without an undo: one more recovery that
    /// D-SACKs did not prove spurious.
    pub(super) fn rack_recovery_not_undone(&mut self) {
        self.rack.reo_wnd_persist = self.rack.reo_wnd_persist.saturating_sub(1);
    }

    /// `tcp_try_undo_dsack`: a recovery D-SACKs proved spurious keeps the
    /// grown window one recovery longer.
    pub(super) fn rack_dsack_undo(&mut self) {
        self.rack.reo_wnd_persist = (self.rack.reo_wnd_persist + 1).min(RACK_RECOVERY_THRESH);
    }
}
