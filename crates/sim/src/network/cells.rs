//! The plain point-to-point wireless hop (`[wifi] medium = "p2p"`): each
//! cell is a lossless full-duplex link of one rate between its base station
//! (an AP radio) and the stations in it, with no contention, no PHY and no
//! management frames. It stands in for the 802.11 medium behind the same
//! outputs ([`WlanOutput`]), so the network, and every agent that listens
//! for the link layer's events, run over it unchanged:
//!
//! - **Cells from the handoff timeline.** A station starts in its `ap`'s
//!   cell and follows its scripted handoffs (`roam_at = [[t, "ap2",
//!   away]]`): at `t` it leaves its cell (`LinkLost` at the station,
//!   `ApDisassociated` at the base station), and after `away` it is in
//!   `ap2`'s (`Associated`, `ApAssociated`). The timeline is known from the
//!   start, so whether a link is up at an instant is a lookup, never a tick.
//! - **Transmitters.** Each radio sends one frame at a time at the cell
//!   rate from a DropTail interface queue (`queue_packets` waiting), as a
//!   point-to-point link's direction does; a base station's frames for its
//!   stations share its transmitter. A station's frames go to the base
//!   station whose cell it is in, whatever the next hop (as a station's go
//!   to its AP); broadcasts reach every station in the sender's cell.
//! - **Delivery failure.** A unicast frame whose receiver is not in the
//!   sender's cell when an attempt ends is sent again, up to the retry
//!   limit (`short_retry_limit`, 802.11's dot11ShortRetryLimit default 7,
//!   the "retry limit equivalent"); each attempt holds the transmitter for
//!   the frame's time. After the last, the frame is dropped and reported
//!   (`RetryDrop`, the cross-layer signal Wi-TCP's EHO-ACK needs). A
//!   receiver that comes back during the retries gets the frame.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use airtcp_core::{Duration, Instant};
use airtcp_wifi::mac::{MacCounters, BROADCAST};
use airtcp_wifi::medium::WlanOutput;
use airtcp_wifi::mgmt::{MgmtEvent, Trigger};

use super::medium::{Medium, RadioMedium, Tx};

/// The cells' shared parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellParams {
    pub bps: u64,
    /// Propagation delay of the hop.
    pub delay: Duration,
    /// Attempts of a unicast frame before it is dropped (at least 1).
    pub attempts: u32,
}

/// One radio as the cells see it.
#[derive(Clone, Debug)]
pub struct CellRadio {
    pub is_ap: bool,
    /// Frames that may wait behind the one in transmission.
    pub queue_limit: u32,
    /// A station's cells: `(from, base station radio or none)`, in time
    /// order, the first from time zero. Empty for a base station.
    pub timeline: Vec<(Instant, Option<u32>)>,
}

impl CellRadio {
    /// A station that starts in `ap`'s cell and follows `handoffs`
    /// (`(at, new ap, time away)`, in time order).
    pub fn station(queue_limit: u32, ap: Option<u32>, handoffs: &[(Instant, u32, Duration)]) -> CellRadio {
        let mut timeline = vec![(Instant::ZERO, ap)];
        for &(at, to, away) in handoffs {
            if away > Duration::ZERO {
                timeline.push((at, None));
            }
            timeline.push((at + away, Some(to)));
        }
        CellRadio { is_ap: false, queue_limit, timeline }
    }
}

/// What falls due, in (time, insertion) order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Due {
    /// Station `sta` reaches entry `idx` of its timeline.
    Step { sta: u32, idx: u32 },
    Deliver { handle: u32, to: u32 },
    Release { handle: u32, from: u32 },
    Fail { handle: u32, from: u32, dst: u32 },
}

pub struct Cells {
    p: CellParams,
    radios: Vec<CellRadio>,
    /// Per radio: finish times of the frames not yet sent, the front one in
    /// transmission.
    backlog: Vec<VecDeque<Instant>>,
    last_finish: Vec<Instant>,
    counters: Vec<MacCounters>,
    due: BinaryHeap<Reverse<(Instant, u64, Due)>>,
    seq: u64,
    out: VecDeque<WlanOutput>,
}

impl Cells {
    pub fn new(p: CellParams, radios: Vec<CellRadio>) -> Cells {
        let n = radios.len();
        let mut c = Cells {
            p,
            backlog: vec![VecDeque::new(); n],
            last_finish: vec![Instant::ZERO; n],
            counters: vec![MacCounters::default(); n],
            due: BinaryHeap::new(),
            seq: 0,
            out: VecDeque::new(),
            radios,
        };
        for sta in 0..n {
            for idx in 1..c.radios[sta].timeline.len() {
                let t = c.radios[sta].timeline[idx].0;
                c.push(t, Due::Step { sta: sta as u32, idx: idx as u32 });
            }
        }
        c
    }

