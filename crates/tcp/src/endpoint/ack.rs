//! The ACK path, in the order of Linux `tcp_ack()` (net/ipv4/tcp_input.c):
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
//! This file owns that order and the bookkeeping of the ACK itself: the
//! `FLAG_*` bits (defined in `flags.rs`), the peer's window (and the zero-window / shrink events that
//! follow it), the SACK scoreboard, the retransmission queue and the RTT
//! samples. The steps with a state of their own live elsewhere: step 4 and
//! PRR in `recovery.rs`, the rate sample in `rate.rs`, the RTO re-arm in
//! `timeout.rs`.

use airtcp_core::{Duration, Instant, Segment};

use super::rate::RateAcc;
use super::flags::*;
use super::scoreboard::{EVER_RETRANS, LOST, RETRANS, SACKED};
use super::Endpoint;
use crate::cc::{AckSample, CaState, CongestionOps, RateSample, CA_ACK_ECE, CA_ACK_SLOWPATH, CA_ACK_WIN_UPDATE};
use crate::config::{RenoSacks, RttSamples, ShrinkPolicy};
use crate::event::Event;

/// What `sacktag` found in an ACK's SACK blocks.
struct SackTag {
    /// Segments newly SACKed.
    newly: u32,
    /// One of them was never retransmitted and lies at or below the
    /// recovery point (`FLAG_ORIG_SACK_ACKED`).
    orig: bool,
    /// Send times of the lowest and highest newly SACKed
    /// never-retransmitted segments (Linux's `first_sackt`, `last_sackt`).
    times: Option<(Instant, Instant)>,
}

/// What `clean_rtx_queue` found in the segments an ACK removed.
struct Cleaned {
    /// `FLAG_DATA_ACKED` / `FLAG_RETRANS_DATA_ACKED` bits for the ACK's flag.
    flag: u32,
    pkts_acked: u32,
    /// A segment with a retransmission in flight was acked.
    retrans_acked: bool,
    /// Send times of the first and last never-retransmitted segment acked
    /// that had not been SACKed before (the RTT samples).
    first_ackt: Option<Instant>,
    last_ackt: Option<Instant>,
}

