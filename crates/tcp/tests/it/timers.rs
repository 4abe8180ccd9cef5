//! RTO (RFC 6298), Karn, backoff, abort, persist timer, initial window.
use crate::common;
use common::*;

use airtcp_core::{Instant, Segment, SeqNum, TcpFlags};
use airtcp_tcp::endpoint::TimerKind;
use airtcp_tcp::{CaState, Event, State, TcpConfig};

#[test]
fn syn_uses_initial_rto_then_backs_off_and_gives_up() {
    let cfg = TcpConfig { syn_retries: 2, ..plain() };
    let mut ep = airtcp_tcp::Endpoint::new(cfg, LOCAL, REMOTE, SeqNum(ISS)).unwrap();
    ep.connect(ms(0));
    assert!(ep.poll_transmit(ms(0)).unwrap().flags.syn());
    assert_eq!(ep.poll_timeout(), Some(ms(1000)));
    assert_eq!(fire(&mut ep), ms(1000));
    assert!(ep.poll_transmit(ms(1000)).unwrap().flags.syn());
    assert_eq!(fire(&mut ep), ms(3000));
    assert!(ep.poll_transmit(ms(3000)).unwrap().flags.syn());
    assert_eq!(fire(&mut ep), ms(7000));
    assert_eq!(ep.state(), State::Closed);
    // Not synchronized: no RST.
    assert!(ep.poll_transmit(ms(7000)).is_none());
    let ev = events(&mut ep);
    assert_eq!(ev.last(), Some(&Event::Closed { aborted: true }));
    assert_eq!(ep.stats().timeouts, 2);
}

#[test]
fn established_rto_starts_at_min_rto_after_handshake_sample() {
    let (mut ep, now) = established(plain());
    // Handshake sample 100 ms: SRTT 100, RTTVAR 50, RTO 300 ms -> min_rto 1 s.
    assert_eq!(ep.rtt().srtt(), dms(100));
    assert_eq!(ep.probe().rto, dms(1000));
    ep.send(1000);
    assert_eq!(drain(&mut ep, now).len(), 1);
    assert_eq!(timer(&ep, TimerKind::Rto), Some(now + dms(1000)));
}

#[test]
fn rtt_sample_updates_srtt_rttvar_and_rto() {
    let cfg = TcpConfig { min_rto: dms(200), ..plain() };
    let (mut ep, now) = established(cfg);
    assert_eq!(ep.probe().rto, dms(300));
    ep.send(1000);
    drain(&mut ep, now);
    ack(&mut ep, now + dms(200), 1000, 65_535);
    // RTTVAR = 3/4·50 + 1/4·|100-200| = 62.5; SRTT = 7/8·100 + 1/8·200 = 112.5.
    assert_eq!(ep.rtt().srtt(), dms(112) + airtcp_core::Duration::from_micros(500));
    assert_eq!(ep.rtt().rttvar(), dms(62) + airtcp_core::Duration::from_micros(500));
    assert_eq!(ep.probe().rto, dms(362) + airtcp_core::Duration::from_micros(500));
    assert_eq!(ep.sock().srtt_us, 112_500 << 3);
    assert_eq!(ep.stats().rtt_samples, 2);
    assert_eq!(ep.stats().rtt_min_us, 100_000);
    // All acked: the retransmission timer is stopped (RFC 6298 §5.2).
    assert_eq!(timer(&ep, TimerKind::Rto), None);
}

#[test]
fn karn_no_sample_from_retransmitted_segment() {
    let (mut ep, now) = established(plain());
    ep.send(1000);
    drain(&mut ep, now);
    let t = fire(&mut ep);
    assert_eq!(t, now + dms(1000));
    let rx = drain(&mut ep, t);
    assert_eq!(rx.len(), 1);
    assert_eq!(our_off(&rx[0]), 0);
    assert_eq!(ep.stats().retransmissions, 1);
    ack(&mut ep, t + dms(50), 1000, 65_535);
    assert_eq!(ep.stats().rtt_samples, 1); // only the handshake's
    assert_eq!(ep.rtt().srtt(), dms(100));
    // No valid sample: the backoff stays (Karn), RTO 2 s.
    assert_eq!(ep.rtt().backoff, 1);
    assert_eq!(ep.probe().rto, dms(2000));
}

#[test]
fn established_rto_backs_off_doubling_capped_then_resets() {
    let cfg = TcpConfig { max_rto: dms(4000), timestamps: true, ..plain() };
    let (mut ep, now) = established(cfg);
    ep.send(1000);
    drain(&mut ep, now);
    let mut fired = Vec::new();
    let mut last = now;
    for _ in 0..4 {
        let t = fire(&mut ep);
        fired.push((t - last).as_millis());
        last = t;
        let rx = drain(&mut ep, t);
        assert_eq!(rx.len(), 1);
    }
    assert_eq!(fired, vec![1000, 2000, 4000, 4000]);
    let ev: Vec<_> = events(&mut ep).into_iter().filter(|e| matches!(e, Event::Timeout { .. })).collect();
    assert_eq!(
        ev,
        vec![
            Event::Timeout { rto: dms(1000), backoff: 1 },
            Event::Timeout { rto: dms(2000), backoff: 2 },
            Event::Timeout { rto: dms(4000), backoff: 3 },
            Event::Timeout { rto: dms(4000), backoff: 4 },
        ]
    );
    assert_eq!(ep.stats().timeouts, 4);
    assert_eq!(ep.probe().ca_state, CaState::Loss);
    // An ACK echoing the last retransmission's timestamp is a valid sample
    // (timestamps disambiguate): backoff resets.
    let tsval = (last.as_millis()) as u32;
    let a = Segment { ack: our_seq(1000), timestamps: Some((9, tsval)), ..from_peer() };
    ep.handle_segment(last + dms(100), &a);
    assert_eq!(ep.rtt().backoff, 0);
    assert_eq!(ep.probe().ca_state, CaState::Open);
    assert_eq!(ep.stats().rtt_samples, 2);
}

