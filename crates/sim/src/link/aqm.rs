//! Active queue management in front of a direction's DropTail queue: what
//! happens to an arriving frame before the tail-drop test.
//!
//! * [`AqmSpec::StepMark`]: DCTCP-style step marking (Alizadeh et al.,
//!   SIGCOMM 2010, §3.1: "mark if the queue occupancy is greater than K upon
//!   arrival"): an ECN-capable frame that finds at least K frames (or bytes)
//!   waiting is CE-marked. Not-ECT frames are left alone; they meet only
//!   the DropTail limit, so the option never drops anything.
//! * [`AqmSpec::Red`]: Random Early Detection (Floyd & Jacobson, "Random
//!   Early Detection Gateways for Congestion Avoidance", IEEE/ACM ToN 1993,
//!   §4 and Fig. 2), with the "gentle" extension (Floyd 2000) and RFC 3168
//!   §5 marking. The average follows every arrival, decays over idle time,
//!   and an early mark/drop uses the uniformised probability
//!   p_a = p_b / (1 - count·p_b), so marks are spaced out rather than
//!   clustered. Defaults are ns-3 3.44's `RedQueueDisc` (MinTh 5, MaxTh 15,
//!   LInterm 50 = max_p 0.02, QW 0.002, Gentle true, MeanPktSize 500 for
//!   the idle decay). Above `max_th` (2·`max_th` with gentle) Linux
//!   `sch_red` marks ECT frames too unless `harddrop` is set, while ns-3
//!   (`UseHardDrop = true`) drops: `harddrop` picks.
//!
//! Every decision reads only the direction's own state and its own RNG
//! stream (`link.<name>.<dir>.red`), drawn only when the probability is
//! strictly between 0 and 1, so runs are reproducible and a RED link does
//! not perturb any other stream.

use airtcp_core::{Ecn, Instant, RngStream};

use super::QueueLimit;

/// RED parameters; thresholds in frames waiting (not counting the one in
/// transmission, like the DropTail limit).
#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    /// Below this average nothing is marked or dropped (ns-3 MinTh = 5).
    pub min_th: f64,
    /// At this average the probability reaches `max_p` (ns-3 MaxTh = 15).
    pub max_th: f64,
    /// Marking probability at `max_th` (ns-3 1/LInterm = 1/50).
    pub max_p: f64,
    /// Weight of the newest sample in the average (F&J §6: 0.002).
    pub w_q: f64,
    /// Between `max_th` and 2·`max_th` the probability rises linearly from
    /// `max_p` to 1 instead of jumping to 1 (ns-3 Gentle = true).
    pub gentle: bool,
    /// Mark ECN-capable frames instead of dropping them (RFC 3168 §5).
    pub ecn: bool,
    /// Drop even ECN-capable frames in the forced region (ns-3 UseHardDrop;
    /// Linux `harddrop`, off by default).
    pub harddrop: bool,
    /// Frame size for the idle-time decay: the queue is treated as having
    /// seen `idle / (mean_pkt_bytes at the link rate)` empty arrivals
    /// (F&J §4 "m"; ns-3 MeanPktSize = 500).
    pub mean_pkt_bytes: u32,
}

impl Default for RedParams {
    fn default() -> Self {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.02,
            w_q: 0.002,
            gentle: true,
            ecn: false,
            harddrop: false,
            mean_pkt_bytes: 500,
        }
    }
}

impl RedParams {
    /// The checks a scenario file could fail; the message names the key.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.min_th >= 0.0 && self.min_th.is_finite()) {
            return Err(format!("min_th = {} must be a non-negative number of packets", self.min_th));
        }
        if !(self.max_th.is_finite() && self.max_th > 0.0) {
            return Err(format!("max_th = {} must be a positive number of packets", self.max_th));
        }
        if self.min_th > self.max_th {
            return Err(format!("min_th = {} exceeds max_th = {}", self.min_th, self.max_th));
        }
        if !(0.0..=1.0).contains(&self.max_p) {
            return Err(format!("max_p = {} is outside [0, 1]", self.max_p));
        }
        if !(self.w_q > 0.0 && self.w_q <= 1.0) {
            return Err(format!("w_q = {} is outside (0, 1]", self.w_q));
        }
        if self.mean_pkt_bytes == 0 {
            return Err("mean_pkt_bytes must be positive".into());
        }
        Ok(())
    }
}

