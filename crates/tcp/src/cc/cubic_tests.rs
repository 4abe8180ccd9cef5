//! CUBIC tests. Expected values are worked out from the kernel arithmetic in
//! the comment beside each assertion (HZ = 1000, beta = 717, bic_scale = 41:
//! beta_scale = 8*1741/3/307 = 15, cube_rtt_scale = 410,
//! cube_factor = 2^40 / 410 = 2681735677).

use super::*;
use crate::cc::TCP_INFINITE_SSTHRESH;

fn ca_sock(cwnd: u32, ssthresh: u32) -> TcpSock {
    TcpSock {
        snd_cwnd: cwnd,
        snd_ssthresh: ssthresh,
        is_cwnd_limited: true,
        max_packets_out: cwnd,
        ..Default::default()
    }
}

fn rtt(us: i32) -> AckSample {
    AckSample { pkts_acked: 1, rtt_us: us, in_flight: 0 }
}

#[test]
fn cubic_scale_factors_match_cubictcp_register() {
    let c = Cubic::default();
    assert_eq!((c.beta_scale, c.cube_rtt_scale, c.cube_factor), (15, 410, 2_681_735_677));
}

#[test]
fn cubic_root_table_and_newton_step() {
    // a < 64: (v[a] + 35) >> 6.  v[7] = 118 -> 153 >> 6 = 2; v[63] = 254 -> 4.
    assert_eq!(cubic_root(0), 0);
    assert_eq!(cubic_root(1), 1); // (54 + 35) >> 6 = 1
    assert_eq!(cubic_root(7), 2);
    assert_eq!(cubic_root(63), 4);
    // a = 1000: fls = 10, b = (840 >> 8) - 1 = 2, shift = 1000 >> 6 = 15,
    // x = ((156 + 10) << 2) >> 6 = 10; x = 2*10 + 1000/(10*9) = 31;
    // 31*341 >> 10 = 10.
    assert_eq!(cubic_root(1000), 10);
    // a = 27000: fls = 15, b = 3, shift = 27000 >> 9 = 52, v = 237,
    // x = (247 << 3) >> 6 = 30; 60 + 27000/870 = 91; 91*341 >> 10 = 30.
    assert_eq!(cubic_root(27_000), 30);
    assert_eq!(cubic_root(1_000_000), 100);
    assert_eq!(cubic_root(1 << 30), 1024);
    // 10^12: the kernel truncates to 9999 (floor(cbrt) = 10000).
    assert_eq!(cubic_root(1_000_000_000_000), 9999);
    // 2^40: 10323 against cbrt = 10321.27 (0.017% high).
    assert_eq!(cubic_root(1 << 40), 10323);
    // Against floor(cbrt): within 1% from 2^20 up, within 0.2% over the
    // range CUBIC actually uses (a >= cube_factor, i.e. Wmax - cwnd >= 1).
    let mut a: u64 = 1 << 20;
    while a < (1u64 << 62) {
        for k in [a, a + a / 3, a + a / 2, a + 7 * a / 10] {
            let exact = (k as f64).cbrt();
            let err = (cubic_root(k) as f64 - exact).abs() / exact;
            let tol = if k >= 2_681_735_677 { 0.002 } else { 0.01 };
            assert!(err <= tol, "cubic_root({k}) = {} vs {exact}", cubic_root(k));
        }
        a <<= 1;
    }
}

