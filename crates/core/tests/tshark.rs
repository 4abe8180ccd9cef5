//! A pcap written by `PcapWriter` opens in tshark with every IPv4, TCP, UDP
//! and ICMP checksum verified good and no malformed packet, for every packet
//! kind, raw and in Ethernet frames. Skipped (passes with a note) when tshark
//! is not installed.

use std::path::PathBuf;
use std::process::Command;

use airtcp_core::mobileip::{
    adv_flags, reg_flags, AgentAdvert, BindingAck, BindingRequest, BindingUpdate, BindingWarning, Ident, MipMsg,
    RegReply, RegRequest, ReplyCode,
};
use airtcp_core::pcap::{LinkType, PcapWriter};
use airtcp_core::{
    Frame, Icmp, Instant, IpPayload, Ipv4Header, L2Header, L2Kind, MacAddr, Packet, Segment,
    SeqNum, TcpFlags, Udp, UdpMsg,
};

fn tshark_fields(path: &std::path::Path, fields: &[&str]) -> Option<String> {
    let mut cmd = Command::new("tshark");
    cmd.arg("-r").arg(path);
    cmd.args([
        "-o",
        "tcp.check_checksum:TRUE",
        "-o",
        "ip.check_checksum:TRUE",
        "-o",
        "udp.check_checksum:TRUE",
        "-T",
        "fields",
    ]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().ok()?;
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap())
}

#[test]
fn tshark_reads_handshake_data_and_sack() {
    let a = [10, 0, 0, 1];
    let b = [10, 0, 1, 2];
    let base = Segment {
        src_port: 40000,
        dst_port: 5001,
        window: 65535,
        ..Default::default()
    };
    let pkt = |src, dst, ip_id, seg| Packet::tcp(src, dst, 64, ip_id, seg);
    let rev = |s: Segment| Segment {
        src_port: s.dst_port,
        dst_port: s.src_port,
        ..s
    };
    let mut pkts = vec![
        pkt(
            a,
            b,
            1,
            Segment {
                flags: TcpFlags::SYN,
                seq: SeqNum(100),
                mss: Some(1460),
                sack_permitted: true,
                timestamps: Some((1, 0)),
                wscale: Some(7),
                ..base
            },
        ),
        pkt(
            b,
            a,
            1,
            rev(Segment {
                flags: TcpFlags::SYN | TcpFlags::ACK,
                seq: SeqNum(5000),
                ack: SeqNum(101),
                mss: Some(1460),
                sack_permitted: true,
                timestamps: Some((9, 1)),
                wscale: Some(7),
                ..base
            }),
        ),
    ];
    for i in 0..3u32 {
        pkts.push(pkt(
            a,
            b,
            2 + i as u16,
            Segment {
                flags: TcpFlags::ACK | TcpFlags::PSH,
                seq: SeqNum(101 + i * 1448),
                ack: SeqNum(5001),
                timestamps: Some((2 + i, 9)),
                payload_len: 1448,
                ..base
            },
        ));
    }
    let mut sack = rev(Segment {
        flags: TcpFlags::ACK,
        seq: SeqNum(5001),
        ack: SeqNum(101 + 1448),
        timestamps: Some((10, 4)),
        ..base
    });
    sack.push_sack(SeqNum(101 + 2 * 1448), SeqNum(101 + 3 * 1448));
    pkts.push(pkt(b, a, 2, sack));

    let (dir, path) = capture_path("tcp");
    let file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut w = PcapWriter::new(file).unwrap();
    for (i, p) in pkts.iter().enumerate() {
        w.write(Instant::from_millis(10 * i as u64), p).unwrap();
    }
    w.finish().unwrap();

    let Some(out) = tshark_fields(
        &path,
        &[
            "ip.checksum.status",
            "tcp.checksum.status",
            "_ws.malformed",
            "tcp.len",
            "tcp.options.sack_le",
        ],
    ) else {
        eprintln!("tshark not installed: skipping");
        return;
    };
    let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), pkts.len(), "{out}");
    for r in &rows {
        // Wireshark's epan/proto.h: PROTO_CHECKSUM_E_BAD = 0, _GOOD = 1,
        // _UNVERIFIED = 2. No `_ws.malformed` field means no malformed packet.
        assert_eq!((r[0], r[1], r[2]), ("1", "1", ""), "{out}");
    }
    let lens: Vec<&str> = rows.iter().map(|r| r[3]).collect();
    assert_eq!(lens, ["0", "0", "1448", "1448", "1448", "0"]);
    // Relative sequence numbers: the SACK block starts 2 segments in.
    assert_eq!(rows[5][4], "2897");
    std::fs::remove_dir_all(&dir).ok();
}

