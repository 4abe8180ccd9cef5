//! Reading captures: formats, link types, cut packets and bad input.

use crate::common;
use std::io::Cursor;

use airtcp_analyze::capture::for_each_packet;
use airtcp_analyze::decode::{decode, linktype};
use airtcp_analyze::model::Collect;
use airtcp_analyze::{analyze_reader, Options};
use common::*;

fn data_seg(len: usize) -> Seg {
    Seg { seq: 1000, ack: Some(1), win: 65535, len, ..Seg::default() }
}

fn run(bytes: Vec<u8>) -> (airtcp_analyze::CaptureSummary, Collect) {
    let mut sink = Collect::default();
    let s = analyze_reader(Cursor::new(bytes), &Options::default(), &mut sink).unwrap();
    (s, sink)
}

#[test]
fn every_link_type_gives_the_same_tcp_header() {
    let ip = ipv4(&data_seg(1200));
    for (link, frame) in [
        (linktype::ETHERNET, ethernet(&ip)),
        (linktype::RAW, ip.clone()),
        (linktype::IPV4, ip.clone()),
        (linktype::LINUX_SLL, sll(&ip)),
        (linktype::LINUX_SLL2, sll2(&ip)),
        (linktype::IEEE802_11_RADIOTAP, radiotap_qos(&ip, 0x10, false)),
    ] {
        let t = decode(link, &frame, frame.len() as u32).unwrap_or_else(|e| panic!("link {link}: {e:?}"));
        assert_eq!((t.seq, t.ack, t.payload_len, t.src.port, t.dst.port), (1000, 1, 1200, CPORT, SPORT), "link {link}");
    }
}

#[test]
fn ipv6_segment_is_decoded() {
    let ip = ipv6(&data_seg(500));
    let t = decode(linktype::ETHERNET, &ethernet(&ip), 0).unwrap();
    assert_eq!(t.payload_len, 500);
    assert_eq!(t.src.to_string_lossless(), "[2001:db8::1]:40000");
}

#[test]
fn header_only_capture_counts_bytes_from_the_ip_header() {
    // snaplen 54: Ethernet + IPv4 + TCP headers, no payload captured.
    let pkts: Vec<(u64, Vec<u8>)> = (0..3)
        .map(|i| (i * 1_000_000, ethernet(&ipv4(&Seg { seq: 1 + 1400 * i as u32, ..data_seg(1400) }))))
        .collect();
    let (s, c) = run(pcap(1, false, 54, &pkts));
    assert_eq!(s.tcp_packets, 3);
    assert_eq!(c.connections[0].fwd.bytes_sent, 4200);
}

#[test]
fn pcapng_interfaces_keep_their_link_type_and_time_resolution() {
    let mut ng = PcapNg::new();
    ng.iface(1, None); // Ethernet, microseconds
    ng.iface(101, Some(9)); // raw IP, nanoseconds
    let a = ethernet(&ipv4(&data_seg(10)));
    let b = ipv4(&Seg { seq: 1010, ..data_seg(10) });
    ng.packet(0, 1_500_000, &a, a.len() as u32); // 1.5 s in µs
    ng.packet(1, 2_000_000_123, &b, b.len() as u32); // 2.000000123 s in ns
    let mut times = Vec::new();
    let end = for_each_packet(Cursor::new(ng.0), |p| times.push((p.number, p.linktype, p.t_ns))).unwrap();
    assert_eq!(end.truncated, None);
    assert_eq!(times, vec![(1, 1, 1_500_000_000), (2, 101, 2_000_000_123)]);
}

#[test]
fn mac_repeats_of_a_frame_are_not_tcp_retransmissions() {
    let ip = ipv4(&data_seg(100));
    let pkts = vec![
        (0, radiotap_qos(&ip, 0x20, false)),
        (1_000, radiotap_qos(&ip, 0x20, true)),
        (2_000, radiotap_qos(&ip, 0x20, true)),
    ];
    let (s, c) = run(pcap(127, true, 65535, &pkts));
    assert_eq!(s.mac_retries, 2);
    assert_eq!(c.connections[0].fwd.retransmissions, 0);
}

