//! Properties over every packet kind: decoding inverts encoding, and no
//! input, random or a damaged real packet, makes the decoder panic.

use proptest::prelude::*;

use super::fixtures::fix_checksums;
use crate::segment::MAX_TCP_OPTIONS_LEN;
use super::{decode, decode_ethernet, encode, encode_ethernet};
use crate::mobileip::{
    AgentAdvert, BindingAck, BindingRequest, BindingUpdate, BindingWarning, Ident, MipMsg, RegReply, RegRequest,
    ReplyCode, MAX_ADV_COAS,
};
use crate::packet::{
    Ecn, Frame, Icmp, IpPayload, Ipv4Header, L2Header, L2Kind, MacAddr, Packet, Udp, UdpMsg,
};
use crate::segment::{Segment, TcpFlags, WiTcp, MAX_SACK_BLOCKS};
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
            proptest::option::of(any::<bool>()),
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
                    witcp: opts.4.map(|eho| if eho { WiTcp::Eho } else { WiTcp::Ehc }),
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

fn arb_ident() -> impl Strategy<Value = Ident> {
    any::<u64>().prop_map(Ident::from_u64)
}

/// Every Mobile IP message kind with arbitrary fields (reserved bits zero).
fn arb_mip() -> impl Strategy<Value = MipMsg> {
    let a = any::<[u8; 4]>;
    prop_oneof![
        (any::<u8>(), any::<u16>(), a(), a(), a(), arb_ident()).prop_map(|(flags, lifetime, h, ha, coa, id)| {
            MipMsg::RegRequest(RegRequest { flags, lifetime, home_addr: h, home_agent: ha, coa, id })
        }),
        (any::<u8>(), any::<u16>(), a(), a(), arb_ident()).prop_map(|(code, lifetime, h, ha, id)| {
            MipMsg::RegReply(RegReply { code: ReplyCode(code), lifetime, home_addr: h, home_agent: ha, id })
        }),
        (a(), a()).prop_map(|(h, c)| MipMsg::BindingWarning(BindingWarning { home_addr: h, correspondent: c })),
        (a(), arb_ident()).prop_map(|(h, id)| MipMsg::BindingRequest(BindingRequest { home_addr: h, id })),
        (any::<u8>(), any::<u16>(), a(), a(), arb_ident()).prop_map(|(flags, lifetime, h, coa, id)| {
            MipMsg::BindingUpdate(BindingUpdate { flags, lifetime, home_addr: h, coa, id })
        }),
        (any::<bool>(), a(), a(), arb_ident())
            .prop_map(|(nack, h, coa, id)| MipMsg::BindingAck(BindingAck { nack, home_addr: h, coa, id })),
    ]
}

fn arb_advert() -> impl Strategy<Value = AgentAdvert> {
    (
        (any::<bool>(), any::<u16>(), proptest::option::of(any::<([u8; 4], i32)>())),
        (any::<u16>(), any::<u16>(), any::<u8>()),
        proptest::collection::vec(any::<[u8; 4]>(), 0..=MAX_ADV_COAS),
    )
        .prop_map(|((mobility_only, ra_lifetime, router), (seq, reg_lifetime, flags), coas)| {
            let mut a = AgentAdvert { mobility_only, ra_lifetime, router, seq, reg_lifetime, flags, ..Default::default() };
            for c in coas {
                a.push_coa(c);
            }
            a
        })
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
        (any::<u16>(), arb_mip(), any::<bool>()).prop_map(|(port, msg, to_434)| {
            let (src_port, dst_port) = if to_434 { (port, 434) } else { (434, port) };
            IpPayload::Udp(Udp { src_port, dst_port, msg: UdpMsg::Mip(msg) })
        }),
        arb_advert().prop_map(|a| IpPayload::Icmp(Icmp::AgentAdvert(a))),
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
            proxied: false,
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
