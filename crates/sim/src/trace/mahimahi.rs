//! Mahimahi packet-delivery traces as a link-rate model.
//!
//! Format (mahimahi `traces/README` and `man/mm-link.1`, summarised in
//! `tests/data/traces/mahimahi/SOURCES.md`): one unsigned integer per line, a
//! millisecond offset from the start of the trace; each line is one *delivery
//! opportunity* able to carry 1500 bytes; a timestamp repeated on k lines gives
//! k opportunities in that millisecond. When the trace ends it starts again,
//! shifted by its last timestamp (mm-link adds `schedule.back()` to its base
//! time on wrap), so the period is the last timestamp, not the line count.
//!
//! # Model (what `finish_time` computes)
//!
//! The link is a FIFO whose head packet is served only at delivery
//! opportunities. A packet that reaches the head of the queue at `start`
//! consumes bytes from the opportunities at or after `start`, in order:
//!
//! - each opportunity carries at most [`MAHIMAHI_MTU`] = 1500 bytes;
//! - a packet smaller than what is left of the current opportunity takes only
//!   its size, and the rest stays available to the *next queued* packet (it
//!   starts at the instant the previous one finished, which is the
//!   opportunity's own instant, so "at or after `start`" still holds);
//! - a packet larger than what is left continues into the following
//!   opportunities and is delivered at the instant of the one that carries its
//!   last byte;
//! - bytes of an opportunity that nobody is waiting for are lost: if the next
//!   packet starts after the instant of the partially used opportunity, the
//!   remainder is discarded (mm-link: "an opportunity is wasted if no bytes
//!   are queued", it is never banked).
//!
//! The delivery instant is the opportunity's millisecond (mm-link releases the
//! packet at that timestamp); propagation delay is added by the caller.
//! A packet arriving in the same nanosecond as an opportunity may use it.
//!
//! Calls must describe one FIFO: `start` is clamped to the previous call's
//! finish time, because a packet cannot begin before its predecessor ended.
//! A zero-byte frame finishes at `start` and consumes nothing.
//!
//! Cost: the cursor advances monotonically, O(1) amortised per packet; a jump
//! over a long idle period uses a binary search inside one period (O(log n)).
//! Nothing is allocated after parsing.

use std::path::Path;

use airtcp_core::Instant;

use super::error::{read_to_string, TraceError};

/// Bytes one delivery opportunity can carry (mahimahi `PACKET_SIZE`).
pub const MAHIMAHI_MTU: u32 = 1500;

const NS_PER_MS: u64 = 1_000_000;

/// A parsed Mahimahi trace plus the cursor of the link that replays it.
#[derive(Clone, Debug, PartialEq)]
pub struct MahimahiSchedule {
    name: String,
    /// Opportunity offsets in ms, non-decreasing, last = period.
    opps_ms: Vec<u64>,
    period_ms: u64,
    origin: Instant,
    /// Cursor: the opportunity `idx` of repetition `cycle` has `left` bytes
    /// still unused.
    cycle: u64,
    idx: usize,
    left: u32,
    busy_until: Instant,
}

impl MahimahiSchedule {
    /// Parses a trace held in memory; errors name it `<memory>`.
    pub fn parse(text: &str, origin: Instant) -> Result<Self, TraceError> {
        Self::parse_named("<memory>", text, origin)
    }

    /// Reads and parses a trace file; errors name the path.
    pub fn from_path(path: impl AsRef<Path>, origin: Instant) -> Result<Self, TraceError> {
        let (name, text) = read_to_string(path.as_ref())?;
        Self::parse_named(&name, &text, origin)
    }

