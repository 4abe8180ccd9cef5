//! Waypoint interpolation and the random waypoint model.

use airtcp_core::{Duration, Instant};
use airtcp_wifi::mobility::{Mobility, Pos};

fn secs(s: f64) -> Instant {
    Instant((s * 1e9).round() as u64)
}

fn close(a: Pos, b: Pos) -> bool {
    a.dist(&b) < 1e-9
}

#[test]
fn pos_dist_is_euclidean_3d() {
    let a = Pos::new(1.0, 2.0, 3.0);
    let b = Pos::new(4.0, 6.0, 15.0);
    assert_eq!(a.dist(&b), 13.0);
    assert_eq!(b.dist(&a), 13.0);
}

#[test]
fn static_never_moves() {
    let p = Pos::new(3.0, 4.0, 1.5);
    let mut m = Mobility::Static(p);
    assert!(m.is_static());
    assert_eq!(m.position(Instant::ZERO), p);
    assert_eq!(m.position(Instant::MAX), p);
    assert_eq!(m.velocity(secs(5.0)), (0.0, 0.0));
    assert_eq!(m.next_change(secs(5.0)), None);
    assert_eq!(m.max_speed(), 0.0);
}

fn script() -> Mobility {
    Mobility::Waypoints(vec![
        (secs(1.0), Pos::new(0.0, 0.0, 0.0)),
        (secs(3.0), Pos::new(10.0, 20.0, 0.0)),
        (secs(4.0), Pos::new(10.0, 20.0, 5.0)),
        (secs(6.0), Pos::new(10.0, 20.0, 5.0)), // pause 4..6 s
        (secs(7.0), Pos::new(13.0, 24.0, 5.0)),
    ])
}

#[test]
fn waypoints_interpolate_and_hold_at_the_ends() {
    let mut m = script();
    assert!(!m.is_static());
    // Before the first waypoint: at the first position.
    assert_eq!(m.position(Instant::ZERO), Pos::new(0.0, 0.0, 0.0));
    assert_eq!(m.position(secs(0.999)), Pos::new(0.0, 0.0, 0.0));
    // On and between waypoints.
    assert!(close(m.position(secs(1.0)), Pos::new(0.0, 0.0, 0.0)));
    assert!(close(m.position(secs(1.5)), Pos::new(2.5, 5.0, 0.0)));
    assert!(close(m.position(secs(2.0)), Pos::new(5.0, 10.0, 0.0)));
    assert!(close(m.position(secs(3.0)), Pos::new(10.0, 20.0, 0.0)));
    assert!(close(m.position(secs(3.5)), Pos::new(10.0, 20.0, 2.5)));
    assert!(close(m.position(secs(5.0)), Pos::new(10.0, 20.0, 5.0)));
    assert!(close(m.position(secs(6.5)), Pos::new(11.5, 22.0, 5.0)));
    // After the last: at the last position.
    assert_eq!(m.position(secs(7.0)), Pos::new(13.0, 24.0, 5.0));
    assert_eq!(m.position(Instant::MAX), Pos::new(13.0, 24.0, 5.0));
}

#[test]
fn waypoints_velocity_next_change_and_max_speed() {
    let mut m = script();
    assert_eq!(m.velocity(Instant::ZERO), (0.0, 0.0));
    let (vx, vy) = m.velocity(secs(2.0));
    assert!((vx - 5.0).abs() < 1e-9 && (vy - 10.0).abs() < 1e-9);
    // Right-continuous: at 1 s the first leg has begun.
    let (vx, _) = m.velocity(secs(1.0));
    assert!((vx - 5.0).abs() < 1e-9);
    assert_eq!(m.velocity(secs(5.0)), (0.0, 0.0));
    assert_eq!(m.velocity(secs(8.0)), (0.0, 0.0));

    assert_eq!(m.next_change(Instant::ZERO), Some(secs(1.0)));
    assert_eq!(m.next_change(secs(1.0)), Some(secs(3.0)));
    assert_eq!(m.next_change(secs(2.0)), Some(secs(3.0)));
    assert_eq!(m.next_change(secs(4.5)), Some(secs(6.0)));
    assert_eq!(m.next_change(secs(7.0)), None);

    // Fastest segment: 22.36 m in 2 s; the 5 m/1 s and 5 m/1 s ones are slower.
    assert!((m.max_speed() - (500.0f64).sqrt() / 2.0).abs() < 1e-9);

    // A jump is infinitely fast, and has no velocity.
    let mut j = Mobility::Waypoints(vec![
        (secs(1.0), Pos::ORIGIN),
        (secs(1.0), Pos::new(1.0, 0.0, 0.0)),
    ]);
    assert_eq!(j.max_speed(), f64::INFINITY);
    assert_eq!(j.position(secs(1.0)), Pos::new(1.0, 0.0, 0.0));
    assert_eq!(j.velocity(secs(1.0)), (0.0, 0.0));
}

