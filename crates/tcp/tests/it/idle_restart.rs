//! Congestion-window restart after idle (RFC 5681 §4.1; Linux
//! `tcp_slow_start_after_idle = 1`).
//!
//! The kernel path: when the application queues data with nothing out,
//! `tcp_slow_start_after_idle_check` (include/net/tcp.h) compares the time
//! since the last transmission (`lsndtime`) with `icsk_rto`; beyond it,
//! `tcp_cwnd_restart` (tcp_output.c) raises the module's
//! CA_EVENT_CWND_RESTART, sets ssthresh = `tcp_current_ssthresh` =
//! max(ssthresh, 3/4·cwnd), and halves cwnd once per further RTO of
//! idleness (`while ((delta -= rto) > 0 && cwnd > restart_cwnd) cwnd >>= 1`),
//! never below restart_cwnd = min(IW, cwnd).
//!
//! Setup: `plain()` (MSS 1000, IW 10), initial ssthresh 30, established
//! after a 100 ms RTT, so RTO = 1 s (RFC 6298 minimum). Ten segments go
//! out at t0 = 100 ms and are acknowledged at 200 ms; then cwnd is pinned
//! to 80 by hand (as a long transfer would have grown it) and the sender
//! idles. The idle time counts from the last transmission, t0.
use crate::common;
use airtcp_core::Instant;
use airtcp_tcp::{Endpoint, TcpConfig};
use common::*;

fn idle_sender(cfg: TcpConfig) -> (Endpoint, Instant) {
    let (mut ep, t0) = established(TcpConfig { initial_ssthresh: 30, ..cfg });
    ep.send(10_000);
    assert_eq!(drain(&mut ep, t0).len(), 10);
    ack(&mut ep, t0 + dms(100), 10_000, 65_535);
    assert!(drain(&mut ep, t0 + dms(100)).is_empty());
    ep.sock_mut().snd_cwnd = 80;
    (ep, t0)
}

/// Idle 1.6 s (> RTO): 1.6 s - 1 s > 0 and 80 > 10 → 40; 0.6 s - 1 s < 0
/// stops. ssthresh = max(30, 60) = 60.
#[test]
fn cwnd_restarts_after_idle_longer_than_rto() {
    let (mut ep, t0) = idle_sender(plain());
    ep.send(100_000);
    let t = t0 + dms(1_600);
    let segs = drain(&mut ep, t);
    assert_eq!((ep.probe().cwnd, ep.probe().ssthresh), (40, 60));
    assert_eq!(segs.len(), 40);
    assert_eq!(ep.stats().cwnd_restarts, 1);
}

/// Idle 2.5 s: 80 → 40 (1.5 s left) → 20 (0.5 s left) → stop: one halving
/// per RTO beyond the first.
#[test]
fn cwnd_halved_per_idle_rto() {
    let (mut ep, t0) = idle_sender(plain());
    ep.send(100_000);
    drain(&mut ep, t0 + dms(2_500));
    assert_eq!(ep.probe().cwnd, 20);
    // A long idle ends at the restart window, min(IW, cwnd) = 10.
    let (mut ep, t0) = idle_sender(plain());
    ep.send(100_000);
    drain(&mut ep, t0 + dms(30_000));
    assert_eq!(ep.probe().cwnd, 10);
}

/// Shorter than the RTO: no restart.
#[test]
fn no_restart_when_idle_shorter_than_rto() {
    let (mut ep, t0) = idle_sender(plain());
    ep.send(100_000);
    drain(&mut ep, t0 + dms(900));
    assert_eq!(ep.probe().cwnd, 80);
    assert_eq!(ep.stats().cwnd_restarts, 0);
}

/// `slow_start_after_idle = false` (ns-3 3.44, or the sysctl at 0).
#[test]
fn no_restart_when_off() {
    let (mut ep, t0) = idle_sender(TcpConfig { slow_start_after_idle: false, ..plain() });
    ep.send(100_000);
    let segs = drain(&mut ep, t0 + dms(5_000));
    assert_eq!((ep.probe().cwnd, segs.len()), (80, 65));
    assert_eq!(ep.stats().cwnd_restarts, 0);
}

/// Data queued behind a zero window: the first send attempt after the idle
/// RTO restarts cwnd (80 → 40); later attempts in the same idle period do
/// not halve it again (Linux checks once, when the data is queued).
#[test]
fn restart_once_per_idle_period() {
    let (mut ep, t0) = established(TcpConfig { initial_ssthresh: 30, ..plain() });
    ep.send(10_000);
    drain(&mut ep, t0);
    ack(&mut ep, t0 + dms(100), 10_000, 0);
    ep.sock_mut().snd_cwnd = 80;
    ep.send(100_000);
    let segs = drain(&mut ep, t0 + dms(1_600));
    assert!(segs.iter().all(|s| s.payload_len == 0));
    assert_eq!(ep.probe().cwnd, 40);
    drain(&mut ep, t0 + dms(1_700));
    drain(&mut ep, t0 + dms(3_700));
    assert_eq!((ep.probe().cwnd, ep.stats().cwnd_restarts), (40, 1));
}
