//! When a UDP application sends, as a small state machine: asked at an
//! instant, it says whether a datagram is due (and its size) and when it
//! next needs to be asked. It never sees the network.

use airtcp_core::{Duration, Instant, RngStream};

use crate::scenario::udp::{Periods, UdpApp, UdpFlowSpec};

pub enum Pattern {
    /// Datagram `k` leaves at `start + k x size x 8 / rate`, computed
    /// exactly each time, so a long run does not drift.
    Cbr { start: Instant, bit_ns: u128, rate: u128, k: u64 },
    /// ns-3's OnOffApplication: it begins with an off period (as ns-3's
    /// `ScheduleStartEvent` does), sends one datagram every `gap` while on,
    /// and carries the unfinished part of a gap across an off period (ns-3's
    /// residual bits), so the mean rate is `rate x on / (on + off)`.
    OnOff { gap: Duration, on_mean: Duration, off_mean: Duration, periods: Periods, on: bool, period_end: Instant, next_send: Instant, remaining: Duration },
    /// Paced by the radio's MAC queue, not by time (`UdpFlows::top_up`).
    Saturated { backlog: u32 },
    /// The trace's datagrams at `start` + their offsets.
    Trace { start: Instant, entries: Vec<(Duration, u32)>, idx: usize },
}

pub struct UdpSender {
    pub pattern: Pattern,
    pub size: u32,
    pub stop: Instant,
    /// Draws the on/off periods (`udp<i>.onoff`).
    rng: RngStream,
}

impl UdpSender {
    pub fn new(spec: &UdpFlowSpec, rng: RngStream) -> UdpSender {
        let start = Instant::ZERO + spec.start;
        let bits = spec.size as u128 * 8;
        let pattern = match &spec.app {
            UdpApp::Cbr { rate_bps } => Pattern::Cbr { start, bit_ns: bits * 1_000_000_000, rate: *rate_bps as u128, k: 0 },
            UdpApp::OnOff { rate_bps, on, off, periods } => {
                let gap = Duration(((bits * 1_000_000_000).div_ceil(*rate_bps as u128)).max(1) as u64);
                Pattern::OnOff { gap, on_mean: *on, off_mean: *off, periods: *periods, on: false, period_end: start, next_send: start, remaining: gap }
            }
            UdpApp::Saturated { backlog } => Pattern::Saturated { backlog: *backlog },
            UdpApp::Trace { entries, .. } => Pattern::Trace { start, entries: entries.clone(), idx: 0 },
        };
        let mut s = UdpSender { pattern, size: spec.size, stop: Instant::ZERO + spec.stop, rng };
        if let Pattern::OnOff { period_end, off_mean, periods, .. } = &mut s.pattern {
            *period_end = start + draw(&mut s.rng, *periods, *off_mean);
        }
        s
    }

    /// The size of a datagram due at `now`, if one is; the state moves on
    /// past it. Call until None.
    pub fn due(&mut self, now: Instant) -> Option<u32> {
        if now >= self.stop {
            return None;
        }
        match &mut self.pattern {
            Pattern::Cbr { start, bit_ns, rate, k } => {
                let at = *start + Duration((*k as u128 * *bit_ns / *rate) as u64);
                (at <= now).then(|| {
                    *k += 1;
                    self.size
                })
            }
            Pattern::OnOff { gap, on_mean, off_mean, periods, on, period_end, next_send, remaining } => loop {
                if *on {
                    if *next_send < *period_end && *next_send <= now {
                        *next_send = *next_send + *gap;
                        return Some(self.size);
                    }
                    if *period_end > now {
                        return None;
                    }
                    *remaining = next_send.saturating_since(*period_end);
                    *on = false;
                    *period_end = *period_end + draw(&mut self.rng, *periods, *off_mean);
                } else {
                    if *period_end > now {
                        return None;
                    }
                    *on = true;
                    *next_send = *period_end + *remaining;
                    *period_end = *period_end + draw(&mut self.rng, *periods, *on_mean);
                }
            },
            Pattern::Saturated { .. } => None,
            Pattern::Trace { start, entries, idx } => {
                let &(at, bytes) = entries.get(*idx)?;
                (*start + at <= now).then(|| {
                    *idx += 1;
                    bytes
                })
            }
        }
    }

    /// When `due` next has something to do (None: never again, or paced
    /// by the MAC queue).
    pub fn next_wake(&self) -> Option<Instant> {
        let t = match &self.pattern {
            Pattern::Cbr { start, bit_ns, rate, k } => *start + Duration((*k as u128 * *bit_ns / *rate) as u64),
            Pattern::OnOff { on, period_end, next_send, .. } => {
                if *on && *next_send < *period_end {
                    *next_send
                } else {
                    *period_end
                }
            }
            Pattern::Saturated { .. } => return None,
            Pattern::Trace { start, entries, idx } => *start + entries.get(*idx)?.0,
        };
        (t < self.stop).then_some(t)
    }
}

