//! A link direction whose capacity and loss follow a drive log.
//!
//! At construction the timeline is turned into piecewise-constant segments
//! (sample i holds from its time until sample i+1; the last one holds
//! forever), each with an integer rate, a loss probability and the signal.
//! Each handoff then opens an outage `[t, t + handoff_outage)` in which the
//! rate is 0 and [`DriveLink::is_down`] is true. `finish_time` integrates the
//! rate over these segments; queries never allocate.
//!
//! What the outage means for packets is the caller's choice: `finish_time`
//! simply stalls the head packet until the link is up again (LTE X2
//! handover forwards buffered data to the target cell, so data is delayed,
//! not lost); a driver that wants break-before-make loss drops packets that
//! arrive while `is_down`.

use airtcp_core::{Duration, Instant};

use super::drive::{hold_and_backfill, DriveTimeline, Handoff};
use super::error::TraceError;
use super::mapping::{LinearParams, LossCurve, SignalMapping};

/// Everything that turns a timeline into a link.
#[derive(Clone, Debug, PartialEq)]
pub struct DriveLinkConfig {
    pub mapping: SignalMapping,
    pub loss: LossCurve,
    /// Capacity clamp, bit/s (applied after the mapping).
    pub min_bps: f64,
    pub max_bps: f64,
    /// Link down time after each serving-cell change.
    pub handoff_outage: Duration,
    /// Log time that maps to the link's `origin` (skip the start of a log).
    pub offset: Duration,
}

/// LTE handover interruption used by default: 50 ms. 3GPP TS 36.133
/// §5.1.2.1 bounds the E-UTRAN intra-frequency handover interruption as
/// T_interrupt = T_search + T_IU + 20 ms, with T_search = 0 for a known
/// target cell and T_IU (waiting for a PRACH occasion) up to 30 ms, i.e. at
/// most 50 ms; ITU-R M.2134 asks IMT-Advanced for 27.5 ms (intra-frequency)
/// to 60 ms (inter-band). Inter-RAT changes (5G NSA/LTE <-> HSPA in the UCC
/// logs) take longer and are not told apart: raise it for 3G studies.
pub const LTE_HANDOFF_OUTAGE: Duration = Duration::from_millis(50);

/// Wi-Fi re-association used by [`DriveLinkConfig::wifi`]: 200 ms. Mishra,
/// Shin and Arbaugh, "An Empirical Analysis of the IEEE 802.11 MAC Layer
/// Handoff Process" (ACM SIGCOMM CCR 33(2), 2003) measured complete 802.11
/// handoffs between roughly 50 and 400 ms, dominated by the probe (scan)
/// phase; 200 ms is a mid-range value.
pub const WIFI_HANDOFF_OUTAGE: Duration = Duration::from_millis(200);

impl Default for DriveLinkConfig {
    /// Cellular: TR 36.942 Shannon mapping, RSRP loss curve, 50 ms outage.
    fn default() -> Self {
        DriveLinkConfig {
            mapping: SignalMapping::default(),
            loss: LossCurve::default(),
            min_bps: 0.0,
            max_bps: 10e9,
            handoff_outage: LTE_HANDOFF_OUTAGE,
            offset: Duration::ZERO,
        }
    }
}

impl DriveLinkConfig {
    /// Wi-Fi: 802.11n sensitivity-based linear mapping, Wi-Fi loss curve,
    /// 200 ms re-association outage.
    pub fn wifi() -> Self {
        DriveLinkConfig {
            mapping: SignalMapping::Linear(LinearParams::default()),
            loss: LossCurve::wifi(),
            handoff_outage: WIFI_HANDOFF_OUTAGE,
            ..DriveLinkConfig::default()
        }
    }

