//! Node positions over time, in metres, as the medium asks for them.
//!
//! Four models share one interface ([`Mobility::position`],
//! [`Mobility::velocity`], [`Mobility::next_change`], [`Mobility::max_speed`]):
//! a fixed position, a scripted list of timed waypoints, the random waypoint
//! model (Johnson & Maltz 1996; Broch et al. 1998), and a trace loaded from a
//! file (ns-2 `setdest` scenarios via [`parse_setdest`], or `t,x,y` CSV via
//! [`parse_csv`]).
//!
//! Time is integer nanoseconds, positions are `f64` metres: a position is
//! a *result* (a distance for the propagation model), never a branch in
//! protocol logic, so floating point here cannot make two runs diverge as
//! long as the same inputs give the same bits, which they do (no parallel
//! reductions, no platform maths beyond IEEE `+ - * / sqrt`).
//!
//! Every query is a pure function of `(model, now)`: asking at times in any
//! order gives the same answers. The random waypoint model generates its legs
//! lazily but always in the same order from its own random stream, and keeps
//! them, so an earlier time is answered from the stored legs (see
//! [`RwpState`]).

mod parse;
mod rwp;

pub use parse::{parse_csv, parse_setdest};
pub use rwp::{Params as RwpParams, RwpState, MAX_RWP_LEGS};

use airtcp_core::{Duration, Instant, RngStream};

/// A position in metres. `z` is height; the random waypoint model and ns-2
/// `setdest` move in the plane and leave `z` where it started.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pos {
    /// x in metres.
    pub x: f64,
    /// y in metres.
    pub y: f64,
    /// Height in metres: it counts in the 3-D distance between radios.
    pub z: f64,
}

impl Pos {
    /// (0, 0, 0).
    pub const ORIGIN: Pos = Pos {
        x: 0.0,
        y: 0.0,
        z: 0.0,
    };

    /// A position from its coordinates in metres (`const`, for tables of
    /// fixed positions).
    pub const fn new(x: f64, y: f64, z: f64) -> Pos {
        Pos { x, y, z }
    }

    /// Euclidean distance in metres (3-D: antennas at different heights
    /// are further apart than their ground positions).
    pub fn dist(&self, other: &Pos) -> f64 {
        let (dx, dy, dz) = (self.x - other.x, self.y - other.y, self.z - other.z);
        (dx * dx + dy * dy + dz * dz).sqrt()
    }

    /// The point a fraction `f` of the way from `self` to `to`.
    fn lerp(&self, to: &Pos, f: f64) -> Pos {
        Pos {
            x: self.x + (to.x - self.x) * f,
            y: self.y + (to.y - self.y) * f,
            z: self.z + (to.z - self.z) * f,
        }
    }
}

/// How a node moves.
#[derive(Clone, Debug)]
pub enum Mobility {
    /// Never moves.
    Static(Pos),
    /// Piecewise linear through timed waypoints, in non-decreasing time
    /// order: at the first position before the first waypoint, at the last
    /// after the last, linear in between. Two waypoints at the same instant
    /// are a jump (the later one holds from that instant on). An empty list
    /// is the origin.
    Waypoints(Vec<(Instant, Pos)>),
    /// The random waypoint model (Johnson & Maltz 1996, as implemented by
    /// Broch et al. 1998 and ns-2 `setdest`): the node starts at a uniform
    /// random point of `area` = `(x0, y0, x1, y1)` at time 0, pauses for
    /// `pause`, picks a uniform destination in the area and a uniform speed
    /// in `[speed_min, speed_max]` m/s, travels there in a straight line,
    /// pauses, and so on. Build it with [`Mobility::random_waypoint`], which
    /// checks the parameters and seeds `state`; changing the parameters
    /// later affects only legs not yet generated.
    ///
    /// With `speed_min` = 0 the mean speed decays over time (Yoon, Liu &
    /// Noble 2003, "Random waypoint considered harmful"): prefer a positive
    /// minimum.
    RandomWaypoint {
        /// Area, speeds and pause.
        params: RwpParams,
        /// The legs drawn so far and the random stream that draws the next
        /// (legs are drawn lazily, as queries reach them).
        state: RwpState,
    },
    /// Waypoints loaded from a file; evaluated exactly like
    /// [`Mobility::Waypoints`]. [`parse_setdest`] compiles ns-2's
    /// "move from wherever you are at T toward (X, Y) at S m/s" commands
    /// into such a list, so a trace costs no more to query than a script.
    Trace(Vec<(Instant, Pos)>),
}