    fn push(&mut self, t: Instant, d: Due) {
        self.seq += 1;
        self.due.push(Reverse((t, self.seq, d)));
    }

    /// The stations' first associations, reported at the start.
    pub fn start(&mut self) {
        for sta in 0..self.radios.len() {
            if let Some(&(_, Some(ap))) = self.radios[sta].timeline.first() {
                self.joined(sta as u32, ap, false);
            }
        }
    }

    pub fn is_ap(&self, radio: u32) -> bool {
        self.radios[radio as usize].is_ap
    }

    pub fn radio_count(&self) -> usize {
        self.radios.len()
    }

    pub fn counters(&self, radio: u32) -> &MacCounters {
        &self.counters[radio as usize]
    }

    /// The base station whose cell station `radio` is in at `t`.
    pub fn cell_of(&self, radio: u32, t: Instant) -> Option<u32> {
        let tl = &self.radios[radio as usize].timeline;
        let k = tl.partition_point(|e| e.0 <= t);
        k.checked_sub(1).and_then(|k| tl[k].1)
    }

    /// Where a frame `from` sends reaches at `t`: a station's base station;
    /// a base station's `da` if it is in the cell.
    fn receiver(&self, from: u32, da: u32, t: Instant) -> Option<u32> {
        if self.radios[from as usize].is_ap {
            (!self.radios[da as usize].is_ap && self.cell_of(da, t) == Some(from)).then_some(da)
        } else {
            self.cell_of(from, t)
        }
    }

    /// Offer frame `handle` of `bytes` at radio `from` toward radio `da`
    /// (or [`BROADCAST`]). False: the interface queue was full (the caller
    /// keeps the frame).
    pub fn enqueue(&mut self, now: Instant, from: u32, handle: u32, bytes: u32, da: u32) -> bool {
        let f = from as usize;
        while self.backlog[f].front().is_some_and(|&t| t <= now) {
            self.backlog[f].pop_front();
        }
        self.counters[f].enqueued += 1;
        if self.backlog[f].len() > self.radios[f].queue_limit as usize {
            self.counters[f].queue_drops += 1;
            return false;
        }
        let air = Duration((bytes as u64 * 8 * 1_000_000_000).div_ceil(self.p.bps));
        let start = self.last_finish[f].max(now);
        let finish = if da == BROADCAST { self.broadcast(from, handle, start + air) } else { self.unicast(from, handle, da, start, air) };
        self.last_finish[f] = finish;
        self.backlog[f].push_back(finish);
        true
    }

    fn broadcast(&mut self, from: u32, handle: u32, end: Instant) -> Instant {
        let c = &mut self.counters[from as usize];
        c.data_tx += 1;
        c.broadcast_tx += 1;
        let arrival = end + self.p.delay;
        for to in 0..self.radios.len() as u32 {
            let reached = if self.radios[from as usize].is_ap {
                !self.radios[to as usize].is_ap && self.cell_of(to, end) == Some(from)
            } else {
                self.cell_of(from, end) == Some(to)
            };
            if reached {
                self.push(arrival, Due::Deliver { handle, to });
            }
        }
        self.push(arrival, Due::Release { handle, from });
        end
    }

    fn unicast(&mut self, from: u32, handle: u32, da: u32, start: Instant, air: Duration) -> Instant {
        let mut end = start;
        for k in 0..self.p.attempts {
            end = end + air;
            let c = &mut self.counters[from as usize];
            c.data_tx += 1;
            c.retries += (k > 0) as u64;
            if let Some(to) = self.receiver(from, da, end) {
                self.counters[from as usize].acked += 1;
                let arrival = end + self.p.delay;
                self.push(arrival, Due::Deliver { handle, to });
                self.push(arrival, Due::Release { handle, from });
                return end;
            }
            self.counters[from as usize].failed_tx += 1;
        }
        self.counters[from as usize].retry_drops += 1;
        self.push(end, Due::Fail { handle, from, dst: da });
        end
    }

    pub fn poll_timeout(&self) -> Option<Instant> {
        self.due.peek().map(|Reverse((t, ..))| *t)
    }

    /// Everything due by `now` becomes output.
    pub fn handle_timeout(&mut self, now: Instant) {
        while let Some(&Reverse((t, _, d))) = self.due.peek() {
            if t > now {
                break;
            }
            self.due.pop();
            match d {
                Due::Step { sta, idx } => self.step(sta, idx as usize),
                Due::Deliver { handle, to } => {
                    self.counters[to as usize].rx_data += 1;
                    self.out.push_back(WlanOutput::Delivered { handle, radio: to });
                }
                Due::Release { handle, from } => self.out.push_back(WlanOutput::Released { handle, radio: from }),
                Due::Fail { handle, from, dst } => {
                    self.out.push_back(WlanOutput::RetryDrop { handle, radio: from, dst });
                    self.out.push_back(WlanOutput::Released { handle, radio: from });
                }
            }
        }
    }

