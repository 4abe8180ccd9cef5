//! Receive side: advertised window, SWS avoidance, delayed ACK, dupacks, SACK blocks.
use crate::common;
use common::*;

use airtcp_core::{Instant, SeqNum};
use airtcp_tcp::endpoint::TimerKind;
use airtcp_tcp::{Endpoint, Event, TcpConfig};

fn small_buf() -> TcpConfig {
    TcpConfig { rcv_buf: 4_000, delack_count: 1, ..plain() }
}

#[test]
fn advertised_window_shrinks_as_buffer_fills_then_zero() {
    let (mut ep, now) = established_receiver(small_buf());
    let mut wins = Vec::new();
    for i in 0..4 {
        data(&mut ep, now, i * 1000, 1000);
        let a = ep.poll_transmit(now).unwrap();
        assert_eq!(a.ack, peer_seq((i + 1) * 1000));
        wins.push(a.window);
    }
    assert_eq!(wins, vec![3000, 2000, 1000, 0]);
    assert_eq!(ep.recv_available(), 4000);
    // A segment beyond the zero window is dropped and answered with an ACK.
    data(&mut ep, now, 4000, 1000);
    let a = ep.poll_transmit(now).unwrap();
    assert_eq!((a.ack, a.window), (peer_seq(4000), 0));
    assert_eq!(ep.recv_available(), 4000);
}

#[test]
fn window_update_sent_when_read_opens_window_enough() {
    let (mut ep, now) = established_receiver(small_buf());
    for i in 0..4 {
        data(&mut ep, now, i * 1000, 1000);
    }
    drain(&mut ep, now);
    // Reading 500 bytes: below min(MSS, buf/2) = 1000 — SWS avoidance, no update.
    assert_eq!(ep.recv(500), Some((0, 500)));
    assert!(ep.poll_transmit(now).is_none());
    assert_eq!(ep.rcv_window(), 0);
    // Reading to 2000 bytes opens the window by 2000 = min(2·MSS, buf/2): update.
    assert_eq!(ep.recv(1500), Some((500, 1500)));
    let a = ep.poll_transmit(now).unwrap();
    assert_eq!((a.ack, a.window, a.payload_len), (peer_seq(4000), 2000, 0));
}

#[test]
fn never_shrinks_right_edge() {
    let cfg = TcpConfig { rcv_buf: 10_000, delack_count: 1, ..plain() };
    let (mut ep, now) = established_receiver(cfg);
    let mut edge = 0u64;
    for i in 0..10 {
        data(&mut ep, now, i * 1000, 1000);
        if i % 3 == 0 {
            ep.recv(700);
        }
        let a = ep.poll_transmit(now).unwrap();
        let e = (a.ack - SeqNum(PEER_ISS + 1)) as u64 + a.window as u64;
        assert!(e >= edge, "right edge moved left: {e} < {edge}");
        edge = e;
    }
}

#[test]
fn delayed_ack_on_every_second_segment() {
    let cfg = TcpConfig { delack_count: 2, ..plain() };
    let (mut ep, now) = established_receiver(cfg);
    data(&mut ep, now, 0, 1000);
    assert!(ep.poll_transmit(now).is_none());
    assert_eq!(events(&mut ep), vec![Event::Readable]);
    data(&mut ep, ms(11), 1000, 1000);
    let a = ep.poll_transmit(ms(11)).unwrap();
    assert_eq!(a.ack, peer_seq(2000));
    assert_eq!(timer(&ep, TimerKind::DelayedAck), None);
    data(&mut ep, ms(12), 2000, 1000);
    assert!(ep.poll_transmit(ms(12)).is_none());
    data(&mut ep, ms(13), 3000, 1000);
    assert_eq!(ep.poll_transmit(ms(13)).unwrap().ack, peer_seq(4000));
}

#[test]
fn delayed_ack_timer_fires_after_200ms() {
    let (mut ep, now) = established_receiver(plain());
    data(&mut ep, now, 0, 1000);
    assert_eq!(timer(&ep, TimerKind::DelayedAck), Some(now + dms(200)));
    assert_eq!(ep.poll_timeout(), Some(now + dms(200)));
    assert_eq!(fire(&mut ep), now + dms(200));
    let a = ep.poll_transmit(now + dms(200)).unwrap();
    assert_eq!(a.ack, peer_seq(1000));
}

#[test]
fn out_of_order_data_acked_at_once_and_hole_fill_too() {
    let (mut ep, now) = established_receiver(plain());
    data(&mut ep, now, 0, 1000);
    assert!(ep.poll_transmit(now).is_none());
    // Out of order: immediate duplicate ACK (which also covers the delayed one).
    data(&mut ep, now, 2000, 1000);
    let a = ep.poll_transmit(now).unwrap();
    assert_eq!(a.ack, peer_seq(1000));
    assert_eq!(a.sack_len, 0); // SACK not negotiated
    data(&mut ep, now, 3000, 1000);
    assert_eq!(ep.poll_transmit(now).unwrap().ack, peer_seq(1000));
    // Filling the hole: immediate cumulative ACK.
    data(&mut ep, now, 1000, 1000);
    assert_eq!(ep.poll_transmit(now).unwrap().ack, peer_seq(4000));
    assert_eq!(ep.recv(u64::MAX), Some((0, 4000)));
}