/// One on or off period with mean `mean`: constant, exponential, or
/// Pareto with the given shape and the scale that gives that mean
/// (scale = mean x (shape - 1) / shape, ns-3's ParetoRandomVariable with
/// its mean set), by inverse transform. At least 1 ns.
fn draw(rng: &mut RngStream, periods: Periods, mean: Duration) -> Duration {
    let m = mean.0 as f64;
    let ns = match periods {
        Periods::Constant => return mean,
        Periods::Exponential => rng.exponential(m),
        Periods::Pareto { shape } => {
            let scale = m * (shape - 1.0) / shape;
            scale / (1.0 - rng.uniform()).powf(1.0 / shape)
        }
    };
    Duration((ns.round() as u64).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::udp::UdpApp;

    fn spec(app: UdpApp, size: u32, start_ms: u64, stop_ms: u64) -> UdpFlowSpec {
        UdpFlowSpec { name: "u".into(), from: 0, to: 1, start: Duration::from_millis(start_ms), stop: Duration::from_millis(stop_ms), size, app }
    }

    /// Every send time up to `end`, asking at each wake as the simulator does.
    fn sends(s: &mut UdpSender, end: Instant) -> Vec<(Instant, u32)> {
        let mut out = Vec::new();
        while let Some(t) = s.next_wake() {
            if t > end {
                break;
            }
            while let Some(b) = s.due(t) {
                out.push((t, b));
            }
        }
        out
    }

    #[test]
    fn cbr_sends_on_an_exact_grid_until_stop() {
        // 1000 B at 3 Mb/s: 2.666... ms apart, never drifting.
        let mut s = UdpSender::new(&spec(UdpApp::Cbr { rate_bps: 3_000_000 }, 1000, 10, 1010), RngStream::new(1, "u"));
        let v = sends(&mut s, Instant::ZERO + Duration::from_secs(5));
        assert_eq!(v.len(), 375);
        assert_eq!(v[0].0, Instant::ZERO + Duration::from_millis(10));
        assert_eq!(v[3].0, Instant::ZERO + Duration::from_millis(18));
        assert_eq!(v[374].0.0, 10_000_000 + 374 * 8_000_000 / 3);
    }

    #[test]
    fn onoff_constant_periods_send_at_rate_while_on_only() {
        // 1 Mb/s, 1250 B: one per 10 ms while on; off 100 ms first (ns-3's order), then on 100 ms.
        let app = UdpApp::OnOff { rate_bps: 1_000_000, on: Duration::from_millis(100), off: Duration::from_millis(100), periods: Periods::Constant };
        let mut s = UdpSender::new(&spec(app, 1250, 0, 1000), RngStream::new(1, "u"));
        let v = sends(&mut s, Instant::ZERO + Duration::from_secs(1));
        let ms: Vec<u64> = v.iter().map(|(t, _)| t.0 / 1_000_000).collect();
        assert_eq!(&ms[..11], &[110, 120, 130, 140, 150, 160, 170, 180, 190, 300, 310]);
        // The datagram due at 200 ms (the period's end) had its whole gap
        // behind it: it goes at the next period's start, 300 ms.
        assert_eq!(ms.len(), 9 + 10 + 10 + 10 + 10);
    }

    #[test]
    fn onoff_carries_the_unfinished_gap_across_an_off_period() {
        // 15 ms gap, on 100-200 ms: the datagram due at 205 ms has 5 ms of
        // its gap left; it goes 5 ms into the next on period (305 ms).
        let app = UdpApp::OnOff { rate_bps: 1_000_000, on: Duration::from_millis(100), off: Duration::from_millis(100), periods: Periods::Constant };
        let mut s = UdpSender::new(&spec(app, 1875, 0, 1000), RngStream::new(1, "u"));
        let v = sends(&mut s, Instant::ZERO + Duration::from_millis(400));
        let ms: Vec<u64> = v.iter().map(|(t, _)| t.0 / 1_000_000).collect();
        assert_eq!(ms, vec![115, 130, 145, 160, 175, 190, 305, 320, 335, 350, 365, 380, 395]);
    }

    #[test]
    fn onoff_random_periods_keep_their_means() {
        for periods in [Periods::Exponential, Periods::Pareto { shape: 2.5 }] {
            let mut rng = RngStream::new(9, "udp0.onoff");
            let n = 200_000;
            let mean = (0..n).map(|_| draw(&mut rng, periods, Duration::from_millis(50)).0 as f64).sum::<f64>() / n as f64;
            assert!((mean / 50e6 - 1.0).abs() < 0.02, "{periods:?}: mean {mean}");
        }
        // A Pareto period is never below its scale (mean x (a - 1) / a).
        let mut rng = RngStream::new(9, "p");
        assert!((0..10_000).all(|_| draw(&mut rng, Periods::Pareto { shape: 1.5 }, Duration::from_millis(30)).0 >= 10_000_000));
    }

    #[test]
    fn trace_sender_follows_the_file_and_stops() {
        let entries = vec![(Duration::ZERO, 100), (Duration::from_millis(5), 200), (Duration::from_millis(5), 50), (Duration::from_millis(900), 10)];
        let app = UdpApp::Trace { file: "t".into(), entries };
        let mut s = UdpSender::new(&spec(app, 0, 100, 500), RngStream::new(1, "u"));
        let v = sends(&mut s, Instant::ZERO + Duration::from_secs(2));
        assert_eq!(v, vec![(Instant::ZERO + Duration::from_millis(100), 100), (Instant::ZERO + Duration::from_millis(105), 200), (Instant::ZERO + Duration::from_millis(105), 50)]);
    }
}
