//! Spurious-retransmission detection and undo, as Linux does it in
//! net/ipv4/tcp_input.c: F-RTO after a timeout (RFC 5682, SACK-enhanced,
//! `tcp_frto = 2`), the Eifel detection with timestamps (RFC 3522,
//! `tcp_packet_delayed`), D-SACK (RFC 2883; the sender side of
//! `tcp_check_dsack` / `tcp_dsack_seen`, the receiver's `tcp_dsack_set` is
//! in `input.rs`) and the `tcp_try_undo_*` family that restores cwnd
//! (through the module's `undo_cwnd` hook) and ssthresh (`prior_ssthresh`).
//!
//! Bookkeeping, as the kernel's `struct tcp_sock` fields:
//! * `undo_marker` — SND.UNA when the reduction began (`tcp_init_undo`);
//!   `None` once undone or when there is nothing to undo.
//! * `undo_retrans` — retransmissions of this episode not yet reported
//!   duplicate by a D-SACK; -1 when none was outstanding at the start and
//!   none was sent since. Zero means every retransmission was unnecessary.
//! * `retrans_stamp` — when the first retransmission of the episode went out;
//!   an ACK echoing an older TSval (Eifel) was caused by an original.
//! * `frto` — F-RTO is judging the current timeout.
//!
//! Configuration: `TcpConfig::frto` (F-RTO and its undo), `undo` (every other
//! undo), `eifel` (the timestamp test inside `tcp_packet_delayed`), `dsack`
//! (generation at the receiver; a sender always reads D-SACKs, as Linux).
//!
//! Not modelled: the Reno hold at exactly `high_seq`
//! (`tcp_is_non_sack_preventing_reopen`, which the existing recovery exit
//! does not model either), RACK's `reo_wnd` growth on D-SACK, D-SACKed
//! segments counted as delivered in the rate sample, and TLP.

use airtcp_core::{Segment, SeqNum};

use super::flags::{FLAG_DATA_SACKED, FLAG_DSACKING_ACK, FLAG_DSACK_TLP, FLAG_ORIG_SACK_ACKED, FLAG_SND_UNA_ADVANCED};
use super::flags::Mode;
use super::scoreboard::{EVER_RETRANS, LOST};
use super::{Endpoint, State};
use crate::cc::{CaState, CongestionOps};
use crate::config::LossExitGrowth;

/// What `process_loss` did with an ACK in Loss.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum LossStep {
    /// Still in Loss; nothing more for this ACK (`rexmit` LOST or NEW).
    Stay,
    /// Left Loss (undone or recovered): the caller continues as in Open.
    Left,
}

impl Endpoint {
    /// Whether the `tcp_may_undo` family applies on this connection.
    pub(super) fn undo_on(&self) -> bool {
        self.cfg.undo
    }

    /// `tcp_init_undo`: a reduction starts; remember where, and how many
    /// retransmissions are already out (they may be D-SACKed later).
    pub(super) fn init_undo(&mut self) {
        self.undo_marker = Some(self.snd_una);
        self.undo_retrans = self.tp.retrans_out as i32;
        if self.undo_retrans == 0 {
            self.undo_retrans = -1;
        }
    }

    /// `tcp_retransmit_skb`'s undo bookkeeping after a retransmission.
    pub(super) fn note_retransmission(&mut self, now: airtcp_core::Instant) {
        if self.retrans_stamp.is_none() {
            self.retrans_stamp = Some(now);
        }
        if self.undo_retrans < 0 {
            self.undo_retrans = 0;
        }
        self.undo_retrans += 1;
    }

    /// `tcp_any_retrans_done`.
    pub(super) fn any_retrans_done(&self) -> bool {
        self.tp.retrans_out > 0 || self.rtx.front().is_some_and(|h| h.has(EVER_RETRANS))
    }

    /// `tcp_packet_delayed`: the ACK's TSecr is older than the first
    /// retransmission (Eifel, RFC 3522 §3.2), or nothing was retransmitted.
    pub(super) fn packet_delayed(&self) -> bool {
        match self.retrans_stamp {
            Some(stamp) => {
                self.cfg.eifel
                    && self.ts_ok
                    && self.rcv_tsecr.is_some_and(|ecr| ecr != 0 && (ecr.wrapping_sub(self.ts_now(stamp)) as i32) < 0)
            }
            None => self.state != State::SynSent,
        }
    }

    /// `tcp_may_undo`.
    pub(super) fn may_undo(&self) -> bool {
        self.undo_on() && self.undo_marker.is_some() && (self.undo_retrans == 0 || self.packet_delayed())
    }

