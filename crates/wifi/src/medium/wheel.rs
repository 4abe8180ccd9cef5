//! The medium's wake queue: a timing wheel for the next few milliseconds
//! in front of the 4-ary heap of `wakes.rs`.
//!
//! Almost every wake of a busy WLAN falls within a few milliseconds of now
//! (frame ends, SIFS responses, ACK deadlines, backoff ends); on the campus
//! benchmark the heap's pops and pushes, each walking six levels of a
//! heap of ~4,000 wakes with unpredictable branches, were an eighth of the
//! run. Here such a wake goes into the bucket of its microsecond (1.024 µs,
//! 4,096 buckets: 4.19 ms ahead of the earliest wake); a bit per bucket,
//! summarised a bit per 64 buckets, finds the earliest occupied bucket in
//! two bit scans. A bucket is kept in order: a wake is nearly always
//! later than those already in its bucket (many share an instant, such as
//! every radio whose NAV ends with one frame, and then its stamp is the
//! largest), so it is appended, and the bucket's earliest is at its head.
//! Wakes beyond the wheel (beacons, management timeouts, long backoffs),
//! and any scheduled before the wheel's start, wait in the heap, which a
//! pop consults as well.
//!
//! The order is exactly the heap's, `(time, insertion counter)`, and the
//! counter is the stamp as before: the wheel changes how fast the next
//! wake is found, never which it is.

use airtcp_core::Instant;

use super::wakes::{Entry, WakeQueue};
use super::Wake;

/// Nanoseconds per bucket, as a shift (1.024 µs: finer than any 802.11
/// slot, so a bucket rarely holds more than a few wakes).
const BUCKET_SHIFT: u32 = 10;
/// Buckets in the wheel, as a shift (4,096: 4.19 ms).
const WHEEL_SHIFT: u32 = 12;
const BUCKETS: u64 = 1 << WHEEL_SHIFT;
const MASK: u64 = BUCKETS - 1;
const WORDS: usize = (BUCKETS / 64) as usize;

pub(crate) struct WakeWheel {
    /// Wakes by bucket number modulo the wheel: bucket numbers
    /// (`at >> BUCKET_SHIFT`) from `base` to `base + BUCKETS - 1` map to
    /// distinct slots. Each is in `(time, stamp)` order from `heads[slot]`
    /// on (the popped ones before it are dropped when it empties), and
    /// keeps its capacity, so after warm-up a push allocates nothing.
    buckets: Vec<Vec<Entry>>,
    heads: Vec<u32>,
    /// A bit per slot that holds a wake, and a bit per word of those.
    occupied: [u64; WORDS],
    summary: u64,
    /// Bucket number of the wheel's first slot; no wheel wake is earlier.
    base: u64,
    /// Wakes in the wheel.
    near: usize,
    /// Wakes outside the wheel's span when they were scheduled.
    far: WakeQueue,
    /// Whether `next` holds the earliest wake's time (`u64::MAX`: none):
    /// set by a `pop_due` that found nothing due (it has just looked),
    /// kept by pushes, cleared by a pop. The medium's owner asks for that
    /// time right after every wake (`Wlan::poll_timeout`), and the answer
    /// is then a load instead of a second search of the wheel.
    next_known: bool,
    next: u64,
}

impl Default for WakeWheel {
    fn default() -> WakeWheel {
        WakeWheel {
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            heads: vec![0; BUCKETS as usize],
            occupied: [0; WORDS],
            summary: 0,
            base: 0,
            near: 0,
            far: WakeQueue::default(),
            next_known: false,
            next: u64::MAX,
        }
    }
}

