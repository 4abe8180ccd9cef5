//! RTT estimation and the retransmission timeout (RFC 6298).
//!
//! Kept in nanoseconds with Jacobson's scaled integers (SRTT·8, RTTVAR·4) so
//! that alpha = 1/8 and beta = 1/4 (RFC 6298 §2.3) are exact shifts.

use airtcp_core::Duration;

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
}

impl RttEstimator {
    pub fn new(initial_rto: Duration, min_rto: Duration, max_rto: Duration, granularity: Duration) -> Self {
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
        }
    }

    /// Feeds one RTT measurement (RFC 6298 §2.2 / §2.3) and recomputes RTO.
    pub fn sample(&mut self, r: Duration) {
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

    /// Overrides the un-backed-off RTO (RFC 6298 §5.7 after a lost SYN).
    pub fn set_base_rto(&mut self, rto: Duration) {
        self.rto = Duration(rto.0.min(self.max_rto.0));
    }

    pub fn srtt(&self) -> Duration {
        Duration(self.srtt8 >> 3)
    }
    pub fn rttvar(&self) -> Duration {
        Duration(self.rttvar4 >> 2)
    }
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
        RttEstimator::new(Duration::from_secs(1), Duration::from_millis(200), Duration::from_secs(60), Duration::from_millis(1))
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut e = est();
        assert_eq!(e.rto(), Duration::from_secs(1));
        e.sample(Duration::from_millis(100));
        assert_eq!(e.srtt(), Duration::from_millis(100));
        assert_eq!(e.rttvar(), Duration::from_millis(50));
        // 100 + 4*50 = 300 ms
        assert_eq!(e.rto(), Duration::from_millis(300));
    }

    #[test]
    fn second_sample_smooths_with_one_eighth_and_one_quarter() {
        let mut e = est();
        e.sample(Duration::from_millis(100));
        e.sample(Duration::from_millis(200));
        // RTTVAR = 3/4*50 + 1/4*100 = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5
        assert_eq!(e.srtt(), Duration::from_micros(112_500));
        assert_eq!(e.rttvar(), Duration::from_micros(62_500));
        assert_eq!(e.rto(), Duration::from_micros(362_500));
    }

    #[test]
    fn rto_clamped_and_backoff_capped() {
        let mut e = est();
        e.sample(Duration::from_millis(10));
        assert_eq!(e.rto(), Duration::from_millis(200));
        e.backoff = 3;
        assert_eq!(e.rto(), Duration::from_millis(1600));
        e.backoff = 20;
        assert_eq!(e.rto(), Duration::from_secs(60));
    }
}
