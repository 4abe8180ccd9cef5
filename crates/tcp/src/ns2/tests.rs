//! Unit tests of the ns-2 agents, each against a rule of tcp.cc,
//! tcp-reno.cc, tcp-newreno.cc or tcp-sink.cc.

use airtcp_core::{Duration, Instant};

use super::*;

fn at_ms(ms: u64) -> Instant {
    Instant::ZERO + Duration::from_millis(ms)
}

fn sender(v: Ns2Variant) -> Ns2Sender {
    let mut c = Ns2Config::new(v, Ns2SinkKind::TcpSink);
    c.window = 100;
    Ns2Sender::new(c).unwrap()
}

fn sent(s: &mut Ns2Sender) -> Vec<i64> {
    std::iter::from_fn(|| s.poll_transmit()).map(|o| o.seqno).collect()
}

/// Start an FTP source and ACK the SYN at 40 ms.
fn established(v: Ns2Variant) -> Ns2Sender {
    let mut s = sender(v);
    s.offer(at_ms(0), TCP_MAXSEQ);
    assert_eq!(sent(&mut s), vec![0]);
    s.handle_ack(at_ms(40), 0);
    assert_eq!(s.poll_event(), Some(Ns2Event::Connected));
    s
}

#[test]
fn syn_holds_window_at_one_then_window_init_opens() {
    let mut s = sender(Ns2Variant::Tahoe);
    s.offer(at_ms(0), TCP_MAXSEQ);
    let first: Vec<Ns2Out> = std::iter::from_fn(|| s.poll_transmit()).collect();
    assert_eq!(first, vec![Ns2Out { seqno: 0, bytes: 40, retransmission: false }]);
    s.handle_ack(at_ms(40), 0);
    assert_eq!(sent(&mut s), vec![1, 2]);
    assert_eq!(s.cwnd(), 2.0);
}

#[test]
fn first_rto_is_rtxcur_init_and_a_timeout_backs_it_off() {
    let mut s = sender(Ns2Variant::Reno);
    s.offer(at_ms(0), TCP_MAXSEQ);
    sent(&mut s);
    assert_eq!(s.poll_timeout(), Some(at_ms(3000)));
    s.handle_timeout(at_ms(3000));
    assert_eq!(sent(&mut s), vec![0]);
    assert_eq!(s.poll_event(), Some(Ns2Event::Timeout { rto: Duration::from_secs(3), backoff: 2 }));
    assert_eq!(s.poll_timeout(), Some(at_ms(9000)));
    assert_eq!(s.stats().timeouts, 1);
}

#[test]
fn timed_ack_clears_backoff_and_sets_tick_rto() {
    let s = established(Ns2Variant::Tahoe);
    // 40 ms from a send at 0 with boot_time 0: 4 ticks; RTO = 8 ticks, below minrto_.
    assert_eq!(s.rtt().t_rtt, 4);
    assert_eq!(s.rto(), Duration::from_millis(200));
}

/// Packets 1..=n sent and acknowledged up to `acked`, then duplicates.
fn loss_of_next(v: Ns2Variant) -> Ns2Sender {
    let mut s = established(v);
    sent(&mut s);
    // Grow the window: ACK 1..=6 one at a time.
    for a in 1..=6 {
        s.handle_ack(at_ms(80 + a as u64), a);
        sent(&mut s);
    }
    s
}

#[test]
fn tahoe_fast_retransmit_restarts_from_one_packet() {
    let mut s = loss_of_next(Ns2Variant::Tahoe);
    for _ in 0..2 {
        s.handle_ack(at_ms(100), 6);
    }
    s.handle_ack(at_ms(101), 6);
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(s.cwnd(), 1.0);
    // Two new packets by limited transmit on the first two duplicates,
    // then the retransmission alone: the window is one packet.
    let out = sent(&mut s);
    assert_eq!(out.len(), 3, "{out:?}");
    assert!(out[0] > 7 && out[1] == out[0] + 1);
    assert_eq!(out[2], 7);
}

