//! Wireshark's dissectors as the judge: a pcap of every frame kind must
//! decode with the right type/subtype, a good FCS, and the right fields.
//! Skipped (with a note) when `tshark` is not on PATH.

use std::process::Command;

use airtcp_core::packet::{IpPayload, Ipv4Header, Packet, Udp, UdpMsg};
use airtcp_core::{wire, Instant, MacAddr};
use airtcp_wifi::capture::{encode, write_pcap_header, write_record, RadioInfo, RATES_11G};
use airtcp_wifi::frame::{FrameKind, MgmtBody, WifiFrame};

const AP: MacAddr = MacAddr([0x02, 0x00, 0x00, 0x00, 0x00, 0x0a]);
const STA: MacAddr = MacAddr([0x02, 0x00, 0x00, 0x00, 0x00, 0x01]);
const OLD_AP: MacAddr = MacAddr([0x02, 0x00, 0x00, 0x00, 0x00, 0x0b]);

/// (kind, Wireshark's wlan.fc.type_subtype: type << 4 | subtype)
const FRAMES: [(FrameKind, u32); 15] = [
    (FrameKind::Beacon, 0x08),
    (FrameKind::ProbeReq, 0x04),
    (FrameKind::ProbeResp, 0x05),
    (FrameKind::Auth, 0x0b),
    (FrameKind::Auth, 0x0b),
    (FrameKind::AssocReq, 0x00),
    (FrameKind::AssocResp, 0x01),
    (FrameKind::ReassocReq, 0x02),
    (FrameKind::ReassocResp, 0x03),
    (FrameKind::Rts, 0x1b),
    (FrameKind::Cts, 0x1c),
    (FrameKind::Data, 0x20),
    (FrameKind::Ack, 0x1d),
    (FrameKind::Disassoc, 0x0a),
    (FrameKind::Deauth, 0x0c),
];

fn frame(kind: FrameKind, i: usize) -> WifiFrame {
    let from_ap = matches!(
        kind,
        FrameKind::Beacon
            | FrameKind::ProbeResp
            | FrameKind::AssocResp
            | FrameKind::ReassocResp
            | FrameKind::Cts
            | FrameKind::Ack
    );
    let (a1, a2) = if from_ap { (STA, AP) } else { (AP, STA) };
    let a1 = if kind == FrameKind::Beacon {
        MacAddr::BROADCAST
    } else {
        a1
    };
    let body = kind.is_mgmt().then(|| {
        Box::new(MgmtBody {
            ssid: "airtcp-net".into(),
            channel: 6,
            beacon_interval_tu: 100,
            auth_seq: if i == 3 { 1 } else { 2 },
            status: 0,
            reason: 8,
            aid: 1,
            current_ap: OLD_AP,
        })
    });
    WifiFrame {
        kind,
        duration_us: if matches!(kind, FrameKind::Rts) {
            300
        } else {
            44
        },
        addr1: a1,
        addr2: a2,
        addr3: AP,
        seq: i as u16 * 10,
        retry: false,
        to_ds: kind == FrameKind::Data,
        from_ds: false,
        body,
        payload_len: 0,
    }
}

