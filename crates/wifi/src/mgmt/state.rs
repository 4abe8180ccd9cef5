//! What each radio keeps for infrastructure mode: its part ([`MgmtRole`])
//! and the state of an AP's or a station's state machine. The machines
//! themselves (`ap.rs`, `sta.rs`) are methods of the medium, which holds
//! this state per radio; kept apart from them, this file depends on
//! nothing of the medium's, so the data flows one way (state -> medium ->
//! machines).

use std::collections::BTreeMap;

use airtcp_core::{Duration, Instant};

use super::{ApSpec, StaSpec, Trigger};

/// A radio's part in infrastructure mode.
pub(crate) enum MgmtRole {
    /// No management frames (`MgmtSpec::Static`).
    Static,
    /// An AP's beacons and station table.
    Ap(ApState),
    /// A station's machine, boxed: it is several times an AP's size, and
    /// unboxed it would set the size of every radio's entry.
    Sta(Box<StaState>),
}

/// What an AP keeps: its beacon interval and the stations it admitted.
pub(crate) struct ApState {
    pub interval: Duration,
    /// Associated stations and their AIDs (ordered, so nothing depends on
    /// hashing).
    pub assoc: BTreeMap<u32, u16>,
    pub(super) next_aid: u16,
}

impl ApState {
    pub(crate) fn new(spec: &ApSpec) -> ApState {
        ApState {
            interval: spec.beacon_interval,
            assoc: BTreeMap::new(),
            next_aid: 1,
        }
    }

    /// The station's AID, allocating one (1..=2007, 802.11-2016 9.4.1.8).
    pub(crate) fn admit(&mut self, sta: u32) -> u16 {
        if let Some(&aid) = self.assoc.get(&sta) {
            return aid;
        }
        let aid = self.next_aid;
        self.next_aid = if self.next_aid >= 2007 {
            1
        } else {
            self.next_aid + 1
        };
        self.assoc.insert(sta, aid);
        aid
    }
}

/// Wildcard SSID of a probe request (802.11-2016 9.4.2.2: length 0).
pub(crate) const WILDCARD_SSID: u16 = u16::MAX;

/// Where a station's machine is; one timer (`StaState::deadline`) serves
/// whichever phase it is in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Phase {
    /// Not associated, waiting to scan again.
    Idle,
    Associated,
    /// Scanning channel `idx` of the list; `heard`: a response came.
    Scanning {
        idx: usize,
        heard: bool,
        extended: bool,
    },
    Authenticating {
        ap: u32,
        channel: u8,
    },
    Associating {
        ap: u32,
        channel: u8,
    },
    /// Waiting for our disassociation frame to leave before scanning.
    Leaving,
}

/// What a station's machine keeps between frames and timers (its AP and
/// SSID are in [`Bss`], shared with the DCF).
pub(crate) struct StaState {
    /// The station's declaration, owned here (the medium keeps no other
    /// copy); its `ssid` was interned into [`Bss::ssid`] at construction.
    pub spec: StaSpec,
    pub phase: Phase,
    pub trigger: Trigger,
    /// Beacon signal of the current AP: an EWMA in dBm (weight 1/8 new, as
    /// Linux mac80211's ave_beacon_signal smoothing).
    pub rssi: Option<f64>,
    pub last_beacon: Instant,
    /// Best candidate of the scan: AP, signal, channel.
    pub(super) best: Option<(u32, f64, u8)>,
    /// A scripted handoff's target, and what the scan heard of it.
    pub(super) target: Option<u32>,
    pub(super) target_hit: Option<(u32, f64, u8)>,
    pub(super) next_script: usize,
    pub(super) tries: u32,
    pub(super) next_scan_ok: Instant,
    /// `Air::busy_starts` when the current channel's dwell began.
    pub(super) dwell_mark: u32,
    /// Idle because a scripted handoff keeps the station away.
    pub(super) away: bool,
    pub deadline: Instant,
    /// The timer (see `sta_arm`): `stamp` names the pending wake that
    /// counts (the medium's wake stamp, 0: none), `armed` is its time
    /// (`Instant::MAX`: none pending), `want` the time the station wants
    /// now. A later `want` does not push a new wake: the pending one, when
    /// it fires, moves itself to `want`.
    pub stamp: u64,
    pub armed: Instant,
    pub want: Instant,
    /// Beacon signal samples of the current AP `(t, dBm)`.
    pub signal: Vec<(Instant, f32)>,
    /// Scripted handoffs already announced (`handoff_warning`): indices below.
    pub(super) warned_script: usize,
    /// The signal warning was given for the current association.
    pub(super) signal_warned: bool,
    /// The signal was at or above `warning_threshold_dbm` in this association.
    pub(super) signal_armed: bool,
    /// `warn_at` instants passed.
    pub(super) next_warn: usize,
}

impl StaState {
    pub(crate) fn new(spec: StaSpec) -> StaState {
        StaState {
            spec,
            phase: Phase::Idle,
            trigger: Trigger::Startup,
            rssi: None,
            last_beacon: Instant::ZERO,
            best: None,
            target: None,
            target_hit: None,
            next_script: 0,
            tries: 0,
            next_scan_ok: Instant::ZERO,
            dwell_mark: 0,
            away: false,
            deadline: Instant::MAX,
            stamp: 0,
            armed: Instant::MAX,
            want: Instant::MAX,
            signal: Vec::new(),
            warned_script: 0,
            signal_warned: false,
            signal_armed: false,
            next_warn: 0,
        }
    }

    /// Whether the station is associated now (not scanning, joining or
    /// leaving): the medium reports its AP only then.
    pub(crate) fn is_associated(&self) -> bool {
        self.phase == Phase::Associated
    }
}

/// The BSS a radio belongs to: the one record of which AP a station sends
/// through and which SSID a radio's management frames carry. The DCF reads
/// the AP to address a station's data, the station's machine writes it
/// when it (re)associates, and the report asks it through
/// `Wlan::associated_ap`; kept once, so no copy can lag behind a roam.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bss {
    /// The AP a station sends every frame through, with the channel it was
    /// found on: its association now, or its last one while it scans or
    /// rejoins (the AP's address stays the destination of what is queued).
    /// `None` for an AP, an ad hoc radio, and a station never associated.
    ap: Option<(u32, u8)>,
    /// Index into the medium's SSID table (management frames carry the
    /// index): an AP's own network, the one a station looks for. A radio
    /// without management sends no management frame; it holds the wildcard.
    ssid: u16,
}

impl Bss {
    /// A radio's BSS as the scenario declares it: a station's AP at the
    /// start (`RadioSpec::ap`, with the AP's channel) and its SSID.
    pub(crate) fn new(ap: Option<(u32, u8)>, ssid: u16) -> Bss {
        Bss { ap, ssid }
    }

    /// The AP this radio's unicast data goes through (see the field).
    #[inline]
    pub(crate) fn ap(&self) -> Option<u32> {
        self.ap.map(|(ap, _)| ap)
    }

    /// The AP with the channel the station found it on.
    pub(crate) fn ap_and_channel(&self) -> Option<(u32, u8)> {
        self.ap
    }

    /// The SSID's index in the medium's table.
    pub(crate) fn ssid(&self) -> u16 {
        self.ssid
    }

    /// The station (re)associated with `ap` on `channel`: from now on its
    /// frames go there.
    pub(crate) fn join(&mut self, ap: u32, channel: u8) {
        self.ap = Some((ap, channel));
    }
}