/// A stretch of time over which a node moves in a straight line at
/// constant speed, or stands still: the medium keeps one per radio in a
/// dense array, so that asking where thousands of receivers are costs a
/// multiply-add each instead of a walk through every model's state.
/// [`Piece::at`] evaluates exactly the formula of the model it came from, so
/// it gives the same bits as [`Mobility::position`] while it holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Piece {
    /// First instant it holds.
    pub start: Instant,
    /// First instant it no longer holds (`Instant::MAX`: forever).
    pub end: Instant,
    /// Interpolation from `p0` at `t0` to `p1` at `t0 + span`; `span` 0
    /// stands still at `p0`.
    t0: u64,
    span: u64,
    p0: Pos,
    p1: Pos,
}

impl Piece {
    fn still(start: Instant, end: Instant, p: Pos) -> Piece {
        Piece {
            start,
            end,
            t0: start.0,
            span: 0,
            p0: p,
            p1: p,
        }
    }

    /// Whether the piece describes the motion at `now`.
    #[inline]
    pub fn holds(&self, now: Instant) -> bool {
        self.start <= now && now < self.end
    }

    /// Position at `now` (meaningful while the piece holds).
    #[inline]
    pub fn at(&self, now: Instant) -> Pos {
        if self.span == 0 {
            return self.p0;
        }
        let f = now.0.saturating_sub(self.t0) as f64 / self.span as f64;
        self.p0.lerp(&self.p1, f.min(1.0))
    }
}

/// A [`Piece`] in one cache line, for the medium's per-frame distance
/// checks (the 80-byte piece spans two: about half the simulated cache
/// misses of a campus frame's start went to them). Every piece starts at its
/// `t0`, and a moving one ends at `t0 + span`; a still one needs no second
/// point. So the line holds the start, the span (0: still), the first
/// point, and either the second point or (still) the end. [`Track::at`]
/// evaluates exactly [`Piece::at`]'s formula.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct Track {
    start: u64,
    span: u64,
    p0: Pos,
    /// Moving: the bits of `p1`'s x, y, z. Still: the end in nanoseconds.
    rest: [u64; 3],
}

impl Track {
    /// Holds at no instant (before a radio's first piece is known).
    pub const NEVER: Track = Track {
        start: u64::MAX,
        span: 0,
        p0: Pos::ORIGIN,
        rest: [0; 3],
    };

    /// The track of `piece`, or `None` for a piece of another shape (none
    /// is made; the caller then asks the piece itself).
    pub fn of(piece: &Piece) -> Option<Track> {
        if piece.t0 != piece.start.0 {
            return None;
        }
        if piece.span == 0 {
            return Some(Track {
                start: piece.start.0,
                span: 0,
                p0: piece.p0,
                rest: [piece.end.0, 0, 0],
            });
        }
        (piece.start.0.checked_add(piece.span) == Some(piece.end.0)).then_some(Track {
            start: piece.start.0,
            span: piece.span,
            p0: piece.p0,
            rest: [piece.p1.x.to_bits(), piece.p1.y.to_bits(), piece.p1.z.to_bits()],
        })
    }

    /// Whether the track describes the motion at `now` ([`Piece::holds`]).
    #[inline]
    pub fn holds(&self, now: Instant) -> bool {
        let end = if self.span == 0 {
            self.rest[0]
        } else {
            self.start + self.span
        };
        self.start <= now.0 && now.0 < end
    }

    /// Position at `now` (meaningful while the track holds): [`Piece::at`].
    #[inline]
    pub fn at(&self, now: Instant) -> Pos {
        if self.span == 0 {
            return self.p0;
        }
        let p1 = Pos {
            x: f64::from_bits(self.rest[0]),
            y: f64::from_bits(self.rest[1]),
            z: f64::from_bits(self.rest[2]),
        };
        let f = now.0.saturating_sub(self.start) as f64 / self.span as f64;
        self.p0.lerp(&p1, f.min(1.0))
    }
}

