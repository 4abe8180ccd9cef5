//! The studies' metrics of one TCP connection, defined once.
//!
//! Each function takes what a simulated run and a capture both provide:
//!
//! - a **delivery series**: time-ordered `(t_ns, bytes)`, `bytes` the
//!   cumulative count delivered in order (a run's `bytes_delivered` series,
//!   sampled every `series_interval`; a capture's cumulative ACK advance,
//!   one observation per ACK);
//! - the sender's **data segments** ([`Segment`]: a run's `segments` table,
//!   a capture's data packets of one direction);
//! - **instants** given as times: a handoff, a disconnection (T0), a
//!   reassociation (T3), the sender's timeouts.
//!
//! Times are integer nanoseconds, as everywhere in airtcp; byte counts are
//! bytes (a study that counts packets divides by its MSS). The exact
//! definitions, units and the studies that use each function are listed in
//! `docs/analyze.md`, section "Metrics". All functions are pure.

use crate::interruptions::{interruption_around, Interruption, OutOfOrder};

/// One data segment the sender transmitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// When the segment was sent (a run) or captured (a capture), ns.
    pub t_ns: i64,
    /// Sequence number of the first byte, relative to the first data byte (0).
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// Whether this sequence number had been sent before.
    pub retransmission: bool,
}

/// Linux's `TCP_INFINITE_SSTHRESH` (include/net/tcp.h, `0x7fffffff`): the
/// ssthresh of a connection that has not yet had a loss.
pub const INFINITE_SSTHRESH: f64 = 0x7fff_ffff as f64;

/// Cumulative in-order bytes delivered by `t_ns`: the highest count observed
/// at or before `t_ns`; `None` if there is no observation by then.
pub fn delivered_at(series: &[(i64, u64)], t_ns: i64) -> Option<u64> {
    series
        .iter()
        .take_while(|&&(t, _)| t <= t_ns)
        .map(|&(_, b)| b)
        .max()
}

/// Bytes delivered in order after `t_ns`: the highest count observed minus
/// [`delivered_at`]`(t_ns)` (0 if nothing had been observed by then). Zero
/// means the transfer never moved again after `t_ns` ("stalled").
pub fn delivered_after(series: &[(i64, u64)], t_ns: i64) -> u64 {
    let total = series.iter().map(|&(_, b)| b).max().unwrap_or(0);
    total - delivered_at(series, t_ns).unwrap_or(0)
}

/// Goodput between two instants, bit/s: `(delivered_at(to) -
/// delivered_at(from)) * 8 / (to - from)`. `None` if either count is
/// missing or `to <= from`.
pub fn goodput_between_bps(series: &[(i64, u64)], from_ns: i64, to_ns: i64) -> Option<f64> {
    if to_ns <= from_ns {
        return None;
    }
    let a = delivered_at(series, from_ns)?;
    let b = delivered_at(series, to_ns)?;
    Some(b.saturating_sub(a) as f64 * 8.0 / ((to_ns - from_ns) as f64 / 1e9))
}

/// The delivery interruption around an event on a *sampled* series (a
/// run's `bytes_delivered`, one sample every interval): a sample at `t`
/// reports what arrived in the interval ending at `t`, so the first sample
/// at or after the event may still hold deliveries from before it. The gap
/// is therefore anchored at that sample ([`interruption_around`] at the
/// first sample time `>= event_ns`; at `event_ns` if there is none). On a
/// capture, whose observations are exact, use [`interruption_around`].
pub fn interruption_around_sampled(
    series: &[(i64, u64)],
    event_ns: i64,
) -> Result<Option<Interruption>, OutOfOrder> {
    let at = series
        .iter()
        .map(|&(t, _)| t)
        .find(|&t| t >= event_ns)
        .unwrap_or(event_ns);
    interruption_around(series.iter().copied(), at)
}

/// Time of the sender's first data segment strictly after `t_ns` (a
/// 1-byte segment is a window probe, not data, and is skipped). With `t_ns`
/// the reassociation (T3), minus T3 this is the "sender idle" time: it
/// counts any segment, including one sent beyond a hole that delivers
/// nothing.
pub fn first_data_after(segments: &[Segment], t_ns: i64) -> Option<i64> {
    segments
        .iter()
        .find(|s| s.t_ns > t_ns && s.len > 1)
        .map(|s| s.t_ns)
}

