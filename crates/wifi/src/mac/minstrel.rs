//! Minstrel rate control for one destination station, sans-IO.
//!
//! The algorithm is that of the Linux mac80211 rate-control module
//! `net/mac80211/rc80211_minstrel.c` (Felix Fietkau, after Derek Smithies'
//! MadWifi original), as its source comments document it and as the ns-3
//! `MinstrelWifiManager` documentation restates it. This file is written
//! from that description, not from either implementation:
//!
//! * Every rate keeps counters of attempts and successes. Every
//!   [`UPDATE_INTERVAL`] (100 ms) the success ratio of the interval is folded
//!   into an exponentially weighted moving average ([`EWMA_OLD_WEIGHT`]),
//!   and the expected throughput of a rate is `p_ewma / airtime` (zero if
//!   `p_ewma` < [`MIN_PROB`] = 10 %).
//! * From those estimates every frame gets a four-stage multi-rate retry
//!   chain: best throughput, second-best throughput, best probability,
//!   lowest rate, each tried a number of times that keeps the stage within a
//!   6 ms segment ([`SEGMENT`]).
//! * On [`LOOKAROUND_PERCENT`] = 10 % of frames ("lookaround", sampling) a
//!   rate drawn from a pre-shuffled table replaces stage 1 if it is faster
//!   than the current best, or is deferred to stage 2 if it is slower (so a
//!   slow probe only costs airtime when the best rate already failed),
//!   unless it has gone unmeasured for [`SAMPLE_SKIPPED_MAX`] intervals.
//!
//! Time is integer [`Instant`]; probabilities are `f64`, whose arithmetic
//! is deterministic on every platform we build for, so a run is a pure
//! function of the seed. Randomness is used once, in [`Minstrel::new`], to
//! shuffle the sampling table; the decision *whether* to sample is the
//! kernel's deterministic 10 % counter, which keeps probes evenly spread
//! instead of bunched. The per-rate table and the sampling table are
//! allocated in `new`; nothing allocates per frame.
//!
//! Simplifications (all documented where they apply): one rate table per
//! object (no MRR-less path, no RTS/CTS-specific retry counts), the
//! legacy (non-HT) algorithm only, no 90 % probability cap of later kernels
//! in the throughput estimate, and the stage-1/2 layout of a lookaround
//! chain as the ns-3 documentation tabulates it.

use airtcp_core::{Duration, Instant, RngStream};

use crate::frame;
use crate::phy::{tx_duration, Preamble, Rate, Standard};

/// Statistics are recomputed when this much time has passed since the last
/// update. Linux: `mp->update_interval = 100` (ms); ns-3: `UpdateStatistics`
/// attribute, default 100 ms. The update is lazy: it runs at the first
/// call whose `now` is at or past `last_update + UPDATE_INTERVAL` (as the
/// kernel's `time_after(jiffies, last + interval)` check in its tx-status
/// path), so an idle link costs nothing and a long pause is one update.
pub const UPDATE_INTERVAL: Duration = Duration::from_millis(100);

/// Weight of the old value in the EWMA of the success probability:
/// `p ← 0.75·p + 0.25·p_interval`. Older kernels spell it `ewma_level = 75`
/// (percent), newer ones `EWMA_LEVEL 96` over `EWMA_DIV 128`; 96/128 is
/// exactly 0.75, so the two are the same filter and we take the newer
/// spelling's value, which is exact in binary floating point. (ns-3's
/// `EwmaLevel` attribute default is 75 % as well.)
pub const EWMA_OLD_WEIGHT: f64 = 96.0 / 128.0;

/// Rates whose EWMA probability is below 10 % get zero expected throughput
/// (Linux: `if (prob_ewma < MINSTREL_FRAC(10, 100)) return 0` in the
/// throughput estimate), so a rate that almost never works is never
/// "best" merely because it is short. They also get few retries and few
/// probes (see [`SAMPLE_LIMIT`]).
pub const MIN_PROB: f64 = 0.10;

