//! 802.11 frames as capture bytes: a radiotap header, the MPDU as it went
//! over the air (MAC header, body, FCS), for pcap files with link type
//! [`LINKTYPE_IEEE802_11_RADIOTAP`] that Wireshark and tshark decode like a
//! monitor-mode capture.
//!
//! References: radiotap (radiotap.org: header, field alignment, the Flags,
//! Rate, Channel, dBm Antenna Signal and dBm Antenna Noise fields); IEEE
//! 802.11-2016 clause 9 (9.2.4 frame control, 9.3.1 control frames, 9.3.2
//! data frames, 9.3.3 management frames, 9.4.1 fixed fields, 9.4.2
//! elements); RFC 1042 (LLC/SNAP encapsulation of IP); IEEE 802.3 (CRC-32 of
//! the FCS); pcap-savefile(5) (file and record headers).
//!
//! The simulator carries frame fields, not bytes; what this module writes is
//! a faithful rendering of those fields, with constants where the model has
//! no state (the TSF timestamp of beacons is 0, the listen interval is
//! [`LISTEN_INTERVAL`], the TIM says "nothing buffered"). Lengths agree with
//! what the MAC charges to the air: see [`mpdu_len`].

use airtcp_core::{Instant, MacAddr};

use crate::frame::{self, FrameKind, MgmtBody, WifiFrame};

/// `LINKTYPE_IEEE802_11_RADIOTAP` (tcpdump.org link-layer header types).
pub const LINKTYPE_IEEE802_11_RADIOTAP: u32 = 127;

/// Supported rates in 500 kb/s units, basic rates with the top bit set
/// (802.11-2016 9.4.2.3). 802.11b: 1, 2, 5.5, 11 Mb/s, all basic.
pub const RATES_11B: &[u8] = &[0x82, 0x84, 0x8b, 0x96];
/// 802.11a (5 GHz OFDM): 6, 9, 12, 18, 24, 36, 48, 54 Mb/s; 6, 12, 24 basic
/// (the mandatory rates, 802.11-2016 17.1.1).
pub const RATES_11A: &[u8] = &[0x8c, 0x12, 0x98, 0x24, 0xb0, 0x48, 0x60, 0x6c];
/// 802.11g (ERP): the 802.11b rates (basic) and the eight OFDM rates; the
/// last four go into the Extended Supported Rates element.
pub const RATES_11G: &[u8] = &[
    0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24, 0x30, 0x48, 0x60, 0x6c,
];

/// Listen interval written in (re)association requests, in beacon
/// intervals. Power save is not modelled; any value would do.
pub const LISTEN_INTERVAL: u16 = 10;

/// Radiotap header length as [`encode`] writes it: 8-byte header, Flags,
/// Rate, Channel (2-byte aligned, lands at offset 10), signal, noise.
pub const RADIOTAP_LEN: usize = 16;

/// Radiotap `it_present` bits (radiotap.org defined fields).
const RT_FLAGS: u32 = 1 << 1;
const RT_RATE: u32 = 1 << 2;
const RT_CHANNEL: u32 = 1 << 3;
const RT_DBM_SIGNAL: u32 = 1 << 5;
const RT_DBM_NOISE: u32 = 1 << 6;
const RT_PRESENT: u32 = RT_FLAGS | RT_RATE | RT_CHANNEL | RT_DBM_SIGNAL | RT_DBM_NOISE;

/// Radiotap Flags field bits.
const RT_F_SHORT_PREAMBLE: u8 = 0x02;
const RT_F_FCS_AT_END: u8 = 0x10;

/// Radiotap Channel flags.
const RT_CH_CCK: u16 = 0x0020;
const RT_CH_OFDM: u16 = 0x0040;
const RT_CH_2GHZ: u16 = 0x0080;
const RT_CH_5GHZ: u16 = 0x0100;

/// Element IDs (802.11-2016 Table 9-77).
const EID_SSID: u8 = 0;
const EID_SUPP_RATES: u8 = 1;
const EID_DS_PARAMS: u8 = 3;
const EID_TIM: u8 = 5;
const EID_EXT_SUPP_RATES: u8 = 50;

/// Capability Information bits (802.11-2016 9.4.1.4).
const CAP_ESS: u16 = 0x0001;
const CAP_SHORT_PREAMBLE: u16 = 0x0020;

/// At most 32 SSID octets (9.4.2.2) and 8 rates in Supported Rates (9.4.2.3);
/// the rest go into Extended Supported Rates (9.4.2.13, at most 255).
const MAX_SSID: usize = 32;
const MAX_SUPP_RATES: usize = 8;
const MAX_EXT_RATES: usize = 255;

