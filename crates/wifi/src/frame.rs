//! IEEE 802.11 frames as the MAC and the capture writer see them
//! (802.11-2016 clause 9). A data frame's payload stays in the network's
//! arena; here it is only a handle and a length.

use airtcp_core::MacAddr;

/// Frame type and subtype (802.11-2016 Table 9-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameKind {
    Data,
    Ack,
    Rts,
    Cts,
    Beacon,
    ProbeReq,
    ProbeResp,
    Auth,
    AssocReq,
    AssocResp,
    ReassocReq,
    ReassocResp,
    Disassoc,
    Deauth,
}

impl FrameKind {
    /// Whether the frame is a management frame.
    pub fn is_mgmt(self) -> bool {
        !matches!(
            self,
            FrameKind::Data | FrameKind::Ack | FrameKind::Rts | FrameKind::Cts
        )
    }
}

/// The body of a management frame: the fields the management state
/// machines act on (the capture writer turns them into the real elements).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct MgmtBody {
    /// SSID element (beacon, probe request/response, (re)association request).
    pub ssid: String,
    /// DS Parameter Set: the channel number (beacon, probe response).
    pub channel: u8,
    /// Beacon interval in time units of 1024 µs (beacon, probe response).
    pub beacon_interval_tu: u16,
    /// Authentication algorithm (0 = open system), transaction sequence.
    pub auth_seq: u16,
    /// Status code (authentication, association response; 0 = success).
    pub status: u16,
    /// Reason code (disassociation, deauthentication).
    pub reason: u16,
    /// Association ID (association response), without the two top bits.
    pub aid: u16,
    /// Current AP address (reassociation request).
    pub current_ap: MacAddr,
}

/// One 802.11 frame. Addresses follow 802.11-2016 9.3.2.1: `addr1` is the
/// receiver, `addr2` the transmitter (absent in ACK and CTS), `addr3` the
/// BSSID or the other end (data frames).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WifiFrame {
    pub kind: FrameKind,
    /// Duration/ID field in microseconds (the NAV it sets).
    pub duration_us: u16,
    pub addr1: MacAddr,
    pub addr2: MacAddr,
    pub addr3: MacAddr,
    /// Sequence number (12 bits) of data and management frames.
    pub seq: u16,
    pub retry: bool,
    pub to_ds: bool,
    pub from_ds: bool,
    /// Management body; empty for data and control frames.
    pub body: Option<Box<MgmtBody>>,
    /// Bytes of the data frame's payload (LLC/SNAP + IP datagram), 0 otherwise.
    pub payload_len: u32,
}

/// 802.11 header lengths in bytes (802.11-2016 9.3): a data or management
/// frame header is 24 bytes, ACK and CTS 10, RTS 16; every frame ends with a
/// 4-byte FCS.
pub const DATA_HDR: u32 = 24;
pub const ACK_LEN: u32 = 14;
pub const CTS_LEN: u32 = 14;
pub const RTS_LEN: u32 = 20;
pub const FCS_LEN: u32 = 4;
/// LLC/SNAP header in front of an IP datagram (RFC 1042 encapsulation).
pub const LLC_SNAP: u32 = 8;

/// MPDU length of a data frame carrying an IP datagram of `ip_bytes`
/// (header + LLC/SNAP + datagram + FCS).
pub const fn data_mpdu_len(ip_bytes: u32) -> u32 {
    DATA_HDR + LLC_SNAP + ip_bytes + FCS_LEN
}