impl Mobility {
    /// A random waypoint model drawing from the stream
    /// `RngStream::component(seed, "mobility", name, "waypoints")`; give each
    /// node its own `name` (the simulator gives the node's name, so adding a
    /// node leaves the others' paths alone) so nodes move independently.
    ///
    /// Errors if a number is not finite, the area is inverted
    /// (`x0 > x1` or `y0 > y1`), `speed_min < 0` or `speed_min > speed_max`.
    /// `speed_max = 0` is allowed: the node stays at its random start.
    pub fn random_waypoint(
        area: (f64, f64, f64, f64),
        speed_min: f64,
        speed_max: f64,
        pause: Duration,
        seed: u64,
        name: &str,
    ) -> Result<Mobility, String> {
        let (x0, y0, x1, y1) = area;
        for (what, v) in [
            ("x0", x0),
            ("y0", y0),
            ("x1", x1),
            ("y1", y1),
            ("speed_min", speed_min),
            ("speed_max", speed_max),
        ] {
            if !v.is_finite() {
                return Err(format!(
                    "random waypoint: {what} = {v} is not a finite number"
                ));
            }
        }
        if x0 > x1 || y0 > y1 {
            return Err(format!("random waypoint: area ({x0}, {y0}, {x1}, {y1}) is inverted (need x0 <= x1, y0 <= y1)"));
        }
        if speed_min < 0.0 {
            return Err(format!(
                "random waypoint: speed_min = {speed_min} is negative"
            ));
        }
        if speed_min > speed_max {
            return Err(format!(
                "random waypoint: speed_min = {speed_min} exceeds speed_max = {speed_max}"
            ));
        }
        let rng = RngStream::component(seed, "mobility", name, "waypoints");
        let params = RwpParams {
            area,
            speed_min,
            speed_max,
            pause,
        };
        Ok(Mobility::RandomWaypoint {
            params,
            state: RwpState::new(params, rng),
        })
    }

    /// True for a model that can never move (a `Static` position, or a
    /// waypoint list with at most one entry). O(1): a longer list whose
    /// entries happen to coincide reports `false`.
    pub fn is_static(&self) -> bool {
        match self {
            Mobility::Static(_) => true,
            Mobility::Waypoints(w) | Mobility::Trace(w) => w.len() <= 1,
            Mobility::RandomWaypoint { .. } => false,
        }
    }

    /// Position at `now`. O(log n) in the number of waypoints for
    /// `Waypoints`/`Trace` (binary search); O(1) amortised for the random
    /// waypoint model under non-decreasing queries (a query earlier than the
    /// previous one is a binary search over stored legs). Never allocates
    /// except when the random waypoint model stores a newly generated leg.
    pub fn position(&mut self, now: Instant) -> Pos {
        match self {
            Mobility::Static(p) => *p,
            Mobility::Waypoints(w) | Mobility::Trace(w) => waypoints_position(w, now),
            Mobility::RandomWaypoint { params, state } => state.position(params, now),
        }
    }

    /// The straight piece of motion that holds at `now` (see [`Piece`]).
    /// For a waypoint list out of time order the piece may not hold at
    /// `now`; callers then ask [`Mobility::position`].
    pub fn piece(&mut self, now: Instant) -> Piece {
        match self {
            Mobility::Static(p) => Piece::still(Instant::ZERO, Instant::MAX, *p),
            Mobility::Waypoints(w) | Mobility::Trace(w) => waypoints_piece(w, now),
            Mobility::RandomWaypoint { params, state } => {
                let (start, end, t0, span, from, to, z) = state.piece(params, now);
                Piece {
                    start,
                    end,
                    t0,
                    span,
                    p0: Pos::new(from.0, from.1, z),
                    p1: Pos::new(to.0, to.1, z),
                }
            }
        }
    }

    /// The box `(x0, y0, x1, y1)` the node stays in, ignoring non-finite
    /// coordinates (`None` if it has none): the medium sizes its spatial
    /// grid on it. A position outside is still handled, only less quickly.
    pub fn bounds(&self) -> Option<(f64, f64, f64, f64)> {
        let mut b: Option<(f64, f64, f64, f64)> = None;
        let mut add = |x: f64, y: f64| {
            if x.is_finite() && y.is_finite() {
                b = Some(match b {
                    None => (x, y, x, y),
                    Some((x0, y0, x1, y1)) => (x0.min(x), y0.min(y), x1.max(x), y1.max(y)),
                });
            }
        };
        match self {
            Mobility::Static(p) => add(p.x, p.y),
            Mobility::Waypoints(w) | Mobility::Trace(w) => {
                if w.is_empty() {
                    add(0.0, 0.0);
                }
                for (_, p) in w {
                    add(p.x, p.y);
                }
            }
            Mobility::RandomWaypoint { params, .. } => {
                add(params.area.0, params.area.1);
                add(params.area.2, params.area.3);
            }
        }
        b
    }

