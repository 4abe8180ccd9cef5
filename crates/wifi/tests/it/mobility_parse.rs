//! ns-2 setdest scenarios and CSV traces.

use airtcp_core::Instant;
use airtcp_wifi::mobility::{parse_csv, parse_setdest, Mobility, Pos};

fn secs(s: f64) -> Instant {
    Instant((s * 1e9).round() as u64)
}

fn close(a: Pos, b: Pos) -> bool {
    a.dist(&b) < 1e-6
}

/// What CMU's setdest (ns-2 indep-utils/cmu-scen-gen/setdest, version 1)
/// writes for `setdest -n 3 -p 2 -M 10 -t 200 -x 500 -y 700`, edited to
/// round numbers so the expected positions are easy to check.
const SCENARIO: &str = r#"#
# nodes: 3, pause: 2.00, max speed: 10.00, max x: 500.00, max y: 700.00
#
$node_(0) set X_ 100.000000000000
$node_(0) set Y_ 200.000000000000
$node_(0) set Z_ 0.000000000000
$node_(1) set X_ 10.000000000000
$node_(1) set Y_ 10.000000000000
$node_(1) set Z_ 0.000000000000
$node_(2) set X_ 300.500000000000
$node_(2) set Y_ 42.250000000000
$node_(2) set Z_ 1.500000000000
$god_ set-dist 0 1 1
$god_ set-dist 0 2 16777215
$god_ set-dist 1 2 1
$ns_ at 1.000000000000 "$node_(1) setdest 110.000000000000 10.000000000000 10.000000000000"
$ns_ at 2.000000000000 "$node_(0) setdest 400.000000000000 600.000000000000 5.000000000000"
$ns_ at 5.123456789012 "$god_ set-dist 1 2 2"
$ns_ at 6.000000000000 "$node_(1) setdest 60.000000000000 60.000000000000 5.000000000000"
$ns_ at 30.000000000000 "$node_(2) setdest 0.000000000000 0.000000000000 0.000000000000"
#
# Destination Unreachables: 0
#
# Route Changes: 2
#
# Link Changes: 2
#
# Node | Route Changes | Link Changes
#    0 |             1 |             1
#    1 |             2 |             1
#    2 |             1 |             2
"#;

#[test]
fn setdest_scenario_gives_one_trace_per_node() {
    let nodes = parse_setdest(SCENARIO).unwrap();
    assert_eq!(
        nodes.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
        vec![0, 1, 2]
    );
    let mut it = nodes.into_iter().map(|(_, m)| m);
    let (mut n0, mut n1, mut n2) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
    assert!(matches!(n0, Mobility::Trace(_)));

    // Node 0: waits at (100, 200) until 2 s, then 500 m at 5 m/s: arrives at 102 s.
    assert_eq!(n0.position(Instant::ZERO), Pos::new(100.0, 200.0, 0.0));
    assert_eq!(n0.position(secs(2.0)), Pos::new(100.0, 200.0, 0.0));
    assert!(close(n0.position(secs(52.0)), Pos::new(250.0, 400.0, 0.0)));
    assert!(close(n0.position(secs(102.0)), Pos::new(400.0, 600.0, 0.0)));
    assert!(close(n0.position(secs(500.0)), Pos::new(400.0, 600.0, 0.0)));
    let (vx, vy) = n0.velocity(secs(50.0));
    assert!((vx - 3.0).abs() < 1e-9 && (vy - 4.0).abs() < 1e-9);
    assert_eq!(n0.next_change(secs(10.0)), Some(secs(102.0)));
    assert!((n0.max_speed() - 5.0).abs() < 1e-9);

    // Node 1: leaves at 1 s east at 10 m/s; at 6 s, half-way (60, 10), is
    // redirected north to (60, 60) at 5 m/s: arrives at 16 s.
    assert!(close(n1.position(secs(3.5)), Pos::new(35.0, 10.0, 0.0)));
    assert!(close(n1.position(secs(6.0)), Pos::new(60.0, 10.0, 0.0)));
    assert!(close(n1.position(secs(11.0)), Pos::new(60.0, 35.0, 0.0)));
    assert!(close(n1.position(secs(16.0)), Pos::new(60.0, 60.0, 0.0)));
    assert!(close(n1.position(secs(100.0)), Pos::new(60.0, 60.0, 0.0)));
    assert_eq!(n1.next_change(secs(3.0)), Some(secs(6.0)));
    assert!((n1.max_speed() - 10.0).abs() < 1e-9);

    // Node 2: speed 0 keeps it where it is, height included.
    assert_eq!(n2.position(secs(100.0)), Pos::new(300.5, 42.25, 1.5));
    assert_eq!(n2.max_speed(), 0.0);
}

