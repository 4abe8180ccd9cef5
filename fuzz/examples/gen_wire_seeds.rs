//! Writes the hand-built part of `corpus/wire_decode` (every payload kind,
//! bare, tunnelled and in an Ethernet frame) with the project's own encoder:
//!
//!   cargo run --example gen_wire_seeds -- corpus/wire_decode

use airtcp_core::mobileip::{
    adv_flags, AgentAdvert, BindingUpdate, BindingWarning, Ident, MipMsg, RegReply, RegRequest, ReplyCode,
};
use airtcp_core::packet::{Icmp, IpPayload, Ipv4Header, Udp, UdpMsg};
use airtcp_core::{wire, CodeVector, Coded, CodedKind, Frame, L2Header, MacAddr, Packet, Segment, SeqNum, TcpFlags, WiTcp};

fn main() {
    let dir = std::env::args().nth(1).expect("usage: gen_wire_seeds DIR");
    let seg = Segment {
        src_port: 49152,
        dst_port: 5001,
        seq: SeqNum(1000),
        ack: SeqNum(2000),
        flags: TcpFlags::ACK,
        window: 65535,
        ..Default::default()
    };
    let tcp = Packet::tcp([10, 0, 0, 1], [10, 0, 1, 2], 64, 0x1234, seg);
    let mut syn = tcp;
    {
        let s = syn.segment_mut().unwrap();
        s.flags = TcpFlags::SYN;
        s.mss = Some(1460);
        s.wscale = Some(7);
        s.sack_permitted = true;
        s.timestamps = Some((1, 0));
    }
    let mut sack = tcp;
    {
        let s = sack.segment_mut().unwrap();
        s.timestamps = Some((5, 4));
        s.sack_blocks[0] = (SeqNum(3000), SeqNum(4000));
        s.sack_blocks[1] = (SeqNum(5000), SeqNum(6000));
        s.sack_blocks[2] = (SeqNum(7000), SeqNum(8000));
        s.sack_len = 3;
        s.payload_len = 40;
    }
    let udp = Packet {
        payload: IpPayload::Udp(Udp {
            src_port: 434,
            dst_port: 434,
            msg: UdpMsg::Opaque { len: 24 },
        }),
        ..tcp
    };
    let ping = Packet {
        payload: IpPayload::Icmp(Icmp::EchoRequest {
            id: 9,
            seq: 1,
            len: 16,
        }),
        ..tcp
    };
    let pong = Packet {
        payload: IpPayload::Icmp(Icmp::EchoReply {
            id: 9,
            seq: 1,
            len: 16,
        }),
        ..tcp
    };
    // Mobile IP (RFC 5944, draft-ietf-mobileip-optim) and a Wi-TCP EHO-ACK.
    let id = Ident { hi: 3_000_000_000, lo: 7 };
    let mip = |m| Packet {
        payload: IpPayload::Udp(Udp { src_port: 49200, dst_port: 434, msg: UdpMsg::Mip(m) }),
        ..tcp
    };
    let (home, ha, coa) = ([10, 0, 1, 2], [10, 0, 1, 1], [10, 0, 2, 1]);
    let reg_req = mip(MipMsg::RegRequest(RegRequest { flags: 0x02, lifetime: 1800, home_addr: home, home_agent: ha, coa, id }));
    let reply = RegReply { code: ReplyCode::HA_ID_MISMATCH, lifetime: 0, home_addr: home, home_agent: ha, id };
    let reg_rep = mip(MipMsg::RegReply(reply));
    let bu = mip(MipMsg::BindingUpdate(BindingUpdate { flags: 0x80, lifetime: 10, home_addr: home, coa, id }));
    let bw = mip(MipMsg::BindingWarning(BindingWarning { home_addr: home, correspondent: ha }));
    let mut adv = AgentAdvert {
        ra_lifetime: 3,
        router: Some((coa, 0)),
        seq: 256,
        reg_lifetime: 1800,
        flags: adv_flags::R | adv_flags::F,
        ..Default::default()
    };
    adv.push_coa(coa);
    let advert = Packet { payload: IpPayload::Icmp(Icmp::AgentAdvert(adv)), ..tcp };
    let mut eho = tcp;
    eho.segment_mut().unwrap().witcp = Some(WiTcp::Eho);
    let coded = |kind, code: &[u8], payload_len| Packet {
        payload: IpPayload::Coded(Coded {
            kind,
            flow: 3,
            batch: 7,
            tag: 1000,
            code: CodeVector::from_slice(code).unwrap(),
            payload_len,
        }),
        ..tcp
    };
    let coded_data = coded(CodedKind::Data, &[1, 2, 3, 4, 5, 6, 7, 8], 40);
    let batch_ack = coded(CodedKind::BatchAck, &[], 0);
    let fender_ack = coded(CodedKind::FenderAck, &[], 0);
    let outer = Ipv4Header {
        src: [192, 168, 0, 1],
        dst: [192, 168, 9, 9],
        ttl: 32,
        ip_id: 0xbeef,
        ..Default::default()
    };
    let mut n = 0;
    let mut buf = Vec::new();
    for (name, p) in [
        ("tcp_ack", tcp),
        ("tcp_syn_opts", syn),
        ("tcp_sack_ts", sack),
        ("udp", udp),
        ("icmp_req", ping),
        ("icmp_rep", pong),
        ("mip_reg_request", reg_req),
        ("mip_reg_reply", reg_rep),
        ("mip_binding_update", bu),
        ("mip_binding_warning", bw),
        ("icmp_agent_advert", advert),
        ("tcp_witcp_eho", eho),
        ("coded_data", coded_data),
        ("coded_batch_ack", batch_ack),
        ("coded_fender_ack", fender_ack),
    ] {
        let mut t = p;
        t.encapsulate(outer).unwrap();
        for (kind, p) in [("", p), ("_ipip", t)] {
            wire::encode(&p, &mut buf).unwrap();
            std::fs::write(format!("{dir}/gen_{name}{kind}.bin"), &buf).unwrap();
            let f = Frame {
                l2: L2Header {
                    src: MacAddr([2, 0, 0, 0, 0, 1]),
                    dst: MacAddr([2, 0, 0, 0, 0, 2]),
                    ..Default::default()
                },
                pkt: p,
            };
            wire::encode_ethernet(&f, &mut buf).unwrap();
            std::fs::write(format!("{dir}/gen_{name}{kind}_eth.bin"), &buf).unwrap();
            n += 2;
        }
    }
    println!("wrote {n} files to {dir}");
}
