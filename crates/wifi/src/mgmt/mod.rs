//! Infrastructure mode (802.11-2016 11.1–11.3): APs beacon, stations scan
//! (actively with probe requests or passively), authenticate (open
//! system), associate and reassociate, and roam when the signal fades,
//! beacons stop, or a script says so. Every step is reported as a
//! [`MgmtEvent`] with its time, so a handoff's timeline is measured.
//!
//! The state machines are methods of the medium ([`crate::medium::Wlan`]):
//! they send real management frames through the DCF, so a handoff costs
//! airtime and can fail like any exchange. What they keep per radio is in
//! `state.rs`, which the medium holds without depending on the machines.

mod ap;
mod sta;
mod state;

use airtcp_core::Duration;

use crate::frame::FrameKind;

pub(crate) use state::{ApState, Bss, MgmtRole, StaState, WILDCARD_SSID};

/// How a radio takes part in infrastructure mode.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum MgmtSpec {
    /// No management frames: ad hoc, or a BSS whose association is fixed
    /// (`RadioSpec::ap`) and whose AP does not beacon.
    #[default]
    Static,
    /// An AP: beacons and answers probes, authentication and association.
    Ap(ApSpec),
    /// A station: scans, joins and roams (see [`StaSpec`]).
    Station(StaSpec),
}

/// An AP's management parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct ApSpec {
    /// The network the AP announces; stations join only an AP whose SSID
    /// matches theirs.
    pub ssid: String,
    /// Beacon interval: 100 TU = 102.4 ms, the usual default (802.11-2016
    /// dot11BeaconPeriod is in TU of 1024 µs).
    pub beacon_interval: Duration,
}

impl ApSpec {
    /// An AP of `ssid` with the usual beacon interval.
    pub fn new(ssid: &str) -> ApSpec {
        ApSpec {
            ssid: ssid.to_string(),
            beacon_interval: Duration::from_micros(102_400),
        }
    }
}

/// How a station looks for APs (802.11-2016 11.1.4): active scanning is
/// faster, passive sends nothing and waits for beacons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanKind {
    /// Probe request on each channel, then wait for responses.
    Active,
    /// Listen for beacons on each channel.
    Passive,
}

/// A station's management parameters. Scan timing defaults follow the
/// measurements of Mishra, Shin and Arbaugh ("An empirical analysis of the
/// IEEE 802.11 MAC layer handoff process", ACM CCR 33(2), 2003): the probe
/// phase dominates a handoff, tens to a few hundred milliseconds, with
/// cards waiting MinChannelTime for any response and MaxChannelTime once
/// one arrived; authentication and reassociation take a few milliseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct StaSpec {
    /// The network the station looks for: APs of another SSID are ignored
    /// by its scans.
    pub ssid: String,
    /// Active (probe requests) or passive (beacons) scanning.
    pub scan: ScanKind,
    /// Channels scanned, in order (default: the standard's usual set).
    pub channels: Vec<u8>,
    /// Active scan: wait this long on a channel for a first probe response…
    pub min_channel_time: Duration,
    /// …and this long once one arrived.
    pub max_channel_time: Duration,
    /// Passive scan: dwell per channel (longer than a beacon interval).
    pub passive_dwell: Duration,
    /// Roam when the beacons' signal (EWMA) falls below this (dBm).
    pub roam_threshold_dbm: Option<f64>,
    /// A new AP must be this much stronger than the current one (dB).
    pub hysteresis_db: f64,
    /// Consecutive beacons missed before the link counts as lost: Linux
    /// mac80211's IEEE80211_BEACON_LOSS_COUNT = 7.
    pub beacon_loss: u32,
    /// Authentication / association response timeout and attempts: Linux
    /// mac80211 IEEE80211_AUTH_TIMEOUT = IEEE80211_ASSOC_TIMEOUT = HZ/5
    /// (200 ms), IEEE80211_AUTH_MAX_TRIES = IEEE80211_ASSOC_MAX_TRIES = 3.
    pub response_timeout: Duration,
    /// Tries of each of authentication and association before the station
    /// gives up and scans again.
    pub max_tries: u32,
    /// Scripted handoffs: at each instant, leave the current AP and join
    /// the given AP radio (or the best one found when `None`).
    pub scripted: Vec<(airtcp_core::Instant, Option<u32>)>,
    /// Per scripted handoff (same index; missing = zero): how long the
    /// station stays away (radio off, no scan) after its disassociation
    /// frame left, before it scans for the target — a set disconnection
    /// period, as seed 000's experiments use.
    pub scripted_away: Vec<Duration>,
    /// Time between signal-triggered scans that found nothing better, and
    /// the mean wait before scanning again after a scan that found nothing
    /// (jittered, see `rescan_jitter`).
    pub rescan_interval: Duration,
    /// While scanning, take every probe response heard on the channel, not
    /// only those addressed to this station. Linux mac80211 does so when the
    /// scan uses a random source address (`ieee80211_scan_accept_presp`
    /// accepts any destination under NL80211_SCAN_FLAG_RANDOM_ADDR), which
    /// NetworkManager asks for by default (`wifi.scan-rand-mac-address`);
    /// wpa_supplicant alone (`mac_addr=0`) and ns-3 3.44's StaWifiMac keep
    /// only their own. Default off. In a crowd that starts scanning
    /// together, one probe that gets through then answers them all.
    pub overhear_probe_responses: bool,
    /// Handoff prediction for Freeze-TCP (Goff et al., INFOCOM 2000):
    /// announce a scripted handoff this long before it
    /// ([`MgmtEvent::HandoffWarning`]); the paper advises about one RTT.
    pub handoff_warning: Option<Duration>,
    /// Handoff prediction from the signal: warn once per association when
    /// the beacons' EWMA crosses below this (dBm) after having been above
    /// it, a level above `roam_threshold_dbm` so the warning comes before
    /// the roam.
    pub warning_threshold_dbm: Option<f64>,
    /// Handoff prediction by an oracle: warn at these instants (sorted),
    /// when associated; the ideal predictor of a study whose handoffs are
    /// known in advance.
    pub warn_at: Vec<airtcp_core::Instant>,
}

