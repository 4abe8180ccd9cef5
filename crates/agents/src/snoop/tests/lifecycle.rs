//! The local timer, connection start and end, several connections.

use super::*;

#[test]
fn timer_expiry_retransmits_the_oldest_segment_and_backs_off() {
    let mut s = snoop();
    send_all(&mut s, ms(0), &DOWN, 0..2);
    assert_eq!(s.poll_timeout(), Some(ms(1000)), "seed 004: 1 s");
    s.handle_timeout(ms(999));
    assert!(injected(&mut s).is_empty());
    s.handle_timeout(ms(1000));
    assert_eq!(injected(&mut s), vec![rexmit_of(&DOWN, 0)]);
    let timeout_log = AgentLog { kind: "snoop_timeout", value: DOWN.seq(0).0 as u64 };
    assert_eq!(logs(&mut s), vec![timeout_log, rexmit_log(&DOWN, 0)]);
    assert_eq!(s.poll_timeout(), Some(ms(3000)), "doubled");
    s.handle_timeout(ms(3000));
    assert_eq!(s.poll_timeout(), Some(ms(7000)), "doubled again");
    assert_eq!(s.timer_for(&DOWN.key()), Some(Duration::from_secs(4)));
    assert_eq!((counter(&s, "local_timeouts"), counter(&s, "local_retransmissions")), (2, 2));
    // The ACK for it resets the back-off and, with data left, restarts the timer.
    assert_eq!(recv(&mut s, ms(7100), DOWN.ack(1)), Verdict::Accept);
    assert_eq!(s.poll_timeout(), Some(ms(8100)));
    recv(&mut s, ms(7200), DOWN.ack(2));
    assert_eq!(s.poll_timeout(), None);
}

#[test]
fn adaptive_timer_takes_karn_safe_local_rtt_samples() {
    let t = SnoopTimer::Adaptive { initial: Duration::from_secs(1), min: Duration::from_millis(10), max: Duration::from_secs(2) };
    let mut s = snoop_with(t, 64);
    let key = DOWN.key();
    send(&mut s, ms(0), DOWN.data(0));
    assert_eq!(s.poll_timeout(), Some(ms(1000)), "initial before any sample");
    recv(&mut s, ms(40), DOWN.ack(1));
    // RFC 6298: SRTT = 40, RTTVAR = 20, timer = 40 + 4·20.
    assert_eq!((s.srtt_for(&key), s.timer_for(&key)), (Some(Duration::from_millis(40)), Some(Duration::from_millis(120))));
    // One timed segment per window: segment 1 is timed, 2 is not.
    send_all(&mut s, ms(100), &DOWN, 1..3);
    recv(&mut s, ms(180), DOWN.ack(2));
    recv(&mut s, ms(190), DOWN.ack(3));
    // SRTT = 7/8·40 + 1/8·80 = 45, RTTVAR = 3/4·20 + 1/4·40 = 25.
    assert_eq!(s.srtt_for(&key), Some(Duration::from_millis(45)));
    assert_eq!(s.timer_for(&key), Some(Duration::from_millis(145)));
    // A retransmitted window gives no sample (Karn).
    send(&mut s, ms(200), DOWN.data(3));
    assert_eq!(s.poll_timeout(), Some(ms(345)));
    s.handle_timeout(ms(345));
    assert_eq!(s.timer_for(&key), Some(Duration::from_millis(290)));
    recv(&mut s, ms(900), DOWN.ack(4));
    assert_eq!(s.srtt_for(&key), Some(Duration::from_millis(45)), "no sample from the retransmitted segment");
    assert_eq!(s.timer_for(&key), Some(Duration::from_millis(145)), "back-off reset");
}

#[test]
fn fin_acknowledged_drops_the_connection_state() {
    let mut s = snoop();
    send_all(&mut s, ms(0), &DOWN, 0..2);
    assert_eq!(send(&mut s, ms(0), DOWN.fin(2)), Verdict::Accept);
    assert_eq!(s.cached_for(&DOWN.key()), Some(3), "the FIN is cached too");
    recv(&mut s, ms(10), DOWN.ack(2));
    assert_eq!(s.active_connections(), 1, "FIN not yet acknowledged");
    assert_eq!(recv(&mut s, ms(11), DOWN.ack_raw(DOWN.seq(2) + 1)), Verdict::Accept);
    assert_eq!(s.active_connections(), 0);
    assert_eq!((s.gauge(), s.poll_timeout()), (Some(0), None));
    // Late duplicates of a finished connection pass untouched.
    assert_eq!(recv(&mut s, ms(12), DOWN.ack_raw(DOWN.seq(2) + 1)), Verdict::Accept);
}

#[test]
fn reset_in_either_direction_drops_the_connection_state() {
    let mut s = snoop();
    send_all(&mut s, ms(0), &DOWN, 0..2);
    let mut rst = DOWN.ack(0);
    rst.segment_mut().unwrap().flags = TcpFlags::RST;
    assert_eq!(recv(&mut s, ms(5), rst), Verdict::Accept);
    assert_eq!((s.active_connections(), s.gauge()), (0, Some(0)));
    // Late data of the finished connection passes without new state.
    send_all(&mut s, ms(6), &DOWN, 2..3);
    assert_eq!((s.active_connections(), s.gauge()), (0, Some(0)));
    // A SYN starts a new incarnation of the 4-tuple.
    let mut syn = DOWN.fin(0);
    syn.segment_mut().unwrap().flags = TcpFlags::SYN;
    send(&mut s, ms(10), syn);
    send_all(&mut s, ms(10), &DOWN, 0..2);
    assert_eq!(s.active_connections(), 1);
    let mut rst = DOWN.fin(2);
    rst.segment_mut().unwrap().flags = TcpFlags::RST;
    assert_eq!(send(&mut s, ms(11), rst), Verdict::Accept);
    assert_eq!(s.active_connections(), 0);
    assert_eq!(counter(&s, "connections"), 2);
}

#[test]
fn two_connections_are_independent() {
    let other = Flow { sport: 5001, iss: 42, ..DOWN };
    let mut s = snoop();
    send_all(&mut s, ms(0), &DOWN, 0..4);
    send_all(&mut s, ms(0), &other, 0..3);
    recv(&mut s, ms(10), other.ack(3));
    assert_eq!((s.cached_for(&DOWN.key()), s.cached_for(&other.key())), (Some(4), Some(0)));
    recv(&mut s, ms(10), DOWN.ack(1));
    assert_eq!(recv(&mut s, ms(11), DOWN.ack(1)), Verdict::Drop);
    assert_eq!(recv(&mut s, ms(12), other.ack(3)), Verdict::Accept, "nothing outstanding on the other");
    assert_eq!(injected(&mut s), vec![rexmit_of(&DOWN, 1)]);
    assert_eq!(s.poll_timeout(), Some(ms(1011)), "only the first connection has a timer");
    assert_eq!(counter(&s, "connections"), 2);
}
