//! Snoop's local retransmission timer value.
//!
//! Balakrishnan et al. (MobiCom 1995, snoop_ack's "new ACK" case) keep an
//! estimate of the wireless hop's round-trip time, timed on one segment per
//! window and only when nothing in that window was retransmitted (Karn and
//! Partridge 1987), and drive a per-connection retransmission timer from it.
//! Seed 004's OPNET model uses a fixed 1 s instead and names the adaptive
//! timer as future work; both are here ([`SnoopTimer`]).
//!
//! Adaptive: RFC 6298 §2.2–2.3 estimator with its gains (alpha = 1/8,
//! beta = 1/4, K = 4), RTO = SRTT + 4·RTTVAR clamped to `[min, max]`, `initial`
//! before the first sample. The clock-granularity term G of RFC 6298 is
//! omitted: time here is integer nanoseconds.
//!
//! Back-off (not specified by the paper; RFC 6298 §5.5 analogue): every local
//! timeout doubles the timer, up to `max` for the adaptive timer and up to
//! 64 × the fixed value for the fixed one (2^6: seed 004's 1 s becomes the
//! seed's 64 s maximum RTO). A new ACK resets the back-off.

use airtcp_core::Duration;

use crate::config::SnoopTimer;

/// Doublings after which a fixed timer stops growing (1 s -> 64 s).
const FIXED_MAX_BACKOFF_SHIFT: u32 = 6;
/// Bound on the shift itself, so `base << backoff` cannot overflow.
const MAX_BACKOFF_SHIFT: u32 = 30;

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LocalRto {
    /// Smoothed RTT and variation in nanoseconds; meaningful once `samples > 0`.
    srtt: u64,
    rttvar: u64,
    samples: u64,
    backoff: u32,
}

impl LocalRto {
    /// RFC 6298 §2.2 (first sample) and §2.3 (later samples).
    pub fn sample(&mut self, r: Duration) {
        let r = r.as_nanos();
        if self.samples == 0 {
            self.srtt = r;
            self.rttvar = r / 2;
        } else {
            let err = self.srtt.abs_diff(r);
            self.rttvar = self.rttvar - self.rttvar / 4 + err / 4;
            self.srtt = self.srtt - self.srtt / 8 + r / 8;
        }
        self.samples += 1;
    }

    pub fn srtt(&self) -> Option<Duration> {
        (self.samples > 0).then_some(Duration(self.srtt))
    }

    #[cfg(test)]
    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// The timer before back-off.
    pub fn base(&self, t: &SnoopTimer) -> Duration {
        match *t {
            SnoopTimer::Fixed(d) => d,
            SnoopTimer::Adaptive { initial, min, max } => {
                if self.samples == 0 {
                    initial.min(max)
                } else {
                    Duration(self.srtt.saturating_add(self.rttvar.saturating_mul(4))).max(min).min(max)
                }
            }
        }
    }

    fn cap(t: &SnoopTimer) -> Duration {
        match *t {
            SnoopTimer::Fixed(d) => d.saturating_mul(1 << FIXED_MAX_BACKOFF_SHIFT),
            SnoopTimer::Adaptive { max, .. } => max,
        }
    }

    /// The timer now: base doubled per back-off step, capped.
    pub fn timeout(&self, t: &SnoopTimer) -> Duration {
        self.base(t).saturating_mul(1u64 << self.backoff).min(Self::cap(t).max(self.base(t)))
    }

    /// A local timeout fired: double the next timer (until it reaches the cap).
    pub fn back_off(&mut self, t: &SnoopTimer) {
        if self.timeout(t) < Self::cap(t) && self.backoff < MAX_BACKOFF_SHIFT {
            self.backoff += 1;
        }
    }

    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn rfc6298_gains_after_samples() {
        let t = SnoopTimer::Adaptive { initial: MS(1000), min: MS(20), max: MS(4000) };
        let mut r = LocalRto::default();
        assert_eq!(r.timeout(&t), MS(1000));
        r.sample(MS(40));
        // SRTT = 40, RTTVAR = 20 -> 40 + 80.
        assert_eq!(r.timeout(&t), MS(120));
        r.sample(MS(80));
        // RTTVAR = 3/4·20 + 1/4·40 = 25; SRTT = 7/8·40 + 1/8·80 = 45 -> 145.
        assert_eq!(r.srtt(), Some(MS(45)));
        assert_eq!(r.timeout(&t), MS(145));
    }

    #[test]
    fn adaptive_clamps_and_backs_off_to_max() {
        let t = SnoopTimer::Adaptive { initial: MS(1000), min: MS(200), max: MS(1000) };
        let mut r = LocalRto::default();
        r.sample(MS(1));
        assert_eq!(r.timeout(&t), MS(200), "clamped to min");
        r.back_off(&t);
        assert_eq!(r.timeout(&t), MS(400));
        r.back_off(&t);
        r.back_off(&t);
        r.back_off(&t);
        assert_eq!(r.timeout(&t), MS(1000), "capped at max");
        r.reset_backoff();
        assert_eq!(r.timeout(&t), MS(200));
    }

    #[test]
    fn fixed_timer_doubles_up_to_64_times() {
        let t = SnoopTimer::Fixed(MS(1000));
        let mut r = LocalRto::default();
        for _ in 0..20 {
            r.back_off(&t);
        }
        assert_eq!(r.backoff(), 6);
        assert_eq!(r.timeout(&t), Duration::from_secs(64));
    }
}
