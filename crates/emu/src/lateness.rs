//! Lateness of events against their due time in a real-time run: how much
//! later than scheduled (on the monotonic clock) each event actually ran.
//! A histogram of 1 µs buckets up to 1 s gives the p99 without keeping
//! every sample.

const BUCKETS: usize = 1_000_000;

pub struct Lateness {
    hist: Vec<u32>,
    count: u64,
    sum_ns: u128,
    max_ns: u64,
    over_1ms: u64,
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness { hist: vec![0; BUCKETS + 1], count: 0, sum_ns: 0, max_ns: 0, over_1ms: 0 }
    }
}

impl Lateness {
    #[inline]
    pub fn record(&mut self, late_ns: u64) {
        self.count += 1;
        self.sum_ns += late_ns as u128;
        self.max_ns = self.max_ns.max(late_ns);
        self.over_1ms += (late_ns > 1_000_000) as u64;
        let b = ((late_ns / 1000) as usize).min(BUCKETS);
        self.hist[b] = self.hist[b].saturating_add(1);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn mean_us(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.count as f64 / 1e3
        }
    }

    /// The `q` quantile, to the bucket's upper edge (µs).
    pub fn quantile_us(&self, q: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let want = ((self.count as f64) * q).ceil().max(1.0) as u64;
        let mut seen = 0u64;
        for (b, &n) in self.hist.iter().enumerate() {
            seen += n as u64;
            if seen >= want {
                return if b == BUCKETS { self.max_ns as f64 / 1e3 } else { (b + 1) as f64 };
            }
        }
        self.max_ns as f64 / 1e3
    }

    pub fn max_us(&self) -> f64 {
        self.max_ns as f64 / 1e3
    }

    pub fn over_1ms(&self) -> u64 {
        self.over_1ms
    }

    /// More than 1 % of the events ran more than 1 ms late: the machine
    /// could not keep up, and the run's timing is not the scenario's.
    pub fn overloaded(&self) -> bool {
        self.over_1ms * 100 > self.count
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "events": self.count,
            "mean_us": self.mean_us(),
            "p99_us": self.quantile_us(0.99),
            "max_us": self.max_us(),
            "late_over_1ms": self.over_1ms,
            "overloaded": self.overloaded(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_of_a_known_spread() {
        let mut l = Lateness::default();
        for i in 0..100u64 {
            l.record(i * 1000 + 500);
        }
        assert_eq!(l.count(), 100);
        assert_eq!(l.quantile_us(0.99), 99.0);
        assert_eq!(l.max_us(), 99.5);
        assert!((l.mean_us() - 50.0).abs() < 1e-9);
        assert!(!l.overloaded());
    }

    #[test]
    fn two_percent_over_a_millisecond_is_overload() {
        let mut l = Lateness::default();
        for i in 0..100 {
            l.record(if i < 2 { 5_000_000 } else { 10 });
        }
        assert_eq!(l.over_1ms(), 2);
        assert!(l.overloaded());
    }
}
