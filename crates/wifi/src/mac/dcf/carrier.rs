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
        let r = &mut self.radios[radio as usize];
        if reset {
            r.mac.cw = r.mac.p.cw_min;
        }
        let cw = r.mac.cw;
        r.mac.backoff = Some(r.rng.below(cw as u64 + 1) as u32);
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
            self.mac_arm(now, radio);
        }
    }

    /// `radio`'s carrier sense turned `busy` (or idle): freeze or resume the backoff.
    fn mac_busy_changed(&mut self, now: Instant, radio: u32, busy: bool) {
        let m = &mut self.radios[radio as usize].mac;
        if busy {
            // Freeze the backoff: subtract the whole slots that elapsed after the IFS.
            if let (Some(k), Some(end)) = (m.backoff, m.backoff_end()) {
                if m.phase == Phase::Idle && m.has_frame() && end == now {
                    m.committed_at = now;
                }
                let start = m.idle_since + m.ifs();
                if now > start {
                    let slots =
                        (now.saturating_since(start).as_nanos() / m.slot.as_nanos().max(1)) as u32;
                    m.backoff = Some(k.saturating_sub(slots));
                }
            }
        } else {
            m.idle_since = now;
        }
        self.mac_arm(now, radio);
    }

    /// Arm `radio`'s MAC timer at its next instant of interest.
    pub(crate) fn mac_arm(&mut self, now: Instant, radio: u32) {
        let r = &self.radios[radio as usize];
        let m = &r.mac;
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
                    if let Some(t) = m.backoff_end() {
                        next = next.min(t.max(now));
                    }
                }
            }
            _ => {}
        }
        let nav_until = self.air[radio as usize].nav_until;
        if nav_until > now && !self.phys_busy(now, radio) {
            next = next.min(nav_until);
        }
        if next != m.armed && next != Instant::MAX {
            let m = &mut self.radios[radio as usize].mac;
            m.gen = m.gen.wrapping_add(1);
            m.armed = next;
            let gen = m.gen;
            self.push_wake(next, Wake::Mac { radio, gen });
        }
    }
}