    /// `tcp_undo_cwnd_reduction`: cwnd from the module's `undo_cwnd`
    /// (Reno & co: max(cwnd, prior_cwnd)), ssthresh back to `prior_ssthresh`
    /// when that is larger; with `unmark_loss` every LOST mark is cleared.
    pub(super) fn undo_cwnd_reduction(&mut self, unmark_loss: bool) {
        if unmark_loss {
            for s in self.rtx.iter_mut() {
                s.flags &= !LOST;
            }
            self.tp.lost_out = 0;
        }
        if self.tp.prior_ssthresh != 0 {
            self.tp.snd_cwnd = self.cc.undo_cwnd(&mut self.tp).max(1);
            if self.tp.prior_ssthresh > self.tp.snd_ssthresh {
                self.tp.snd_ssthresh = self.tp.prior_ssthresh;
                self.ecn_withdraw_cwr();
            }
        }
        self.undo_marker = None;
        self.rack.advanced = true;
        self.force_retx = false;
    }

    /// `tcp_current_ssthresh`: what `prior_ssthresh` remembers.
    pub(super) fn current_ssthresh(&self) -> u32 {
        if matches!(self.tp.ca_state, CaState::Cwr | CaState::Recovery) {
            self.tp.snd_ssthresh
        } else {
            self.tp.snd_ssthresh.max((self.tp.snd_cwnd >> 1) + (self.tp.snd_cwnd >> 2))
        }
    }

    /// `tcp_try_keep_open`: Open, or Disorder while anything is SACKed,
    /// lost or retransmitted.
    pub(super) fn try_keep_open(&mut self) {
        let st = if self.tp.sacked_out + self.tp.lost_out > 0 || self.any_retrans_done() {
            CaState::Disorder
        } else {
            CaState::Open
        };
        if st != self.tp.ca_state {
            self.set_ca_state(st);
            self.high_seq = self.snd_nxt;
        }
    }

    /// `tcp_try_undo_recovery` at the end of fast recovery, the `may_undo`
    /// half (the state change is the caller's). Returns whether it undid.
    pub(super) fn try_undo_recovery_full(&mut self) -> bool {
        if self.mode() != Mode::Prr || !self.may_undo() {
            self.rack_recovery_not_undone();
            return false;
        }
        self.undo_cwnd_reduction(false);
        self.stats.recovery_undos += 1;
        true
    }

    /// `tcp_try_undo_dsack`: every retransmission of the episode came back
    /// D-SACKed, so none was needed.
    pub(super) fn try_undo_dsack(&mut self) -> bool {
        if self.undo_on() && self.undo_marker.is_some() && self.undo_retrans == 0 {
            self.rack_dsack_undo();
            self.undo_cwnd_reduction(false);
            self.stats.dsack_undos += 1;
            return true;
        }
        false
    }

    /// `tcp_try_undo_partial`, for a partial ACK in Recovery: `None` if the
    /// ACK is not delayed (carry on with loss marking), `Some(true)` when
    /// retransmissions are still out (hold: no marking, no retransmission
    /// on this ACK), `Some(false)` after an undo to Open/Disorder.
    pub(super) fn try_undo_partial(&mut self) -> Option<bool> {
        if !self.undo_on() || self.undo_marker.is_none() || !self.packet_delayed() {
            return None;
        }
        if self.tp.retrans_out > 0 {
            return Some(true);
        }
        if !self.any_retrans_done() {
            self.retrans_stamp = None;
        }
        self.undo_cwnd_reduction(true);
        self.stats.recovery_undos += 1;
        self.try_keep_open();
        Some(false)
    }

    /// `tcp_try_undo_loss`: in Loss after a partial ACK (Eifel / D-SACK
    /// evidence through `tcp_may_undo`) or when F-RTO decided the timeout
    /// was spurious (`frto_undo`). Without SACK a non-F-RTO undo stays in
    /// Loss until the recovery point is acknowledged, as the kernel does.
    pub(super) fn try_undo_loss(&mut self, frto_undo: bool) -> bool {
        if !(frto_undo || self.may_undo()) {
            return false;
        }
        self.undo_cwnd_reduction(true);
        self.stats.loss_undos += 1;
        if frto_undo {
            self.stats.spurious_rtos_detected += 1;
        }
        self.retries = 0;
        self.frto = false;
        self.frto_new_data = false;
        if frto_undo || self.sack_ok {
            self.set_ca_state(CaState::Open);
        }
        true
    }

