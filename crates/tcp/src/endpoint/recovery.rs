//! Loss recovery: what `tcp_fastretrans_alert` does once an ACK is dubious
//! (a duplicate, one that SACKs, or any ACK outside Open) — dupack counting
//! without SACK (`tcp_add_reno_sack` & co), loss marking (RFC 6675 IsLost,
//! the NewReno head, RACK from `rack.rs`), entering and leaving Recovery, the
//! RTO's `tcp_enter_loss`, and cwnd during Recovery/CWR (PRR as Linux
//! `tcp_cwnd_reduction`; ns-3's PRR is `ns3_prr.rs`). The ACK path in
//! `ack.rs` decides when to call in; this file owns the recovery state.
//!
//! Recovery variants (`TcpConfig::recovery`):
//! * `Prr` — Linux: cwnd = in_flight + sndcnt per ACK (RFC 6937 PRR-SSRB as
//!   `tcp_cwnd_reduction`), recovery point `high_seq`; without SACK a partial
//!   ACK marks the new head lost (`tcp_newreno_mark_lost`).
//! * `Reno` / `NewReno` without SACK — RFC 5681 §3.2 / RFC 6582 with the
//!   classic inflated cwnd (ssthresh + 3, +1 per dupack, deflation on partial
//!   ACKs); sending is gated on FlightSize (`packets_out`) < cwnd.
//! * `Reno` / `NewReno` with SACK — RFC 6675: cwnd = ssthresh, pipe =
//!   in_flight; Reno leaves recovery on the first advancing ACK.
//! * `Tahoe` — the third dupack acts like a timeout without the timer:
//!   ssthresh, cwnd = 1, everything outstanding LOST, go-back-N in Loss.

use airtcp_core::Instant;

use super::flags::{Mode, FLAG_DATA_SACKED, FLAG_ECE, FLAG_SND_UNA_ADVANCED};
use super::scoreboard::{LOST, RETRANS, SACKED};
use super::undo::LossStep;
use super::Endpoint;
use crate::cc::{CaEvent, CaState, CongestionOps};
use crate::config::{LossExitGrowth, Recovery, RenoSacks, RtoSsthresh};
use crate::event::Event;

impl Endpoint {
    pub(super) fn mode(&self) -> Mode {
        match (self.cfg.recovery, self.sack_ok) {
            (Recovery::Tahoe, _) => Mode::Tahoe,
            (Recovery::Prr, _) => Mode::Prr,
            (Recovery::Ns3Prr, _) => Mode::Ns3Prr,
            (_, false) => Mode::Classic,
            (_, true) => Mode::Sack6675,
        }
    }

    /// Whether sending is gated the RFC 5681 way (FlightSize < inflated cwnd).
    pub(super) fn classic_recovery(&self) -> bool {
        self.tp.ca_state == CaState::Recovery && self.mode() == Mode::Classic
    }

    // ---- Reno (no SACK) dupack accounting, Linux tcp_add_reno_sack & co ----

    fn limit_reno_sacked(&mut self) {
        let holes = self.tp.lost_out.max(1);
        if self.tp.sacked_out + holes > self.tp.packets_out {
            self.tp.sacked_out = self.tp.packets_out.saturating_sub(holes);
        }
    }

    fn add_reno_sack(&mut self, num_dupack: u32) {
        if num_dupack > 0 {
            let prior = self.tp.sacked_out;
            self.tp.sacked_out += num_dupack;
            self.limit_reno_sacked();
            self.tp.delivered += self.tp.sacked_out.saturating_sub(prior);
        }
    }

    pub(super) fn remove_reno_sacks(&mut self, acked: u32) {
        if acked > 0 {
            // One ACK acked a hole; the rest ate duplicate ACKs.
            self.tp.delivered += acked.saturating_sub(self.tp.sacked_out).max(1);
            if acked > self.tp.sacked_out {
                self.tp.sacked_out = 0;
            } else {
                self.tp.sacked_out -= acked - 1;
            }
        }
        self.limit_reno_sacked();
    }

    fn reset_reno_sack(&mut self) {
        self.tp.sacked_out = 0;
    }

