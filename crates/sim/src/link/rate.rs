//! How long a frame occupies a link direction. The queue logic only asks for
//! a finish time, so trace-driven variants (delivery-opportunity traces, drive
//! logs) join this enum without touching the queue.

use airtcp_core::{Duration, Instant};

use crate::trace::{DriveLink, MahimahiSchedule};

#[derive(Clone, Debug, PartialEq)]
pub enum RateModel {
    /// A fixed serialisation rate in bits per second.
    Constant { bps: u64 },
    /// Mahimahi delivery opportunities (one 1500-byte slot per trace line);
    /// the frame is delivered at the opportunity that carries its last byte.
    Mahimahi(Box<MahimahiSchedule>),
    /// Capacity following a drive log; zero during handoff outages when the
    /// link stalls instead of dropping (see `scenario` `handoff_drops`).
    Drive(Box<DriveLink>),
}

impl RateModel {
    /// When a frame of `frame_bytes` whose transmission starts at `start`
    /// has left the sender completely. Calls for one direction come in FIFO
    /// order with non-decreasing `start`, which the trace cursors rely on.
    #[inline]
    pub fn finish_time(&mut self, start: Instant, frame_bytes: u32) -> Instant {
        match self {
            RateModel::Constant { bps } => start + Duration(serialisation_ns(*bps, frame_bytes)),
            RateModel::Mahimahi(m) => m.finish_time(start, frame_bytes),
            RateModel::Drive(d) => d.finish_time(start, frame_bytes),
        }
    }

    /// Nominal rate for reports (bits per second): the constant rate, a
    /// Mahimahi trace's mean over one period, or a drive link's time-weighted
    /// mean from its origin to the log's end (outages count as 0).
    pub fn nominal_bps(&self) -> u64 {
        match self {
            RateModel::Constant { bps } => *bps,
            RateModel::Mahimahi(m) => m.capacity_bps().round() as u64,
            RateModel::Drive(d) => d.mean_capacity_bps(d.origin(), d.end().max(d.origin() + Duration(1))).round() as u64,
        }
    }
}

/// Nanoseconds a frame of `frame_bytes` occupies a link of `bps`: the same
/// rounding as `Duration::transmission` (up to the next ns), in 64-bit
/// arithmetic (bits * 1e9 fits for any frame under 2 GB).
#[inline]
pub fn serialisation_ns(bps: u64, frame_bytes: u32) -> u64 {
    let bits = frame_bytes as u64 * 8;
    match bits.checked_mul(1_000_000_000) {
        Some(x) => x.div_ceil(bps),
        None => Duration::transmission(bits, bps).0,
    }
}
