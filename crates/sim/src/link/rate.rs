//! How long a frame occupies a link direction. The queue logic only asks for
//! a finish time, so trace-driven variants (delivery-opportunity traces, drive
//! logs) can join this enum without touching the queue.

use airtcp_core::{Duration, Instant};

#[derive(Clone, Debug, PartialEq)]
pub enum RateModel {
    /// A fixed serialisation rate in bits per second.
    Constant { bps: u64 },
}

impl RateModel {
    /// When a frame of `frame_bytes` whose transmission starts at `start`
    /// has left the sender completely.
    #[inline]
    pub fn finish_time(&mut self, start: Instant, frame_bytes: u32) -> Instant {
        match self {
            RateModel::Constant { bps } => {
                // Same rounding as `Duration::transmission` (up to the next ns),
                // in 64-bit arithmetic: bits * 1e9 fits for any frame under 2 GB.
                let bits = frame_bytes as u64 * 8;
                start + Duration(match bits.checked_mul(1_000_000_000) {
                    Some(x) => x.div_ceil(*bps),
                    None => Duration::transmission(bits, *bps).0,
                })
            }
        }
    }

    /// Nominal rate for reports (bits per second).
    pub fn nominal_bps(&self) -> u64 {
        match self {
            RateModel::Constant { bps } => *bps,
        }
    }
}
