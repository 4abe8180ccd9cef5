//! BBR tests on a scripted path: mss 1000 B, RTT 100 ms, one ACK per
//! packet-timed round unless stated. Units: bw in packets/us << 24
//! (d packets per 100 ms = d * 2^24 / 100000), gains in 1/256, HZ 1000.
//! Useful values (kernel formulas, integer arithmetic):
//! - high_gain = 256*2885/1000 + 1 = 739, drain_gain = 256000/2885 = 88
//! - bw(10/100ms) = 1677, bw(20) = 3355, bw(40) = 6710, bw(48) = 8053
//! - pacing rate = ((bw*mss*gain >> 8) * 990000) >> 24 bytes/s
//! - bdp = ceil((bw*min_rtt*gain >> 8) / 2^24); quantization adds
//!   3 * tso_segs_goal (= 2 whenever pacing >= 150 kB/s and < 1 MB/s) and
//!   rounds up to even (+2 more in PROBE_BW phase 0).

use super::*;
use crate::cc::TCP_INFINITE_SSTHRESH;

const T0_US: u64 = 1_000_000;

struct Path {
    b: Bbr,
    tp: TcpSock,
}

impl Path {
    /// Established at t = 1 s (jiffies 1000) with srtt = min_rtt = 100 ms.
    fn new() -> Self {
        let mut tp = TcpSock {
            mss_cache: 1000,
            snd_cwnd: 10,
            srtt_us: 100_000 << 3,
            min_rtt_us: 100_000,
            tcp_mstamp: T0_US,
            jiffies: 1000,
            ..Default::default()
        };
        let mut b = Bbr::new(&CcParams { rng_seed: Some(7), ..Default::default() });
        b.init(&mut tp);
        Path { b, tp }
    }

    fn advance(&mut self, step_us: u64) {
        self.tp.tcp_mstamp += step_us;
        self.tp.jiffies = (self.tp.tcp_mstamp / 1000) as u32;
        self.tp.delivered_mstamp = self.tp.tcp_mstamp;
    }

    /// An ACK `step_us` after the previous one delivering `delivered`
    /// packets over that interval, sent at the start of it (so each call is
    /// a new round), with `inflight` packets outstanding.
    fn ack(&mut self, step_us: u64, delivered: u32, inflight: u32) {
        self.advance(step_us);
        let prior = self.tp.delivered;
        self.tp.delivered += delivered;
        self.tp.packets_out = inflight;
        let rs = RateSample {
            prior_delivered: prior,
            delivered: delivered as i32,
            interval_us: step_us as i64,
            rtt_us: 100_000,
            acked_sacked: delivered,
            prior_in_flight: inflight,
            ..Default::default()
        };
        self.b.cong_control(&mut self.tp, 0, 0, &rs);
    }

    /// Like `ack` with an explicit rate sample (losses, prior_delivered).
    fn ack_rs(&mut self, step_us: u64, rs: RateSample) {
        self.advance(step_us);
        self.tp.delivered += rs.acked_sacked;
        self.tp.lost += rs.losses.max(0) as u32;
        self.b.cong_control(&mut self.tp, 0, 0, &rs);
    }
}

/// STARTUP (5 rounds), DRAIN (2 rounds), then PROBE_BW at round 8.
fn to_probe_bw() -> Path {
    let mut p = Path::new();
    for (d, inflight) in [(10, 10), (20, 20), (40, 40), (48, 80), (48, 128), (48, 176), (48, 60), (48, 54)] {
        p.ack(100_000, d, inflight);
    }
    assert_eq!(p.b.mode(), BbrMode::ProbeBw);
    p
}

#[test]
fn bbr_gain_constants() {
    assert_eq!((BBR_HIGH_GAIN, BBR_DRAIN_GAIN, BBR_CWND_GAIN), (739, 88, 512));
    assert_eq!(BBR_PACING_GAIN, [320, 192, 256, 256, 256, 256, 256, 256]);
}