impl WakeWheel {
    /// Schedule `w` at `at`, after every wake already scheduled for `at`,
    /// and return its stamp (unique, never 0).
    #[inline]
    pub(crate) fn push(&mut self, at: Instant, w: Wake) -> u64 {
        let e = self.far.entry(at, w);
        // Branch-free; meaningless (and unread) while `next_known` is false.
        self.next = self.next.min(at.0);
        let b = at.0 >> BUCKET_SHIFT;
        if b >= self.base && b - self.base < BUCKETS {
            self.file(b, e);
        } else {
            self.far.push_entry(e);
        }
        e.stamp()
    }

    fn file(&mut self, bucket: u64, e: Entry) {
        let slot = (bucket & MASK) as usize;
        let b = &mut self.buckets[slot];
        let head = self.heads[slot] as usize;
        let mut at = b.len();
        while at > head && b[at - 1].key() > e.key() {
            at -= 1;
        }
        b.insert(at, e);
        self.occupied[slot / 64] |= 1 << (slot % 64);
        self.summary |= 1 << (slot / 64);
        self.near += 1;
    }

    /// The first occupied slot at or after the wheel's start, in wheel
    /// order (wrapping round): the slot of the earliest bucket.
    #[inline]
    fn first_slot(&self) -> usize {
        debug_assert!(self.near > 0);
        let start = (self.base & MASK) as usize;
        let (w0, bit) = (start / 64, start % 64);
        // The start's own word, from the start's bit up.
        let here = self.occupied[w0] & (u64::MAX << bit);
        if here != 0 {
            return w0 * 64 + here.trailing_zeros() as usize;
        }
        // Later words.
        let later = if w0 == 63 { 0 } else { self.summary & (u64::MAX << (w0 + 1)) };
        if later != 0 {
            let w = later.trailing_zeros() as usize;
            return w * 64 + self.occupied[w].trailing_zeros() as usize;
        }
        // Wrapped round: the lowest occupied slot (the start's word has
        // nothing left from the start's bit up, so any bit of it is below).
        let w = self.summary.trailing_zeros() as usize;
        w * 64 + self.occupied[w].trailing_zeros() as usize
    }

    /// The earliest wheel wake and its slot.
    #[inline]
    fn earliest_near(&self) -> (usize, Entry) {
        let slot = self.first_slot();
        (slot, self.buckets[slot][self.heads[slot] as usize])
    }

    /// Time of the earliest wake.
    pub(crate) fn peek_time(&self) -> Option<Instant> {
        // (`u64::MAX` is also a wake's possible time: then search.)
        if self.next_known && self.next != u64::MAX {
            return Some(Instant(self.next));
        }
        let far = self.far.peek_time();
        if self.near == 0 {
            return far;
        }
        let (_, e) = self.earliest_near();
        let t = Instant(e.at);
        Some(far.map_or(t, |f| f.min(t)))
    }

    /// Remove and return the earliest wake, with its stamp, if it is due by `now`.
    pub(crate) fn pop_due(&mut self, now: Instant) -> Option<(Instant, Wake, u64)> {
        let far = self.far.peek_entry();
        if self.near == 0 {
            let Some(e) = far.filter(|e| e.at <= now.0) else {
                self.found_next(far.map_or(u64::MAX, |e| e.at));
                return None;
            };
            self.next_known = false;
            self.far.pop_entry();
            // The wheel is empty: it may start at this wake's bucket.
            self.base = self.base.max(e.at >> BUCKET_SHIFT);
            self.take_far();
            return Some(e.parts());
        }
        let (slot, near) = self.earliest_near();
        if let Some(f) = far.filter(|f| f.key() < near.key()) {
            // A wake scheduled before the wheel's start (or, rarely,
            // filed far before the wheel reached it) comes first.
            if f.at > now.0 {
                self.found_next(f.at);
                return None;
            }
            self.next_known = false;
            self.far.pop_entry();
            return Some(f.parts());
        }
        if near.at > now.0 {
            // No far wake is earlier (its key is not below `near`'s).
            self.found_next(near.at);
            return None;
        }
        self.next_known = false;
        let bucket = &mut self.buckets[slot];
        self.heads[slot] += 1;
        if self.heads[slot] as usize == bucket.len() {
            bucket.clear();
            self.heads[slot] = 0;
            self.occupied[slot / 64] &= !(1 << (slot % 64));
            if self.occupied[slot / 64] == 0 {
                self.summary &= !(1 << (slot / 64));
            }
        }
        self.near -= 1;
        // Nothing left in the wheel is earlier than this wake's bucket.
        self.base = near.at >> BUCKET_SHIFT;
        self.take_far();
        Some(near.parts())
    }

