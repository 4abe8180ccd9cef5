//! 32-bit TCP sequence numbers with modular comparison (RFC 793 §3.3, RFC 1982).

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A TCP sequence number. Ordering is defined on the circle: `a < b` when
/// `b - a` interpreted as a signed 32-bit distance is positive, which is what
/// every TCP does and why the type does not derive `Ord`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SeqNum(pub u32);

impl SeqNum {
    /// Signed distance `self - other` on the sequence circle.
    pub fn diff(self, other: SeqNum) -> i32 {
        self.0.wrapping_sub(other.0) as i32
    }
    /// The later of the two on the sequence circle.
    pub fn max(self, other: SeqNum) -> SeqNum {
        if self > other {
            self
        } else {
            other
        }
    }
    /// The earlier of the two on the sequence circle.
    pub fn min(self, other: SeqNum) -> SeqNum {
        if self < other {
            self
        } else {
            other
        }
    }
    /// `lo <= self < hi` on the circle.
    pub fn in_range(self, lo: SeqNum, hi: SeqNum) -> bool {
        self >= lo && self < hi
    }
}

impl PartialOrd for SeqNum {
    fn partial_cmp(&self, other: &SeqNum) -> Option<Ordering> {
        Some(self.diff(*other).cmp(&0))
    }
}

impl Add<u32> for SeqNum {
    type Output = SeqNum;
    fn add(self, n: u32) -> SeqNum {
        SeqNum(self.0.wrapping_add(n))
    }
}
impl AddAssign<u32> for SeqNum {
    fn add_assign(&mut self, n: u32) {
        self.0 = self.0.wrapping_add(n);
    }
}
impl Sub<u32> for SeqNum {
    type Output = SeqNum;
    fn sub(self, n: u32) -> SeqNum {
        SeqNum(self.0.wrapping_sub(n))
    }
}
/// Unsigned distance `self - earlier`; the caller asserts `earlier <= self`.
impl Sub<SeqNum> for SeqNum {
    type Output = u32;
    fn sub(self, earlier: SeqNum) -> u32 {
        debug_assert!(self >= earlier, "{self:?} - {earlier:?} is negative");
        self.0.wrapping_sub(earlier.0)
    }
}

impl fmt::Debug for SeqNum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}
impl fmt::Display for SeqNum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparison_wraps() {
        let a = SeqNum(u32::MAX - 10);
        let b = a + 20;
        assert_eq!(b.0, 9);
        assert!(a < b);
        assert!(b > a);
        assert_eq!(b - a, 20);
        assert_eq!(a.diff(b), -20);
        assert!(SeqNum(5).in_range(a, b));
    }
}