#[test]
fn bbr_init_requests_pacing_at_high_gain_over_srtt() {
    // bw = 10 * 2^24 / 100000 = 1677; rate = ((1677*1000*739 >> 8) = 4841027)
    // * 990000 >> 24 = 285662 B/s (= 2.885 * 10 pkt / 100 ms, 1% margin).
    let p = Path::new();
    assert!(p.tp.pacing_requested);
    assert_eq!(p.tp.pacing_rate, 285_662);
    assert_eq!(p.tp.snd_ssthresh, TCP_INFINITE_SSTHRESH);
    assert_eq!((p.b.mode(), p.b.min_rtt_us()), (BbrMode::Startup, 100_000));
    // Without an RTT sample the nominal RTT is 1 ms: 100x the rate.
    let mut tp = TcpSock { mss_cache: 1000, ..Default::default() };
    Bbr::default().init(&mut tp);
    assert_eq!(tp.pacing_rate, (((167_772u64 * 1000 * 739) >> 8) * 990_000) >> 24);
}

#[test]
fn bbr_startup_doubles_and_detects_full_bw_after_three_flat_rounds() {
    let mut p = Path::new();
    // R1: bw 1677; target = bdp(1677, 739) = 29 + 6 = 35 -> 36; cwnd 10 < 36
    // so cwnd += 10. Pacing 285662 (not above the initial rate).
    p.ack(100_000, 10, 10);
    assert_eq!((p.tp.snd_cwnd, p.tp.pacing_rate, p.b.full_bw, p.b.rtt_cnt()), (20, 285_662, 1677, 1));
    // R2: bw 3355 >= 1677*1.25 = 2096: full_bw = 3355; target 58+6 = 64.
    p.ack(100_000, 20, 20);
    assert_eq!((p.tp.snd_cwnd, p.tp.pacing_rate, p.b.full_bw), (40, 571_494, 3355));
    // R3: bw 6710 >= 4193; target 116 + 6 = 122.
    p.ack(100_000, 40, 40);
    assert_eq!((p.tp.snd_cwnd, p.tp.pacing_rate, p.b.full_bw), (80, 1_142_989, 6710));
    // R4: bw 8053 < 6710*320 >> 8 = 8387: first flat round. Target
    // bdp(8053, 739) = 139, + 3*2 = 145 -> 146; 80 < 146 so cwnd += 48.
    p.ack(100_000, 48, 80);
    assert_eq!((p.tp.snd_cwnd, p.tp.pacing_rate, p.b.full_bw_cnt), (128, 1_371_757, 1));
    assert_eq!((p.b.mode(), p.b.pacing_gain(), p.b.cwnd_gain()), (BbrMode::Startup, 739, 739));
    // R5: second flat round, 128 < 146: 176.
    p.ack(100_000, 48, 128);
    assert_eq!((p.tp.snd_cwnd, p.b.full_bw_cnt, p.b.full_bw_reached()), (176, 2, false));
    // R6: third flat round: full pipe, DRAIN. ssthresh = inflight(8053, 1.0)
    // = 48 + 6 = 54. Pacing drops to drain gain: 163348 B/s. Inflight 176+2
    // > 54 keeps DRAIN. cwnd: now that the pipe is full it snaps to the
    // target bdp(8053, 739) = 139 + ack aggregation min(extra_acked 49,
    // bw*100ms = 47) = 186 -> +6 = 192 (extra_acked 49 = 96 ACKed - 47
    // expected over the epoch begun in R4: 8053*100000 >> 24 = 47).
    p.ack(100_000, 48, 176);
    assert!(p.b.full_bw_reached());
    assert_eq!((p.b.mode(), p.b.pacing_gain(), p.b.cwnd_gain()), (BbrMode::Drain, 88, 739));
    assert_eq!((p.tp.snd_ssthresh, p.tp.pacing_rate, p.tp.snd_cwnd), (54, 163_348, 192));
}