    /// Dupacks in Loss without SACK (`tcp_process_loss`'s Reno part): after
    /// F-RTO sent new data a dupack means some of it arrived; ns-3's DupAck
    /// ignores duplicate ACKs in Loss altogether.
    pub(super) fn loss_reno_sacks(&mut self, num_dupack: u32, advanced: bool) {
        if !self.sack_ok && self.cfg.reno_sacks == RenoSacks::ResetOnAdvance {
            if self.snd_nxt > self.high_seq && num_dupack > 0 {
                self.add_reno_sack(num_dupack);
            } else if advanced {
                self.reset_reno_sack();
            }
        }
    }

    // ---- loss marking ----

    pub(super) fn mark_lost(&mut self, i: usize) {
        let s = &mut self.rtx[i];
        if s.has(SACKED) || s.has(LOST) {
            return;
        }
        s.flags |= LOST;
        self.tp.lost_out += 1;
        self.lost_marks = self.lost_marks.wrapping_add(1);
    }

    /// `tcp_newreno_mark_lost`: the head of the queue.
    fn mark_head_lost(&mut self) {
        if !self.rtx.is_empty() {
            self.mark_lost(0);
        }
    }

    /// ns-3 `TcpTxBuffer::MarkHeadAsLost`: the head becomes lost *and* loses
    /// its retransmitted flag, so it is sent again even if a retransmission
    /// is already in flight (e.g. a head retransmitted at recovery exit is
    /// retransmitted once more when the next recovery starts).
    pub(super) fn mark_head_lost_ns3(&mut self) {
        if let Some(h) = self.rtx.front_mut() {
            if h.has(RETRANS) {
                h.flags &= !RETRANS;
                self.tp.retrans_out -= 1;
            }
            self.mark_lost(0);
        }
    }

    /// RFC 6675 IsLost: DupThresh segments SACKed above an un-SACKed one.
    fn sack_mark_lost(&mut self) {
        let thresh = self.cfg.dupack_threshold;
        let mut above = 0;
        for i in (0..self.rtx.len()).rev() {
            if self.rtx[i].has(SACKED) {
                above += 1;
            } else if above >= thresh {
                self.mark_lost(i);
            }
        }
    }

    /// `tcp_identify_packet_loss`. With RACK, Linux drops DupThresh marking
    /// and relies on reo_wnd = 0 once DupThresh segments are SACKed (RFC 8985
    /// §6.2 step 4); here RFC 6675 IsLost stays and RACK adds to it, so
    /// turning RACK on only ever marks more.
    fn identify_loss(&mut self, now: Instant, advanced: bool) {
        if self.sack_ok {
            self.sack_mark_lost();
            self.rack_mark_lost(now);
        } else if (self.tp.ca_state < CaState::Recovery && self.tp.sacked_out >= self.cfg.dupack_threshold)
            || (self.tp.ca_state == CaState::Recovery && advanced)
        {
            self.mark_head_lost();
        }
    }

    /// The guard against repeated fast retransmits of one window (RFC 6582
    /// §3.2 step 1, RFC 2582's "bugfix", ns-2 `dupack_action` with
    /// `bug_fix_`): without SACK, Tahoe, Reno and NewReno (the RFC 5681 /
    /// 6582 modes) start a fast retransmit only once the cumulative ACK
    /// covers more than `recover`, SND.MAX when the last fast retransmit or
    /// RTO began. Without it a go-back-N (Tahoe's fast retransmit, any RTO)
    /// resends segments the receiver holds; each comes back as a duplicate
    /// ACK after the window is repaired, three of them start a spurious
    /// fast retransmit, which resends the window again, and so on for the
    /// rest of the run. Linux (`Prr`) holds only until the ACK passes
    /// `high_seq` (`tcp_try_undo_recovery`); with SACK the duplicates carry
    /// no new SACK information and start nothing.
    pub(super) fn may_fast_retransmit(&self) -> bool {
        let guarded = !self.sack_ok && matches!(self.mode(), Mode::Tahoe | Mode::Classic);
        !guarded || self.snd_una > self.recover
    }

    /// `tcp_time_to_recover` (non-RACK): lost data, or DupThresh dupacks/SACKs.
    fn time_to_recover(&self) -> bool {
        self.tp.lost_out > 0 || self.tp.sacked_out + 1 > self.cfg.dupack_threshold
    }