impl Endpoint {
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
        // An acceptable ACK: the receiver is alive (`tcp_ack` clears
        // `icsk_probes_out`).
        self.probes_out = 0;
        let ack = ack as u64;
        let prior_snd_una = self.snd_una;
        let prior_in_flight = self.tp.packets_in_flight();
        let prior_packets = self.tp.packets_out;
        let prior_delivered = self.tp.delivered;
        let prior_lost = self.lost_marks;
        // `prior_fack` of tcp_ack: reordering is data delivered below it.
        let prior_fack = if self.rack_active() { self.highest_sack_start() } else { self.snd_una };
        self.reo_armed = false;
        // F-RTO's REXMIT_NEW lasts until the next ACK; the TSecr is the
        // Eifel evidence (`rx_opt.rcv_tsecr`).
        self.frto_new_data = false;
        self.rcv_tsecr = if self.ts_ok { seg.timestamps.map(|(_, ecr)| ecr) } else { None };
        let mut flag = 0u32;
        if seg.payload_len > 0 {
            flag |= FLAG_DATA;
        }
        if ack > self.snd_una {
            flag |= FLAG_SND_UNA_ADVANCED;
            self.retries = 0;
        }
        if self.ecn_rcv_echo(seg) {
            flag |= FLAG_ECE;
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
        let mut sack_times = None;
        if self.sack_ok && seg.sack_len > 0 {
            flag |= self.check_dsack(seg, prior_snd_una);
            let tag = self.sacktag(now, seg, &mut ra, prior_fack);
            newly_sacked = tag.newly;
            sack_times = tag.times;
            if newly_sacked > 0 {
                flag |= FLAG_DATA_SACKED;
            }
            if tag.orig {
                flag |= FLAG_ORIG_SACK_ACKED;
            }
        }
        // Header prediction fails on any flag but ACK, so an ECE takes the
        // slow path (`tcp_ack`: CA_ACK_ECE with it).
        let fast_path = flag & (FLAG_SND_UNA_ADVANCED | FLAG_ECE) == FLAG_SND_UNA_ADVANCED
            && nwin == old_wnd
            && seg.sack_len == 0
            && seg.payload_len == 0;
        let mut ev = if fast_path {
            CA_ACK_WIN_UPDATE
        } else if flag & FLAG_WIN_UPDATE != 0 {
            CA_ACK_SLOWPATH | CA_ACK_WIN_UPDATE
        } else {
            CA_ACK_SLOWPATH
        };
        if flag & FLAG_ECE != 0 {
            ev |= CA_ACK_ECE;
        }
        // Linux updates snd_una (tcp_snd_una_update, in both the fast path
        // and tcp_ack_update_window) before tcp_in_ack_event: Westwood+
        // measures the bytes this ACK covers as tp->snd_una - w->snd_una.
        self.tp.snd_una = self.seq_of(ack).0;
        self.cc.in_ack_event(&mut self.tp, ev);

        if prior_packets == 0 {
            // Nothing outstanding (tcp_ack `no_queue`): only the window matters.
            self.snd_una = ack;
            self.sync_seq();
            if flag & FLAG_DSACKING_ACK != 0 {
                // tcp_ack `no_queue`: a D-SACK may still undo a reduction.
                self.fastretrans_alert(now, 0, 0, flag, prior_snd_una, 0, false);
            }
            self.process_tlp_ack(ack, flag);
            self.after_ack_window(flag);
            return;
        }

        // ---- tcp_clean_rtx_queue ----
        let Cleaned { flag: acked_flag, pkts_acked, retrans_acked, first_ackt, last_ackt } =
            self.clean_rtx_queue(now, seg, ack, &mut ra, prior_fack);
        flag |= acked_flag;
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.sync_seq();
        self.stats.bytes_acked = self.bytes_acked();

        let ca_rtt = self.ack_update_rtt(now, seg, flag, first_ackt, last_ackt, sack_times);
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
        self.rack_update_reo_wnd(ra.rs.prior_delivered);
        self.process_tlp_ack(ack, flag);

        // ---- tcp_fastretrans_alert ----
        // A D-SACK reports a duplicate, not a new arrival: no dupack.
        let num_dupack = (flag & (FLAG_NOT_DUP | FLAG_DSACKING_ACK) == 0) as u32;
        self.stats.dup_acks_received += num_dupack as u64;
        let dubious = num_dupack > 0
            || flag & (FLAG_DATA_SACKED | FLAG_DSACKING_ACK | FLAG_ECE) != 0
            || self.tp.ca_state != CaState::Open;
        if dubious {
            let delivered = pkts_acked + newly_sacked;
            self.fastretrans_alert(now, num_dupack, pkts_acked, flag, prior_snd_una, delivered, retrans_acked);
        }

        // RFC 6298 §5.2/§5.3 (`timeout.rs`), then the probe (`tlp.rs`).
        self.rearm_rto_after_ack(now, flag);
        self.set_xmit_timer_after_ack(now, flag & FLAG_ACKED != 0);

        let delivered = self.tp.delivered.wrapping_sub(prior_delivered);
        let lost = self.lost_marks.wrapping_sub(prior_lost);
        let rs = self.rate_gen(delivered, lost, prior_in_flight, ra);
        self.after_ack_window(flag);
        self.cong_control(ack, delivered, lost, flag, &rs);
    }

