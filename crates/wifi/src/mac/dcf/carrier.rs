//! The DCF's backoff draw and carrier sense: how a radio's view of the
//! medium (physical energy, its own reception or transmission, the NAV)
//! freezes and resumes the backoff, and when its MAC timer next fires.

use airtcp_core::Instant;

use super::Phase;
use crate::medium::{Wake, Wlan};

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
