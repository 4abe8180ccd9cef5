//! snoop_ack's duplicate-ACK cases and snoop_data's out-of-sequence cases.

use super::*;

#[test]
fn dupack_for_cached_segment_retransmits_locally_and_is_suppressed() {
    let mut s = snoop();
    send_all(&mut s, ms(0), &DOWN, 0..5);
    assert_eq!(recv(&mut s, ms(10), DOWN.ack(1)), Verdict::Accept);
    // Segment 1 was lost; segment 2 arrives and the receiver repeats ACK 1.
    assert_eq!(recv(&mut s, ms(11), DOWN.ack(1)), Verdict::Drop);
    assert_eq!(injected(&mut s), vec![rexmit_of(&DOWN, 1)], "the cached copy, below Snoop on the wireless iface");
    assert_eq!(logs(&mut s), vec![rexmit_log(&DOWN, 1)]);
    assert_eq!(counter(&s, "local_retransmissions"), 1);
    assert_eq!(counter(&s, "dupacks_suppressed"), 1);
}

#[test]
fn expected_dupacks_for_the_window_are_suppressed_then_passed() {
    let mut s = snoop();
    send_all(&mut s, ms(0), &DOWN, 0..5);
    recv(&mut s, ms(10), DOWN.ack(1));
    // Segments 2, 3, 4 were sent after the lost one: three duplicates at most.
    assert_eq!(recv(&mut s, ms(11), DOWN.ack(1)), Verdict::Drop);
    assert_eq!(recv(&mut s, ms(12), DOWN.ack(1)), Verdict::Drop);
    assert_eq!(recv(&mut s, ms(13), DOWN.ack(1)), Verdict::Drop);
    assert_eq!(injected(&mut s).len(), 1, "one local retransmission per loss");
    // More than expected: the local retransmission was lost too; the sender decides.
    assert_eq!(recv(&mut s, ms(14), DOWN.ack(1)), Verdict::Accept);
    assert_eq!(counter(&s, "dupacks_suppressed"), 3);
}

#[test]
fn new_ack_after_local_recovery_rearms_for_the_next_loss() {
    let mut s = snoop();
    send_all(&mut s, ms(0), &DOWN, 0..7);
    recv(&mut s, ms(10), DOWN.ack(1));
    assert_eq!(recv(&mut s, ms(11), DOWN.ack(1)), Verdict::Drop);
    // The retransmission filled the hole; segment 4 was lost as well. The
    // first duplicate of ACK 4 may be the receiver's answer to our copy
    // (nothing sent after the copy is acknowledged yet): it passes, and
    // the second starts the local recovery.
    assert_eq!(recv(&mut s, ms(15), DOWN.ack(4)), Verdict::Accept);
    assert_eq!(recv(&mut s, ms(16), DOWN.ack(4)), Verdict::Accept);
    assert_eq!(recv(&mut s, ms(17), DOWN.ack(4)), Verdict::Drop);
    assert_eq!(injected(&mut s), vec![rexmit_of(&DOWN, 1), rexmit_of(&DOWN, 4)]);
    // Once data sent after the copies is acknowledged, the first duplicate acts.
    send_all(&mut s, ms(20), &DOWN, 7..10);
    assert_eq!(recv(&mut s, ms(30), DOWN.ack(8)), Verdict::Accept);
    assert_eq!(recv(&mut s, ms(31), DOWN.ack(8)), Verdict::Drop);
    assert_eq!(injected(&mut s), vec![rexmit_of(&DOWN, 8)]);
}

#[test]
fn answer_to_a_spurious_local_copy_does_not_start_another_recovery() {
    let mut s = snoop();
    send_all(&mut s, ms(0), &DOWN, 0..5);
    // Segment 0 was only queued: the timer copies it spuriously.
    s.handle_timeout(ms(1000));
    assert_eq!(injected(&mut s), vec![rexmit_of(&DOWN, 0)]);
    for n in 1..=5 {
        assert_eq!(recv(&mut s, ms(1001), DOWN.ack(n)), Verdict::Accept);
    }
    send_all(&mut s, ms(1002), &DOWN, 5..7);
    // The copy arrives after the originals: the receiver repeats ACK 5.
    assert_eq!(recv(&mut s, ms(1003), DOWN.ack(5)), Verdict::Accept);
    assert!(injected(&mut s).is_empty(), "segment 5 is behind the copy, not lost");
    assert_eq!(recv(&mut s, ms(1004), DOWN.ack(7)), Verdict::Accept);
    assert_eq!(s.gauge(), Some(0));
}

#[test]
fn dupack_for_uncached_segment_passes_to_sender() {
    // Cache of two: segments 2.. bypass the cache.
    let mut s = snoop_with(SnoopTimer::Fixed(Duration::from_secs(1)), 2);
    send_all(&mut s, ms(0), &DOWN, 0..5);
    recv(&mut s, ms(10), DOWN.ack(2));
    assert_eq!(recv(&mut s, ms(11), DOWN.ack(2)), Verdict::Accept);
    assert!(injected(&mut s).is_empty());
    assert_eq!(counter(&s, "dupacks_suppressed"), 0);
}

