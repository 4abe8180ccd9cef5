//! The DCF's backoff draw and carrier sense: how a radio's view of the
//! medium (physical energy, its own reception or transmission, the NAV)
//! freezes and resumes the backoff, and when its MAC timer next fires.

use airtcp_core::{Duration, Instant};

use super::Phase;
use crate::mac::MacParams;
use crate::medium::{Wake, Wlan};

/// A radio's backoff, carrier-sense and timer bookkeeping: what a busy or
/// idle flip of its medium reads and writes. Kept in a dense array beside
/// `medium::Air` rather than in the kilobyte of `DcfState`: on the campus
/// benchmark 82 % of the flips (56 M in 10 s simulated) were at radios with
/// nothing to send, and each touched several cache lines of the radio's
/// MAC state. A flip at a quiet radio now reads this one line and `Air`.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(crate) struct Sense {
    /// When the medium last turned idle (the IFS and backoff count from here).
    pub(crate) idle_since: Instant,
    /// When the MAC timer is armed (`Instant::MAX`: not armed), and the
    /// stamp of its wake (0: none), which tells it from stale ones.
    pub(crate) armed: Instant,
    pub(crate) stamp: u64,
    /// Remaining backoff slots, while a backoff (or post-backoff) is pending.
    pub(crate) backoff: Option<u32>,
    /// The last frame received was in error: defer EIFS instead of DIFS
    /// (802.11-2016 10.3.2.3.7) until a frame is received correctly.
    pub(crate) eifs: bool,
    /// At the last `mac_arm` the MAC was idle with no frame that may
    /// contend and no SIFS response: a flip or a wake then only moves the
    /// (post-)backoff and the NAV timer, which this record holds. Every
    /// change that ends quiet (a frame queued, data allowed again, a
    /// response scheduled, a retune) is followed by `mac_arm` before the
    /// radio's carrier sense is asked again, or clears the flag itself.
    pub(crate) quiet: bool,
    slot: Duration,
    difs: Duration,
    eifs_time: Duration,
}

impl Sense {
    pub(crate) fn new(p: &MacParams) -> Sense {
        let std = p.standard;
        Sense {
            idle_since: Instant::ZERO,
            armed: Instant::MAX,
            stamp: 0,
            backoff: None,
            eifs: false,
            quiet: false,
            slot: std.slot(),
            difs: std.difs(),
            eifs_time: std.eifs(),
        }
    }

    fn ifs(&self) -> Duration {
        if self.eifs {
            self.eifs_time
        } else {
            self.difs
        }
    }

    /// When the backoff ends, if the medium stays idle.
    #[inline]
    pub(crate) fn backoff_end(&self) -> Option<Instant> {
        let k = self.backoff?;
        Some(self.idle_since + self.ifs() + self.slot.saturating_mul(k as u64))
    }

    /// The medium turned busy at `now`: subtract the whole slots that
    /// elapsed after the IFS from the backoff (it freezes there).
    #[inline]
    fn freeze(&mut self, now: Instant) {
        if let Some(k) = self.backoff {
            let start = self.idle_since + self.ifs();
            if now > start {
                let slots = whole_slots(now.saturating_since(start).as_nanos(), self.slot.as_nanos()) as u32;
                self.backoff = Some(k.saturating_sub(slots));
            }
        }
    }
}

/// `elapsed / slot` (a slot of 0 counts as 1). Every standard's slot is
/// 9 or 20 µs: dividing by those as constants is a multiplication, where
/// a division by the run-time value stalled each freeze of a backoff (a
/// few million per simulated second on a campus).
#[inline]
fn whole_slots(elapsed: u64, slot: u64) -> u64 {
    match slot {
        9_000 => elapsed / 9_000,
        20_000 => elapsed / 20_000,
        s => elapsed / s.max(1),
    }
}

impl Wlan {
    /// Draw a new backoff: after a success or a drop the window resets
    /// (post-backoff, 10.3.4.3), after a failure it has just doubled.
    pub(super) fn new_backoff(&mut self, radio: u32, reset: bool) {
        let m = &mut self.radios[radio as usize].mac;
        if reset {
            m.cw = m.p.cw_min;
        }
        let cw = m.cw;
        self.sense[radio as usize].backoff = Some(self.rng[radio as usize].below(cw as u64 + 1) as u32);
    }