#[test]
fn sack_blocks_most_recent_first() {
    let cfg = TcpConfig { sack: true, ..plain() };
    let mut ep = airtcp_tcp::Endpoint::new(cfg, LOCAL, REMOTE, SeqNum(ISS)).unwrap();
    ep.listen();
    let syn = airtcp_core::Segment {
        seq: SeqNum(PEER_ISS),
        flags: airtcp_core::TcpFlags::SYN,
        mss: Some(1000),
        sack_permitted: true,
        ..from_peer()
    };
    ep.handle_segment(ms(0), &syn);
    assert!(ep.poll_transmit(ms(0)).unwrap().sack_permitted);
    ep.handle_segment(ms(1), &from_peer());
    let now = ms(2);
    data(&mut ep, now, 0, 1000);
    data(&mut ep, now, 2000, 1000);
    let a = ep.poll_transmit(now).unwrap();
    assert_eq!(a.sacks(), &[(peer_seq(2000), peer_seq(3000))]);
    data(&mut ep, now, 5000, 1000);
    let a = ep.poll_transmit(now).unwrap();
    assert_eq!(a.sacks(), &[(peer_seq(5000), peer_seq(6000)), (peer_seq(2000), peer_seq(3000))]);
    data(&mut ep, now, 3000, 1000);
    let a = ep.poll_transmit(now).unwrap();
    assert_eq!(a.sacks(), &[(peer_seq(2000), peer_seq(4000)), (peer_seq(5000), peer_seq(6000))]);
    data(&mut ep, now, 8000, 1000);
    data(&mut ep, now, 10_000, 1000);
    let a = ep.poll_transmit(now).unwrap();
    // No timestamps: up to 4 blocks.
    assert_eq!(
        a.sacks(),
        &[
            (peer_seq(10_000), peer_seq(11_000)),
            (peer_seq(8000), peer_seq(9000)),
            (peer_seq(2000), peer_seq(4000)),
            (peer_seq(5000), peer_seq(6000)),
        ]
    );
    assert_eq!(a.ack, peer_seq(1000));
    data(&mut ep, now, 1000, 1000);
    let a = ep.poll_transmit(now).unwrap();
    assert_eq!(a.ack, peer_seq(4000));
    assert_eq!(a.sacks().len(), 3);
}

#[test]
fn fin_acked_immediately_and_peer_closed_after_read() {
    let (mut ep, now) = established_receiver(plain());
    let seg = airtcp_core::Segment {
        seq: peer_seq(0),
        payload_len: 500,
        flags: airtcp_core::TcpFlags::ACK | airtcp_core::TcpFlags::FIN,
        ..from_peer()
    };
    ep.handle_segment(now, &seg);
    let a = ep.poll_transmit(now).unwrap();
    assert_eq!(a.ack, peer_seq(501));
    assert_eq!(ep.state(), airtcp_tcp::State::CloseWait);
    assert_eq!(events(&mut ep), vec![Event::Readable]);
    ep.recv(1000);
    assert_eq!(events(&mut ep), vec![Event::PeerClosed]);
}

/// A passive opener with timestamps negotiated; the peer's clock is at
/// 100 when it sends its SYN.
fn ts_receiver() -> (airtcp_tcp::Endpoint, airtcp_core::Instant) {
    use airtcp_core::{Segment, SeqNum, TcpFlags};
    let cfg = TcpConfig { timestamps: true, ..plain() };
    let mut ep = airtcp_tcp::Endpoint::new(cfg, LOCAL, REMOTE, SeqNum(ISS)).unwrap();
    ep.listen();
    let syn = Segment { seq: SeqNum(PEER_ISS), ack: SeqNum(0), flags: TcpFlags::SYN, mss: Some(1000), timestamps: Some((100, 0)), ..from_peer() };
    ep.handle_segment(ms(0), &syn);
    let synack = ep.poll_transmit(ms(0)).expect("SYN-ACK");
    let tsval = synack.timestamps.expect("timestamps agreed").0;
    ep.handle_segment(ms(10), &airtcp_core::Segment { timestamps: Some((110, tsval)), ..from_peer() });
    events(&mut ep);
    (ep, ms(10))
}

fn ts_data(ep: &mut airtcp_tcp::Endpoint, now: airtcp_core::Instant, off: u64, tsval: u32) -> Vec<airtcp_core::Segment> {
    let seg = airtcp_core::Segment { seq: peer_seq(off), payload_len: 1000, timestamps: Some((tsval, 0)), ..from_peer() };
    ep.handle_segment(now, &seg);
    ep.handle_timeout(now + dms(500)); // any delayed ACK goes
    drain(ep, now + dms(500))
}