    /// Remember `next`, the earliest wake's time a pop has just found.
    #[inline]
    fn found_next(&mut self, next: u64) {
        self.next_known = true;
        self.next = next;
    }

    /// Move the heap's wakes that the wheel now spans into it.
    #[inline]
    fn take_far(&mut self) {
        while let Some(e) = self.far.peek_entry() {
            let b = e.at >> BUCKET_SHIFT;
            if b < self.base || b - self.base >= BUCKETS {
                break;
            }
            self.far.pop_entry();
            self.file(b, e);
        }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.near + self.far.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::medium::wakes::tests::{agrees_with_a_binary_heap, Queue};

    impl Queue for WakeWheel {
        fn push(&mut self, at: Instant, w: Wake) -> u64 {
            WakeWheel::push(self, at, w)
        }
        fn pop_due(&mut self, now: Instant) -> Option<(Instant, Wake, u64)> {
            WakeWheel::pop_due(self, now)
        }
        fn peek_time(&self) -> Option<Instant> {
            WakeWheel::peek_time(self)
        }
        fn len(&self) -> usize {
            WakeWheel::len(self)
        }
    }

    #[test]
    fn near_wakes_pop_in_time_and_stamp_order() {
        // All within the wheel's 4.19 ms.
        agrees_with_a_binary_heap::<WakeWheel>(1, 200_000.0, 0, 60_000);
    }

    #[test]
    fn wakes_beyond_the_wheel_and_before_it_keep_the_order() {
        // Up to 50 ms ahead (most beyond the wheel, moved in as it turns),
        // and some a few microseconds before now.
        agrees_with_a_binary_heap::<WakeWheel>(2, 50_000_000.0, 3_000, 60_000);
        agrees_with_a_binary_heap::<WakeWheel>(3, 9_000_000.0, 100_000, 60_000);
    }

    #[test]
    fn wraps_round_many_times() {
        // Short spans, long run: the wheel's start passes every slot many times.
        agrees_with_a_binary_heap::<WakeWheel>(4, 20_000.0, 1_000, 200_000);
    }

    #[test]
    fn empty_wheel_jumps_to_a_far_wake() {
        let mut q = WakeWheel::default();
        let s1 = q.push(Instant(1_000_000_000), Wake::Beacon { radio: 1 });
        let s2 = q.push(Instant(1_000_000_500), Wake::Mac { radio: 2 });
        assert_eq!(q.peek_time(), Some(Instant(1_000_000_000)));
        assert_eq!(q.pop_due(Instant(999_999_999)), None);
        assert_eq!(q.pop_due(Instant(1_000_000_000)), Some((Instant(1_000_000_000), Wake::Beacon { radio: 1 }, s1)));
        // Now wheel-borne: a wake pushed for the same microsecond goes after it.
        let s3 = q.push(Instant(1_000_000_500), Wake::TxEnd { tx: 3 });
        assert_eq!(q.pop_due(Instant(2_000_000_000)), Some((Instant(1_000_000_500), Wake::Mac { radio: 2 }, s2)));
        assert_eq!(q.pop_due(Instant(2_000_000_000)), Some((Instant(1_000_000_500), Wake::TxEnd { tx: 3 }, s3)));
        assert_eq!(q.pop_due(Instant(2_000_000_000)), None);
        assert_eq!(q.len(), 0);
    }
}