/// A direction's queue discipline as the scenario gives it.
#[derive(Clone, Debug, PartialEq)]
pub enum AqmSpec {
    /// Mark ECN-capable arrivals that find this much waiting.
    StepMark(QueueLimit),
    Red(RedParams),
}

/// What the discipline does with an arriving frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Enqueue,
    /// Set CE (the frame is ECN-capable).
    Mark,
    /// Drop before the tail-drop test.
    Drop,
}

/// Run-time RED state.
#[derive(Clone, Debug)]
pub struct Red {
    p: RedParams,
    /// Average queue size in frames.
    avg: f64,
    /// Arrivals since the last mark/drop; -1 below `min_th` (F&J Fig. 2).
    count: i64,
    /// Frames of `mean_pkt_bytes` the link sends per second, for the idle decay.
    pkts_per_sec: f64,
    rng: RngStream,
}

impl Red {
    pub fn new(p: RedParams, link_bps: u64, rng: RngStream) -> Self {
        let pkts_per_sec = link_bps as f64 / (8.0 * p.mean_pkt_bytes as f64);
        Red { p, avg: 0.0, count: -1, pkts_per_sec, rng }
    }

    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// F&J Fig. 2 for one arrival that finds `waiting` frames queued, or an
    /// idle link since `idle_since`.
    pub fn on_arrival(&mut self, now: Instant, waiting: usize, idle_since: Option<Instant>, ecn: Ecn) -> Action {
        let w = self.p.w_q;
        match idle_since {
            Some(t) => {
                // avg ← (1 - w_q)^m · avg, m = packets the idle link could have sent.
                let idle_s = now.saturating_since(t).0 as f64 * 1e-9;
                let m = (idle_s * self.pkts_per_sec).floor();
                self.avg *= (1.0 - w).powf(m);
            }
            None => self.avg += w * (waiting as f64 - self.avg),
        }
        let (min, max) = (self.p.min_th, self.p.max_th);
        let top = if self.p.gentle { 2.0 * max } else { max };
        if self.avg < min {
            self.count = -1;
            return Action::Enqueue;
        }
        if self.avg >= top {
            self.count = 0;
            return if self.p.ecn && !self.p.harddrop && ecn.is_ect() { Action::Mark } else { Action::Drop };
        }
        self.count += 1;
        // avg >= min here, so avg < max implies max > min.
        let p_b = if self.avg < max {
            self.p.max_p * (self.avg - min) / (max - min)
        } else {
            // Gentle region: max_p at max_th rising to 1 at 2·max_th.
            self.p.max_p + (1.0 - self.p.max_p) * (self.avg - max) / max
        };
        let cp = self.count as f64 * p_b;
        let p_a = if cp >= 1.0 { 1.0 } else { p_b / (1.0 - cp) };
        let hit = if p_a >= 1.0 {
            true
        } else if p_a <= 0.0 {
            false
        } else {
            self.rng.bernoulli(p_a)
        };
        if !hit {
            return Action::Enqueue;
        }
        self.count = 0;
        if self.p.ecn && ecn.is_ect() {
            Action::Mark
        } else {
            Action::Drop
        }
    }
}

/// Run-time discipline of one direction.
#[derive(Clone, Debug)]
pub enum Aqm {
    StepMark(QueueLimit),
    Red(Box<Red>),
}

