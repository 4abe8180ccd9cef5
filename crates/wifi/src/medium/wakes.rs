//! The medium's internal timers: wakes ordered by `(time, insertion
//! counter)` in a 4-ary heap (`airtcp_core::heap`).
//!
//! The counter is unique, so the order is total and any correct priority
//! queue pops the same sequence: this one replaces a `BinaryHeap` of
//! `Reverse<(Instant, u64, Wake)>` (32-byte entries) by 24-byte entries:
//! the wake is packed into a word, its kind into the counter's two low
//! bits (the counter is shifted up, so ordering by the packed word is
//! ordering by the counter; the data word never decides).

use airtcp_core::heap::MinHeap4;
use airtcp_core::Instant;

use super::Wake;

#[derive(Clone, Copy)]
struct Entry {
    at: u64,
    /// `counter << 2 | kind`.
    order: u64,
    /// The wake's fields: `radio << 32 | gen`, or the transmission.
    data: u64,
}

/// Ordered by time, then counter, as one 128-bit number (compared without
/// branches); `order` is unique, so `data` never decides.
impl Ord for Entry {
    #[inline]
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.key().cmp(&o.key())
    }
}
impl PartialOrd for Entry {
    #[inline]
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
    #[inline]
    fn lt(&self, o: &Self) -> bool {
        self.key() < o.key()
    }
    #[inline]
    fn ge(&self, o: &Self) -> bool {
        self.key() >= o.key()
    }
}
impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
    }
}
impl Eq for Entry {}

impl Entry {
    #[inline]
    fn key(&self) -> u128 {
        (self.at as u128) << 64 | self.order as u128
    }

    fn wake(&self) -> Wake {
        let (hi, lo) = ((self.data >> 32) as u32, self.data as u32);
        match self.order & 3 {
            0 => Wake::TxEnd { tx: lo },
            1 => Wake::Mac { radio: hi, gen: lo },
            2 => Wake::Mgmt { radio: hi, gen: lo },
            _ => Wake::Beacon { radio: lo },
        }
    }
}

#[derive(Default)]
pub(crate) struct WakeQueue {
    heap: MinHeap4<Entry>,
    counter: u64,
}

impl WakeQueue {
    /// Schedule `w` at `at`, after every wake already scheduled for `at`.
    pub(crate) fn push(&mut self, at: Instant, w: Wake) {
        self.counter += 1;
        let (kind, data) = match w {
            Wake::TxEnd { tx } => (0, tx as u64),
            Wake::Mac { radio, gen } => (1, (radio as u64) << 32 | gen as u64),
            Wake::Mgmt { radio, gen } => (2, (radio as u64) << 32 | gen as u64),
            Wake::Beacon { radio } => (3, radio as u64),
        };
        self.heap.push(Entry {
            at: at.0,
            order: self.counter << 2 | kind,
            data,
        });
    }

    /// Time of the earliest wake.
    #[inline]
    pub(crate) fn peek_time(&self) -> Option<Instant> {
        self.heap.peek().map(|e| Instant(e.at))
    }

    /// Remove and return the earliest wake if it is due by `now`.
    pub(crate) fn pop_due(&mut self, now: Instant) -> Option<(Instant, Wake)> {
        if self.heap.peek()?.at > now.0 {
            return None;
        }
        let e = self.heap.pop().expect("peeked");
        Some((Instant(e.at), e.wake()))
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.heap.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    use airtcp_core::RngStream;

    /// Against the heap it replaces: the same wakes in the same order,
    /// with many ties in time and pushes between pops.
    #[test]
    fn pops_in_the_order_of_a_binary_heap_of_time_and_counter() {
        let mut rng = RngStream::new(7, "wakes-test");
        let mut q = WakeQueue::default();
        let mut reference = BinaryHeap::new();
        let (mut seq, mut now) = (0u64, 0u64);
        for step in 0..50_000 {
            if rng.uniform() < 0.55 {
                let at = now + (rng.uniform() * 40.0) as u64;
                let (radio, gen) = (
                    (rng.uniform() * 3000.0) as u32,
                    (rng.uniform() * 4e9) as u32,
                );
                let w = match step % 4 {
                    0 => Wake::TxEnd { tx: gen },
                    1 => Wake::Mac { radio, gen },
                    2 => Wake::Mgmt { radio, gen },
                    _ => Wake::Beacon { radio },
                };
                seq += 1;
                q.push(Instant(at), w);
                reference.push(Reverse((Instant(at), seq, w)));
            } else {
                now += (rng.uniform() * 3.0) as u64;
                loop {
                    let want = match reference.peek() {
                        Some(&Reverse((t, _, w))) if t.0 <= now => Some((t, w)),
                        _ => None,
                    };
                    assert_eq!(q.pop_due(Instant(now)), want, "step {step}");
                    if want.is_none() {
                        break;
                    }
                    reference.pop();
                }
            }
            assert_eq!(q.len(), reference.len());
            assert_eq!(q.peek_time(), reference.peek().map(|Reverse((t, ..))| *t));
        }
    }
}