/// A rate is "robust" at ≥ 95 % EWMA success. The best-probability stage
/// picks the fastest robust rate, or the most reliable one if none is
/// robust (Linux comment on `max_prob_rate`). Rates above 95 % (as below
/// 10 %) also get reduced retries and a probe limit: there is little left
/// to learn about them.
pub const ROBUST_PROB: f64 = 0.95;

/// Percentage of frames that carry a lookaround probe. Linux uses
/// `lookaround_rate = 5` without multi-rate retry and
/// `lookaround_rate_mrr = 10` with it; we always build a retry chain, so 10.
/// ns-3: `LookAroundRate` default 10.
pub const LOOKAROUND_PERCENT: u64 = 10;

/// Columns of the sampling table: that many independent random
/// permutations of the rate indices, walked row by row, so that every rate
/// is probed equally often but in an unpredictable order
/// (Linux `SAMPLE_COLUMNS 10`; ns-3 `SampleColumn` default 10).
pub const SAMPLE_COLUMNS: usize = 10;

/// Time budget of one retry-chain stage: a rate is retried while the
/// cumulative airtime of its attempts (with the mean backoff of the growing
/// contention window) stays within 6 ms (Linux `mp->segment_size = 6000`
/// µs; ns-3 `SegmentSize`), so slow rates get fewer tries and a stage
/// never stalls the queue for long.
pub const SEGMENT: Duration = Duration::from_micros(6000);

/// Upper bound on the tries of one stage, and the tries of the final
/// lowest-rate stage: Linux uses the driver's `max_rate_tries`, 7 when the
/// driver gives none, which is also dot11ShortRetryLimit.
pub const MAX_RETRY: u32 = 7;

/// Rates with EWMA probability above [`ROBUST_PROB`] or below [`MIN_PROB`]
/// may be probed directly at most this many times per interval (Linux
/// `sample_limit = 4`): it keeps hopeless or well-known rates from eating
/// the sampling budget.
pub const SAMPLE_LIMIT: u32 = 4;

/// A rate that has not been attempted for this many update intervals is
/// probed directly (stage 1) even if it is slower than the best rate
/// (Linux: "Respect such rates that are not sampled for 20 iterations").
/// Without it, slow rates would only be measured when the best rate fails,
/// and their estimates would go stale.
pub const SAMPLE_SKIPPED_MAX: u32 = 20;

/// The sampling counters restart after this many frames (Linux resets
/// `total_packets`, `sample_packets`, `sample_deferred` at 10000), which
/// bounds them and forgets old sampling debt.
const SAMPLE_COUNTER_RESET: u64 = 10_000;

/// Stages of the retry chain (Linux/ns-3: four MRR stages).
pub const CHAIN_LEN: usize = 4;

/// One stage of a retry chain: `count` consecutive attempts at `rate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChainEntry {
    /// The rate tried at this stage.
    pub rate: Rate,
    /// Attempts at `rate` before the chain falls to the next stage: the
    /// rate's retry count, which Linux sizes so the tries fit a time segment.
    pub count: u32,
}

/// Per-rate state.
#[derive(Clone, Debug)]
struct RateStats {
    rate: Rate,
    /// Airtime of one successful exchange (see [`Minstrel::new`]), ns.
    airtime_ns: u64,
    /// Tries that fit in [`SEGMENT`], from the rate's airtime alone.
    retry_count: u32,
    /// Tries actually used in a chain: reduced for rates we know well.
    adjusted_retry_count: u32,
    /// Direct probes still allowed this interval (`None`: unlimited).
    sample_limit: Option<u32>,
    /// Counters of the current interval.
    attempts: u32,
    successes: u32,
    /// Totals over all finished intervals.
    att_hist: u64,
    succ_hist: u64,
    prob_ewma: f64,
    /// Expected throughput, frames per second of airtime.
    tp: f64,
    /// Update intervals in a row without a single attempt.
    sample_skipped: u32,
}

/// Lookaround of the frame in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Probe {
    None,
    /// Probe rate in stage 1.
    Direct,
    /// Probe rate in stage 2; `used` once an attempt reached it.
    Deferred {
        used: bool,
    },
}