/// A fresh directory per test (tests run in parallel) and a capture path in it.
fn capture_path(test: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("airtcp-tshark-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.pcap");
    (dir, path)
}

/// One packet of each kind, as a short exchange Wireshark can follow:
/// TCP data, a UDP datagram, an echo request and its reply, and IP-in-IP
/// carrying TCP (a Mobile IP home agent's tunnel) and an echo request.
/// With each, the `frame.protocols` tshark should report after the link layer.
fn every_kind() -> Vec<(Packet, &'static str)> {
    let (a, b) = ([10, 0, 0, 1], [10, 0, 1, 2]);
    let seg = Segment {
        src_port: 40000,
        dst_port: 5001,
        flags: TcpFlags::ACK | TcpFlags::PSH,
        seq: SeqNum(1),
        ack: SeqNum(1),
        window: 502,
        timestamps: Some((100, 50)),
        payload_len: 1448,
        ..Default::default()
    };
    let tcp = Packet::tcp(a, b, 64, 1, seg);
    let with = |ip_id: u16, payload| Packet {
        ip: Ipv4Header { ip_id, ..tcp.ip },
        outer: None,
        payload,
    };
    let udp = with(
        2,
        IpPayload::Udp(Udp {
            src_port: 50000,
            dst_port: 50001,
            msg: UdpMsg::Opaque { len: 37 },
        }),
    );
    let ping = with(
        3,
        IpPayload::Icmp(Icmp::EchoRequest {
            id: 0x77,
            seq: 1,
            len: 56,
        }),
    );
    let pong = Packet {
        ip: Ipv4Header {
            src: b,
            dst: a,
            ttl: 64,
            ip_id: 9,
            ..Default::default()
        },
        outer: None,
        payload: IpPayload::Icmp(Icmp::EchoReply {
            id: 0x77,
            seq: 1,
            len: 56,
        }),
    };
    let home_agent = Ipv4Header {
        src: [192, 168, 0, 1],
        dst: [192, 168, 9, 9],
        ttl: 63,
        ip_id: 0x4000,
        ..Default::default()
    };
    let mut tunnelled = Packet::tcp(
        a,
        b,
        63,
        4,
        Segment {
            seq: SeqNum(1449),
            payload_len: 1000,
            ..seg
        },
    );
    tunnelled.encapsulate(home_agent).unwrap();
    let mut tunnelled_ping = with(
        5,
        IpPayload::Icmp(Icmp::EchoRequest {
            id: 0x77,
            seq: 2,
            len: 0,
        }),
    );
    tunnelled_ping
        .encapsulate(Ipv4Header {
            ip_id: 0x4001,
            ..home_agent
        })
        .unwrap();
    #[allow(clippy::useless_vec)]
    let mut kinds = vec![
        (tcp, "ip:tcp:data"),
        (udp, "ip:udp:data"),
        (ping, "ip:icmp:data"),
        (pong, "ip:icmp:data"),
        (tunnelled, "ip:ip:tcp:data"),
        (tunnelled_ping, "ip:ip:icmp"),
    ];
    kinds.extend(mobile_ip_kinds(with));
    kinds
}

/// Mobile IP control traffic (RFC 5944, draft-ietf-mobileip-optim) and a
/// Wi-TCP EHO-ACK, each as tshark should name it.
fn mobile_ip_kinds(with: impl Fn(u16, IpPayload) -> Packet) -> Vec<(Packet, &'static str)> {
    let (home, ha, coa) = ([10, 0, 1, 2], [10, 0, 1, 1], [10, 0, 2, 1]);
    let id = Ident { hi: 3_000_000_000, lo: 42 };
    let mip = |ip_id, to_434: bool, m| {
        let (src_port, dst_port) = if to_434 { (49200, 434) } else { (434, 49200) };
        with(ip_id, IpPayload::Udp(Udp { src_port, dst_port, msg: UdpMsg::Mip(m) }))
    };
    let req = RegRequest { flags: reg_flags::T, lifetime: 1800, home_addr: home, home_agent: ha, coa, id };
    let reply = RegReply { code: ReplyCode::HA_ID_MISMATCH, lifetime: 0, home_addr: home, home_agent: ha, id };
    let mut adv = AgentAdvert {
        mobility_only: true,
        ra_lifetime: 9000,
        router: Some((coa, 0)),
        seq: 256,
        reg_lifetime: 1800,
        flags: adv_flags::R | adv_flags::F,
        ..Default::default()
    };
    adv.push_coa(coa);
    let mut eho = Packet::tcp(
        [10, 0, 1, 2],
        [10, 0, 0, 1],
        64,
        30,
        Segment {
            src_port: 5001,
            dst_port: 40000,
            flags: TcpFlags::ACK,
            seq: SeqNum(1),
            ack: SeqNum(1449),
            window: 502,
            timestamps: Some((51, 100)),
            witcp: Some(airtcp_core::WiTcp::Eho),
            ..Default::default()
        },
    );
    eho.ip.ip_id = 30;
    vec![
        (mip(20, true, MipMsg::RegRequest(req)), "ip:udp:mip"),
        (mip(21, false, MipMsg::RegReply(reply)), "ip:udp:mip"),
        (with(22, IpPayload::Icmp(Icmp::AgentAdvert(adv))), "ip:icmp"),
        (eho, "ip:tcp"),
    ]
}

