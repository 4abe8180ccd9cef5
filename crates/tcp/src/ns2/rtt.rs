//! ns-2's retransmission timer arithmetic (tcp.cc `rtt_init`, `rtt_update`,
//! `rtt_timeout`, `rtt_backoff`): RTTs measured in whole ticks of
//! `tcpTick_`, srtt kept with 3 fraction bits and rttvar with 2 (BSD's
//! fixed point), RTO = (srtt + 4 rttvar) in ticks, clamped by `minrto_`
//! before the back-off multiplier and by `maxrto_` after it. Times are in
//! seconds as f64 because ns-2 computes them in doubles and rounds by
//! truncation; an integer rewrite would move tick boundaries.

use airtcp_core::Duration;

/// `T_SRTT_BITS 3` and `T_RTTVAR_BITS 2` (ns-default.tcl).
const SRTT_BITS: u32 = 3;
const RTTVAR_BITS: u32 = 2;
/// `rttvar_exp_ 2`: RTO = srtt + 2^2 rttvar.
const RTTVAR_EXP: u32 = 2;

/// ns-2's RTT estimator and RTO, in its units (ticks of `tcpTick_`,
/// BSD fixed point) so that timer values match ns-2 to the tick.
#[derive(Clone, Debug)]
pub struct Ns2Rtt {
    tick: f64,
    boot: f64,
    min_rto: f64,
    max_rto: f64,
    /// Last RTT sample in ticks (`t_rtt_`).
    pub t_rtt: i32,
    /// 8 x smoothed RTT in ticks (`t_srtt_`).
    pub t_srtt: i32,
    /// 4 x RTT variation in ticks (`t_rttvar_`).
    pub t_rttvar: i32,
    /// Current RTO before back-off, seconds (`t_rtxcur_`).
    pub t_rtxcur: f64,
    /// Back-off multiplier (`t_backoff_`).
    pub t_backoff: i32,
}

impl Ns2Rtt {
    /// Fresh estimator (`rtt_init`): RTO = `rtxcur_init` until the first sample,
    /// rttvar from `rttvar_init`; `boot` is the clock's phase within a tick
    /// (`boot_time_`), `tick` the RTT granularity (`tcpTick_`).
    pub fn new(tick: Duration, boot: Duration, min_rto: Duration, max_rto: Duration, rtxcur_init: Duration, rttvar_init: Duration) -> Self {
        let tick = tick.as_nanos() as f64 / 1e9;
        // rtt_init: srtt_init_ is 0 in ns-default.tcl, so t_srtt_ starts at 0.
        let t_rttvar = ((rttvar_init.as_nanos() as f64 / 1e9 / tick) as i32) << RTTVAR_BITS;
        Ns2Rtt {
            tick,
            boot: boot.as_nanos() as f64 / 1e9,
            min_rto: min_rto.as_nanos() as f64 / 1e9,
            max_rto: max_rto.as_nanos() as f64 / 1e9,
            t_rtt: 0,
            t_srtt: 0,
            t_rttvar,
            t_rtxcur: rtxcur_init.as_nanos() as f64 / 1e9,
            t_backoff: 1,
        }
    }

    /// One RTT sample `tao` seconds long for a packet sent at `now - tao`.
    /// The sample counts the tick boundaries crossed since the send, on a
    /// clock offset by `boot_time_`.
    pub fn update(&mut self, now: f64, tao: f64) {
        let sendtime = now - tao + self.boot;
        let tickoff = sendtime % self.tick;
        self.t_rtt = ((tao + tickoff) / self.tick) as i32;
        if self.t_rtt < 1 {
            self.t_rtt = 1;
        }
        if self.t_srtt != 0 {
            // ns-2 holds the difference in a `short`.
            let mut delta = (self.t_rtt - (self.t_srtt >> SRTT_BITS)) as i16 as i32;
            self.t_srtt += delta;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            if delta < 0 {
                delta = -delta;
            }
            delta -= self.t_rttvar >> RTTVAR_BITS;
            self.t_rttvar += delta;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.t_srtt = self.t_rtt << SRTT_BITS;
            self.t_rttvar = self.t_rtt << (RTTVAR_BITS - 1);
        }
        let scaled = ((self.t_rttvar << (RTTVAR_EXP + SRTT_BITS - RTTVAR_BITS)) + self.t_srtt) >> SRTT_BITS;
        self.t_rtxcur = scaled as f64 * self.tick;
    }

    /// The timeout the retransmission timer is armed with, seconds
    /// (`rfc2988_ true`: minrto_ clamps before the back-off multiplies).
    pub fn timeout(&self) -> f64 {
        let mut t = if self.t_rtxcur < self.min_rto {
            self.min_rto * self.t_backoff as f64
        } else {
            self.t_rtxcur * self.t_backoff as f64
        };
        if t > self.max_rto {
            t = self.max_rto;
        }
        if t < 2.0 * self.tick {
            t = 2.0 * self.tick;
        }
        t
    }

    /// Double the back-off (up to 64, or further while the RTO is below
    /// `maxrto_`); past 8, srtt is folded into rttvar and forgotten.
    pub fn backoff(&mut self) {
        if self.t_backoff < 64 || self.timeout() < self.max_rto {
            self.t_backoff <<= 1;
        }
        if self.t_backoff > 8 {
            self.t_rttvar += self.t_srtt >> SRTT_BITS;
            self.t_srtt = 0;
        }
    }

    /// srtt as a duration (ticks x tick).
    pub fn srtt(&self) -> Duration {
        secs((self.t_srtt >> SRTT_BITS) as f64 * self.tick)
    }
}

/// Seconds (f64) to the nearest nanosecond.
pub fn secs(s: f64) -> Duration {
    Duration::from_nanos((s * 1e9).round().max(0.0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> Ns2Rtt {
        Ns2Rtt::new(Duration::from_millis(10), Duration::ZERO, Duration::from_millis(200), Duration::from_secs(60), Duration::from_secs(3), Duration::from_secs(12))
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut r = est();
        assert_eq!(r.timeout(), 3.0);
        // 40.064 ms from a send at 0: 4 ticks.
        r.update(0.040064, 0.040064);
        assert_eq!((r.t_rtt, r.t_srtt, r.t_rttvar), (4, 32, 8));
        // ((8 << 3) + 32) >> 3 = 12 ticks = 120 ms, below minrto_: 200 ms.
        assert!((r.t_rtxcur - 0.12).abs() < 1e-12);
        assert!((r.timeout() - 0.2).abs() < 1e-12);
    }

    #[test]
    fn tick_offset_counts_boundaries_crossed() {
        let mut r = est();
        // Sent at 0.009, answered at 0.011: 2 ms but one boundary crossed.
        r.update(0.011, 0.002);
        assert_eq!(r.t_rtt, 1);
        let mut r = est();
        r.update(0.0395, 0.039);
        assert_eq!(r.t_rtt, 3);
    }

    #[test]
    fn backoff_doubles_and_caps_at_max_rto() {
        let mut r = est();
        r.backoff();
        assert_eq!(r.t_backoff, 2);
        assert_eq!(r.timeout(), 6.0);
        for _ in 0..10 {
            r.backoff();
        }
        assert_eq!(r.timeout(), 60.0);
    }
}