/// Minstrel state for one destination station.
#[derive(Clone, Debug)]
pub struct Minstrel {
    /// Ascending by bit rate; index 0 is the lowest rate.
    r: Vec<RateStats>,
    /// `SAMPLE_COLUMNS` permutations of `0..n`, row-major
    /// (`table[row * SAMPLE_COLUMNS + col]`).
    sample_table: Vec<u16>,
    sample_row: usize,
    sample_col: usize,
    max_tp: [usize; 2],
    max_prob: usize,
    /// Frames seen, direct probes sent, deferred probes pending (Linux's
    /// `total_packets`, `sample_packets`, `sample_deferred`).
    total_packets: u64,
    sample_packets: u64,
    sample_deferred: u64,
    /// Chain of the frame in progress, as `(rate index, tries)`.
    chain: [(usize, u32); CHAIN_LEN],
    in_frame: bool,
    probe: Probe,
    /// Earliest instant of the next statistics update; `None` before the
    /// first call (the object has no notion of time until then).
    next_update: Option<Instant>,
}

impl Minstrel {
    /// Rate control towards one station that supports `rates` (duplicates
    /// removed, sorted by bit rate; an empty slice means all of
    /// `std.rates()`). `mpdu_bytes` is the frame size the airtime estimate
    /// assumes (Linux uses 1200 bytes; 1536 is a full 1500-byte IP packet
    /// with its MAC header and FCS). `rng` shuffles the sampling table and
    /// is not used afterwards.
    ///
    /// The airtime of a rate is that of one successful exchange: the data
    /// PPDU (`tx_duration`), SIFS and the ACK at the control-response rate.
    /// Linux's legacy module counts the data PPDU plus SIFS
    /// (`ieee80211_frame_duration`), minstrel_ht adds the ACK as per-frame
    /// overhead; we include the ACK because it is a real per-frame cost that
    /// depends on the rate (through the control-response rate), and the
    /// throughput ranking of the rates changes only at near-ties.
    pub fn new(
        std: Standard,
        rates: &[Rate],
        preamble: Preamble,
        mpdu_bytes: u32,
        rng: RngStream,
    ) -> Minstrel {
        let mut list: Vec<Rate> = if rates.is_empty() {
            std.rates().to_vec()
        } else {
            rates.to_vec()
        };
        list.sort_by_key(|r| (r.kbps, r.is_ofdm()));
        list.dedup();
        // The table index is stored as u16; no PHY has anywhere near that many rates.
        list.truncate(u16::MAX as usize);
        let r: Vec<RateStats> = list
            .iter()
            .map(|&rate| {
                let ack = tx_duration(std, std.control_rate(rate), preamble, frame::ACK_LEN);
                let airtime = tx_duration(std, rate, preamble, mpdu_bytes) + std.sifs() + ack;
                let retry_count = retry_count(std, airtime);
                RateStats {
                    rate,
                    airtime_ns: airtime.as_nanos().max(1),
                    retry_count,
                    // Before the first update every rate may be tried fully and
                    // probed without limit, as Linux initialises them
                    // (`adjusted_retry_count = retry_count`, `sample_limit = -1`).
                    adjusted_retry_count: retry_count,
                    sample_limit: None,
                    attempts: 0,
                    successes: 0,
                    att_hist: 0,
                    succ_hist: 0,
                    prob_ewma: 0.0,
                    tp: 0.0,
                    sample_skipped: 0,
                }
            })
            .collect();
        let n = r.len();
        let mut m = Minstrel {
            sample_table: sample_table(n, rng),
            r,
            sample_row: 0,
            sample_col: 0,
            max_tp: [0, 0],
            max_prob: 0,
            total_packets: 0,
            sample_packets: 0,
            sample_deferred: 0,
            chain: [(0, 1); CHAIN_LEN],
            in_frame: false,
            probe: Probe::None,
            next_update: None,
        };
        // Until the first update every stage is the lowest rate (Linux starts
        // with all `max_tp_rate` entries at index 0); probes find the rest.
        m.chain = m.normal_chain_idx();
        m
    }