/// The route-optimisation messages of draft-ietf-mobileip-optim-11 (types
/// 16-19), which never became an RFC: Wireshark's Mobile IP dissector names
/// them `mip` but knows no layout for them and flags them malformed.
fn route_optimisation_kinds(with: impl Fn(u16, IpPayload) -> Packet) -> Vec<Packet> {
    let (home, ha, coa) = ([10, 0, 1, 2], [10, 0, 1, 1], [10, 0, 2, 1]);
    let id = Ident { hi: 3_000_000_000, lo: 42 };
    let mip = |ip_id, m| with(ip_id, IpPayload::Udp(Udp { src_port: 434, dst_port: 434, msg: UdpMsg::Mip(m) }));
    let bu = BindingUpdate { flags: 0x80, lifetime: 60, home_addr: home, coa, id };
    vec![
        mip(23, MipMsg::BindingWarning(BindingWarning { home_addr: home, correspondent: ha })),
        mip(24, MipMsg::BindingRequest(BindingRequest { home_addr: home, id })),
        mip(25, MipMsg::BindingUpdate(bu)),
        mip(26, MipMsg::BindingAck(BindingAck { nack: false, home_addr: home, coa, id })),
    ]
}

fn base_packet() -> Packet {
    every_kind()[0].0
}

#[test]
fn tshark_reads_mobile_ip_fields_and_the_witcp_option() {
    let tcp = base_packet();
    let with = |ip_id: u16, payload| Packet { ip: Ipv4Header { ip_id, ..tcp.ip }, outer: None, payload };
    let kinds = mobile_ip_kinds(with);
    let mut frames: Vec<Frame> = kinds.iter().map(|&(pkt, _)| Frame { l2: L2Header::default(), pkt }).collect();
    frames.extend(route_optimisation_kinds(with).into_iter().map(|pkt| Frame { l2: L2Header::default(), pkt }));
    let (dir, path) = capture_path("mip");
    write_capture(&path, LinkType::Raw, &frames);
    let fields = [
        "frame.protocols",
        "udp.checksum.status",
        "mip.type",
        "mip.code",
        "mip.life",
        "mip.homeaddr",
        "mip.coa",
        "mip.ident",
        "icmp.mip.seq",
        "icmp.mip.life",
        "icmp.mip.coa",
        "tcp.options.experimental.exid",
        "tcp.options.experimental.data",
    ];
    let Some(out) = tshark_fields(&path, &fields) else {
        eprintln!("tshark not installed: skipping");
        return;
    };
    let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), frames.len(), "{out}");
    assert_eq!(&rows[0][..8], ["raw:ip:udp:mip", "1", "1", "", "1800", "10.0.1.2", "10.0.2.1", rows[0][7]], "{out}");
    // tshark reads the Identification as an NTP timestamp (RFC 5944 §5.7.1):
    // 3e9 seconds after 1900 is January 1995.
    assert!(rows[0][7].starts_with("Jan 25, 1995 05:20:00"), "Identification: {out}");
    assert_eq!(&rows[1][..5], ["raw:ip:udp:mip", "1", "3", "133", "0"], "{out}");
    assert_eq!(&rows[2][8..11], ["256", "1800", "10.0.2.1"], "{out}");
    assert_eq!(rows[3][11], "0x5754", "{out}");
    assert_eq!(rows[3][12], "01", "EHO: {out}");
    for r in &rows[4..] {
        assert_eq!((r[0], r[1]), ("raw:ip:udp:mip", "1"), "route optimisation on port 434: {out}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

fn write_capture(path: &std::path::Path, link: LinkType, frames: &[Frame]) {
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut w = PcapWriter::with_link(file, link, 65_535).unwrap();
    for (i, f) in frames.iter().enumerate() {
        w.write_frame(Instant::from_millis(i as u64), f).unwrap();
    }
    w.finish().unwrap();
}

/// Wireshark's epan/proto.h: PROTO_CHECKSUM_E_GOOD = 1; expert severities
/// PI_NOTE = 0x00400000 < PI_WARN = 0x00600000 < PI_ERROR = 0x00800000.
const CHECKSUM_GOOD: &str = "1";
const PI_WARN: u32 = 0x0060_0000;

/// Every checksum tshark computed is good, nothing is malformed and no
/// expert note is a warning or worse. `row` starts with [`CHECK_FIELDS`].
fn assert_clean(row: &[&str], out: &str) {
    let (ip, tcp, udp, icmp, malformed, expert) = (row[1], row[2], row[3], row[4], row[5], row[6]);
    assert!(
        !ip.is_empty() && ip.split(',').all(|s| s == CHECKSUM_GOOD),
        "IPv4 checksums: {out}"
    );
    let transport: Vec<&str> = [tcp, udp, icmp]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect();
    assert_eq!(
        transport,
        [CHECKSUM_GOOD],
        "one transport checksum, good: {out}"
    );
    assert_eq!(malformed, "", "{out}");
    for sev in expert.split(',').filter(|s| !s.is_empty()) {
        assert!(
            sev.parse::<u32>().unwrap() < PI_WARN,
            "expert severity {sev}: {out}"
        );
    }
}

const CHECK_FIELDS: [&str; 7] = [
    "frame.protocols",
    "ip.checksum.status",
    "tcp.checksum.status",
    "udp.checksum.status",
    "icmp.checksum.status",
    "_ws.malformed",
    "_ws.expert.severity",
];

#[test]
fn tshark_reads_every_packet_kind() {
    let kinds = every_kind();
    let frames: Vec<Frame> = kinds
        .iter()
        .map(|&(pkt, _)| Frame {
            l2: L2Header::default(),
            pkt,
        })
        .collect();
    let (dir, path) = capture_path("kinds");
    write_capture(&path, LinkType::Raw, &frames);

    let mut fields = CHECK_FIELDS.to_vec();
    fields.extend([
        "ip.len",
        "ip.proto",
        "udp.length",
        "icmp.type",
        "icmp.resp_to",
    ]);
    let Some(out) = tshark_fields(&path, &fields) else {
        eprintln!("tshark not installed: skipping");
        return;
    };
    let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), kinds.len(), "{out}");
    for (r, (pkt, protocols)) in rows.iter().zip(&kinds) {
        assert_eq!(r[0], format!("raw:{protocols}"), "{out}");
        assert_clean(r, &out);
        // tshark's IPv4 total lengths (outer first) are the simulator's.
        let lens: Vec<u32> = r[7].split(',').map(|s| s.parse().unwrap()).collect();
        let want = match pkt.outer {
            Some(_) => vec![pkt.ip_len(), pkt.inner_len()],
            None => vec![pkt.ip_len()],
        };
        assert_eq!(lens, want, "{out}");
    }
    assert_eq!(rows[4][8], "4,6", "IP-in-IP carrying TCP: {out}");
    assert_eq!(rows[1][9], "45", "UDP length 8 + 37: {out}");
    let icmp: Vec<(&str, &str)> = rows[2..4].iter().map(|r| (r[10], r[11])).collect();
    assert_eq!(
        icmp,
        [("8", ""), ("0", "3")],
        "the reply answers frame 3: {out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn tshark_reads_ethernet_capture() {
    let kinds = every_kind();
    let frames: Vec<Frame> = kinds
        .iter()
        .enumerate()
        .map(|(i, &(pkt, _))| {
            let (src, dst) = (
                MacAddr::local(1 + i as u32 % 2),
                MacAddr::local(2 - i as u32 % 2),
            );
            Frame {
                l2: L2Header {
                    src,
                    dst,
                    kind: L2Kind::Data,
                    proxied: false,
                },
                pkt,
            }
        })
        .collect();
    let (dir, path) = capture_path("ethernet");
    write_capture(&path, LinkType::Ethernet, &frames);

    let mut fields = CHECK_FIELDS.to_vec();
    fields.extend(["eth.src", "eth.dst", "eth.type", "frame.len"]);
    let Some(out) = tshark_fields(&path, &fields) else {
        eprintln!("tshark not installed: skipping");
        return;
    };
    let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), frames.len(), "{out}");
    for (i, (r, (pkt, protocols))) in rows.iter().zip(&kinds).enumerate() {
        assert_eq!(r[0], format!("eth:ethertype:{protocols}"), "{out}");
        assert_clean(r, &out);
        let (src, dst) = if i % 2 == 0 {
            ("02:00:00:00:00:01", "02:00:00:00:00:02")
        } else {
            ("02:00:00:00:00:02", "02:00:00:00:00:01")
        };
        assert_eq!((r[7], r[8], r[9]), (src, dst, "0x0800"), "{out}");
        assert_eq!(r[10], (14 + pkt.ip_len()).to_string(), "{out}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
