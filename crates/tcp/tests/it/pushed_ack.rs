//! The pushed delayed ACK (`push_ack`, Linux `tcp_measure_rcv_mss` +
//! `tcp_cleanup_rbuf`) and the sender's PSH placement (`push_segs`): which
//! arrivals a reading receiver ACKs at once, as replays of emulated
//! kernel-to-kernel captures show the Linux 6.18 receiver doing.
use crate::common;
use common::*;

use airtcp_core::{Instant, Segment, TcpFlags};
use airtcp_tcp::config::PushAck;
use airtcp_tcp::{profiles, Endpoint, TcpConfig};

fn receiver(push_ack: PushAck) -> (Endpoint, Instant) {
    established_receiver(TcpConfig { push_ack, ..plain() })
}

/// Peer data `[off, off + len)`, with PSH if `psh`.
fn arrive(ep: &mut Endpoint, now: Instant, off: u64, len: u32, psh: bool) {
    let flags = if psh { TcpFlags::ACK | TcpFlags::PSH } else { TcpFlags::ACK };
    ep.handle_segment(now, &Segment { seq: peer_seq(off), payload_len: len, flags, ..from_peer() });
}

/// The application reads everything, then what the endpoint sends at `now`:
/// the acknowledged stream offsets.
fn read_all(ep: &mut Endpoint, now: Instant) -> Vec<u64> {
    while ep.recv(u64::MAX).is_some() {}
    acks(ep, now)
}

fn acks(ep: &mut Endpoint, now: Instant) -> Vec<u64> {
    drain(ep, now).iter().map(|a| (a.ack - peer_seq(0)) as u64).collect()
}

/// Arrivals (ms, offset, length, PSH) read at once; the ACKs as (ms, offset),
/// the delayed-ACK timer's included.
fn ack_sequence(push_ack: PushAck, arrivals: &[(u64, u64, u32, bool)]) -> Vec<(u64, u64)> {
    let (mut ep, _) = receiver(push_ack);
    let mut out = Vec::new();
    for &(t, off, len, psh) in arrivals {
        while let Some(due) = ep.poll_timeout().filter(|&d| d <= ms(t)) {
            ep.handle_timeout(due);
            out.extend(acks(&mut ep, due).into_iter().map(|a| (due.as_millis(), a)));
        }
        arrive(&mut ep, ms(t), off, len, psh);
        out.extend(read_all(&mut ep, ms(t)).into_iter().map(|a| (t, a)));
    }
    if let Some(due) = ep.poll_timeout() {
        ep.handle_timeout(due);
        out.extend(acks(&mut ep, due).into_iter().map(|a| (due.as_millis(), a)));
    }
    out
}

/// The kernel sender's pattern at p = 0.05: a pair, then a single segment
/// with PSH (the end of a 2-segment skb) and a single one without.
const PAIR_THEN_SINGLES: [(u64, u64, u32, bool); 4] =
    [(20, 0, 1000, false), (21, 1000, 1000, true), (60, 2000, 1000, true), (100, 3000, 1000, false)];

#[test]
fn full_segment_with_psh_is_acked_when_read() {
    // The pair by count; the single PSH segment on its read (6.6); the
    // single plain one by the 200 ms timer.
    assert_eq!(ack_sequence(PushAck::Full, &PAIR_THEN_SINGLES), vec![(21, 2000), (60, 3000), (300, 4000)]);
}

#[test]
fn before_6_6_full_segment_with_psh_waits_like_any_other() {
    // The single PSH segment waits, and goes with the next one by count.
    assert_eq!(ack_sequence(PushAck::Short, &PAIR_THEN_SINGLES), vec![(21, 2000), (100, 4000)]);
    assert_eq!(ack_sequence(PushAck::Off, &PAIR_THEN_SINGLES), vec![(21, 2000), (100, 4000)]);
}

#[test]
fn pushed_ack_waits_until_nothing_is_left_to_read() {
    let (mut ep, now) = receiver(PushAck::Full);
    arrive(&mut ep, now, 0, 1000, true);
    assert!(acks(&mut ep, now).is_empty(), "unread: the ACK stays delayed");
    assert_eq!(ep.recv(400), Some((0, 400)));
    assert!(acks(&mut ep, now).is_empty(), "600 bytes still queued");
    assert_eq!(read_all(&mut ep, now), vec![1000]);
}