/// The sender's timeouts strictly after an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeoutsAfter {
    /// How many timeouts came strictly after the instant.
    pub count: usize,
    /// The first of them.
    pub first_ns: Option<i64>,
}

/// Timeouts (instants of the sender's retransmission-timer expiries, or a
/// capture's `rto` retransmissions) strictly after `t_ns`: how many, and the
/// first. `timeouts` need not be sorted.
pub fn timeouts_after(timeouts: &[i64], t_ns: i64) -> TimeoutsAfter {
    let after = timeouts.iter().copied().filter(|&t| t > t_ns);
    TimeoutsAfter {
        count: after.clone().count(),
        first_ns: after.min(),
    }
}

/// The first segment retransmitted after an instant, and every transmission
/// of its sequence number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FirstRetransmission {
    pub seq: u64,
    /// Every transmission of `seq`, the original included, in segment order.
    pub sends_ns: Vec<i64>,
}

/// The first retransmission strictly after `t_ns` (segments in time order)
/// and all the transmissions of its sequence number, before and after.
pub fn first_retransmission_after(segments: &[Segment], t_ns: i64) -> Option<FirstRetransmission> {
    let seq = segments
        .iter()
        .find(|s| s.t_ns > t_ns && s.retransmission)?
        .seq;
    Some(FirstRetransmission {
        seq,
        sends_ns: segments
            .iter()
            .filter(|s| s.seq == seq)
            .map(|s| s.t_ns)
            .collect(),
    })
}

/// One segment's delay from its first transmission to its in-order delivery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentDelay {
    /// Sequence number of the segment's first byte.
    pub seq: u64,
    /// Its first transmission, ns.
    pub sent_ns: i64,
    /// First observation whose cumulative count reaches `seq + len`.
    pub delivered_ns: i64,
}

impl SegmentDelay {
    /// `delivered_ns - sent_ns`.
    pub fn delay_ns(&self) -> i64 {
        self.delivered_ns - self.sent_ns
    }
}

/// Per-segment delay: for each sequence number's first transmission (the
/// first non-retransmission segment with that `seq`, in segment order), the
/// time of the first delivery observation whose count reaches its end
/// (`seq + len`). On a sampled series the delay is exact to one interval;
/// segments never delivered within the series are left out. The series'
/// counts must not decrease.
pub fn segment_delays(segments: &[Segment], series: &[(i64, u64)]) -> Vec<SegmentDelay> {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut out = Vec::new();
    for s in segments.iter().filter(|s| !s.retransmission) {
        if !seen.insert(s.seq) {
            continue;
        }
        let end = s.seq + u64::from(s.len);
        let i = series.partition_point(|&(_, b)| b < end);
        if let Some(&(t, _)) = series.get(i) {
            out.push(SegmentDelay {
                seq: s.seq,
                sent_ns: s.t_ns,
                delivered_ns: t,
            });
        }
    }
    out
}

/// Mean of a sampled quantity (e.g. cwnd) over the samples at or after
/// `from_ns`, NaN samples skipped: a time average when the samples are
/// evenly spaced (a run's series). `None` if no sample remains.
pub fn sample_mean(samples: &[(i64, f64)], from_ns: i64) -> Option<f64> {
    let (n, sum) = samples
        .iter()
        .filter(|&&(t, v)| t >= from_ns && !v.is_nan())
        .fold((0usize, 0.0), |(n, s), &(_, v)| (n + 1, s + v));
    (n > 0).then(|| sum / n as f64)
}

/// Median of a sampled quantity (e.g. the RTO) over the samples at or
/// before `until_ns`, NaN samples skipped (the mean of the two middle
/// values for an even count). `None` if no sample remains.
pub fn sample_median(samples: &[(i64, f64)], until_ns: i64) -> Option<f64> {
    let mut v: Vec<f64> = samples
        .iter()
        .filter(|&&(t, v)| t <= until_ns && !v.is_nan())
        .map(|&(_, v)| v)
        .collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    })
}

