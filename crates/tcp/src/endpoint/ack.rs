//! ACK processing, loss recovery and the congestion-control hooks, in the
//! order of Linux `tcp_ack()` (net/ipv4/tcp_input.c):
//!
//! 1. window update (`tcp_ack_update_window`), SACK tagging (`tcp_sacktag_write_queue`);
//! 2. `in_ack_event(flags)`;
//! 3. `tcp_clean_rtx_queue`: drop acked segments, RTT sample (RFC 6298, Karn,
//!    timestamps), rate-sample bookkeeping (tcp_rate.c), `pkts_acked`;
//! 4. `tcp_fastretrans_alert` when the ACK is dubious: dupack counting
//!    (`tcp_add_reno_sack` without SACK), loss marking, recovery entry and exit
//!    (`ssthresh`, `set_state`, `cwnd_event(CompleteCwr)`);
//! 5. RTO re-arm (RFC 6298 §5.2/5.3), `tcp_rate_gen`;
//! 6. `tcp_cong_control`: `cong_control` (BBR) or PRR `tcp_cwnd_reduction`
//!    in Recovery/CWR, else `cong_avoid` when the ACK acked data.
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

use airtcp_core::{Duration, Instant, Segment};

use super::scoreboard::{TxSeg, EVER_RETRANS, LOST, RETRANS, SACKED};
use super::{Endpoint, State, TimerKind};
use crate::cc::{AckSample, CaEvent, CaState, CongestionOps, RateSample, CA_ACK_SLOWPATH, CA_ACK_WIN_UPDATE};
use crate::config::{LossExitGrowth, PartialAckRto, Recovery, RenoSacks, RtoSsthresh, ShrinkPolicy};
use crate::event::Event;

// `flag` bits handed to `cong_control`, values as in net/ipv4/tcp_input.c.
pub const FLAG_DATA: u32 = 0x01;
pub const FLAG_WIN_UPDATE: u32 = 0x02;
pub const FLAG_DATA_ACKED: u32 = 0x04;
pub const FLAG_RETRANS_DATA_ACKED: u32 = 0x08;
pub const FLAG_SYN_ACKED: u32 = 0x10;
pub const FLAG_DATA_SACKED: u32 = 0x20;
pub const FLAG_SND_UNA_ADVANCED: u32 = 0x400;
const FLAG_ACKED: u32 = FLAG_DATA_ACKED | FLAG_SYN_ACKED;
const FLAG_NOT_DUP: u32 = FLAG_DATA | FLAG_WIN_UPDATE | FLAG_ACKED;

/// Backoff shift cap; 2^31 × any RTO is far beyond max_rto already.
const MAX_BACKOFF: u32 = 31;

/// Per-ACK accumulation of `struct rate_sample` (tcp_rate.c).
#[derive(Default)]
pub(super) struct RateAcc {
    rs: RateSample,
    have_prior: bool,
    last_end: u64,
}

/// The three recovery flavours the endpoint implements.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Prr,
    /// ns-3 3.44's PRR (see `ns3_prr.rs`).
    Ns3Prr,
    /// RFC 5681/6582 with window inflation (SACK off).
    Classic,
    /// RFC 6675 (SACK on, Reno/NewReno).
    Sack6675,
    Tahoe,
}

