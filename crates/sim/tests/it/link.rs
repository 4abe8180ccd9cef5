//! Link timing, DropTail and loss models, without TCP.

use airtcp_core::{Duration, Instant, RngStream};
use airtcp_sim::link::{Fate, LinkDir, LossModel, LossProcess, QueueLimit, RateModel, Reorder, Verdict};

fn ms(x: u64) -> Instant {
    Instant::from_millis(x)
}

/// The ns-3 anchor's 2 Mb/s, 1 ms hop with PPP framing.
fn wireless_hop(limit: QueueLimit) -> LinkDir {
    LinkDir::new(RateModel::Constant { bps: 2_000_000 }, Duration::from_millis(1), limit, 2)
}

#[test]
fn frame_of_1054_bytes_takes_4216us_and_arrives_after_propagation() {
    let mut l = wireless_hop(QueueLimit::Packets(50));
    // 1052-byte IP datagram (1000 payload + 20 TCP + 12 TS + 20 IP) + 2 PPP.
    let v = l.enqueue(ms(100), 1052);
    assert_eq!(
        v,
        Verdict::Delivered { start: ms(100), finish: ms(100) + Duration(4_216_000), arrival: ms(100) + Duration(5_216_000) }
    );
    // A second frame offered at the same instant waits for the first.
    let v = l.enqueue(ms(100), 1052);
    assert_eq!(
        v,
        Verdict::Delivered {
            start: ms(100) + Duration(4_216_000),
            finish: ms(100) + Duration(8_432_000),
            arrival: ms(100) + Duration(9_432_000)
        }
    );
    // A 54-byte ACK frame (52 IP + 2) after the link went idle: 216 us.
    let v = l.enqueue(ms(200), 52);
    assert_eq!(v, Verdict::Delivered { start: ms(200), finish: ms(200) + Duration(216_000), arrival: ms(201) + Duration(216_000) });
    assert_eq!(l.stats.frames_sent, 3);
    assert_eq!(l.stats.bytes_sent, 1054 * 2 + 54);
    assert_eq!(l.stats.max_frame_bytes, 1054);
}

#[test]
fn droptail_packet_limit_counts_waiting_frames_not_the_one_in_transmission() {
    let mut l = wireless_hop(QueueLimit::Packets(50));
    let mut delivered = 0;
    for _ in 0..60 {
        if let Verdict::Delivered { .. } = l.enqueue(ms(0), 1052) {
            delivered += 1;
        }
    }
    // 1 in transmission + 50 waiting, as ns-3's DropTailQueue 50p on a P2P device.
    assert_eq!(delivered, 51);
    assert_eq!(l.stats.queue_drops, 9);
    assert_eq!(l.waiting(), 50);
    assert_eq!(l.stats.max_queue_packets, 50);
    // Once the first frame has finished, there is room for exactly one more.
    let first_done = ms(0) + Duration(4_216_000);
    assert!(matches!(l.enqueue(first_done, 1052), Verdict::Delivered { .. }));
    assert_eq!(l.enqueue(first_done, 1052), Verdict::QueueDrop);
    // The new frame starts when the 51st finishes.
    assert_eq!(l.stats.queue_drops, 10);
}

#[test]
fn droptail_byte_limit_counts_waiting_frame_bytes() {
    // Room for two waiting 1054-byte frames, not three.
    let mut l = wireless_hop(QueueLimit::Bytes(2 * 1054 + 1000));
    let verdicts: Vec<bool> = (0..5).map(|_| matches!(l.enqueue(ms(0), 1052), Verdict::Delivered { .. })).collect();
    assert_eq!(verdicts, [true, true, true, false, false]);
    // A small frame still fits in the remaining 1000 bytes.
    assert!(matches!(l.enqueue(ms(0), 52), Verdict::Delivered { .. }));
    assert_eq!(l.stats.queue_drops, 2);
}

#[test]
fn lost_frame_still_uses_link_time() {
    let mut l = wireless_hop(QueueLimit::Packets(50));
    l.loss = LossProcess::new(LossModel::Uniform { p: 1.0 }, vec![], RngStream::new(1, "t"));
    assert_eq!(l.enqueue(ms(0), 1052), Verdict::Lost { start: ms(0), finish: Instant(4_216_000), fate: Fate::Lost });
    // The next frame queues behind the lost one.
    let v = l.enqueue(ms(0), 1052);
    assert_eq!(v, Verdict::Lost { start: Instant(4_216_000), finish: Instant(8_432_000), fate: Fate::Lost });
    assert_eq!(l.stats.loss_drops, 2);
    assert_eq!(l.stats.frames_sent, 2);
}

fn loss_rate(model: LossModel, frame: u32, n: usize, seed: u64) -> f64 {
    let mut p = LossProcess::new(model, vec![], RngStream::new(seed, "link.x.ab.loss"));
    let lost = (0..n).filter(|&i| p.decide(Instant(i as u64 * 1000), frame) != Fate::Delivered).count();
    lost as f64 / n as f64
}

#[test]
fn uniform_loss_rate_within_tolerance() {
    for &(p, tol) in &[(0.01, 0.001), (0.05, 0.002), (0.3, 0.005)] {
        let r = loss_rate(LossModel::Uniform { p }, 1054, 200_000, 7);
        assert!((r - p).abs() < tol, "p={p} measured {r}");
    }
    assert_eq!(loss_rate(LossModel::Uniform { p: 0.0 }, 1054, 10_000, 7), 0.0);
}