#[test]
fn sender_retransmission_of_locally_recovered_segment_hands_recovery_to_sender() {
    let mut s = snoop();
    send_all(&mut s, ms(0), &DOWN, 0..5);
    recv(&mut s, ms(10), DOWN.ack(1));
    assert_eq!(recv(&mut s, ms(11), DOWN.ack(1)), Verdict::Drop);
    // The sender timed out and resends segment 1 itself: forwarded, and
    // its duplicates now reach the sender's own recovery.
    assert_eq!(send(&mut s, ms(500), DOWN.data(1)), Verdict::Accept);
    assert_eq!(s.cached_for(&DOWN.key()), Some(4), "cached copy replaced, not added");
    assert_eq!(recv(&mut s, ms(510), DOWN.ack(1)), Verdict::Accept);
    assert_eq!(injected(&mut s).len(), 1);
}

#[test]
fn segment_never_seen_below_last_seq_is_cached_as_a_sender_retransmission() {
    let mut s = snoop();
    // Segment 1 was lost on the wired side before reaching Snoop.
    for i in [0, 2, 3] {
        send(&mut s, ms(0), DOWN.data(i));
    }
    recv(&mut s, ms(10), DOWN.ack(1));
    assert_eq!(recv(&mut s, ms(11), DOWN.ack(1)), Verdict::Accept, "not cached: the sender must resend");
    assert_eq!(send(&mut s, ms(50), DOWN.data(1)), Verdict::Accept);
    assert_eq!(s.cached_for(&DOWN.key()), Some(3));
    assert_eq!(recv(&mut s, ms(60), DOWN.ack(1)), Verdict::Accept, "marked sender-retransmitted");
    assert!(injected(&mut s).is_empty());
    assert_eq!(recv(&mut s, ms(61), DOWN.ack(4)), Verdict::Accept);
    assert_eq!(s.cached_for(&DOWN.key()), Some(0));
}

#[test]
fn window_updates_zero_windows_and_acks_with_data_are_not_dupacks() {
    let mut s = snoop();
    send_all(&mut s, ms(0), &DOWN, 0..4);
    recv(&mut s, ms(10), DOWN.ack(1));
    let mut upd = DOWN.ack(1);
    upd.segment_mut().unwrap().window = WINDOW + 1000;
    assert_eq!(recv(&mut s, ms(11), upd), Verdict::Accept, "window update");
    let mut zero = DOWN.ack(1);
    zero.segment_mut().unwrap().window = 0;
    assert_eq!(recv(&mut s, ms(12), zero), Verdict::Accept, "zero window");
    assert_eq!(recv(&mut s, ms(13), zero), Verdict::Accept, "zero window again");
    let mut with_data = DOWN.ack(1);
    with_data.segment_mut().unwrap().payload_len = 100;
    assert_eq!(recv(&mut s, ms(14), with_data), Verdict::Accept, "piggybacked");
    assert!(injected(&mut s).is_empty());
}

#[test]
fn spurious_old_ack_is_discarded() {
    let mut s = snoop();
    send_all(&mut s, ms(0), &DOWN, 0..4);
    recv(&mut s, ms(10), DOWN.ack(3));
    assert_eq!(recv(&mut s, ms(11), DOWN.ack(2)), Verdict::Drop);
    assert_eq!(s.cached_for(&DOWN.key()), Some(1));
}

/// The receiver's ACK for segment `n` SACKing segments `[from, to)`, with
/// the window a Linux SACK receiver advertises after out-of-order data (it
/// grows: tcp_data_queue_ofo → tcp_grow_window).
fn sack_dupack(n: u32, from: u32, to: u32, window: u16) -> Packet {
    let mut p = DOWN.ack(n);
    let seg = p.segment_mut().unwrap();
    seg.window = window;
    assert!(seg.push_sack(DOWN.seq(from), DOWN.seq(to)));
    p
}

#[test]
fn sack_dupack_with_a_grown_window_starts_local_recovery() {
    let mut s = snoop();
    send_all(&mut s, ms(0), &DOWN, 0..5);
    recv(&mut s, ms(10), DOWN.ack(1));
    // Segment 1 lost; segment 2's duplicate carries a SACK block and a
    // larger window: a duplicate all the same (RFC 6675 §2).
    assert_eq!(recv(&mut s, ms(11), sack_dupack(1, 2, 3, WINDOW + 3)), Verdict::Drop);
    assert_eq!(injected(&mut s), vec![rexmit_of(&DOWN, 1)]);
    assert_eq!(recv(&mut s, ms(12), sack_dupack(1, 2, 4, WINDOW + 5)), Verdict::Drop, "expected duplicate");
    // A window update repeating the SACK information is no duplicate.
    assert_eq!(recv(&mut s, ms(13), sack_dupack(1, 2, 4, WINDOW + 9)), Verdict::Accept);
    assert_eq!(counter(&s, "dupacks_suppressed"), 2);
    assert_eq!(counter(&s, "local_retransmissions"), 1);
}
