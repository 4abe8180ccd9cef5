//! Full-duplex point-to-point links. Each direction is a FIFO transmitter
//! with a DropTail queue: instead of simulating the queue packet by packet it
//! keeps the finish times of the frames not yet fully sent, so enqueueing a
//! frame costs O(1) amortised and schedules exactly one arrival event. An
//! optional discipline (`aqm.rs`: ECN step marking, RED) judges each arrival
//! before the tail-drop test.

pub mod aqm;
pub mod loss;
pub mod rate;
pub mod reorder;

use airtcp_core::{Duration, Ecn, Instant};

use aqm::{Action, Aqm};

use crate::ring::Ring;

pub use loss::{Fate, LossModel, LossProcess};
pub use rate::RateModel;
pub use reorder::Reorder;

/// DropTail capacity. As in ns-3's `DropTailQueue` on a point-to-point device,
/// the limit counts frames *waiting*, not the one being transmitted
/// (a 50-packet queue holds 50 + 1 in transmission).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u32),
    /// Waiting frame bytes (headers and link overhead included).
    Bytes(u64),
}

/// What happened to an offered frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The queue was full; the frame never used the link.
    QueueDrop,
    /// Sent from `start` to `finish`, then lost (`Fate::Lost` or `Fate::Outage`).
    Lost { start: Instant, finish: Instant, fate: Fate },
    /// Sent from `start` to `finish`; its last bit reaches the far end at `arrival`.
    Delivered { start: Instant, finish: Instant, arrival: Instant },
}

/// Counters of one direction (written as is into `summary.json`'s
/// `links[i].ab` / `.ba`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DirStats {
    /// Frames accepted for transmission (lost ones included).
    pub frames_sent: u64,
    pub bytes_sent: u64,
    /// Frames dropped at the queue: the DropTail limit and the AQM's drops.
    pub queue_drops: u64,
    /// The part of `queue_drops` the AQM (RED) decided.
    pub aqm_drops: u64,
    /// Frames the AQM CE-marked instead of dropping (RFC 3168 §5).
    pub ecn_marks: u64,
    /// Frames dropped by the loss model.
    pub loss_drops: u64,
    /// Frames that ended during an outage.
    pub outage_drops: u64,
    pub max_frame_bytes: u32,
    /// Most frames waiting at once (excluding the one in transmission).
    pub max_queue_packets: u32,
}

/// One direction of a link.
pub struct LinkDir {
    pub rate: RateModel,
    pub delay: Duration,
    pub limit: QueueLimit,
    /// Link-layer bytes added to each IP packet (2 for PPP as ns-3 frames it).
    pub overhead_bytes: u32,
    pub loss: LossProcess,
    pub reorder: Option<Reorder>,
    /// Queue discipline in front of the DropTail limit, if any.
    pub aqm: Option<Aqm>,
    pub stats: DirStats,
    /// `(finish time, frame bytes)` of frames not yet fully sent, oldest first.
    /// The front one is in transmission, the rest are waiting.
    backlog: Ring<(Instant, u32)>,
    /// Bytes of all frames in `backlog`.
    backlog_bytes: u64,
    last_finish: Instant,
    /// The last constant-rate serialisation time `(bps, frame bytes, ns)`:
    /// a direction carries frames of one or two sizes (full segments one
    /// way, ACKs the other), and the 64-bit division behind a fresh one
    /// costs tens of cycles per frame.
    serialisation: (u64, u32, u64),
}

impl LinkDir {
    pub fn new(rate: RateModel, delay: Duration, limit: QueueLimit, overhead_bytes: u32) -> Self {
        LinkDir {
            rate,
            delay,
            limit,
            overhead_bytes,
            loss: LossProcess::none(),
            reorder: None,
            aqm: None,
            stats: DirStats::default(),
            // Grown on first use (doubling, so a busy link reaches its working
            // size within its first few hundred frames): a 10,000-link
            // topology must not pay a queue's worth of memory per idle link.
            backlog: Ring::default(),
            backlog_bytes: 0,
            last_finish: Instant::ZERO,
            serialisation: (0, 0, 0),
        }
    }