    /// Velocity `(vx, vy)` in m/s at `now` (right-continuous: at the instant
    /// a leg starts, the velocity of that leg). Vertical motion of scripted
    /// waypoints is not reported. A jump (two waypoints at one instant) has
    /// no velocity: 0.
    pub fn velocity(&mut self, now: Instant) -> (f64, f64) {
        match self {
            Mobility::Static(_) => (0.0, 0.0),
            Mobility::Waypoints(w) | Mobility::Trace(w) => waypoints_velocity(w, now),
            Mobility::RandomWaypoint { params, state } => state.velocity(params, now),
        }
    }

    /// The next instant strictly after `now` at which the motion changes
    /// (a waypoint is reached, a pause ends), or `None` if the node will
    /// never change its motion again. Until then the node moves in a straight
    /// line at constant velocity (or stands still), so a neighbour set
    /// computed at `now` stays valid until `min(next_change, now +
    /// margin / (max_speed_a + max_speed_b))`. Conservative: a waypoint that
    /// changes nothing (same position twice) is still reported.
    pub fn next_change(&mut self, now: Instant) -> Option<Instant> {
        match self {
            Mobility::Static(_) => None,
            Mobility::Waypoints(w) | Mobility::Trace(w) => {
                let i = w.partition_point(|(t, _)| *t <= now);
                w.get(i).map(|(t, _)| *t)
            }
            Mobility::RandomWaypoint { params, state } => state.next_change(params, now),
        }
    }

    /// An upper bound on the speed in m/s, ever. `Static`: 0; random
    /// waypoint: `speed_max`; waypoints: the fastest segment, computed by a
    /// scan of the list (O(n): cache it), infinite if the list contains a
    /// jump between distinct positions.
    pub fn max_speed(&self) -> f64 {
        match self {
            Mobility::Static(_) => 0.0,
            Mobility::Waypoints(w) | Mobility::Trace(w) => {
                let mut best = 0.0f64;
                for pair in w.windows(2) {
                    let ((t0, p0), (t1, p1)) = (pair[0], pair[1]);
                    let d = p0.dist(&p1);
                    if d == 0.0 {
                        continue;
                    }
                    let dt = t1.0.saturating_sub(t0.0);
                    let v = if dt == 0 {
                        f64::INFINITY
                    } else {
                        d / (dt as f64 * 1e-9)
                    };
                    best = best.max(v);
                }
                best
            }
            Mobility::RandomWaypoint { params, .. } => params.speed_max.max(0.0),
        }
    }
}

/// Index `i` of the segment `w[i-1] -> w[i]` that holds `now`: the first
/// waypoint strictly after `now` (0: before the first; `len`: after the last).
fn segment_after(w: &[(Instant, Pos)], now: Instant) -> usize {
    w.partition_point(|(t, _)| *t <= now)
}

fn waypoints_position(w: &[(Instant, Pos)], now: Instant) -> Pos {
    let i = segment_after(w, now);
    if i == 0 {
        return w.first().map_or(Pos::ORIGIN, |(_, p)| *p);
    }
    let (t0, p0) = w[i - 1];
    match w.get(i) {
        None => p0,
        Some(&(t1, p1)) => {
            // Sorted input gives t0 <= now < t1; unsorted input must still
            // not divide by zero.
            let span = t1.0.saturating_sub(t0.0);
            if span == 0 {
                return p0;
            }
            let f = now.0.saturating_sub(t0.0) as f64 / span as f64;
            p0.lerp(&p1, f.min(1.0))
        }
    }
}

fn waypoints_piece(w: &[(Instant, Pos)], now: Instant) -> Piece {
    let i = segment_after(w, now);
    if i == 0 {
        let end = w.first().map_or(Instant::MAX, |(t, _)| *t);
        return Piece::still(
            Instant::ZERO,
            end,
            w.first().map_or(Pos::ORIGIN, |(_, p)| *p),
        );
    }
    let (t0, p0) = w[i - 1];
    match w.get(i) {
        None => Piece::still(t0, Instant::MAX, p0),
        Some(&(t1, p1)) => {
            let span = t1.0.saturating_sub(t0.0);
            if span == 0 {
                return Piece::still(t0, t1, p0);
            }
            Piece {
                start: t0,
                end: t1,
                t0: t0.0,
                span,
                p0,
                p1,
            }
        }
    }
}