    pub fn poll_output(&mut self) -> Option<WlanOutput> {
        self.out.pop_front()
    }

    fn step(&mut self, sta: u32, idx: usize) {
        let tl = &self.radios[sta as usize].timeline;
        let (old, new) = (tl[idx - 1].1, tl[idx].1);
        if old == new {
            return;
        }
        if let Some(ap) = old {
            self.out.push_back(WlanOutput::Mgmt { radio: sta, event: MgmtEvent::LinkLost { ap, trigger: Trigger::Scripted } });
            self.out.push_back(WlanOutput::Mgmt { radio: ap, event: MgmtEvent::ApDisassociated { sta } });
        }
        if let Some(ap) = new {
            self.joined(sta, ap, true);
        }
    }

    fn joined(&mut self, sta: u32, ap: u32, reassoc: bool) {
        // Association identifiers as 802.11 numbers them, from 1.
        let aid = (sta + 1).min(2007) as u16;
        self.out.push_back(WlanOutput::Mgmt { radio: sta, event: MgmtEvent::Associated { ap, aid, reassoc } });
        self.out.push_back(WlanOutput::Mgmt { radio: ap, event: MgmtEvent::ApAssociated { sta, aid } });
    }
}

/// The cells behind the seam: their own methods under the seam's names.
impl Medium for Cells {
    type Verdict = bool;
    type Output = WlanOutput;

    fn timer_slots(&self) -> usize {
        1
    }

    fn start(&mut self) {
        Cells::start(self)
    }

    fn send(&mut self, now: Instant, tx: Tx<'_>) -> bool {
        self.enqueue(now, tx.from, tx.frame, tx.ip_bytes, tx.to)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        Cells::poll_timeout(self)
    }

    fn handle_timeout(&mut self, now: Instant) {
        Cells::handle_timeout(self, now)
    }

    fn poll_output(&mut self) -> Option<WlanOutput> {
        Cells::poll_output(self)
    }
}

impl RadioMedium for Cells {
    fn is_ap(&self, radio: u32) -> bool {
        Cells::is_ap(self, radio)
    }

    /// No queue is reported: the cells' backlog holds finish times, not
    /// frames a saturated sender could refill.
    fn mac_queue_len(&self, _radio: u32) -> usize {
        0
    }

    fn radio_count(&self) -> usize {
        Cells::radio_count(self)
    }

    fn counters(&self, radio: u32) -> &MacCounters {
        Cells::counters(self, radio)
    }

    fn signal_series(&self, _radio: u32) -> &[(Instant, f32)] {
        &[]
    }

