//! RTT estimation and the retransmission timeout: RFC 6298, or Linux's
//! variant of it (`RtoTimer`).
//!
//! RFC 6298 is kept in nanoseconds with Jacobson's scaled integers (SRTT·8,
//! RTTVAR·4) so that alpha = 1/8 and beta = 1/4 (RFC 6298 §2.3) are exact
//! shifts. The Linux estimator works in microseconds with the kernel's
//! fields (`srtt_us`, `mdev_us`, `mdev_max_us`, `rttvar_us`, `rtt_seq`) so
//! that its RTO matches the kernel's to the microsecond.

use airtcp_core::Duration;

use crate::config::RtoTimer;

/// State of Linux `tcp_rtt_estimator` (net/ipv4/tcp_input.c), microseconds.
#[derive(Clone, Debug, Default)]
struct LinuxRtt {
    /// SRTT << 3.
    srtt_us: i64,
    /// 4 · mean deviation (the kernel's `mdev_us`).
    mdev_us: i64,
    /// Largest `mdev_us` in the current RTT, at least TCP_RTO_MIN.
    mdev_max_us: i64,
    /// What the RTO adds to SRTT; never below TCP_RTO_MIN.
    rttvar_us: i64,
    /// `snd_nxt` when the current RTT started; rttvar decays once per RTT.
    rtt_seq: u64,
}

/// RTT estimator and retransmission timeout of one connection: RFC 6298 in
/// nanoseconds, or Linux's `tcp_rtt_estimator`/`tcp_set_rto` when built with
/// [`RtoTimer::Linux`]; optional coarse tick (BSD/OPNET) via `with_tick`.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    /// SRTT << 3 in ns; 0 until the first sample.
    srtt8: u64,
    /// RTTVAR << 2 in ns.
    rttvar4: u64,
    has_sample: bool,
    /// Un-backed-off RTO.
    rto: Duration,
    /// Exponential backoff shift (RFC 6298 §5.5).
    pub backoff: u32,
    min_rto: Duration,
    max_rto: Duration,
    granularity: Duration,
    /// `TcpConfig::rto_tick` in ns (0: none): samples are counted in ticks.
    tick: u64,
    /// `Some` when the RTO follows Linux.
    linux: Option<LinuxRtt>,
}

impl RttEstimator {
    /// An estimator with no sample yet: RTO = `initial_rto` (RFC 6298 §2.1: 1 s)
    /// capped at `max_rto`; with samples it stays between `min_rto` and `max_rto`.
    /// `granularity` is RFC 6298's G (clock granularity).
    pub fn new(initial_rto: Duration, min_rto: Duration, max_rto: Duration, granularity: Duration, timer: RtoTimer) -> Self {
        RttEstimator {
            srtt8: 0,
            rttvar4: 0,
            has_sample: false,
            // RFC 6298 §2.1: RTO <- initial value (1 s) until a sample exists.
            rto: Duration(initial_rto.0.min(max_rto.0)),
            backoff: 0,
            min_rto,
            max_rto,
            granularity,
            tick: 0,
            linux: (timer == RtoTimer::Linux).then(LinuxRtt::default),
        }
    }

    /// Measures RTTs on a coarse tick (`TcpConfig::rto_tick`): a sample
    /// counts the ticks it spans, rounded up and at least one, as BSD's
    /// `t_rtt` counter of 500 ms slow-timer ticks (Jacobson & Karels 1988)
    /// and OPNET's "Timer Granularity" (the precision of RTT measurement).
    pub fn with_tick(mut self, tick: Option<Duration>) -> Self {
        self.tick = tick.map_or(0, |t| t.0);
        self
    }

    /// Feeds one RTT measurement (RFC 6298 §2.2 / §2.3, or Linux
    /// `tcp_rtt_estimator` + `tcp_set_rto`) and recomputes RTO. `snd_una` /
    /// `snd_nxt` (stream offsets after this ACK) delimit Linux's per-RTT
    /// rttvar update.
    pub fn sample(&mut self, r: Duration, snd_una: u64, snd_nxt: u64) {
        let r = if self.tick > 0 { Duration(r.0.div_ceil(self.tick).max(1).saturating_mul(self.tick)) } else { r };
        if self.linux.is_some() {
            return self.sample_linux(r, snd_una, snd_nxt);
        }
        let r = r.0;
        if !self.has_sample {
            // §2.2: SRTT <- R, RTTVAR <- R/2.
            self.srtt8 = r << 3;
            self.rttvar4 = (r / 2) << 2;
            self.has_sample = true;
        } else {
            // §2.3: RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'|; SRTT <- 7/8 SRTT + 1/8 R'.
            let srtt = self.srtt8 >> 3;
            let err = srtt.abs_diff(r);
            self.rttvar4 = self.rttvar4 - (self.rttvar4 >> 2) + err;
            self.srtt8 = self.srtt8 - (self.srtt8 >> 3) + r;
        }
        // §2.3: RTO <- SRTT + max(G, K·RTTVAR), K = 4; §2.4 lower bound; §2.5 upper bound.
        let rto = (self.srtt8 >> 3) + self.granularity.0.max(self.rttvar4);
        self.rto = Duration(rto.clamp(self.min_rto.0, self.max_rto.0));
    }