impl Aqm {
    /// `waiting` / `waiting_bytes`: what the arrival finds queued behind the
    /// frame in transmission; `idle_since`: the link has been idle since then.
    #[inline]
    pub fn on_arrival(&mut self, now: Instant, waiting: usize, waiting_bytes: u64, idle_since: Option<Instant>, ecn: Ecn) -> Action {
        match self {
            Aqm::StepMark(k) => {
                let over = match *k {
                    QueueLimit::Packets(n) => waiting as u64 >= n as u64,
                    QueueLimit::Bytes(b) => waiting_bytes >= b,
                };
                if over && ecn.is_ect() {
                    Action::Mark
                } else {
                    Action::Enqueue
                }
            }
            Aqm::Red(r) => r.on_arrival(now, waiting, idle_since, ecn),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn red(p: RedParams) -> Red {
        Red::new(p, 10_000_000, RngStream::new(1, "t"))
    }

    #[test]
    fn below_min_th_never_acts_and_above_top_always_does() {
        let mut r = red(RedParams { w_q: 1.0, ..Default::default() });
        assert_eq!(r.on_arrival(Instant::ZERO, 4, None, Ecn::Ect0), Action::Enqueue);
        assert_eq!(r.on_arrival(Instant::ZERO, 30, None, Ecn::NotEct), Action::Drop);
        // Forced region with ECN: Linux marks, harddrop drops.
        let mut r = red(RedParams { w_q: 1.0, ecn: true, ..Default::default() });
        assert_eq!(r.on_arrival(Instant::ZERO, 30, None, Ecn::Ect0), Action::Mark);
        assert_eq!(r.on_arrival(Instant::ZERO, 30, None, Ecn::NotEct), Action::Drop);
        let mut r = red(RedParams { w_q: 1.0, ecn: true, harddrop: true, ..Default::default() });
        assert_eq!(r.on_arrival(Instant::ZERO, 30, None, Ecn::Ect0), Action::Drop);
    }

    #[test]
    fn uniformised_probability_spaces_marks() {
        // avg pinned at the midpoint: p_b = max_p / 2 = 0.05 with max_p 0.1;
        // p_a reaches 1 by count = 20, so the gap between marks is at most 20.
        let mut r = red(RedParams { w_q: 1.0, max_p: 0.1, ecn: true, ..Default::default() });
        let mut gaps = Vec::new();
        let mut last = 0;
        for i in 1..=2000 {
            if r.on_arrival(Instant::ZERO, 10, None, Ecn::Ect0) == Action::Mark {
                gaps.push(i - last);
                last = i;
            }
        }
        assert!(gaps.iter().all(|&g| (1..=20).contains(&g)), "{gaps:?}");
        // Mean gap of the uniformised process is about (1/p_b + 1)/2 = 10.5.
        let mean = gaps.iter().sum::<i32>() as f64 / gaps.len() as f64;
        assert!((8.0..13.0).contains(&mean), "mean gap {mean}");
    }

    #[test]
    fn idle_time_decays_the_average() {
        let mut r = red(RedParams { w_q: 0.5, ..Default::default() });
        for _ in 0..20 {
            r.on_arrival(Instant::ZERO, 10, None, Ecn::NotEct);
        }
        assert!(r.avg() > 9.9);
        // 10 Mb/s, 500-byte packets: 2500 per second; 1 ms idle = m 2,
        // avg · 0.25.
        let before = r.avg();
        r.on_arrival(Instant::from_millis(1), 0, Some(Instant::ZERO), Ecn::NotEct);
        assert!((r.avg() - before * 0.25).abs() < 1e-9, "{} vs {}", r.avg(), before);
    }

    #[test]
    fn step_marks_only_ect_at_threshold() {
        let mut a = Aqm::StepMark(QueueLimit::Packets(3));
        assert_eq!(a.on_arrival(Instant::ZERO, 2, 0, None, Ecn::Ect0), Action::Enqueue);
        assert_eq!(a.on_arrival(Instant::ZERO, 3, 0, None, Ecn::Ect0), Action::Mark);
        assert_eq!(a.on_arrival(Instant::ZERO, 3, 0, None, Ecn::NotEct), Action::Enqueue);
        let mut b = Aqm::StepMark(QueueLimit::Bytes(3000));
        assert_eq!(b.on_arrival(Instant::ZERO, 2, 2999, None, Ecn::Ce), Action::Enqueue);
        assert_eq!(b.on_arrival(Instant::ZERO, 2, 3000, None, Ecn::Ce), Action::Mark);
    }

    #[test]
    fn validation_names_the_key() {
        let bad = [
            (RedParams { max_p: 1.5, ..Default::default() }, "max_p"),
            (RedParams { min_th: 20.0, ..Default::default() }, "min_th"),
            (RedParams { w_q: -0.1, ..Default::default() }, "w_q"),
            (RedParams { min_th: -1.0, ..Default::default() }, "min_th"),
        ];
        for (p, key) in bad {
            assert!(p.validate().unwrap_err().starts_with(key), "{key}");
        }
        assert!(RedParams::default().validate().is_ok());
    }
}
