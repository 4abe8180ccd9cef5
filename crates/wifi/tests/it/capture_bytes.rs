//! Byte-exact checks of the radiotap + 802.11 encoding.

use airtcp_core::MacAddr;
use airtcp_wifi::capture::{
    crc32, encode, frame_control, frame_control_type, mpdu_len, mpdu_len_with_rates, RadioInfo,
    LINKTYPE_IEEE802_11_RADIOTAP, LLC_SNAP_IPV4, RADIOTAP_LEN, RATES_11A, RATES_11B, RATES_11G,
};
use airtcp_wifi::frame::{self, FrameKind, MgmtBody, WifiFrame};

const ALL: [FrameKind; 14] = [
    FrameKind::Data,
    FrameKind::Ack,
    FrameKind::Rts,
    FrameKind::Cts,
    FrameKind::Beacon,
    FrameKind::ProbeReq,
    FrameKind::ProbeResp,
    FrameKind::Auth,
    FrameKind::AssocReq,
    FrameKind::AssocResp,
    FrameKind::ReassocReq,
    FrameKind::ReassocResp,
    FrameKind::Disassoc,
    FrameKind::Deauth,
];

const A1: MacAddr = MacAddr([0x00, 0x11, 0x22, 0x33, 0x44, 0x55]);
const A2: MacAddr = MacAddr([0x02, 0x00, 0x00, 0x00, 0x00, 0x01]);
const A3: MacAddr = MacAddr([0x02, 0x00, 0x00, 0x00, 0x00, 0x02]);

fn radio_b() -> RadioInfo {
    RadioInfo {
        rate_500kbps: 22,
        freq_mhz: 2437,
        ofdm: false,
        five_ghz: false,
        signal_dbm: -60,
        noise_dbm: -95,
        short_preamble: true,
        rates: RATES_11B,
    }
}

fn frame(kind: FrameKind) -> WifiFrame {
    let body = kind.is_mgmt().then(|| {
        Box::new(MgmtBody {
            ssid: "airtcp".into(),
            channel: 6,
            beacon_interval_tu: 100,
            auth_seq: 2,
            status: 0,
            reason: 3,
            aid: 5,
            current_ap: A3,
        })
    });
    WifiFrame {
        kind,
        duration_us: 44,
        addr1: A1,
        addr2: A2,
        addr3: A3,
        seq: 0x123,
        retry: false,
        to_ds: false,
        from_ds: false,
        body,
        payload_len: 0,
    }
}

#[test]
fn linktype_is_radiotap() {
    assert_eq!(LINKTYPE_IEEE802_11_RADIOTAP, 127);
}

#[test]
fn frame_control_type_subtype_per_table_9_1() {
    // Byte 0 = subtype << 4 | type << 2 | protocol version 0.
    let expect = [
        (FrameKind::AssocReq, 0x00),
        (FrameKind::AssocResp, 0x10),
        (FrameKind::ReassocReq, 0x20),
        (FrameKind::ReassocResp, 0x30),
        (FrameKind::ProbeReq, 0x40),
        (FrameKind::ProbeResp, 0x50),
        (FrameKind::Beacon, 0x80),
        (FrameKind::Disassoc, 0xa0),
        (FrameKind::Auth, 0xb0),
        (FrameKind::Deauth, 0xc0),
        (FrameKind::Rts, 0xb4),
        (FrameKind::Cts, 0xc4),
        (FrameKind::Ack, 0xd4),
        (FrameKind::Data, 0x08),
    ];
    assert_eq!(expect.len(), ALL.len());
    for (kind, b0) in expect {
        assert_eq!(frame_control_type(kind), b0, "{kind:?}");
        let mut out = Vec::new();
        encode(&frame(kind), &radio_b(), &[], &mut out);
        assert_eq!(out[RADIOTAP_LEN..RADIOTAP_LEN + 2], [b0, 0x00], "{kind:?}");
    }
}

#[test]
fn frame_control_flags() {
    let mut f = frame(FrameKind::Data);
    f.to_ds = true;
    f.retry = true;
    assert_eq!(frame_control(&f), [0x08, 0x09]);
    f.to_ds = false;
    f.from_ds = true;
    f.retry = false;
    assert_eq!(frame_control(&f), [0x08, 0x02]);
    // DS bits are data-only; Retry is not.
    let mut m = frame(FrameKind::Auth);
    m.to_ds = true;
    m.from_ds = true;
    m.retry = true;
    assert_eq!(frame_control(&m), [0xb0, 0x08]);
}

