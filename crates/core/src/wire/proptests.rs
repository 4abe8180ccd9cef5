//! Properties over every packet kind: decoding inverts encoding, and no
//! input, random or a damaged real packet, makes the decoder panic.

use proptest::prelude::*;

use super::fixtures::fix_checksums;
use super::tcp::MAX_TCP_OPTIONS_LEN;
use super::{decode, decode_ethernet, encode, encode_ethernet};
use crate::packet::{
    Ecn, Frame, Icmp, IpPayload, Ipv4Header, L2Header, L2Kind, MacAddr, Packet, Udp, UdpMsg,
};
use crate::segment::{Segment, TcpFlags, MAX_SACK_BLOCKS};
use crate::seq::SeqNum;

fn arb_ip() -> impl Strategy<Value = Ipv4Header> {
    (
        any::<[u8; 4]>(),
        any::<[u8; 4]>(),
        any::<u8>(),
        any::<u16>(),
        0u8..4,
    )
        .prop_map(|(src, dst, ttl, ip_id, ecn)| Ipv4Header {
            src,
            dst,
            ttl,
            ip_id,
            ecn: Ecn::from_bits(ecn),
        })
}

fn arb_segment() -> impl Strategy<Value = Segment> {
    (
        (
            any::<u16>(),
            any::<u16>(),
            any::<u32>(),
            any::<u32>(),
            any::<u8>(),
            any::<u16>(),
        ),
        (
            proptest::option::of(any::<u16>()),
            proptest::option::of(0u8..15),
            any::<bool>(),
            proptest::option::of(any::<(u32, u32)>()),
        ),
        proptest::collection::vec(any::<(u32, u32)>(), 0..=MAX_SACK_BLOCKS),
        0u32..3000,
    )
        .prop_filter_map(
            "options fit in 40 bytes",
            |(tcp, opts, sacks, payload_len)| {
                let mut seg = Segment {
                    src_port: tcp.0,
                    dst_port: tcp.1,
                    seq: SeqNum(tcp.2),
                    ack: SeqNum(tcp.3),
                    flags: TcpFlags(tcp.4),
                    window: tcp.5,
                    mss: opts.0,
                    wscale: opts.1,
                    sack_permitted: opts.2,
                    timestamps: opts.3,
                    payload_len,
                    ..Default::default()
                };
                for (l, r) in sacks {
                    seg.push_sack(SeqNum(l), SeqNum(r));
                }
                (seg.options_len() as usize <= MAX_TCP_OPTIONS_LEN).then_some(seg)
            },
        )
}

fn arb_payload() -> impl Strategy<Value = IpPayload> {
    prop_oneof![
        arb_segment().prop_map(IpPayload::Tcp),
        (any::<u16>(), any::<u16>(), 0u32..3000).prop_map(|(src_port, dst_port, len)| {
            IpPayload::Udp(Udp {
                src_port,
                dst_port,
                msg: UdpMsg::Opaque { len },
            })
        }),
        (any::<bool>(), any::<u16>(), any::<u16>(), 0u32..3000).prop_map(|(req, id, seq, len)| {
            IpPayload::Icmp(if req {
                Icmp::EchoRequest { id, seq, len }
            } else {
                Icmp::EchoReply { id, seq, len }
            })
        }),
    ]
}

fn arb_packet() -> impl Strategy<Value = Packet> {
    (arb_ip(), proptest::option::of(arb_ip()), arb_payload())
        .prop_map(|(ip, outer, payload)| Packet { ip, outer, payload })
}

fn arb_frame() -> impl Strategy<Value = Frame> {
    (any::<[u8; 6]>(), any::<[u8; 6]>(), arb_packet()).prop_map(|(s, d, pkt)| Frame {
        l2: L2Header {
            src: MacAddr(s),
            dst: MacAddr(d),
            kind: L2Kind::Data,
        },
        pkt,
    })
}

proptest! {
    #[test]
    fn roundtrip(pkt in arb_packet()) {
        let mut buf = Vec::new();
        encode(&pkt, &mut buf).unwrap();
        prop_assert_eq!(buf.len() as u32, pkt.ip_len());
        prop_assert_eq!(decode(&buf).unwrap(), pkt);
    }

    #[test]
    fn ethernet_roundtrip(frame in arb_frame()) {
        let mut buf = Vec::new();
        encode_ethernet(&frame, &mut buf).unwrap();
        prop_assert_eq!(buf.len() as u32, 14 + frame.pkt.ip_len());
        prop_assert_eq!(decode_ethernet(&buf).unwrap(), frame);
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        for r in [decode(&bytes).err(), decode_ethernet(&bytes).err()].into_iter().flatten() {
            prop_assert!(r.offset() <= bytes.len(), "{}", r);
        }
    }

    /// Damaged real packets of every kind, with the checksums repaired half of
    /// the time so parsing gets past them to the options, lengths and types.
    #[test]
    fn mutated_packets_never_panic(
        frame in arb_frame(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
        fix in any::<bool>(),
        cut in any::<usize>(),
    ) {
        let mut buf = Vec::new();
        encode_ethernet(&frame, &mut buf).unwrap();
        for (at, val) in edits {
            let i = at % buf.len();
            buf[i] = val;
        }
        if fix {
            fix_checksums(&mut buf, 14);
        }
        let cut = cut % (buf.len() + 1);
        for bytes in [&buf[..], &buf[..cut]] {
            if let Err(e) = decode_ethernet(bytes) {
                prop_assert!(e.offset() <= bytes.len(), "{}", e);
                let _ = e.to_string();
            }
            if bytes.len() >= 14 {
                let ip = &bytes[14..];
                if let Err(e) = decode(ip) {
                    prop_assert!(e.offset() <= ip.len(), "{}", e);
                }
            }
        }
    }
}