    /// Rate of the `attempt`-th transmission (0-based) of the current frame.
    /// The first call after [`frame_done`](Self::frame_done) (or ever)
    /// starts a frame: it runs a due statistics update, builds the retry
    /// chain and decides whether the frame carries a lookaround probe. The
    /// chain then stays fixed until `frame_done`, so calling this again with
    /// the same `attempt` (e.g. for an RTS and then the data) gives the same
    /// rate. Attempts past the chain use the lowest rate.
    pub fn rate_for(&mut self, now: Instant, attempt: u32) -> Rate {
        if !self.in_frame {
            self.start_frame(now);
        }
        let mut left = attempt;
        for (stage, &(idx, count)) in self.chain.iter().enumerate() {
            if left < count {
                if stage == 1 {
                    if let Probe::Deferred { used: false } = self.probe {
                        // Linux counts a deferred probe as a sample only once
                        // the second stage is actually reached.
                        self.probe = Probe::Deferred { used: true };
                        self.sample_packets += 1;
                    }
                }
                return self.r[idx].rate;
            }
            left -= count;
        }
        self.r[0].rate
    }

    /// Outcome of one transmission attempt at `rate` (`success`: the ACK
    /// came). Rates this object does not know are ignored.
    pub fn report(&mut self, now: Instant, rate: Rate, success: bool) {
        if let Some(s) = self.r.iter_mut().find(|s| s.rate == rate) {
            s.attempts = s.attempts.saturating_add(1);
            if success {
                s.successes = s.successes.saturating_add(1);
            }
        }
        self.maybe_update(now);
    }

    /// The current frame is finished (acknowledged or dropped); the next
    /// `rate_for` starts a new chain.
    pub fn frame_done(&mut self, now: Instant) {
        self.in_frame = false;
        self.probe = Probe::None;
        // Linux decrements `sample_deferred` on every tx status, so deferred
        // probes weigh on the sampling debt only briefly.
        self.sample_deferred = self.sample_deferred.saturating_sub(1);
        self.maybe_update(now);
    }

    /// The current best-throughput rate (stage 1 of a chain without probe).
    pub fn best_rate(&self) -> Rate {
        self.r[self.max_tp[0]].rate
    }

    /// The second-best throughput rate (stage 2).
    pub fn second_best_rate(&self) -> Rate {
        self.r[self.max_tp[1]].rate
    }

    /// The best-probability rate (stage 3).
    pub fn max_prob_rate(&self) -> Rate {
        self.r[self.max_prob].rate
    }

    /// The lowest rate (stage 4, and every attempt past the chain).
    pub fn lowest_rate(&self) -> Rate {
        self.r[0].rate
    }

    /// The chain a frame without lookaround would get now: best throughput,
    /// second best, best probability, lowest rate, with their tries.
    pub fn chain(&self) -> [ChainEntry; CHAIN_LEN] {
        self.normal_chain_idx().map(|(i, count)| ChainEntry {
            rate: self.r[i].rate,
            count,
        })
    }

    /// The lookaround rate of the frame in progress, if it carries one.
    pub fn frame_sample(&self) -> Option<Rate> {
        match self.probe {
            Probe::None => None,
            Probe::Direct => Some(self.r[self.chain[0].0].rate),
            Probe::Deferred { .. } => Some(self.r[self.chain[1].0].rate),
        }
    }