/// Longest time without a new in-order delivery, from `start_ns` (the
/// start of the transfer, counted: the wait for the first delivery is a
/// stall) to the last observation (a trailing silence counts). Unlike
/// [`crate::interruptions()`], which starts at the first delivery, this is
/// the transfer's worst stall as its user saw it. `None` for an empty series.
pub fn longest_stall_ns(series: &[(i64, u64)], start_ns: i64) -> Option<i64> {
    let &(end, _) = series.last()?;
    let (mut last_t, mut last_b, mut worst) = (start_ns, 0u64, 0i64);
    for &(t, b) in series {
        if b > last_b {
            worst = worst.max(t - last_t);
            (last_t, last_b) = (t, b);
        }
    }
    Some(worst.max(end - last_t))
}

/// How much the in-order count jumps between consecutive observations, in
/// segments (`jump / mss` rounded half to even, as numpy does), counting
/// only jumps of at least one segment after rounding: `(segments, how many
/// times)`, most frequent first, ties in order of first appearance. A
/// receiver that gets whole batches (a network-coding decoder) shows one
/// dominant step, e.g. 50.
pub fn delivery_steps(series: &[(i64, u64)], mss: u32) -> Vec<(u64, usize)> {
    let mut counts: Vec<(u64, usize)> = Vec::new();
    for w in series.windows(2) {
        let jump = w[1].1 as f64 - w[0].1 as f64;
        let k = (jump / f64::from(mss)).round_ties_even();
        if k >= 1.0 {
            let k = k as u64;
            match counts.iter_mut().find(|c| c.0 == k) {
                Some(c) => c.1 += 1,
                None => counts.push((k, 1)),
            }
        }
    }
    // Stable sort: equal counts keep their first-appearance order.
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    counts
}

/// One sample of the sender's congestion state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CaSample {
    /// Whether the sender is in fast recovery (Linux `TCP_CA_Recovery`).
    pub in_recovery: bool,
    /// Congestion window (any unit, the same as `ssthresh`).
    pub cwnd: f64,
    /// Slow-start threshold ([`INFINITE_SSTHRESH`] before the first loss).
    pub ssthresh: f64,
}