#[test]
fn reno_inflates_by_duplicates_and_deflates_on_new_ack() {
    let mut s = loss_of_next(Ns2Variant::Reno);
    let (_, maxseq) = s.seqnos();
    let cwnd = s.cwnd();
    for _ in 0..3 {
        s.handle_ack(at_ms(100), 6);
    }
    assert_eq!(s.poll_event(), Some(Ns2Event::FastRetransmit { seqno: 7 }));
    let half = (cwnd.min(100.0) / 2.0).max(1.0);
    assert_eq!(s.cwnd(), half);
    assert!(sent(&mut s).contains(&7));
    // Each further duplicate inflates the window by one packet.
    for _ in 0..(half as i64 + 3) {
        s.handle_ack(at_ms(101), 6);
    }
    let out = sent(&mut s);
    assert!(out.iter().all(|&k| k > maxseq), "new data only: {out:?}");
    assert!(!out.is_empty());
    s.handle_ack(at_ms(150), maxseq);
    assert_eq!(s.cwnd(), half + 1.0 / half);
}

#[test]
fn bugfix_blocks_a_second_fast_retransmit_before_recover_is_passed() {
    let mut s = loss_of_next(Ns2Variant::Reno);
    for _ in 0..3 {
        s.handle_ack(at_ms(100), 6);
    }
    assert_eq!(s.stats().fast_retransmits, 1);
    // A new ACK below recover_ ends Reno's recovery; three more
    // duplicates of it must not start another one.
    s.handle_ack(at_ms(120), 8);
    for _ in 0..3 {
        s.handle_ack(at_ms(121), 8);
    }
    assert_eq!(s.stats().fast_retransmits, 1);
}

#[test]
fn newreno_partial_ack_retransmits_the_next_hole() {
    let mut s = loss_of_next(Ns2Variant::NewReno);
    for _ in 0..3 {
        s.handle_ack(at_ms(100), 6);
    }
    sent(&mut s);
    s.handle_ack(at_ms(140), 9);
    let out = sent(&mut s);
    assert_eq!(out.first(), Some(&10));
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(s.highest_ack(), 9);
}

#[test]
fn tcpsink_acks_the_highest_in_order_packet() {
    let c = Ns2Config::new(Ns2Variant::Reno, Ns2SinkKind::TcpSink);
    let mut k = Ns2Sink::new(&c);
    for seq in [0, 1, 3, 4, 2] {
        k.handle_packet(at_ms(0), seq);
    }
    let acks: Vec<i64> = std::iter::from_fn(|| k.poll_ack()).collect();
    assert_eq!(acks, vec![0, 1, 1, 1, 4]);
    assert_eq!(k.stats().bytes_delivered, 4000);
}

#[test]
fn delack_sink_holds_one_ack_for_interval_and_acks_pairs_at_once() {
    let c = Ns2Config::new(Ns2Variant::Reno, Ns2SinkKind::DelAck);
    let mut k = Ns2Sink::new(&c);
    k.handle_packet(at_ms(0), 0);
    assert_eq!(k.poll_ack(), Some(0), "the SYN is acknowledged at once");
    k.handle_packet(at_ms(10), 1);
    assert_eq!(k.poll_ack(), None);
    assert_eq!(k.poll_timeout(), Some(at_ms(110)));
    k.handle_packet(at_ms(11), 2);
    assert_eq!(k.poll_ack(), Some(2));
    k.handle_packet(at_ms(20), 3);
    k.handle_timeout(at_ms(120));
    assert_eq!(k.poll_ack(), Some(3));
    // Out of order and gap-filling packets are acknowledged at once.
    k.handle_packet(at_ms(130), 5);
    assert_eq!(k.poll_ack(), Some(3));
    k.handle_packet(at_ms(131), 4);
    assert_eq!(k.poll_ack(), Some(5));
}
