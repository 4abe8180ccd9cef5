//! Lazy random waypoint legs.
//!
//! A leg is "pause at `from`, then travel in a straight line to `to`". Legs
//! are drawn from the node's own stream strictly in order (three uniforms
//! each: destination x, destination y, speed), only when a query reaches past
//! the last one, and are kept: the path is a function of the seed alone, and
//! a query at any earlier time is answered from the stored legs, so the
//! answer never depends on which times were asked before. A cursor makes
//! non-decreasing queries O(1) amortised; others binary-search.
//!
//! Memory is one 56-byte leg per pause+trip (a trip in a 1000 m square at
//! 1–20 m/s lasts tens of seconds), capped at [`MAX_RWP_LEGS`].

use airtcp_core::{Duration, Instant, RngStream};

use super::Pos;

/// At most this many legs are generated per node (about 56 MiB); past the
/// last one the node stays at its final destination. Reached only by runs of
/// days of simulated time with very short trips, and it keeps a query at an
/// absurd time (`Instant::MAX`) from generating legs for centuries.
pub const MAX_RWP_LEGS: usize = 1 << 20;

/// The random waypoint model's parameters (see [`super::Mobility::RandomWaypoint`]).
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Rectangle the waypoints are drawn in: `(x_min, y_min, x_max, y_max)` in metres.
    pub area: (f64, f64, f64, f64),
    /// Lowest speed (m/s) a leg is drawn with; keep it above 0 (see the
    /// model's note on decaying speed).
    pub speed_min: f64,
    /// Highest speed (m/s) a leg is drawn with.
    pub speed_max: f64,
    /// Pause at each waypoint before the next leg.
    pub pause: Duration,
}

/// One pause-then-travel leg. Invariants: `start <= move_start <= end`, and
/// the next leg starts at this one's `end` from this one's `to`.
#[derive(Clone, Copy, Debug)]
struct Leg {
    start: Instant,
    move_start: Instant,
    /// Arrival at `to`; `Instant::MAX` if the node never gets there (speed 0)
    /// or the model stops there (see [`RwpState::push_leg`]).
    end: Instant,
    from: (f64, f64),
    to: (f64, f64),
}

/// The generated part of a random waypoint path. Construct it through
/// [`super::Mobility::random_waypoint`].
#[derive(Clone, Debug)]
pub struct RwpState {
    rng: RngStream,
    /// Height, from nothing in the model: always 0.
    z: f64,
    legs: Vec<Leg>,
    /// Index of the leg that answered the last query.
    cursor: usize,
}

impl RwpState {
    /// Draw the start position (uniform in the area, two uniforms) and the
    /// first leg, which begins with a pause at time 0 as in ns-2 `setdest`.
    pub(super) fn new(p: Params, mut rng: RngStream) -> RwpState {
        let start = uniform_point(&mut rng, p.area);
        let mut s = RwpState {
            rng,
            z: 0.0,
            legs: Vec::with_capacity(16),
            cursor: 0,
        };
        s.push_leg(&p, Instant::ZERO, start);
        s
    }

    /// Append the leg that starts at `t` at `from`.
    fn push_leg(&mut self, p: &Params, t: Instant, from: (f64, f64)) {
        let move_start = t.checked_add(p.pause).unwrap_or(Instant::MAX);
        let to = uniform_point(&mut self.rng, p.area);
        let u = self.rng.uniform();
        let speed = p.speed_min + u * (p.speed_max - p.speed_min);
        let d = (to.0 - from.0).hypot(to.1 - from.1);
        let travel_ns = if d == 0.0 {
            Some(0)
        } else if speed > 0.0 && speed.is_finite() {
            let ns = (d / speed * 1e9).round();
            // NaN (from a NaN area) fails both tests: never arrives.
            if ns >= 0.0 && ns < u64::MAX as f64 {
                Some(ns as u64)
            } else {
                None
            }
        } else {
            None
        };
        let mut end = match travel_ns {
            Some(ns) => Instant(move_start.0.saturating_add(ns)),
            None => Instant::MAX,
        };
        if end == t {
            // A leg that takes no time at all (a one-point area with no
            // pause) would make generation loop forever: stop here instead.
            end = Instant::MAX;
        }
        self.legs.push(Leg {
            start: t,
            move_start,
            end,
            from,
            to,
        });
    }

