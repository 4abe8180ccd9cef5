//! The supervisor host driven by hand: a fixed host F sending to mobile M
//! through this AP (wired interface 0, radio 1).

use airtcp_core::{Instant, IpPayload, Packet, Segment, SeqNum, TcpFlags, Udp, UdpMsg};

use super::*;

const F: [u8; 4] = [10, 0, 0, 1];
const M: [u8; 4] = [172, 16, 0, 2];
const PEER: [u8; 4] = [10, 0, 0, 9];
const WIRED: IfaceId = IfaceId(0);
const RADIO: IfaceId = IfaceId(1);
/// F's first data byte and M's sequence number.
const F_SEQ: u32 = 1_001;
const M_SEQ: u32 = 7_001;

fn t() -> Instant {
    Instant::from_millis(5)
}

fn agent() -> Mtcp {
    let mut a = Mtcp::new(MtcpConfig { wireless: RADIO, uplink: WIRED, peers: vec![PEER] });
    a.on_node_event(t(), NodeEvent::StationJoined { iface: RADIO, station: M });
    assert_eq!(drain(&mut a).len(), 1, "the move notice of the first association");
    a
}

/// F's data segment: bytes [off, off + len) of its stream.
fn data(off: u32, len: u32) -> Packet {
    let seg = Segment { src_port: 80, dst_port: 40_000, seq: SeqNum(F_SEQ + off), ack: SeqNum(M_SEQ), flags: TcpFlags::ACK, window: 65_535, payload_len: len, ..Default::default() };
    Packet::tcp(F, M, 63, 1, seg)
}

/// M's ACK of `acked` bytes of F's stream.
fn ack(acked: u32, window: u16) -> Packet {
    let seg = Segment { src_port: 40_000, dst_port: 80, seq: SeqNum(M_SEQ), ack: SeqNum(F_SEQ + acked), flags: TcpFlags::ACK, window, timestamps: Some((77, 99)), ..Default::default() };
    Packet::tcp(M, F, 64, 2, seg)
}

fn drain(a: &mut Mtcp) -> Vec<Injection> {
    std::iter::from_fn(|| a.poll_injection()).collect()
}

/// Data to M and M's ACK of it; returns the ACK as forwarded.
fn exchange(a: &mut Mtcp, acked: u32, window: u16) -> Segment {
    assert_eq!(a.on_packet(t(), Hook::Forward, RADIO, &mut data(acked - 1000, 1000)), Verdict::Accept);
    let mut p = ack(acked, window);
    assert_eq!(a.on_packet(t(), Hook::Forward, WIRED, &mut p), Verdict::Accept);
    *p.segment().unwrap()
}

#[test]
fn mobile_acks_leave_with_the_last_byte_withheld() {
    let mut a = agent();
    // The ACK of the handshake acknowledges no data: unchanged.
    let mut p = ack(0, 65_535);
    a.on_packet(t(), Hook::Forward, WIRED, &mut p);
    assert_eq!(p.segment().unwrap().ack, SeqNum(F_SEQ));
    assert_eq!(exchange(&mut a, 1000, 64_000).ack, SeqNum(F_SEQ + 999));
    assert_eq!(exchange(&mut a, 2000, 63_000).ack, SeqNum(F_SEQ + 1999));
    assert_eq!(a.counters.withheld, 2);
    assert!(drain(&mut a).is_empty());
}

#[test]
fn station_left_acks_the_withheld_byte_with_a_zero_window() {
    let mut a = agent();
    exchange(&mut a, 0 + 1000, 64_000);
    exchange(&mut a, 2000, 63_000);
    a.on_node_event(t(), NodeEvent::StationLeft { iface: RADIO, station: M });
    let out = drain(&mut a);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].at, InjectAt::Route);
    let p = &out[0].pkt;
    assert_eq!((p.ip.src, p.ip.dst), (M, F), "sent in the mobile's name");
    let s = p.segment().unwrap();
    assert_eq!((s.src_port, s.dst_port, s.seq, s.ack, s.window), (40_000, 80, SeqNum(M_SEQ), SeqNum(F_SEQ + 2000), 0));
    assert_eq!(s.timestamps, Some((77, 99)), "the mobile's last timestamps, so PAWS passes");
    assert!(a.is_frozen(M));
    assert_eq!(a.counters.zwa_sent, 1);
    // A second loss of the same station sends nothing more.
    a.on_node_event(t(), NodeEvent::StationLeft { iface: RADIO, station: M });
    assert!(drain(&mut a).is_empty());
}

#[test]
fn data_for_an_absent_mobile_is_not_answered() {
    // A second zero-window ACK would be a duplicate ACK to the sender.
    let mut a = agent();
    exchange(&mut a, 1000, 64_000);
    a.on_node_event(t(), NodeEvent::StationLeft { iface: RADIO, station: M });
    assert_eq!(drain(&mut a).len(), 1);
    for k in 1..5 {
        assert_eq!(a.on_packet(t(), Hook::Forward, RADIO, &mut data(k * 1000, 1000)), Verdict::Accept);
    }
    assert!(drain(&mut a).is_empty());
    assert_eq!(a.counters.zwa_sent, 1);
}

