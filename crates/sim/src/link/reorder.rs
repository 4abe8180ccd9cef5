//! Optional reordering: with probability `p` a delivered frame gets `delay`
//! of extra latency, so frames sent after it can overtake it.

use airtcp_core::{Duration, RngStream};

#[derive(Clone, Debug)]
pub struct Reorder {
    pub p: f64,
    pub delay: Duration,
    rng: RngStream,
}

impl Reorder {
    pub fn new(p: f64, delay: Duration, rng: RngStream) -> Self {
        Reorder { p, delay, rng }
    }

    #[inline]
    pub fn extra(&mut self) -> Duration {
        if self.p > 0.0 && self.rng.bernoulli(self.p) {
            self.delay
        } else {
            Duration::ZERO
        }
    }
}