    /// Frames waiting behind the one in transmission at `now` (after `enqueue`
    /// or `settle` at that time).
    pub fn waiting(&self) -> usize {
        self.backlog.len().saturating_sub(1)
    }

    /// Forget frames whose transmission ended by `now`.
    #[inline]
    fn settle(&mut self, now: Instant) {
        while let Some(&(finish, bytes)) = self.backlog.front() {
            if finish > now {
                break;
            }
            self.backlog.pop_front();
            self.backlog_bytes -= bytes as u64;
        }
    }

    /// Offer a Not-ECT IP packet of `ip_bytes` at `now`. The frame starts
    /// when the transmitter is free, the loss model judges it when it ends.
    #[inline]
    pub fn enqueue(&mut self, now: Instant, ip_bytes: u32) -> Verdict {
        let mut ecn = Ecn::NotEct;
        self.enqueue_ecn(now, ip_bytes, &mut ecn)
    }

    /// `enqueue` for a packet whose header carries `ecn`: the discipline
    /// may drop it, or set `ecn` to CE if it is ECN-capable and the queue
    /// takes it.
    #[inline]
    pub fn enqueue_ecn(&mut self, now: Instant, ip_bytes: u32, ecn: &mut Ecn) -> Verdict {
        self.settle(now);
        let frame = ip_bytes + self.overhead_bytes;
        let mut mark = false;
        if let Some(aqm) = &mut self.aqm {
            let head = self.backlog.front().map_or(0, |&(_, b)| b as u64);
            let idle_since = self.backlog.is_empty().then_some(self.last_finish);
            match aqm.on_arrival(now, self.backlog.len().saturating_sub(1), self.backlog_bytes - head, idle_since, *ecn) {
                Action::Enqueue => {}
                Action::Mark => mark = true,
                Action::Drop => {
                    self.stats.queue_drops += 1;
                    self.stats.aqm_drops += 1;
                    return Verdict::QueueDrop;
                }
            }
        }
        if let Some(&(_, head)) = self.backlog.front() {
            // Something is in transmission: the new frame must wait.
            let waiting = self.backlog.len() as u64 - 1;
            let full = match self.limit {
                QueueLimit::Packets(n) => waiting + 1 > n as u64,
                QueueLimit::Bytes(b) => self.backlog_bytes - head as u64 + frame as u64 > b,
            };
            if full {
                self.stats.queue_drops += 1;
                return Verdict::QueueDrop;
            }
        }
        if mark {
            *ecn = Ecn::Ce;
            self.stats.ecn_marks += 1;
        }
        let start = if self.last_finish > now { self.last_finish } else { now };
        let finish = match self.rate {
            RateModel::Constant { bps } => {
                if self.serialisation.0 != bps || self.serialisation.1 != frame {
                    self.serialisation = (bps, frame, rate::serialisation_ns(bps, frame));
                }
                start + Duration(self.serialisation.2)
            }
            _ => self.rate.finish_time(start, frame),
        };
        self.last_finish = finish;
        self.backlog.push_back((finish, frame));
        self.backlog_bytes += frame as u64;
        let st = &mut self.stats;
        st.frames_sent += 1;
        st.bytes_sent += frame as u64;
        st.max_frame_bytes = st.max_frame_bytes.max(frame);
        st.max_queue_packets = st.max_queue_packets.max(self.backlog.len() as u32 - 1);
        match self.loss.decide(finish, frame) {
            Fate::Delivered => {
                let extra = match &mut self.reorder {
                    Some(r) => r.extra(),
                    None => Duration::ZERO,
                };
                Verdict::Delivered { start, finish, arrival: finish + self.delay + extra }
            }
            fate => {
                if fate == Fate::Lost {
                    st.loss_drops += 1;
                } else {
                    st.outage_drops += 1;
                }
                Verdict::Lost { start, finish, fate }
            }
        }
    }
}
