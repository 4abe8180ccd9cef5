//! Mahimahi delivery-opportunity traces as a link: capacity, byte sharing,
//! wrap-around and error messages.

use std::path::PathBuf;

use airtcp_core::Instant;
use airtcp_sim::trace::{MahimahiSchedule, MAHIMAHI_MTU};

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/traces").join(rel)
}

fn ms(v: u64) -> Instant {
    Instant::from_millis(v)
}

fn sched(text: &str) -> MahimahiSchedule {
    MahimahiSchedule::parse(text, Instant::ZERO).unwrap()
}

/// Back-to-back packets of `size` from `origin` until `horizon`; returns
/// the bytes whose delivery instant is <= horizon.
fn saturate(s: &mut MahimahiSchedule, size: u32, horizon: Instant) -> u64 {
    let mut t = s.origin();
    let mut bytes = 0;
    loop {
        let done = s.finish_time(t, size);
        if done > horizon {
            return bytes;
        }
        bytes += size as u64;
        t = done;
    }
}

#[test]
fn saturating_sender_gets_trace_capacity() {
    // Excerpt: 300 opportunities over 227 ms -> 300 * 12000 b / 0.227 s.
    let origin = Instant::from_nanos(123_456_789);
    let mut s = MahimahiSchedule::from_path(data("mahimahi/TMobile-LTE-short.down.head300"), origin).unwrap();
    assert_eq!(s.opportunities(), 300);
    assert_eq!(s.period_ms(), 227);
    let cap = s.capacity_bps();
    assert!((cap - 300.0 * 12_000.0 / 0.227).abs() < 1e-6, "{cap}");
    // Ten full periods: every opportunity carries exactly one 1500-byte
    // packet; the horizon instant also holds the 11th repetition's six
    // opportunities at offset 0 (the excerpt starts with six "0" lines).
    let horizon = origin + airtcp_core::Duration::from_millis(10 * 227);
    let bytes = saturate(&mut s, 1500, horizon);
    assert_eq!(bytes, (10 * 300 + 6) * 1500);
    let got = bytes as f64 * 8.0 / 2.27;
    assert!((got / cap - 1.0).abs() < 0.01, "got {got} bps, capacity {cap} bps");
}

#[test]
fn saturating_sender_on_full_shared_trace_within_one_percent() {
    // The full trace lives outside the repo; skip quietly where it is absent.
    let path = PathBuf::from("/work/shared/traces/mahimahi/Verizon-LTE-short.down");
    if !path.exists() {
        return;
    }
    let mut s = MahimahiSchedule::from_path(&path, Instant::ZERO).unwrap();
    assert_eq!(s.opportunities(), 58655);
    assert_eq!(s.period_ms(), 140_000);
    let horizon = ms(2 * 140_000 + 1234);
    let bytes = saturate(&mut s, 1500, horizon);
    let got = bytes as f64 * 8.0 / horizon.as_secs_f64();
    assert!((got / s.capacity_bps() - 1.0).abs() < 0.01, "got {got}, capacity {}", s.capacity_bps());
}

#[test]
fn one_line_trace_is_twelve_megabits() {
    // mahimahi traces/README: a file containing "1" is 12 Mbit/s.
    let mut s = sched("1\n");
    assert_eq!(s.capacity_bps(), 12e6);
    assert_eq!(s.finish_time(Instant::ZERO, 1500), ms(1));
    assert_eq!(s.finish_time(ms(1), 1500), ms(2));
    assert_eq!(s.finish_time(ms(1), 1500), ms(3)); // FIFO: queued behind
}

#[test]
fn small_packets_share_an_opportunity() {
    let mut s = sched("5\n5\n10\n");
    let done: Vec<u64> = (0..9).map(|_| s.finish_time(Instant::ZERO, 500).as_millis()).collect();
    // Two opportunities at 5 ms (3 packets each), one at 10 ms, then the
    // trace repeats shifted by 10 ms.
    assert_eq!(done, [5, 5, 5, 5, 5, 5, 10, 10, 10]);
    assert_eq!(s.finish_time(Instant::ZERO, 500), ms(15));
}

#[test]
fn large_packet_spans_opportunities_and_leftover_serves_next_packet() {
    let mut s = sched("1\n2\n3\n4\n");
    // 4000 B = 1500 (1 ms) + 1500 (2 ms) + 1000 of the 3 ms opportunity.
    assert_eq!(s.finish_time(Instant::ZERO, 4000), ms(3));
    // Queued behind it: the 500 bytes left at 3 ms.
    assert_eq!(s.finish_time(Instant::ZERO, 500), ms(3));
    // Nothing left at 3 ms.
    assert_eq!(s.finish_time(ms(3), 100), ms(4));
}

