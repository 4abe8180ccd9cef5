//! Vegas tests: baseRTT = 100001 (samples of 100 ms, stored + 1); the
//! once-per-RTT decision happens on the first ACK after beg_snd_nxt.

use super::*;
use crate::cc::TCP_INFINITE_SSTHRESH;

fn sample(rtt_us: i32) -> AckSample {
    AckSample { pkts_acked: 1, rtt_us, in_flight: 0 }
}

/// Vegas with baseRTT 100001 learned in the first RTT, then three samples of
/// `rtt_us` in the second, and the decision on the ACK that ends it.
fn decide(cwnd: u32, ssthresh: u32, rtt_us: i32) -> (Vegas, TcpSock) {
    let mut v = Vegas::default();
    let mut tp = TcpSock { snd_cwnd: cwnd, snd_ssthresh: ssthresh, snd_nxt: 10_000, ..Default::default() };
    v.init(&mut tp);
    assert_eq!(v.beg_snd_nxt, 10_000);
    // Round 1: 3 base samples, decision at ack 10001 (cwnd unchanged: diff 0
    // < alpha would add one, so use it as the reference round and reset).
    for _ in 0..3 {
        v.pkts_acked(&mut tp, &sample(100_000));
    }
    assert_eq!(v.base_rtt_us(), 100_001);
    tp.snd_nxt = 30_000;
    // Round 2 samples, decided on the ACK past 10000.
    tp.snd_cwnd = cwnd;
    tp.snd_ssthresh = ssthresh;
    v.cnt_rtt = 0;
    v.min_rtt = RTT_INF;
    for _ in 0..3 {
        v.pkts_acked(&mut tp, &sample(rtt_us));
    }
    v.cong_avoid(&mut tp, 10_001, 1);
    (v, tp)
}

#[test]
fn vegas_adds_one_when_diff_below_alpha() {
    // rtt = base: diff = 20*0/100001 = 0 < 2 -> cwnd 21;
    // ssthresh = tcp_current_ssthresh = max(10, 10 + 5) = 15.
    let (v, tp) = decide(20, 10, 100_000);
    assert_eq!((tp.snd_cwnd, tp.snd_ssthresh), (21, 15));
    // Next round armed at snd_nxt, samples wiped.
    assert_eq!((v.beg_snd_nxt, v.cnt_rtt, v.min_rtt), (30_000, 0, RTT_INF));
}

#[test]
fn vegas_holds_between_alpha_and_beta() {
    // vrtt 116001: diff = 20*16000/100001 = 3 in [2, 4]: hold at 20;
    // ssthresh = max(10, 10 + 5) = 15.
    let (_, tp) = decide(20, 10, 116_000);
    assert_eq!((tp.snd_cwnd, tp.snd_ssthresh), (20, 15));
}

#[test]
fn vegas_subtracts_one_above_beta() {
    // vrtt 130001: diff = 20*30000/100001 = 5 > 4 -> cwnd 19,
    // ssthresh = min(10, 19) = 10, then max(10, 9 + 4) = 13.
    let (_, tp) = decide(20, 10, 130_000);
    assert_eq!((tp.snd_cwnd, tp.snd_ssthresh), (19, 13));
    // Never below two packets.
    let (_, tp) = decide(2, 1, 400_000);
    assert_eq!(tp.snd_cwnd, 2);
}

#[test]
fn vegas_leaves_slow_start_when_diff_exceeds_gamma() {
    // Slow start, vrtt 110001: diff = 20*10000/100001 = 1, not > gamma 1:
    // slow start continues, 20 -> 21.
    let (_, tp) = decide(20, TCP_INFINITE_SSTHRESH, 110_000);
    assert_eq!(tp.snd_cwnd, 21);
    // vrtt 120001: diff = 3 > 1: cwnd = min(20, 20*100001/120001 + 1)
    // = min(20, 16 + 1) = 17, ssthresh = min(inf, 17) = 17 (then
    // max(17, 8 + 4) = 17).
    let (_, tp) = decide(20, TCP_INFINITE_SSTHRESH, 120_000);
    assert_eq!((tp.snd_cwnd, tp.snd_ssthresh), (17, 17));
}

#[test]
fn vegas_between_decisions_only_slow_starts() {
    let mut v = Vegas::default();
    let mut tp = TcpSock { snd_cwnd: 20, snd_ssthresh: 10, snd_nxt: 10_000, ..Default::default() };
    v.init(&mut tp);
    for _ in 0..3 {
        v.pkts_acked(&mut tp, &sample(100_000));
    }
    // ACK 9000 is before beg_snd_nxt: in CA nothing happens.
    v.cong_avoid(&mut tp, 9_000, 5);
    assert_eq!(tp.snd_cwnd, 20);
    // In slow start it grows by acked.
    tp.snd_ssthresh = 100;
    v.cong_avoid(&mut tp, 9_000, 5);
    assert_eq!(tp.snd_cwnd, 25);
    // Two samples only at the decision: Reno (slow start 25 -> 26).
    v.cnt_rtt = 2;
    tp.is_cwnd_limited = true;
    v.cong_avoid(&mut tp, 10_001, 1);
    assert_eq!(tp.snd_cwnd, 26);
}

#[test]
fn vegas_disabled_outside_open_and_reset_on_restart() {
    let mut v = Vegas::default();
    let mut tp =
        TcpSock { snd_cwnd: 20, snd_ssthresh: 10, snd_nxt: 10_000, is_cwnd_limited: true, ..Default::default() };
    v.init(&mut tp);
    v.set_state(&mut tp, CaState::Loss);
    // Reno in Loss: 20 ACKs at cwnd 20 give +1.
    for _ in 0..20 {
        v.cong_avoid(&mut tp, 5, 1);
    }
    assert_eq!(tp.snd_cwnd, 21);
    tp.snd_nxt = 50_000;
    v.set_state(&mut tp, CaState::Open);
    assert_eq!((v.doing_vegas_now, v.beg_snd_nxt, v.cnt_rtt), (true, 50_000, 0));
    v.pkts_acked(&mut tp, &sample(1000));
    v.cwnd_event(&mut tp, CaEvent::CwndRestart);
    assert_eq!(v.base_rtt_us(), RTT_INF);
    // Reno ssthresh and undo.
    assert_eq!(v.ssthresh(&mut tp), 10);
    tp.prior_cwnd = 30;
    assert_eq!(v.undo_cwnd(&mut tp), 30);
}

#[test]
fn vegas_parameters_come_from_cc_params() {
    // alpha 4, beta 8: diff 5 (vrtt 130001) now holds.
    let p = CcParams { vegas_alpha: Some(4), vegas_beta: Some(8), ..Default::default() };
    let mut v = Vegas::new(&p);
    let mut tp = TcpSock { snd_cwnd: 20, snd_ssthresh: 10, snd_nxt: 10_000, ..Default::default() };
    v.init(&mut tp);
    v.pkts_acked(&mut tp, &sample(100_000));
    for _ in 0..3 {
        v.pkts_acked(&mut tp, &sample(130_000));
    }
    // min_rtt = base here (same round), so diff = 0 < 4: +1.
    v.cong_avoid(&mut tp, 10_001, 1);
    assert_eq!(tp.snd_cwnd, 21);
    for _ in 0..3 {
        v.pkts_acked(&mut tp, &sample(130_000));
    }
    tp.snd_nxt = 40_000;
    // diff = 21*30000/100001 = 6 in [4, 8]: hold.
    v.cong_avoid(&mut tp, 10_002, 1);
    assert_eq!(tp.snd_cwnd, 21);
}
