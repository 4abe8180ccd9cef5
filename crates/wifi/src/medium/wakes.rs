//! The medium's internal timers: wakes ordered by `(time, insertion
//! counter)` in a 4-ary heap laid out so that a node's four children fill
//! one cache line.
//!
//! The counter is unique, so the order is total and any correct priority
//! queue pops the same sequence. An entry is 16 bytes: the time, and the
//! counter with the wake packed below it (`counter << 24 | kind << 22 |
//! radio or transmission`), so ordering by the packed word is ordering by
//! the counter. The counter doubles as the wake's stamp: a radio keeps the
//! stamp of the one wake it still wants, and a popped wake whose stamp is
//! not that one is stale. The heap is stored in 64-byte groups with the
//! root alone in the first and the children of node k forming group k + 1,
//! so each level of a pop reads one cache line (against two or three for
//! the 24-byte entries of `airtcp_core::heap::MinHeap4` it replaces, whose
//! loads dominated the pop in the campus profile: 11 % of the run).

use airtcp_core::Instant;

use super::Wake;

/// Bits of the radio or transmission number, and of the wake's kind.
const ID_BITS: u32 = 22;
const KIND_BITS: u32 = 2;
const ID_MASK: u64 = (1 << ID_BITS) - 1;

#[derive(Clone, Copy, Default)]
pub(super) struct Entry {
    pub(super) at: u64,
    /// `stamp << 24 | kind << 22 | id`.
    tag: u64,
}

impl Entry {
    /// Time, then stamp, as one 128-bit number (compared without branches).
    #[inline]
    pub(super) fn key(&self) -> u128 {
        (self.at as u128) << 64 | self.tag as u128
    }

    #[inline]
    pub(super) fn stamp(&self) -> u64 {
        self.tag >> (ID_BITS + KIND_BITS)
    }

    /// Time, wake and stamp, as a pop returns them.
    #[inline]
    pub(super) fn parts(&self) -> (Instant, Wake, u64) {
        (Instant(self.at), self.wake(), self.stamp())
    }

    fn wake(&self) -> Wake {
        let id = (self.tag & ID_MASK) as u32;
        match (self.tag >> ID_BITS) & 3 {
            0 => Wake::TxEnd { tx: id },
            1 => Wake::Mac { radio: id },
            2 => Wake::Mgmt { radio: id },
            _ => Wake::Beacon { radio: id },
        }
    }
}

/// Four nodes in one cache line.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Group([Entry; 4]);

#[derive(Default)]
pub(crate) struct WakeQueue {
    /// The 4-ary heap (children of entry i: 4i + 1 to 4i + 4) with entry
    /// i at slot `i + 3` (the root at slot 0, slots 1–3 unused) of the
    /// groups' slots in a row: the children of entry i are group i + 1.
    /// After warm-up the groups cover the largest backlog: push and pop
    /// allocate nothing.
    groups: Vec<Group>,
    len: usize,
    counter: u64,
}

impl WakeQueue {
    /// The slot of heap entry `i`.
    #[inline]
    fn slot(i: usize) -> usize {
        if i == 0 {
            0
        } else {
            i + 3
        }
    }

    #[inline]
    fn node(&self, i: usize) -> Entry {
        let k = Self::slot(i);
        self.groups[k / 4].0[k % 4]
    }

    #[inline]
    fn set(&mut self, i: usize, e: Entry) {
        let k = Self::slot(i);
        self.groups[k / 4].0[k % 4] = e;
    }

    /// The entry of `w` at `at`, with the next stamp (unique, never 0):
    /// scheduled after every wake already scheduled for `at`.
    pub(super) fn entry(&mut self, at: Instant, w: Wake) -> Entry {
        self.counter += 1;
        let (kind, id) = match w {
            Wake::TxEnd { tx } => (0, tx),
            Wake::Mac { radio } => (1, radio),
            Wake::Mgmt { radio } => (2, radio),
            Wake::Beacon { radio } => (3, radio),
        };
        debug_assert!(u64::from(id) <= ID_MASK && self.counter < 1 << (64 - ID_BITS - KIND_BITS));
        Entry {
            at: at.0,
            tag: self.counter << (ID_BITS + KIND_BITS) | kind << ID_BITS | u64::from(id),
        }
    }