const AREA: (f64, f64, f64, f64) = (-50.0, 10.0, 450.0, 310.0);

fn rwp(seed: u64, name: &str) -> Mobility {
    Mobility::random_waypoint(AREA, 1.0, 20.0, Duration::from_secs(2), seed, name).unwrap()
}

#[test]
fn random_waypoint_is_deterministic_whatever_the_query_order() {
    let times: Vec<Instant> = (0..2000u64)
        .map(|k| Instant(k * 731_000_000 + k * k * 17))
        .collect();
    let mut a = rwp(42, "node0");
    let forward: Vec<Pos> = times.iter().map(|&t| a.position(t)).collect();

    // Same seed, queried backwards, then in a scrambled order.
    let mut b = rwp(42, "node0");
    let mut backward: Vec<Pos> = times.iter().rev().map(|&t| b.position(t)).collect();
    backward.reverse();
    assert_eq!(forward, backward);
    let mut c = rwp(42, "node0");
    for k in 0..times.len() {
        let i = (k * 7919) % times.len();
        assert_eq!(
            c.position(times[i]),
            forward[i],
            "query {k} at {:?}",
            times[i]
        );
    }
    // Repeated queries agree too.
    assert_eq!(a.position(times[10]), forward[10]);

    // Another name or seed gives another path.
    let mut d = rwp(42, "node1");
    let mut e = rwp(43, "node0");
    assert_ne!(d.position(times[500]), forward[500]);
    assert_ne!(e.position(times[500]), forward[500]);
}

#[test]
fn random_waypoint_stays_in_the_area_at_legal_speeds() {
    let mut m = rwp(7, "n");
    assert!(!m.is_static());
    assert_eq!(m.max_speed(), 20.0);
    let (x0, y0, x1, y1) = AREA;
    // Walk the path from change to change: each piece is a pause of exactly
    // 2 s at rest, or a trip at constant speed within [1, 20] m/s.
    let mut t = Instant::ZERO;
    let mut pauses = 0;
    let mut trips = 0;
    while t < Instant::from_secs(3600) {
        let next = m.next_change(t).expect("random waypoint always moves on");
        assert!(next > t);
        let p = m.position(t);
        assert!(
            p.x >= x0 && p.x <= x1 && p.y >= y0 && p.y <= y1 && p.z == 0.0,
            "{p:?} at {t:?}"
        );
        let mid = Instant(t.0 + (next.0 - t.0) / 2);
        let (vx, vy) = m.velocity(mid);
        let v = vx.hypot(vy);
        if v == 0.0 {
            assert_eq!(next - t, Duration::from_secs(2), "pause at {t:?}");
            assert_eq!(m.position(mid), p);
            pauses += 1;
        } else {
            assert!(
                (1.0 - 1e-6..=20.0 + 1e-6).contains(&v),
                "speed {v} at {t:?}"
            );
            // Straight line at that speed.
            let q = m.position(next);
            let dt = (next - t).as_secs_f64();
            assert!(
                (p.dist(&q) - v * dt).abs() < 1e-6 * (1.0 + p.dist(&q)),
                "{p:?} -> {q:?}"
            );
            trips += 1;
        }
        t = next;
    }
    assert!(pauses > 10 && trips > 10, "{pauses} pauses, {trips} trips");
}

#[test]
fn random_waypoint_starts_with_a_pause() {
    let mut m = rwp(1, "first");
    let p0 = m.position(Instant::ZERO);
    assert_eq!(m.position(secs(1.999)), p0);
    assert_eq!(m.velocity(secs(1.0)), (0.0, 0.0));
    assert_eq!(m.next_change(Instant::ZERO), Some(secs(2.0)));
    assert_ne!(m.position(secs(2.5)), p0);
}

