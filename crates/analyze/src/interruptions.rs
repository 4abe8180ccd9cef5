//! Delivery interruptions: gaps in in-order delivery.
//!
//! One definition, used for simulated runs and real captures alike, so that
//! "how long did the transfer stop" means the same thing everywhere:
//!
//! - the input is a time-ordered sequence of observations `(t_ns, bytes)`,
//!   `bytes` being the cumulative count of bytes delivered *in order* so far
//!   (for a capture: the highest cumulative ACK minus the first one seen; for
//!   a simulated receiver: its in-order byte count);
//! - a **delivery** is an observation whose `bytes` is larger than every
//!   earlier one (a repeated or smaller value, e.g. a duplicate ACK, delivers
//!   nothing);
//! - an **interruption** runs from the last delivery before a gap to the
//!   first *new* in-order delivery after it (`start_ns` .. `end_ns`);
//! - [`interruptions`] reports every gap between consecutive deliveries
//!   longer than a threshold; [`interruption_around`] anchors one at an event
//!   (a disconnection, a handoff): from the last delivery at or before the
//!   event to the first new delivery after it;
//! - the **idle time after reconnection** ([`Interruption::idle_after`]) is
//!   `end_ns` minus the time the path returned: how long the transfer stayed
//!   silent once it could have gone on.
//!
//! All functions are pure: no state, no allocation beyond the result.

use std::fmt;

/// One gap in in-order delivery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interruption {
    /// Time of the last in-order delivery before the gap (ns).
    pub start_ns: i64,
    /// Cumulative in-order bytes at `start_ns`.
    pub delivered_before: u64,
    /// Time of the first new in-order delivery after the gap (ns); `None`
    /// when delivery never resumed within the observations.
    pub end_ns: Option<i64>,
}

impl Interruption {
    /// `end_ns - start_ns`, or `None` if delivery never resumed.
    pub fn duration_ns(&self) -> Option<i64> {
        self.end_ns.map(|e| e - self.start_ns)
    }

    /// Whether `t_ns` falls inside the gap (`start_ns <= t <= end_ns`; an
    /// open gap contains every later time).
    pub fn contains(&self, t_ns: i64) -> bool {
        t_ns >= self.start_ns && self.end_ns.map_or(true, |e| t_ns <= e)
    }

    /// Idle time after the path returned at `path_return_ns`: the first new
    /// in-order delivery minus the return. `None` if delivery never resumed;
    /// negative if delivery resumed before the path was reported back
    /// (e.g. through another path).
    pub fn idle_after(&self, path_return_ns: i64) -> Option<i64> {
        self.end_ns.map(|e| e - path_return_ns)
    }
}

/// The observations went back in time at `index` (they must be sorted by time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfOrder {
    /// Position of the first observation earlier than its predecessor.
    pub index: usize,
    pub t_ns: i64,
    pub previous_t_ns: i64,
}

impl fmt::Display for OutOfOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "observation {} at {} ns is earlier than the one before it ({} ns)",
            self.index, self.t_ns, self.previous_t_ns
        )
    }
}

impl std::error::Error for OutOfOrder {}

/// Every gap between consecutive in-order deliveries that lasts longer than
/// `min_gap_ns` (strictly), in time order.
///
/// If `observed_until_ns` is given (e.g. the end of the capture or of the
/// run) and the last delivery is more than `min_gap_ns` before it, an open
/// interruption (`end_ns: None`) is reported last; leave it `None` when a
/// transfer that simply finished should not count as interrupted.
/// The time before the first delivery is never an interruption.
pub fn interruptions<I>(
    observations: I,
    min_gap_ns: i64,
    observed_until_ns: Option<i64>,
) -> Result<Vec<Interruption>, OutOfOrder>
where
    I: IntoIterator<Item = (i64, u64)>,
{
    let mut out = Vec::new();
    let mut tracker = Tracker::new(min_gap_ns);
    for (t, bytes) in observations {
        if let Some(i) = tracker.observe(t, bytes)? {
            out.push(i);
        }
    }
    if let Some(until) = observed_until_ns {
        out.extend(tracker.finish(until));
    }
    Ok(out)
}

/// [`interruptions`] one observation at a time, for a stream (a capture
/// read once): the same definition, constant memory.
#[derive(Clone, Debug)]
pub struct Tracker {
    min_gap_ns: i64,
    index: usize,
    prev_t: Option<i64>,
    /// Last delivery: time and cumulative bytes.
    last: Option<(i64, u64)>,
}

impl Tracker {
    pub fn new(min_gap_ns: i64) -> Self {
        Tracker {
            min_gap_ns,
            index: 0,
            prev_t: None,
            last: None,
        }
    }

    /// The last delivery so far (time, cumulative bytes).
    pub fn last_delivery(&self) -> Option<(i64, u64)> {
        self.last
    }