#[test]
fn abort_after_max_retries_sends_rst() {
    let cfg = TcpConfig { max_retries: 2, ..plain() };
    let (mut ep, now) = established(cfg);
    ep.send(1000);
    drain(&mut ep, now);
    assert_eq!(fire(&mut ep), now + dms(1000));
    drain(&mut ep, now + dms(1000));
    assert_eq!(fire(&mut ep), now + dms(3000));
    drain(&mut ep, now + dms(3000));
    assert_eq!(fire(&mut ep), now + dms(7000));
    assert_eq!(ep.state(), State::Closed);
    let rst = ep.poll_transmit(now + dms(7000)).unwrap();
    assert!(rst.flags.rst());
    assert_eq!(rst.seq, our_seq(1000));
    assert_eq!(events(&mut ep).last(), Some(&Event::Closed { aborted: true }));
    assert_eq!(ep.poll_timeout(), None);
}

#[test]
fn initial_window_limits_first_flight() {
    let (mut ep, now) = established(TcpConfig { initial_cwnd: 1, ..plain() });
    ep.send(50_000);
    assert_eq!(drain(&mut ep, now).len(), 1);
    ack(&mut ep, now + dms(100), 1000, 65_535);
    // Slow start: cwnd 2.
    assert_eq!(ep.probe().cwnd, 2);
    assert_eq!(drain(&mut ep, now + dms(100)).len(), 2);
    let (mut ep, now) = established(TcpConfig { initial_cwnd: 10, ..plain() });
    ep.send(50_000);
    let segs = drain(&mut ep, now);
    assert_eq!(segs.len(), 10);
    assert!(segs.iter().all(|s| s.payload_len == 1000));
    assert_eq!(ep.probe().in_flight, 10);
}

#[test]
fn sender_respects_peer_window() {
    let (mut ep, now) = established_with(plain(), dms(100), 3_500);
    ep.send(50_000);
    let segs = drain(&mut ep, now);
    // 3 full segments fit 3500 bytes; the 4th would not (no partial-window sends).
    assert_eq!(segs.len(), 3);
}

#[test]
fn persist_probes_back_off_and_stop_when_window_opens() {
    let cfg = TcpConfig { persist_max: dms(5000), ..plain() };
    let (mut ep, now) = established(cfg);
    ep.send(20_000);
    assert_eq!(drain(&mut ep, now).len(), 10);
    let t = now + dms(100);
    ack(&mut ep, t, 10_000, 0);
    assert_eq!(events(&mut ep), vec![Event::ZeroWindow]);
    assert!(drain(&mut ep, t).is_empty());
    assert_eq!(timer(&ep, TimerKind::Rto), None);
    // First probe after max(RTO, persist_min) = 1 s.
    assert_eq!(timer(&ep, TimerKind::Persist), Some(t + dms(1000)));
    let mut times = Vec::new();
    for _ in 0..4 {
        let f = fire(&mut ep);
        times.push((f - t).as_millis());
        let p = drain(&mut ep, f);
        assert_eq!(p.len(), 1);
        // Linux tcp_xmit_probe_skb: no data, SND.UNA - 1.
        assert_eq!((p[0].seq, p[0].payload_len), (our_seq(10_000) - 1, 0));
        assert_eq!(events(&mut ep), vec![Event::WindowProbe]);
        // Peer answers: still zero.
        ack(&mut ep, f, 10_000, 0);
    }
    // 1, +2, +4, +5 (cap).
    assert_eq!(times, vec![1000, 3000, 7000, 12000]);
    assert_eq!(ep.stats().window_probes, 4);
    let t2 = t + dms(12_100);
    ack(&mut ep, t2, 10_000, 5_000);
    assert_eq!(events(&mut ep), vec![Event::WindowOpened]);
    assert_eq!(drain(&mut ep, t2).len(), 5);
    assert_eq!(timer(&ep, TimerKind::Persist), None);
    assert_eq!(timer(&ep, TimerKind::Rto), Some(t2 + dms(1000)));
}

#[test]
fn pacing_spaces_segments() {
    let (mut ep, now) = established(plain());
    ep.send(10_000);
    // 1040-byte packets at 1 040 000 B/s: one per millisecond.
    let tp = ep.sock().clone();
    let _ = tp;
    set_pacing(&mut ep, 1_040_000);
    let first = drain(&mut ep, now);
    assert_eq!(first.len(), 1);
    assert_eq!(ep.poll_timeout(), Some(now + dms(1)));
    let t = fire(&mut ep);
    assert_eq!(drain(&mut ep, t).len(), 1);
}

fn set_pacing(ep: &mut airtcp_tcp::Endpoint, rate: u64) {
    ep.sock_mut().pacing_requested = true;
    ep.sock_mut().pacing_rate = rate;
}

#[test]
fn out_of_window_segment_gets_ack_not_processing() {
    let (mut ep, now) = established(plain());
    let seg = Segment { seq: SeqNum(PEER_ISS + 1 + 100_000), payload_len: 10, flags: TcpFlags::ACK, ..from_peer() };
    ep.handle_segment(now, &seg);
    let a = ep.poll_transmit(now).unwrap();
    assert_eq!(a.ack, SeqNum(PEER_ISS + 1));
    let _ = Instant::ZERO;
}
