//! Snoop driven directly with packets and times (smoltcp style: a template
//! segment, `send`/`recv` helpers, exact expectations).

use super::*;
use crate::config::SnoopTimer;
use airtcp_core::{Segment, TcpFlags};

const WIRED: IfaceId = IfaceId(0);
const WLAN: IfaceId = IfaceId(1);
const FH: [u8; 4] = [10, 0, 0, 1];
const MH: [u8; 4] = [10, 0, 1, 2];
const MSS: u32 = 1000;
const WINDOW: u16 = 30_000;

fn ms(n: u64) -> Instant {
    Instant::from_millis(n)
}

fn snoop_with(timer: SnoopTimer, cache_packets: u32) -> Snoop {
    Snoop::new(SnoopConfig { wireless: WLAN, timer, cache_packets })
}

fn snoop() -> Snoop {
    snoop_with(SnoopTimer::Fixed(Duration::from_secs(1)), 64)
}

/// One connection's data direction (`src` sends data to `dst`).
#[derive(Clone, Copy)]
struct Flow {
    src: [u8; 4],
    dst: [u8; 4],
    sport: u16,
    dport: u16,
    iss: u32,
}

const DOWN: Flow = Flow { src: FH, dst: MH, sport: 5000, dport: 80, iss: 1_000_000 };

impl Flow {
    fn seq(&self, i: u32) -> SeqNum {
        SeqNum(self.iss) + 1 + i * MSS
    }
    fn key(&self) -> ConnKey {
        ConnKey { src: self.src, dst: self.dst, src_port: self.sport, dst_port: self.dport }
    }
    /// Data segment number `i` (MSS bytes).
    fn data(&self, i: u32) -> Packet {
        let seg = Segment {
            src_port: self.sport,
            dst_port: self.dport,
            seq: self.seq(i),
            ack: SeqNum(7),
            flags: TcpFlags::ACK,
            window: WINDOW,
            payload_len: MSS,
            ..Default::default()
        };
        Packet::tcp(self.src, self.dst, 63, i as u16, seg)
    }
    /// A bare FIN right after segment `i - 1`.
    fn fin(&self, i: u32) -> Packet {
        let mut p = self.data(i);
        let s = p.segment_mut().unwrap();
        s.payload_len = 0;
        s.flags = TcpFlags::FIN | TcpFlags::ACK;
        p
    }
    /// The receiver's ACK for segments `[0, n)`.
    fn ack(&self, n: u32) -> Packet {
        self.ack_raw(self.seq(n))
    }
    fn ack_raw(&self, ack: SeqNum) -> Packet {
        let seg = Segment {
            src_port: self.dport,
            dst_port: self.sport,
            seq: SeqNum(7),
            ack,
            flags: TcpFlags::ACK,
            window: WINDOW,
            ..Default::default()
        };
        Packet::tcp(self.dst, self.src, 64, 0, seg)
    }
}

/// A segment leaves through the wireless interface.
fn send(s: &mut Snoop, t: Instant, mut p: Packet) -> Verdict {
    s.on_packet(t, Hook::Egress, WLAN, &mut p)
}

/// A segment arrives on the wireless interface.
fn recv(s: &mut Snoop, t: Instant, mut p: Packet) -> Verdict {
    s.on_packet(t, Hook::Ingress, WLAN, &mut p)
}

fn send_all(s: &mut Snoop, t: Instant, f: &Flow, segs: std::ops::Range<u32>) {
    for i in segs {
        assert_eq!(send(s, t, f.data(i)), Verdict::Accept);
    }
}

fn injected(s: &mut Snoop) -> Vec<Injection> {
    std::iter::from_fn(|| s.poll_injection()).collect()
}

fn logs(s: &mut Snoop) -> Vec<AgentLog> {
    std::iter::from_fn(|| s.poll_log()).collect()
}

fn counter(s: &Snoop, name: &str) -> u64 {
    s.counters().into_iter().find(|c| c.0 == name).unwrap().1
}

fn rexmit_of(f: &Flow, i: u32) -> Injection {
    Injection { at: InjectAt::Egress(WLAN), pkt: f.data(i) }
}