#[test]
fn bbr_drain_exits_when_inflight_reaches_bdp() {
    let mut p = Path::new();
    for (d, inflight) in [(10, 10), (20, 20), (40, 40), (48, 80), (48, 128), (48, 176)] {
        p.ack(100_000, d, inflight);
    }
    // 60 in flight > inflight(8053, 1.0) = 54: still draining, cwnd 192.
    p.ack(100_000, 48, 60);
    assert_eq!((p.b.mode(), p.tp.snd_cwnd), (BbrMode::Drain, 192));
    // 54 <= 54: PROBE_BW at a random phase other than 1 (3/4), cwnd_gain 2.
    // cwnd = min(192 + 48, bdp(8053, 512) = 96 + 47 = 143 -> +6 = 150 (+2 in
    // phase 0)).
    p.ack(100_000, 48, 54);
    assert_eq!(p.b.mode(), BbrMode::ProbeBw);
    let idx = p.b.cycle_idx();
    assert_ne!(idx, 1);
    assert_eq!((p.b.pacing_gain(), p.b.cwnd_gain()), (BBR_PACING_GAIN[idx as usize], 512));
    assert_eq!(p.tp.snd_cwnd, if idx == 0 { 152 } else { 150 });
    // Pacing follows the gain once the pipe is full.
    assert_eq!(p.tp.pacing_rate, Bbr::rate_bytes_per_sec(&p.tp, 8053, BBR_PACING_GAIN[idx as usize]));
}

#[test]
fn bbr_probe_bw_cycles_gains() {
    let mut p = to_probe_bw();
    // Force phase 0 (gain 5/4) starting now.
    p.b.cycle_idx = 0;
    p.b.pacing_gain = 320;
    p.b.cycle_mstamp = p.tp.delivered_mstamp;
    // 50 ms into the phase: not a full min_rtt yet.
    p.ack(50_000, 24, 100);
    assert_eq!(p.b.cycle_idx(), 0);
    // 100.001 ms: full length, but 60 + 2 (EDT skb) < inflight(bw, 5/4) =
    // 60 + 6 = 66 + 2 (phase 0) = 68 and no losses: keep probing.
    p.ack(50_001, 24, 60);
    assert_eq!(p.b.cycle_idx(), 0);
    // 66 + 2 = 68 >= 68: next phase (3/4).
    p.ack(1000, 0, 66);
    assert_eq!((p.b.cycle_idx(), p.b.pacing_gain()), (1, 192));
    // Drain phase ends as soon as inflight <= inflight(bw, 1.0) = 54.
    p.ack(1000, 0, 55);
    assert_eq!(p.b.cycle_idx(), 1);
    p.ack(1000, 0, 54);
    assert_eq!((p.b.cycle_idx(), p.b.pacing_gain()), (2, 256));
    // Cruise phases last strictly more than min_rtt (100000 us).
    p.ack(100_000, 48, 54);
    assert_eq!(p.b.cycle_idx(), 2);
    p.ack(1, 0, 54);
    assert_eq!(p.b.cycle_idx(), 3);
    for want in [4, 5, 6, 7, 0] {
        p.ack(100_001, 48, 54);
        assert_eq!(p.b.cycle_idx(), want);
    }
    assert_eq!(p.b.pacing_gain(), 320);
}