#[test]
fn random_waypoint_degenerate_cases_terminate() {
    // One-point area and no pause: nowhere to go, stays put.
    let mut m =
        Mobility::random_waypoint((5.0, 5.0, 5.0, 5.0), 1.0, 2.0, Duration::ZERO, 1, "p").unwrap();
    assert_eq!(
        m.position(Instant::from_secs(1000)),
        Pos::new(5.0, 5.0, 0.0)
    );
    assert_eq!(m.next_change(Instant::from_secs(1000)), None);
    // Zero speed: never leaves its start.
    let mut m = Mobility::random_waypoint(AREA, 0.0, 0.0, Duration::from_secs(1), 1, "z").unwrap();
    let p0 = m.position(Instant::ZERO);
    assert_eq!(m.position(Instant::from_secs(1000)), p0);
    assert_eq!(m.position(Instant::MAX), p0);
    assert_eq!(m.next_change(Instant::from_secs(1000)), None);
    // A query at the end of time is bounded by the leg cap, not a hang.
    let mut m = rwp(3, "far");
    let p = m.position(Instant::MAX);
    let (x0, y0, x1, y1) = AREA;
    assert!(p.x >= x0 && p.x <= x1 && p.y >= y0 && p.y <= y1);
    assert_eq!(m.next_change(Instant::MAX), None);
}

#[test]
fn random_waypoint_rejects_bad_parameters() {
    let p = Duration::ZERO;
    for (area, lo, hi, what) in [
        ((0.0, 0.0, f64::NAN, 1.0), 1.0, 2.0, "x1"),
        ((0.0, 0.0, 1.0, 1.0), f64::INFINITY, 2.0, "speed_min"),
        ((2.0, 0.0, 1.0, 1.0), 1.0, 2.0, "inverted"),
        ((0.0, 0.0, 1.0, 1.0), -1.0, 2.0, "negative"),
        ((0.0, 0.0, 1.0, 1.0), 3.0, 2.0, "exceeds"),
    ] {
        let e = Mobility::random_waypoint(area, lo, hi, p, 0, "x").unwrap_err();
        assert!(e.contains(what), "{e}");
    }
}

/// The medium answers "where is radio j now" from a cached straight piece;
/// it must give the model's own bits, for every model, at every instant the
/// piece holds, including its first instant and the one just before its end.
#[test]
fn pieces_give_the_models_exact_positions() {
    let models = [
        Mobility::Static(Pos::new(3.0, 4.0, 1.0)),
        script(),
        rwp(7, "piece"),
        Mobility::Waypoints(Vec::new()),
    ];
    for mut m in models {
        let mut t = Instant::ZERO;
        let mut pieces = 0;
        while t < secs(400.0) {
            let p = m.piece(t);
            assert!(p.holds(t), "{m:?} piece {p:?} at {t:?}");
            let probes = [
                t,
                p.start,
                Instant(p.end.0.saturating_sub(1)).min(secs(500.0)),
                Instant((t.0 + p.end.0.min(secs(500.0).0)) / 2),
            ];
            for q in probes {
                if p.holds(q) {
                    assert_eq!(p.at(q), m.position(q), "{q:?} in {p:?}");
                }
            }
            pieces += 1;
            t = if p.end == Instant::MAX {
                secs(400.0)
            } else {
                p.end
            };
        }
        assert!(pieces >= 1);
    }
    // A random waypoint path over 400 s is many pieces (pauses and trips).
    let mut m = rwp(7, "piece");
    let (mut t, mut n) = (Instant::ZERO, 0);
    while t < secs(400.0) {
        t = m.piece(t).end;
        n += 1;
    }
    assert!(n > 10, "{n} pieces");
}

#[test]
fn bounds_cover_every_model() {
    assert_eq!(
        Mobility::Static(Pos::new(3.0, 4.0, 1.0)).bounds(),
        Some((3.0, 4.0, 3.0, 4.0))
    );
    assert_eq!(script().bounds(), Some((0.0, 0.0, 13.0, 24.0)));
    assert_eq!(rwp(1, "b").bounds(), Some((AREA.0, AREA.1, AREA.2, AREA.3)));
    assert_eq!(
        Mobility::Static(Pos::new(f64::NAN, 0.0, 0.0)).bounds(),
        None
    );
}