    /// Schedule `w` at `at` (see [`WakeQueue::entry`]) and return its stamp.
    #[cfg(test)]
    pub(crate) fn push(&mut self, at: Instant, w: Wake) -> u64 {
        let e = self.entry(at, w);
        self.push_entry(e);
        e.stamp()
    }

    /// Add an entry made by [`WakeQueue::entry`].
    pub(super) fn push_entry(&mut self, e: Entry) {
        let k = self.len;
        self.len += 1;
        if Self::slot(k) / 4 >= self.groups.len() {
            self.groups.push(Group::default());
        }
        self.sift_up(k, e);
    }

    /// Put `e` at node `k` (a hole), or higher while it is smaller than the parent.
    #[inline]
    fn sift_up(&mut self, mut k: usize, e: Entry) {
        let key = e.key();
        while k != 0 {
            let parent = (k - 1) / 4;
            let p = self.node(parent);
            if key >= p.key() {
                break;
            }
            self.set(k, p);
            k = parent;
        }
        self.set(k, e);
    }

    /// Time of the earliest wake.
    #[inline]
    pub(crate) fn peek_time(&self) -> Option<Instant> {
        (self.len > 0).then(|| Instant(self.groups[0].0[0].at))
    }

    /// The earliest entry.
    #[inline]
    pub(super) fn peek_entry(&self) -> Option<Entry> {
        (self.len > 0).then(|| self.groups[0].0[0])
    }

    /// Remove the earliest entry (there is one).
    pub(super) fn pop_entry(&mut self) {
        debug_assert!(self.len > 0);
        let last = self.node(self.len - 1);
        self.len -= 1;
        if self.len > 0 {
            self.sift_hole(last);
        }
    }

    /// Remove and return the earliest wake, with its stamp, if it is due by `now`.
    #[cfg(test)]
    pub(crate) fn pop_due(&mut self, now: Instant) -> Option<(Instant, Wake, u64)> {
        let top = self.peek_entry().filter(|e| e.at <= now.0)?;
        self.pop_entry();
        Some(top.parts())
    }

