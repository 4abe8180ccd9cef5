//! The 802.11 DCF MAC (802.11-2016 clause 10.3): what a radio sends when.
//! The state of every radio lives in [`crate::medium::Wlan`]; this module
//! holds the parameters, the frames as the MAC sees them, the counters and
//! (in `dcf.rs` and its parts) the channel-access state and logic.

mod dcf;
pub mod minstrel;

pub(crate) use dcf::{DcfState, Sense};

use airtcp_core::Duration;

use crate::frame::FrameKind;
use crate::phy::{Preamble, Rate, Standard};

/// Radio index meaning "every radio in range" (broadcast).
pub const BROADCAST: u32 = u32::MAX;
/// Handle of a frame the network does not own (management and control).
pub const NO_HANDLE: u32 = u32::MAX;

/// The fields of a management frame the state machines act on
/// (802.11-2016 9.3.3); `ssid` indexes the medium's SSID table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MgmtInfo {
    /// SSID as an index into the medium's table, so that frames stay `Copy`
    /// and compare SSIDs without touching strings.
    pub ssid: u16,
    /// DS Parameter Set: the AP's channel, which a scan records with each
    /// candidate so the station knows where to tune to join it.
    pub channel: u8,
    /// Association ID the AP gave (association responses).
    pub aid: u16,
    /// Status code (authentication and association responses; 0 = success).
    pub status: u16,
    /// Reason code (disassociation, deauthentication): 7 = class 3 frame
    /// from a nonassociated station, 8 = leaving the BSS.
    pub reason: u16,
    /// Authentication transaction sequence number (1 = request, 2 = answer
    /// in open-system authentication).
    pub auth_seq: u16,
}

/// How a radio picks the rate of its unicast data frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateControl {
    /// Always `data_rate` (ns-3's ConstantRateWifiManager).
    Constant,
    /// Minstrel (Linux mac80211's rc80211_minstrel), per destination.
    Minstrel,
}

/// MAC parameters of one radio.
#[derive(Clone, Debug, PartialEq)]
pub struct MacParams {
    /// The PHY: decides slot, SIFS, DIFS, contention window and the rates.
    pub standard: Standard,
    /// PLCP preamble (long or short on 802.11b): part of every frame's airtime.
    pub preamble: Preamble,
    /// Rate of unicast data frames (constant rate control).
    pub data_rate: Rate,
    /// Rate of broadcast frames and of management frames: the lowest basic
    /// rate unless set (802.11-2016 10.6.6.2).
    pub broadcast_rate: Rate,
    /// MPDUs longer than this many bytes are preceded by RTS/CTS
    /// (dot11RTSThreshold; 65535 = never, the 802.11 default).
    pub rts_threshold: u32,
    /// Transmission attempts of frames sent without RTS (and of RTS frames)
    /// before the frame is dropped: dot11ShortRetryLimit = 7.
    pub short_retry_limit: u32,
    /// Attempts of data frames sent after a successful RTS/CTS:
    /// dot11LongRetryLimit = 4 (802.11-2016 Annex C).
    pub long_retry_limit: u32,
    /// Interface queue limit in frames (ns-2's IFQ is 50; ns-3's WifiMacQueue 500).
    pub queue_limit: u32,
    /// Contention window bounds; default from the PHY (802.11-2016 Tables
    /// 15-5, 17-21).
    pub cw_min: u32,
    /// The window's cap after repeated failures (doubling stops here).
    pub cw_max: u32,
    /// Constant rate or Minstrel: what `data_rate` means for unicast data.
    pub rate_control: RateControl,
}

impl MacParams {
    /// Defaults of a PHY standard at `data_rate`.
    pub fn new(standard: Standard, data_rate: Rate) -> MacParams {
        MacParams {
            standard,
            preamble: Preamble::Long,
            data_rate,
            broadcast_rate: standard.basic_rates()[0],
            rts_threshold: 65535,
            short_retry_limit: 7,
            long_retry_limit: 4,
            queue_limit: 500,
            cw_min: standard.cw_min(),
            cw_max: standard.cw_max(),
            rate_control: RateControl::Constant,
        }
    }

    /// Time on air of an MPDU of `bytes` at `rate`.
    pub fn airtime(&self, rate: Rate, bytes: u32) -> Duration {
        crate::phy::tx_duration(self.standard, rate, self.preamble, bytes)
    }
}

/// A frame as the medium carries it. `handle` is the network's frame (an
/// arena index) for data frames; management and control frames have none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AirFrame {
    /// What the frame is: decides whether it is acknowledged, sets a NAV,
    /// or goes to the management state machines.
    pub kind: FrameKind,
    /// Transmitting radio.
    pub src: u32,
    /// Receiving radio (`BROADCAST` for every radio in range).
    pub dst: u32,
    /// Final destination radio of a data frame relayed by an AP (the DA);
    /// equal to `dst` otherwise.
    pub da: u32,
    /// MPDU bytes (header, body, FCS).
    pub bytes: u32,
    /// Duration field: the NAV the frame sets, in nanoseconds after its end.
    pub nav: Duration,
    /// Sequence number, which duplicate detection compares (10.3.2.11).
    pub seq: u16,
    /// Retry bit: a retransmission, dropped at the receiver if it has seen
    /// this sequence number last from this transmitter.
    pub retry: bool,
    /// The network's frame this carries (`NO_HANDLE` for management and
    /// control frames): the medium never copies payloads.
    pub handle: u32,
    /// PHY rate the frame is sent at; reception draws its errors from it.
    pub rate: Rate,
    /// Management fields (management frames only).
    pub info: MgmtInfo,
}

/// What a radio's MAC counted (written as is into `summary.json`'s
/// `radios[i].counters`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MacCounters {
    /// Data frames handed to the MAC.
    pub enqueued: u64,
    /// Frames refused because the interface queue was full.
    pub queue_drops: u64,
    /// Data frame transmissions, first attempts and retries.
    pub data_tx: u64,
    /// Retransmissions of data frames (and of RTS frames).
    pub retries: u64,
    /// Unicast data frames acknowledged.
    pub acked: u64,
    /// Frames dropped at the retry limit.
    pub retry_drops: u64,
    /// Transmissions that ended with no ACK or CTS (collision or error).
    pub failed_tx: u64,
    /// Frames this radio received with errors (collisions, low SINR).
    pub rx_errors: u64,
    /// Data frames received correctly for this radio, and duplicates dropped.
    pub rx_data: u64,
    /// Retransmitted frames dropped as duplicates (their ACK had been lost).
    pub rx_duplicates: u64,
    /// RTS frames sent and CTS frames received.
    pub rts_tx: u64,
    /// CTS frames received in answer to our RTS.
    pub cts_rx: u64,
    /// Broadcast frames sent.
    pub broadcast_tx: u64,
    /// Management frames sent (beacons, probes, authentication, association).
    pub mgmt_tx: u64,
    /// Data frames refused by an AP for a station not associated with it,
    /// or given to a station while it is not associated.
    pub not_associated_drops: u64,
    /// Data frames a station dropped from its queue when it lost its
    /// association (mac80211 flushes the queues at a disassociation).
    pub disassoc_flushed: u64,
}