/// RFC 1042 LLC/SNAP header for an IPv4 datagram: DSAP AA, SSAP AA,
/// control 03 (UI), OUI 00-00-00, EtherType 0x0800.
pub const LLC_SNAP_IPV4: [u8; 8] = [0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00];

/// What the receiving radio saw, for the radiotap header, and the rate set
/// the transmitter advertises in management frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RadioInfo {
    /// PHY rate in 500 kb/s units (radiotap Rate): 2 = 1 Mb/s, 108 = 54 Mb/s.
    pub rate_500kbps: u8,
    /// Centre frequency in MHz (see [`channel_freq_mhz`]).
    pub freq_mhz: u16,
    /// OFDM modulation (802.11a/g) rather than DSSS/CCK (802.11b); sets the
    /// radiotap channel flag OFDM or CCK.
    pub ofdm: bool,
    /// 5 GHz band rather than 2.4 GHz; sets the channel flag 5 GHz or 2 GHz.
    pub five_ghz: bool,
    /// Received signal in dBm (radiotap antenna signal), so a capture shows
    /// each frame's strength as a real monitor-mode capture would.
    pub signal_dbm: i8,
    /// Noise floor in dBm (radiotap antenna noise), so a reader can tell
    /// the frame's SNR without knowing the radio's noise figure.
    pub noise_dbm: i8,
    /// Short PLCP preamble (802.11b); sets radiotap flag 0x02 and the
    /// Short Preamble capability bit of management frames.
    pub short_preamble: bool,
    /// Rate set for the Supported Rates (first 8) and Extended Supported
    /// Rates (the rest) elements of management frames, in 500 kb/s units
    /// with bit 7 marking basic rates: [`RATES_11B`], [`RATES_11A`],
    /// [`RATES_11G`] or your own. An empty set omits both elements.
    pub rates: &'static [u8],
}

/// Centre frequency of a channel (802.11-2016 17.3.8.4.2 for 5 GHz:
/// 5000 + 5·n MHz; 15.4.4.3 / 19.3.15.2 for 2.4 GHz: 2407 + 5·n MHz,
/// channel 14 at 2484 MHz). Channel 0 and out-of-range channels give 0.
pub fn channel_freq_mhz(channel: u8, five_ghz: bool) -> u16 {
    match (five_ghz, channel) {
        (_, 0) => 0,
        (true, c) => 5000 + 5 * c as u16,
        (false, 14) => 2484,
        (false, c @ 1..=13) => 2407 + 5 * c as u16,
        (false, _) => 0,
    }
}

/// Frame Control byte 0 for `kind`: protocol version 0, type in bits 2-3,
/// subtype in bits 4-7 (802.11-2016 9.2.4.1, Table 9-1).
pub const fn frame_control_type(kind: FrameKind) -> u8 {
    // (type, subtype): 0 management, 1 control, 2 data.
    let (ty, sub) = match kind {
        FrameKind::AssocReq => (0u8, 0u8),
        FrameKind::AssocResp => (0, 1),
        FrameKind::ReassocReq => (0, 2),
        FrameKind::ReassocResp => (0, 3),
        FrameKind::ProbeReq => (0, 4),
        FrameKind::ProbeResp => (0, 5),
        FrameKind::Beacon => (0, 8),
        FrameKind::Disassoc => (0, 10),
        FrameKind::Auth => (0, 11),
        FrameKind::Deauth => (0, 12),
        FrameKind::Rts => (1, 11),
        FrameKind::Cts => (1, 12),
        FrameKind::Ack => (1, 13),
        FrameKind::Data => (2, 0),
    };
    (ty << 2) | (sub << 4)
}

/// The two Frame Control bytes of `frame`. ToDS/FromDS are written for data
/// frames only (they are 0 in management and control frames, 9.2.4.1.4);
/// Retry as the frame says.
pub fn frame_control(frame: &WifiFrame) -> [u8; 2] {
    let mut flags = 0u8;
    if frame.kind == FrameKind::Data {
        if frame.to_ds {
            flags |= 0x01;
        }
        if frame.from_ds {
            flags |= 0x02;
        }
    }
    if frame.retry {
        flags |= 0x08;
    }
    [frame_control_type(frame.kind), flags]
}

/// CRC-32 table for the reflected IEEE 802.3 polynomial 0xEDB88320.
const CRC_TABLE: [u32; 256] = crc_table();

const fn crc_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
}

