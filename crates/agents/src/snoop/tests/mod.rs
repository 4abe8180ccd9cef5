//! Snoop driven directly with packets and times (smoltcp style: a template
//! segment, `send`/`recv` helpers, exact expectations): caching and the
//! cache bound here, the duplicate-ACK cases in `recovery`, timers and
//! connection life in `lifecycle`, real endpoints over a lossy hop in `wire`.

mod lifecycle;
mod recovery;
mod wire;

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
