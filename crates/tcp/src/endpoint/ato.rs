//! Linux's adaptive delayed-ACK timeout (`icsk_ack.ato`, net/ipv4/
//! tcp_input.c `tcp_event_data_recv`, tcp_output.c `tcp_send_delayed_ack`,
//! tcp_timer.c `tcp_delack_timer_handler`), on when
//! `TcpConfig::delack_adaptive` is set; otherwise the timer is the fixed
//! `delack_timeout`.
//!
//! Why it matters: the ATO is kept in jiffies and, once a delayed ACK has
//! had to be sent by its timer, doubled and then capped by the receiver's
//! own smoothed RTT rounded up to a jiffy. A bulk receiver whose RTT is a
//! little over 40 ms (HZ = 250: 11 jiffies) therefore waits 40-44 ms for
//! a second segment, not 40 ms: a lone segment is then usually ACKed
//! together with the next one, one RTT later, instead of by the timer just
//! before it arrives. That changes the sender's ACK clock and its RTT
//! samples (found on the kernel-vs-model check of docs/emulate.md).
//!
//! Not modelled: interactive ("ping-pong") mode, which lets the ATO grow
//! to 200 ms (TCP_DELACK_MAX) for a receiver that answers what it reads;
//! the simulated applications never do.

use airtcp_core::{time::div_floor, Duration, Instant};

use super::Endpoint;

/// The ATO state (`icsk_ack.ato`), in jiffies; `icsk_ack.lrcvtime` is
/// the endpoint's `last_data_rcvd`.
#[derive(Clone, Debug, Default)]
pub(super) struct Ato {
    /// Current ATO in jiffies; 0 until the first in-order data.
    ato: u32,
}

impl Endpoint {
    /// `usecs_to_jiffies`-style conversion: whole jiffies, rounded up.
    fn to_jiffies(&self, d: Duration) -> u32 {
        d.as_nanos()
            .div_ceil(self.ns_per_jiffy())
            .min(u32::MAX as u64) as u32
    }

    /// `TCP_ATO_MIN` = `TCP_DELACK_MIN` = HZ/25 (40 ms), taken from
    /// `delack_timeout` so the one key says what the floor is.
    fn ato_min(&self) -> u32 {
        self.to_jiffies(self.cfg.delack_timeout).max(1)
    }

    /// `tcp_event_data_recv`: in-order data adapts the ATO to the gap
    /// since the last in-order data (`m`, jiffies): a gap of at most half
    /// the floor pulls it towards the floor, a gap shorter than the ATO
    /// pulls it towards the gap (at most the RTO). Runs before
    /// `last_data_rcvd` takes this arrival.
    pub(super) fn ato_on_data(&mut self) {
        if !self.cfg.delack_adaptive {
            return;
        }
        let min = self.ato_min();
        if self.ato.ato == 0 {
            self.ato.ato = min;
        } else if let Some(last) = self.last_data_rcvd {
            let last_j = div_floor(last.as_nanos(), self.ns_per_jiffy()) as u32;
            let m = self.tp.jiffies.wrapping_sub(last_j);
            if m <= min / 2 {
                self.ato.ato = (self.ato.ato >> 1) + min / 2;
            } else if m < self.ato.ato {
                self.ato.ato = ((self.ato.ato >> 1) + m).min(self.rto_jiffies().max(1) as u32);
            }
        }
    }

    /// Quick-ACK mode entered or left (`tcp_enter_quickack_mode`,
    /// `tcp_dec_quickack_mode`): the ATO deflates to the floor.
    pub(super) fn ato_deflate(&mut self) {
        if self.cfg.delack_adaptive && self.ato.ato != 0 {
            self.ato.ato = self.ato_min();
        }
    }

    /// `tcp_delack_timer_handler`: the timer had to send the ACK, so the
    /// ATO was too short: double it (at most the RTO).
    pub(super) fn ato_on_timer(&mut self) {
        if self.cfg.delack_adaptive && self.ato.ato != 0 {
            self.ato.ato = (self.ato.ato << 1).min(self.rto_jiffies().max(1) as u32);
        }
    }

    /// When the delayed ACK is due if scheduled now: with the adaptive
    /// ATO, `tcp_send_delayed_ack` — an ATO above the floor is capped at
    /// HZ/2 and at the smoothed RTT rounded up to a jiffy (at least the
    /// floor), and the timer fires on a jiffy; otherwise `delack_timeout`
    /// from now.
    pub(super) fn delack_deadline(&self, now: Instant) -> Instant {
        if !self.cfg.delack_adaptive {
            return now + self.cfg.delack_timeout;
        }
        let min = self.ato_min();
        let mut ato = if self.ato.ato == 0 { min } else { self.ato.ato };
        if ato > min {
            let mut max_ato = self.cfg.hz / 2;
            let srtt = self.rtt.srtt();
            if srtt > Duration::ZERO {
                max_ato = max_ato.min(self.to_jiffies(srtt).max(min));
            }
            ato = ato.min(max_ato);
        }
        let due = self.tp.jiffies as u64 + ato as u64;
        Instant::from_nanos(due * self.ns_per_jiffy())
    }
}