    /// Linux `tcp_rtt_estimator` (v6.x; unchanged since 3.x) and `tcp_set_rto`.
    fn sample_linux(&mut self, r: Duration, snd_una: u64, snd_nxt: u64) {
        let rto_min = (self.min_rto.0 / 1000) as i64;
        let l = self.linux.as_mut().expect("linux estimator");
        let mut m = (r.0 / 1000) as i64;
        let mut srtt = l.srtt_us;
        if srtt != 0 {
            m -= srtt >> 3; // error in the estimate
            srtt += m; // srtt = 7/8 srtt + 1/8 new
            if m < 0 {
                // A falling RTT moves mdev with the finer gain 1/32 (the
                // kernel's comment: "similar to one of Eifel findings").
                m = -m;
                m -= l.mdev_us >> 2;
                if m > 0 {
                    m >>= 3;
                }
            } else {
                m -= l.mdev_us >> 2;
            }
            l.mdev_us += m; // mdev = 3/4 mdev + 1/4 new
            if l.mdev_us > l.mdev_max_us {
                l.mdev_max_us = l.mdev_us;
                if l.mdev_max_us > l.rttvar_us {
                    l.rttvar_us = l.mdev_max_us;
                }
            }
            if snd_una > l.rtt_seq {
                if l.mdev_max_us < l.rttvar_us {
                    l.rttvar_us -= (l.rttvar_us - l.mdev_max_us) >> 2;
                }
                l.rtt_seq = snd_nxt;
                l.mdev_max_us = rto_min;
            }
        } else {
            srtt = m << 3;
            l.mdev_us = m << 1; // "make sure rto = 3*rtt"
            l.rttvar_us = l.mdev_us.max(rto_min);
            l.mdev_max_us = l.rttvar_us;
            l.rtt_seq = snd_nxt;
        }
        l.srtt_us = srtt.max(1);
        // Keep srtt()/rttvar() meaningful for reports.
        self.srtt8 = (l.srtt_us as u64) * 1000;
        self.rttvar4 = (l.rttvar_us as u64) * 1000;
        self.has_sample = true;
        // __tcp_set_rto + tcp_bound_rto: (srtt >> 3) + rttvar, at most TCP_RTO_MAX.
        let rto_us = (l.srtt_us >> 3) + l.rttvar_us;
        self.rto = Duration((rto_us as u64 * 1000).min(self.max_rto.0));
    }

    /// Overrides the un-backed-off RTO (RFC 6298 §5.7 after a lost SYN).
    pub fn set_base_rto(&mut self, rto: Duration) {
        self.rto = Duration(rto.0.min(self.max_rto.0));
    }

