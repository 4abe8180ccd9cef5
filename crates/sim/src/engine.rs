//! The event queue. Events are small `Copy` values ordered by
//! `(time, class, insertion counter)`: the class makes ties at one instant
//! independent of the order in which unrelated components happened to
//! schedule them, and the counter makes the rest FIFO, so a run never depends
//! on the heap's internal layout.
//!
//! The queue is `airtcp_core::heap::MinHeap4` (a 4-ary heap, half the
//! levels of a binary one) over entries keyed
//! by one packed `u128` (`time << 64 | class << 56 | counter`), so ordering
//! an entry is one integer comparison. The simulator pops every event once:
//! this is its innermost loop.
//!
//! Beside the heap, one entry may wait in a *lane* ([`EventQueue::push_lane`]):
//! a component that re-arms one timer after every wake (the radio medium,
//! three quarters of the campus benchmark's events) keeps its next event
//! there instead of pushing it through the heap and popping it back out. A
//! lane entry gets its counter like any other, a second one moves the
//! first into the heap, and a pop takes whichever key is smaller: the
//! order of events is exactly the heap's alone. The lane is switched on
//! for a run that has a radio medium ([`EventQueue::use_lane`]), and such
//! a run pops with [`EventQueue::pop_until_lane`]; any other keeps the
//! plain [`EventQueue::pop_until`], whose code the lane does not touch
//! (a test per event there cost the wired benchmark 0.7 % of its
//! instructions, mostly in the heap's register allocation).

use std::cmp::Ordering;

use airtcp_core::heap::MinHeap4;
use airtcp_core::Instant;

/// Tie-break classes, lowest first at the same instant. Link state changes
/// come before the packets they affect, packets before the timers they may
/// cancel, and observation (sampling) last so it sees the instant's outcome.
pub mod class {
    pub const LINK_STATE: u8 = 0;
    pub const PACKET: u8 = 1;
    pub const APP: u8 = 2;
    pub const TIMER: u8 = 3;
    pub const SAMPLE: u8 = 4;
}

/// An event as one machine word in the queue. Written with one store and
/// read with one load: a small enum copied field by field (a tag byte and
/// a `u32` written apart, then read back as one wider load) defeats the
/// CPU's store-to-load forwarding, and an event is often popped right
/// after it was pushed; that stall held 8 % of the run loop's samples.
pub trait EventCode: Copy {
    fn encode(self) -> u64;
    fn decode(code: u64) -> Self;
}

impl EventCode for u32 {
    #[inline]
    fn encode(self) -> u64 {
        self as u64
    }
    #[inline]
    fn decode(code: u64) -> Self {
        code as u32
    }
}

#[derive(Clone, Copy)]
struct Entry {
    /// `time << 64 | class << 56 | insertion counter`.
    key: u128,
    /// The event, `EventCode::encode`d.
    code: u64,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        self.key.cmp(&o.key)
    }
}

/// A min-priority queue of events. After warm-up the heap's capacity covers
/// the largest backlog, so pushing and popping allocate nothing.
pub struct EventQueue<E: EventCode> {
    heap: MinHeap4<Entry>,
    /// The lane's entry, if `lane_full`.
    lane: Entry,
    lane_full: bool,
    /// Whether `push_lane` uses the lane (else it is `push`).
    lane_on: bool,
    counter: u64,
    executed: u64,
    _events: std::marker::PhantomData<E>,
}

const COUNTER_MASK: u64 = (1 << 56) - 1;

impl<E: EventCode> Default for EventQueue<E> {
    fn default() -> Self {
        Self::with_capacity(1024)
    }
}

impl<E: EventCode> EventQueue<E> {
    pub fn with_capacity(n: usize) -> Self {
        EventQueue { heap: MinHeap4::with_capacity(n), lane: Entry { key: 0, code: 0 }, lane_full: false, lane_on: false, counter: 0, executed: 0, _events: std::marker::PhantomData }
    }

    #[inline]
    fn entry(&mut self, time: Instant, class: u8, ev: E) -> Entry {
        let order = (class as u64) << 56 | (self.counter & COUNTER_MASK);
        self.counter += 1;
        Entry { key: (time.0 as u128) << 64 | order as u128, code: ev.encode() }
    }

    /// Schedule `ev` at `time` in tie-break `class` (see [`class`]).
    #[inline]
    pub fn push(&mut self, time: Instant, class: u8, ev: E) {
        let e = self.entry(time, class, ev);
        self.heap.push(e);
    }

    /// Switch the lane on: from now on pop with [`EventQueue::pop_until_lane`].
    pub fn use_lane(&mut self) {
        self.lane_on = true;
    }

    /// Whether the lane is on.
    #[inline]
    pub fn lane_on(&self) -> bool {
        self.lane_on
    }

