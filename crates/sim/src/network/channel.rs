//! The point-to-point link as a [`Medium`]: two directions, each a
//! closed-form queue and transmitter (`crate::link::LinkDir`) whose rate
//! model is a constant or a trace (Mahimahi, a drive log): a trace-driven
//! link is this medium with a trace's rate and loss models in its
//! directions.
//!
//! A link holds frames as slab indices: the network owns the frames, the
//! link only decides when (and whether) each reaches which end.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use airtcp_core::{Ecn, Instant};

use super::medium::{Medium, Tx};
use crate::link::{LinkDir, Verdict};
use crate::ring::Ring;

/// A frame handed back by a link: `frame` (slab index) has fully arrived
/// at attachment `end` of the link, and is the network's again. `ip_bytes` is the size it was
/// offered with, handed back so that a router forwarding it unchanged does
/// not measure the packet again (its TCP options) on every hop.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Delivery {
    pub frame: u32,
    pub end: u8,
    pub ip_bytes: u32,
}

/// A full-duplex point-to-point link: attachment 0 is the scenario's `a`,
/// 1 is `b`; direction `d` carries frames from attachment `d`.
///
/// A direction is FIFO, so its frames in flight wait in a queue of
/// `(arrival, frame, ip_bytes)` and only the earliest head matters for the timer: one
/// timer entry per channel however many frames are in flight. A frame that
/// the reordering model delays past later ones waits in a small heap instead.
pub struct PointToPoint {
    pub dirs: [LinkDir; 2],
    in_flight: [Ring<(Instant, u32, u32)>; 2],
    overtaken: BinaryHeap<Reverse<(Instant, u64, u32, u8, u32)>>,
    overtaken_seq: u64,
    /// The earliest pending arrival and where it waits (0/1: a direction's
    /// FIFO, 2: the overtaken heap), kept up to date so that `poll_timeout`
    /// and `poll_output` cost a comparison, not a search.
    head: Option<(Instant, u8)>,
    /// Time of the last `handle_timeout`: frames due by then are deliverable.
    now: Instant,
}

impl PointToPoint {
    pub fn new(ab: LinkDir, ba: LinkDir) -> PointToPoint {
        PointToPoint {
            dirs: [ab, ba],
            in_flight: [Ring::default(), Ring::default()],
            overtaken: BinaryHeap::new(),
            overtaken_seq: 0,
            head: None,
            now: Instant::ZERO,
        }
    }

    /// Recompute the earliest pending arrival. Ties go to direction a->b,
    /// then b->a, then overtaken frames.
    fn find_head(&mut self) {
        let mut best: Option<(Instant, u8)> = None;
        for d in 0..2 {
            if let Some(&(t, ..)) = self.in_flight[d].front() {
                if best.map_or(true, |(b, _)| t < b) {
                    best = Some((t, d as u8));
                }
            }
        }
        if let Some(Reverse((t, ..))) = self.overtaken.peek() {
            if best.map_or(true, |(b, _)| *t < b) {
                best = Some((*t, 2));
            }
        }
        self.head = best;
    }
}

impl PointToPoint {
    /// Offer `frame` of `ip_bytes` from end `from` at `now` ([`Medium::send`]
    /// of a link). On `Delivered` the link keeps the frame until
    /// `poll_output` returns it; otherwise the caller still owns (and
    /// frees) it.
    #[inline]
    pub fn enqueue(&mut self, now: Instant, from: u8, frame: u32, ip_bytes: u32, ecn: &mut Ecn) -> Verdict {
        let d = from as usize;
        let verdict = self.dirs[d].enqueue_ecn(now, ip_bytes, ecn);
        if let Verdict::Delivered { arrival, .. } = verdict {
            let fifo = &mut self.in_flight[d];
            let src = match fifo.back() {
                Some(&(last, ..)) if arrival < last => {
                    self.overtaken_seq += 1;
                    self.overtaken.push(Reverse((arrival, self.overtaken_seq, frame, 1 - from, ip_bytes)));
                    2
                }
                _ => {
                    fifo.push_back((arrival, frame, ip_bytes));
                    from
                }
            };
            // Only a strictly earlier arrival can become the head (ties keep
            // the older frame first, as the FIFOs do).
            if self.head.map_or(true, |(t, _)| arrival < t) {
                self.head = Some((arrival, src));
            }
        }
        verdict
    }
}