    /// Smoothed RTT (RFC 6298 SRTT); zero until the first sample.
    pub fn srtt(&self) -> Duration {
        Duration(self.srtt8 >> 3)
    }
    /// RTT variation (RFC 6298 RTTVAR); zero until the first sample.
    pub fn rttvar(&self) -> Duration {
        Duration(self.rttvar4 >> 2)
    }
    /// Whether any RTT sample has been taken (before it, the RTO is the initial one).
    pub fn has_sample(&self) -> bool {
        self.has_sample
    }
    /// RTO without backoff.
    pub fn base_rto(&self) -> Duration {
        self.rto
    }
    /// RTO with the current backoff, capped at max_rto (RFC 6298 §5.5; Linux inet_csk_rto_backoff).
    pub fn rto(&self) -> Duration {
        let shifted = if self.backoff >= 63 { u64::MAX } else { self.rto.0.saturating_mul(1u64 << self.backoff) };
        Duration(shifted.min(self.max_rto.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(Duration::from_secs(1), Duration::from_millis(200), Duration::from_secs(60), Duration::from_millis(1), RtoTimer::Rfc6298)
    }

    fn linux() -> RttEstimator {
        RttEstimator::new(Duration::from_secs(1), Duration::from_millis(200), Duration::from_secs(120), Duration::from_millis(1), RtoTimer::Linux)
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut e = est();
        assert_eq!(e.rto(), Duration::from_secs(1));
        e.sample(Duration::from_millis(100), 0, 0);
        assert_eq!(e.srtt(), Duration::from_millis(100));
        assert_eq!(e.rttvar(), Duration::from_millis(50));
        // 100 + 4*50 = 300 ms
        assert_eq!(e.rto(), Duration::from_millis(300));
    }

    #[test]
    fn second_sample_smooths_with_one_eighth_and_one_quarter() {
        let mut e = est();
        e.sample(Duration::from_millis(100), 0, 0);
        e.sample(Duration::from_millis(200), 0, 0);
        // RTTVAR = 3/4*50 + 1/4*100 = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5
        assert_eq!(e.srtt(), Duration::from_micros(112_500));
        assert_eq!(e.rttvar(), Duration::from_micros(62_500));
        assert_eq!(e.rto(), Duration::from_micros(362_500));
    }

    #[test]
    fn ticked_samples_count_whole_ticks() {
        // OPNET 2003 (seed 004): 0.5 s tick, min RTO 0.5 s. A 40 ms RTT is
        // one tick: SRTT 0.5 s, RTTVAR 0.25 s, RTO = 0.5 + 4 x 0.25 = 1.5 s.
        let mut e = RttEstimator::new(Duration::from_secs(1), Duration::from_millis(500), Duration::from_secs(64), Duration::ZERO, RtoTimer::Rfc6298)
            .with_tick(Some(Duration::from_millis(500)));
        e.sample(Duration::from_millis(40), 0, 0);
        assert_eq!(e.srtt(), Duration::from_millis(500));
        assert_eq!(e.rto(), Duration::from_millis(1500));
        e.sample(Duration::from_millis(510), 0, 0);
        assert_eq!(e.srtt(), Duration::from_micros(562_500));
    }

    #[test]
    fn rto_clamped_and_backoff_capped() {
        let mut e = est();
        e.sample(Duration::from_millis(10), 0, 0);
        assert_eq!(e.rto(), Duration::from_millis(200));
        e.backoff = 3;
        assert_eq!(e.rto(), Duration::from_millis(1600));
        e.backoff = 20;
        assert_eq!(e.rto(), Duration::from_secs(60));
    }

    #[test]
    fn linux_rto_first_sample_is_three_rtts_or_rtt_plus_rto_min() {
        let mut e = linux();
        e.sample(Duration::from_millis(100), 0, 10);
        // mdev_us = 2·100 ms = 200 ms = rttvar: RTO = 100 + 200 ms.
        assert_eq!(e.rto(), Duration::from_millis(300));
        let mut e = linux();
        e.sample(Duration::from_millis(40), 0, 10);
        // 2·40 ms < TCP_RTO_MIN: rttvar = 200 ms, RTO = 240 ms (RFC: 200 ms).
        assert_eq!(e.rto(), Duration::from_millis(240));
    }

    /// Behind a full buffer the RTT is steady: the RFC RTO shrinks towards
    /// SRTT, Linux keeps SRTT + TCP_RTO_MIN.
    #[test]
    fn linux_rto_stays_rto_min_above_a_steady_srtt() {
        let (mut rfc, mut lin) = (est(), linux());
        for i in 0..200u64 {
            rfc.sample(Duration::from_millis(340), 10 * i + 1, 10 * i + 10);
            lin.sample(Duration::from_millis(340), 10 * i + 1, 10 * i + 10);
        }
        assert_eq!(lin.srtt(), Duration::from_millis(340));
        // rttvar decays by a quarter of its distance to TCP_RTO_MIN per RTT;
        // the integer shift leaves 3 us.
        assert_eq!(lin.rto(), Duration::from_micros(540_003));
        assert_eq!(rfc.rto(), Duration::from_millis(341));
    }

    /// A rising sample raises rttvar at once (mdev_max); a falling one moves
    /// mdev by only 1/32 of the error.
    #[test]
    fn linux_rttvar_follows_mdev_max_within_the_rtt() {
        let mut e = linux();
        e.sample(Duration::from_millis(100), 0, 10); // srtt 100, mdev 200, rttvar 200
        e.sample(Duration::from_millis(900), 1, 20);
        // m = 800 - 200/4 = 750 ms: mdev = 950 ms > rttvar; srtt = 100 + 800/8 = 200 ms.
        assert_eq!(e.srtt(), Duration::from_millis(200));
        assert_eq!(e.rto(), Duration::from_millis(1150));
        e.sample(Duration::from_millis(200), 2, 30);
        // Error 0 → m = -950/4 → mdev = 712.5 ms; snd_una 2 <= rtt_seq 10: no decay.
        assert_eq!(e.rto(), Duration::from_millis(1150));
        e.sample(Duration::from_millis(200), 11, 40);
        // mdev = 712.5 - 178.125 = 534.375 ms. New RTT, but mdev_max (950)
        // is not below rttvar (950): no decay; mdev_max resets to 200 ms.
        assert_eq!(e.rto(), Duration::from_millis(1150));
        e.sample(Duration::from_millis(200), 41, 50);
        // mdev = 534.375 - 133.593 = 400.782 ms becomes mdev_max; new RTT:
        // rttvar = 950 - (950 - 400.782) / 4 = 812.696 ms.
        assert_eq!(e.rto(), Duration::from_micros(200_000 + 812_696));
    }
}
