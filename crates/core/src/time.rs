//! Integer-nanosecond time. Floating point never reaches protocol logic, so two
//! machines that run the same scenario take the same branch at the same instant.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// `n / d` (floor), with the divisors the simulator uses on every segment
/// (a jiffy at HZ 1000, 250 or 100; a 1 ms or 1 µs timestamp tick) spelled
/// out as constants so the compiler turns them into a multiplication: a
/// 64-bit division by a run-time value costs tens of cycles, and TCP's
/// clock update paid two per segment (about 2 % of a bulk run's wall time).
/// Any other divisor takes the plain division; the result is the same.
#[inline]
pub fn div_floor(n: u64, d: u64) -> u64 {
    match d {
        1_000 => n / 1_000,
        1_000_000 => n / 1_000_000,
        4_000_000 => n / 4_000_000,
        10_000_000 => n / 10_000_000,
        _ => n / d,
    }
}

/// A point in simulated (or emulated) time, in nanoseconds since the run began.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Instant(pub u64);

/// A span of time in nanoseconds. Never negative: callers that could produce a
/// negative span must decide what it means (see [`Instant::saturating_since`]).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Duration(pub u64);

impl Instant {
    /// The start of the run.
    pub const ZERO: Instant = Instant(0);
    /// The latest representable instant (about 584 years), for "never".
    pub const MAX: Instant = Instant(u64::MAX);

    /// The instant `ns` nanoseconds after the start.
    pub const fn from_nanos(ns: u64) -> Self {
        Instant(ns)
    }
    /// The instant `ms` milliseconds after the start.
    pub const fn from_millis(ms: u64) -> Self {
        Instant(ms * 1_000_000)
    }
    /// The instant `s` seconds after the start.
    pub const fn from_secs(s: u64) -> Self {
        Instant(s * 1_000_000_000)
    }
    /// Nanoseconds since the start.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Microseconds since the start, truncated (Linux's `tcp_mstamp` clock).
    pub const fn as_micros(self) -> u64 {
        self.0 / 1_000
    }
    /// Milliseconds since the start, truncated.
    pub const fn as_millis(self) -> u64 {
        self.0 / 1_000_000
    }
    /// Seconds as `f64`, for reports and plots only.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// `self - earlier`, or zero if `earlier` is in the future.
    pub fn saturating_since(self, earlier: Instant) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
    /// `self + d`, or `None` past [`Instant::MAX`].
    pub fn checked_add(self, d: Duration) -> Option<Instant> {
        self.0.checked_add(d.0).map(Instant)
    }
}

impl Duration {
    /// No time at all.
    pub const ZERO: Duration = Duration(0);
    /// The longest representable span (about 584 years), for "unbounded".
    pub const MAX: Duration = Duration(u64::MAX);

    /// A span of `ns` nanoseconds.
    pub const fn from_nanos(ns: u64) -> Self {
        Duration(ns)
    }
    /// A span of `us` microseconds.
    pub const fn from_micros(us: u64) -> Self {
        Duration(us * 1_000)
    }
    /// A span of `ms` milliseconds.
    pub const fn from_millis(ms: u64) -> Self {
        Duration(ms * 1_000_000)
    }
    /// A span of `s` seconds.
    pub const fn from_secs(s: u64) -> Self {
        Duration(s * 1_000_000_000)
    }
    /// Length in nanoseconds.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Length in microseconds, truncated.
    pub const fn as_micros(self) -> u64 {
        self.0 / 1_000
    }
    /// Length in milliseconds, truncated.
    pub const fn as_millis(self) -> u64 {
        self.0 / 1_000_000
    }
    /// Length in seconds as `f64`, for reports and plots only.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// `self × k`, capped at [`Duration::MAX`] (RTO backoff).
    pub fn saturating_mul(self, k: u64) -> Duration {
        Duration(self.0.saturating_mul(k))
    }
    /// `self + d`, capped at [`Duration::MAX`].
    pub fn saturating_add(self, d: Duration) -> Duration {
        Duration(self.0.saturating_add(d.0))
    }
    /// `self - d`, or zero if `d` is longer.
    pub fn saturating_sub(self, d: Duration) -> Duration {
        Duration(self.0.saturating_sub(d.0))
    }
    /// Time to serialise `bits` at `rate_bps`, rounded up to the next nanosecond
    /// so a link is never faster than its nominal rate.
    pub fn transmission(bits: u64, rate_bps: u64) -> Duration {
        debug_assert!(rate_bps > 0);
        let ns = (bits as u128 * 1_000_000_000u128).div_ceil(rate_bps as u128);
        Duration(ns.min(u64::MAX as u128) as u64)
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, d: Duration) -> Instant {
        Instant(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, d: Duration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<Instant> for Instant {
    type Output = Duration;
    /// Panics in debug builds if `rhs` is later than `self`; use
    /// [`Instant::saturating_since`] when that can happen.
    fn sub(self, rhs: Instant) -> Duration {
        debug_assert!(self.0 >= rhs.0, "negative time span");
        Duration(self.0.saturating_sub(rhs.0))
    }
}
impl Add for Duration {
    type Output = Duration;
    fn add(self, d: Duration) -> Duration {
        Duration(self.0.saturating_add(d.0))
    }
}
impl Sub for Duration {
    type Output = Duration;
    fn sub(self, d: Duration) -> Duration {
        Duration(self.0.saturating_sub(d.0))
    }
}

impl fmt::Debug for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:09}s", self.0 / 1_000_000_000, self.0 % 1_000_000_000)
    }
}
impl fmt::Display for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}
impl fmt::Debug for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 % 1_000_000 == 0 {
            write!(f, "{}ms", self.0 / 1_000_000)
        } else {
            write!(f, "{}ns", self.0)
        }
    }
}
impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmission_time_rounds_up() {
        // 1054-byte frame at 2 Mb/s = 4.216 ms exactly.
        assert_eq!(Duration::transmission(1054 * 8, 2_000_000), Duration(4_216_000));
        // 1 bit at 3 b/s = 333_333_333.33 ns -> rounded up.
        assert_eq!(Duration::transmission(1, 3), Duration(333_333_334));
    }

    #[test]
    fn saturating_since_never_negative() {
        assert_eq!(Instant(5).saturating_since(Instant(9)), Duration::ZERO);
        assert_eq!(Instant(9).saturating_since(Instant(5)), Duration(4));
    }
}