    /// `tcp_process_loss`: an ACK in Loss. Undo first (Eifel / D-SACK), then
    /// F-RTO (RFC 5682 §3.1 as Linux's SACK-enhanced version, which is
    /// also what runs without SACK):
    /// * step 2: the first ACK that advances SND.UNA but not to the
    ///   recovery point moves the recovery point to SND.NXT and lets new
    ///   data go out instead of the retransmissions (`REXMIT_NEW`); with no
    ///   new data to send, F-RTO gives up and go-back-N follows;
    /// * step 3: afterwards, an ACK or SACK of never-retransmitted data at or
    ///   below the recovery point (`FLAG_ORIG_SACK_ACKED`) proves the
    ///   timeout spurious — undo; a duplicate ACK or a SACK of the new data
    ///   means the loss was real (F-RTO off, conventional recovery).
    ///
    /// Reaching the recovery point ends Loss (`tcp_try_undo_recovery`).
    pub(super) fn process_loss(&mut self, flag: u32, num_dupack: u32) -> LossStep {
        let advanced = flag & FLAG_SND_UNA_ADVANCED != 0;
        let recovered = self.snd_una >= self.high_seq;
        if advanced && self.try_undo_loss(false) {
            return if self.tp.ca_state == CaState::Loss { LossStep::Stay } else { LossStep::Left };
        }
        if self.frto {
            if flag & FLAG_ORIG_SACK_ACKED != 0 && self.try_undo_loss(true) {
                return LossStep::Left;
            }
            if self.snd_nxt > self.high_seq {
                if flag & FLAG_DATA_SACKED != 0 || num_dupack > 0 {
                    self.frto = false; // step 3.a: the loss was real
                }
            } else if advanced && !recovered {
                self.high_seq = self.snd_nxt;
                // Step 2.b: new data if the window admits any.
                let unsent = self.data_end() > self.snd_nxt;
                let room = self.snd_una + self.snd_wnd as u64 > self.snd_nxt;
                if unsent && room {
                    self.frto_new_data = true;
                    return LossStep::Stay;
                }
                self.frto = false;
            }
        }
        if recovered {
            // tcp_try_undo_recovery in Loss.
            if self.may_undo() {
                self.undo_cwnd_reduction(false);
                self.stats.loss_undos += 1;
            } else {
                self.rack_recovery_not_undone();
            }
            if self.cfg.loss_exit_growth == LossExitGrowth::BeyondRecoveryPoint {
                let beyond = (self.snd_una - self.high_seq) / self.send_mss.max(1) as u64;
                self.acked_for_growth = Some(beyond.min(u32::MAX as u64) as u32);
            }
            self.frto = false;
            self.set_ca_state(CaState::Open);
            return LossStep::Left;
        }
        self.loss_reno_sacks(num_dupack, advanced);
        LossStep::Stay
    }

    // ---- D-SACK at the sender ----

    /// `tcp_check_dsack` + `tcp_dsack_seen`: whether the first SACK block is
    /// a D-SACK (below the cumulative ACK, or inside the second block) that
    /// is believable (no longer than the largest window, and not more
    /// duplicates reported than we ever retransmitted). Accounts it against
    /// `undo_retrans` and, after reordering, RACK's window. `prior_snd_una`
    /// is SND.UNA before this ACK. Returns the ACK flags it earns:
    /// `FLAG_DSACKING_ACK` when accepted, `FLAG_DSACK_TLP` when the block is
    /// exactly the tail loss probe's (set before the believability check,
    /// as the kernel does).
    pub(super) fn check_dsack(&mut self, seg: &Segment, prior_snd_una: u64) -> u32 {
        let blocks = seg.sacks();
        let Some(&(l0, r0)) = blocks.first() else { return 0 };
        let is_dsack = if l0.diff(seg.ack) < 0 {
            true
        } else if blocks.len() > 1 {
            let (l1, r1) = blocks[1];
            !(r0.diff(r1) > 0 || l0.diff(l1) < 0)
        } else {
            false
        };
        if !is_dsack {
            return 0;
        }
        let len = r0.diff(l0);
        if len <= 0 || len as u64 > self.max_snd_wnd as u64 {
            return 0;
        }
        let mss = self.send_mss.max(1) as u64;
        let mut flag = 0;
        if len as u64 <= mss && self.tlp_high_seq.is_some_and(|h| h as i64 == self.snd_off(r0)) {
            flag |= FLAG_DSACK_TLP;
        }
        let dup_segs = (len as u64).div_ceil(mss).max(1);
        self.dsack_dups += dup_segs;
        if self.dsack_dups > self.stats.retransmissions {
            return flag; // the peer reports more duplicates than we sent
        }
        self.stats.dsacks_received += 1;
        self.rack_note_dsack(flag & FLAG_DSACK_TLP != 0);
        flag |= FLAG_DSACKING_ACK;
        let (l, r) = (self.snd_off(l0), self.snd_off(r0));
        let Some(marker) = self.undo_marker else { return flag };
        if self.undo_retrans <= 0 {
            return flag;
        }
        if r <= prior_snd_una as i64 {
            // D-SACK for data already acknowledged: "dumb counting".
            if r > marker as i64 {
                self.undo_retrans = (self.undo_retrans - dup_segs as i32).max(0);
            }
        } else {
            // D-SACK inside the queue: each retransmitted segment it covers.
            for s in self.rtx.iter() {
                if (s.start as i64) < l || s.end() as i64 > r {
                    continue;
                }
                if s.has(EVER_RETRANS) && s.end() > marker && self.undo_retrans > 0 {
                    self.undo_retrans -= 1;
                }
            }
        }
        flag
    }
}

/// Wire sequence helpers for the receiver's D-SACK block.
pub(super) fn dsack_wire(irs: SeqNum, block: (u64, u64)) -> (SeqNum, SeqNum) {
    (irs + (block.0 + 1) as u32, irs + (block.1 + 1) as u32)
}