/// CRC-32 as in the IEEE 802.3 / 802.11 FCS: reflected, initial value and
/// final XOR all ones. The 802.11 FCS is this value, least significant byte
/// first (802.11-2016 9.2.4.8).
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = 0xFFFF_FFFFu32;
    for &b in bytes {
        c = CRC_TABLE[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
    }
    c ^ 0xFFFF_FFFF
}

/// An empty management body, for management frames that carry none.
static EMPTY_BODY: MgmtBody = MgmtBody {
    ssid: String::new(),
    channel: 0,
    beacon_interval_tu: 0,
    auth_seq: 0,
    status: 0,
    reason: 0,
    aid: 0,
    current_ap: MacAddr([0; 6]),
};

/// Append the radiotap header and the MPDU of `frame` to `out` (nothing is
/// cleared: reuse one buffer and clear it yourself to avoid allocating).
///
/// `payload` is the IPv4 datagram of a data frame (the LLC/SNAP header is
/// written here); it is ignored for other frames. Management bodies come
/// from `frame.body` (`None` is an all-default body) with the rate set of
/// `radio.rates`. Writes `RADIOTAP_LEN + mpdu_len_with_rates(frame,
/// payload.len(), radio.rates)` bytes; the last four are the FCS.
pub fn encode(frame: &WifiFrame, radio: &RadioInfo, payload: &[u8], out: &mut Vec<u8>) {
    write_radiotap(radio, out);
    let mac_start = out.len();
    let fc = frame_control(frame);
    out.extend_from_slice(&fc);
    // Duration in µs; values above 32767 would read as an AID (9.2.4.2).
    out.extend_from_slice(&frame.duration_us.min(0x7fff).to_le_bytes());
    out.extend_from_slice(&frame.addr1.0);
    match frame.kind {
        FrameKind::Ack | FrameKind::Cts => {}
        FrameKind::Rts => out.extend_from_slice(&frame.addr2.0),
        _ => {
            out.extend_from_slice(&frame.addr2.0);
            out.extend_from_slice(&frame.addr3.0);
            // Sequence Control: fragment number 0, sequence number (9.2.4.4).
            out.extend_from_slice(&((frame.seq & 0x0fff) << 4).to_le_bytes());
        }
    }
    if frame.kind == FrameKind::Data {
        out.extend_from_slice(&LLC_SNAP_IPV4);
        out.extend_from_slice(payload);
    } else if frame.kind.is_mgmt() {
        let body = frame.body.as_deref().unwrap_or(&EMPTY_BODY);
        write_mgmt_body(frame.kind, body, radio, out);
    }
    let fcs = crc32(&out[mac_start..]);
    out.extend_from_slice(&fcs.to_le_bytes());
}

/// The radiotap header: fields in `it_present` bit order, each aligned to its
/// natural boundary counted from the start of the header (radiotap.org,
/// "Alignment in radiotap").
fn write_radiotap(radio: &RadioInfo, out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(&[0, 0, 0, 0]); // version 0, pad, length (below)
    out.extend_from_slice(&RT_PRESENT.to_le_bytes());
    // Flags (u8)
    let mut flags = RT_F_FCS_AT_END;
    if radio.short_preamble {
        flags |= RT_F_SHORT_PREAMBLE;
    }
    out.push(flags);
    // Rate (u8)
    out.push(radio.rate_500kbps);
    // Channel (u16 frequency, u16 flags), 2-byte aligned
    align(out, start, 2);
    out.extend_from_slice(&radio.freq_mhz.to_le_bytes());
    let ch_flags = (if radio.five_ghz {
        RT_CH_5GHZ
    } else {
        RT_CH_2GHZ
    }) | (if radio.ofdm { RT_CH_OFDM } else { RT_CH_CCK });
    out.extend_from_slice(&ch_flags.to_le_bytes());
    // dBm Antenna Signal (s8), dBm Antenna Noise (s8)
    out.push(radio.signal_dbm as u8);
    out.push(radio.noise_dbm as u8);
    let len = (out.len() - start) as u16;
    out[start + 2..start + 4].copy_from_slice(&len.to_le_bytes());
}

/// Pad with zeros until the offset from `start` is a multiple of `a`.
fn align(out: &mut Vec<u8>, start: usize, a: usize) {
    let pad = (a - (out.len() - start) % a) % a;
    out.resize(out.len() + pad, 0);
}

/// SSID octets as written: at most 32 (longer names are cut).
fn ssid_bytes(body: &MgmtBody) -> &[u8] {
    let b = body.ssid.as_bytes();
    &b[..b.len().min(MAX_SSID)]
}

fn capability(radio: &RadioInfo) -> u16 {
    CAP_ESS
        | if radio.short_preamble {
            CAP_SHORT_PREAMBLE
        } else {
            0
        }
}