    /// Per rate, ascending: the rate, its EWMA success probability (as of
    /// the last update), and its attempts and successes so far (including
    /// the interval in progress).
    pub fn stats(&self) -> impl Iterator<Item = (Rate, f64, u64, u64)> + '_ {
        self.r.iter().map(|s| {
            (
                s.rate,
                s.prob_ewma,
                s.att_hist + s.attempts as u64,
                s.succ_hist + s.successes as u64,
            )
        })
    }

    /// Normal chain as `(index, tries)`.
    fn normal_chain_idx(&self) -> [(usize, u32); CHAIN_LEN] {
        let e = |i: usize| (i, self.r[i].adjusted_retry_count);
        [
            e(self.max_tp[0]),
            e(self.max_tp[1]),
            e(self.max_prob),
            (0, MAX_RETRY),
        ]
    }

    fn start_frame(&mut self, now: Instant) {
        self.maybe_update(now);
        self.in_frame = true;
        self.probe = Probe::None;
        self.chain = self.normal_chain_idx();
        let n = self.r.len() as u64;
        if n < 2 {
            return;
        }
        // Linux's sampling debt: probes owed minus probes sent, where a
        // pending deferred probe counts half.
        self.total_packets += 1;
        let owed = self.total_packets * LOOKAROUND_PERCENT / 100;
        let sent = self.sample_packets + self.sample_deferred / 2;
        if owed < sent {
            return;
        }
        let delta = owed - sent;
        if self.total_packets >= SAMPLE_COUNTER_RESET {
            self.total_packets = 0;
            self.sample_packets = 0;
            self.sample_deferred = 0;
        } else if delta > 2 * n {
            // Not every deferred probe gets used, so debt can pile up; never
            // let it exceed two probes per rate, or a link that turns bad
            // would see a burst of probes (Linux comment on this clamp).
            self.sample_packets += delta - 2 * n;
        }
        let idx = self.next_sample();
        let best_airtime = self.r[self.max_tp[0]].airtime_ns;
        let s = &mut self.r[idx];
        if s.airtime_ns < best_airtime || s.sample_skipped >= SAMPLE_SKIPPED_MAX {
            // Faster than the best (or long unmeasured): probe in stage 1,
            // fall back to the best, then the robust and the lowest rate.
            match s.sample_limit {
                Some(0) => return,
                Some(k) => s.sample_limit = Some(k - 1),
                None => {}
            }
            self.sample_packets += 1;
            let tries = s.adjusted_retry_count;
            self.chain[1] = self.chain[0];
            self.chain[0] = (idx, tries);
            self.probe = Probe::Direct;
        } else {
            // Slower than the best: it cannot beat it unless the best
            // degraded, which is exactly when stage 2 is reached.
            self.chain[1] = (idx, s.adjusted_retry_count);
            self.sample_deferred += 1;
            self.probe = Probe::Deferred { used: false };
        }
    }

    /// Next entry of the sampling table, walking each permutation (column)
    /// from top to bottom before moving to the next.
    fn next_sample(&mut self) -> usize {
        let n = self.r.len();
        let idx = self.sample_table[self.sample_row * SAMPLE_COLUMNS + self.sample_col] as usize;
        self.sample_row += 1;
        if self.sample_row >= n {
            self.sample_row = 0;
            self.sample_col = (self.sample_col + 1) % SAMPLE_COLUMNS;
        }
        idx
    }

    fn maybe_update(&mut self, now: Instant) {
        match self.next_update {
            None => self.next_update = Some(now + UPDATE_INTERVAL),
            Some(t) if now >= t => {
                self.update_stats();
                self.next_update = Some(now + UPDATE_INTERVAL);
            }
            Some(_) => {}
        }
    }

    /// Fold the interval's counters into the EWMA, recompute the expected
    /// throughput and re-rank the rates.
    fn update_stats(&mut self) {
        for s in &mut self.r {
            if s.attempts > 0 {
                let cur = s.successes as f64 / s.attempts as f64;
                // The first measurement of a rate is taken as is, instead of
                // being averaged with the meaningless initial 0.
                s.prob_ewma = if s.att_hist == 0 {
                    cur
                } else {
                    EWMA_OLD_WEIGHT * s.prob_ewma + (1.0 - EWMA_OLD_WEIGHT) * cur
                };
                s.att_hist += s.attempts as u64;
                s.succ_hist += s.successes as u64;
                s.sample_skipped = 0;
            } else {
                s.sample_skipped = s.sample_skipped.saturating_add(1);
            }
            s.attempts = 0;
            s.successes = 0;
            if s.prob_ewma > ROBUST_PROB || s.prob_ewma < MIN_PROB {
                s.adjusted_retry_count = adjusted(s.retry_count);
                s.sample_limit = Some(SAMPLE_LIMIT);
            } else {
                s.adjusted_retry_count = s.retry_count;
                s.sample_limit = None;
            }
            s.tp = if s.prob_ewma < MIN_PROB {
                0.0
            } else {
                s.prob_ewma * 1e9 / s.airtime_ns as f64
            };
        }
        // Best and second-best throughput; ties go to the more reliable
        // rate, then to the lower one (the first seen).
        let better = |a: &RateStats, b: &RateStats| {
            a.tp > b.tp || (a.tp == b.tp && a.prob_ewma > b.prob_ewma)
        };
        let mut b0 = 0;
        let mut b1 = usize::MAX;
        for i in 1..self.r.len() {
            if better(&self.r[i], &self.r[b0]) {
                b1 = b0;
                b0 = i;
            } else if b1 == usize::MAX || better(&self.r[i], &self.r[b1]) {
                b1 = i;
            }
        }
        self.max_tp = [b0, if b1 == usize::MAX { b0 } else { b1 }];
        // Best probability: the fastest-throughput robust rate if any rate is
        // robust, else the most reliable rate (ties: the faster one). This is
        // the rule the Linux comment states; the kernel's single loop can
        // deviate from it in corner cases, which we do not reproduce.
        let robust = (0..self.r.len())
            .filter(|&i| self.r[i].prob_ewma >= ROBUST_PROB)
            .fold(None, |acc: Option<usize>, i| match acc {
                Some(j) if self.r[j].tp > self.r[i].tp => Some(j),
                _ => Some(i),
            });
        self.max_prob = robust.unwrap_or_else(|| {
            (0..self.r.len()).fold(0, |j, i| {
                if self.r[i].prob_ewma >= self.r[j].prob_ewma {
                    i
                } else {
                    j
                }
            })
        });
    }
}