    /// [`EventQueue::push`] through the lane: the same event at the same
    /// place in the order, kept beside the heap until it is popped or the
    /// next lane push moves it into the heap. For a timer re-armed after
    /// each of its wakes, the wake then costs no heap push or pop. With the
    /// lane off, a plain push.
    #[inline]
    pub fn push_lane(&mut self, time: Instant, class: u8, ev: E) {
        let e = self.entry(time, class, ev);
        if !self.lane_on {
            self.heap.push(e);
            return;
        }
        if self.lane_full {
            self.heap.push(self.lane);
        }
        self.lane = e;
        self.lane_full = true;
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<Instant> {
        let heap = self.heap.peek().map(|e| e.key);
        let top = if self.lane_full { Some(heap.map_or(self.lane.key, |h| h.min(self.lane.key))) } else { heap };
        top.map(|k| Instant((k >> 64) as u64))
    }

    /// Remove and return the next event if it is due at or before `limit`;
    /// counts it as executed. For a queue whose lane is off.
    #[inline]
    pub fn pop_until(&mut self, limit: Instant) -> Option<(Instant, E)> {
        debug_assert!(!self.lane_on);
        let time = (self.heap.peek()?.key >> 64) as u64;
        if time > limit.0 {
            return None;
        }
        let top = self.heap.pop().expect("peeked");
        self.executed += 1;
        Some((Instant(time), E::decode(top.code)))
    }

    /// [`EventQueue::pop_until`] for a queue whose lane is on: the lane's
    /// entry or the heap's top, whichever comes first.
    #[inline]
    pub fn pop_until_lane(&mut self, limit: Instant) -> Option<(Instant, E)> {
        if self.lane_full && self.heap.peek().is_none_or(|e| self.lane.key < e.key) {
            let time = (self.lane.key >> 64) as u64;
            if time > limit.0 {
                return None;
            }
            self.lane_full = false;
            self.executed += 1;
            return Some((Instant(time), E::decode(self.lane.code)));
        }
        let time = (self.heap.peek()?.key >> 64) as u64;
        if time > limit.0 {
            return None;
        }
        let top = self.heap.pop().expect("peeked");
        self.executed += 1;
        Some((Instant(time), E::decode(top.code)))
    }

    /// Events popped so far.
    pub fn executed(&self) -> u64 {
        self.executed
    }

    pub fn len(&self) -> usize {
        self.heap.len() + usize::from(self.lane_full)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use airtcp_core::RngStream;

    /// Against a sorted reference: random times, classes and interleaved
    /// pops, every entry comes out in `(time, class, insertion)` order.
    /// A `lane_share` of the pushes go through the lane (switched on if
    /// `lane`, else those are plain pushes).
    fn comes_out_in_key_order(seed: u64, lane: bool, lane_share: u64, steps: usize) {
        let mut rng = RngStream::new(seed, "engine-test");
        let mut q: EventQueue<u32> = EventQueue::default();
        if lane {
            q.use_lane();
        }
        let mut reference: Vec<(u64, u8, u32)> = Vec::new();
        let mut popped = Vec::new();
        let mut expected = Vec::new();
        let mut next_id = 0u32;
        let mut now = 0u64;
        for step in 0..steps {
            if rng.next_u64() % 3 != 0 {
                let t = now + rng.next_u64() % 50;
                let c = (rng.next_u64() % 5) as u8;
                if rng.next_u64() % 100 < lane_share {
                    q.push_lane(Instant(t), c, next_id);
                } else {
                    q.push(Instant(t), c, next_id);
                }
                reference.push((t, c, next_id));
                next_id += 1;
            } else if let Some((t, id)) = {
                let limit = Instant(now + rng.next_u64() % 60);
                if lane { q.pop_until_lane(limit) } else { q.pop_until(limit) }
            } {
                now = t.0;
                popped.push(id);
                // The reference minimum: ids grow with insertion, so they
                // break ties as the counter does.
                let (k, _) = reference.iter().enumerate().min_by_key(|(_, e)| (e.0, e.1, e.2)).unwrap();
                expected.push(reference.swap_remove(k).2);
            }
            if step % 8 == 0 {
                assert_eq!(q.len(), reference.len());
                assert_eq!(q.peek_time(), reference.iter().map(|e| Instant(e.0)).min());
            }
        }
        assert_eq!(popped, expected);
        assert!(expected.len() > steps / 4, "{} pops", expected.len());
    }

    #[test]
    fn random_pushes_and_pops_come_out_in_key_order() {
        comes_out_in_key_order(7, false, 0, 20_000);
    }

    /// Lane pushes (a second one moving the first into the heap) change
    /// nothing in the order, whether they are most pushes or a few, and
    /// with the lane off they are plain pushes.
    #[test]
    fn lane_pushes_come_out_in_key_order() {
        comes_out_in_key_order(8, true, 30, 6_000);
        comes_out_in_key_order(9, true, 90, 6_000);
        comes_out_in_key_order(10, false, 50, 6_000);
    }
}