    /// Walk the hole at the root down to a leaf along the smallest
    /// children, then bring `last` (a leaf's value: it rarely rises far)
    /// up from there (Floyd's bottom-up variant, as `std`'s heap does).
    #[inline]
    fn sift_hole(&mut self, last: Entry) {
        let end = self.len;
        let mut k = 0;
        loop {
            let first = 4 * k + 1;
            if first + 4 <= end {
                // A full group: the smallest by a two-round tournament
                // (keys are unique, so any order of comparing agrees).
                let g = &self.groups[k + 1].0;
                let a = usize::from(g[1].key() < g[0].key());
                let b = 2 + usize::from(g[3].key() < g[2].key());
                let best = if g[b].key() < g[a].key() { b } else { a };
                let e = g[best];
                self.set(k, e);
                k = first + best;
            } else {
                if first < end {
                    let mut best = first;
                    for c in first + 1..end {
                        if self.node(c).key() < self.node(best).key() {
                            best = c;
                        }
                    }
                    let e = self.node(best);
                    self.set(k, e);
                    k = best;
                }
                break;
            }
        }
        self.sift_up(k, last);
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    use airtcp_core::RngStream;

    /// A wake queue as the tests drive it: this heap, and the wheel in
    /// front of it (`wheel.rs`).
    pub(crate) trait Queue: Default {
        fn push(&mut self, at: Instant, w: Wake) -> u64;
        fn pop_due(&mut self, now: Instant) -> Option<(Instant, Wake, u64)>;
        fn peek_time(&self) -> Option<Instant>;
        fn len(&self) -> usize;
    }

    impl Queue for WakeQueue {
        fn push(&mut self, at: Instant, w: Wake) -> u64 {
            WakeQueue::push(self, at, w)
        }
        fn pop_due(&mut self, now: Instant) -> Option<(Instant, Wake, u64)> {
            WakeQueue::pop_due(self, now)
        }
        fn peek_time(&self) -> Option<Instant> {
            WakeQueue::peek_time(self)
        }
        fn len(&self) -> usize {
            WakeQueue::len(self)
        }
    }

    /// Drive `Q` and a binary heap of `(time, stamp)` alike: every pop,
    /// peek and length agrees. Wakes are scheduled up to `span_ns` ahead
    /// on a 500 ns grid (many ties) when `span_ns` is at least 500 ns,
    /// else on a 1 ns grid; a twentieth `past_ns` before now (a wake armed
    /// for an instant already gone is due at once).
    pub(crate) fn agrees_with_a_binary_heap<Q: Queue>(seed: u64, span_ns: f64, past_ns: u64, steps: usize) {
        let mut rng = RngStream::new(seed, "wakes-test");
        let mut q = Q::default();
        let mut reference = BinaryHeap::new();
        let grid = if span_ns >= 500.0 { 500 } else { 1 };
        let (mut seq, mut now) = (0u64, 0u64);
        for step in 0..steps {
            if rng.uniform() < 0.55 {
                let ahead = (rng.uniform() * span_ns) as u64 / grid * grid;
                let at = if rng.uniform() < 0.05 { now.saturating_sub(past_ns) } else { now + ahead };
                let radio = (rng.uniform() * 3000.0) as u32;
                let w = match step % 4 {
                    0 => Wake::TxEnd { tx: step as u32 & 0x3f_ffff },
                    1 => Wake::Mac { radio },
                    2 => Wake::Mgmt { radio },
                    _ => Wake::Beacon { radio },
                };
                seq += 1;
                assert_eq!(q.push(Instant(at), w), seq, "stamps count pushes");
                reference.push(Reverse((Instant(at), seq, w)));
            } else {
                now += (rng.uniform() * span_ns / 20.0) as u64;
                loop {
                    let want = match reference.peek() {
                        Some(&Reverse((t, seq, w))) if t.0 <= now => Some((t, w, seq)),
                        _ => None,
                    };
                    assert_eq!(q.pop_due(Instant(now)), want, "step {step}");
                    if want.is_none() {
                        break;
                    }
                    reference.pop();
                }
            }
            assert_eq!(q.len(), reference.len(), "step {step}");
            assert_eq!(q.peek_time(), reference.peek().map(|Reverse((t, ..))| *t), "step {step}");
        }
    }

    /// Against a binary heap: the same wakes in the same order, with many
    /// ties in time and pushes between pops.
    #[test]
    fn pops_in_the_order_of_a_binary_heap_of_time_and_counter() {
        agrees_with_a_binary_heap::<WakeQueue>(7, 40.0, 0, 50_000);
    }

    /// A backlog several levels deep (the campus holds ~4,000 wakes), with
    /// pushes between pops: the same order as time, then stamp.
    #[test]
    fn a_deep_backlog_pops_in_time_and_stamp_order() {
        let mut q = WakeQueue::default();
        let mut want = BinaryHeap::new();
        for n in 0..20_000u64 {
            // Times spread over 0..3001 with many ties.
            let at = n * 7919 % 3001;
            let stamp = q.push(Instant(at), Wake::Mac { radio: n as u32 });
            want.push(Reverse((at, stamp)));
        }
        let mut popped = 0;
        while let Some(Reverse((at, stamp))) = want.pop() {
            popped += 1;
            let now = at;
            let (t, _, s) = q.pop_due(Instant(now)).expect("due");
            assert_eq!((t.0, s), (at, stamp));
            if popped % 7 == 0 && popped < 15_000 {
                let stamp = q.push(Instant(now + 3), Wake::TxEnd { tx: popped });
                want.push(Reverse((now + 3, stamp)));
            }
        }
        assert_eq!(q.len(), 0);
    }
}