/// Tries of one stage: as many attempts at an exchange of `airtime`, each
/// preceded by the mean backoff of a window that doubles per retry, as fit
/// in [`SEGMENT`]; at least 1, at most [`MAX_RETRY`]. This is the kernel's
/// computation (mean backoff `slot·cw/2`, `cw` from CWmin doubling up to
/// CWmax), with this PHY's slot and window.
fn retry_count(std: Standard, airtime: Duration) -> u32 {
    let slot = std.slot().as_nanos();
    let mut cw = std.cw_min() as u64;
    let mut total = 0u64;
    let mut count = 0u32;
    while count < MAX_RETRY {
        let next = total + airtime.as_nanos() + slot * cw / 2;
        if count > 0 && next > SEGMENT.as_nanos() {
            break;
        }
        total = next;
        count += 1;
        cw = (2 * cw + 1).min(std.cw_max() as u64);
    }
    count
}

/// Tries of a rate we know well (p > 95 %) or hardly works (p < 10 %): half
/// the segment count, at most 2 (Linux `adjusted_retry_count`). The kernel
/// turns a result of 0 into 2; we make it 1, so a rate whose single try
/// already fills the segment is never tried twice.
fn adjusted(retry_count: u32) -> u32 {
    (retry_count / 2).clamp(1, 2)
}

/// `SAMPLE_COLUMNS` independent uniform permutations of `0..n` (Fisher–
/// Yates), laid out row-major so that column `c` is read as
/// `table[row * SAMPLE_COLUMNS + c]` for `row` in `0..n`. Linux fills its
/// table with a different pseudo-random placement; any shuffle that makes
/// each column a permutation serves the same purpose.
fn sample_table(n: usize, mut rng: RngStream) -> Vec<u16> {
    let mut t = vec![0u16; n * SAMPLE_COLUMNS];
    for c in 0..SAMPLE_COLUMNS {
        for row in 0..n {
            t[row * SAMPLE_COLUMNS + c] = row as u16;
        }
        for i in (1..n).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            t.swap(i * SAMPLE_COLUMNS + c, j * SAMPLE_COLUMNS + c);
        }
    }
    t
}