#[test]
fn unused_bytes_are_lost_when_nobody_waits() {
    let mut s = sched("1\n2\n3\n4\n");
    assert_eq!(s.finish_time(Instant::ZERO, 100), ms(1));
    // Arrives 1 ns after the 1 ms opportunity: its 1400 leftover bytes are gone.
    assert_eq!(s.finish_time(Instant(1_000_001), 1500), ms(2));
    // An idle gap: opportunities 3 and 4 pass unused.
    assert_eq!(s.finish_time(Instant(4_500_000), 1500), ms(5)); // 4 + wrap(1)
}

#[test]
fn wrap_around_offsets_by_last_timestamp() {
    // Opportunities at 3, 7, 10 | 13, 17, 20 | 23, 27, 30 ...
    let mut s = sched("3\n7\n10\n");
    assert_eq!(s.period_ms(), 10);
    let done: Vec<u64> = (0..7).map(|_| s.finish_time(Instant::ZERO, 1500).as_millis()).collect();
    assert_eq!(done, [3, 7, 10, 13, 17, 20, 23]);
    // A jump far ahead uses the binary search: next after 1234.5 ms is 1237.
    assert_eq!(s.finish_time(Instant(1_234_500_000), 1500), ms(1237));
    // Exactly on the boundary: the 1240 ms opportunity (last of a period) counts.
    assert_eq!(s.finish_time(ms(1240), 1500), ms(1240));
    assert_eq!(s.finish_time(Instant(1_240_000_001), 1500), ms(1243));
    // Same boundary reached by the jump from a fresh cursor.
    s.reset();
    assert_eq!(s.finish_time(ms(1240), 1500), ms(1240));
    s.reset();
    assert_eq!(s.finish_time(Instant(1_240_000_001), 1500), ms(1243));
}

#[test]
fn nonzero_first_timestamp_and_origin() {
    // TMobile-UMTS-driving.up starts at 637 ms; the excerpt ends at 3742 ms.
    let origin = ms(1000);
    let mut s = MahimahiSchedule::from_path(data("mahimahi/TMobile-UMTS-driving.up.head300"), origin).unwrap();
    assert_eq!((s.opportunities(), s.period_ms()), (300, 3742));
    assert_eq!(s.finish_time(Instant::ZERO, 1500), ms(1000 + 637));
    // Second repetition: 3742 + 637.
    assert_eq!(s.finish_time(ms(1000 + 3743), 1500), ms(1000 + 3742 + 637));
}

#[test]
fn zero_byte_frame_takes_no_time() {
    let mut s = sched("5\n");
    assert_eq!(s.finish_time(ms(2), 0), ms(2));
    assert_eq!(s.finish_time(ms(2), MAHIMAHI_MTU), ms(5));
}

#[test]
fn reset_restarts_the_cursor() {
    let mut s = sched("3\n7\n10\n");
    assert_eq!(s.finish_time(ms(101), 1500), ms(103));
    s.reset();
    assert_eq!(s.finish_time(Instant::ZERO, 1500), ms(3));
}

#[test]
fn malformed_traces_name_the_line() {
    let e = MahimahiSchedule::parse("12\nabc\n", Instant::ZERO).unwrap_err();
    assert_eq!(e.to_string(), "<memory>:2: expected a millisecond timestamp (unsigned integer), found \"abc\"");
    let e = MahimahiSchedule::parse("1\n5\n3\n", Instant::ZERO).unwrap_err();
    assert_eq!(e.to_string(), "<memory>:3: timestamp 3 ms is earlier than the previous line's 5 ms");
    let e = MahimahiSchedule::parse("1\n\n3\n", Instant::ZERO).unwrap_err();
    assert_eq!(e.to_string(), "<memory>:2: expected a millisecond timestamp (unsigned integer), found \"\"");
    let e = MahimahiSchedule::parse("-4\n", Instant::ZERO).unwrap_err();
    assert_eq!(e.line, Some(1));
    let e = MahimahiSchedule::parse("", Instant::ZERO).unwrap_err();
    assert_eq!(e.to_string(), "<memory>: trace is empty (no delivery opportunities)");
    let e = MahimahiSchedule::parse("0\n0\n", Instant::ZERO).unwrap_err();
    assert_eq!(e.to_string(), "<memory>: trace must last a nonzero time (last timestamp is 0)");
    let e = MahimahiSchedule::parse_named("up.trace", "1\n2.5\n", Instant::ZERO).unwrap_err();
    assert_eq!(e.to_string(), "up.trace:2: expected a millisecond timestamp (unsigned integer), found \"2.5\"");
}

#[test]
fn missing_file_is_named() {
    let e = MahimahiSchedule::from_path("/nonexistent/x.down", Instant::ZERO).unwrap_err();
    assert!(e.to_string().starts_with("/nonexistent/x.down: cannot read: "), "{e}");
}

#[test]
fn crlf_lines_are_accepted() {
    let s = MahimahiSchedule::parse("1\r\n2\r\n", Instant::ZERO).unwrap();
    assert_eq!((s.opportunities(), s.period_ms()), (2, 2));
}