impl StaSpec {
    /// A station of `ssid` scanning `channels` with the defaults above.
    pub fn new(ssid: &str, channels: Vec<u8>) -> StaSpec {
        StaSpec {
            ssid: ssid.to_string(),
            scan: ScanKind::Active,
            channels,
            min_channel_time: Duration::from_millis(20),
            max_channel_time: Duration::from_millis(40),
            passive_dwell: Duration::from_millis(110),
            roam_threshold_dbm: None,
            hysteresis_db: 5.0,
            beacon_loss: 7,
            response_timeout: Duration::from_millis(200),
            max_tries: 3,
            scripted: Vec::new(),
            scripted_away: Vec::new(),
            rescan_interval: Duration::from_secs(1),
            overhear_probe_responses: false,
            handoff_warning: None,
            warning_threshold_dbm: None,
            warn_at: Vec::new(),
        }
    }
}

/// Why a station started scanning or left its AP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// Not associated yet.
    Startup,
    /// The AP's signal fell below the roaming threshold.
    Signal,
    /// `beacon_loss` beacons in a row were missed.
    BeaconLoss,
    /// The scenario's script.
    Scripted,
    /// The AP disassociated or deauthenticated the station.
    Kicked,
    /// Authentication or association failed.
    Failed,
}

/// One step of a station's (or an AP's) management, for the event log.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MgmtEvent {
    /// T0 of a handoff: the station decided to leave (or lost) `ap`.
    LinkLost {
        /// The AP left or lost.
        ap: u32,
        /// Why: a weak signal, missed beacons, the script, or the AP's kick.
        trigger: Trigger,
    },
    /// A scan began; a signal-triggered one runs while the station is still
    /// associated, every other after a `LinkLost` or without an AP.
    ScanStart {
        /// Why the station scans.
        trigger: Trigger,
    },
    /// `best`: the AP chosen, with its signal (dBm).
    ScanEnd {
        /// The AP chosen and its signal in dBm; `None` when nothing was heard.
        best: Option<(u32, f64)>,
    },
    /// Open-system authentication with `ap` began.
    AuthStart {
        /// The AP authenticated with.
        ap: u32,
    },
    /// The AP answered the authentication.
    Authenticated {
        /// The AP that answered.
        ap: u32,
    },
    /// The (re)association request went out.
    AssocStart {
        /// The AP asked.
        ap: u32,
        /// A reassociation (the station had an AP before): a roam.
        reassoc: bool,
    },
    /// The station is associated: the end of a handoff, from which data
    /// flows again.
    Associated {
        /// The AP joined.
        ap: u32,
        /// Association ID the AP gave.
        aid: u16,
        /// A reassociation (a roam) rather than a first association.
        reassoc: bool,
    },
    /// The station predicts it will lose `ap` soon (a scripted handoff
    /// `handoff_warning` ahead, or the signal below `warning_threshold_dbm`):
    /// the cue a Freeze-TCP receiver acts on.
    HandoffWarning {
        /// The AP the station expects to lose.
        ap: u32,
        /// What predicted it: the script or the signal.
        trigger: Trigger,
    },
    /// A signal-triggered scan found nothing better: the station stays.
    Stayed {
        /// The AP the station stays with.
        ap: u32,
    },
    /// Seen at the AP: a station associated or left.
    ApAssociated {
        /// The station that joined.
        sta: u32,
        /// The AID given to it.
        aid: u16,
    },
    /// Seen at the AP: a station left with a disassociation or
    /// deauthentication frame (one that just vanished is not seen).
    ApDisassociated {
        /// The station that left.
        sta: u32,
    },
}

/// MPDU length of a management frame (802.11-2016 9.3.3): the 24-byte
/// header and FCS, the fixed fields and the elements we send (SSID of
/// `ssid_len` bytes, 8 supported rates, DS parameter set, a 6-byte TIM in
/// beacons).
pub fn mgmt_mpdu_len(kind: FrameKind, ssid_len: u32) -> u32 {
    let base = crate::frame::DATA_HDR + crate::frame::FCS_LEN;
    let ssid = 2 + ssid_len;
    let rates = 2 + 8;
    base + match kind {
        FrameKind::Beacon => 12 + ssid + rates + 3 + 6,
        FrameKind::ProbeResp => 12 + ssid + rates + 3,
        FrameKind::ProbeReq => ssid + rates,
        FrameKind::Auth => 6,
        FrameKind::AssocReq => 4 + ssid + rates,
        FrameKind::ReassocReq => 10 + ssid + rates,
        FrameKind::AssocResp | FrameKind::ReassocResp => 6 + rates,
        FrameKind::Disassoc | FrameKind::Deauth => 2,
        _ => 0,
    }
}
