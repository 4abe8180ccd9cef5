//! Tail loss probe (RFC 8985 §7; Linux net/ipv4/tcp_output.c
//! `tcp_schedule_loss_probe` / `tcp_send_loss_probe` and tcp_input.c
//! `tcp_process_tlp_ack`, 6.6).
//!
//! Why: a loss at the tail of a flight leaves too few segments behind it to
//! produce SACKs, so neither DupThresh nor RACK can see it and only the RTO
//! (at least 200 ms, often a second) repairs it. A probe sent about two
//! round trips after the last transmission draws an ACK whose SACK shows
//! the hole, so fast recovery — not a timeout — repairs it.
//!
//! * Scheduling (`tcp_schedule_loss_probe`): SACK on, data outstanding, in
//!   Open or CWR. PTO = 2·SRTT plus, with a single segment out, the RTO
//!   floor (room for the receiver's delayed ACK; RFC 8985's WCDelAckT, which
//!   Linux takes as `tcp_rto_min_us`), else `TCP_TIMEOUT_MIN` (2 ms); the
//!   initial RTO without an RTT sample; never later than the RTO. Armed after
//!   each new-data transmission and by every ACK that acknowledges data
//!   (`tcp_set_xmit_timer`), unless RACK armed its reordering timer.
//! * The probe (`tcp_send_loss_probe`): new data if the peer's window
//!   admits it, else the highest-sequence segment again; cwnd does not gate
//!   it. One at a time: `tlp_high_seq` (SND.NXT after the probe) marks the
//!   episode. The RTO then restarts a full RTO from the probe. A probe
//!   retransmission is not counted in `retrans_out` nor in the undo
//!   bookkeeping (Linux sends it with `__tcp_retransmit_skb`).
//! * The episode's end (`tcp_process_tlp_ack`): an ACK at or beyond
//!   `tlp_high_seq` after a new-data probe, or a D-SACK of the probe, or a
//!   pure duplicate ACK, ends it without a loss; an ACK *above* it without
//!   such evidence means the probe repaired a loss, so cwnd is reduced once
//!   (ssthresh from the module, CWR, cwnd = ssthresh at once:
//!   `tcp_init_cwnd_reduction` + `tcp_end_cwnd_reduction`).

use airtcp_core::{Duration, Instant, Segment};

use super::flags::{FLAG_DATA_SACKED, FLAG_DSACK_TLP, FLAG_NOT_DUP, FLAG_SND_UNA_ADVANCED};
use super::scoreboard::EVER_RETRANS;
use super::{Endpoint, State, TimerKind};
use crate::cc::{CaEvent, CaState, CongestionOps, TCP_INFINITE_SSTHRESH};
use crate::config::Recovery;

/// What the expired probe timer decided to send.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum TlpSend {
    /// The next new segment.
    NewData,
    /// The highest-sequence segment again.
    Last,
}

impl Endpoint {
    /// TLP runs on SACK connections with `TcpConfig::tlp` (Linux
    /// `tcp_schedule_loss_probe` checks `tcp_is_sack`), except with ns-3's
    /// recovery (ns-3 3.44 has no TLP).
    pub(super) fn tlp_active(&self) -> bool {
        self.cfg.tlp && self.sack_ok && self.cfg.recovery != Recovery::Ns3Prr
    }

    /// `tcp_schedule_loss_probe`; returns whether the probe timer is armed.
    pub(super) fn schedule_loss_probe(&mut self, now: Instant) -> bool {
        if !self.tlp_active()
            || self.tp.packets_out == 0
            || !matches!(self.tp.ca_state, CaState::Open | CaState::Cwr)
            || !matches!(self.state, State::Established | State::CloseWait | State::FinWait1 | State::Closing | State::LastAck)
        {
            return false;
        }
        let pto = if self.tp.srtt_us != 0 {
            // srtt_us holds 8·SRTT: >> 2 is 2·SRTT.
            let two_srtt = Duration::from_micros(self.tp.srtt_us as u64 >> 2);
            let extra = if self.tp.packets_out == 1 { self.cfg.min_rto } else { super::rack::TCP_TIMEOUT_MIN };
            self.jiffies_ceil(two_srtt.saturating_add(extra))
        } else {
            self.cfg.initial_rto // TCP_TIMEOUT_INIT
        };
        let mut at = now + pto;
        if let Some(rto_at) = self.timers.get(TimerKind::Rto) {
            if rto_at > now {
                at = at.min(rto_at);
            }
        }
        self.timers.set(TimerKind::LossProbe, at);
        // One retransmit timer in Linux: the probe replaces a reordering timer.
        self.timers.stop(TimerKind::ReoTimeout);
        true
    }

