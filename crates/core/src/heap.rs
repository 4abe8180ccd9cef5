//! A 4-ary min-heap for event queues.
//!
//! Event queues order by a key that is unique (time, then an insertion
//! counter), so every correct priority queue pops the same sequence and
//! the choice is one of speed only. Against `std`'s binary heap this one
//! has half the levels and keeps a node's four children side by side (one
//! or two cache lines for 24-byte entries). The simulator's event queue
//! uses it; the WLAN medium's wakes have a variant of their own with
//! 16-byte entries laid out a cache line per group of children
//! (`airtcp_wifi`'s `medium/wakes.rs`).

/// A min-heap of `Copy` entries, smallest first by `Ord`. After warm-up
/// its capacity covers the largest backlog: push and pop allocate nothing.
#[derive(Clone, Debug)]
pub struct MinHeap4<T> {
    items: Vec<T>,
}

impl<T> Default for MinHeap4<T> {
    fn default() -> Self {
        MinHeap4 { items: Vec::new() }
    }
}

const ARITY: usize = 4;

impl<T: Ord + Copy> MinHeap4<T> {
    /// An empty heap with room for `n` entries before it allocates.
    pub fn with_capacity(n: usize) -> Self {
        MinHeap4 { items: Vec::with_capacity(n) }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the heap is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The smallest entry.
    #[inline]
    pub fn peek(&self) -> Option<&T> {
        self.items.first()
    }

    /// Add an entry; O(log₄ n), no allocation once capacity covers the backlog.
    #[inline]
    pub fn push(&mut self, e: T) {
        let mut i = self.items.len();
        self.items.push(e);
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if e >= self.items[parent] {
                break;
            }
            self.items[i] = self.items[parent];
            i = parent;
        }
        self.items[i] = e;
    }

    /// Remove and return the smallest entry.
    // Always: the simulator's run loop has two instantiations (with and
    // without the event queue's lane), and at two call sites the compiler
    // made this a call.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<T> {
        let last = self.items.pop()?;
        let n = self.items.len();
        if n == 0 {
            return Some(last);
        }
        let items = &mut self.items[..];
        let top = items[0];
        // Walk the hole at the root down to a leaf along the smallest
        // children, then bring `last` (a leaf's value: it rarely rises far)
        // up from there: one comparison fewer per level than sifting `last`
        // down (Floyd's bottom-up variant, as `std`'s heap does).
        let mut i = 0;
        // Levels with all four children: the smallest by a two-round
        // tournament on one bounds-checked group (the two first-round
        // comparisons are independent; keys are unique, so any order of
        // comparing finds the same child). This halved the instructions
        // of a pop on the campus benchmark against a loop over the group.
        loop {
            let first = i * ARITY + 1;
            let Some(g) = items.get(first..first + ARITY) else {
                break;
            };
            let a = usize::from(g[1] < g[0]);
            let b = 2 + usize::from(g[3] < g[2]);
            let best = first + if g[b] < g[a] { b } else { a };
            items[i] = items[best];
            i = best;
        }
        // A last, partial group.
        let first = i * ARITY + 1;
        if first < n {
            let mut best = first;
            for c in first + 1..n {
                if items[c] < items[best] {
                    best = c;
                }
            }
            items[i] = items[best];
            i = best;
        }
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if last >= items[parent] {
                break;
            }
            items[i] = items[parent];
            i = parent;
        }
        items[i] = last;
        Some(top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RngStream;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// Against `std`'s heap: the same entries in the same order, with ties
    /// in the first field and pushes between pops.
    #[test]
    fn pops_in_the_order_of_a_binary_heap() {
        let mut rng = RngStream::new(7, "heap-test");
        let mut q = MinHeap4::default();
        let mut reference = BinaryHeap::new();
        let (mut seq, mut now) = (0u64, 0u64);
        for step in 0..60_000 {
            if rng.uniform() < 0.55 {
                seq += 1;
                let e = (now + (rng.uniform() * 40.0) as u64, seq);
                q.push(e);
                reference.push(Reverse(e));
            } else {
                now += (rng.uniform() * 3.0) as u64;
                while reference.peek().is_some_and(|Reverse(e)| e.0 <= now) {
                    assert_eq!(q.pop(), reference.pop().map(|Reverse(e)| e), "step {step}");
                }
            }
            assert_eq!(q.len(), reference.len());
            assert_eq!(q.peek(), reference.peek().map(|Reverse(e)| e));
        }
        while let Some(Reverse(e)) = reference.pop() {
            assert_eq!(q.pop(), Some(e));
        }
        assert!(q.pop().is_none() && q.is_empty());
    }
}