fn rexmit_log(f: &Flow, i: u32) -> AgentLog {
    AgentLog { kind: "snoop_local_rexmit", value: f.seq(i).0 as u64 }
}

#[test]
fn data_leaving_on_the_wireless_iface_is_cached_and_forwarded() {
    let mut s = snoop();
    send_all(&mut s, ms(0), &DOWN, 0..4);
    assert_eq!(s.cached_for(&DOWN.key()), Some(4));
    assert_eq!(s.gauge(), Some(4));
    assert_eq!(counter(&s, "connections"), 1);
    assert!(injected(&mut s).is_empty());
}

#[test]
fn other_ifaces_pure_acks_and_handshakes_are_not_cached() {
    let mut s = snoop();
    assert_eq!(s.on_packet(ms(0), Hook::Egress, WIRED, &mut DOWN.data(0)), Verdict::Accept);
    assert_eq!(send(&mut s, ms(0), DOWN.ack_raw(SeqNum(5))), Verdict::Accept);
    let mut syn = DOWN.fin(0);
    syn.segment_mut().unwrap().flags = TcpFlags::SYN;
    assert_eq!(send(&mut s, ms(0), syn), Verdict::Accept);
    assert_eq!(s.gauge(), Some(0));
    assert_eq!(counter(&s, "connections"), 0);
}

#[test]
fn cumulative_ack_frees_the_cache_up_to_it_and_passes() {
    let mut s = snoop();
    send_all(&mut s, ms(0), &DOWN, 0..4);
    assert_eq!(recv(&mut s, ms(10), DOWN.ack(3)), Verdict::Accept);
    assert_eq!(s.cached_for(&DOWN.key()), Some(1));
    assert_eq!(recv(&mut s, ms(11), DOWN.ack(4)), Verdict::Accept);
    assert_eq!(s.cached_for(&DOWN.key()), Some(0));
    assert_eq!(counter(&s, "max_cached"), 4);
    assert_eq!(s.poll_timeout(), None, "nothing cached, no timer");
}

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

#[test]
fn cache_bound_forwards_without_caching_and_counts_bypass() {
    let mut s = snoop_with(SnoopTimer::Fixed(Duration::from_secs(1)), 3);
    send_all(&mut s, ms(0), &DOWN, 0..5);
    assert_eq!(s.gauge(), Some(3));
    assert_eq!(counter(&s, "cache_full_bypass"), 2);
    // Segment 0 lost: still recovered locally from the cache.
    recv(&mut s, ms(10), DOWN.ack(0));
    assert_eq!(recv(&mut s, ms(11), DOWN.ack(0)), Verdict::Drop);
    assert_eq!(injected(&mut s), vec![rexmit_of(&DOWN, 0)]);
    // Room again: new segments are cached again.
    recv(&mut s, ms(20), DOWN.ack(3));
    send(&mut s, ms(21), DOWN.data(5));
    assert_eq!(s.gauge(), Some(1));
    assert_eq!(counter(&s, "max_cached"), 3);
}

#[test]
fn sequence_numbers_wrap() {
    let f = Flow { iss: u32::MAX - 2500, ..DOWN };
    let mut s = snoop();
    send_all(&mut s, ms(0), &f, 0..5);
    recv(&mut s, ms(10), f.ack(3));
    assert_eq!(s.cached_for(&f.key()), Some(2));
    assert_eq!(recv(&mut s, ms(11), f.ack(3)), Verdict::Drop);
    assert_eq!(injected(&mut s), vec![rexmit_of(&f, 3)]);
    recv(&mut s, ms(12), f.ack(5));
    assert_eq!(s.cached_for(&f.key()), Some(0));
}

#[test]
fn counters_are_in_the_documented_order() {
    let s = snoop();
    let names: Vec<_> = s.counters().into_iter().map(|c| c.0).collect();
    assert_eq!(
        names,
        ["local_retransmissions", "local_timeouts", "dupacks_suppressed", "cache_full_bypass", "max_cached", "connections"]
    );
    assert_eq!((s.kind(), s.hooks()), ("snoop", HookMask::INGRESS | HookMask::EGRESS));
}