/// The echo of a retransmission whose original arrived but whose ACK was
/// lost (a station's queue dropped at a disassociation): Linux's
/// `tcp_sequence` accepts a segment ending at `rcv_wup` (Last.ACK.sent),
/// so `tcp_replace_ts_recent` (RFC 7323 §4.3, SEG.SEQ <= Last.ACK.sent)
/// stores its TSval, and the duplicate ACK echoes the retransmission. An
/// echo of the last segment before the loss would tell the sender's Eifel
/// check (`tcp_packet_delayed`) that the original was only delayed.
#[test]
fn duplicate_ending_at_last_ack_sent_updates_ts_recent() {
    let (mut ep, now) = ts_receiver();
    let acks = ts_data(&mut ep, now, 0, 200);
    assert_eq!(acks.last().unwrap().timestamps.unwrap().1, 200);
    // The ACK of [0, 1000) is lost; the retransmission comes at the peer's 900.
    let acks = ts_data(&mut ep, ms(2_000), 0, 900);
    let dup = acks.last().expect("a duplicate ACK");
    assert_eq!(dup.ack, peer_seq(1000));
    assert_eq!(dup.timestamps.unwrap().1, 900, "echoes the retransmission");
}

/// An older duplicate (ending below Last.ACK.sent) fails `tcp_sequence`:
/// TS.Recent keeps the last in-order segment's TSval.
#[test]
fn older_duplicate_leaves_ts_recent() {
    let (mut ep, now) = ts_receiver();
    ts_data(&mut ep, now, 0, 200);
    ts_data(&mut ep, ms(600), 1000, 300);
    let acks = ts_data(&mut ep, ms(2_000), 0, 900);
    let dup = acks.last().expect("a duplicate ACK");
    assert_eq!(dup.ack, peer_seq(2000));
    assert_eq!(dup.timestamps.unwrap().1, 300);
}

/// An application that reads every segment as it arrives; the ACKs the
/// receiver sends for eight 1000-byte segments (MSS 1000).
fn acks_with_reader(cfg: TcpConfig) -> Vec<u64> {
    let (mut ep, _) = established_receiver(cfg);
    let mut acks = Vec::new();
    for i in 0..8u64 {
        data(&mut ep, ms(10 + i), i * 1000, 1000);
        while ep.recv(u64::MAX).is_some() {}
        while let Some(a) = ep.poll_transmit(ms(10 + i)) {
            acks.push((a.ack - SeqNum(PEER_ISS + 1)) as u64);
        }
    }
    acks
}

#[test]
fn delack_count_above_two_is_masked_by_window_updates_while_the_reader_keeps_up() {
    let base = TcpConfig { mss: 1000, rcv_buf: 64_000, delack_count: 4, ..plain() };
    // The read after every second segment opens the window by 2·MSS: an ACK
    // at once, as Linux sends; delack_count = 4 never comes into play.
    assert_eq!(acks_with_reader(base.clone()), vec![2000, 4000, 6000, 8000]);
    // Without read-triggered window updates (ns-2's sinks) every fourth.
    assert_eq!(acks_with_reader(TcpConfig { window_update_ack: false, ..base }), vec![4000, 8000]);
}

/// In-order segments `offs` (of 1000 bytes) arriving at `t`: how many ACKs
/// the receiver sends at once.
fn acks_at(ep: &mut Endpoint, t: Instant, offs: &[u64]) -> usize {
    offs.iter()
        .map(|&i| {
            data(ep, t, i * 1000, 1000);
            while ep.recv(u64::MAX).is_some() {}
            drain(ep, t).len()
        })
        .sum()
}

#[test]
fn data_after_a_gap_longer_than_the_rto_is_quick_acked() {
    let (mut ep, now) = established_receiver(TcpConfig { idle_quickack: true, window_update_ack: false, ..plain() });
    assert_eq!(acks_at(&mut ep, now + dms(10), &[0, 1, 2, 3]), 2, "pairs");
    // 2 s later (the RTO is 1 s): every segment at once, for a while.
    assert_eq!(acks_at(&mut ep, now + dms(2_010), &[4, 5, 6, 7]), 4);
}

#[test]
fn without_idle_quickack_data_after_a_gap_waits_for_its_pair() {
    let (mut ep, now) = established_receiver(TcpConfig { idle_quickack: false, window_update_ack: false, ..plain() });
    assert_eq!(acks_at(&mut ep, now + dms(10), &[0, 1, 2, 3]), 2);
    assert_eq!(acks_at(&mut ep, now + dms(2_010), &[4, 5, 6, 7]), 2);
}

#[test]
fn a_gap_shorter_than_the_rto_changes_nothing() {
    let (mut ep, now) = established_receiver(TcpConfig { idle_quickack: true, window_update_ack: false, ..plain() });
    assert_eq!(acks_at(&mut ep, now + dms(10), &[0, 1, 2, 3]), 2);
    assert_eq!(acks_at(&mut ep, now + dms(510), &[4, 5, 6, 7]), 2);
}
