//! A pcap written by `PcapWriter` opens in tshark with every IPv4 and TCP
//! checksum verified good and no malformed packet. Skipped (passes with a
//! note) when tshark is not installed.

use std::process::Command;

use airtcp_core::pcap::PcapWriter;
use airtcp_core::{Instant, Packet, Segment, SeqNum, TcpFlags};

fn tshark_fields(path: &std::path::Path, fields: &[&str]) -> Option<String> {
    let mut cmd = Command::new("tshark");
    cmd.arg("-r").arg(path);
    cmd.args([
        "-o",
        "tcp.check_checksum:TRUE",
        "-o",
        "ip.check_checksum:TRUE",
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
    let pkt = |src, dst, ip_id, seg| Packet {
        src,
        dst,
        ttl: 64,
        ip_id,
        seg,
    };
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

    let dir = std::env::temp_dir().join(format!("airtcp-tshark-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.pcap");
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