#[test]
fn setdest_commands_apply_in_time_order_from_the_current_position() {
    // File order is not time order; ns-2 runs them by time.
    let text = "$ns_ at 10.0 \"$node_(3) setdest 10.0 0.0 1.0\"\n\
                $ns_ at 5.0 \"$node_(3) setdest 0.0 10.0 1.0\"\n";
    let mut nodes = parse_setdest(text).unwrap();
    assert_eq!(nodes.len(), 1);
    let (idx, m) = &mut nodes[0];
    assert_eq!(*idx, 3);
    // Starts at the origin (ns-2 default), leaves at 5 s north; at 10 s at
    // (0, 5) it turns toward (10, 0): sqrt(125) m at 1 m/s.
    assert_eq!(m.position(secs(5.0)), Pos::ORIGIN);
    assert!(close(m.position(secs(10.0)), Pos::new(0.0, 5.0, 0.0)));
    let arrive = 10.0 + 125f64.sqrt();
    assert!(close(m.position(secs(arrive)), Pos::new(10.0, 0.0, 0.0)));
    assert!(close(
        m.position(secs(10.0 + 125f64.sqrt() / 2.0)),
        Pos::new(5.0, 2.5, 0.0)
    ));

    // Two commands at one instant: the later line wins.
    let text = "$ns_ at 1 \"$node_(0) setdest 5 0 1\"\n$ns_ at 1 \"$node_(0) setdest 0 5 1\"\n";
    let mut nodes = parse_setdest(text).unwrap();
    assert!(close(
        nodes[0].1.position(secs(3.0)),
        Pos::new(0.0, 2.0, 0.0)
    ));
}

#[test]
fn csv_with_and_without_header() {
    let mut a = parse_csv("t,x,y\n0,0,0\n2.5,10,-5\n").unwrap();
    let mut b = parse_csv("# a comment\n\n0, 0, 0\r\n2.5 ,10, -5\r\n").unwrap();
    for m in [&mut a, &mut b] {
        assert!(matches!(m, Mobility::Trace(_)));
        assert!(close(m.position(secs(1.25)), Pos::new(5.0, -2.5, 0.0)));
        assert_eq!(m.position(secs(9.0)), Pos::new(10.0, -5.0, 0.0));
        assert_eq!(m.next_change(secs(1.0)), Some(secs(2.5)));
    }
}

