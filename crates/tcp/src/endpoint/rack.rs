//! RACK loss detection (RFC 8985 §6, Linux net/ipv4/tcp_recovery.c as of
//! 6.6): the delivery record (`tcp_rack_advance`), the loss scan
//! (`tcp_rack_detect_loss` / `tcp_rack_mark_lost`) and the reordering timer
//! that finishes it (`tcp_rack_reo_timeout`, ICSK_TIME_REO_TIMEOUT). How
//! wide the reordering window is lives in `rack_reo.rs`.
//!
//! Why: DupThresh marking (RFC 6675 IsLost) looks at sequence order, so a
//! retransmission that is lost again sits below SACKed data forever and only
//! the RTO repairs it. RACK orders by *transmit time*: once a segment sent
//! later than another has been delivered, and a reordering window has passed,
//! the earlier one is lost — retransmission or not, in Recovery and in Loss.
//! A segment that is not yet due gets the reordering timer, so a loss with
//! too few SACKs behind it (a tail) is still found within one reordering
//! window instead of the RTO.
//!
//! As in Linux, the scan runs only when an ACK advanced RACK
//! (`rack.advanced`), and the reordering timer re-runs it regardless.
//! Deviation kept from before: RFC 6675 IsLost still marks alongside RACK
//! (`recovery.rs` `identify_loss`), where Linux with RACK relies on
//! reo_wnd = 0 after DupThresh SACKs instead (TCP_RACK_NO_DUPTHRESH off).

use airtcp_core::{Duration, Instant, Segment};

use super::flags::Mode;
use super::scoreboard::{TxSeg, EVER_RETRANS, LOST, RETRANS, SACKED};
use super::{Endpoint, TimerKind};
use crate::cc::{CaState, CongestionOps};
use crate::config::Recovery;

/// `TCP_TIMEOUT_MIN_US` (include/net/tcp.h, 2 ms): slack added to a
/// reordering timeout so it fires after the segment is due, not before.
pub(super) const TCP_TIMEOUT_MIN: Duration = Duration::from_micros(2_000);

/// `tp->rack`: the most recently sent segment known delivered, and the
/// reordering-window state of `tcp_rack_update_reo_wnd`.
#[derive(Clone, Copy, Debug)]
pub(super) struct RackState {
    /// `RACK.xmit_ts`: its (latest) transmit time; None until the first one.
    pub xmit_ts: Option<Instant>,
    /// `RACK.end_seq`: its end (send-space offset), the tie-break.
    pub end_seq: u64,
    /// `RACK.rtt`: RTT measured from it.
    pub rtt: Duration,
    /// `tp->rack.advanced`: updated since the last loss scan.
    pub advanced: bool,
    /// `tp->reord_seen`: reordering events observed (RFC 8985 `RACK.reord`
    /// is this being non-zero).
    pub reord_seen: u32,
    /// `rack.reo_wnd_steps`: reo_wnd in units of min_rtt/4 (1..=255).
    pub reo_wnd_steps: u8,
    /// `rack.reo_wnd_persist`: recoveries left before the steps reset.
    pub reo_wnd_persist: u8,
    /// `rack.dsack_seen`: a D-SACK arrived since the last step.
    pub dsack_seen: bool,
    /// `rack.last_delivered`: `delivered` when the window last grew.
    pub last_delivered: u32,
}

impl Default for RackState {
    fn default() -> Self {
        RackState {
            xmit_ts: None,
            end_seq: 0,
            rtt: Duration::ZERO,
            advanced: false,
            reord_seen: 0,
            reo_wnd_steps: 1,
            reo_wnd_persist: 0,
            dsack_seen: false,
            last_delivered: 0,
        }
    }
}

