//! The endpoint's timers: one deadline per kind in a fixed table, so the next
//! deadline is a scan of nine slots and arming/disarming never allocates.
//!
//! Linux multiplexes the retransmission, RACK reordering and loss-probe
//! timers on one `icsk_retransmit_timer` (`icsk_pending` says which); here
//! each has a slot, and `tlp.rs` / `rack.rs` keep the probe and reordering
//! slots exclusive of each other where the kernel's `inet_csk_reset_xmit_timer`
//! would replace one with the other. The RTO slot stays armed underneath:
//! its deadline is never earlier than a pending probe
//! (`tcp_schedule_loss_probe` caps the probe at the RTO), and
//! `handle_timeout` runs the probe and reordering timers first. One
//! deviation follows: a reordering timer due after the RTO deadline (it is
//! capped at one RTO from *now*) lets the RTO fire first, where Linux's
//! reordering timer would have displaced it.

use airtcp_core::Instant;

/// Which timer a slot belongs to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TimerKind {
    /// Retransmission timer (RFC 6298), also used for SYN / SYN-ACK.
    Rto = 0,
    /// Delayed-ACK timer (RFC 1122 4.2.3.2).
    DelayedAck = 1,
    /// Persist timer: zero-window probes (RFC 9293 3.8.6.1).
    Persist = 2,
    /// TIME-WAIT expiry (2·MSL).
    TimeWait = 3,
    /// Earliest time the pacer lets the next data segment go.
    Pacing = 4,
    /// RACK reordering timer (Linux ICSK_TIME_REO_TIMEOUT, RFC 8985 §6.2
    /// step 5): a segment not yet deemed lost becomes due.
    ReoTimeout = 5,
    /// Tail loss probe (Linux ICSK_TIME_LOSS_PROBE, RFC 8985 §7.2).
    LossProbe = 6,
    /// Wi-TCP's optional limit on a freeze (`TcpConfig::witcp_max_freeze`).
    WiTcpThaw = 7,
    /// The held ACK of SACK compression (Linux `compressed_ack_timer`,
    /// `TcpConfig::comp_sack_nr`).
    CompressedAck = 8,
}

const SLOTS: usize = 9;

/// A disarmed slot. Deadlines are stored bare (not as `Option`) so the
/// next deadline is a branch-free minimum over nine words: it is asked
/// after every segment the endpoint handles. A deadline at `Instant::MAX`
/// ("never") is the same as no deadline.
const OFF: Instant = Instant::MAX;

#[derive(Clone, Debug)]
pub struct Timers {
    slots: [Instant; SLOTS],
    /// `TcpConfig::rto_tick` in ns (0: none).
    rto_tick: u64,
}

impl Default for Timers {
    fn default() -> Timers {
        Timers { slots: [OFF; SLOTS], rto_tick: 0 }
    }
}

impl Timers {
    /// Timers whose retransmission timer runs on a coarse tick
    /// (`TcpConfig::rto_tick`).
    pub fn with_rto_tick(tick: Option<airtcp_core::Duration>) -> Timers {
        Timers { rto_tick: tick.map_or(0, |t| t.0), ..Timers::default() }
    }

    pub fn set(&mut self, k: TimerKind, at: Instant) {
        // A ticked retransmission timer is serviced only on the tick grid
        // (BSD's `tcp_slowtimo`, OPNET's timer granularity): it fires at the
        // first boundary at or after its deadline. In OPNET a 1 s RTO with
        // the 0.5 s tick retransmits about 1.5 s after the lost segment.
        let at = if k == TimerKind::Rto && self.rto_tick > 0 && at != OFF {
            Instant(at.0.div_ceil(self.rto_tick).saturating_mul(self.rto_tick))
        } else {
            at
        };
        self.slots[k as usize] = at;
    }
    pub fn stop(&mut self, k: TimerKind) {
        self.slots[k as usize] = OFF;
    }
    pub fn get(&self, k: TimerKind) -> Option<Instant> {
        let t = self.slots[k as usize];
        (t != OFF).then_some(t)
    }
    pub fn armed(&self, k: TimerKind) -> bool {
        self.slots[k as usize] != OFF
    }
    pub fn stop_all(&mut self) {
        self.slots = [OFF; SLOTS];
    }
    /// Earliest armed deadline.
    #[inline]
    pub fn next(&self) -> Option<Instant> {
        let t = self.slots.iter().fold(OFF, |m, &t| if t < m { t } else { m });
        (t != OFF).then_some(t)
    }
    /// Whether `k` is armed and due at `now`.
    pub fn expired(&self, k: TimerKind, now: Instant) -> bool {
        self.slots[k as usize] <= now && self.slots[k as usize] != OFF
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticked_rto_fires_on_the_next_tick_boundary() {
        let mut t = Timers::with_rto_tick(Some(airtcp_core::Duration::from_millis(500)));
        t.set(TimerKind::Rto, Instant::from_millis(1_100));
        assert_eq!(t.get(TimerKind::Rto), Some(Instant::from_millis(1_500)));
        t.set(TimerKind::Rto, Instant::from_millis(1_000));
        assert_eq!(t.get(TimerKind::Rto), Some(Instant::from_millis(1_000)));
        // Other timers keep their deadlines.
        t.set(TimerKind::DelayedAck, Instant::from_millis(1_100));
        assert_eq!(t.get(TimerKind::DelayedAck), Some(Instant::from_millis(1_100)));
    }
}