    /// Take one observation; returns the interruption it ends, if any.
    pub fn observe(&mut self, t: i64, bytes: u64) -> Result<Option<Interruption>, OutOfOrder> {
        let index = self.index;
        self.index += 1;
        if let Some(p) = self.prev_t {
            if t < p {
                return Err(OutOfOrder {
                    index,
                    t_ns: t,
                    previous_t_ns: p,
                });
            }
        }
        self.prev_t = Some(t);
        match self.last {
            Some((lt, lb)) if bytes > lb => {
                self.last = Some((t, bytes));
                Ok((t - lt > self.min_gap_ns).then_some(Interruption {
                    start_ns: lt,
                    delivered_before: lb,
                    end_ns: Some(t),
                }))
            }
            None if bytes > 0 => {
                self.last = Some((t, bytes));
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    /// The open interruption at `until_ns` (end of observation), if the
    /// last delivery is more than the threshold before it.
    pub fn finish(&self, until_ns: i64) -> Option<Interruption> {
        let (lt, lb) = self.last?;
        (until_ns - lt > self.min_gap_ns).then_some(Interruption {
            start_ns: lt,
            delivered_before: lb,
            end_ns: None,
        })
    }
}

/// The interruption around an event at `event_ns` (a disconnection, the
/// start of a handoff): from the last in-order delivery at or before
/// `event_ns` to the first new in-order delivery after it.
///
/// `None` if nothing had been delivered by `event_ns` (there is no "last
/// delivery before"); `end_ns: None` if delivery never resumed.
pub fn interruption_around<I>(
    observations: I,
    event_ns: i64,
) -> Result<Option<Interruption>, OutOfOrder>
where
    I: IntoIterator<Item = (i64, u64)>,
{
    let mut before: Option<(i64, u64)> = None;
    let mut prev_t: Option<i64> = None;
    for (index, (t, bytes)) in observations.into_iter().enumerate() {
        if let Some(p) = prev_t {
            if t < p {
                return Err(OutOfOrder {
                    index,
                    t_ns: t,
                    previous_t_ns: p,
                });
            }
        }
        prev_t = Some(t);
        if t <= event_ns {
            if bytes > before.map_or(0, |b| b.1) {
                before = Some((t, bytes));
            }
        } else {
            let Some((bt, bb)) = before else {
                return Ok(None);
            };
            if bytes > bb {
                return Ok(Some(Interruption {
                    start_ns: bt,
                    delivered_before: bb,
                    end_ns: Some(t),
                }));
            }
        }
    }
    Ok(before.map(|(bt, bb)| Interruption {
        start_ns: bt,
        delivered_before: bb,
        end_ns: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    /// Deliveries every 10 ms of 1000 bytes, a silence from 100 ms to
    /// 1600 ms with duplicate ACKs inside, then deliveries again.
    fn with_outage() -> Vec<(i64, u64)> {
        let mut v: Vec<(i64, u64)> = (1..=10).map(|i| (i * 10 * MS, i as u64 * 1000)).collect();
        v.push((300 * MS, 10_000)); // duplicate: no delivery
        v.push((900 * MS, 10_000));
        v.extend((0..5).map(|i| ((1600 + i * 10) * MS, 11_000 + i as u64 * 1000)));
        v
    }

    #[test]
    fn gap_runs_from_last_delivery_to_first_new_delivery() {
        let got = interruptions(with_outage(), 200 * MS, None).unwrap();
        assert_eq!(
            got,
            vec![Interruption {
                start_ns: 100 * MS,
                delivered_before: 10_000,
                end_ns: Some(1600 * MS),
            }]
        );
        assert_eq!(got[0].duration_ns(), Some(1500 * MS));
    }

    #[test]
    fn gaps_at_or_below_threshold_are_not_interruptions() {
        assert!(interruptions(with_outage(), 1500 * MS, None)
            .unwrap()
            .is_empty());
        assert_eq!(
            interruptions(with_outage(), 1499 * MS, None).unwrap().len(),
            1
        );
        // Every regular 10 ms step is a gap above 9 ms.
        assert_eq!(interruptions(with_outage(), 9 * MS, None).unwrap().len(), 14);
    }

    #[test]
    fn trailing_silence_is_open_only_when_asked() {
        let obs = vec![(0, 0), (10 * MS, 500), (20 * MS, 900)];
        assert!(interruptions(obs.clone(), 50 * MS, None).unwrap().is_empty());
        let got = interruptions(obs, 50 * MS, Some(500 * MS)).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].start_ns, 20 * MS);
        assert_eq!(got[0].end_ns, None);
        assert!(got[0].contains(10_000 * MS));
    }

    #[test]
    fn time_before_first_delivery_is_not_an_interruption() {
        let obs = vec![(0, 0), (5000 * MS, 0), (6000 * MS, 100)];
        assert!(interruptions(obs, MS, Some(6000 * MS)).unwrap().is_empty());
    }

    #[test]
    fn observations_going_back_in_time_are_an_error() {
        let err = interruptions(vec![(10, 1), (20, 2), (15, 3)], 1, None).unwrap_err();
        assert_eq!(err.index, 2);
        assert_eq!(
            err.to_string(),
            "observation 2 at 15 ns is earlier than the one before it (20 ns)"
        );
    }

    #[test]
    fn around_disconnection_spans_last_before_to_first_new_after() {
        // Disconnected at 500 ms, path back at 1400 ms.
        let i = interruption_around(with_outage(), 500 * MS)
            .unwrap()
            .unwrap();
        assert_eq!(i.start_ns, 100 * MS);
        assert_eq!(i.delivered_before, 10_000);
        assert_eq!(i.end_ns, Some(1600 * MS));
        assert_eq!(i.idle_after(1400 * MS), Some(200 * MS));
        assert!(i.contains(500 * MS) && !i.contains(1601 * MS));
    }

    #[test]
    fn around_event_at_a_delivery_starts_at_that_delivery() {
        let i = interruption_around(with_outage(), 50 * MS).unwrap().unwrap();
        assert_eq!((i.start_ns, i.end_ns), (50 * MS, Some(60 * MS)));
    }

    #[test]
    fn around_event_before_any_delivery_or_never_resumed() {
        assert_eq!(interruption_around(with_outage(), 5 * MS).unwrap(), None);
        let i = interruption_around(with_outage(), 2000 * MS)
            .unwrap()
            .unwrap();
        assert_eq!((i.start_ns, i.end_ns), (1640 * MS, None));
        assert_eq!(i.idle_after(0), None);
    }
}