    /// `tcp_try_to_open`: an ECE enters CWR here, the only way into it.
    fn try_to_open(&mut self, flag: u32) {
        if !self.any_retrans_done() {
            self.retrans_stamp = None;
        }
        if flag & FLAG_ECE != 0 {
            self.enter_cwr();
        }
        if self.tp.ca_state != CaState::Cwr {
            let st = if self.tp.sacked_out + self.tp.lost_out > 0 || self.tp.retrans_out > 0 {
                CaState::Disorder
            } else {
                CaState::Open
            };
            if st != self.tp.ca_state {
                self.set_ca_state(st);
                self.high_seq = self.snd_nxt;
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn fastretrans_alert(
        &mut self,
        now: Instant,
        num_dupack: u32,
        pkts_acked: u32,
        flag: u32,
        prior_snd_una: u64,
        delivered: u32,
        retrans_acked: bool,
    ) {
        let _ = prior_snd_una;
        // The pipe before this ACK's duplicate / loss accounting (what ns-3's
        // PRR sees, `ns3_prr.rs` item 3).
        let pipe = self.tp.packets_in_flight();
        let advanced = flag & FLAG_SND_UNA_ADVANCED != 0;
        let mode = self.mode();
        // A. ECE: the reduction is required, no undo (`prior_ssthresh = 0`).
        if flag & FLAG_ECE != 0 {
            self.tp.prior_ssthresh = 0;
        }
        if self.tp.ca_state == CaState::Open {
            self.retrans_stamp = None;
        }
        // Loss with F-RTO or undo: `tcp_process_loss` (undo.rs) owns the exit.
        let mut loss_done = false;
        // A retransmission RACK found lost again in Loss: on to the Open
        // path below, which starts Recovery (tcp_fastretrans_alert's
        // fallthrough on FLAG_LOST_RETRANS).
        let mut lost_retrans_in_loss = false;
        if self.tp.ca_state == CaState::Loss && (self.cfg.frto || self.cfg.undo) {
            if self.process_loss(flag, num_dupack) == LossStep::Stay {
                if !self.rack_in_loss(now) {
                    return;
                }
                lost_retrans_in_loss = true;
            }
            loss_done = true;
        }
        // D. Exit conditions: the recovery point is acknowledged. CWR holds
        // until something *above* it is, so the CWR flag (on the first new
        // segment after entry) surely reached the receiver.
        if !loss_done
            && matches!(self.tp.ca_state, CaState::Recovery | CaState::Loss | CaState::Cwr)
            && self.snd_una >= self.high_seq
        {
            match self.tp.ca_state {
                CaState::Cwr => {
                    if self.snd_una != self.high_seq {
                        self.end_recovery();
                    }
                }
                CaState::Recovery => {
                    if !self.sack_ok && self.cfg.reno_sacks == RenoSacks::ResetOnAdvance {
                        self.reset_reno_sack();
                    }
                    // tcp_try_undo_recovery, then tcp_end_cwnd_reduction.
                    self.try_undo_recovery_full();
                    self.end_recovery();
                }
                _ => {
                    if self.cfg.loss_exit_growth == LossExitGrowth::BeyondRecoveryPoint {
                        // ns-3 ProcessAck (CA_LOSS -> CA_OPEN): only the
                        // segments above the recovery point grow cwnd.
                        let beyond = (self.snd_una - self.high_seq) / self.send_mss.max(1) as u64;
                        self.acked_for_growth = Some(beyond.min(u32::MAX as u64) as u32);
                    }
                    self.set_ca_state(CaState::Open)
                }
            }
        }
        match self.tp.ca_state {
            CaState::Recovery => {
                if !advanced {
                    if !self.sack_ok {
                        self.add_reno_sack(num_dupack);
                    }
                    if mode == Mode::Classic && num_dupack > 0 {
                        // RFC 5681 §3.2 step 4: inflate by one per dupack.
                        self.tp.snd_cwnd += num_dupack;
                    }
                    if mode == Mode::Ns3Prr && (num_dupack > 0 || flag & FLAG_DATA_SACKED != 0) {
                        self.ns3_prr_step(pipe, delivered, true, retrans_acked);
                    }
                } else if mode == Mode::Ns3Prr {
                    // ns-3 ProcessAck, partial ACK: head lost, PRR if a whole
                    // segment was acked, retransmit the head regardless of cwnd.
                    self.mark_head_lost_ns3();
                    if pkts_acked >= 1 {
                        self.ns3_prr_step(pipe, delivered, false, retrans_acked);
                    }
                    self.force_retx = true;
                    return;
                } else if mode == Mode::Classic || (mode == Mode::Sack6675 && self.cfg.recovery == Recovery::Reno) {
                    if self.cfg.recovery == Recovery::Reno {
                        // RFC 5681 §3.2 step 6: the first ACK of new data ends recovery.
                        if !self.sack_ok {
                            self.reset_reno_sack();
                        }
                        self.end_recovery();
                        // Recovery ended before the recovery point: an echo
                        // now is of the window just reduced (RFC 3168
                        // §6.1.2: react at most once per window).
                        let same_window = self.snd_una < self.high_seq;
                        self.try_to_open(if same_window { flag & !FLAG_ECE } else { flag });
                        return;
                    }
                    // RFC 6582 §3.2 step 5: partial ACK — retransmit the first
                    // unacknowledged segment, deflate by the amount acked, add
                    // back one segment if at least one was acked.
                    self.mark_head_lost();
                    self.force_retx = true;
                    let cwnd = self.tp.snd_cwnd.saturating_sub(pkts_acked) + (pkts_acked >= 1) as u32;
                    self.tp.snd_cwnd = cwnd.max(1);
                    return;
                }
                if mode == Mode::Prr && self.undo_on() {
                    // tcp_try_undo_partial / tcp_try_undo_dsack (Linux 6.x order).
                    if advanced && self.try_undo_partial() == Some(true) {
                        return; // delayed, retransmissions still out: hold
                    }
                    if self.tp.ca_state == CaState::Recovery && self.try_undo_dsack() {
                        self.try_keep_open();
                    }
                    self.identify_loss(now, advanced);
                    if self.tp.ca_state != CaState::Recovery {
                        // Undone: start over if the loss is evident anyway.
                        if self.time_to_recover() {
                            self.enter_recovery(delivered, flag & FLAG_ECE != 0);
                        }
                    }
                    return;
                }
                if mode != Mode::Classic {
                    self.identify_loss(now, advanced);
                }
            }
            CaState::Loss if !lost_retrans_in_loss => {
                self.loss_reno_sacks(num_dupack, advanced);
                if self.rack_in_loss(now) {
                    self.recover_from_loss(now, advanced, delivered, flag & FLAG_ECE != 0);
                }
            }
            CaState::Loss => self.recover_from_loss(now, advanced, delivered, flag & FLAG_ECE != 0),
            _ => {
                let persist = self.cfg.reno_sacks == RenoSacks::Persist;
                if !self.sack_ok {
                    if advanced && !persist {
                        self.reset_reno_sack();
                    }
                    self.add_reno_sack(num_dupack);
                }
                if self.tp.ca_state <= CaState::Disorder {
                    // A late D-SACK may still show the last reduction needless.
                    self.try_undo_dsack();
                }
                if (persist && !self.sack_ok && num_dupack == 0) || !self.may_fast_retransmit() {
                    // ns-3 looks for loss only in DupAck; and the RFC 6582
                    // guard holds off a repeated fast retransmit.
                    self.try_to_open(flag);
                    return;
                }
                self.identify_loss(now, advanced);
                if !self.time_to_recover() {
                    self.try_to_open(flag);
                    return;
                }
                self.enter_recovery(delivered, flag & FLAG_ECE != 0);
            }
        }
    }

    /// `tcp_identify_packet_loss` in Loss (RACK only: every un-SACKed
    /// segment is LOST already, so what RACK adds is retransmissions lost
    /// again). Returns whether one was (`FLAG_LOST_RETRANS`).
    fn rack_in_loss(&mut self, now: Instant) -> bool {
        if !self.rack_active() {
            return false;
        }
        let prior_retrans = self.tp.retrans_out;
        self.rack_mark_lost(now);
        // Tahoe stays in Loss: its go-back-N resends the marked segment.
        self.tp.retrans_out < prior_retrans && self.mode() != Mode::Tahoe
    }

    /// The fallthrough of `tcp_fastretrans_alert` from Loss after a lost
    /// retransmission: as from Open, Recovery starts (`tcp_enter_recovery`
    /// outside a cwnd reduction takes a fresh ssthresh).
    fn recover_from_loss(&mut self, now: Instant, advanced: bool, delivered: u32, ece: bool) {
        self.identify_loss(now, advanced);
        if self.time_to_recover() {
            self.enter_recovery(delivered, ece);
        }
    }

    fn enter_recovery(&mut self, delivered: u32, ece: bool) {
        self.enter_recovery_with(delivered, true, ece);
    }

    /// `tcp_enter_recovery` (+ the first retransmission's setup). With
    /// `mark_head`, the head is marked lost as on the third dupack; RACK's
    /// reordering timer has marked what is lost already and passes false.
    /// From CWR the reduction already made stands (no second ssthresh, PRR
    /// carries on); after an ECE nothing may be undone (`prior_ssthresh`
    /// stays 0).
    pub(super) fn enter_recovery_with(&mut self, delivered: u32, mark_head: bool, ece: bool) {
        let head = self.seq_of(self.snd_una);
        self.recover = self.snd_max;
        self.stats.fast_retransmits += 1;
        self.events.push_back(Event::FastRetransmit { seq: head });
        if self.mode() == Mode::Tahoe {
            // Tahoe: no fast recovery — treat like a timeout without the timer.
            self.tp.prior_ssthresh = self.current_ssthresh();
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            self.tp.snd_ssthresh = self.cc.ssthresh(&mut self.tp);
            self.mark_all_lost();
            self.init_undo();
            self.frto = false;
            self.tp.snd_cwnd = self.tp.packets_in_flight() + 1;
            self.tp.snd_cwnd_cnt = 0;
            self.set_ca_state(CaState::Loss);
            self.high_seq = self.snd_nxt;
            return;
        }
        // tcp_enter_recovery (tcp_init_undo) / tcp_init_cwnd_reduction.
        self.init_undo();
        // tcp_in_cwnd_reduction: only CWR and Recovery keep the reduction
        // already made; from Open, Disorder or Loss a fresh ssthresh.
        if !matches!(self.tp.ca_state, CaState::Cwr | CaState::Recovery) {
            self.tp.prior_ssthresh = if ece { 0 } else { self.current_ssthresh() };
            self.high_seq = self.snd_nxt;
            self.tp.snd_cwnd_cnt = 0;
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            self.prr_delivered = 0;
            self.prr_out = 0;
            self.tp.snd_ssthresh = self.recovery_ssthresh();
            self.ecn_queue_cwr();
        } else {
            self.tp.prior_ssthresh = 0;
        }
        self.first_partial_ack = true;
        self.set_ca_state(CaState::Recovery);
        self.tlp_high_seq = None; // tcp_init_cwnd_reduction
        if self.mode() == Mode::Ns3Prr {
            self.mark_head_lost_ns3();
        } else if mark_head {
            self.mark_head_lost();
        }
        match self.mode() {
            Mode::Classic => {
                // RFC 5681 §3.2 step 2-3: cwnd = ssthresh + 3·SMSS, retransmit.
                self.tp.snd_cwnd = self.tp.snd_ssthresh + self.cfg.dupack_threshold;
                self.force_retx = true;
            }
            Mode::Sack6675 => {
                // RFC 6675 §5 step 4.2-4.3.
                self.tp.snd_cwnd = self.tp.snd_ssthresh;
                self.force_retx = true;
            }
            Mode::Ns3Prr => {
                // ns-3 EnterRecovery sends the head itself (RFC 6675 step 4.3).
                self.ns3_prr_enter(delivered);
                self.force_retx = true;
            }
            _ => {}
        }
    }

    /// The `ssthresh` hook on the third duplicate ACK. RFC 5681 eq. 4 takes
    /// FlightSize as the dupack arrives, when the head still counts as
    /// outstanding; `identify_loss` has just marked it lost, so it is
    /// counted back for the call (ns-3: `BytesInFlight () + SMSS`). Modules
    /// that use cwnd (all Linux ones) do not notice.
    fn recovery_ssthresh(&mut self) -> u32 {
        let head_lost = self.rtx.front().is_some_and(|h| h.has(LOST) && !h.has(RETRANS));
        self.tp.lost_out -= head_lost as u32;
        let ssthresh = self.cc.ssthresh(&mut self.tp);
        self.tp.lost_out += head_lost as u32;
        ssthresh
    }

    /// Leaves Recovery/CWR: `tcp_end_cwnd_reduction` + CA_EVENT_COMPLETE_CWR.
    /// A reduction just undone keeps its restored cwnd (the kernel's
    /// `undo_marker` test).
    fn end_recovery(&mut self) {
        // CWR never set an undo marker, yet must end at ssthresh.
        let undone = self.tp.ca_state != CaState::Cwr && self.undo_on() && self.undo_marker.is_none();
        self.set_ca_state(CaState::Open);
        self.force_retx = false;
        if !self.cc.has_cong_control() && self.tp.snd_ssthresh < crate::cc::TCP_INFINITE_SSTHRESH && !undone {
            self.tp.snd_cwnd = if self.mode() == Mode::Classic && self.cfg.recovery == Recovery::NewReno {
                // RFC 6582 §3.2 step 6, option (1): min(ssthresh, FlightSize + SMSS).
                self.tp.snd_ssthresh.min(self.tp.packets_out + 1)
            } else {
                self.tp.snd_ssthresh
            };
        }
        self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
    }

    pub(super) fn mark_all_lost(&mut self) {
        for i in 0..self.rtx.len() {
            if self.rtx[i].has(SACKED) {
                continue;
            }
            if self.rtx[i].has(RETRANS) {
                self.rtx[i].flags &= !RETRANS;
                self.tp.retrans_out -= 1;
            }
            self.mark_lost(i);
        }
        if !self.sack_ok {
            self.reset_reno_sack();
        }
    }

    /// Linux `tcp_enter_loss` (RTO).
    pub(super) fn enter_loss(&mut self) {
        let st = self.tp.ca_state;
        let reduce = match self.cfg.rto_ssthresh {
            // Linux tcp_enter_loss: once per window of data.
            RtoSsthresh::OncePerWindow => {
                st <= CaState::Disorder || self.high_seq <= self.snd_una || (st == CaState::Loss && self.retries == 0)
            }
            // ns-3 ReTxTimeout: every time (see RtoSsthresh::Always).
            RtoSsthresh::Always => true,
        };
        // F-RTO (RFC 5682 §3.1 step 1, §3.2): a new loss episode, or a
        // repeated timeout of the same SND.UNA.
        let new_recovery = st < CaState::Recovery;
        self.recover = self.snd_max;
        if reduce {
            self.tp.prior_ssthresh = self.current_ssthresh();
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            self.tp.snd_ssthresh = self.cc.ssthresh(&mut self.tp);
            self.cc.cwnd_event(&mut self.tp, CaEvent::Loss);
        }
        self.mark_all_lost();
        if reduce {
            self.init_undo();
        }
        self.frto = self.cfg.frto && (new_recovery || self.retries > 0);
        self.frto_new_data = false;
        self.tp.snd_cwnd = self.tp.packets_in_flight() + 1;
        self.tp.snd_cwnd_cnt = 0;
        self.set_ca_state(CaState::Loss);
        self.high_seq = self.snd_nxt;
        self.ecn_queue_cwr();
        self.force_retx = false;
    }

    /// `tcp_cwnd_reduction`: PRR (RFC 6937) with SSRB, in packets.
    pub(super) fn cwnd_reduction(&mut self, newly_acked_sacked: u32, newly_lost: u32, flag: u32) {
        if newly_acked_sacked == 0 || self.tp.prior_cwnd == 0 {
            return;
        }
        let in_flight = self.tp.packets_in_flight() as i64;
        let ssthresh = self.tp.snd_ssthresh as i64;
        let delta = ssthresh - in_flight;
        self.prr_delivered += newly_acked_sacked;
        let mut sndcnt = if delta < 0 {
            let dividend = ssthresh as u64 * self.prr_delivered as u64 + self.tp.prior_cwnd as u64 - 1;
            (dividend / self.tp.prior_cwnd as u64) as i64 - self.prr_out as i64
        } else {
            let mut s = (self.prr_delivered as i64 - self.prr_out as i64).max(newly_acked_sacked as i64);
            if flag & FLAG_SND_UNA_ADVANCED != 0 && newly_lost == 0 {
                s += 1;
            }
            delta.min(s)
        };
        // Force a fast retransmit upon entering fast recovery.
        sndcnt = sndcnt.max(if self.prr_out > 0 { 0 } else { 1 });
        self.tp.snd_cwnd = (in_flight + sndcnt).max(1) as u32;
    }
}