/// RFC 8985 §6.2 `RACK_sent_after(t1, seq1, t2, seq2)`.
fn sent_after(t1: Instant, seq1: u64, t2: Instant, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Endpoint {
    /// RACK runs on SACK connections with `TcpConfig::rack`, except with
    /// ns-3's recovery (ns-3 3.44 has no RACK).
    pub(super) fn rack_active(&self) -> bool {
        self.cfg.rack && self.sack_ok && self.cfg.recovery != Recovery::Ns3Prr
    }

    /// RFC 8985 §6.2 step 2 (`tcp_rack_advance`) for a segment this ACK
    /// newly delivers (cumulatively ACKed and not SACKed before, or newly
    /// SACKed). `seg` carries the ACK's TSecr for the timestamp check.
    pub(super) fn rack_advance(&mut self, now: Instant, s: &TxSeg, seg: &Segment) {
        if !self.rack_active() {
            return;
        }
        let rtt = now.saturating_since(s.tx_time);
        if s.has(RETRANS | EVER_RETRANS) {
            // Ambiguous: the original (or an earlier retransmission) may be
            // what was delivered. RFC 8985 step 2: TSecr older than the last
            // transmission, or an RTT below min_rtt, means it was not this one.
            if let (true, Some((_, ecr))) = (self.ts_ok, seg.timestamps) {
                if ecr != 0 && (ecr.wrapping_sub(self.ts_now(s.tx_time)) as i32) < 0 {
                    return;
                }
            }
            if rtt.as_micros() < self.tp.min_rtt_us as u64 {
                return;
            }
        }
        self.rack.advanced = true;
        self.rack.rtt = rtt;
        let newer = match self.rack.xmit_ts {
            None => true,
            Some(t) => sent_after(s.tx_time, s.end(), t, self.rack.end_seq),
        };
        if newer {
            self.rack.xmit_ts = Some(s.tx_time);
            self.rack.end_seq = s.end();
        }
    }

    /// `tcp_rack_detect_loss` / RFC 8985 `RACK_detect_loss`: every un-SACKed
    /// segment sent before RACK.xmit_ts that has waited RACK.rtt + reo_wnd
    /// is lost. A lost retransmission drops its RETRANS bit (Linux
    /// `tcp_mark_skb_lost`) so the recovery logic sends it again. Returns the
    /// longest wait still ahead of a segment that is not yet due.
    fn rack_detect_loss(&mut self, now: Instant) -> Option<Duration> {
        let rack_ts = self.rack.xmit_ts?;
        let wait = self.rack.rtt.saturating_add(self.rack_reo_wnd());
        let mut timeout: Option<Duration> = None;
        for i in 0..self.rtx.len() {
            let s = self.rtx[i];
            if s.has(SACKED) || (s.has(LOST) && !s.has(RETRANS)) {
                continue;
            }
            if !sent_after(rack_ts, self.rack.end_seq, s.tx_time, s.end()) {
                continue;
            }
            let waited = now.saturating_since(s.tx_time);
            if waited < wait {
                let remaining = Duration(wait.0 - waited.0);
                timeout = Some(timeout.map_or(remaining, |t| t.max(remaining)));
                continue;
            }
            if s.has(RETRANS) {
                // tcp_mark_skb_lost: a retransmission lost again.
                self.rtx[i].flags &= !RETRANS;
                self.tp.retrans_out -= 1;
                self.stats.lost_retransmits += 1;
                if s.has(LOST) {
                    self.lost_marks = self.lost_marks.wrapping_add(1);
                }
            }
            self.mark_lost(i);
        }
        timeout
    }

    /// `tcp_rack_mark_lost`: the scan after an ACK that advanced RACK; a
    /// segment not yet due arms the reordering timer for when it will be
    /// (plus `TCP_TIMEOUT_MIN`, at most one RTO ahead, as
    /// `inet_csk_reset_xmit_timer(.., icsk_rto)` caps it). Returns whether it
    /// armed the timer: the ACK then leaves the timer alone (Linux clears
    /// FLAG_SET_XMIT_TIMER).
    pub(super) fn rack_mark_lost(&mut self, now: Instant) -> bool {
        if !self.rack_active() || !self.rack.advanced {
            return false;
        }
        self.rack.advanced = false;
        let Some(t) = self.rack_detect_loss(now) else { return false };
        let when = self.jiffies_ceil(t.saturating_add(TCP_TIMEOUT_MIN)).min(self.rtt.rto());
        self.timers.set(TimerKind::ReoTimeout, now + when);
        // One retransmit timer in Linux: the reordering timer replaces a probe.
        self.timers.stop(TimerKind::LossProbe);
        self.reo_armed = true;
        true
    }

    /// `tcp_rack_reo_timeout` (RFC 8985 §6.3): the segments the last scan
    /// left pending are due; mark them, and start recovery if not already in
    /// it so they go out now (`tcp_enter_recovery` + one PRR step, as the
    /// kernel does before `tcp_xmit_retransmit_queue`). Runs in Loss too.
    pub(super) fn rack_reo_timeout(&mut self, now: Instant) {
        if !self.rack_active() || self.tp.packets_out == 0 {
            return;
        }
        let prior_in_flight = self.tp.packets_in_flight();
        let prior_lost = self.lost_marks;
        self.rack_detect_loss(now);
        if self.tp.packets_in_flight() == prior_in_flight {
            return;
        }
        self.stats.rack_reo_timeouts += 1;
        if self.tp.ca_state != CaState::Recovery {
            if self.mode() == Mode::Prr {
                self.enter_recovery_with(1, false, false);
                if !self.cc.has_cong_control() {
                    let newly_lost = self.lost_marks.wrapping_sub(prior_lost);
                    self.cwnd_reduction(1, newly_lost, 0);
                }
            } else {
                self.enter_recovery_with(1, true, false);
            }
        }
        // tcp_rearm_rto after the head's retransmission went out with the
        // timer: a lost head is resent at once (poll_transmit), so it gets a
        // full RTO rather than the one it was sent with.
        if self.rtx.front().is_some_and(|h| h.has(LOST) && !h.has(RETRANS)) {
            self.timers.set(TimerKind::Rto, now + self.rtt.rto());
        }
    }

    /// `usecs_to_jiffies`: a timer delay rounded up to the kernel tick.
    pub(super) fn jiffies_ceil(&self, d: Duration) -> Duration {
        let tick = self.ns_per_jiffy();
        Duration(d.0.div_ceil(tick).saturating_mul(tick))
    }
}
