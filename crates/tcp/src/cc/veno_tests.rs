//! Veno tests. RTTs are stored as rtt_us + 1; diff is in half packets
//! (V_PARAM_SHIFT = 1), beta = 3 << 1 = 6.

use super::*;

fn sock(cwnd: u32, ssthresh: u32) -> TcpSock {
    TcpSock {
        snd_cwnd: cwnd,
        snd_ssthresh: ssthresh,
        is_cwnd_limited: true,
        max_packets_out: cwnd,
        ..Default::default()
    }
}

fn sample(rtt_us: i32) -> AckSample {
    AckSample { pkts_acked: 1, rtt_us, in_flight: 0 }
}

/// Veno at cwnd 50 in congestion avoidance with basertt = 100001 (three
/// samples of 100 ms, so cntrtt = 3 > 2 and Veno is active), after one
/// cong_avoid call that consumed those samples (diff 0, snd_cwnd_cnt 1).
fn veno_at_50() -> (Veno, TcpSock) {
    let mut v = Veno::default();
    let mut tp = sock(50, 40);
    v.init(&mut tp);
    for _ in 0..3 {
        v.pkts_acked(&mut tp, &sample(100_000));
    }
    v.cong_avoid(&mut tp, 0, 1);
    assert_eq!((v.diff(), tp.snd_cwnd, tp.snd_cwnd_cnt, v.minrtt), (0, 50, 1, 0x7fff_ffff));
    (v, tp)
}

#[test]
fn veno_ssthresh_four_fifths_for_random_loss_half_for_congestive() {
    // rtt = basertt: target = 50*100001*2/100001 = 100, diff = 100 - 100 = 0
    // < 6: random loss, ssthresh = 50*4/5 = 40.
    let (mut v, mut tp) = veno_at_50();
    v.pkts_acked(&mut tp, &sample(100_000));
    v.cong_avoid(&mut tp, 0, 1);
    assert_eq!(v.diff(), 0);
    assert_eq!(v.ssthresh(&mut tp), 40);

    // vrtt 110001: target = 10000100/110001 = 90, diff = 10 >= 6:
    // congestive, ssthresh = 50/2 = 25.
    let (mut v, mut tp) = veno_at_50();
    v.pkts_acked(&mut tp, &sample(110_000));
    v.cong_avoid(&mut tp, 0, 1);
    assert_eq!((v.diff(), v.ssthresh(&mut tp)), (10, 25));

    // The boundary: vrtt 105264 -> target 95, diff 5 (random, 40);
    // vrtt 105265 -> target 94, diff 6 (congestive, 25).
    let (mut v, mut tp) = veno_at_50();
    v.pkts_acked(&mut tp, &sample(105_263));
    v.cong_avoid(&mut tp, 0, 1);
    assert_eq!((v.diff(), v.ssthresh(&mut tp)), (5, 40));
    let (mut v, mut tp) = veno_at_50();
    v.pkts_acked(&mut tp, &sample(105_264));
    v.cong_avoid(&mut tp, 0, 1);
    assert_eq!((v.diff(), v.ssthresh(&mut tp)), (6, 25));
    // Floor of two packets.
    tp.snd_cwnd = 2;
    assert_eq!(v.ssthresh(&mut tp), 2);
}

