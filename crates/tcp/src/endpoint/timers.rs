//! The endpoint's timers: one deadline per kind in a fixed table, so the next
//! deadline is a scan of five slots and arming/disarming never allocates.

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
}

#[derive(Clone, Debug, Default)]
pub struct Timers {
    slots: [Option<Instant>; 5],
}

impl Timers {
    pub fn set(&mut self, k: TimerKind, at: Instant) {
        self.slots[k as usize] = Some(at);
    }
    pub fn stop(&mut self, k: TimerKind) {
        self.slots[k as usize] = None;
    }
    pub fn get(&self, k: TimerKind) -> Option<Instant> {
        self.slots[k as usize]
    }
    pub fn armed(&self, k: TimerKind) -> bool {
        self.slots[k as usize].is_some()
    }
    pub fn stop_all(&mut self) {
        self.slots = [None; 5];
    }
    /// Earliest armed deadline.
    pub fn next(&self) -> Option<Instant> {
        self.slots.iter().flatten().copied().min()
    }
    /// Whether `k` is armed and due at `now`.
    pub fn expired(&self, k: TimerKind, now: Instant) -> bool {
        matches!(self.slots[k as usize], Some(t) if t <= now)
    }
}
