//! The per-connection segment cache: seed 004's `snCacheInit` (`Cache::new`),
//! `snCachedPkt` (`insert`), `snCacheRetrieve` (`covering`) and
//! `snCacheDestroy` (`free_through`).
//!
//! Entries are kept sorted by sequence number in a ring buffer that keeps its
//! capacity, so steady-state caching allocates nothing. The endpoint's
//! segments carry no payload bytes, so an entry is a copy of the whole
//! `Packet` (headers as they left, TTL and IP ID included): a local
//! retransmission re-sends exactly what was first sent.

use std::collections::VecDeque;

use airtcp_core::{Packet, SeqNum};

/// One cached segment.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    pub pkt: Packet,
    pub seq: SeqNum,
    /// One past the last sequence number the segment occupies (FIN included).
    pub end: SeqNum,
    /// The connection's transmit count right after this segment's latest
    /// transmission by the sender: segments sent after it are those with a
    /// higher count (the "packets transmitted after the lost packet" of
    /// snoop_ack's duplicate-ACK case).
    pub tx_index: u64,
    /// Local retransmissions of this segment.
    pub local_rexmits: u32,
    /// Marked as retransmitted by the sender (snoop_data cases 2 and 3):
    /// duplicate ACKs for it go to the sender.
    pub sender_rexmit: bool,
}

pub(super) struct Cache {
    entries: VecDeque<Entry>,
    cap: usize,
}

/// Capacity reserved up front; the ring grows (and then keeps its size) if a
/// connection's window needs more, up to `cap`.
const INITIAL_RESERVE: usize = 64;

impl Cache {
    pub fn new(cap: u32) -> Cache {
        let cap = cap as usize;
        Cache { entries: VecDeque::with_capacity(cap.min(INITIAL_RESERVE)), cap }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn is_full(&self) -> bool {
        self.entries.len() >= self.cap
    }

    pub fn head(&self) -> Option<&Entry> {
        self.entries.front()
    }

    pub fn get(&self, i: usize) -> &Entry {
        &self.entries[i]
    }

    pub fn get_mut(&mut self, i: usize) -> &mut Entry {
        &mut self.entries[i]
    }

    /// Cache `e` in sequence order; `false` (and nothing cached) when full.
    pub fn insert(&mut self, e: Entry) -> bool {
        if self.is_full() {
            return false;
        }
        // Common case: the new segment is the highest (append).
        match self.entries.back() {
            Some(last) if e.seq < last.seq => {
                let i = self.entries.partition_point(|x| x.seq < e.seq);
                self.entries.insert(i, e);
            }
            _ => self.entries.push_back(e),
        }
        true
    }

    /// Index of the entry starting exactly at `seq`.
    pub fn find(&self, seq: SeqNum) -> Option<usize> {
        let i = self.entries.partition_point(|x| x.seq < seq);
        (i < self.entries.len() && self.entries[i].seq == seq).then_some(i)
    }

    /// Index of the entry whose sequence space holds `seq`.
    pub fn covering(&self, seq: SeqNum) -> Option<usize> {
        let i = self.entries.partition_point(|x| x.end <= seq);
        (i < self.entries.len() && self.entries[i].seq <= seq).then_some(i)
    }

    /// Drop every entry wholly below `ack`; a partly acknowledged entry
    /// stays (its unacknowledged tail may still need a retransmission).
    /// Returns how many entries were freed.
    pub fn free_through(&mut self, ack: SeqNum) -> usize {
        let mut n = 0;
        while self.entries.front().is_some_and(|e| e.end <= ack) {
            self.entries.pop_front();
            n += 1;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use airtcp_core::Segment;

    fn entry(seq: u32, len: u32) -> Entry {
        let seg = Segment { seq: SeqNum(seq), payload_len: len, ..Default::default() };
        Entry {
            pkt: Packet::tcp([1; 4], [2; 4], 64, 0, seg),
            seq: SeqNum(seq),
            end: SeqNum(seq) + len,
            tx_index: 0,
            local_rexmits: 0,
            sender_rexmit: false,
        }
    }

    #[test]
    fn entries_stay_sorted_and_lookups_wrap() {
        let base = u32::MAX - 1500;
        let mut c = Cache::new(4);
        assert!(c.insert(entry(base, 1000)));
        assert!(c.insert(entry(base.wrapping_add(2000), 1000)));
        assert!(c.insert(entry(base.wrapping_add(1000), 1000)), "an out-of-order insert");
        assert_eq!(c.get(1).seq, SeqNum(base.wrapping_add(1000)));
        assert_eq!(c.find(SeqNum(base.wrapping_add(2000))), Some(2));
        assert_eq!(c.covering(SeqNum(base.wrapping_add(1999))), Some(1));
        assert_eq!(c.covering(SeqNum(base.wrapping_add(3000))), None);
        assert_eq!(c.free_through(SeqNum(base.wrapping_add(1500))), 1);
        assert_eq!(c.head().unwrap().seq, SeqNum(base.wrapping_add(1000)), "partly acked entry stays");
    }

    #[test]
    fn full_cache_refuses() {
        let mut c = Cache::new(2);
        assert!(c.insert(entry(0, 10)));
        assert!(c.insert(entry(10, 10)));
        assert!(c.is_full());
        assert!(!c.insert(entry(20, 10)));
        assert_eq!(c.len(), 2);
    }
}