fn waypoints_velocity(w: &[(Instant, Pos)], now: Instant) -> (f64, f64) {
    let i = segment_after(w, now);
    if i == 0 || i >= w.len() {
        return (0.0, 0.0);
    }
    let ((t0, p0), (t1, p1)) = (w[i - 1], w[i]);
    let span = t1.0.saturating_sub(t0.0);
    if span == 0 {
        return (0.0, 0.0);
    }
    let s = span as f64 * 1e-9;
    ((p1.x - p0.x) / s, (p1.y - p0.y) / s)
}

/// Seconds (from a file) to integer nanoseconds, rounded to nearest; `None`
/// unless finite, non-negative and below 2^64 ns (about 584 years).
pub(crate) fn secs_to_instant(s: f64) -> Option<Instant> {
    if !(s.is_finite() && s >= 0.0) {
        return None;
    }
    let ns = (s * 1e9).round();
    if ns < u64::MAX as f64 {
        Some(Instant(ns as u64))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_unsorted_waypoints_do_not_panic() {
        let mut m = Mobility::Waypoints(Vec::new());
        assert_eq!(m.position(Instant(5)), Pos::ORIGIN);
        assert_eq!(m.next_change(Instant(5)), None);
        let mut m = Mobility::Waypoints(vec![
            (Instant(10), Pos::new(1.0, 0.0, 0.0)),
            (Instant(5), Pos::new(2.0, 0.0, 0.0)),
            (Instant(7), Pos::new(3.0, 0.0, 0.0)),
        ]);
        for t in 0..20 {
            let _ = m.position(Instant(t));
            let _ = m.velocity(Instant(t));
            let _ = m.next_change(Instant(t));
        }
        let _ = m.max_speed();
    }

    /// A track holds exactly when its piece does and gives the same bits,
    /// for walking, pausing and waypoint pieces.
    #[test]
    fn track_is_its_piece_in_one_line() {
        assert_eq!(std::mem::size_of::<Track>(), 64);
        let mut models = vec![
            Mobility::random_waypoint((0.0, 0.0, 300.0, 200.0), 0.5, 1.5, Duration::from_secs(2), 4, "t")
                .unwrap(),
            Mobility::Waypoints(vec![
                (Instant(0), Pos::new(0.0, 0.0, 1.0)),
                (Instant(3_000_000_000), Pos::new(30.0, -4.0, 2.5)),
                (Instant(3_000_000_000), Pos::new(7.0, 7.0, 7.0)),
                (Instant(9_000_000_000), Pos::new(-1.0, 2.0, 0.0)),
            ]),
        ];
        let mut checked = 0;
        for m in &mut models {
            let mut t = Instant(0);
            while t < Instant(60_000_000_000) {
                let piece = m.piece(t);
                let track = Track::of(&piece).expect("pieces have a track");
                for dt in [0u64, 1, 999_999, 250_000_000, 1_700_000_001] {
                    let u = Instant(t.0 + dt);
                    assert_eq!(track.holds(u), piece.holds(u), "{u:?}");
                    if piece.holds(u) {
                        let (a, b) = (track.at(u), piece.at(u));
                        assert_eq!((a.x.to_bits(), a.y.to_bits(), a.z.to_bits()), (b.x.to_bits(), b.y.to_bits(), b.z.to_bits()));
                        checked += 1;
                    }
                }
                t = Instant(t.0 + 137_000_000);
            }
        }
        assert!(checked > 1000, "{checked}");
        assert!(!Track::NEVER.holds(Instant(0)) && !Track::NEVER.holds(Instant(u64::MAX - 1)));
    }

    #[test]
    fn secs_conversion_bounds() {
        assert_eq!(secs_to_instant(1.5), Some(Instant(1_500_000_000)));
        assert_eq!(secs_to_instant(-0.1), None);
        assert_eq!(secs_to_instant(f64::NAN), None);
        assert_eq!(secs_to_instant(1e11), None);
    }
}
