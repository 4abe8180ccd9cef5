//! Loss models of one link direction. The decision is taken for the frame
//! whose transmission ends at `finish`: a lost frame has still used the link
//! (as ns-3's receive error model and a radio that fails to decode do).
//! Decisions are made in transmission order, which per direction is FIFO, so
//! the draws of a stream are the same whatever else the run contains.

use airtcp_core::{Instant, RngStream};

use crate::trace::LossSchedule;

/// Per-frame loss process without memory of time.
#[derive(Clone, Debug, PartialEq)]
pub enum LossModel {
    None,
    /// Each frame lost with probability `p` (seed 004's packet error generator).
    Uniform { p: f64 },
    /// Independent bit errors: P(loss) = 1 - (1 - ber)^(frame bits).
    BitErrorRate { ber: f64 },
    /// Two-state Markov chain advanced once per frame (Gilbert 1960, Elliott 1963):
    /// `p_gb` good->bad, `p_bg` bad->good, per-state loss probabilities.
    GilbertElliott { p_gb: f64, p_bg: f64, loss_good: f64, loss_bad: f64 },
    /// Probability that follows time (a drive log's signal through its loss
    /// curve): the frame ending at `finish` is lost with `prob_at(finish)`.
    /// Built by the simulator from a `[links.trace]`, never by a loss table.
    Schedule(LossSchedule),
    /// Drop exactly the frames numbered in `drops` (0-based, in the order
    /// this direction decides them; sorted, no repeats), as ns-2's
    /// `ErrorModel/List` does with its `droplist`: the same loss pattern
    /// can be forced on both simulators.
    List { drops: Vec<u64> },
}

/// Why a frame did not arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Delivered,
    /// Dropped by the loss model.
    Lost,
    /// The direction was down (an outage window).
    Outage,
}

/// The loss state of one direction: model, its RNG stream, outage windows.
#[derive(Clone, Debug)]
pub struct LossProcess {
    model: LossModel,
    rng: RngStream,
    /// Gilbert–Elliott: currently in the bad state.
    bad: bool,
    /// Bit-error model: (frame bytes, loss probability) of the last frame,
    /// since frame sizes repeat and `powf` is the costly part.
    ber_cache: (u32, f64),
    /// Sorted, non-overlapping `[start, end)` windows in which frames are lost.
    outages: Vec<(Instant, Instant)>,
    /// First window that can still matter (finish times never decrease).
    cursor: usize,
    /// `List`: frames decided so far and the next entry of the list.
    decided: u64,
    next_drop: usize,
}

impl LossProcess {
    pub fn new(model: LossModel, outages: Vec<(Instant, Instant)>, rng: RngStream) -> Self {
        LossProcess { model, rng, bad: false, ber_cache: (u32::MAX, 0.0), outages, cursor: 0, decided: 0, next_drop: 0 }
    }

    /// No loss at all (no draws).
    pub fn none() -> Self {
        Self::new(LossModel::None, Vec::new(), RngStream::new(0, "none"))
    }

    pub fn outages(&self) -> &[(Instant, Instant)] {
        &self.outages
    }

    /// Decide the fate of a frame of `frame_bytes` that finishes at `finish`.
    /// Frames ending inside an outage are lost without consuming a draw, so an
    /// outage does not shift the loss pattern that follows it.
    #[inline]
    pub fn decide(&mut self, finish: Instant, frame_bytes: u32) -> Fate {
        while self.cursor < self.outages.len() && self.outages[self.cursor].1 <= finish {
            self.cursor += 1;
        }
        if let Some(&(s, e)) = self.outages.get(self.cursor) {
            if s <= finish && finish < e {
                return Fate::Outage;
            }
        }
        let lost = match &mut self.model {
            LossModel::None => false,
            &mut LossModel::Uniform { p } => p > 0.0 && self.rng.bernoulli(p),
            &mut LossModel::BitErrorRate { ber } => {
                if self.ber_cache.0 != frame_bytes {
                    let bits = frame_bytes as f64 * 8.0;
                    // 1 - (1-ber)^bits, computed without cancellation for tiny ber.
                    let p = -(bits * (-ber).ln_1p()).exp_m1();
                    self.ber_cache = (frame_bytes, p);
                }
                let p = self.ber_cache.1;
                p > 0.0 && self.rng.bernoulli(p)
            }
            &mut LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad } => {
                // Loss in the current state, then one step of the chain.
                let p = if self.bad { loss_bad } else { loss_good };
                let lost = self.rng.bernoulli(p);
                let flip = if self.bad { p_bg } else { p_gb };
                if self.rng.bernoulli(flip) {
                    self.bad = !self.bad;
                }
                lost
            }
            LossModel::List { drops } => {
                let n = self.decided;
                self.decided += 1;
                let hit = drops.get(self.next_drop) == Some(&n);
                self.next_drop += hit as usize;
                hit
            }
            LossModel::Schedule(s) => {
                // No draw at p = 0, so good coverage consumes no randomness.
                let p = s.prob_at(finish);
                p > 0.0 && self.rng.bernoulli(p)
            }
        };
        if lost {
            Fate::Lost
        } else {
            Fate::Delivered
        }
    }
}
