//! RACK loss detection (RFC 8985 §6.2, Linux net/ipv4/tcp_recovery.c),
//! without TLP and without the reordering timer.
//!
//! Why: DupThresh marking (RFC 6675 IsLost) looks at sequence order, so a
//! retransmission that is lost again sits below SACKed data forever and only
//! the RTO repairs it. RACK orders by *transmit time*: once a segment sent
//! later than another has been delivered, and a reordering window has passed,
//! the earlier one is lost — retransmission or not.
//!
//! Subset: `RACK_update` (step 2, with both ambiguity checks), `reo_wnd` as
//! Linux `tcp_rack_reo_wnd` with `reo_wnd_steps` = 1 and no reordering /
//! D-SACK tracking (so `RACK.reord` is always false), and `RACK_detect_loss`.
//! When a segment is not yet due, nothing arms a timer (Linux
//! ICSK_TIME_REO_TIMEOUT): the next ACK re-checks it, or the RTO fires.

use airtcp_core::{Duration, Instant, Segment};

use super::scoreboard::{TxSeg, EVER_RETRANS, LOST, RETRANS, SACKED};
use super::Endpoint;
use crate::cc::CaState;
use crate::config::Recovery;

/// `tp->rack`: the most recently sent segment known delivered.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RackState {
    /// `RACK.xmit_ts`: its (latest) transmit time; None until the first one.
    pub xmit_ts: Option<Instant>,
    /// `RACK.end_seq`: its end (send-space offset), the tie-break.
    pub end_seq: u64,
    /// `RACK.rtt`: RTT measured from it.
    pub rtt: Duration,
    /// `tp->rack.advanced`: updated since the last loss scan.
    pub advanced: bool,
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

    /// `tcp_rack_reo_wnd` with `reo_wnd_steps` = 1 and `reord_seen` false
    /// (RFC 8985 §6.2 step 4 with RACK.reord false): zero in recovery or once
    /// DupThresh segments are SACKed, else min_rtt/4 capped at SRTT.
    fn rack_reo_wnd(&self) -> Duration {
        if self.tp.ca_state >= CaState::Recovery || self.tp.sacked_out >= self.cfg.dupack_threshold {
            return Duration::ZERO;
        }
        if self.tp.min_rtt_us == u32::MAX {
            return Duration::ZERO; // no RTT sample yet: no min_rtt to scale
        }
        let quarter = Duration::from_micros(self.tp.min_rtt_us as u64 / 4);
        quarter.min(self.rtt.srtt())
    }

    /// `tcp_rack_mark_lost` / RFC 8985 `RACK_detect_loss`: every un-SACKed
    /// segment sent before RACK.xmit_ts that has waited RACK.rtt + reo_wnd
    /// is lost. A lost retransmission drops its RETRANS bit (Linux
    /// `tcp_mark_skb_lost`) so the recovery logic sends it again.
    pub(super) fn rack_detect_loss(&mut self, now: Instant) {
        if !self.rack_active() || !self.rack.advanced {
            return;
        }
        self.rack.advanced = false;
        let Some(rack_ts) = self.rack.xmit_ts else { return };
        let wait = self.rack.rtt.saturating_add(self.rack_reo_wnd());
        for i in 0..self.rtx.len() {
            let s = self.rtx[i];
            if s.has(SACKED) || (s.has(LOST) && !s.has(RETRANS)) {
                continue;
            }
            if !sent_after(rack_ts, self.rack.end_seq, s.tx_time, s.end()) {
                continue;
            }
            if now.saturating_since(s.tx_time) < wait {
                continue; // Linux would arm the reordering timer here
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
    }
}