fn element(out: &mut Vec<u8>, id: u8, data: &[u8]) {
    out.push(id);
    out.push(data.len() as u8);
    out.extend_from_slice(data);
}

/// Supported Rates, then Extended Supported Rates if there are more than 8.
fn rates_elements(out: &mut Vec<u8>, rates: &[u8]) {
    let (first, rest) = rates.split_at(rates.len().min(MAX_SUPP_RATES));
    if !first.is_empty() {
        element(out, EID_SUPP_RATES, first);
    }
    if !rest.is_empty() {
        element(
            out,
            EID_EXT_SUPP_RATES,
            &rest[..rest.len().min(MAX_EXT_RATES)],
        );
    }
}

fn rates_elements_len(rates: &[u8]) -> u32 {
    let first = rates.len().min(MAX_SUPP_RATES);
    let rest = (rates.len() - first).min(MAX_EXT_RATES);
    (if first > 0 { 2 + first } else { 0 } + if rest > 0 { 2 + rest } else { 0 }) as u32
}

/// Management frame bodies, fixed fields then elements in the order of the
/// frame's table in 802.11-2016 9.3.3.
fn write_mgmt_body(kind: FrameKind, body: &MgmtBody, radio: &RadioInfo, out: &mut Vec<u8>) {
    let cap = capability(radio).to_le_bytes();
    match kind {
        FrameKind::Beacon | FrameKind::ProbeResp => {
            // 9.3.3.3 / 9.3.3.11: Timestamp (TSF, not modelled: 0), Beacon
            // Interval, Capability, SSID, Supported Rates, DS Parameter Set.
            out.extend_from_slice(&0u64.to_le_bytes());
            out.extend_from_slice(&body.beacon_interval_tu.to_le_bytes());
            out.extend_from_slice(&cap);
            element(out, EID_SSID, ssid_bytes(body));
            rates_elements_supp_only(out, radio.rates);
            element(out, EID_DS_PARAMS, &[body.channel]);
            if kind == FrameKind::Beacon {
                // TIM (9.4.2.6): DTIM count 0, DTIM period 1, bitmap control 0,
                // one octet of partial virtual bitmap: nothing buffered.
                element(out, EID_TIM, &[0, 1, 0, 0]);
            }
            rates_elements_ext_only(out, radio.rates);
        }
        FrameKind::ProbeReq => {
            // 9.3.3.10: SSID, Supported Rates, Extended Supported Rates.
            element(out, EID_SSID, ssid_bytes(body));
            rates_elements(out, radio.rates);
        }
        FrameKind::Auth => {
            // 9.3.3.12: algorithm (0 = open system), transaction seq, status.
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(&body.auth_seq.to_le_bytes());
            out.extend_from_slice(&body.status.to_le_bytes());
        }
        FrameKind::AssocReq | FrameKind::ReassocReq => {
            // 9.3.3.6 / 9.3.3.8: Capability, Listen Interval, [Current AP
            // Address], SSID, Supported Rates, Extended Supported Rates.
            out.extend_from_slice(&cap);
            out.extend_from_slice(&LISTEN_INTERVAL.to_le_bytes());
            if kind == FrameKind::ReassocReq {
                out.extend_from_slice(&body.current_ap.0);
            }
            element(out, EID_SSID, ssid_bytes(body));
            rates_elements(out, radio.rates);
        }
        FrameKind::AssocResp | FrameKind::ReassocResp => {
            // 9.3.3.7 / 9.3.3.9: Capability, Status, AID with bits 14 and 15
            // set (9.4.1.8), Supported Rates, Extended Supported Rates.
            out.extend_from_slice(&cap);
            out.extend_from_slice(&body.status.to_le_bytes());
            out.extend_from_slice(&((body.aid & 0x3fff) | 0xc000).to_le_bytes());
            rates_elements(out, radio.rates);
        }
        FrameKind::Disassoc | FrameKind::Deauth => {
            // 9.3.3.5 / 9.3.3.13: Reason Code.
            out.extend_from_slice(&body.reason.to_le_bytes());
        }
        FrameKind::Data | FrameKind::Ack | FrameKind::Rts | FrameKind::Cts => {}
    }
}

/// In beacons and probe responses the Extended Supported Rates element comes
/// after the DS Parameter Set (and the TIM), so the two halves are written
/// separately there.
fn rates_elements_supp_only(out: &mut Vec<u8>, rates: &[u8]) {
    rates_elements(out, &rates[..rates.len().min(MAX_SUPP_RATES)]);
}