    /// The default for a log of this kind (Wi-Fi for FEUP, cellular otherwise).
    pub fn for_kind(kind: super::drive::DriveLogKind) -> Self {
        match kind {
            super::drive::DriveLogKind::FeupWifi => DriveLinkConfig::wifi(),
            _ => DriveLinkConfig::default(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Segment {
    start: Instant,
    rate_bps: u64,
    loss: f64,
    signal_dbm: f64,
    down: bool,
}

/// The link model (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct DriveLink {
    source: String,
    segs: Vec<Segment>,
    handoffs: Vec<Handoff>,
    origin: Instant,
    end: Instant,
    cursor: usize,
}

impl DriveLink {
    /// Builds the link; log time `config.offset` is simulation time `origin`.
    /// Fails for a `reported` mapping on a log without throughput values.
    pub fn new(timeline: &DriveTimeline, config: &DriveLinkConfig, origin: Instant) -> Result<Self, TraceError> {
        let samples = &timeline.samples;
        let mut caps: Vec<Option<f64>> = samples.iter().map(|s| config.mapping.capacity_bps(s)).collect();
        if hold_and_backfill(&mut caps).is_none() {
            return Err(TraceError::whole(
                &timeline.source,
                "mapping \"reported\" needs a throughput column, and this log has no throughput values",
            ));
        }
        let off = config.offset.0;
        let to_sim = |t: Instant| Instant(origin.0.saturating_add(t.0.saturating_sub(off)));

        // Base segments; the sample in force at `offset` starts at time 0 so
        // queries before `origin` see the first state.
        let mut base: Vec<Segment> = Vec::with_capacity(samples.len());
        for (s, cap) in samples.iter().zip(&caps) {
            let start = if s.t.0 <= off { Instant::ZERO } else { to_sim(s.t) };
            let cap = cap.unwrap_or(0.0).clamp(config.min_bps, config.max_bps.max(config.min_bps));
            let seg = Segment {
                start,
                rate_bps: if cap.is_finite() { cap.round() as u64 } else { 0 },
                loss: config.loss.loss_prob(s.signal_dbm),
                signal_dbm: s.signal_dbm,
                down: false,
            };
            // Later samples at the same instant replace earlier ones.
            match base.last_mut() {
                Some(last) if last.start == start => *last = seg,
                _ => base.push(seg),
            }
        }

        let handoffs: Vec<Handoff> = timeline
            .handoffs
            .iter()
            .filter(|h| h.t.0 >= off)
            .map(|h| Handoff { t: to_sim(h.t), from: h.from.clone(), to: h.to.clone() })
            .collect();

        // Merged outage intervals.
        let mut outages: Vec<(Instant, Instant)> = Vec::new();
        if config.handoff_outage > Duration::ZERO {
            for h in &handoffs {
                let (s, e) = (h.t, h.t + config.handoff_outage);
                match outages.last_mut() {
                    Some(last) if s <= last.1 => last.1 = last.1.max(e),
                    _ => outages.push((s, e)),
                }
            }
        }

        // Overlay: a segment starts at every base start and outage edge.
        let mut edges: Vec<Instant> = base.iter().map(|s| s.start).collect();
        for &(s, e) in &outages {
            edges.push(s);
            edges.push(e);
        }
        edges.sort_unstable();
        edges.dedup();
        let mut segs: Vec<Segment> = Vec::with_capacity(edges.len());
        for &e in &edges {
            let b = base[base.partition_point(|s| s.start <= e).saturating_sub(1)];
            let i = outages.partition_point(|o| o.0 <= e);
            let down = i > 0 && e < outages[i - 1].1;
            let seg = Segment { start: e, rate_bps: if down { 0 } else { b.rate_bps }, down, ..b };
            match segs.last() {
                Some(l)
                    if l.rate_bps == seg.rate_bps
                        && l.loss == seg.loss
                        && l.down == seg.down
                        && l.signal_dbm == seg.signal_dbm => {}
                _ => segs.push(seg),
            }
        }
        let end = to_sim(Instant(timeline.duration().0.max(off)));
        Ok(DriveLink { source: timeline.source.clone(), segs, handoffs, origin, end, cursor: 0 })
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    pub fn origin(&self) -> Instant {
        self.origin
    }

    /// Simulation time of the log's last sample; after it the last sample's
    /// state holds.
    pub fn end(&self) -> Instant {
        self.end
    }

    /// Serving-cell changes in simulation time (for the event log).
    pub fn handoffs(&self) -> &[Handoff] {
        &self.handoffs
    }

    fn seg_index(&self, t: Instant) -> usize {
        self.segs.partition_point(|s| s.start <= t).saturating_sub(1)
    }

    /// Segment containing `t`, starting from the cursor (O(1) when time
    /// moves forward a little, binary search otherwise).
    fn locate(&mut self, t: Instant) -> usize {
        let n = self.segs.len();
        let mut i = self.cursor.min(n - 1);
        if self.segs[i].start > t {
            i = self.seg_index(t);
        } else {
            let mut steps = 0;
            while i + 1 < n && self.segs[i + 1].start <= t {
                i += 1;
                steps += 1;
                if steps == 8 {
                    i = self.seg_index(t);
                    break;
                }
            }
        }
        self.cursor = i;
        i
    }

    /// When a `frame_bytes` frame whose transmission starts at `start` has
    /// been sent, integrating the piecewise-constant rate exactly in integer
    /// bit-nanoseconds. Zero-rate stretches (outages, no coverage) stall it;
    /// if the rate stays 0 forever the answer is `Instant::MAX`.
    pub fn finish_time(&mut self, start: Instant, frame_bytes: u32) -> Instant {
        let mut i = self.locate(start);
        let mut t = start;
        // Work left, in bit * ns at 1 bit/s.
        let mut work = frame_bytes as u128 * 8 * 1_000_000_000;
        loop {
            if work == 0 {
                return t;
            }
            let seg = self.segs[i];
            let next = self.segs.get(i + 1).map(|s| s.start);
            if seg.rate_bps > 0 {
                let rate = seg.rate_bps as u128;
                let need_ns = work.div_ceil(rate);
                match next {
                    Some(n) if (n.0 - t.0) as u128 * rate < work => {
                        work -= (n.0 - t.0) as u128 * rate;
                    }
                    _ => {
                        let ns = need_ns.min(u64::MAX as u128) as u64;
                        return Instant(t.0.saturating_add(ns));
                    }
                }
            }
            match next {
                Some(n) => {
                    t = n;
                    i += 1;
                    self.cursor = i;
                }
                None => return Instant::MAX,
            }
        }
    }

    /// Capacity in force at `t`, bit/s (0 during an outage).
    pub fn capacity_at(&self, t: Instant) -> u64 {
        self.segs[self.seg_index(t)].rate_bps
    }

    /// Packet loss probability at `t` from the loss curve.
    pub fn loss_prob(&self, t: Instant) -> f64 {
        self.segs[self.seg_index(t)].loss
    }

    /// True inside a handoff outage.
    pub fn is_down(&self, t: Instant) -> bool {
        self.segs[self.seg_index(t)].down
    }

    /// Signal (dBm) in force at `t`, for plots.
    pub fn signal_at(&self, t: Instant) -> f64 {
        self.segs[self.seg_index(t)].signal_dbm
    }

    /// The outage windows `[t, t + handoff_outage)` in simulation time,
    /// sorted and merged: the shape `link::loss::LossProcess` takes, for
    /// drivers that drop frames during a handoff instead of stalling them.
    pub fn outage_windows(&self) -> Vec<(Instant, Instant)> {
        let mut out: Vec<(Instant, Instant)> = Vec::new();
        for (i, s) in self.segs.iter().enumerate() {
            if s.down {
                let end = self.segs.get(i + 1).map_or(Instant::MAX, |n| n.start);
                match out.last_mut() {
                    Some(last) if last.1 == s.start => last.1 = end,
                    _ => out.push((s.start, end)),
                }
            }
        }
        out
    }

    /// An owned copy of the loss-versus-time curve, so a loss process can
    /// hold it next to its RNG while the rate model holds the link.
    pub fn loss_schedule(&self) -> LossSchedule {
        let mut points: Vec<(Instant, f64)> = Vec::with_capacity(self.segs.len());
        for s in &self.segs {
            match points.last() {
                Some(&(_, p)) if p == s.loss => {}
                _ => points.push((s.start, s.loss)),
            }
        }
        LossSchedule { points, cursor: 0 }
    }

    /// Time-weighted mean capacity over `[from, to)`, bit/s (outages count
    /// as 0). For summaries and link-utilisation denominators.
    pub fn mean_capacity_bps(&self, from: Instant, to: Instant) -> f64 {
        if to <= from {
            return self.capacity_at(from) as f64;
        }
        let mut i = self.seg_index(from);
        let mut t = from;
        let mut acc = 0.0;
        while t < to {
            let next = self.segs.get(i + 1).map_or(to, |s| s.start.min(to));
            acc += self.segs[i].rate_bps as f64 * (next.0 - t.0) as f64;
            t = next;
            i += 1;
        }
        acc / (to.0 - from.0) as f64
    }
}

/// Piecewise-constant loss probability over time (from
/// [`DriveLink::loss_schedule`]). Lookups move a cursor: O(1) amortised
/// when time advances, no allocation.
#[derive(Clone, Debug, PartialEq)]
pub struct LossSchedule {
    /// (start, probability), sorted by start; the first starts at time 0.
    points: Vec<(Instant, f64)>,
    cursor: usize,
}

impl LossSchedule {
    /// Loss probability in force at `t`.
    pub fn prob_at(&mut self, t: Instant) -> f64 {
        let n = self.points.len();
        if n == 0 {
            return 0.0;
        }
        let mut i = self.cursor.min(n - 1);
        if self.points[i].0 > t {
            i = self.points.partition_point(|p| p.0 <= t).saturating_sub(1);
        }
        while i + 1 < n && self.points[i + 1].0 <= t {
            i += 1;
        }
        self.cursor = i;
        self.points[i].1
    }
}