#[test]
fn crc32_check_value_and_fcs() {
    // The CRC-32 check value (e.g. the "CRC RevEng" catalogue, CRC-32/ISO-HDLC).
    assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    assert_eq!(crc32(b""), 0);

    // An ACK to 00:11:22:33:44:55 with duration 0: FC d4 00, duration 00 00,
    // RA; FCS computed independently (Python zlib.crc32) = 0x4bf2ea71,
    // sent least significant byte first.
    let mut ack = frame(FrameKind::Ack);
    ack.duration_us = 0;
    let mut out = Vec::new();
    encode(&ack, &radio_b(), &[], &mut out);
    assert_eq!(
        out[RADIOTAP_LEN..],
        [0xd4, 0x00, 0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x71, 0xea, 0xf2, 0x4b]
    );

    // Every kind: the last 4 bytes are the CRC of the MPDU before them.
    for kind in ALL {
        let mut out = Vec::new();
        encode(&frame(kind), &radio_b(), &[0x45, 0, 0, 20], &mut out);
        let mpdu = &out[RADIOTAP_LEN..];
        let (body, fcs) = mpdu.split_at(mpdu.len() - 4);
        assert_eq!(fcs, crc32(body).to_le_bytes(), "{kind:?}");
    }
}

#[test]
fn radiotap_header_layout_and_alignment() {
    let mut out = vec![0xee; 3]; // encode appends: alignment counts from the header start
    encode(&frame(FrameKind::Ack), &radio_b(), &[], &mut out);
    let rt = &out[3..];
    assert_eq!(rt[0], 0, "version");
    assert_eq!(rt[1], 0, "pad");
    assert_eq!(u16::from_le_bytes([rt[2], rt[3]]) as usize, RADIOTAP_LEN);
    // Flags(1) | Rate(2) | Channel(3) | dBm signal(5) | dBm noise(6)
    assert_eq!(
        u32::from_le_bytes([rt[4], rt[5], rt[6], rt[7]]),
        0x0000_006e
    );
    assert_eq!(rt[8], 0x10 | 0x02, "flags: FCS at end, short preamble");
    assert_eq!(rt[9], 22, "rate 11 Mb/s");
    // Channel: u16 frequency and u16 flags at an even offset.
    assert_eq!(10 % 2, 0);
    assert_eq!(u16::from_le_bytes([rt[10], rt[11]]), 2437);
    assert_eq!(
        u16::from_le_bytes([rt[12], rt[13]]),
        0x0080 | 0x0020,
        "2 GHz, CCK"
    );
    assert_eq!(rt[14] as i8, -60);
    assert_eq!(rt[15] as i8, -95);

    let a = RadioInfo {
        rate_500kbps: 12,
        freq_mhz: 5180,
        ofdm: true,
        five_ghz: true,
        short_preamble: false,
        rates: RATES_11A,
        ..radio_b()
    };
    let mut out = Vec::new();
    encode(&frame(FrameKind::Ack), &a, &[], &mut out);
    assert_eq!(out[8], 0x10, "flags: FCS only");
    assert_eq!(u16::from_le_bytes([out[10], out[11]]), 5180);
    assert_eq!(
        u16::from_le_bytes([out[12], out[13]]),
        0x0100 | 0x0040,
        "5 GHz, OFDM"
    );
}