    /// `tcp_set_xmit_timer` at the end of an ACK that acknowledged data
    /// (`FLAG_SET_XMIT_TIMER`): the probe again, or just the RTO (which
    /// `rearm_rto_after_ack` has already set) — unless this ACK's RACK scan
    /// armed the reordering timer.
    pub(super) fn set_xmit_timer_after_ack(&mut self, now: Instant, acked: bool) {
        if !acked || self.reo_armed {
            return;
        }
        self.timers.stop(TimerKind::ReoTimeout);
        if !self.schedule_loss_probe(now) {
            self.timers.stop(TimerKind::LossProbe);
        }
    }

    /// The probe timer expired (`tcp_send_loss_probe`'s decision; the
    /// segment itself goes out from `poll_transmit`).
    pub(super) fn on_loss_probe(&mut self, now: Instant) {
        let sending = matches!(self.state, State::Established | State::CloseWait | State::FinWait1 | State::Closing | State::LastAck);
        if !sending || self.tp.packets_out == 0 || self.tlp_high_seq.is_some() {
            return; // at most one probe outstanding: the RTO stays armed
        }
        self.tlp_retrans = false;
        let new_ok = matches!(self.state, State::Established | State::CloseWait | State::FinWait1 | State::LastAck);
        let send = if new_ok && self.has_unsent() && self.new_data_fits_window() {
            TlpSend::NewData
        } else {
            let Some(last) = self.rtx.back() else { return };
            // tcp_retransmit_skb: not beyond the peer's window.
            if last.start >= self.snd_una + self.snd_wnd as u64 && last.start != self.snd_una {
                return;
            }
            TlpSend::Last
        };
        self.tlp_send = Some(send);
        // probe_sent: `icsk_pending = 0; tcp_rearm_rto`, a full RTO from now.
        self.timers.set(TimerKind::Rto, now + self.rtt.rto());
    }

    /// The probe segment, if the timer decided on one (first in `poll_transmit`).
    pub(super) fn send_loss_probe(&mut self, now: Instant) -> Option<Segment> {
        let send = self.tlp_send.take()?;
        let seg = match send {
            TlpSend::NewData => {
                let avail = self.data_end().saturating_sub(self.snd_nxt);
                let len = avail.min(self.send_mss as u64) as u32;
                let fin = self.fin_requested && !self.fin_sent && self.snd_nxt + len as u64 == self.data_end();
                if len == 0 && !fin {
                    return None;
                }
                self.transmit_new(now, len, fin)
            }
            TlpSend::Last => {
                let i = self.rtx.len().checked_sub(1)?;
                self.tlp_retrans = true;
                self.transmit_probe_retx(now, i)
            }
        };
        self.tlp_high_seq = Some(self.snd_nxt);
        self.stats.tlp_probes_sent += 1;
        Some(seg)
    }

    /// `__tcp_retransmit_skb` for the probe: stamped and counted as a
    /// retransmission (Karn, `total_retrans`) but not as one in flight.
    fn transmit_probe_retx(&mut self, now: Instant, i: usize) -> Segment {
        let mut s = self.rtx[i];
        self.rate_skb_sent(&mut s);
        s.flags |= EVER_RETRANS;
        s.tx_time = now;
        self.rtx[i] = s;
        if s.len > 0 {
            self.stats.retransmissions += 1;
        }
        self.on_data_sent(now, &s)
    }

    /// `tcp_process_tlp_ack`, with `ack` the new SND.UNA.
    pub(super) fn process_tlp_ack(&mut self, ack: u64, flag: u32) {
        let Some(high) = self.tlp_high_seq else { return };
        if ack < high {
            return;
        }
        if !self.tlp_retrans || flag & FLAG_DSACK_TLP != 0 {
            // New data acknowledged, or the probe D-SACKed: nothing was lost.
            self.tlp_high_seq = None;
        } else if ack > high {
            self.tlp_loss_repaired();
        } else if flag & (FLAG_SND_UNA_ADVANCED | FLAG_NOT_DUP | FLAG_DATA_SACKED) == 0 {
            // A pure duplicate ACK: original and probe both arrived.
            self.tlp_high_seq = None;
        }
    }

    /// The probe repaired a loss: `tcp_init_cwnd_reduction`, CWR,
    /// `tcp_end_cwnd_reduction`, `tcp_try_keep_open` — one reduction.
    fn tlp_loss_repaired(&mut self) {
        self.high_seq = self.snd_nxt;
        self.tlp_high_seq = None;
        self.tp.snd_cwnd_cnt = 0;
        self.tp.prior_cwnd = self.tp.snd_cwnd;
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.tp.snd_ssthresh = self.cc.ssthresh(&mut self.tp);
        self.set_ca_state(CaState::Cwr);
        if !self.cc.has_cong_control() {
            if self.tp.snd_ssthresh < TCP_INFINITE_SSTHRESH {
                self.tp.snd_cwnd = self.tp.snd_ssthresh.max(1);
            }
            self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
        }
        self.try_keep_open();
        self.stats.tlp_recoveries += 1;
    }
}