#[test]
fn bbr_probe_rtt_after_ten_seconds_without_new_min() {
    let mut p = to_probe_bw();
    // min_rtt_stamp is jiffies 1000 (init); RTT samples of exactly 100 ms do
    // not refresh it. At jiffies 11000 the 10 s window has not expired...
    p.ack(9_200_000, 48, 50);
    assert_eq!((p.tp.jiffies, p.b.mode()), (11_000, BbrMode::ProbeBw));
    let cwnd_before = p.tp.snd_cwnd;
    // ...at 11001 it has: PROBE_RTT, cwnd saved and capped at 4, gains 1.0,
    // the expired min_rtt re-taken from this sample, samples app-limited.
    p.ack(1000, 48, 50);
    assert_eq!(p.b.mode(), BbrMode::ProbeRtt);
    assert_eq!((p.b.prior_cwnd, p.tp.snd_cwnd), (cwnd_before, 4));
    assert_eq!((p.b.pacing_gain(), p.b.cwnd_gain()), (256, 256));
    assert_eq!((p.b.min_rtt_us(), p.b.min_rtt_stamp), (100_000, 11_001));
    assert_eq!(p.tp.app_limited, p.tp.delivered + 50);
    assert_eq!(p.b.probe_rtt_done_stamp, 0);
    // Inflight down to 4 at jiffies 11011: hold until 11011 + 200 and a round.
    p.ack(10_000, 4, 4);
    assert_eq!(p.b.probe_rtt_done_stamp, 11_211);
    // A round later (jiffies 11111) but before the 200 ms: stay.
    p.ack(100_000, 4, 4);
    assert!(p.b.probe_rtt_round_done);
    assert_eq!((p.b.mode(), p.tp.snd_cwnd), (BbrMode::ProbeRtt, 4));
    // jiffies 11211 is not after 11211; 11212 is: back to PROBE_BW with
    // cwnd restored to the saved value (then capped by the PROBE_BW target).
    p.ack(100_000, 4, 4);
    assert_eq!(p.b.mode(), BbrMode::ProbeRtt);
    p.ack(1000, 4, 4);
    assert_eq!(p.b.mode(), BbrMode::ProbeBw);
    assert_eq!(p.b.min_rtt_stamp, 11_212);
    assert!(p.tp.snd_cwnd > 4);
}

#[test]
fn bbr_new_min_rtt_postpones_probe_rtt() {
    let mut p = to_probe_bw();
    // A 90 ms sample at jiffies 5000 restarts the 10 s window.
    p.advance(3_200_000);
    let rs = RateSample {
        prior_delivered: p.tp.delivered,
        delivered: 10,
        interval_us: 100_000,
        rtt_us: 90_000,
        acked_sacked: 10,
        ..Default::default()
    };
    p.ack_rs(0, rs);
    assert_eq!((p.b.min_rtt_us(), p.b.min_rtt_stamp), (90_000, 5000));
    p.ack(6_001_000, 48, 50); // jiffies 11001: not after 15000
    assert_eq!(p.b.mode(), BbrMode::ProbeBw);
}

#[test]
fn bbr_packet_conservation_in_first_round_of_recovery() {
    let mut p = to_probe_bw();
    // Large min_rtt so the PROBE_BW target (bdp(8053, 2.0) = 960) does not cap.
    p.b.min_rtt_us = 1_000_000;
    let c = p.tp.snd_cwnd;
    // Entering Recovery: ssthresh hook saves cwnd, leaves ssthresh alone.
    assert_eq!(p.b.ssthresh(&mut p.tp), 54);
    assert_eq!(p.b.prior_cwnd, c);
    p.tp.ca_state = CaState::Recovery;
    // 5 acked, 2 lost, 90 in flight: cwnd = in_flight + acked = 95.
    p.tp.packets_out = 100;
    p.tp.lost_out = 10;
    let rs = RateSample {
        prior_delivered: p.tp.delivered,
        delivered: 5,
        interval_us: 10_000,
        rtt_us: 100_000,
        acked_sacked: 5,
        losses: 2,
        ..Default::default()
    };
    p.ack_rs(10_000, rs);
    assert_eq!((p.tp.snd_cwnd, p.b.packet_conservation), (95, true));
    // Same round (prior_delivered before the round start): still conserving,
    // cwnd = max(95, 87 + 3).
    p.tp.packets_out = 97;
    let rs = RateSample {
        prior_delivered: p.b.next_rtt_delivered - 1,
        delivered: 3,
        interval_us: 10_000,
        rtt_us: 100_000,
        acked_sacked: 3,
        ..Default::default()
    };
    p.ack_rs(10_000, rs);
    assert_eq!((p.tp.snd_cwnd, p.b.packet_conservation), (95, true));
    // Leaving recovery restores the saved cwnd, then grows by acked (4).
    p.tp.ca_state = CaState::Open;
    let rs = RateSample {
        prior_delivered: p.b.next_rtt_delivered - 1,
        delivered: 4,
        interval_us: 10_000,
        rtt_us: 100_000,
        acked_sacked: 4,
        ..Default::default()
    };
    p.ack_rs(10_000, rs);
    assert_eq!((p.tp.snd_cwnd, p.b.packet_conservation), (c + 4, false));
    // Losses outside recovery come off before the increase: c+4 - 3 + 1.
    let rs = RateSample {
        prior_delivered: p.b.next_rtt_delivered - 1,
        delivered: 1,
        interval_us: 10_000,
        rtt_us: 100_000,
        acked_sacked: 1,
        losses: 3,
        ..Default::default()
    };
    p.ack_rs(10_000, rs);
    assert_eq!(p.tp.snd_cwnd, c + 2);
}