#[test]
fn headers_and_bodies() {
    // Data: 24-byte header, sequence control = seq << 4, LLC/SNAP, payload.
    let payload = [0x45u8, 0x00, 0x00, 0x14, 1, 2, 3];
    let mut f = frame(FrameKind::Data);
    f.to_ds = true;
    let mut out = Vec::new();
    encode(&f, &radio_b(), &payload, &mut out);
    let m = &out[RADIOTAP_LEN..];
    assert_eq!(m[0..4], [0x08, 0x01, 44, 0]);
    assert_eq!(m[4..10], A1.0);
    assert_eq!(m[10..16], A2.0);
    assert_eq!(m[16..22], A3.0);
    assert_eq!(m[22..24], [0x30, 0x12]);
    assert_eq!(m[24..32], LLC_SNAP_IPV4);
    assert_eq!(m[32..39], payload);
    assert_eq!(m.len() as u32, frame::data_mpdu_len(payload.len() as u32));

    // RTS: RA, TA; CTS: RA only.
    let mut out = Vec::new();
    encode(&frame(FrameKind::Rts), &radio_b(), &[], &mut out);
    let m = &out[RADIOTAP_LEN..];
    assert_eq!(m.len() as u32, frame::RTS_LEN);
    assert_eq!(m[4..10], A1.0);
    assert_eq!(m[10..16], A2.0);
    let mut out = Vec::new();
    encode(&frame(FrameKind::Cts), &radio_b(), &[], &mut out);
    assert_eq!(out.len() - RADIOTAP_LEN, frame::CTS_LEN as usize);

    // Beacon: timestamp, interval, capability (ESS + short preamble), SSID,
    // rates, DS parameter set, TIM.
    let mut out = Vec::new();
    encode(&frame(FrameKind::Beacon), &radio_b(), &[], &mut out);
    let b = &out[RADIOTAP_LEN + 24..out.len() - 4];
    assert_eq!(b[0..8], [0; 8]);
    assert_eq!(b[8..10], 100u16.to_le_bytes());
    assert_eq!(b[10..12], [0x21, 0x00]);
    assert_eq!(b[12..20], [0, 6, b'a', b'i', b'r', b't', b'c', b'p']);
    assert_eq!(b[20..26], [1, 4, 0x82, 0x84, 0x8b, 0x96]);
    assert_eq!(b[26..29], [3, 1, 6]);
    assert_eq!(b[29..], [5, 4, 0, 1, 0, 0]);

    // Association response: AID with bits 14 and 15 set.
    let mut out = Vec::new();
    encode(&frame(FrameKind::AssocResp), &radio_b(), &[], &mut out);
    let b = &out[RADIOTAP_LEN + 24..];
    assert_eq!(b[2..4], [0, 0], "status");
    assert_eq!(b[4..6], [0x05, 0xc0], "AID 5 | 0xc000");

    // Reassociation request: capability, listen interval, current AP.
    let mut out = Vec::new();
    encode(&frame(FrameKind::ReassocReq), &radio_b(), &[], &mut out);
    let b = &out[RADIOTAP_LEN + 24..];
    assert_eq!(b[4..10], A3.0);
    assert_eq!(b[10..12], [0, 6]);

    // Authentication: open system, transaction 2, status 0.
    let mut out = Vec::new();
    encode(&frame(FrameKind::Auth), &radio_b(), &[], &mut out);
    assert_eq!(
        out[RADIOTAP_LEN + 24..RADIOTAP_LEN + 30],
        [0, 0, 2, 0, 0, 0]
    );

    // Deauthentication: reason 3.
    let mut out = Vec::new();
    encode(&frame(FrameKind::Deauth), &radio_b(), &[], &mut out);
    assert_eq!(out[RADIOTAP_LEN + 24..RADIOTAP_LEN + 26], [3, 0]);

    // A missing body is a default one; a long SSID is cut to 32 octets.
    let mut f = frame(FrameKind::ProbeReq);
    f.body = None;
    let mut out = Vec::new();
    encode(&f, &radio_b(), &[], &mut out);
    assert_eq!(out[RADIOTAP_LEN + 24..RADIOTAP_LEN + 26], [0, 0]);
    let mut f = frame(FrameKind::ProbeReq);
    f.body.as_mut().unwrap().ssid = "x".repeat(40);
    let mut out = Vec::new();
    encode(&f, &radio_b(), &[], &mut out);
    assert_eq!(out[RADIOTAP_LEN + 24..RADIOTAP_LEN + 26], [0, 32]);
}

#[test]
fn lengths_agree_with_mpdu_len() {
    let payload = [0u8; 57];
    for rates in [RATES_11B, RATES_11A, RATES_11G, &[][..]] {
        let radio = RadioInfo { rates, ..radio_b() };
        for kind in ALL {
            for body in [true, false] {
                let mut f = frame(kind);
                if !body {
                    f.body = None;
                }
                let mut out = Vec::new();
                encode(&f, &radio, &payload, &mut out);
                let n = mpdu_len_with_rates(&f, payload.len() as u32, rates);
                assert_eq!((out.len() - RADIOTAP_LEN) as u32, n, "{kind:?} {rates:?}");
                if rates == RATES_11B {
                    assert_eq!(mpdu_len(&f, payload.len() as u32), n);
                }
            }
        }
    }
    assert_eq!(
        mpdu_len(&frame(FrameKind::Data), 1500),
        frame::data_mpdu_len(1500)
    );
    assert_eq!(mpdu_len(&frame(FrameKind::Ack), 0), frame::ACK_LEN);
}

#[test]
fn extended_rates_follow_supported_rates() {
    let radio = RadioInfo {
        rates: RATES_11G,
        ..radio_b()
    };
    let mut out = Vec::new();
    encode(&frame(FrameKind::ProbeReq), &radio, &[], &mut out);
    let b = &out[RADIOTAP_LEN + 24..out.len() - 4];
    assert_eq!(
        b[8..18],
        [1, 8, 0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24]
    );
    assert_eq!(b[18..], [50, 4, 0x30, 0x48, 0x60, 0x6c]);
}

#[test]
fn encode_appends_without_clearing() {
    let mut out = vec![1, 2, 3];
    encode(&frame(FrameKind::Cts), &radio_b(), &[], &mut out);
    assert_eq!(out[..3], [1, 2, 3]);
    assert_eq!(out.len(), 3 + RADIOTAP_LEN + 14);
}