#[test]
fn cubic_ssthresh_beta_and_fast_convergence() {
    let mut c = Cubic::default();
    // First loss at 100: Wmax = 100, ssthresh = 100*717/1024 = 70.
    assert_eq!(c.ssthresh(&mut ca_sock(100, 100)), 70);
    assert_eq!(c.last_max_cwnd(), 100);
    // Loss again at 80 < Wmax: fast convergence Wmax = 80*1741/2048 = 68,
    // ssthresh = 80*717/1024 = 56.
    assert_eq!(c.ssthresh(&mut ca_sock(80, 80)), 56);
    assert_eq!(c.last_max_cwnd(), 68);
    assert_eq!(c.epoch_start, 0);
    // Without fast convergence Wmax is just cwnd.
    let mut c = Cubic::new(&CcParams { cubic_fast_convergence: Some(false), ..Default::default() }).unwrap();
    c.ssthresh(&mut ca_sock(100, 100));
    c.ssthresh(&mut ca_sock(80, 80));
    assert_eq!(c.last_max_cwnd(), 80);
    // Floor of two packets.
    assert_eq!(c.ssthresh(&mut ca_sock(2, 2)), 2);
}

/// Loss at cwnd 100 with delay_min = 100 ms, then the epoch starts at
/// jiffies 10000 with cwnd 70: K = cubic_root(2681735677 * 30) = 4316
/// (fls = 37, b = 11, shift = a >> 33 = 9, x = (139 << 11) >> 6 = 4448,
/// 2*4448 + a/(4448*4447) = 8896 + 4067 = 12963, *341 >> 10 = 4316), i.e.
/// 4.215 s = cbrt(30 / 0.4).
fn cubic_after_loss_at_100() -> (Cubic, TcpSock) {
    let mut c = Cubic::default();
    let mut tp = ca_sock(100, 100);
    c.init(&mut tp);
    c.pkts_acked(&mut tp, &rtt(100_000));
    assert_eq!(c.delay_min(), 100_000);
    tp.snd_ssthresh = c.ssthresh(&mut tp);
    tp.snd_cwnd = tp.snd_ssthresh;
    tp.jiffies = 10_000;
    (c, tp)
}

#[test]
fn cubic_bic_k_and_target_along_the_curve() {
    // t = (jiffies - epoch + usecs_to_jiffies(delay_min)) << 10 / HZ and
    // delta = 410 * |t - K|^3 >> 40; target = 100 -/+ delta; cnt = 70/(target-70).
    // j = 0:    t = 100*1024/1000 = 102, offs = 4214, 410*4214^3 = 30680854461040 >> 40 = 27 -> target 73, cnt 70/3 = 23
    // j = 1000: t = 1126, offs = 3190, 13309321190000 >> 40 = 12 -> target 88, cnt 70/18 = 3
    // j = 2000: t = 2150, offs = 2166, 4166383221360 >> 40 = 3 -> target 97, cnt 70/27 = 2
    // j = 4114: t = 4315, offs = 1, delta 0 -> target 100 = Wmax, cnt 70/30 = 2
    // j = 6000: t = 6246 > K, offs = 1930, 2947513370000 >> 40 = 2 -> target 102, cnt 2
    for (j, cnt) in [(0u32, 23u32), (1000, 3), (2000, 2), (4114, 2), (6000, 2)] {
        let (mut c, mut tp) = cubic_after_loss_at_100();
        c.update(&tp, 70, 1); // starts the epoch at jiffies 10000
        assert_eq!((c.bic_k, c.bic_origin_point, c.epoch_start), (4316, 100, 10_000));
        tp.jiffies = 10_000 + j;
        if j > 0 {
            c.update(&tp, 70, 1);
        }
        assert_eq!(c.cnt, cnt, "cnt at {j} jiffies");
    }
}

#[test]
fn cubic_cong_avoid_grows_one_packet_per_cnt_acks() {
    let (mut c, mut tp) = cubic_after_loss_at_100();
    // cnt = 23 at the start of the epoch: 23 ACKs within the same jiffy (the
    // curve is recomputed at most once per jiffy and then only when cwnd
    // changed or HZ/32 passed) give exactly one packet.
    for _ in 0..22 {
        c.cong_avoid(&mut tp, 0, 1);
    }
    assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (70, 22));
    c.cong_avoid(&mut tp, 0, 1);
    assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (71, 0));
    // Not cwnd-limited: no growth, no state change.
    tp.is_cwnd_limited = false;
    c.cong_avoid(&mut tp, 0, 50);
    assert_eq!(tp.snd_cwnd, 71);
}

