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
//!
//! With `TcpConfig::timer_wheel` the slots Linux keeps on jiffy timers
//! (`timer_list`: the retransmit timer with its probe and reordering
//! uses, the persist timer and the delayed-ACK timer) fire where the
//! kernel's timer wheel fires them (kernel/time/timer.c
//! `calc_wheel_index`, 4.8+): a timer due `d` jiffies ahead lands in
//! level `l` (d < 63, 504, 4032, ... = 63·8^l) and fires on the
//! level's grid of 8^l jiffies strictly after its expiry, "so that a
//! timer never fires early". A 40 ms delayed ACK at HZ 250 thus fires
//! 40-44 ms after the segment, a 250 ms RTO up to 32 ms late. SACK
//! compression and pacing use hrtimers there and are exact here too.

use airtcp_core::Instant;

/// `LVL_CLK_SHIFT`: each wheel level is 8 times coarser than the last.
const LVL_CLK_SHIFT: u32 = 3;
/// `LVL_SIZE - 1`: buckets per level, less one (`LVL_START`).
const LVL_LAST: u64 = 63;
/// `LVL_DEPTH` for HZ > 100.
const LVL_DEPTH: u32 = 9;

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
    /// One jiffy in ns when the kernel's timer wheel is modelled (0: off).
    jiffy: u64,
    /// The endpoint's clock, from which deadlines are counted in jiffies.
    clock: Instant,
}

impl Default for Timers {
    fn default() -> Timers {
        Timers { slots: [OFF; SLOTS], rto_tick: 0, jiffy: 0, clock: Instant::ZERO }
    }
}

/// Whether Linux runs this timer on the jiffy wheel (`timer_list`).
fn on_wheel(k: TimerKind) -> bool {
    matches!(k, TimerKind::Rto | TimerKind::DelayedAck | TimerKind::Persist | TimerKind::ReoTimeout | TimerKind::LossProbe)
}

impl Timers {
    /// Timers whose retransmission timer runs on a coarse tick
    /// (`TcpConfig::rto_tick`).
    pub fn with_rto_tick(tick: Option<airtcp_core::Duration>) -> Timers {
        Timers { rto_tick: tick.map_or(0, |t| t.0), ..Timers::default() }
    }

    /// Jiffy timers fire on the kernel's timer wheel, at `hz` (see the
    /// module comment).
    pub fn with_wheel(mut self, hz: Option<u32>) -> Timers {
        self.jiffy = hz.map_or(0, |hz| 1_000_000_000 / hz.max(1) as u64);
        self
    }

    /// The instant deadlines are now armed from.
    pub fn set_clock(&mut self, now: Instant) {
        self.clock = now;
    }

    /// `calc_wheel_index`: the deadline `at`, armed at the current clock,
    /// as whole jiffies ahead (rounded up, as `usecs_to_jiffies` and the
    /// kernel's jiffies arithmetic have it) and then onto its level's grid.
    fn wheel(&self, at: Instant) -> Instant {
        let j = self.jiffy;
        let clk = self.clock.0 / j;
        let ahead = at.0.saturating_sub(self.clock.0).div_ceil(j);
        let expires = clk + ahead;
        let mut lvl = 0;
        while lvl + 1 < LVL_DEPTH && ahead >= LVL_LAST << (LVL_CLK_SHIFT * lvl) {
            lvl += 1;
        }
        let shift = LVL_CLK_SHIFT * lvl;
        let bucket = ((expires >> shift) + 1) << shift;
        Instant(bucket.saturating_mul(j))
    }

    pub fn set(&mut self, k: TimerKind, at: Instant) {
        let at = if self.jiffy > 0 && at != OFF && on_wheel(k) { self.wheel(at) } else { at };
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

    #[test]
    fn wheel_timers_fire_after_their_jiffy() {
        let mut t = Timers::default().with_wheel(Some(250));
        // Armed 1 ms into jiffy 250 (1.000 s): 10 jiffies ahead expire at
        // jiffy 260 and fire at 261 (1.044 s), 43 ms later.
        t.set_clock(Instant::from_millis(1_001));
        t.set(TimerKind::DelayedAck, Instant::from_millis(1_041));
        assert_eq!(t.get(TimerKind::DelayedAck), Some(Instant::from_millis(1_044)));
        // 62 jiffies ahead is still level 0: expiry 312, fires at 313.
        t.set(TimerKind::Rto, Instant::from_millis(1_001 + 248));
        assert_eq!(t.get(TimerKind::Rto), Some(Instant::from_millis(1_252)));
        // 63 jiffies ahead is level 1 (8-jiffy grid): expiry 313 fires at 320.
        t.set(TimerKind::Rto, Instant::from_millis(1_001 + 250));
        assert_eq!(t.get(TimerKind::Rto), Some(Instant::from_millis(1_280)));
        // An expiry on the grid still moves to the next grid point: 250 + 70 = 320 -> 328.
        t.set_clock(Instant::from_millis(1_000));
        t.set(TimerKind::Rto, Instant::from_millis(1_280));
        assert_eq!(t.get(TimerKind::Rto), Some(Instant::from_millis(1_312)));
        // SACK compression and pacing are hrtimers: exact.
        t.set(TimerKind::CompressedAck, Instant(1_001_100_000));
        assert_eq!(t.get(TimerKind::CompressedAck), Some(Instant(1_001_100_000)));
    }
}
