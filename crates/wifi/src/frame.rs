//! IEEE 802.11 frames as the MAC and the capture writer see them
//! (802.11-2016 clause 9). A data frame's payload stays in the network's
//! arena; here it is only a handle and a length.

use airtcp_core::MacAddr;

/// Frame type and subtype (802.11-2016 Table 9-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameKind {
    /// A data frame carrying an LLC/SNAP-encapsulated IP datagram.
    Data,
    /// Acknowledgement a SIFS after a unicast frame (10.3.2.9): its absence
    /// is the only loss signal the DCF has.
    Ack,
    /// Request to send: reserves the medium (NAV) for a long frame, so a
    /// collision costs 20 bytes rather than the whole frame.
    Rts,
    /// Clear to send: the answer to an RTS, which also silences the
    /// receiver's neighbours the sender cannot hear (hidden terminals).
    Cts,
    /// An AP's periodic announcement: passive scanning finds APs by it, and
    /// a station counts missed ones to detect a lost link.
    Beacon,
    /// A scanning station's request on a channel (active scanning).
    ProbeReq,
    /// An AP's unicast answer to a probe request.
    ProbeResp,
    /// Open-system authentication (two frames), which 802.11 requires
    /// before association.
    Auth,
    /// Association request: joins the BSS and gets an AID.
    AssocReq,
    /// Association response, with the status and the AID.
    AssocResp,
    /// Reassociation request: like an association, but names the current
    /// AP, as a roaming station sends it.
    ReassocReq,
    /// Reassociation response.
    ReassocResp,
    /// Disassociation: a station leaving (or an AP dropping a station).
    Disassoc,
    /// Deauthentication: sent by an AP to a station it does not know, which
    /// must then join again.
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
    /// Type and subtype: decides the header length and which fields exist.
    pub kind: FrameKind,
    /// Duration/ID field in microseconds (the NAV it sets).
    pub duration_us: u16,
    /// Receiver address (the next radio to take the frame).
    pub addr1: MacAddr,
    /// Transmitter address: whom the receiver acknowledges. ACK and CTS
    /// carry none, since they answer the frame just received.
    pub addr2: MacAddr,
    /// BSSID, or in a data frame the address at the far end of the
    /// distribution system (the AP's bridging needs it).
    pub addr3: MacAddr,
    /// Sequence number (12 bits) of data and management frames.
    pub seq: u16,
    /// Retry bit: set on retransmissions, so the receiver can discard a
    /// duplicate whose ACK was lost.
    pub retry: bool,
    /// To DS: the frame goes from a station to its AP's distribution
    /// system (which is why `addr3` is then the final destination).
    pub to_ds: bool,
    /// From DS: the frame comes from the distribution system through an AP
    /// (`addr3` is then the original source).
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
/// ACK: frame control, duration, receiver address, FCS.
pub const ACK_LEN: u32 = 14;
/// CTS: the same fields as an ACK.
pub const CTS_LEN: u32 = 14;
/// RTS: an ACK's fields plus the transmitter address.
pub const RTS_LEN: u32 = 20;
/// Frame check sequence (CRC-32) at the end of every frame.
pub const FCS_LEN: u32 = 4;
/// LLC/SNAP header in front of an IP datagram (RFC 1042 encapsulation).
pub const LLC_SNAP: u32 = 8;

/// MPDU length of a data frame carrying an IP datagram of `ip_bytes`
/// (header + LLC/SNAP + datagram + FCS).
pub const fn data_mpdu_len(ip_bytes: u32) -> u32 {
    DATA_HDR + LLC_SNAP + ip_bytes + FCS_LEN
}
