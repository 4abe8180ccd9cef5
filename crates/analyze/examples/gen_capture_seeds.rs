//! Writes the seed corpus of the `analyze_capture` fuzz target:
//! `cargo run -p airtcp-analyze --example gen_capture_seeds -- fuzz/corpus/analyze_capture`.
//! One small capture per format and link type the reader knows, each with
//! a short TCP exchange (handshake, data, a retransmission, SACK and
//! timestamp options, a zero window).

#[path = "../tests/it/common/mod.rs"]
mod common;

use common::*;
use etherparse::TcpOptionElement;

fn exchange() -> Vec<Seg> {
    let ts = |v, e| vec![TcpOptionElement::Noop, TcpOptionElement::Noop, TcpOptionElement::Timestamp(v, e)];
    vec![
        Seg { seq: 0, syn: true, win: 65535, opts: vec![TcpOptionElement::MaximumSegmentSize(1000), TcpOptionElement::WindowScale(2), TcpOptionElement::SelectiveAcknowledgementPermitted], ..Seg::default() },
        Seg { from_server: true, seq: 0, ack: Some(1), syn: true, win: 65535, opts: vec![TcpOptionElement::WindowScale(2), TcpOptionElement::SelectiveAcknowledgementPermitted], ..Seg::default() },
        Seg { seq: 1, ack: Some(1), win: 65535, len: 1000, opts: ts(10, 0), ..Seg::default() },
        Seg { seq: 1001, ack: Some(1), win: 65535, len: 1000, opts: ts(11, 0), ..Seg::default() },
        Seg { from_server: true, seq: 1, ack: Some(1), win: 65535, opts: vec![TcpOptionElement::SelectiveAcknowledgement((1001, 2001), [None, None, None])], ..Seg::default() },
        Seg { seq: 1, ack: Some(1), win: 65535, len: 1000, opts: ts(20, 0), ..Seg::default() },
        Seg { from_server: true, seq: 1, ack: Some(2001), win: 0, opts: ts(30, 10), ..Seg::default() },
        Seg { seq: 2001, ack: Some(1), win: 65535, len: 1, ..Seg::default() },
        Seg { from_server: true, seq: 1, ack: Some(2001), win: 4000, ..Seg::default() },
        Seg { seq: 2002, ack: Some(1), win: 65535, fin: true, ..Seg::default() },
    ]
}

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).expect("output directory"));
    std::fs::create_dir_all(&dir).unwrap();
    let ips: Vec<Vec<u8>> = exchange().iter().map(ipv4).collect();
    let at = |i: usize| i as u64 * 20_000_000;
    let framed = |f: &dyn Fn(&[u8]) -> Vec<u8>| -> Vec<(u64, Vec<u8>)> { ips.iter().enumerate().map(|(i, p)| (at(i), f(p))).collect() };
    let write = |name: &str, bytes: Vec<u8>| std::fs::write(dir.join(name), bytes).unwrap();
    write("gen_ethernet_micros.pcap", pcap(1, false, 65535, &framed(&ethernet)));
    write("gen_raw_nanos_snap54.pcap", pcap(101, true, 54, &framed(&|p| p.to_vec())));
    write("gen_sll.pcap", pcap(113, false, 65535, &framed(&sll)));
    write("gen_sll2.pcap", pcap(276, false, 65535, &framed(&sll2)));
    write("gen_radiotap.pcap", pcap(127, true, 65535, &framed(&|p| radiotap_qos(p, 0x30, false))));
    let v6: Vec<(u64, Vec<u8>)> = exchange().iter().enumerate().map(|(i, s)| (at(i), ethernet(&ipv6(s)))).collect();
    write("gen_ipv6.pcap", pcap(1, false, 65535, &v6));
    let mut ng = PcapNg::new();
    ng.iface(1, None);
    ng.iface(101, Some(9));
    for (i, p) in ips.iter().enumerate() {
        if i % 2 == 0 {
            let f = ethernet(p);
            ng.packet(0, at(i) / 1000, &f, f.len() as u32);
        } else {
            ng.packet(1, at(i), p, p.len() as u32);
        }
    }
    write("gen_two_interfaces.pcapng", ng.0);
}