#[test]
fn every_error_names_its_line() {
    let setdest_cases: &[(&str, usize, &str)] = &[
        ("$node_(0) set X_ abc", 1, "X_"),
        ("\n# c\n$node_(x) set X_ 1", 3, "node"),
        ("$node_(4294967296) set X_ 1", 1, "node"),
        ("$node_(0) set W_ 1", 1, "W_"),
        ("$node_(0) set", 1, "variable"),
        ("$node_(0) set Y_", 1, "Y_"),
        ("$node_(0) move 1", 1, "move"),
        ("$node_(0)", 1, "missing command"),
        ("$node_(0) set X_ 1 2", 1, "unexpected"),
        ("$node_(0) set Z_ inf", 1, "Z_"),
        (
            "$god_ x\n$ns_ at abc \"$node_(0) setdest 1 2 3\"",
            2,
            "time",
        ),
        ("$ns_ at -1 \"$node_(0) setdest 1 2 3\"", 1, "time"),
        ("$ns_ at 1e300 \"$node_(0) setdest 1 2 3\"", 1, "time"),
        ("$ns_ at 1 $node_(0) setdest 1 2 3", 1, "double-quoted"),
        ("$ns_ at 1 \"$node_(0) setdest 1 2", 1, "double-quoted"),
        ("$ns_ at 1 \"$node_(0) setdest 1 2\"", 1, "setdest speed"),
        ("$ns_ at 1 \"$node_(0) setdest 1 2 -3\"", 1, "setdest speed"),
        ("$ns_ at 1 \"$node_(0) setdest x 2 3\"", 1, "setdest X"),
        ("$ns_ at 1 \"$node_(0) setdest 1 nan 3\"", 1, "setdest Y"),
        ("$ns_ at 1 \"$node_(0) setdest 1 2 3 4\"", 1, "unexpected"),
        ("$ns_ at 1 \"$node_(0) set X_ 3\"", 1, "set"),
        ("$ns_ at 1 \"$node_(q) setdest 1 2 3\"", 1, "node"),
        ("$ns_ at 1 \"\"", 1, "node"),
        ("$ns_ 1 \"$node_(0) setdest 1 2 3\"", 1, "at"),
        ("$ns_ at", 1, "time"),
        ("$node_(0) set X_ 1\nset X_ 3", 2, "unrecognised"),
        ("$nodes_(0) set X_ 1", 1, "unrecognised"),
    ];
    for &(text, line, what) in setdest_cases {
        let e = parse_setdest(text).unwrap_err();
        assert!(e.starts_with(&format!("line {line}: ")), "{text:?}: {e}");
        assert!(e.contains(what), "{text:?}: {e}");
    }

    let csv_cases: &[(&str, usize, &str)] = &[
        ("t,x,y\n1,2", 2, "y"),
        ("0,0,0\n1,a,0", 2, "x"),
        ("0,0,0\n1,,0", 2, "x"),
        ("0,0,0\n0,1,1", 2, "t"),
        ("1,0,0\n0.5,1,1", 2, "t"),
        ("0,0,0,0", 1, "3 fields"),
        ("", 1, "no waypoints"),
        ("t,x,y\n\n", 2, "no waypoints"),
        ("-1,0,0", 1, "t"),
        ("nan,0,0\n", 1, "t"), // NaN parses as a number: data, not a header
        ("0,0,0\n\n# c\n2,inf,0", 4, "x"),
        ("t,x,y\nfoo,1,2", 2, "t"),
        ("0,0,0\n1e300,0,0", 2, "t"),
    ];
    for &(text, line, what) in csv_cases {
        let e = parse_csv(text).unwrap_err();
        assert!(e.starts_with(&format!("line {line}: ")), "{text:?}: {e}");
        assert!(e.contains(what), "{text:?}: {e}");
    }
}

mod no_panic {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn parsers_never_panic(text in "[$_a-zX-Z0-9() .,\"#\\-\n]{0,200}") {
            let _ = parse_setdest(&text);
            let _ = parse_csv(&text);
        }

        #[test]
        fn mangled_scenarios_never_panic(cut in 0usize..2000, junk in "[ -~]{0,8}") {
            let mut s = SCENARIO.to_string();
            let at = cut.min(s.len());
            if s.is_char_boundary(at) {
                s.insert_str(at, &junk);
            }
            if let Ok(nodes) = parse_setdest(&s) {
                for (_, mut m) in nodes {
                    let _ = m.position(Instant::from_secs(7));
                    let _ = m.next_change(Instant::from_secs(7));
                }
            }
        }
    }
}