#[test]
fn per_direction_loss_is_independent() {
    let mut ab = wireless_hop(QueueLimit::Packets(1_000_000));
    let mut ba = wireless_hop(QueueLimit::Packets(1_000_000));
    ab.loss = LossProcess::new(LossModel::Uniform { p: 0.1 }, vec![], RngStream::new(3, "link.l.ab.loss"));
    ba.loss = LossProcess::new(LossModel::Uniform { p: 0.0 }, vec![], RngStream::new(3, "link.l.ba.loss"));
    for i in 0..20_000u64 {
        ab.enqueue(Instant(i * 10_000_000), 1052);
        ba.enqueue(Instant(i * 10_000_000), 52);
    }
    let r = ab.stats.loss_drops as f64 / 20_000.0;
    assert!((r - 0.1).abs() < 0.01, "{r}");
    assert_eq!(ba.stats.loss_drops, 0);
}

#[test]
fn ber_loss_grows_with_frame_size() {
    let ber = 1e-5;
    let small = loss_rate(LossModel::BitErrorRate { ber }, 54, 200_000, 11);
    let large = loss_rate(LossModel::BitErrorRate { ber }, 1054, 200_000, 11);
    // 1 - (1 - 1e-5)^(54*8) = 0.00431; ^(1054*8) = 0.0808.
    assert!((small - 0.00431).abs() < 0.0008, "{small}");
    assert!((large - 0.0808).abs() < 0.003, "{large}");
    assert!(large > 10.0 * small);
}

#[test]
fn gilbert_elliott_mean_burst_is_one_over_p_bg() {
    // Bad state loses everything, good state nothing: loss bursts = bad sojourns,
    // geometric with mean 1/p_bg = 4; stationary loss p_gb/(p_gb+p_bg) = 0.0476.
    let model = LossModel::GilbertElliott { p_gb: 0.0125, p_bg: 0.25, loss_good: 0.0, loss_bad: 1.0 };
    let mut p = LossProcess::new(model, vec![], RngStream::new(5, "ge"));
    let n = 400_000;
    let (mut bursts, mut lost, mut run) = (0u64, 0u64, 0u64);
    for i in 0..n {
        if p.decide(Instant(i), 1000) == Fate::Lost {
            lost += 1;
            run += 1;
        } else if run > 0 {
            bursts += 1;
            run = 0;
        }
    }
    let mean_burst = lost as f64 / bursts as f64;
    assert!((mean_burst - 4.0).abs() < 0.15, "mean burst {mean_burst}");
    let rate = lost as f64 / n as f64;
    assert!((rate - 0.0476).abs() < 0.004, "rate {rate}");
}

#[test]
fn outage_drops_exactly_the_frames_ending_inside_the_window() {
    // 1054-byte frames back to back at 2 Mb/s end every 4.216 ms.
    let t1 = Instant::from_millis(20);
    let t2 = Instant::from_millis(40);
    let mut l = wireless_hop(QueueLimit::Packets(1000));
    l.loss = LossProcess::new(LossModel::None, vec![(t1, t2)], RngStream::new(1, "o"));
    let mut fates = Vec::new();
    for _ in 0..15 {
        match l.enqueue(Instant::ZERO, 1052) {
            Verdict::Delivered { finish, .. } => fates.push((finish, true)),
            Verdict::Lost { finish, fate, .. } => {
                assert_eq!(fate, Fate::Outage);
                fates.push((finish, false))
            }
            Verdict::QueueDrop => unreachable!(),
        }
    }
    for &(finish, ok) in &fates {
        assert_eq!(ok, !(finish >= t1 && finish < t2), "frame ending at {finish:?}");
    }
    // Frames 5..=9 end at 21.08, 25.296, 29.512, 33.728, 37.944 ms.
    assert_eq!(l.stats.outage_drops, 5);
    assert_eq!(l.stats.loss_drops, 0);
}

#[test]
fn outage_boundaries_are_half_open() {
    let mut p = LossProcess::new(LossModel::None, vec![(ms(10), ms(20)), (ms(30), ms(31))], RngStream::new(1, "o"));
    let fates: Vec<Fate> = [ms(9), ms(10), ms(19), ms(20), ms(30), ms(31)].iter().map(|&t| p.decide(t, 100)).collect();
    use Fate::*;
    assert_eq!(fates, [Delivered, Outage, Outage, Delivered, Outage, Delivered]);
}

#[test]
fn reorder_delays_a_fraction_of_frames() {
    let mut l = LinkDir::new(RateModel::Constant { bps: 10_000_000 }, Duration::from_millis(5), QueueLimit::Packets(10), 0);
    l.reorder = Some(Reorder::new(0.2, Duration::from_millis(3), RngStream::new(9, "r")));
    let mut extra = 0;
    for i in 0..10_000u64 {
        if let Verdict::Delivered { finish, arrival, .. } = l.enqueue(Instant(i * 1_000_000), 100) {
            let d = arrival - finish;
            assert!(d == Duration::from_millis(5) || d == Duration::from_millis(8));
            extra += (d == Duration::from_millis(8)) as u32;
        }
    }
    assert!((1_850..2_150).contains(&extra), "{extra}");
}