#[test]
fn bbr_rto_and_undo_reset_full_bw_estimate() {
    let mut p = to_probe_bw();
    p.b.set_state(&mut p.tp, CaState::Loss);
    assert_eq!((p.b.prev_ca_state, p.b.full_bw, p.b.round_start, p.b.lt_is_sampling), (CaState::Loss, 0, true, true));
    let cwnd = p.tp.snd_cwnd;
    p.b.full_bw_cnt = 2;
    assert_eq!(p.b.undo_cwnd(&mut p.tp), cwnd);
    assert_eq!((p.b.full_bw_cnt, p.b.lt_is_sampling, p.b.lt_bw), (0, false, 0));
}

#[test]
fn bbr_long_term_bw_detects_policer() {
    let mut p = to_probe_bw();
    let lossy_round = |p: &mut Path| {
        let rs = RateSample {
            prior_delivered: p.tp.delivered,
            delivered: 40,
            interval_us: 100_000,
            rtt_us: 100_000,
            acked_sacked: 40,
            losses: 10,
            prior_in_flight: 54,
            ..Default::default()
        };
        p.tp.packets_out = 54;
        p.ack_rs(100_000, rs);
    };
    // L1: first loss starts sampling. L4: 4 rounds, 30 lost / 120 delivered
    // (30 << 8 = 7680 >= 50*120) over 300 ms: lt_bw = 120*2^24/300000 = 6710.
    for _ in 0..4 {
        lossy_round(&mut p);
    }
    assert_eq!((p.b.lt_bw, p.b.lt_use_bw()), (6710, false));
    // L8: same rate again (160 over 400 ms = 6710): consistent, policed.
    for _ in 0..4 {
        lossy_round(&mut p);
    }
    assert!(p.b.lt_use_bw());
    assert_eq!((p.b.bw(), p.b.pacing_gain()), (6710, 256));
    // Pacing at lt_bw, gain 1.0: ((6710*1000*256 >> 8) * 990000) >> 24.
    assert_eq!(p.tp.pacing_rate, 395_947);
    // lt_bw is used for 48 rounds of PROBE_BW, then gain cycling restarts.
    for _ in 0..47 {
        p.ack(100_000, 40, 54);
    }
    assert!(p.b.lt_use_bw());
    p.ack(100_000, 40, 54);
    assert!(!p.b.lt_use_bw());
    assert_eq!(p.b.mode(), BbrMode::ProbeBw);
}

#[test]
fn bbr_idle_restart_paces_at_bw_in_probe_bw() {
    let mut p = to_probe_bw();
    p.tp.app_limited = 1;
    p.b.cwnd_event(&mut p.tp, CaEvent::TxStart);
    assert!(p.b.idle_restart);
    assert_eq!(p.tp.pacing_rate, Bbr::rate_bytes_per_sec(&p.tp, 8053, BBR_UNIT));
    // The next ACK that delivers data ends the idle restart.
    p.ack(100_000, 10, 10);
    assert!(!p.b.idle_restart);
}