impl Medium for PointToPoint {
    type Verdict = Verdict;
    type Output = Delivery;

    #[inline]
    fn timer_slots(&self) -> usize {
        2
    }

    #[inline(always)]
    fn send(&mut self, now: Instant, tx: Tx<'_>) -> Verdict {
        self.enqueue(now, tx.from as u8, tx.frame, tx.ip_bytes, tx.ecn)
    }

    #[inline]
    fn poll_timeout(&self) -> Option<Instant> {
        self.head.map(|(t, _)| t)
    }

    #[inline]
    fn handle_timeout(&mut self, now: Instant) {
        self.now = now;
    }

    /// Next frame that has arrived, in arrival order. Always inline: it
    /// is a link's per-frame delivery, in both instantiations of the run
    /// loop (`world::Sim::run_events`).
    #[inline(always)]
    fn poll_output(&mut self) -> Option<Delivery> {
        let (t, src) = self.head?;
        if t > self.now {
            return None;
        }
        let delivery = if src < 2 {
            let (_, frame, ip_bytes) = self.in_flight[src as usize].pop_front().expect("head exists");
            Delivery { frame, end: 1 - src, ip_bytes }
        } else {
            let Reverse((_, _, frame, end, ip_bytes)) = self.overtaken.pop().expect("head exists");
            Delivery { frame, end, ip_bytes }
        };
        self.find_head();
        Some(delivery)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::{QueueLimit, RateModel};
    use airtcp_core::Duration;

    fn dir() -> LinkDir {
        // 8 Mb/s: one byte per microsecond; 10 ms propagation.
        LinkDir::new(RateModel::Constant { bps: 8_000_000 }, Duration::from_millis(10), QueueLimit::Packets(10), 0)
    }

    #[test]
    fn frames_arrive_after_transmission_and_delay_in_order() {
        let mut ch = PointToPoint::new(dir(), dir());
        assert!(matches!(ch.enqueue(Instant::ZERO, 0, 7, 1000, &mut Ecn::NotEct), Verdict::Delivered { .. }));
        assert!(matches!(ch.enqueue(Instant::ZERO, 1, 8, 500, &mut Ecn::NotEct), Verdict::Delivered { .. }));
        // b->a: 500 us + 10 ms; a->b: 1000 us + 10 ms.
        assert_eq!(ch.poll_timeout(), Some(Instant::ZERO + Duration::from_micros(10_500)));
        ch.handle_timeout(Instant::ZERO + Duration::from_micros(10_999));
        assert_eq!(ch.poll_output(), Some(Delivery { frame: 8, end: 0, ip_bytes: 500 }));
        assert_eq!(ch.poll_output(), None);
        ch.handle_timeout(Instant::ZERO + Duration::from_micros(11_000));
        assert_eq!(ch.poll_output(), Some(Delivery { frame: 7, end: 1, ip_bytes: 1000 }));
        assert_eq!(ch.poll_timeout(), None);
    }

    #[test]
    fn full_queue_refuses_the_frame_and_keeps_nothing() {
        let mut ch = PointToPoint::new(dir(), dir());
        for f in 0..11 {
            assert!(matches!(ch.enqueue(Instant::ZERO, 0, f, 1000, &mut Ecn::NotEct), Verdict::Delivered { .. }));
        }
        assert_eq!(ch.enqueue(Instant::ZERO, 0, 99, 1000, &mut Ecn::NotEct), Verdict::QueueDrop);
        ch.handle_timeout(Instant::ZERO + Duration::from_secs(1));
        let got: Vec<u32> = std::iter::from_fn(|| ch.poll_output()).map(|d| d.frame).collect();
        assert_eq!(got, (0..11).collect::<Vec<_>>());
    }
}
