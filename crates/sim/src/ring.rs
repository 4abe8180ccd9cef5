//! A FIFO of `Copy` entries in a power-of-two ring, for the packet path's
//! per-hop queues (a link direction's backlog, a channel's frames in
//! flight): every frame on every hop is pushed once and popped once, and
//! `VecDeque`'s general wrap-around arithmetic cost about a tenth of the
//! bulk-lossy benchmark's packet path. Here a slot is `head + i` masked,
//! and the ring grows by doubling (so after warm-up nothing allocates; an
//! idle link keeps no storage at all).

#[derive(Clone, Debug)]
pub struct Ring<T> {
    slots: Vec<T>,
    /// Index of the oldest entry, unmasked (wraps freely).
    head: u32,
    len: u32,
}

impl<T> Default for Ring<T> {
    fn default() -> Self {
        Ring { slots: Vec::new(), head: 0, len: 0 }
    }
}

impl<T: Copy + Default> Ring<T> {
    #[inline]
    fn mask(&self) -> u32 {
        self.slots.len() as u32 - 1
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        if self.len == 0 {
            return None;
        }
        // In bounds: the ring is non-empty, so its capacity is a power of two ≥ 1.
        Some(&self.slots[(self.head & self.mask()) as usize])
    }

    #[inline]
    pub fn back(&self) -> Option<&T> {
        if self.len == 0 {
            return None;
        }
        Some(&self.slots[(self.head.wrapping_add(self.len - 1) & self.mask()) as usize])
    }

    #[inline]
    pub fn push_back(&mut self, v: T) {
        if self.len as usize == self.slots.len() {
            self.grow();
        }
        let i = (self.head.wrapping_add(self.len) & self.mask()) as usize;
        self.slots[i] = v;
        self.len += 1;
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let v = self.slots[(self.head & self.mask()) as usize];
        self.head = self.head.wrapping_add(1);
        self.len -= 1;
        Some(v)
    }

    /// Double the capacity (at least 8), keeping the entries in order from slot 0.
    #[cold]
    fn grow(&mut self) {
        let cap = (self.slots.len() * 2).max(8);
        let mut slots = vec![T::default(); cap];
        for (k, s) in slots.iter_mut().take(self.len as usize).enumerate() {
            *s = self.slots[(self.head.wrapping_add(k as u32) & self.mask()) as usize];
        }
        self.slots = slots;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Against `VecDeque`: pushes and pops interleaved across many growths
    /// and wrap-arounds give the same sequence, fronts, backs and lengths.
    #[test]
    fn behaves_as_a_vecdeque_through_growth_and_wrap() {
        let mut ring: Ring<(u64, u32)> = Ring::default();
        let mut reference = VecDeque::new();
        let mut x: u64 = 12345;
        for step in 0..100_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Bias toward pushing in the first half, popping in the second.
            let push = if step < 50_000 { x % 5 < 3 } else { x % 5 < 2 };
            if push {
                ring.push_back((step, x as u32));
                reference.push_back((step, x as u32));
            } else {
                assert_eq!(ring.pop_front(), reference.pop_front(), "step {step}");
            }
            assert_eq!(ring.len(), reference.len());
            assert_eq!(ring.front(), reference.front());
            assert_eq!(ring.back(), reference.back());
        }
    }
}