#[test]
fn short_segment_is_pushed_unless_its_length_repeats() {
    // rcv_mss starts at TCP_MSS_DEFAULT (536): a 500-byte segment is short
    // and pushed; a second one of the same length is the peer's segment
    // size (rcv_mss = 500), so it waits; the third is the second of a pair.
    let (mut ep, now) = receiver(PushAck::Short);
    arrive(&mut ep, now, 0, 500, false);
    assert_eq!(read_all(&mut ep, now), vec![500]);
    arrive(&mut ep, now, 500, 500, false);
    assert!(read_all(&mut ep, now).is_empty());
    arrive(&mut ep, now, 1000, 500, false);
    assert_eq!(read_all(&mut ep, now), vec![1500]);
}

#[test]
fn sender_marks_psh_at_each_second_segment_and_at_the_end_of_the_write() {
    let (mut ep, now) = established(TcpConfig { push_segs: 2, ..plain() });
    ep.send(4_500);
    let psh: Vec<(u32, bool)> =
        drain(&mut ep, now).iter().map(|s| (s.payload_len, s.flags.contains(TcpFlags::PSH))).collect();
    assert_eq!(psh, vec![(1000, false), (1000, true), (1000, false), (1000, true), (500, true)]);
}

#[test]
fn sender_marks_psh_on_every_segment_with_push_segs_0() {
    let (mut ep, now) = established(TcpConfig { push_segs: 0, ..plain() });
    ep.send(3_000);
    assert!(drain(&mut ep, now).iter().all(|s| s.flags.contains(TcpFlags::PSH)));
}

/// PSH flags of what the sender sends at `now`.
fn psh_flags(ep: &mut Endpoint, now: Instant) -> Vec<bool> {
    drain(ep, now).iter().map(|s| s.flags.contains(TcpFlags::PSH)).collect()
}

fn tso_sender(initial_cwnd: u32) -> (Endpoint, Instant) {
    // SRTT 100 ms, cwnd 10 in slow start: Linux's pacing rate is 200 % of
    // 10 x 1000 B / 100 ms = 200 kB/s, 195 B per ms: chunks of
    // tcp_min_tso_segs = 2 segments.
    established(TcpConfig { push_tso: true, push_segs: 2, initial_cwnd, ..plain() })
}

#[test]
fn linux_sender_pushes_each_two_segment_chunk_of_a_send() {
    // Ten segments at once: five chunks of two, each with PSH on its last.
    let (mut ep, now) = tso_sender(10);
    ep.send(30_000);
    assert_eq!(psh_flags(&mut ep, now), [false, true].repeat(5));
}

#[test]
fn an_odd_window_ends_with_a_one_segment_chunk_without_psh() {
    // Five segments allowed, chunks of at most half the window (2): ". P",
    // ". P", ".".
    let (mut ep, now) = tso_sender(5);
    ep.send(30_000);
    assert_eq!(psh_flags(&mut ep, now), vec![false, true, false, true, false]);
}

#[test]
fn a_window_of_three_goes_out_one_segment_per_chunk() {
    // tcp_cwnd_test: at most half the window per chunk, so with a window
    // of 3 no chunk has two segments and none carries PSH.
    let (mut ep, now) = tso_sender(3);
    ep.send(30_000);
    assert_eq!(psh_flags(&mut ep, now), vec![false, false, false]);
    // An ACK of one segment in slow start: window 4, two free, one chunk.
    let t = now + dms(100);
    ack(&mut ep, t, 1000, 65_535);
    assert_eq!(psh_flags(&mut ep, t), vec![false, true]);
}

#[test]
fn the_end_of_the_written_data_is_pushed_and_a_retransmission_is_not() {
    let (mut ep, now) = tso_sender(10);
    ep.send(2_500);
    // A chunk of two, then the 500-byte end of the write (tcp_push).
    assert_eq!(psh_flags(&mut ep, now), vec![false, true, true]);
    // The RTO retransmits the first segment alone: no PSH.
    let t = fire(&mut ep);
    let rtx = drain(&mut ep, t);
    assert_eq!((our_off(&rtx[0]), rtx[0].flags.contains(TcpFlags::PSH)), (0, false));
}

#[test]
fn linux_profiles_push_ack_by_era() {
    let get = |p: &str| profiles::config(p).unwrap();
    assert_eq!((get("linux").push_ack, get("linux").push_segs), (PushAck::Full, 2));
    assert_eq!((get("linux-4.4").push_ack, get("linux-4.4").push_segs), (PushAck::Short, 2));
    assert_eq!((get("linux-3.16").push_ack, get("linux-3.16").push_segs), (PushAck::Short, 2));
    assert_eq!((get("ns3").push_ack, get("ns3").push_segs), (PushAck::Off, 0));
    // PSH forced on TSO chunks came in 4.11.
    let tso: Vec<bool> = ["linux", "linux-4.4", "linux-3.16", "ns3"].iter().map(|p| get(p).push_tso).collect();
    assert_eq!(tso, vec![true, false, false, false]);
}