#[test]
fn truncated_file_is_analysed_up_to_the_cut_and_says_where() {
    let pkts: Vec<(u64, Vec<u8>)> = (0..3).map(|i| (i, ipv4(&Seg { seq: 1 + 100 * i as u32, ..data_seg(100) }))).collect();
    let mut f = pcap(101, true, 65535, &pkts);
    let rec = 16 + pkts[0].1.len();
    f.truncate(24 + 2 * rec + 10);
    let (s, _) = run(f);
    assert_eq!(s.packets, 2);
    assert_eq!(
        s.truncated.as_deref(),
        Some(format!("packet 3 (byte offset {}): file ends inside this packet's record (truncated capture)", 24 + 2 * rec).as_str())
    );
}

#[test]
fn corrupt_block_is_an_error_naming_packet_and_offset() {
    let mut ng = PcapNg::new();
    ng.iface(101, None);
    let p = ipv4(&data_seg(10));
    ng.packet(0, 1, &p, p.len() as u32);
    let second = ng.0.len();
    ng.packet(0, 2, &p, p.len() as u32);
    // The second block's total length no longer matches its trailer.
    ng.0[second + 4] = 0x11;
    let e = analyze_reader(Cursor::new(ng.0), &Options::default(), &mut Collect::default()).unwrap_err();
    assert_eq!((e.packet, e.offset), (2, second as u64), "{e}");
}

#[test]
fn packet_naming_an_undescribed_interface_is_an_error() {
    let mut ng = PcapNg::new();
    let p = ipv4(&data_seg(10));
    let at = ng.0.len();
    ng.packet(3, 1, &p, p.len() as u32);
    let e = analyze_reader(Cursor::new(ng.0), &Options::default(), &mut Collect::default()).unwrap_err();
    assert_eq!(e.to_string(), format!("packet 1 (byte offset {at}): packet names interface 3 which was not described"));
}

#[test]
fn garbage_packet_inside_a_good_file_is_a_counted_warning() {
    let good = ipv4(&data_seg(100));
    let mut bad = good.clone();
    bad[0] = 0x45;
    bad[9] = 6;
    bad.truncate(30); // IPv4 header then 10 bytes of a 20-byte TCP header
    let pkts = vec![(0, good.clone()), (1, bad), (2, ipv4(&Seg { seq: 1100, ..data_seg(100) }))];
    let (s, c) = run(pcap(101, true, 65535, &pkts));
    assert_eq!((s.packets, s.tcp_packets, s.damaged, s.damaged_packets.clone()), (3, 2, 1, vec![2]));
    assert_eq!(c.connections[0].fwd.bytes_sent, 200);
}

#[test]
fn not_a_capture_is_an_error_at_offset_zero() {
    let e = analyze_reader(Cursor::new(b"hello, this is not a capture file".to_vec()), &Options::default(), &mut Collect::default())
        .unwrap_err();
    assert_eq!(e.to_string(), "packet 1 (byte offset 0): not a pcap or pcapng file (unknown magic number)");
}

#[test]
fn length_field_past_the_end_is_corrupt_not_a_cut() {
    let mut ng = PcapNg::new();
    ng.iface(101, None);
    let p = ipv4(&data_seg(10));
    let first = ng.0.len();
    ng.packet(0, 1, &p, p.len() as u32);
    ng.packet(0, 2, &p, p.len() as u32);
    ng.0[first + 4..first + 8].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
    let e = analyze_reader(Cursor::new(ng.0), &Options::default(), &mut Collect::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("packet 1 (byte offset {first}): corrupt block: its length field says 2147483632 bytes (more than any packet)")
    );
}