impl Endpoint {
    fn mode(&self) -> Mode {
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

    pub(super) fn process_ack(&mut self, now: Instant, seg: &Segment) {
        let ack = self.snd_off(seg.ack);
        if ack > self.snd_max as i64 {
            // RFC 9293 §3.10.7.4: ACK for data not yet sent — ACK and drop.
            self.ack_now = true;
            return;
        }
        if ack < self.snd_una as i64 {
            return; // old duplicate ACK
        }
        let ack = ack as u64;
        let prior_snd_una = self.snd_una;
        let prior_in_flight = self.tp.packets_in_flight();
        let prior_packets = self.tp.packets_out;
        let prior_delivered = self.tp.delivered;
        let prior_lost = self.lost_marks;
        let mut flag = 0u32;
        if seg.payload_len > 0 {
            flag |= FLAG_DATA;
        }
        if ack > self.snd_una {
            flag |= FLAG_SND_UNA_ADVANCED;
            self.retries = 0;
        }
        // tcp_ack_update_window / tcp_may_update_window.
        let nwin = (seg.window as u32) << self.snd_wscale;
        let seq_off = self.rcv_off(seg.seq).max(0) as u64;
        let old_wnd = self.snd_wnd;
        if ack > self.snd_una || seq_off > self.snd_wl1 || (seq_off == self.snd_wl1 && nwin > self.snd_wnd) {
            // Linux flags every accepted update; we flag only a changed
            // window, so that a dupack is what RFC 5681 §2 calls one (same
            // window) even when SND.WL1 moves.
            if nwin != self.snd_wnd {
                flag |= FLAG_WIN_UPDATE;
            }
            self.snd_wl1 = seq_off;
            self.snd_wnd = nwin;
            self.max_snd_wnd = self.max_snd_wnd.max(nwin);
        }
        let mut ra = RateAcc::default();
        let mut newly_sacked = 0;
        if self.sack_ok && seg.sack_len > 0 {
            newly_sacked = self.sacktag(now, seg, &mut ra);
            if newly_sacked > 0 {
                flag |= FLAG_DATA_SACKED;
            }
        }
        let fast_path = flag & FLAG_SND_UNA_ADVANCED != 0 && nwin == old_wnd && seg.sack_len == 0 && seg.payload_len == 0;
        let ev = if fast_path {
            CA_ACK_WIN_UPDATE
        } else if flag & FLAG_WIN_UPDATE != 0 {
            CA_ACK_SLOWPATH | CA_ACK_WIN_UPDATE
        } else {
            CA_ACK_SLOWPATH
        };
        // Linux updates snd_una (tcp_snd_una_update, in both the fast path
        // and tcp_ack_update_window) before tcp_in_ack_event: Westwood+
        // measures the bytes this ACK covers as tp->snd_una - w->snd_una.
        self.tp.snd_una = self.seq_of(ack).0;
        self.cc.in_ack_event(&mut self.tp, ev);

        if prior_packets == 0 {
            // Nothing outstanding (tcp_ack `no_queue`): only the window matters.
            self.snd_una = ack;
            self.sync_seq();
            self.after_ack_window(flag);
            return;
        }

        // ---- tcp_clean_rtx_queue ----
        let mut pkts_acked = 0u32;
        let mut retrans_acked = false;
        let mut first_ackt: Option<Instant> = None;
        let mut last_ackt: Option<Instant> = None;
        while let Some(front) = self.rtx.front().copied() {
            if front.end() > ack {
                if front.start < ack {
                    // Partial ACK of one segment (tcp_trim_head).
                    let f = self.rtx.front_mut().unwrap();
                    let cut = (ack - f.start).min(f.len as u64) as u32;
                    f.len -= cut;
                    f.start += cut as u64;
                }
                break;
            }
            self.rtx.pop_front();
            let s = front;
            if s.has(SACKED) {
                self.tp.sacked_out -= 1;
            } else {
                if self.sack_ok {
                    self.tp.delivered += 1;
                }
                self.rate_skb_delivered(&s, &mut ra);
                self.rack_advance(now, &s, seg);
            }
            if s.has(LOST) {
                self.tp.lost_out -= 1;
            }
            if s.has(RETRANS) {
                self.tp.retrans_out -= 1;
                retrans_acked = true;
            }
            if s.has(EVER_RETRANS) {
                flag |= FLAG_RETRANS_DATA_ACKED;
            } else if !s.has(SACKED) {
                last_ackt = Some(s.tx_time);
                first_ackt.get_or_insert(s.tx_time);
            }
            self.tp.packets_out -= 1;
            pkts_acked += 1;
            flag |= FLAG_DATA_ACKED;
        }
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.sync_seq();
        self.stats.bytes_acked = self.bytes_acked();

        // RTT: timestamps when negotiated (as ns-3), else per-segment send
        // times with Karn's rule (no sample if a retransmitted segment is acked).
        let mut ca_rtt: Option<Duration> = None;
        if flag & FLAG_ACKED != 0 {
            let seq_rtt = if flag & FLAG_RETRANS_DATA_ACKED == 0 { first_ackt.map(|t| now.saturating_since(t)) } else { None };
            ca_rtt = if flag & FLAG_RETRANS_DATA_ACKED == 0 { last_ackt.map(|t| now.saturating_since(t)) } else { None };
            let ts_rtt = match (self.ts_ok, seg.timestamps) {
                (true, Some((_, ecr))) => self.ts_rtt(now, ecr),
                _ => None,
            };
            let est = if self.ts_ok { ts_rtt.or(seq_rtt) } else { seq_rtt };
            ca_rtt = ca_rtt.or(ts_rtt);
            if let Some(r) = est {
                self.rtt_sample(r, ca_rtt.unwrap_or(r));
                // RFC 6298 §5.7 / Linux: the backoff ends with a valid sample.
                self.rtt.backoff = 0;
            }
        }
        let rtt_us = ca_rtt.map(|d| d.as_micros().min(i32::MAX as u64) as i32).unwrap_or(-1);
        ra.rs.rtt_us = rtt_us as i64;

        if !self.sack_ok && flag & FLAG_DATA_ACKED != 0 {
            self.remove_reno_sacks(pkts_acked);
            if self.cfg.reno_sacks == RenoSacks::Persist && self.tp.sacked_out > 0 {
                // ns-3 TcpTxBuffer::DiscardUpTo: a dupack's SACK flag may
                // not sit on the head, so it moves on and the head is lost.
                self.mark_head_lost_ns3();
            }
        }
        if pkts_acked > 0 || newly_sacked > 0 {
            let sample = AckSample { pkts_acked, rtt_us, in_flight: prior_in_flight };
            self.cc.pkts_acked(&mut self.tp, &sample);
        }

        // ---- tcp_fastretrans_alert ----
        let num_dupack = (flag & FLAG_NOT_DUP == 0) as u32;
        self.stats.dup_acks_received += num_dupack as u64;
        let dubious = num_dupack > 0 || flag & FLAG_DATA_SACKED != 0 || self.tp.ca_state != CaState::Open;
        if dubious {
            let delivered = pkts_acked + newly_sacked;
            self.fastretrans_alert(now, num_dupack, pkts_acked, flag, prior_snd_una, delivered, retrans_acked);
        }

        // RFC 6298 §5.2/§5.3: stop when all is acked, restart on new data acked
        // (RFC 6582 §3.2 step 5: in recovery, only on the first partial ACK).
        let partial = self.tp.ca_state == CaState::Recovery && flag & FLAG_SND_UNA_ADVANCED != 0;
        let mut restart = true;
        if partial && self.cfg.partial_ack_rto == PartialAckRto::FirstOnly {
            restart = self.first_partial_ack;
            self.first_partial_ack = false;
        }
        if flag & FLAG_ACKED != 0 && restart {
            if self.tp.packets_out == 0 {
                self.timers.stop(TimerKind::Rto);
            } else {
                self.timers.set(TimerKind::Rto, now + self.rtt.rto());
            }
        }

        let delivered = self.tp.delivered.wrapping_sub(prior_delivered);
        let lost = self.lost_marks.wrapping_sub(prior_lost);
        let rs = self.rate_gen(delivered, lost, prior_in_flight, ra);
        self.after_ack_window(flag);
        self.cong_control(ack, delivered, lost, flag, &rs);
    }

    /// RFC 2018 / RFC 6675 scoreboard update from the SACK blocks; returns
    /// the number of newly SACKed segments.
    fn sacktag(&mut self, now: Instant, seg: &Segment, ra: &mut RateAcc) -> u32 {
        let mut newly = 0;
        for &(l, r) in seg.sacks() {
            let (l, r) = (self.snd_off(l), self.snd_off(r));
            if r <= l || r <= self.snd_una as i64 || r > self.snd_max as i64 {
                continue; // D-SACK or bogus block
            }
            let (l, r) = (l.max(self.snd_una as i64) as u64, r as u64);
            let first = self.rtx.partition_point(|s| s.start < l);
            for i in first..self.rtx.len() {
                let s = self.rtx[i];
                if s.end() > r {
                    break;
                }
                if s.has(SACKED) {
                    continue;
                }
                let mut f = s.flags | SACKED;
                if s.has(LOST) {
                    self.tp.lost_out -= 1;
                    f &= !LOST;
                }
                if s.has(RETRANS) {
                    self.tp.retrans_out -= 1;
                    f &= !RETRANS;
                }
                self.rtx[i].flags = f;
                self.tp.sacked_out += 1;
                self.tp.delivered += 1;
                self.rate_skb_delivered(&s, ra);
                self.rack_advance(now, &s, seg);
                newly += 1;
            }
        }
        newly
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

    fn remove_reno_sacks(&mut self, acked: u32) {
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
    fn mark_head_lost_ns3(&mut self) {
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
            self.rack_detect_loss(now);
        } else if (self.tp.ca_state < CaState::Recovery && self.tp.sacked_out >= self.cfg.dupack_threshold)
            || (self.tp.ca_state == CaState::Recovery && advanced)
        {
            self.mark_head_lost();
        }
    }

    /// `tcp_time_to_recover` (non-RACK): lost data, or DupThresh dupacks/SACKs.
    fn time_to_recover(&self) -> bool {
        self.tp.lost_out > 0 || self.tp.sacked_out + 1 > self.cfg.dupack_threshold
    }

    fn try_to_open(&mut self) {
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
    fn fastretrans_alert(
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
        // D. Exit conditions: the recovery point is acknowledged.
        if matches!(self.tp.ca_state, CaState::Recovery | CaState::Loss | CaState::Cwr) && self.snd_una >= self.high_seq {
            match self.tp.ca_state {
                CaState::Recovery | CaState::Cwr => {
                    if !self.sack_ok && self.cfg.reno_sacks == RenoSacks::ResetOnAdvance {
                        self.reset_reno_sack();
                    }
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
                        self.try_to_open();
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
                if mode != Mode::Classic {
                    self.identify_loss(now, advanced);
                }
            }
            CaState::Loss => {
                // ns-3 DupAck ignores duplicate ACKs in Loss altogether.
                if !self.sack_ok && self.cfg.reno_sacks == RenoSacks::ResetOnAdvance {
                    if self.snd_nxt > self.high_seq && num_dupack > 0 {
                        self.add_reno_sack(num_dupack);
                    } else if advanced {
                        self.reset_reno_sack();
                    }
                }
            }
            _ => {
                let persist = self.cfg.reno_sacks == RenoSacks::Persist;
                if !self.sack_ok {
                    if advanced && !persist {
                        self.reset_reno_sack();
                    }
                    self.add_reno_sack(num_dupack);
                }
                if persist && !self.sack_ok && num_dupack == 0 {
                    // ns-3 looks for loss only in DupAck.
                    self.try_to_open();
                    return;
                }
                self.identify_loss(now, advanced);
                if !self.time_to_recover() {
                    self.try_to_open();
                    return;
                }
                self.enter_recovery(delivered);
            }
        }
    }

    fn enter_recovery(&mut self, delivered: u32) {
        let head = self.seq_of(self.snd_una);
        self.stats.fast_retransmits += 1;
        self.events.push_back(Event::FastRetransmit { seq: head });
        if self.mode() == Mode::Tahoe {
            // Tahoe: no fast recovery — treat like a timeout without the timer.
            self.tp.prior_ssthresh = self.tp.snd_ssthresh;
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            self.tp.snd_ssthresh = self.cc.ssthresh(&mut self.tp);
            self.mark_all_lost();
            self.tp.snd_cwnd = self.tp.packets_in_flight() + 1;
            self.tp.snd_cwnd_cnt = 0;
            self.set_ca_state(CaState::Loss);
            self.high_seq = self.snd_nxt;
            return;
        }
        // tcp_enter_recovery / tcp_init_cwnd_reduction.
        self.tp.prior_ssthresh = self.tp.snd_ssthresh;
        self.high_seq = self.snd_nxt;
        self.tp.snd_cwnd_cnt = 0;
        self.tp.prior_cwnd = self.tp.snd_cwnd;
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.tp.snd_ssthresh = self.recovery_ssthresh();
        self.first_partial_ack = true;
        self.set_ca_state(CaState::Recovery);
        if self.mode() == Mode::Ns3Prr {
            self.mark_head_lost_ns3();
        } else {
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
    fn end_recovery(&mut self) {
        self.set_ca_state(CaState::Open);
        self.force_retx = false;
        if !self.cc.has_cong_control() && self.tp.snd_ssthresh < crate::cc::TCP_INFINITE_SSTHRESH {
            self.tp.snd_cwnd = if self.mode() == Mode::Classic && self.cfg.recovery == Recovery::NewReno {
                // RFC 6582 §3.2 step 6, option (1): min(ssthresh, FlightSize + SMSS).
                self.tp.snd_ssthresh.min(self.tp.packets_out + 1)
            } else {
                self.tp.snd_ssthresh
            };
        }
        self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
    }

    fn mark_all_lost(&mut self) {
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
    fn enter_loss(&mut self) {
        let st = self.tp.ca_state;
        let reduce = match self.cfg.rto_ssthresh {
            // Linux tcp_enter_loss: once per window of data.
            RtoSsthresh::OncePerWindow => {
                st <= CaState::Disorder || self.high_seq <= self.snd_una || (st == CaState::Loss && self.retries == 0)
            }
            // ns-3 ReTxTimeout: every time (see RtoSsthresh::Always).
            RtoSsthresh::Always => true,
        };
        if reduce {
            self.tp.prior_ssthresh = self.tp.snd_ssthresh;
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            self.tp.snd_ssthresh = self.cc.ssthresh(&mut self.tp);
            self.cc.cwnd_event(&mut self.tp, CaEvent::Loss);
        }
        self.mark_all_lost();
        self.tp.snd_cwnd = self.tp.packets_in_flight() + 1;
        self.tp.snd_cwnd_cnt = 0;
        self.set_ca_state(CaState::Loss);
        self.high_seq = self.snd_nxt;
        self.force_retx = false;
    }

    /// `tcp_cong_control`.
    fn cong_control(&mut self, ack: u64, delivered: u32, lost: u32, flag: u32, rs: &RateSample) {
        let ack32 = self.seq_of(ack).0;
        if self.cc.has_cong_control() {
            self.cc.cong_control(&mut self.tp, ack32, flag, rs);
            return;
        }
        if matches!(self.tp.ca_state, CaState::Recovery | CaState::Cwr) {
            if self.mode() == Mode::Prr {
                self.cwnd_reduction(delivered, lost, flag);
            }
        } else if flag & FLAG_DATA_ACKED != 0 && !self.shrunk_ack {
            let acked = self.acked_for_growth.take().unwrap_or(delivered);
            self.cc.cong_avoid(&mut self.tp, ack32, acked);
        }
        self.acked_for_growth = None;
    }

    /// `tcp_cwnd_reduction`: PRR (RFC 6937) with SSRB, in packets.
    fn cwnd_reduction(&mut self, newly_acked_sacked: u32, newly_lost: u32, flag: u32) {
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

    // ---- RTT ----

    /// RTT from an echoed timestamp (RFC 7323 §4.1), in TS clock ticks.
    /// TSecr 0 is "no echo" and a zero delta counts as one tick (Linux
    /// tcp_rtt_tsopt_us).
    pub(super) fn ts_rtt(&self, now: Instant, ecr: u32) -> Option<Duration> {
        if ecr == 0 {
            return None;
        }
        let delta = self.ts_now(now).wrapping_sub(ecr) as i32;
        if delta < 0 {
            return None;
        }
        Some(self.cfg.ts_granularity.saturating_mul(delta.max(1) as u64))
    }

    pub(super) fn rtt_sample(&mut self, est: Duration, ca: Duration) {
        self.rtt.sample(est, self.snd_una, self.snd_nxt);
        self.tp.srtt_us = (self.rtt.srtt().as_micros() << 3).min(u32::MAX as u64) as u32;
        let ca_us = ca.as_micros().min(u32::MAX as u64) as u32;
        self.tp.min_rtt_us = self.tp.min_rtt_us.min(ca_us.max(1));
        let us = est.as_micros();
        self.stats.rtt_samples += 1;
        self.stats.rtt_sum_us += us;
        self.stats.rtt_min_us = if self.stats.rtt_samples == 1 { us } else { self.stats.rtt_min_us.min(us) };
    }

    // ---- delivery rate (net/ipv4/tcp_rate.c) ----

    /// `tcp_rate_skb_sent`.
    pub(super) fn rate_skb_sent(&mut self, s: &mut TxSeg) {
        if self.tp.packets_out == 0 {
            self.first_tx_mstamp = self.tp.tcp_mstamp;
            self.tp.delivered_mstamp = self.tp.tcp_mstamp;
        }
        s.tx_first_tx_mstamp = self.first_tx_mstamp;
        s.tx_delivered_mstamp = self.tp.delivered_mstamp;
        s.tx_delivered = self.tp.delivered;
        s.tx_app_limited = self.tp.app_limited != 0;
    }

    /// `tcp_rate_skb_delivered`.
    fn rate_skb_delivered(&mut self, s: &TxSeg, ra: &mut RateAcc) {
        let tx = s.tx_time.as_micros();
        if !ra.have_prior || tx > self.first_tx_mstamp || (tx == self.first_tx_mstamp && s.end() > ra.last_end) {
            ra.have_prior = true;
            ra.rs.prior_delivered = s.tx_delivered;
            ra.rs.prior_mstamp = s.tx_delivered_mstamp;
            ra.rs.is_app_limited = s.tx_app_limited;
            ra.rs.is_retrans = s.has(EVER_RETRANS);
            ra.last_end = s.end();
            self.first_tx_mstamp = tx;
            ra.rs.interval_us = tx as i64 - s.tx_first_tx_mstamp as i64;
        }
    }

    /// `tcp_rate_gen`.
    fn rate_gen(&mut self, delivered: u32, lost: u32, prior_in_flight: u32, ra: RateAcc) -> RateSample {
        let tp = &mut self.tp;
        if tp.app_limited != 0 && (tp.delivered.wrapping_sub(tp.app_limited) as i32) > 0 {
            tp.app_limited = 0;
        }
        if delivered > 0 {
            tp.delivered_mstamp = tp.tcp_mstamp;
        }
        let mut rs = ra.rs;
        rs.acked_sacked = delivered;
        rs.losses = lost as i32;
        rs.prior_in_flight = prior_in_flight;
        if !ra.have_prior {
            rs.delivered = -1;
            rs.interval_us = -1;
            return rs;
        }
        rs.delivered = tp.delivered.wrapping_sub(rs.prior_delivered) as i32;
        let snd_us = rs.interval_us;
        let ack_us = tp.tcp_mstamp as i64 - rs.prior_mstamp as i64;
        rs.interval_us = snd_us.max(ack_us);
        rs.snd_interval_us = snd_us.max(0) as u32;
        rs.rcv_interval_us = ack_us.max(0) as u32;
        if rs.interval_us < tp.min_rtt_us as i64 {
            rs.interval_us = -1;
        }
        rs
    }

    // ---- window, shrink, persist ----

    /// Zero-window / shrink bookkeeping after an ACK (seed 000 §2.2).
    ///
    /// With `ShrinkPolicy::Linux`, an ACK that advances SND.UNA but leaves the
    /// usable window SND.UNA + SND.WND - SND.NXT negative (or the window zero)
    /// does not grow cwnd. Linux would call `cong_avoid`, but its
    /// `tcp_is_cwnd_limited` check fails for a sender that is limited by the
    /// receiver's window, which is why seed 000 observed no growth; the model
    /// states that observation directly.
    fn after_ack_window(&mut self, flag: u32) {
        let usable = self.snd_una as i64 + self.snd_wnd as i64 - self.snd_nxt as i64;
        self.shrunk_ack = false;
        if self.snd_wnd == 0 && !self.peer_zero_window {
            self.peer_zero_window = true;
            self.events.push_back(Event::ZeroWindow);
        } else if self.snd_wnd > 0 && self.peer_zero_window {
            self.peer_zero_window = false;
            self.persist_backoff = 0;
            self.events.push_back(Event::WindowOpened);
        }
        if flag & FLAG_SND_UNA_ADVANCED != 0 {
            if usable < 0 {
                self.events.push_back(Event::WindowShrunk { usable });
            }
            if self.cfg.shrink_policy == ShrinkPolicy::Linux && (usable < 0 || self.snd_wnd == 0) {
                self.shrunk_ack = true;
            }
        }
    }

    /// Whether the next new segment fits the peer's window (FIN alone always does).
    pub(super) fn new_data_fits_window(&self) -> bool {
        let avail = self.data_end().saturating_sub(self.snd_nxt);
        if avail == 0 {
            return true;
        }
        let len = avail.min(self.send_mss as u64) as i64;
        let usable = self.snd_una as i64 + self.snd_wnd as i64 - self.snd_nxt as i64;
        len <= usable
    }

    fn persist_interval(&self) -> Duration {
        // Linux tcp_probe0_base / tcp_probe0_when: max(RTO, TCP_RTO_MIN) << backoff, capped.
        let base = self.rtt.base_rto().max(self.cfg.persist_min);
        let shifted = if self.persist_backoff >= 63 { u64::MAX } else { base.0.saturating_mul(1u64 << self.persist_backoff) };
        Duration(shifted.min(self.cfg.persist_max.0))
    }

    /// Arms or disarms the persist timer (Linux `tcp_check_probe_timer`):
    /// nothing in flight, data waiting, and the window does not admit it.
    /// With `ShrinkPolicy::Rfc` a zero window also starts persist while data
    /// is outstanding, freezing the retransmission timer.
    pub(super) fn update_persist(&mut self, now: Instant) {
        if !matches!(self.state, State::Established | State::CloseWait | State::FinWait1 | State::Closing | State::LastAck) {
            self.timers.stop(TimerKind::Persist);
            return;
        }
        let linux_cond = self.tp.packets_out == 0 && self.has_unsent() && !self.new_data_fits_window();
        let rfc_cond = self.cfg.shrink_policy == ShrinkPolicy::Rfc
            && self.snd_wnd == 0
            && (self.tp.packets_out > 0 || self.has_unsent());
        if linux_cond || rfc_cond {
            if !self.timers.armed(TimerKind::Persist) {
                self.timers.set(TimerKind::Persist, now + self.persist_interval());
            }
            if rfc_cond && self.tp.packets_out > 0 {
                self.timers.stop(TimerKind::Rto);
            }
        } else if self.timers.armed(TimerKind::Persist) {
            self.timers.stop(TimerKind::Persist);
            self.persist_backoff = 0;
            if self.tp.packets_out > 0 && !self.timers.armed(TimerKind::Rto) {
                self.timers.set(TimerKind::Rto, now + self.rtt.rto());
            }
        }
    }

    // ---- timers ----

    pub fn handle_timeout(&mut self, now: Instant) {
        self.set_clock(now);
        if self.timers.expired(TimerKind::TimeWait, now) {
            self.timers.stop(TimerKind::TimeWait);
            self.enter_closed(false);
            return;
        }
        if self.timers.expired(TimerKind::Rto, now) {
            self.timers.stop(TimerKind::Rto);
            self.on_rto(now);
        }
        if self.timers.expired(TimerKind::DelayedAck, now) {
            self.timers.stop(TimerKind::DelayedAck);
            self.ack_now = true;
        }
        if self.timers.expired(TimerKind::Persist, now) {
            self.timers.stop(TimerKind::Persist);
            self.on_persist(now);
        }
        if self.timers.expired(TimerKind::Pacing, now) {
            self.timers.stop(TimerKind::Pacing);
        }
    }

    /// The retransmission timeout in force: for SYN / SYN-ACK
    /// `TcpConfig::syn_rto` (ns-3 ConnTimeout) with the same doubling,
    /// otherwise the RFC 6298 RTO.
    pub(super) fn rto_now(&self) -> Duration {
        match (self.state, self.cfg.syn_rto) {
            (State::SynSent | State::SynReceived, Some(base)) => {
                let b = self.rtt.backoff.min(62);
                Duration(base.0.saturating_mul(1u64 << b).min(self.cfg.max_rto.0))
            }
            _ => self.rtt.rto(),
        }
    }

    fn on_rto(&mut self, now: Instant) {
        let fired = self.rto_now();
        match self.state {
            State::SynSent | State::SynReceived => {
                if self.retries >= self.cfg.syn_retries {
                    self.abort();
                    return;
                }
                self.syn_retransmitted = true;
                self.send_syn = true;
            }
            State::Closed | State::Listen | State::TimeWait => return,
            _ => {
                if self.tp.packets_out == 0 {
                    return;
                }
                // Linux tcp_retransmit_timer: a zero window is a dastardly
                // receiver, not a dead one — retransmit but do not count
                // toward abort.
                if self.retries >= self.cfg.max_retries && self.snd_wnd > 0 {
                    self.abort();
                    return;
                }
                self.enter_loss();
            }
        }
        if self.snd_wnd > 0 || matches!(self.state, State::SynSent | State::SynReceived) {
            self.retries += 1;
        }
        self.rtt.backoff = (self.rtt.backoff + 1).min(MAX_BACKOFF);
        self.stats.timeouts += 1;
        self.events.push_back(Event::Timeout { rto: fired, backoff: self.rtt.backoff });
        self.timers.set(TimerKind::Rto, now + self.rto_now());
    }

    fn on_persist(&mut self, now: Instant) {
        let still_needed = match self.cfg.shrink_policy {
            ShrinkPolicy::Linux => self.tp.packets_out == 0 && self.has_unsent(),
            ShrinkPolicy::Rfc => self.snd_wnd == 0 || (self.tp.packets_out == 0 && self.has_unsent()),
        };
        if !still_needed {
            self.persist_backoff = 0;
            return;
        }
        self.probe_pending = true;
        self.stats.window_probes += 1;
        self.events.push_back(Event::WindowProbe);
        self.persist_backoff = (self.persist_backoff + 1).min(MAX_BACKOFF);
        self.timers.set(TimerKind::Persist, now + self.persist_interval());
    }
}