    /// Re-evaluate `radio`'s view of the medium after any change on the air.
    /// Inlined: every signal that starts or ends at every radio in range
    /// asks, and for most the answer has not changed.
    #[inline]
    pub(crate) fn mac_medium_changed(&mut self, now: Instant, radio: u32) {
        let a = &mut self.air[radio as usize];
        let phys = a.tx_until > now || a.receiving() || a.energy_mw >= a.cca_mw;
        let busy = phys || a.nav_until > now;
        if busy != a.mac_busy {
            a.mac_busy = busy;
            self.mac_busy_changed(now, radio, busy);
        } else if busy && !phys {
            // Still busy, now by the NAV alone (a frame ended while a NAV
            // set during it runs on): wake when the NAV expires, or
            // nothing else would ever tell the MAC that the medium is idle.
            if self.sense[radio as usize].quiet {
                self.quiet_arm(now, radio);
            } else {
                self.mac_arm(now, radio);
            }
        }
    }

    /// `radio`'s carrier sense turned `busy` (or idle): freeze or resume the backoff.
    fn mac_busy_changed(&mut self, now: Instant, radio: u32, busy: bool) {
        let s = &mut self.sense[radio as usize];
        if s.quiet {
            debug_assert!(self.radios[radio as usize].mac.is_quiet(), "radio {radio} not quiet");
            // As below, without the MAC state: a quiet MAC has no frame
            // to commit and nothing to arm but the NAV's expiry.
            if busy {
                s.freeze(now);
            } else {
                s.idle_since = now;
            }
            self.quiet_arm(now, radio);
            return;
        }
        if busy {
            let m = &mut self.radios[radio as usize].mac;
            if s.backoff_end() == Some(now) && m.phase == Phase::Idle && m.has_frame() {
                m.committed_at = now;
            }
            s.freeze(now);
        } else {
            s.idle_since = now;
        }
        self.mac_arm(now, radio);
    }

    /// `mac_arm` for a quiet radio (`Sense::quiet`): only a NAV that runs
    /// on with nothing on the air can need a wake.
    #[inline]
    pub(crate) fn quiet_arm(&mut self, now: Instant, radio: u32) {
        let nav_until = self.air[radio as usize].nav_until;
        if nav_until > now && !self.phys_busy(now, radio) {
            self.arm_at(radio, nav_until);
        }
    }

    /// Arm `radio`'s MAC timer at its next instant of interest.
    pub(crate) fn mac_arm(&mut self, now: Instant, radio: u32) {
        let m = &self.radios[radio as usize].mac;
        let s = &mut self.sense[radio as usize];
        let mut next = Instant::MAX;
        if let Some((at, _)) = m.response {
            next = next.min(at);
        }
        match m.phase {
            Phase::AwaitAck { deadline } | Phase::AwaitCts { deadline } => {
                next = next.min(deadline)
            }
            Phase::Idle if m.has_frame() => {
                if m.committed_at != Instant::MAX {
                    next = next.min(m.committed_at);
                } else if !self.air[radio as usize].mac_busy {
                    if let Some(t) = s.backoff_end() {
                        next = next.min(t.max(now));
                    }
                }
            }
            _ => {}
        }
        s.quiet = m.is_quiet();
        let nav_until = self.air[radio as usize].nav_until;
        if nav_until > now && !self.phys_busy(now, radio) {
            next = next.min(nav_until);
        }
        if next != Instant::MAX {
            self.arm_at(radio, next);
        }
    }

    /// Set `radio`'s MAC timer to `next` unless it is already there.
    #[inline]
    fn arm_at(&mut self, radio: u32, next: Instant) {
        if next != self.sense[radio as usize].armed {
            let stamp = self.push_wake(next, Wake::Mac { radio });
            let s = &mut self.sense[radio as usize];
            s.armed = next;
            s.stamp = stamp;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::whole_slots;

    #[test]
    fn whole_slots_is_the_plain_quotient() {
        for slot in [9_000u64, 20_000, 13_000, 0] {
            for elapsed in [0u64, 1, 8_999, 9_000, 9_001, 19_999, 20_000, 180_017, 9_000 * 1_023 + 8_999, u64::MAX] {
                assert_eq!(whole_slots(elapsed, slot), elapsed / slot.max(1), "{elapsed} / {slot}");
            }
        }
    }
}
