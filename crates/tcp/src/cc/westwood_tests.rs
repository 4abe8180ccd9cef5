//! Westwood+ tests at HZ = 1000 with mss_cache = 1000 bytes, so bandwidth is
//! bytes per ms and bw_rttmin = bw_est * rtt_min(ms) / 1000.

use super::*;
use crate::cc::CA_ACK_WIN_UPDATE;

fn sock() -> TcpSock {
    TcpSock { mss_cache: 1000, snd_cwnd: 60, snd_ssthresh: 100, ..Default::default() }
}

fn sample(rtt_us: i32) -> AckSample {
    AckSample { pkts_acked: 10, rtt_us, in_flight: 0 }
}

/// One fast-path ACK at `jiffies` that moves snd_una to `una`.
fn fast_ack(w: &mut Westwood, tp: &mut TcpSock, jiffies: u32, una: u32) {
    tp.jiffies = jiffies;
    tp.snd_una = una;
    w.in_ack_event(tp, CA_ACK_WIN_UPDATE);
}

/// 10 000 bytes every 10 ms (1000 bytes per jiffy) with a 50 ms RTT, up to
/// jiffies `until`.
fn run_steady(w: &mut Westwood, tp: &mut TcpSock, until: u32) {
    let mut j = 10;
    while j <= until {
        w.pkts_acked(tp, &sample(50_000));
        fast_ack(w, tp, j, j * 1000);
        j += 10;
    }
}

#[test]
fn westwood_bandwidth_filter_sequence() {
    let mut w = Westwood::default();
    let mut tp = sock();
    w.init(&mut tp);
    // Before any RTT sample rtt = rtt_min = TCP_WESTWOOD_INIT_RTT = 20*HZ.
    assert_eq!((w.rtt, w.rtt_min), (20_000, 20_000));

    // j=10: first ACK only syncs w.snd_una (its bytes are not counted);
    // rtt_min takes the first sample (50 jiffies) via reset_rtt_min.
    run_steady(&mut w, &mut tp, 10);
    assert_eq!((w.bk, w.rtt_min), (0, 50));
    // j=20..50: bk = 40000; delta = 50 is not > max(rtt 50, HZ/20 = 50).
    run_steady_from(&mut w, &mut tp, 20, 50);
    assert_eq!((w.bk, w.bw_est()), (40_000, 0));
    // j=60: delta 60 > 50 -> first sample fills the filter: 40000/60 = 666;
    // the window restarts and this ACK's 10000 bytes open it.
    run_steady_from(&mut w, &mut tp, 60, 60);
    assert_eq!((w.bw_ns_est, w.bw_est(), w.bk, w.rtt_win_sx), (666, 666, 10_000, 60));
    // j=120: bk = 60000 over 60 jiffies -> sample 1000;
    // bw_ns = (7*666 + 1000) >> 3 = 5662 >> 3 = 707,
    // bw    = (7*666 + 707)  >> 3 = 5369 >> 3 = 671.
    run_steady_from(&mut w, &mut tp, 70, 120);
    assert_eq!((w.bw_ns_est, w.bw_est()), (707, 671));
    // j=180: bw_ns = (4949 + 1000) >> 3 = 743, bw = (4697 + 743) >> 3 = 680.
    run_steady_from(&mut w, &mut tp, 130, 180);
    assert_eq!((w.bw_ns_est, w.bw_est()), (743, 680));

    // COMPLETE_CWR: ssthresh = cwnd = 680 * 50 / 1000 = 34.
    w.cwnd_event(&mut tp, CaEvent::CompleteCwr);
    assert_eq!((tp.snd_ssthresh, tp.snd_cwnd), (34, 34));
    // LOSS: ssthresh only; rtt_min re-learned from the next ACK.
    tp.snd_cwnd = 1;
    tp.snd_ssthresh = 999;
    w.cwnd_event(&mut tp, CaEvent::Loss);
    assert_eq!((tp.snd_ssthresh, tp.snd_cwnd), (34, 1));
    w.pkts_acked(&mut tp, &sample(80_000));
    fast_ack(&mut w, &mut tp, 185, 185_000);
    assert_eq!(w.rtt_min(), 80);
}