fn rates_elements_ext_only(out: &mut Vec<u8>, rates: &[u8]) {
    let rest = &rates[rates.len().min(MAX_SUPP_RATES)..];
    if !rest.is_empty() {
        element(
            out,
            EID_EXT_SUPP_RATES,
            &rest[..rest.len().min(MAX_EXT_RATES)],
        );
    }
}

/// Length of a management body as [`write_mgmt_body`] writes it.
fn mgmt_body_len(kind: FrameKind, body: &MgmtBody, rates: &[u8]) -> u32 {
    let ssid = 2 + ssid_bytes(body).len() as u32;
    let r = rates_elements_len(rates);
    match kind {
        FrameKind::Beacon => 8 + 2 + 2 + ssid + r + 3 + 6,
        FrameKind::ProbeResp => 8 + 2 + 2 + ssid + r + 3,
        FrameKind::ProbeReq => ssid + r,
        FrameKind::Auth => 6,
        FrameKind::AssocReq => 2 + 2 + ssid + r,
        FrameKind::ReassocReq => 2 + 2 + 6 + ssid + r,
        FrameKind::AssocResp | FrameKind::ReassocResp => 2 + 2 + 2 + r,
        FrameKind::Disassoc | FrameKind::Deauth => 2,
        FrameKind::Data | FrameKind::Ack | FrameKind::Rts | FrameKind::Cts => 0,
    }
}

/// MPDU length in bytes (MAC header, body, FCS) of `frame`, for airtime.
/// Data frames: [`frame::data_mpdu_len`]`(payload_len)` with `payload_len`
/// the IPv4 datagram length (LLC/SNAP is added). Control frames: the fixed
/// lengths of `frame`. Management frames depend on the advertised rate set;
/// this assumes [`RATES_11B`] (4 rates): use [`mpdu_len_with_rates`] for
/// another set.
pub fn mpdu_len(frame: &WifiFrame, payload_len: u32) -> u32 {
    mpdu_len_with_rates(frame, payload_len, RATES_11B)
}

/// [`mpdu_len`] for management frames advertising `rates`; exactly the
/// bytes [`encode`] writes after the radiotap header when `rates` is
/// `radio.rates`.
pub fn mpdu_len_with_rates(frame: &WifiFrame, payload_len: u32, rates: &[u8]) -> u32 {
    match frame.kind {
        FrameKind::Data => frame::data_mpdu_len(payload_len),
        FrameKind::Ack => frame::ACK_LEN,
        FrameKind::Cts => frame::CTS_LEN,
        FrameKind::Rts => frame::RTS_LEN,
        k => {
            let body = frame.body.as_deref().unwrap_or(&EMPTY_BODY);
            frame::DATA_HDR + mgmt_body_len(k, body, rates) + frame::FCS_LEN
        }
    }
}

/// pcap magic for nanosecond timestamps (pcap-savefile(5)), as
/// `airtcp_core::pcap` writes: little-endian, version 2.4.
const PCAP_MAGIC_NANOS: u32 = 0xa1b2_3c4d;

/// Append a 24-byte pcap file header for radiotap records (link type 127,
/// nanosecond timestamps, little-endian, like `airtcp_core::pcap`).
pub fn write_pcap_header(out: &mut Vec<u8>, snaplen: u32) {
    out.extend_from_slice(&PCAP_MAGIC_NANOS.to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&4u16.to_le_bytes());
    out.extend_from_slice(&0i32.to_le_bytes()); // thiszone
    out.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
    out.extend_from_slice(&snaplen.to_le_bytes());
    out.extend_from_slice(&LINKTYPE_IEEE802_11_RADIOTAP.to_le_bytes());
}

/// Append a 16-byte record header and `bytes` (cut to `snaplen`) at
/// simulated time `t`. Fails, writing nothing, if `t` is 2^32 seconds or
/// more or the record is 4 GiB or more.
pub fn write_record(
    out: &mut Vec<u8>,
    t: Instant,
    bytes: &[u8],
    snaplen: u32,
) -> Result<(), String> {
    let ns = t.as_nanos();
    let secs = u32::try_from(ns / 1_000_000_000)
        .map_err(|_| format!("pcap timestamp {ns} ns is beyond 2^32 seconds"))?;
    let orig = u32::try_from(bytes.len())
        .map_err(|_| format!("record of {} bytes exceeds 4 GiB", bytes.len()))?;
    let incl = orig.min(snaplen);
    out.extend_from_slice(&secs.to_le_bytes());
    out.extend_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
    out.extend_from_slice(&incl.to_le_bytes());
    out.extend_from_slice(&orig.to_le_bytes());
    out.extend_from_slice(&bytes[..incl as usize]);
    Ok(())
}