    fn ap_at_end(&self, radio: u32, end: Instant) -> Option<u32> {
        if Cells::is_ap(self, radio) {
            None
        } else {
            self.cell_of(radio, end)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AP0: u32 = 0;
    const AP1: u32 = 1;
    const STA: u32 = 2;

    fn ms(x: u64) -> Instant {
        Instant::from_millis(x)
    }

    /// 2 Mb/s (a 1000-byte frame takes 4 ms), 1 ms propagation, 7 attempts;
    /// the station in AP0's cell, gone at 100 ms, in AP1's from 150 ms.
    fn cells() -> Cells {
        let p = CellParams { bps: 2_000_000, delay: Duration::from_millis(1), attempts: 7 };
        let ap = CellRadio { is_ap: true, queue_limit: 2, timeline: Vec::new() };
        let sta = CellRadio::station(50, Some(AP0), &[(ms(100), AP1, Duration::from_millis(50))]);
        Cells::new(p, vec![ap.clone(), ap, sta])
    }

    fn run(c: &mut Cells, t: Instant) -> Vec<WlanOutput> {
        c.handle_timeout(t);
        std::iter::from_fn(|| c.poll_output()).collect()
    }

    #[test]
    fn frame_in_the_cell_arrives_after_its_time_and_the_delay() {
        let mut c = cells();
        assert!(c.enqueue(ms(0), AP0, 7, 1000, STA));
        assert!(c.enqueue(ms(0), AP0, 8, 1000, STA));
        assert_eq!(c.poll_timeout(), Some(ms(5)));
        assert_eq!(run(&mut c, ms(5)), [WlanOutput::Delivered { handle: 7, radio: STA }, WlanOutput::Released { handle: 7, radio: AP0 }]);
        assert_eq!(c.poll_timeout(), Some(ms(9)), "the second waited for the first");
        assert_eq!(run(&mut c, ms(9))[0], WlanOutput::Delivered { handle: 8, radio: STA });
        // The station's frames go to the base station of its cell, whatever `da`.
        assert!(c.enqueue(ms(20), STA, 9, 500, AP1));
        assert!(run(&mut c, ms(22)).is_empty());
        assert_eq!(run(&mut c, ms(23)), [WlanOutput::Delivered { handle: 9, radio: AP0 }, WlanOutput::Released { handle: 9, radio: STA }]);
    }

    #[test]
    fn full_interface_queue_refuses_the_frame() {
        let mut c = cells();
        for h in 0..3 {
            assert!(c.enqueue(ms(0), AP0, h, 1000, STA));
        }
        assert!(!c.enqueue(ms(0), AP0, 3, 1000, STA));
        assert_eq!(c.counters(AP0).queue_drops, 1);
    }

    #[test]
    fn frame_to_a_station_out_of_the_cell_fails_after_the_retry_limit() {
        let mut c = cells();
        assert_eq!(run(&mut c, ms(100)), [
            WlanOutput::Mgmt { radio: STA, event: MgmtEvent::LinkLost { ap: AP0, trigger: Trigger::Scripted } },
            WlanOutput::Mgmt { radio: AP0, event: MgmtEvent::ApDisassociated { sta: STA } },
        ]);
        assert!(c.enqueue(ms(101), AP0, 5, 1000, STA));
        // Seven attempts of 4 ms: dropped and reported at 129 ms.
        assert_eq!(c.poll_timeout(), Some(ms(129)));
        assert_eq!(run(&mut c, ms(129)), [WlanOutput::RetryDrop { handle: 5, radio: AP0, dst: STA }, WlanOutput::Released { handle: 5, radio: AP0 }]);
        let k = c.counters(AP0);
        assert_eq!((k.data_tx, k.retries, k.retry_drops, k.acked), (7, 6, 1, 0));
        // Broadcasts into an empty cell reach nobody and are just released.
        assert!(c.enqueue(ms(130), AP0, 6, 100, BROADCAST));
        assert_eq!(run(&mut c, ms(140)), [WlanOutput::Released { handle: 6, radio: AP0 }]);
    }

    /// ns-2 keeps a departed host's frames in the base station's interface
    /// queue: its 802.11 MAC tries each to the retry limit, and DSDV's
    /// `lost_link` (`use_mac_ 0`, ns-default.tcl) drops only the frame that
    /// failed (the loop that would purge the queue is `#if 0` in dsdv.cc).
    /// The cells do the same: nothing is flushed at the departure.
    #[test]
    fn frames_queued_at_the_departure_stay_queued_and_fail_one_after_another() {
        let mut c = cells();
        assert!(c.enqueue(ms(97), AP0, 1, 1000, STA));
        assert!(c.enqueue(ms(97), AP0, 2, 1000, STA));
        assert_eq!(run(&mut c, ms(100)).len(), 2, "the departure");
        assert_eq!(run(&mut c, ms(125)), [WlanOutput::RetryDrop { handle: 1, radio: AP0, dst: STA }, WlanOutput::Released { handle: 1, radio: AP0 }]);
        assert_eq!(c.poll_timeout(), Some(ms(150)), "next: the arrival in AP1's cell; frame 2, tried from 125 ms, still pending");
        run(&mut c, ms(150));
        assert_eq!(run(&mut c, ms(153)), [WlanOutput::RetryDrop { handle: 2, radio: AP0, dst: STA }, WlanOutput::Released { handle: 2, radio: AP0 }]);
        assert_eq!((c.counters(AP0).data_tx, c.counters(AP0).retry_drops), (14, 2));
    }

    #[test]
    fn station_reappears_in_the_new_cell_and_a_retried_frame_reaches_it() {
        let mut c = cells();
        run(&mut c, ms(100));
        let out = run(&mut c, ms(150));
        assert_eq!(out, [
            WlanOutput::Mgmt { radio: STA, event: MgmtEvent::Associated { ap: AP1, aid: 3, reassoc: true } },
            WlanOutput::Mgmt { radio: AP1, event: MgmtEvent::ApAssociated { sta: STA, aid: 3 } },
        ]);
        assert_eq!(c.cell_of(STA, ms(149)), None);
        assert_eq!(c.cell_of(STA, ms(150)), Some(AP1));
        // AP1 starts a frame at 140 ms: attempts end at 144, 148, 152 (in).
        let mut c = cells();
        run(&mut c, ms(140));
        assert!(c.enqueue(ms(140), AP1, 4, 1000, STA));
        assert_eq!(c.poll_timeout(), Some(ms(150)));
        run(&mut c, ms(150));
        assert_eq!(run(&mut c, ms(153)), [WlanOutput::Delivered { handle: 4, radio: STA }, WlanOutput::Released { handle: 4, radio: AP1 }]);
        assert_eq!(c.counters(AP1).retries, 2);
    }
}
