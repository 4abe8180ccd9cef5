//! Timer handling on the endpoint: `handle_timeout` dispatches the expired
//! kinds; the retransmission timer — how long it is (`rto_now`, with the SYN
//! timeout), what it does when it fires (Linux `tcp_retransmit_timer`: SYN
//! retries, abort after `max_retries`, back-off, `tcp_enter_loss`) and when
//! an ACK restarts or stops it (RFC 6298 §5.2/§5.3); and the persist timer
//! (`tcp_check_probe_timer`, `tcp_probe_timer`: zero-window probes with
//! exponential back-off). The reordering timer is RACK's (`rack.rs`), the
//! probe timer TLP's (`tlp.rs`). The deadline table itself is `timers.rs`.

use airtcp_core::{Duration, Instant};

use super::flags::{FLAG_ACKED, FLAG_SND_UNA_ADVANCED};
use super::{Endpoint, State, TimerKind};
use crate::cc::CaState;
use crate::config::{PartialAckRto, ShrinkPolicy};
use crate::event::Event;

/// Backoff shift cap; 2^31 × any RTO is far beyond max_rto already.
const MAX_BACKOFF: u32 = 31;

impl Endpoint {
    /// Act on every timer due at `now` (TIME_WAIT end, RACK reordering, tail
    /// loss probe, delayed ACK, persist, retransmission). Call it at
    /// [`Endpoint::poll_timeout`]; calling it early is harmless.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.set_clock(now);
        if self.timers.expired(TimerKind::TimeWait, now) {
            self.timers.stop(TimerKind::TimeWait);
            self.enter_closed(false);
            return;
        }
        // The reordering and probe timers first: Linux multiplexes them with
        // the RTO, so when one is due the RTO is not (`timers.rs`).
        if self.timers.expired(TimerKind::ReoTimeout, now) {
            self.timers.stop(TimerKind::ReoTimeout);
            self.rack_reo_timeout(now);
        }
        if self.timers.expired(TimerKind::LossProbe, now) {
            self.timers.stop(TimerKind::LossProbe);
            self.on_loss_probe(now);
        }
        if self.timers.expired(TimerKind::Rto, now) {
            self.timers.stop(TimerKind::Rto);
            self.on_rto(now);
        }
        if self.timers.expired(TimerKind::DelayedAck, now) {
            self.timers.stop(TimerKind::DelayedAck);
            self.ato_on_timer();
            self.ack_now = true;
        }
        if self.timers.expired(TimerKind::CompressedAck, now) {
            self.timers.stop(TimerKind::CompressedAck);
            self.on_compressed_ack_timer();
        }
        if self.timers.expired(TimerKind::Persist, now) {
            self.timers.stop(TimerKind::Persist);
            self.on_persist(now);
        }
        if self.timers.expired(TimerKind::Pacing, now) {
            self.timers.stop(TimerKind::Pacing);
        }
        if self.timers.expired(TimerKind::WiTcpThaw, now) {
            self.timers.stop(TimerKind::WiTcpThaw);
            self.witcp_thaw(now, true);
        }
        self.witcp_hold_timers();
    }

    // ---- retransmission timer ----

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
                // tcp_retransmit_timer: the timeout ends any probe episode
                // and supersedes the probe and reordering timers.
                self.tlp_high_seq = None;
                self.tlp_send = None;
                self.timers.stop(TimerKind::LossProbe);
                self.timers.stop(TimerKind::ReoTimeout);
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

    /// RFC 6298 §5.2/§5.3 after an ACK: stop when all is acked, restart on
    /// new data acked (RFC 6582 §3.2 step 5: in recovery, only on the first
    /// partial ACK).
    pub(super) fn rearm_rto_after_ack(&mut self, now: Instant, flag: u32) {
        let partial = self.tp.ca_state == CaState::Recovery && flag & FLAG_SND_UNA_ADVANCED != 0;
        let mut restart = true;
        if partial && self.cfg.partial_ack_rto == PartialAckRto::FirstOnly {
            restart = self.first_partial_ack;
            self.first_partial_ack = false;
        }
        if flag & FLAG_ACKED != 0 && restart {
            if self.tp.packets_out == 0 {
                // tcp_rearm_rto clears whichever retransmit timer is pending.
                self.timers.stop(TimerKind::Rto);
                self.timers.stop(TimerKind::LossProbe);
                self.timers.stop(TimerKind::ReoTimeout);
            } else {
                self.timers.set(TimerKind::Rto, now + self.rtt.rto());
            }
        }
    }

    // ---- persist timer ----

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

    fn on_persist(&mut self, now: Instant) {
        let still_needed = match self.cfg.shrink_policy {
            ShrinkPolicy::Linux => self.tp.packets_out == 0 && self.has_unsent(),
            ShrinkPolicy::Rfc => self.snd_wnd == 0 || (self.tp.packets_out == 0 && self.has_unsent()),
        };
        if !still_needed {
            self.persist_backoff = 0;
            self.probes_out = 0;
            return;
        }
        // Linux `tcp_probe_timer`: RFC 1122 4.2.2.17 keeps the connection
        // open while the receiver answers the probes, and any acceptable ACK
        // resets the count (`tcp_ack`); probes answered only by old ACKs (a
        // receiver behind SND.UNA, seed 000's Fig. 6(b) hole) count toward
        // `tcp_retries2`, after which the connection is aborted
        // (`tcp_write_err`; as for the retransmission timer, the abort here
        // also resets the peer).
        if self.probes_out >= self.cfg.max_retries {
            self.abort();
            return;
        }
        self.probes_out += 1;
        self.probe_pending = true;
        self.stats.window_probes += 1;
        self.events.push_back(Event::WindowProbe);
        self.persist_backoff = (self.persist_backoff + 1).min(MAX_BACKOFF);
        self.timers.set(TimerKind::Persist, now + self.persist_interval());
    }
}
