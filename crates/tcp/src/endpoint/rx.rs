//! Receive side bookkeeping: how far in-order data reaches, what the
//! application has read, out-of-order ranges waiting for a hole to fill, and
//! the SACK blocks to report (RFC 2018 §4: the block holding the most recent
//! segment first, then the most recently reported ones).
//!
//! Offsets are stream offsets (first data byte = 0). Both vectors keep their
//! capacity, so steady-state reassembly allocates nothing.

#[derive(Clone, Debug, Default)]
pub struct RecvBuf {
    /// Stream offset one past the last in-order byte (RCV.NXT without SYN/FIN).
    pub delivered: u64,
    /// Stream offset of the next byte the application will read.
    pub read: u64,
    /// Out-of-order ranges `[start, end)`, sorted, disjoint and not touching.
    pub ooo: Vec<(u64, u64)>,
    /// SACK blocks, most recent first.
    pub recent: Vec<(u64, u64)>,
}

/// What one insertion did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inserted {
    /// In-order bytes made available by this insertion (0 when out of order).
    pub advanced: u64,
    /// The segment was above RCV.NXT (out of order).
    pub out_of_order: bool,
    /// The insertion consumed out-of-order data (filled a hole, RFC 5681 §4.2).
    pub filled_hole: bool,
}

impl RecvBuf {
    pub fn with_capacity(n: usize) -> Self {
        RecvBuf { ooo: Vec::with_capacity(n), recent: Vec::with_capacity(n), ..Default::default() }
    }

    pub fn unread(&self) -> u64 {
        self.delivered - self.read
    }

    /// Adds `[s, e)` (already clipped to `s >= delivered`, `e > s`).
    pub fn insert(&mut self, s: u64, e: u64) -> Inserted {
        if s <= self.delivered {
            let before = self.delivered;
            let had_ooo = !self.ooo.is_empty();
            self.delivered = self.delivered.max(e);
            let mut n = 0;
            while n < self.ooo.len() && self.ooo[n].0 <= self.delivered {
                self.delivered = self.delivered.max(self.ooo[n].1);
                n += 1;
            }
            self.ooo.drain(..n);
            self.refresh_sacks();
            return Inserted { advanced: self.delivered - before, out_of_order: false, filled_hole: had_ooo && n > 0 };
        }
        // Merge into the sorted range list.
        let mut i = self.ooo.partition_point(|r| r.1 < s);
        let (mut ns, mut ne) = (s, e);
        let first = i;
        while i < self.ooo.len() && self.ooo[i].0 <= ne {
            ns = ns.min(self.ooo[i].0);
            ne = ne.max(self.ooo[i].1);
            i += 1;
        }
        self.ooo.drain(first..i);
        self.ooo.insert(first, (ns, ne));
        // The block holding the newest segment goes first (RFC 2018 §4).
        self.recent.insert(0, (ns, ne));
        self.refresh_sacks();
        Inserted { advanced: 0, out_of_order: true, filled_hole: false }
    }

    /// Replaces each remembered block by the current range containing it,
    /// dropping blocks now below RCV.NXT and duplicates.
    fn refresh_sacks(&mut self) {
        let mut w = 0;
        for r in 0..self.recent.len() {
            let left = self.recent[r].0;
            let cur = self.ooo.iter().copied().find(|o| o.0 <= left && left < o.1);
            if let Some(c) = cur {
                if !self.recent[..w].contains(&c) {
                    self.recent[w] = c;
                    w += 1;
                }
            }
        }
        self.recent.truncate(w);
        // Never needs more than MAX_SACK_BLOCKS.
        self.recent.truncate(airtcp_core::MAX_SACK_BLOCKS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hole_fill_absorbs_ooo_ranges() {
        let mut b = RecvBuf::default();
        assert_eq!(b.insert(0, 100).advanced, 100);
        let r = b.insert(200, 300);
        assert!(r.out_of_order);
        b.insert(400, 500);
        assert_eq!(b.recent, vec![(400, 500), (200, 300)]);
        b.insert(300, 400);
        assert_eq!(b.ooo, vec![(200, 500)]);
        assert_eq!(b.recent, vec![(200, 500)]);
        let r = b.insert(100, 200);
        assert_eq!(r, Inserted { advanced: 400, out_of_order: false, filled_hole: true });
        assert!(b.ooo.is_empty() && b.recent.is_empty());
        assert_eq!(b.delivered, 500);
    }
}
