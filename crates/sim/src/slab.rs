//! Packets in flight live in one arena and travel through the event queue as
//! a `u32` index, so an event stays a few bytes and a packet is never boxed.

/// A vector with a free list. Indices are reused, so after warm-up inserting
/// allocates nothing.
pub struct Slab<T> {
    items: Vec<T>,
    free: Vec<u32>,
}

impl<T: Copy + Default> Slab<T> {
    pub fn with_capacity(n: usize) -> Self {
        Slab { items: Vec::with_capacity(n), free: Vec::with_capacity(n) }
    }

    #[inline]
    pub fn insert(&mut self, v: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.items[i as usize] = v;
                i
            }
            None => {
                self.items.push(v);
                (self.items.len() - 1) as u32
            }
        }
    }

    /// Insert a value built in place by `fill` (on a default slot): no
    /// copy of a value assembled elsewhere a moment before, which the CPU
    /// cannot forward to the copy's wide loads (see `Network::send_tcp_from`).
    #[inline]
    pub fn insert_with(&mut self, fill: impl FnOnce(&mut T)) -> u32 {
        let i = match self.free.pop() {
            Some(i) => i,
            None => {
                self.items.push(T::default());
                (self.items.len() - 1) as u32
            }
        };
        fill(&mut self.items[i as usize]);
        i
    }

    #[inline]
    pub fn get(&self, i: u32) -> &T {
        &self.items[i as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, i: u32) -> &mut T {
        &mut self.items[i as usize]
    }

    /// Take the value out and recycle its slot.
    #[inline]
    pub fn remove(&mut self, i: u32) -> T {
        self.free.push(i);
        self.items[i as usize]
    }

    /// Slots currently in use.
    pub fn live(&self) -> usize {
        self.items.len() - self.free.len()
    }
}