    /// The loop of `tcp_clean_rtx_queue`: drops the segments `ack` covers
    /// (trimming a partially acked head) and keeps the sender's counters,
    /// the rate sample and RACK up to date. A never-retransmitted segment
    /// acknowledged below `prior_fack` (the highest SACKed before this ACK)
    /// filled a hole by arriving late: reordering.
    fn clean_rtx_queue(&mut self, now: Instant, seg: &Segment, ack: u64, ra: &mut RateAcc, prior_fack: u64) -> Cleaned {
        let mut reord = u64::MAX;
        let mut flag = 0u32;
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
                self.rate_skb_delivered(&s, ra);
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
                reord = reord.min(s.start);
                if s.end() <= self.high_seq {
                    flag |= FLAG_ORIG_SACK_ACKED;
                }
            }
            self.tp.packets_out -= 1;
            pkts_acked += 1;
            flag |= FLAG_DATA_ACKED;
        }
        if flag & FLAG_DATA_ACKED != 0 && reord < prior_fack && self.rack_active() {
            self.note_reordering();
        }
        if !self.sack_ok && self.cfg.frto_nonsack_guard && flag & FLAG_RETRANS_DATA_ACKED != 0 {
            // Without SACK the receiver's out-of-order segments carry no
            // SACKED mark, so a cumulative ACK that covers a retransmission
            // cannot show that the never-retransmitted segments behind it
            // arrived as originals *after* the timeout: they may have sat in
            // the receiver's queue behind the hole. Linux 4.17 (`tcp_clean_
            // rtx_queue`, "tcp: prevent bogus FRTO undos with non-SACK flows")
            // clears the flag here; without it F-RTO undoes a real timeout,
            // restores a cwnd below the segments still outstanding and, with
            // no duplicate ACKs left to come, waits for the next RTO.
            flag &= !FLAG_ORIG_SACK_ACKED;
        }
        Cleaned { flag, pkts_acked, retrans_acked, first_ackt, last_ackt }
    }

    /// The RTT sample of an ACK (`tcp_ack_update_rtt`), from the sources
    /// `rtt_samples` names (see [`RttSamples`]). Karn's rule holds for the
    /// send times: no sample from a cumulative ACK that covers a
    /// retransmitted segment. Returns the RTT the congestion modules see
    /// (`ca_rtt`: the newest segment's), if any.
    fn ack_update_rtt(
        &mut self,
        now: Instant,
        seg: &Segment,
        flag: u32,
        first_ackt: Option<Instant>,
        last_ackt: Option<Instant>,
        sack_times: Option<(Instant, Instant)>,
    ) -> Option<Duration> {
        let karn_ok = flag & FLAG_RETRANS_DATA_ACKED == 0;
        let since = |t: Instant| now.saturating_since(t);
        let mut seq_rtt = if karn_ok { first_ackt.map(since) } else { None };
        let mut ca_rtt = if karn_ok { last_ackt.map(since) } else { None };
        let ts_rtt = match (self.ts_ok, seg.timestamps) {
            (true, Some((_, ecr))) if flag & FLAG_ACKED != 0 => self.ts_rtt(now, ecr),
            _ => None,
        };
        let est = match self.cfg.rtt_samples {
            RttSamples::Timestamps => {
                if flag & FLAG_ACKED == 0 {
                    return None;
                }
                ca_rtt = ca_rtt.or(ts_rtt);
                if self.ts_ok { ts_rtt.or(seq_rtt) } else { seq_rtt }
            }
            RttSamples::Linux => {
                // tcp_clean_rtx_queue: a new SACK's times replace the
                // congestion modules' RTT and stand in for a missing
                // cumulative sample; TS-ECR only when neither exists.
                if let Some((first, last)) = sack_times {
                    seq_rtt = seq_rtt.or(Some(since(first)));
                    ca_rtt = Some(since(last));
                }
                if seq_rtt.is_none() && ts_rtt.is_some() {
                    seq_rtt = ts_rtt;
                    ca_rtt = ts_rtt;
                }
                seq_rtt
            }
        };
        if let Some(r) = est {
            self.rtt_sample(r, ca_rtt.unwrap_or(r));
            // RFC 6298 §5.7 / Linux: the backoff ends with a valid sample.
            self.rtt.backoff = 0;
        }
        ca_rtt
    }

    /// RFC 2018 / RFC 6675 scoreboard update from the SACK blocks; returns
    /// the number of newly SACKed segments, and whether one of them was
    /// never retransmitted and lies at or below the recovery point
    /// (`FLAG_ORIG_SACK_ACKED` of `tcp_sacktag_one`). A never-retransmitted
    /// segment newly SACKed below `prior_fack` is reordering (Linux walks
    /// the blocks in sequence order, so only SACKs from before this ACK can
    /// lie above it).
    fn sacktag(&mut self, now: Instant, seg: &Segment, ra: &mut RateAcc, prior_fack: u64) -> SackTag {
        let mut newly = 0;
        let mut orig = false;
        // (start, send time) of the lowest and highest newly SACKed
        // never-retransmitted segments: Linux walks the blocks in sequence
        // order and keeps the first and last (`first_sackt`, `last_sackt`).
        let mut lowest: Option<(u64, Instant)> = None;
        let mut highest: Option<(u64, Instant)> = None;
        let mut reordered = false;
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
                if !s.has(EVER_RETRANS) {
                    if lowest.map_or(true, |(at, _)| s.start < at) {
                        lowest = Some((s.start, s.tx_time));
                    }
                    if highest.map_or(true, |(at, _)| s.start > at) {
                        highest = Some((s.start, s.tx_time));
                    }
                }
                if !s.has(EVER_RETRANS) && s.end() <= self.high_seq {
                    orig = true;
                }
                if !s.has(EVER_RETRANS) && s.start < prior_fack {
                    reordered = true;
                }
                self.tp.sacked_out += 1;
                self.tp.delivered += 1;
                self.rate_skb_delivered(&s, ra);
                self.rack_advance(now, &s, seg);
                newly += 1;
            }
        }
        if reordered && self.rack_active() {
            self.note_reordering();
        }
        let times = lowest.zip(highest).map(|((_, first), (_, last))| (first, last));
        SackTag { newly, orig, times }
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

    // ---- window ----

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
}