fn run_steady_from(w: &mut Westwood, tp: &mut TcpSock, from: u32, until: u32) {
    let mut j = from;
    while j <= until {
        w.pkts_acked(tp, &sample(50_000));
        fast_ack(w, tp, j, j * 1000);
        j += 10;
    }
}

#[test]
fn westwood_dupacks_credit_one_mss_and_are_taken_back() {
    let mut w = Westwood::default();
    let mut tp = sock();
    w.init(&mut tp);
    w.pkts_acked(&mut tp, &sample(50_000));
    fast_ack(&mut w, &mut tp, 1, 100_000); // syncs snd_una = 100000
    let slow = |w: &mut Westwood, tp: &mut TcpSock, una: u32| {
        tp.snd_una = una;
        w.in_ack_event(tp, CA_ACK_SLOWPATH);
    };
    // Three dupacks: cumul_ack 0 -> one MSS each, accounted = 3000.
    for _ in 0..3 {
        slow(&mut w, &mut tp, 100_000);
    }
    assert_eq!((w.bk, w.accounted), (3000, 3000));
    // Cumulative ACK of 5000 > mss with accounted 3000 < 5000:
    // counts 5000 - 3000 = 2000, accounted back to 0. Total = 5000 exactly.
    slow(&mut w, &mut tp, 105_000);
    assert_eq!((w.bk, w.accounted), (5000, 0));
    // Three more dupacks, then a 2000-byte ACK: accounted 3000 >= 2000, so
    // it counts one MSS and leaves accounted = 1000.
    for _ in 0..3 {
        slow(&mut w, &mut tp, 105_000);
    }
    slow(&mut w, &mut tp, 107_000);
    assert_eq!((w.bk, w.accounted), (9000, 1000));
    // An ACK of exactly one MSS is counted as is.
    slow(&mut w, &mut tp, 108_000);
    assert_eq!(w.bk, 10_000);
}

#[test]
fn westwood_rtt_in_jiffies_and_floor_of_two() {
    let mut w = Westwood::default();
    let mut tp = sock();
    w.init(&mut tp);
    // usecs_to_jiffies rounds up: 50001 us -> 51 jiffies; 0 is ignored.
    w.pkts_acked(&mut tp, &sample(50_001));
    assert_eq!(w.rtt, 51);
    w.pkts_acked(&mut tp, &sample(0));
    assert_eq!(w.rtt, 51);
    // No bandwidth yet: bw_rttmin = max(0, 2) = 2.
    w.cwnd_event(&mut tp, CaEvent::CompleteCwr);
    assert_eq!((tp.snd_ssthresh, tp.snd_cwnd), (2, 2));
    // ssthresh hook is Reno's, cong_avoid is Reno's.
    tp.snd_cwnd = 40;
    assert_eq!(w.ssthresh(&mut tp), 20);
}

#[test]
fn westwood_filter_window_depends_on_hz() {
    // HZ = 250: a 50 ms RTT is 13 jiffies (rounded up) but the window is at
    // least HZ/20 = 12 jiffies, so it closes when delta > 13.
    let mut w = Westwood::default();
    let mut tp = TcpSock { hz: 250, ..sock() };
    w.init(&mut tp);
    w.pkts_acked(&mut tp, &sample(50_000));
    assert_eq!(w.rtt, 13);
    fast_ack(&mut w, &mut tp, 1, 0);
    fast_ack(&mut w, &mut tp, 13, 13_000);
    assert_eq!(w.bw_est(), 0);
    fast_ack(&mut w, &mut tp, 14, 14_000);
    // First sample: 13000 bytes / 14 jiffies = 928 bytes per 4 ms jiffy.
    assert_eq!(w.bw_est(), 928);
}