#[test]
fn cubic_friendliness_follows_reno_when_faster() {
    // No previous loss (Wmax = 0), cwnd 20, 100 packets ACKed at once:
    // epoch starts with ack_cnt = 100, K = 0, target = 20 -> cnt = 100*20,
    // capped at 20 while Wmax = 0. Reno estimate: delta = 20*15 >> 3 = 37,
    // 100 -> 63 -> 26 gives tcp_cwnd = 22 > 20, max_cnt = 20/2 = 10.
    let mut c = Cubic::default();
    let tp = TcpSock { jiffies: 1000, ..ca_sock(20, 20) };
    c.update(&tp, 20, 100);
    assert_eq!((c.tcp_cwnd, c.ack_cnt, c.cnt), (22, 26, 10));
    // With tcp_friendliness off the cap of 20 stays.
    let mut c = Cubic::new(&CcParams { cubic_tcp_friendliness: Some(false), ..Default::default() }).unwrap();
    c.update(&tp, 20, 100);
    assert_eq!(c.cnt, 20);
}

#[test]
fn cubic_tx_start_shifts_epoch_by_idle_time() {
    let mut c = Cubic { epoch_start: 5000, ..Default::default() };
    // Idle since lsndtime 6000, restarting at 6500: epoch moves 500 later.
    let mut tp = TcpSock { jiffies: 6500, lsndtime: 6000, ..Default::default() };
    c.cwnd_event(&mut tp, CaEvent::TxStart);
    assert_eq!(c.epoch_start, 5500);
    // A shift past now is capped at now.
    let mut tp = TcpSock { jiffies: 6600, lsndtime: 5000, ..Default::default() };
    c.cwnd_event(&mut tp, CaEvent::TxStart);
    assert_eq!(c.epoch_start, 6600);
    // No epoch: nothing to shift.
    c.epoch_start = 0;
    c.cwnd_event(&mut tp, CaEvent::TxStart);
    assert_eq!(c.epoch_start, 0);
}

#[test]
fn cubic_loss_state_resets_curve_and_undo_takes_max() {
    let (mut c, mut tp) = cubic_after_loss_at_100();
    c.cong_avoid(&mut tp, 0, 1);
    assert_ne!(c.epoch_start, 0);
    c.set_state(&mut tp, CaState::Loss);
    assert_eq!((c.epoch_start, c.last_max_cwnd, c.delay_min, c.bic_k), (0, 0, 0, 0));
    // Recovery does not reset.
    c.epoch_start = 7;
    c.set_state(&mut tp, CaState::Recovery);
    assert_eq!(c.epoch_start, 7);
    tp.prior_cwnd = 100;
    assert_eq!(c.undo_cwnd(&mut tp), 100);
}

#[test]
fn cubic_discards_rtt_samples_within_a_second_of_epoch_start() {
    let mut c = Cubic::default();
    let mut tp = ca_sock(50, 50);
    c.init(&mut tp);
    c.epoch_start = 1000;
    tp.jiffies = 1999; // 999 < HZ after the epoch: discarded
    c.pkts_acked(&mut tp, &rtt(80_000));
    assert_eq!(c.delay_min(), 0);
    tp.jiffies = 2000;
    c.pkts_acked(&mut tp, &rtt(80_000));
    assert_eq!(c.delay_min(), 80_000);
    // No RTT sample (Karn): ignored. Zero RTT counts as 1 us.
    c.pkts_acked(&mut tp, &rtt(-1));
    c.pkts_acked(&mut tp, &rtt(0));
    assert_eq!(c.delay_min(), 1);
}