#[test]
fn veno_grows_every_other_rtt_when_congestive() {
    // cwnd 10 in CA, basertt 100001, every ACK carries a 200 ms sample:
    // target = 10*100001*2/200001 = 9, diff = 20 - 9 = 11 >= 6 (congestive).
    // The kernel compares snd_cwnd_cnt >= cwnd *before* adding the ACK, so a
    // "round" is cwnd + 1 ACKs: ACK 11 grows to 11 (inc -> 0), ACK 23 only
    // re-arms inc, ACK 35 grows to 12.
    let mut v = Veno::default();
    let mut tp = sock(10, 5);
    v.init(&mut tp);
    for _ in 0..3 {
        v.pkts_acked(&mut tp, &sample(100_000));
    }
    // Consume the base samples (minrtt reset), then start counting afresh.
    v.cong_avoid(&mut tp, 0, 1);
    tp.snd_cwnd_cnt = 0;
    let mut cwnds = Vec::new();
    for _ in 0..35 {
        v.pkts_acked(&mut tp, &sample(200_000));
        v.cong_avoid(&mut tp, 0, 1);
        assert!(v.diff() >= 6);
        cwnds.push(tp.snd_cwnd);
    }
    assert_eq!(cwnds[9], 10);
    assert_eq!(cwnds[10], 11); // ACK 11
    assert_eq!(cwnds[33], 11); // ACK 34: ACK 23 did not grow
    assert_eq!(cwnds[34], 12); // ACK 35
    assert_eq!(tp.snd_cwnd_cnt, 0);

    // Non-congestive (rtt = base): Reno-like, +1 per cwnd ACKs (ACK 10, 21).
    let (mut v, _) = veno_at_50();
    let mut tp = sock(10, 5);
    let mut grew_at = Vec::new();
    for i in 1..=21 {
        v.pkts_acked(&mut tp, &sample(100_000));
        let before = tp.snd_cwnd;
        v.cong_avoid(&mut tp, 0, 1);
        if tp.snd_cwnd > before {
            grew_at.push(i);
        }
    }
    assert_eq!(grew_at, vec![10, 21]);
}

#[test]
fn veno_ack_without_rtt_sample_looks_congestive() {
    // Quirk: minrtt is reset after every cong_avoid call, so an ACK that
    // brings no RTT sample computes target = 50*100001*2/0x7fffffff = 0 and
    // diff = 100: the next loss would be treated as congestive.
    let (mut v, mut tp) = veno_at_50();
    v.pkts_acked(&mut tp, &sample(-1));
    v.cong_avoid(&mut tp, 0, 1);
    assert_eq!(v.diff(), 100);
    assert_eq!(v.ssthresh(&mut tp), 25);
}

#[test]
fn veno_cntrtt_survives_restart_but_basertt_does_not() {
    let (mut v, mut tp) = veno_at_50();
    // Idle restart: basertt forgotten, cntrtt (3) kept.
    v.cwnd_event(&mut tp, CaEvent::TxStart);
    assert_eq!(v.basertt_us(), 0x7fff_ffff);
    assert_eq!(v.cntrtt, 3);
    // One 300 ms sample re-learns basertt = 300001 and Veno (not Reno)
    // decides at once: diff = 100 - 50*300001*2/300001 = 0.
    v.pkts_acked(&mut tp, &sample(300_000));
    v.cong_avoid(&mut tp, 0, 1);
    assert_eq!((v.basertt_us(), v.diff()), (300_001, 0));
}

#[test]
fn veno_uses_reno_with_few_samples_or_outside_open() {
    // Two samples only: Reno slow start from 4 by 3.
    let mut v = Veno::default();
    let mut tp = sock(4, 100);
    v.init(&mut tp);
    v.pkts_acked(&mut tp, &sample(100_000));
    v.pkts_acked(&mut tp, &sample(100_000));
    v.cong_avoid(&mut tp, 0, 3);
    assert_eq!(tp.snd_cwnd, 7);
    // Leaving Open disables Veno: in Loss cong_avoid is plain Reno even with
    // congestive samples.
    let (mut v, mut tp) = veno_at_50();
    v.set_state(&mut tp, CaState::Loss);
    v.pkts_acked(&mut tp, &sample(200_000));
    tp.snd_cwnd_cnt = 49;
    v.cong_avoid(&mut tp, 0, 1);
    assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (51, 0));
    // Back to Open: Veno again.
    v.set_state(&mut tp, CaState::Open);
    v.pkts_acked(&mut tp, &sample(200_000));
    v.cong_avoid(&mut tp, 0, 1);
    assert!(v.diff() >= 6);
    // Undo: max(cwnd, prior_cwnd).
    tp.prior_cwnd = 80;
    assert_eq!(v.undo_cwnd(&mut tp), 80);
}