    /// Index of the leg holding `now`, generating legs as needed.
    fn locate(&mut self, p: &Params, now: Instant) -> usize {
        loop {
            let Some(last) = self.legs.last().copied() else {
                // Unreachable through the constructor; stay put rather than panic.
                return 0;
            };
            if last.end > now || last.end == Instant::MAX || self.legs.len() >= MAX_RWP_LEGS {
                break;
            }
            self.push_leg(p, last.end, last.to);
        }
        let holds = |l: &Leg| l.start <= now && now < l.end;
        let c = self.cursor;
        let i = if self.legs.get(c).is_some_and(holds) {
            c
        } else if self.legs.get(c + 1).is_some_and(holds) {
            c + 1
        } else {
            // First leg that ends after `now`; past the cap, the last leg.
            self.legs
                .partition_point(|l| l.end <= now)
                .min(self.legs.len().saturating_sub(1))
        };
        self.cursor = i;
        i
    }

    pub(super) fn position(&mut self, p: &Params, now: Instant) -> Pos {
        let i = self.locate(p, now);
        let Some(l) = self.legs.get(i) else {
            return Pos::ORIGIN;
        };
        let (x, y) = if now < l.move_start || l.end == Instant::MAX {
            // Pausing, or a leg that never arrives (speed 0): it never left.
            l.from
        } else if now >= l.end {
            l.to
        } else {
            let f = (now.0 - l.move_start.0) as f64 / (l.end.0 - l.move_start.0) as f64;
            (
                l.from.0 + (l.to.0 - l.from.0) * f,
                l.from.1 + (l.to.1 - l.from.1) * f,
            )
        };
        Pos { x, y, z: self.z }
    }

    /// The leg part holding `now` as `(start, end, t0, span, from, to, z)`
    /// for [`super::Piece`], interpolated exactly as [`RwpState::position`].
    #[allow(clippy::type_complexity)]
    pub(super) fn piece(
        &mut self,
        p: &Params,
        now: Instant,
    ) -> (Instant, Instant, u64, u64, (f64, f64), (f64, f64), f64) {
        let i = self.locate(p, now);
        let Some(l) = self.legs.get(i).copied() else {
            return (
                Instant::ZERO,
                Instant::MAX,
                0,
                0,
                (0.0, 0.0),
                (0.0, 0.0),
                0.0,
            );
        };
        if l.end == Instant::MAX {
            (l.start, Instant::MAX, l.start.0, 0, l.from, l.from, self.z)
        } else if now < l.move_start {
            (l.start, l.move_start, l.start.0, 0, l.from, l.from, self.z)
        } else if now >= l.end {
            // Past the leg cap: the node stays where the last leg ended.
            (l.end, Instant::MAX, l.end.0, 0, l.to, l.to, self.z)
        } else {
            (
                l.move_start,
                l.end,
                l.move_start.0,
                l.end.0 - l.move_start.0,
                l.from,
                l.to,
                self.z,
            )
        }
    }

    pub(super) fn velocity(&mut self, p: &Params, now: Instant) -> (f64, f64) {
        let i = self.locate(p, now);
        let Some(l) = self.legs.get(i) else {
            return (0.0, 0.0);
        };
        if now < l.move_start || now >= l.end || l.end == Instant::MAX {
            return (0.0, 0.0);
        }
        let s = (l.end.0 - l.move_start.0) as f64 * 1e-9;
        ((l.to.0 - l.from.0) / s, (l.to.1 - l.from.1) / s)
    }

    pub(super) fn next_change(&mut self, p: &Params, now: Instant) -> Option<Instant> {
        let i = self.locate(p, now);
        let l = self.legs.get(i)?;
        if now < l.move_start {
            Some(l.move_start)
        } else if now < l.end && l.end != Instant::MAX {
            Some(l.end)
        } else {
            None
        }
    }

    /// Number of legs generated so far (for tests and memory accounting).
    pub fn legs_generated(&self) -> usize {
        self.legs.len()
    }
}

/// A uniform point of the area (two uniforms: x then y).
fn uniform_point(rng: &mut RngStream, (x0, y0, x1, y1): (f64, f64, f64, f64)) -> (f64, f64) {
    let ux = rng.uniform();
    let uy = rng.uniform();
    (x0 + ux * (x1 - x0), y0 + uy * (y1 - y0))
}