/// Slow start at cwnd 20 (>= hystart_low_window 16), ACKs 3 ms apart so
/// the ACK-train test (spacing <= 2 ms) never fires. delay_min = 100 ms, so
/// the delay threshold is clamp(100000 >> 3, 4000, 16000) = 12500 us and
/// HyStart exits when a round's minimum over 8+ samples exceeds 112500 us.
#[test]
fn cubic_hystart_exits_on_delay_increase() {
    let mut c = Cubic::default();
    let mut tp = TcpSock { snd_cwnd: 20, snd_nxt: 0, ..Default::default() };
    c.init(&mut tp);
    let mut now = 0u64;
    let mut una = 0u32;
    let mut ack = |c: &mut Cubic, tp: &mut TcpSock, rtt_us: i32| {
        now += 3000;
        una += 1460;
        tp.tcp_mstamp = now;
        tp.snd_una = una;
        c.pkts_acked(tp, &rtt(rtt_us));
    };
    // Round 1 (starts when snd_una passes end_seq 0): delay_min = 100 ms.
    tp.snd_nxt = 20 * 1460;
    for _ in 0..20 {
        ack(&mut c, &mut tp, 100_000);
    }
    assert!(!c.hystart_found());
    // Round 2: RTT exactly delay_min + 12500 is not an increase.
    tp.snd_nxt = 40 * 1460;
    for _ in 0..20 {
        ack(&mut c, &mut tp, 112_500);
    }
    assert!(!c.hystart_found());
    assert_eq!(tp.snd_ssthresh, TCP_INFINITE_SSTHRESH);
    // Round 3: 8 samples only collect; the 9th compares 112501 > 112500.
    tp.snd_nxt = 60 * 1460;
    for _ in 0..8 {
        ack(&mut c, &mut tp, 112_501);
    }
    assert_eq!(c.sample_cnt, 8);
    assert!(!c.hystart_found());
    ack(&mut c, &mut tp, 112_501);
    assert!(c.hystart_found());
    assert_eq!(tp.snd_ssthresh, 20);
}

/// ACKs 1 ms apart from the start of a round: the train is longer than
/// delay_min/2 = 50 ms (no pacing) at the ACK 51 ms after round start.
#[test]
fn cubic_hystart_exits_on_ack_train() {
    let mut c = Cubic::default();
    let mut tp = TcpSock { snd_cwnd: 32, snd_nxt: 0, ..Default::default() };
    c.init(&mut tp);
    tp.snd_nxt = 1_000_000;
    let t0 = 500_000u64;
    for k in 0..=51u64 {
        tp.tcp_mstamp = t0 + 1000 * k;
        tp.snd_una = 1460 * (k as u32 + 1);
        c.pkts_acked(&mut tp, &rtt(100_000));
        // k = 0 starts the round (snd_una after end_seq 0): round_start = t0.
        assert_eq!(c.hystart_found(), k == 51, "k = {k}");
    }
    assert_eq!(tp.snd_ssthresh, 32);
    // Below hystart_low_window nothing is detected.
    let mut c = Cubic::default();
    let mut tp = TcpSock { snd_cwnd: 15, ..Default::default() };
    c.init(&mut tp);
    tp.snd_nxt = 1_000_000;
    for k in 0..100u64 {
        tp.tcp_mstamp = t0 + 1000 * k;
        tp.snd_una = 1460 * (k as u32 + 1);
        c.pkts_acked(&mut tp, &rtt(100_000));
    }
    assert!(!c.hystart_found());
}

#[test]
fn cubic_rejects_bad_module_parameters() {
    let err = Cubic::new(&CcParams { cubic_beta: Some(1024), ..Default::default() }).unwrap_err();
    assert_eq!(err, "cubic beta must be in 1..=1023 (scaled by 1024), got 1024");
    let err = Cubic::new(&CcParams { cubic_bic_scale: Some(0), ..Default::default() }).unwrap_err();
    assert_eq!(err, "cubic bic_scale must be in 1..=100000, got 0");
}
