//! The event queue. Events are small `Copy` values ordered by
//! `(time, class, insertion counter)`: the class makes ties at one instant
//! independent of the order in which unrelated components happened to
//! schedule them, and the counter makes the rest FIFO, so a run never depends
//! on the heap's internal layout.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

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

#[derive(Clone, Copy)]
struct Entry<E> {
    time: u64,
    /// `class << 56 | insertion counter`: one comparison orders both.
    order: u64,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.order == o.order
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed so `BinaryHeap` (a max-heap) pops the earliest entry.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then_with(|| o.order.cmp(&self.order))
    }
}

/// A min-priority queue of events. After warm-up the heap's capacity covers
/// the largest backlog, so pushing and popping allocate nothing.
pub struct EventQueue<E: Copy> {
    heap: BinaryHeap<Entry<E>>,
    counter: u64,
    executed: u64,
}

const COUNTER_MASK: u64 = (1 << 56) - 1;

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::with_capacity(1024)
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn with_capacity(n: usize) -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(n), counter: 0, executed: 0 }
    }

    /// Schedule `ev` at `time` in tie-break `class` (see [`class`]).
    pub fn push(&mut self, time: Instant, class: u8, ev: E) {
        let order = (class as u64) << 56 | (self.counter & COUNTER_MASK);
        self.counter += 1;
        self.heap.push(Entry { time: time.0, order, ev });
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<Instant> {
        self.heap.peek().map(|e| Instant(e.time))
    }

    /// Remove and return the next event if it is due at or before `limit`;
    /// counts it as executed.
    pub fn pop_until(&mut self, limit: Instant) -> Option<(Instant, E)> {
        match self.heap.peek() {
            Some(e) if e.time <= limit.0 => {
                let e = self.heap.pop().expect("peeked");
                self.executed += 1;
                Some((Instant(e.time), e.ev))
            }
            _ => None,
        }
    }

    /// Events popped so far.
    pub fn executed(&self) -> u64 {
        self.executed
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}