    /// Parses `text`; trace time 0 is the simulation instant `origin`.
    /// `name` is used in error messages.
    pub fn parse_named(name: &str, text: &str, origin: Instant) -> Result<Self, TraceError> {
        let mut opps_ms = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let field = raw.trim();
            let ms: u64 = match field.parse() {
                Ok(v) => v,
                Err(_) => {
                    return Err(TraceError::at(
                        name,
                        line_no,
                        format!("expected a millisecond timestamp (unsigned integer), found {field:?}"),
                    ))
                }
            };
            if let Some(&prev) = opps_ms.last() {
                if ms < prev {
                    return Err(TraceError::at(
                        name,
                        line_no,
                        format!("timestamp {ms} ms is earlier than the previous line's {prev} ms"),
                    ));
                }
            }
            // Bound so that cycle arithmetic in ns cannot overflow for any
            // realistic run (2^40 ms is about 35 years).
            if ms >= 1 << 40 {
                return Err(TraceError::at(name, line_no, format!("timestamp {ms} ms is too large")));
            }
            opps_ms.push(ms);
        }
        let period_ms = match opps_ms.last() {
            None => return Err(TraceError::whole(name, "trace is empty (no delivery opportunities)")),
            Some(&last) => last,
        };
        if period_ms == 0 {
            // mm-link rejects this too: the trace would repeat without time passing.
            return Err(TraceError::whole(name, "trace must last a nonzero time (last timestamp is 0)"));
        }
        Ok(MahimahiSchedule {
            name: name.to_string(),
            opps_ms,
            period_ms,
            origin,
            cycle: 0,
            idx: 0,
            left: MAHIMAHI_MTU,
            busy_until: Instant::ZERO,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of delivery opportunities in one period (lines of the file).
    pub fn opportunities(&self) -> usize {
        self.opps_ms.len()
    }

    /// Period after which the trace repeats, in ms (its last timestamp).
    pub fn period_ms(&self) -> u64 {
        self.period_ms
    }

    pub fn origin(&self) -> Instant {
        self.origin
    }

    /// Mean capacity over one period: opportunities * 1500 B * 8 / period.
    pub fn capacity_bps(&self) -> f64 {
        self.opps_ms.len() as f64 * (MAHIMAHI_MTU as f64 * 8.0) * 1000.0 / self.period_ms as f64
    }

    /// Forgets the cursor (a fresh link starting at `origin`).
    pub fn reset(&mut self) {
        self.cycle = 0;
        self.idx = 0;
        self.left = MAHIMAHI_MTU;
        self.busy_until = Instant::ZERO;
    }

    fn opp_time(&self, cycle: u64, idx: usize) -> Instant {
        let ms = cycle.saturating_mul(self.period_ms).saturating_add(self.opps_ms[idx]);
        Instant(self.origin.0.saturating_add(ms.saturating_mul(NS_PER_MS)))
    }

    fn advance(&mut self) {
        self.idx += 1;
        if self.idx == self.opps_ms.len() {
            self.idx = 0;
            self.cycle += 1;
        }
        self.left = MAHIMAHI_MTU;
    }

    /// Moves the cursor to the first opportunity at or after `t`, with all
    /// its bytes available.
    fn seek(&mut self, t: Instant) {
        // A few linear steps cover the busy case; the jump covers idle gaps.
        for _ in 0..8 {
            self.advance();
            if self.opp_time(self.cycle, self.idx) >= t {
                return;
            }
        }
        // Opportunity times are whole ms, so "time >= t" is "ms >= r".
        let rel_ns = t.0.saturating_sub(self.origin.0);
        let r = rel_ns.div_ceil(NS_PER_MS);
        // Smallest cycle whose last opportunity (at offset period) reaches r.
        let cycle = if r == 0 { 0 } else { (r - 1) / self.period_ms };
        let within = r - cycle * self.period_ms;
        let idx = self.opps_ms.partition_point(|&ms| ms < within);
        debug_assert!(idx < self.opps_ms.len());
        self.cycle = cycle;
        self.idx = idx;
        self.left = MAHIMAHI_MTU;
    }

    /// Delivery instant of a `frame_bytes` packet that reaches the head of
    /// the queue at `start` (see the module documentation for the model).
    pub fn finish_time(&mut self, start: Instant, frame_bytes: u32) -> Instant {
        let start = start.max(self.busy_until);
        if frame_bytes == 0 {
            return start;
        }
        if self.left == 0 || self.opp_time(self.cycle, self.idx) < start {
            self.seek(start);
        }
        let mut need = frame_bytes;
        loop {
            let take = need.min(self.left);
            need -= take;
            self.left -= take;
            if need == 0 {
                let done = self.opp_time(self.cycle, self.idx);
                if self.left == 0 {
                    self.advance();
                }
                self.busy_until = done;
                return done;
            }
            self.advance();
        }
    }
}