/// The window cut of each entry into fast recovery: for every sample in
/// Recovery whose previous sample was not, `ssthresh / cwnd` with ssthresh
/// of the entry sample and cwnd of the sample before it (entries where that
/// cwnd is 0 or ssthresh is still [`INFINITE_SSTHRESH`] are skipped). Linux's
/// Reno takes 1/2, Cubic 717/1024 (tcp_cubic.c `beta`), Veno 4/5 on a loss
/// it deems random (tcp_veno.c).
pub fn recovery_cuts(samples: &[CaSample]) -> Vec<f64> {
    samples
        .windows(2)
        .filter(|w| {
            w[1].in_recovery
                && !w[0].in_recovery
                && w[0].cwnd > 0.0
                && w[1].ssthresh < INFINITE_SSTHRESH
        })
        .map(|w| w[1].ssthresh / w[0].cwnd)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;
    const MSS: u32 = 1000;

    /// A segment of `MSS` bytes numbered `n` (first byte `n * MSS`).
    fn seg(t_ms: i64, n: u64, retransmission: bool) -> Segment {
        Segment {
            t_ns: t_ms * MS,
            seq: n * u64::from(MSS),
            len: MSS,
            retransmission,
        }
    }

    /// A series sampled every 10 ms: `counts[i]` segments delivered by
    /// `(i + 1) * 10` ms.
    fn sampled(counts: &[u64]) -> Vec<(i64, u64)> {
        counts
            .iter()
            .enumerate()
            .map(|(i, &c)| ((i as i64 + 1) * 10 * MS, c * u64::from(MSS)))
            .collect()
    }

    /// Two segments delivered, then a handoff at 25 ms: nothing until
    /// 60 ms, then two more.
    fn handoff() -> Vec<(i64, u64)> {
        sampled(&[1, 2, 2, 2, 2, 3, 4])
    }

    #[test]
    fn delivered_at_is_the_count_of_the_last_sample_at_or_before() {
        let s = handoff();
        assert_eq!(delivered_at(&s, 5 * MS), None);
        assert_eq!(delivered_at(&s, 10 * MS), Some(1000));
        assert_eq!(delivered_at(&s, 59 * MS), Some(2000));
        assert_eq!(delivered_at(&s, 60 * MS), Some(3000));
        assert_eq!(delivered_at(&s, 1000 * MS), Some(4000));
    }

    #[test]
    fn delivered_at_ignores_a_lower_count_observed_later() {
        // A capture's reordered ACK repeats an older cumulative point.
        let s = vec![(10, 5000), (20, 4000)];
        assert_eq!(delivered_at(&s, 20), Some(5000));
    }

    #[test]
    fn delivered_after_counts_bytes_past_the_instant_and_zero_when_stalled() {
        let s = handoff();
        assert_eq!(delivered_after(&s, 25 * MS), 2000);
        assert_eq!(delivered_after(&s, 70 * MS), 0);
        assert_eq!(delivered_after(&s, 0), 4000);
        assert_eq!(delivered_after(&[], 0), 0);
    }

    #[test]
    fn goodput_between_two_instants() {
        let s = handoff();
        // 2000 bytes from 20 ms to 70 ms: 16 000 bit over 50 ms.
        assert_eq!(goodput_between_bps(&s, 20 * MS, 70 * MS), Some(320_000.0));
        assert_eq!(goodput_between_bps(&s, 5 * MS, 70 * MS), None);
        assert_eq!(goodput_between_bps(&s, 70 * MS, 70 * MS), None);
    }

    #[test]
    fn sampled_interruption_anchors_at_the_first_sample_after_the_event() {
        // Event at 15 ms: the 20 ms sample still holds the segment that
        // arrived just before it, so the gap starts at 20 ms, not 10 ms.
        let s = handoff();
        let i = interruption_around_sampled(&s, 15 * MS).unwrap().unwrap();
        assert_eq!(
            (i.start_ns, i.end_ns, i.delivered_before),
            (20 * MS, Some(60 * MS), 2000)
        );
        // Unanchored, the same event would end the gap at that 20 ms sample.
        let raw = interruption_around(s.iter().copied(), 15 * MS)
            .unwrap()
            .unwrap();
        assert_eq!((raw.start_ns, raw.end_ns), (10 * MS, Some(20 * MS)));
        // After the last sample the event itself anchors: never resumed.
        let late = interruption_around_sampled(&s, 500 * MS).unwrap().unwrap();
        assert_eq!((late.start_ns, late.end_ns), (70 * MS, None));
    }

    #[test]
    fn first_data_after_skips_window_probes() {
        let mut probe = seg(40, 2, false);
        probe.len = 1;
        let segs = vec![
            seg(10, 0, false),
            seg(20, 1, false),
            probe,
            seg(50, 2, false),
        ];
        assert_eq!(first_data_after(&segs, 20 * MS), Some(50 * MS));
        assert_eq!(first_data_after(&segs, 9 * MS), Some(10 * MS));
        assert_eq!(first_data_after(&segs, 50 * MS), None);
    }

    #[test]
    fn timeouts_after_counts_strictly_later_ones() {
        let rtos = [200 * MS, 1200 * MS, 3200 * MS];
        assert_eq!(
            timeouts_after(&rtos, 200 * MS),
            TimeoutsAfter {
                count: 2,
                first_ns: Some(1200 * MS)
            }
        );
        assert_eq!(
            timeouts_after(&rtos, 0),
            TimeoutsAfter {
                count: 3,
                first_ns: Some(200 * MS)
            }
        );
        assert_eq!(
            timeouts_after(&rtos, 4000 * MS),
            TimeoutsAfter {
                count: 0,
                first_ns: None
            }
        );
    }

    #[test]
    fn first_retransmission_after_lists_every_send_of_its_sequence() {
        // Segment 1 lost at 20 ms; retransmitted by timeouts at 300 and 900 ms.
        // Segment 0 was retransmitted before the instant and is not the one.
        let segs = vec![
            seg(10, 0, false),
            seg(15, 0, true),
            seg(20, 1, false),
            seg(30, 2, false),
            seg(300, 1, true),
            seg(900, 1, true),
        ];
        let got = first_retransmission_after(&segs, 25 * MS).unwrap();
        assert_eq!(
            got,
            FirstRetransmission {
                seq: 1000,
                sends_ns: vec![20 * MS, 300 * MS, 900 * MS]
            }
        );
        assert_eq!(first_retransmission_after(&segs, 900 * MS), None);
    }

    #[test]
    fn segment_delay_runs_from_first_send_to_in_order_delivery() {
        // Segment 1 is lost and resent at 45 ms; segment 2 waits behind it.
        let segs = vec![
            seg(1, 0, false),
            seg(2, 1, false),
            seg(3, 2, false),
            seg(45, 1, true),
            seg(50, 3, false),
        ];
        let series = sampled(&[1, 1, 1, 1, 3, 3]); // 10..60 ms
        let d = segment_delays(&segs, &series);
        let got: Vec<(u64, i64)> = d.iter().map(|d| (d.seq, d.delay_ns())).collect();
        // Segment 3 (ends at 4000) is never delivered within the series.
        assert_eq!(got, vec![(0, 9 * MS), (1000, 48 * MS), (2000, 47 * MS)]);
    }

    #[test]
    fn sample_mean_and_median_skip_nan_and_respect_bounds() {
        let s = vec![
            (0, 100.0),
            (10 * MS, 2.0),
            (20 * MS, f64::NAN),
            (30 * MS, 4.0),
            (40 * MS, 9.0),
        ];
        assert_eq!(sample_mean(&s, 10 * MS), Some(5.0));
        assert_eq!(sample_mean(&s, 50 * MS), None);
        assert_eq!(sample_median(&s, 30 * MS), Some(4.0)); // 2, 4, 100
        assert_eq!(sample_median(&s, 40 * MS), Some(6.5)); // 2, 4, 9, 100
        assert_eq!(sample_median(&s, -1), None);
    }

    #[test]
    fn longest_stall_counts_the_start_and_the_trailing_silence() {
        // First delivery at 10 ms, gap 20 -> 60 ms (40 ms), end at 70 ms.
        assert_eq!(longest_stall_ns(&handoff(), 0), Some(40 * MS));
        // Nothing delivered until 50 ms: the wait from the start is the stall.
        assert_eq!(
            longest_stall_ns(&sampled(&[0, 0, 0, 0, 1, 2]), 0),
            Some(50 * MS)
        );
        // Delivery stops at 20 ms and the series runs to 100 ms.
        assert_eq!(
            longest_stall_ns(&sampled(&[1, 2, 2, 2, 2, 2, 2, 2, 2, 2]), 0),
            Some(80 * MS)
        );
        assert_eq!(longest_stall_ns(&[], 0), None);
    }

    #[test]
    fn delivery_steps_most_frequent_first_ties_in_order() {
        // Jumps: 50, 0, 50, 2, 0.4 (rounds to 0), 3, 2.5 (rounds to 2), 3.
        let s: Vec<(i64, u64)> = [
            0, 50_000, 50_000, 100_000, 102_000, 102_400, 105_400, 107_900, 110_900,
        ]
        .iter()
        .enumerate()
        .map(|(i, &b)| (i as i64 * 10 * MS, b))
        .collect();
        assert_eq!(delivery_steps(&s, MSS), vec![(50, 2), (2, 2), (3, 2)]);
        assert_eq!(delivery_steps(&s[..2], MSS), vec![(50, 1)]);
    }

    #[test]
    fn recovery_cuts_are_ssthresh_over_cwnd_before_entry() {
        let ca = |in_recovery, cwnd, ssthresh| CaSample {
            in_recovery,
            cwnd,
            ssthresh,
        };
        let s = [
            ca(false, 10.0, INFINITE_SSTHRESH),
            ca(true, 10.0, INFINITE_SSTHRESH), // first loss, ssthresh not yet set: skipped
            ca(false, 20.0, 10.0),
            ca(true, 16.0, 16.0), // Veno's random-loss cut: 16 / 20
            ca(true, 16.0, 16.0), // still in Recovery: not an entry
            ca(false, 30.0, 16.0),
            ca(true, 15.0, 15.0), // Reno's halving
        ];
        assert_eq!(recovery_cuts(&s), vec![0.8, 0.5]);
    }
}