fn tshark_available() -> bool {
    Command::new("tshark")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

#[test]
fn tshark_decodes_every_frame() {
    if !tshark_available() {
        println!("note: tshark not on PATH; skipping the Wireshark decoding check");
        return;
    }
    // A UDP datagram to carry in the data frame, with real checksums, between
    // ports no heuristic dissector claims (5000 would be read as TAPA).
    let pkt = Packet {
        ip: Ipv4Header {
            src: [10, 0, 0, 1],
            dst: [10, 0, 0, 2],
            ttl: 64,
            ip_id: 7,
            ..Default::default()
        },
        outer: None,
        payload: IpPayload::Udp(Udp {
            src_port: 45678,
            dst_port: 45679,
            msg: UdpMsg::Opaque { len: 12 },
        }),
    };
    let mut ip = Vec::new();
    wire::encode(&pkt, &mut ip).unwrap();

    let radio = RadioInfo {
        rate_500kbps: 108,
        freq_mhz: 2437,
        ofdm: true,
        five_ghz: false,
        signal_dbm: -55,
        noise_dbm: -92,
        short_preamble: false,
        rates: RATES_11G,
    };
    let mut file = Vec::new();
    write_pcap_header(&mut file, 65_535);
    let mut rec = Vec::new();
    for (i, &(kind, _)) in FRAMES.iter().enumerate() {
        rec.clear();
        encode(&frame(kind, i), &radio, &ip, &mut rec);
        write_record(&mut file, Instant::from_millis(i as u64), &rec, 65_535).unwrap();
    }
    let path =
        std::env::temp_dir().join(format!("airtcp-wifi-capture-{}.pcap", std::process::id()));
    std::fs::write(&path, &file).unwrap();

    let out = Command::new("tshark")
        .args(["-n", "-r"])
        .arg(&path)
        .args([
            // Validate the FCS (Wireshark 4.x; `wlan.check_fcs` only says
            // whether frames carry one, which radiotap's flag already does).
            "-o",
            "wlan.check_checksum:TRUE",
            "-o",
            "ip.check_checksum:TRUE",
            "-o",
            "udp.check_checksum:TRUE",
            "-T",
            "fields",
            "-E",
            "separator=|",
            "-E",
            "occurrence=f",
            "-e",
            "wlan.fc.type_subtype",
            "-e",
            "wlan.fcs.status",
            "-e",
            "wlan.ssid",
            "-e",
            "wlan.ds.current_channel",
            "-e",
            "wlan.fixed.aid",
            "-e",
            "wlan.fixed.current_ap",
            "-e",
            "wlan.fixed.reason_code",
            "-e",
            "ip.checksum.status",
            "-e",
            "udp.checksum.status",
            "-e",
            "radiotap.channel.freq",
            "-e",
            "radiotap.dbm_antsignal",
            "-e",
            "_ws.malformed",
            "-e",
            "_ws.expert.severity",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Set AIRTCP_KEEP_PCAP to keep the file for a look in Wireshark.
    if std::env::var_os("AIRTCP_KEEP_PCAP").is_none() {
        let _ = std::fs::remove_file(&path);
    }

    let rows: Vec<Vec<&str>> = stdout.lines().map(|l| l.split('|').collect()).collect();
    assert_eq!(rows.len(), FRAMES.len(), "{stdout}");
    // Wireshark 4.0 prints wlan.ssid as hex bytes, later versions as text.
    let ssid_ok = |s: &str| s == "airtcp-net" || s == "6169727463702d6e6574";
    for (i, (row, &(kind, subtype))) in rows.iter().zip(FRAMES.iter()).enumerate() {
        let ts = row[0];
        let ts = u32::from_str_radix(
            ts.trim_start_matches("0x"),
            if ts.starts_with("0x") { 16 } else { 10 },
        )
        .unwrap();
        assert_eq!(ts, subtype, "frame {i} {kind:?}: {row:?}");
        // 1 = Good (Wireshark's proto_checksum_vals).
        assert_eq!(row[1], "1", "frame {i} {kind:?} FCS: {row:?}");
        assert_eq!(row[9], "2437", "frame {i}: {row:?}");
        assert_eq!(row[10], "-55", "frame {i}: {row:?}");
        assert_eq!(row[11], "", "frame {i} {kind:?} malformed: {row:?}");
        match kind {
            FrameKind::Beacon | FrameKind::ProbeResp => {
                assert!(ssid_ok(row[2]), "{kind:?}: {row:?}");
                assert_eq!(row[3], "6", "{kind:?}: {row:?}");
            }
            FrameKind::ProbeReq | FrameKind::AssocReq => {
                assert!(ssid_ok(row[2]), "{kind:?}: {row:?}")
            }
            FrameKind::AssocResp | FrameKind::ReassocResp => {
                // Wireshark shows the AID field with its top bits (0xc001)
                // or the ID alone, depending on version.
                assert!(
                    row[4] == "0xc001" || row[4] == "0x0001" || row[4] == "1" || row[4] == "49153",
                    "{kind:?}: {row:?}"
                )
            }
            FrameKind::ReassocReq => {
                assert!(ssid_ok(row[2]), "{row:?}");
                assert_eq!(row[5], "02:00:00:00:00:0b", "{row:?}");
            }
            FrameKind::Disassoc | FrameKind::Deauth => {
                assert!(row[6] == "8" || row[6] == "0x0008", "{row:?}")
            }
            FrameKind::Data => {
                assert_eq!(row[7], "1", "IP checksum good: {row:?}");
                assert_eq!(row[8], "1", "UDP checksum good: {row:?}");
            }
            _ => {}
        }
        // No warnings or errors from any dissector (notes/chats are fine).
        for sev in row[12].split(',').filter(|s| !s.is_empty()) {
            let v: u32 = u32::from_str_radix(sev.trim_start_matches("0x"), 16).unwrap_or(0);
            assert!(
                v < 0x0060_0000,
                "frame {i} {kind:?} expert severity {sev}: {row:?}"
            );
        }
    }
}