#[test]
fn move_notice_from_the_new_ap_reopens_the_window() {
    let mut a = agent();
    exchange(&mut a, 1000, 48_000);
    a.on_node_event(t(), NodeEvent::StationLeft { iface: RADIO, station: M });
    drain(&mut a);
    let mut notice = Packet {
        ip: airtcp_core::Ipv4Header { src: M, dst: PEER, ttl: 60, ..Default::default() },
        outer: None,
        payload: IpPayload::Udp(Udp { src_port: MOVE_NOTICE_PORT, dst_port: MOVE_NOTICE_PORT, msg: UdpMsg::Opaque { len: 12 } }),
    };
    assert_eq!(a.on_packet(t(), Hook::LocalIn, WIRED, &mut notice), Verdict::Stolen);
    let out = drain(&mut a);
    assert_eq!(out.len(), 1);
    let s = out[0].pkt.segment().unwrap();
    assert_eq!((s.ack, s.window), (SeqNum(F_SEQ + 1000), 48_000), "the withheld byte again, the mobile's window");
    assert!(!a.is_frozen(M));
    assert_eq!((a.counters.notices_received, a.counters.reopen_sent), (1, 1));
    // Another notice finds nothing frozen: consumed, no ACK.
    assert_eq!(a.on_packet(t(), Hook::LocalIn, WIRED, &mut notice), Verdict::Stolen);
    assert!(drain(&mut a).is_empty());
    assert_eq!(a.counters.notices_received, 2);
}

#[test]
fn new_ap_sends_a_move_notice_to_each_peer() {
    let mut a = Mtcp::new(MtcpConfig { wireless: RADIO, uplink: WIRED, peers: vec![PEER, [10, 0, 0, 13]] });
    a.on_node_event(t(), NodeEvent::StationJoined { iface: RADIO, station: M });
    let out = drain(&mut a);
    assert_eq!(out.iter().map(|i| (i.pkt.ip.src, i.pkt.ip.dst)).collect::<Vec<_>>(), vec![(M, PEER), (M, [10, 0, 0, 13])]);
    assert!(matches!(out[0].pkt.payload, IpPayload::Udp(Udp { dst_port: MOVE_NOTICE_PORT, .. })));
    assert_eq!(out[0].at, InjectAt::Egress(WIRED), "out of the wired side, where the station now is");
    // Another interface's station is not ours.
    a.on_node_event(t(), NodeEvent::StationJoined { iface: WIRED, station: [1, 2, 3, 4] });
    assert!(drain(&mut a).is_empty());
}

#[test]
fn rejoining_the_same_ap_reopens_at_once() {
    let mut a = agent();
    exchange(&mut a, 1000, 50_000);
    a.on_node_event(t(), NodeEvent::StationLeft { iface: RADIO, station: M });
    drain(&mut a);
    a.on_node_event(t(), NodeEvent::StationJoined { iface: RADIO, station: M });
    let out = drain(&mut a);
    assert_eq!(out.len(), 2, "the reopening ACK, then the move notice");
    let s = out[0].pkt.segment().unwrap();
    assert_eq!((s.ack, s.window), (SeqNum(F_SEQ + 1000), 50_000));
    // Data flows through again.
    assert_eq!(a.on_packet(t(), Hook::Forward, RADIO, &mut data(1000, 1000)), Verdict::Accept);
}

#[test]
fn the_fixed_hosts_fin_stops_withholding() {
    let mut a = agent();
    exchange(&mut a, 1000, 60_000);
    let mut fin = data(1000, 500);
    fin.segment_mut().unwrap().flags = TcpFlags::ACK | TcpFlags::FIN;
    a.on_packet(t(), Hook::Forward, RADIO, &mut fin);
    let mut p = ack(1501, 60_000);
    a.on_packet(t(), Hook::Forward, WIRED, &mut p);
    assert_eq!(p.segment().unwrap().ack, SeqNum(F_SEQ + 1501), "the FIN's ACK passes whole");
}

#[test]
fn a_mobile_that_sends_data_is_left_alone() {
    let mut a = agent();
    let mut p = ack(1000, 60_000);
    p.segment_mut().unwrap().payload_len = 300;
    a.on_packet(t(), Hook::Forward, WIRED, &mut p);
    assert_eq!(p.segment().unwrap().ack, SeqNum(F_SEQ + 1000));
    assert_eq!(a.counters.withheld, 0);
}

#[test]
fn packets_of_unknown_stations_pass_untouched() {
    let mut a = Mtcp::new(MtcpConfig { wireless: RADIO, uplink: WIRED, peers: vec![] });
    let mut p = ack(1000, 60_000);
    assert_eq!(a.on_packet(t(), Hook::Forward, WIRED, &mut p), Verdict::Accept);
    assert_eq!(p.segment().unwrap().ack, SeqNum(F_SEQ + 1000));
    assert_eq!(a.connections(M), 0);
}

#[test]
fn an_ack_that_withholding_would_leave_without_progress_passes_whole() {
    let mut a = agent();
    assert_eq!(exchange(&mut a, 1000, 64_000).ack, SeqNum(F_SEQ + 999));
    // The sender retransmits the withheld byte; the mobile's ACK of it
    // again, a byte short, would be a duplicate: it passes whole.
    let mut p = ack(1000, 64_000);
    a.on_packet(t(), Hook::Forward, WIRED, &mut p);
    assert_eq!(p.segment().unwrap().ack, SeqNum(F_SEQ + 1000));
    assert_eq!(a.counters.withheld, 1);
    // Later ACKs are withheld again.
    assert_eq!(exchange(&mut a, 3000, 64_000).ack, SeqNum(F_SEQ + 2999));
}
