//! The shared wireless medium: every radio of a scenario, their positions,
//! the frames on the air, and reception by SINR.
//!
//! A transmission visits only the radios in interference range of the
//! sender (a spatial grid), adds its power to their energy sum, and locks an
//! idle receiver whose signal clears the receive sensitivity. Interference
//! can change while a frame is received; each stretch at constant SINR is a
//! chunk whose success probability multiplies into the frame's (the chunk
//! method of Lacage & Henderson, "Yet Another Network Simulator", WNS2 2006).
//! A receiver stays locked to the first frame (no capture effect), as
//! ns-3's YansWifiPhy does. Different channel numbers do not interfere
//! (1, 6 and 11 are non-overlapping; adjacent-channel leakage is left out).
//!
//! Propagation delay is left out: at Wi-Fi ranges it is below 1 µs, which
//! 802.11 folds into the slot time (aAirPropagationTime, 802.11-2016 10.3.7).

use std::collections::{HashMap, VecDeque};

use airtcp_core::{Duration, Instant, RngStream};

use crate::frame::FrameKind;
use crate::mac::{AirFrame, MacCounters, MacParams};
use crate::mgmt::{ApState, Bss, MgmtEvent, MgmtRole, MgmtSpec, StaState, WILDCARD_SSID};
use crate::mobility::{Mobility, Pos, Track};
use crate::phy::{self, PathLoss, RadioParams, Shadowing};

mod decide;
mod grid;
mod order;
mod signals;
mod wakes;
mod wheel;
use grid::Grid;
use order::RadioOrder;
use wheel::WakeWheel;

/// One radio as the scenario declares it.
#[derive(Clone, Debug)]
pub struct RadioSpec {
    /// The radio's name, the key of its random streams (`radio.<name>.mac`,
    /// `.shadowing`, `.minstrel.<peer>`): the simulator gives its node's
    /// name, so adding a radio leaves the others' draws alone. Empty: the
    /// medium names it `radio<i>` by its index.
    pub name: String,
    /// Where the radio is over time: the medium evaluates it at each
    /// transmission, so moving stations change their links as they go.
    pub mobility: Mobility,
    /// Channel number (802.11-2016 Annex E).
    pub channel: u8,
    /// Transmit power, sensitivity, CCA level, noise figure and antenna gain.
    pub phy: RadioParams,
    /// The DCF's parameters (standard, rates, retry limits, queue).
    pub mac: MacParams,
    /// The AP radio a station of an infrastructure BSS sends every frame
    /// through at the start; `None` for an AP, an ad hoc radio, or a
    /// station that starts unassociated. [`Wlan::new`] takes it into the
    /// radio's one record of its BSS, which a roam updates; ask
    /// [`Wlan::associated_ap`] for the AP now.
    pub ap: Option<u32>,
    /// Beacons, scanning, association and roaming (or none).
    pub mgmt: MgmtSpec,
}

/// What the medium reports to the network, in order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WlanOutput {
    /// Data frame `handle` arrived correctly at `radio`, for it (unicast or
    /// broadcast). The network copies the frame: the sender keeps `handle`
    /// until its `Released`.
    Delivered {
        /// The sender's frame; the network copies it before `Released`.
        handle: u32,
        /// The receiving radio.
        radio: u32,
    },
    /// An AP received data frame `handle` for station radio `da` of its BSS:
    /// the network copies it and enqueues the copy at `radio` toward `da`
    /// (the AP's bridging, 802.11-2016 4.5.3).
    Relay {
        /// The frame as received by the AP.
        handle: u32,
        /// The AP that relays it.
        radio: u32,
        /// The station it is for.
        da: u32,
    },
    /// The MAC of `radio` is done with `handle` (acknowledged, sent as
    /// broadcast, or dropped): the network frees it.
    Released {
        /// The frame the network may now free.
        handle: u32,
        /// The radio whose MAC let it go.
        radio: u32,
    },
    /// `radio` dropped `handle` after its retry limit toward `dst`
    /// (reported to the node's agents); the frame is released as well.
    RetryDrop {
        /// The frame given up on.
        handle: u32,
        /// The radio that gave up.
        radio: u32,
        /// The radio it was addressed to: agents learn which link failed
        /// (the cross-layer signal Wi-TCP's EHO-ACK is built on).
        dst: u32,
    },
    /// A management step of `radio` (scan, authentication, association,
    /// loss of link), for the event log and the node's agents.
    Mgmt {
        /// The station or AP the step happened at.
        radio: u32,
        /// The step, with the AP or station it concerns.
        event: MgmtEvent,
    },
    /// With captures on: `radio` started sending `frame` (`rx_dbm` NaN) or
    /// received it correctly at `rx_dbm`, now — a monitor-mode capture.
    Air {
        /// The sending or receiving radio (the capture's interface).
        radio: u32,
        /// The frame as on the air.
        frame: AirFrame,
        /// Signal at the receiver in dBm; NaN for the sender's own copy.
        rx_dbm: f32,
    },
}

/// A frame being received: its signal and the log of its success
/// probability over the chunks so far (the transmission it came from is
/// `Air::rx_tx`, in the first cache line).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rx {
    /// When the PHY locked on (the preamble-detection window runs from here).
    pub locked_at: Instant,
    /// The frame's rate (kept here so a chunk needs nothing of the transmission).
    pub rate: phy::Rate,
    pub power_mw: f64,
    pub since: Instant,
    pub log_success: f64,
}

/// `Air::rx_tx` of a radio receiving nothing (no transmission has this index).
const NO_RX: u32 = u32::MAX;

/// A transmission on the air and the radios it reaches with their power.
pub(crate) struct Tx {
    pub frame: AirFrame,
    pub end: Instant,
    /// Each radio reached, its power, and the radio's tuning epoch then.
    pub reached: Vec<(u32, f64, u32)>,
}

/// A radio's physical-layer state: what every transmission in range reads
/// and writes, kept apart from the rest of the radio (a kilobyte of
/// configuration, MAC queue and counters) in a dense array, so a frame that
/// reaches thirty radios touches thirty small records. Two cache lines,
/// laid out by hand: a signal at a radio that is not receiving a frame
/// (most of the radios a campus frame reaches) reads and writes the first
/// line only. Aligned to 128 bytes, so that both lines sit in one pair
/// that the L2 spatial prefetcher brings in together (the second line,
/// read at every chunk of a reception, missed otherwise).
#[repr(C, align(128))]
pub(crate) struct Air {
    /// Energy of every signal on the air here (mW), and how many.
    pub energy_mw: f64,
    pub cca_mw: f64,
    pub tx_until: Instant,
    /// The MAC's carrier sense: busy (physical or virtual), and the NAV
    /// (802.11-2016 10.3.2.4). Here rather than in the MAC's state because
    /// every transmission in range asks whether busy changed.
    pub nav_until: Instant,
    pub sensitivity_mw: f64,
    /// Preamble detection (`phy::PreambleDetection`) as a power in mW and a linear SINR.
    pub preamble_mw: f64,
    pub signals: u32,
    /// Counts retunings: a radio that changes channel drops every signal
    /// of the old one (ns-3's channel switch erases the interference
    /// events), so transmissions that reached it before are ignored at their end.
    pub epoch: u32,
    /// The transmission being received (`NO_RX`: none); `rx` holds the rest.
    rx_tx: u32,
    pub mac_busy: bool,
    // Second line: the frame being received.
    rx: Rx,
    pub noise_mw: f64,
    pub preamble_snr: f64,
    /// Counts signals that began at or above the CCA threshold or that the
    /// PHY locked onto (wrapping): a scanning station compares it across a
    /// dwell for 11.1.4.3.2 e)'s "PHY-CCA.indication (busy) detected".
    pub busy_starts: u32,
    /// The NAV an overheard RTS asked for, held back until a frame starts
    /// before `rts_check` (802.11-2016 10.3.2.4's NAVTimeout; `Instant::ZERO`:
    /// none pending). The NAV itself runs only to `rts_check` meanwhile.
    pub rts_nav: Instant,
    pub rts_check: Instant,
}

impl Air {
    /// Whether the PHY is locked onto a frame.
    #[inline]
    pub(crate) fn receiving(&self) -> bool {
        self.rx_tx != NO_RX
    }

    /// Drop the frame being received; whether there was one.
    #[inline]
    pub(crate) fn stop_receiving(&mut self) -> bool {
        std::mem::replace(&mut self.rx_tx, NO_RX) != NO_RX
    }
}

pub(crate) struct Radio {
    /// The radio as declared, with `channel` kept current (a scan or a
    /// roam retunes it) and without `ap` and `mgmt`, which `Wlan::new`
    /// moves into `bss` and `Wlan::mgmt` (left `None` and `Static` here).
    pub spec: RadioSpec,
    /// MAC: see `mac/dcf.rs`.
    pub mac: crate::mac::DcfState,
    pub counters: MacCounters,
    /// Grid cell the radio was filed under.
    pub cell: (i32, i32),
    /// The AP a station sends through and the radio's SSID (see `Bss`).
    pub bss: Bss,
}

/// Internal events: the end of a transmission, a radio's MAC or
/// management timer (stale when the radio wants a wake of another stamp,
/// see `wakes.rs`), or a beacon.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Wake {
    TxEnd { tx: u32 },
    Mac { radio: u32 },
    Mgmt { radio: u32 },
    Beacon { radio: u32 },
}

/// The shared 802.11 medium of a scenario: every radio with its PHY, DCF
/// and management state, and the frames on the air between them. One
/// struct, driven from outside through `handle_timeout` / `poll_output`
/// (sans-IO), because a transmission changes the state of every radio in
/// range at once: splitting radios into separate objects would need a
/// message per receiver per frame.
pub struct Wlan {
    pub(crate) radios: Vec<Radio>,
    pub(crate) air: Vec<Air>,
    /// Each radio's carrier-sense bookkeeping (`mac::Sense`), dense for
    /// the busy/idle flips of radios in range of every transmission.
    pub(crate) sense: Vec<crate::mac::Sense>,
    /// Each radio's random stream (reception draws, backoffs, the first
    /// beacon), dense: a frame's end draws at most of its receivers.
    pub(crate) rng: Vec<RngStream>,
    pub(crate) shadowing: Option<Shadowing>,
    /// With shadowing: each receiver's stream of shadowing draws (its own,
    /// so a radio added elsewhere does not shift another's draws).
    pub(crate) shadow_rng: Vec<RngStream>,
    /// Each radio's name (moved out of its spec), the key of its streams.
    pub(crate) names: Vec<String>,
    /// Fixed frame error rates per (transmitter, receiver) radio pair, for
    /// frames of at least so many bytes: the seeds give per-link loss rates,
    /// applied on top of the SINR model.
    pub(crate) fixed_fer: HashMap<(u32, u32), (f64, u32)>,
    pub(crate) txs: Vec<Tx>,
    pub(crate) free_txs: Vec<u32>,
    pub(crate) wakes: WakeWheel,
    pub(crate) out: VecDeque<WlanOutput>,
    pub(crate) now: Instant,
    grid: Grid,
    /// Each radio's current straight piece of motion, dense for the
    /// per-transmission distance checks (see [`Wlan::pos`]).
    tracks: Vec<Track>,
    /// Each radio's channel index in the grid.
    chan: Vec<u8>,
    /// The path loss as a linear gain, and each radio's transmit power
    /// plus antenna gain (mW) and antenna gain (linear): a received power
    /// is then three products and the model's gain.
    linear: phy::LinearPathLoss,
    eirp_mw: Vec<f64>,
    antenna: Vec<f64>,
    /// Received-power floor below which a signal is neither decoded nor
    /// counted as interference (mW): the lowest sensitivity of any radio.
    floor_mw: f64,
    /// Radios in reach of the last transmission with their squared
    /// distance (kept to avoid an allocation per frame).
    scratch: Vec<(u32, f64)>,
    /// Puts `scratch` into radio order (see `order.rs`).
    order: RadioOrder,
    pub(crate) mgmt: Vec<MgmtRole>,
    /// Whether each radio is an AP (declared, or the fixed AP of a station).
    pub(crate) is_ap: Vec<bool>,
    /// SSIDs by index (management frames carry the index).
    pub(crate) ssids: Vec<String>,
    /// The run's seed (rate controllers draw their own streams from it).
    pub(crate) seed: u64,
    /// Report every frame sent and received (`WlanOutput::Air`).
    capture: bool,
    /// With link statistics on: per (transmitter, receiver) radio pair,
    /// `n * tx + rx`, the data frames sent while the receiver was in reach
    /// and those it decoded (see [`Wlan::enable_link_stats`]).
    link_stats: Vec<[u64; 2]>,
}

impl Wlan {
    /// Build the medium from the radios in index order (a radio's number
    /// is its index: frames, outputs and the report use it). `seed` seeds
    /// every random stream (reception draws, backoffs, shadowing, Minstrel),
    /// each named by what it serves, so the same scenario and seed give the
    /// same run. Call [`Wlan::start`] before the first `handle_timeout`.
    pub fn new(
        specs: Vec<RadioSpec>,
        path_loss: PathLoss,
        shadowing: Option<Shadowing>,
        seed: u64,
    ) -> Wlan {
        let mut radios = Vec::with_capacity(specs.len());
        let mut air = Vec::with_capacity(specs.len());
        let mut sense = Vec::with_capacity(specs.len());
        let mut rng = Vec::with_capacity(specs.len());
        let mut floor_mw = f64::INFINITY;
        let mut max_speed: f64 = 0.0;
        let (mut max_tx_dbm, mut max_gain_db) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        let mut shadow_rng = Vec::new();
        let mut names = Vec::with_capacity(specs.len());
        for (i, mut spec) in specs.into_iter().enumerate() {
            let name = Some(std::mem::take(&mut spec.name)).filter(|n| !n.is_empty()).unwrap_or_else(|| format!("radio{i}"));
            let p = &spec.phy;
            let bw = spec.mac.standard.bandwidth_hz();
            let noise_mw = phy::dbm_to_mw(phy::thermal_noise_dbm(bw, p.noise_figure_db));
            let sensitivity_mw = phy::dbm_to_mw(p.rx_sensitivity_dbm);
            floor_mw = floor_mw.min(sensitivity_mw);
            max_tx_dbm = max_tx_dbm.max(p.tx_power_dbm);
            max_gain_db = max_gain_db.max(p.antenna_gain_db);
            max_speed = max_speed.max(spec.mobility.max_speed());
            let mac = crate::mac::DcfState::new(&spec.mac);
            sense.push(crate::mac::Sense::new(&spec.mac));
            air.push(Air {
                noise_mw,
                sensitivity_mw,
                cca_mw: phy::dbm_to_mw(p.cca_threshold_dbm),
                preamble_snr: phy::dbm_to_mw(p.preamble.min_snr_db),
                busy_starts: 0,
                rts_nav: Instant::ZERO,
                rts_check: Instant::ZERO,
                preamble_mw: phy::dbm_to_mw(p.preamble.min_rssi_dbm),
                energy_mw: 0.0,
                signals: 0,
                rx_tx: NO_RX,
                rx: Rx {
                    locked_at: Instant::ZERO,
                    rate: spec.mac.data_rate,
                    power_mw: 0.0,
                    since: Instant::ZERO,
                    log_success: 0.0,
                },
                tx_until: Instant::ZERO,
                mac_busy: false,
                nav_until: Instant::ZERO,
                epoch: 0,
            });
            rng.push(RngStream::component(seed, "radio", &name, "mac"));
            if shadowing.is_some() {
                shadow_rng.push(RngStream::component(seed, "radio", &name, "shadowing"));
            }
            names.push(name);
            radios.push(Radio {
                mac,
                counters: MacCounters::default(),
                cell: (0, 0),
                // Set below, once every radio's channel is known.
                bss: Bss::new(None, WILDCARD_SSID),
                spec,
            });
        }
        // The farthest any signal reaches above the floor: the strongest
        // transmitter into the most sensitive receiver; shadowing can lift a
        // signal, so 3 sigma more (the rare stronger draws are cut off).
        let margin = shadowing.as_ref().map_or(0.0, |s| 3.0 * s.sigma_db);
        let range_m = if radios.is_empty() {
            1.0
        } else {
            path_loss
                .range_m(
                    max_tx_dbm + 2.0 * max_gain_db + margin,
                    phy::mw_to_dbm(floor_mw),
                )
                .clamp(1.0, 1e7)
        };
        let mut ssids: Vec<String> = Vec::new();
        let mut ssid_index = |name: &str| -> u16 {
            match ssids.iter().position(|s| s == name) {
                Some(i) => i as u16,
                None => {
                    ssids.push(name.to_string());
                    (ssids.len() - 1) as u16
                }
            }
        };
        let mut is_ap = vec![false; radios.len()];
        let mut mgmt = Vec::with_capacity(radios.len());
        let start_channel: Vec<u8> = radios.iter().map(|r| r.spec.channel).collect();
        for (i, r) in radios.iter_mut().enumerate() {
            // The declared association and management move out of the
            // spec into `bss` and the role: one live copy of each.
            let ap = r.spec.ap.take();
            if let Some(ap) = ap {
                if let Some(x) = is_ap.get_mut(ap as usize) {
                    *x = true;
                }
            }
            let (role, ssid) = match std::mem::take(&mut r.spec.mgmt) {
                MgmtSpec::Static => (MgmtRole::Static, WILDCARD_SSID),
                MgmtSpec::Ap(a) => {
                    is_ap[i] = true;
                    (MgmtRole::Ap(ApState::new(&a)), ssid_index(&a.ssid))
                }
                MgmtSpec::Station(s) => {
                    let ssid = ssid_index(&s.ssid);
                    (MgmtRole::Sta(Box::new(StaState::new(s))), ssid)
                }
            };
            mgmt.push(role);
            let ap_channel = |ap: u32| start_channel.get(ap as usize).copied().unwrap_or(0);
            r.bss = Bss::new(ap.map(|ap| (ap, ap_channel(ap))), ssid);
        }
        let mut channels: Vec<u8> = radios.iter().map(|r| r.spec.channel).collect();
        for m in &mgmt {
            if let MgmtRole::Sta(s) = m {
                channels.extend_from_slice(&s.spec.channels);
            }
        }
        channels.sort_unstable();
        channels.dedup();
        let bounds = radios
            .iter()
            .filter_map(|r| r.spec.mobility.bounds())
            .reduce(|a, b| (a.0.min(b.0), a.1.min(b.1), a.2.max(b.2), a.3.max(b.3)))
            .unwrap_or((0.0, 0.0, 0.0, 0.0));
        let mut grid = Grid::new(range_m, bounds, channels);
        let chan = radios
            .iter()
            .map(|r| grid.channel_index(r.spec.channel) as u8)
            .collect();
        let tracks = radios
            .iter_mut()
            .map(|r| Track::of(&r.spec.mobility.piece(Instant::ZERO)).unwrap_or(Track::NEVER))
            .collect();
        let eirp_mw = radios
            .iter()
            .map(|r| phy::dbm_to_mw(r.spec.phy.tx_power_dbm + r.spec.phy.antenna_gain_db))
            .collect();
        let antenna = radios
            .iter()
            .map(|r| phy::dbm_to_mw(r.spec.phy.antenna_gain_db))
            .collect();
        // Every radio moves at most 1/64 of the range between filings.
        let refile_every = if max_speed > 0.0 {
            Some(Duration::from_nanos(
                (range_m / 64.0 / max_speed * 1e9) as u64,
            ))
        } else {
            None
        };
        let n_radios = radios.len();
        let mut wlan = Wlan {
            radios,
            air,
            sense,
            rng,
            shadowing,
            shadow_rng,
            names,
            fixed_fer: HashMap::new(),
            txs: Vec::new(),
            free_txs: Vec::new(),
            wakes: WakeWheel::default(),
            out: VecDeque::with_capacity(16),
            now: Instant::ZERO,
            grid,
            tracks,
            chan,
            linear: path_loss.linear(),
            eirp_mw,
            antenna,
            floor_mw: if floor_mw.is_finite() { floor_mw } else { 0.0 },
            scratch: Vec::new(),
            order: RadioOrder::new(n_radios),
            mgmt,
            is_ap,
            ssids,
            seed,
            capture: false,
            link_stats: Vec::new(),
        };
        wlan.grid.max_speed = max_speed;
        wlan.refile(Instant::ZERO);
        wlan.grid.schedule_refile(refile_every.map_or(Instant::MAX, |d| {
            Instant::ZERO + d.max(Duration::from_millis(1))
        }));
        wlan
    }

    /// Report every frame on the air as `WlanOutput::Air` (for captures).
    pub fn enable_capture(&mut self) {
        self.capture = true;
    }

    /// Count, per radio pair, the data frames one sends and the other
    /// decodes: the delivery a link really has under load (the PHY's
    /// errors, the fixed error rates, collisions, and a receiver busy
    /// sending or locked on another frame), which MORE's credits and the
    /// seed's "measured loss rates" need. A frame counts toward every radio
    /// it reaches above the floor, whoever it is addressed to.
    pub fn enable_link_stats(&mut self) {
        let n = self.radios.len();
        self.link_stats = vec![[0, 0]; n * n];
    }

    /// `(sent, decoded)` data frames from radio `from` at radio `to` (zeros
    /// without [`Wlan::enable_link_stats`]).
    pub fn link_stats(&self, from: u32, to: u32) -> (u64, u64) {
        let n = self.radios.len();
        self.link_stats.get(from as usize * n + to as usize).map_or((0, 0), |c| (c[0], c[1]))
    }

    /// A fixed frame error rate from radio `from` to radio `to` for MPDUs of
    /// at least `min_bytes` (0: every frame), on top of the SINR model.
    pub fn set_fixed_fer(&mut self, from: u32, to: u32, fer: f64, min_bytes: u32) {
        self.fixed_fer.insert((from, to), (fer, min_bytes));
    }

    /// Data frames in `radio`'s MAC: queued, on the air or awaiting a retry.
    pub fn mac_queue_len(&self, radio: u32) -> usize {
        self.radios[radio as usize].mac.queue_len()
    }

    /// Radios in the medium (their numbers are `0..radio_count()`).
    pub fn radio_count(&self) -> usize {
        self.radios.len()
    }

    /// What `radio`'s MAC counted so far (for the report and for tests that
    /// check retries, drops and duplicates).
    pub fn counters(&self, radio: u32) -> &MacCounters {
        &self.radios[radio as usize].counters
    }

    /// Position of `radio` at `now` (evaluated, not stored).
    pub fn position(&mut self, radio: u32, now: Instant) -> Pos {
        self.pos(radio as usize, now)
    }

    /// Position of radio `i` at `now` from its cached straight piece,
    /// renewed from the model when it no longer holds (same bits as
    /// `Mobility::position`).
    #[inline]
    fn pos(&mut self, i: usize, now: Instant) -> Pos {
        track_pos(&mut self.tracks, &mut self.radios, i, now)
    }

    /// Start infrastructure mode at time zero: APs schedule their beacons,
    /// stations associated from the start report it, the others scan. Call
    /// once before the first `handle_timeout`; its reports come out of
    /// `poll_output`.
    pub fn start(&mut self) {
        self.start_beacons();
        self.start_stations();
    }

    /// Earliest instant at which `handle_timeout` has something to do.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.wakes.peek_time()
    }

    /// Advance to `now`: transmissions ending and MAC timers due by then run.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.now = now;
        while let Some((t, w, stamp)) = self.wakes.pop_due(now) {
            match w {
                Wake::TxEnd { tx } => self.end_tx(t, tx),
                Wake::Mac { radio } => {
                    if self.sense[radio as usize].stamp == stamp {
                        self.mac_wake(t, radio);
                    }
                }
                Wake::Mgmt { radio } => {
                    if matches!(&self.mgmt[radio as usize], MgmtRole::Sta(s) if s.stamp == stamp) {
                        self.sta_timer(t, radio);
                    }
                }
                Wake::Beacon { radio } => self.beacon_due(t, radio),
            }
        }
    }

    /// Next report for the network.
    pub fn poll_output(&mut self) -> Option<WlanOutput> {
        self.out.pop_front()
    }

    /// Schedule `w` at `at`; its stamp (see `wakes.rs`). Inline: every
    /// MAC timer and frame end pushes one.
    #[inline]
    pub(crate) fn push_wake(&mut self, at: Instant, w: Wake) -> u64 {
        self.wakes.push(at, w)
    }

    /// Refile every radio by its position at `now`.
    fn refile(&mut self, now: Instant) {
        for &c in &self.grid.occupied {
            self.grid.cells[c as usize].clear();
        }
        self.grid.occupied.clear();
        for i in 0..self.radios.len() {
            let p = self.pos(i, now);
            let c = self.grid.cell_of(p);
            self.radios[i].cell = c;
            self.grid.file(self.chan[i] as usize, c, i as u32, p);
        }
        self.grid.filed_at = now;
    }

}

/// Position of radio `i` at `now` from its straight piece in `tracks`,
/// renewed from the model when it no longer holds.
#[inline]
pub(super) fn track_pos(tracks: &mut [Track], radios: &mut [Radio], i: usize, now: Instant) -> Pos {
    let t = &tracks[i];
    if t.holds(now) {
        return t.at(now);
    }
    let m = &mut radios[i].spec.mobility;
    let piece = m.piece(now);
    if !piece.holds(now) {
        return m.position(now);
    }
    if let Some(t) = Track::of(&piece) {
        tracks[i] = t;
    }
    piece.at(now)
}


impl Wlan {
    /// File `radio` under its new `channel` (a scan or a roam retuned it).
    pub(crate) fn refile_channel(&mut self, radio: u32, old: u8, new: u8) {
        let cell = self.radios[radio as usize].cell;
        let (ko, kn) = (self.grid.channel_index(old), self.grid.channel_index(new));
        let i = self.grid.index(ko, cell.0, cell.1);
        // Filed where it was at the last filing; a NaN position (were it
        // not found) is never skipped by the search.
        let at = match self.grid.cells[i].iter().position(|f| f.radio == radio) {
            Some(k) => {
                let f = self.grid.cells[i].swap_remove(k);
                Pos { x: f.x, y: f.y, z: 0.0 }
            }
            None => Pos { x: f64::NAN, y: f64::NAN, z: 0.0 },
        };
        self.chan[radio as usize] = kn as u8;
        self.grid.file(kn, cell, radio, at);
    }

    /// A management frame for `radio` (or broadcast) arrived correctly.
    pub(crate) fn mgmt_received(&mut self, now: Instant, radio: u32, f: &AirFrame, rx_dbm: f64) {
        match &self.mgmt[radio as usize] {
            MgmtRole::Ap(_) => self.ap_received(now, radio, f),
            MgmtRole::Sta(_) => self.sta_received(now, radio, f, rx_dbm),
            MgmtRole::Static => {}
        }
    }

    /// Radio `radio`'s MAC is done with management frame `kind`.
    pub(crate) fn mgmt_done(&mut self, now: Instant, radio: u32, kind: FrameKind) {
        if let MgmtRole::Sta(_) = &self.mgmt[radio as usize] {
            self.sta_mgmt_done(now, radio, kind);
        }
    }

    /// Transmit power of `radio` in dBm (for captures of its own frames).
    pub fn radio_tx_power(&self, radio: u32) -> f32 {
        self.radios[radio as usize].spec.phy.tx_power_dbm as f32
    }

    /// Whether `radio` is an AP.
    pub fn is_ap(&self, radio: u32) -> bool {
        self.is_ap[radio as usize]
    }

    /// The standard, channel and preamble of `radio`.
    pub fn radio_phy(&self, radio: u32) -> (crate::phy::Standard, u8, crate::phy::Preamble) {
        let s = &self.radios[radio as usize].spec;
        (s.mac.standard, s.channel, s.mac.preamble)
    }

    /// The SSID of index `i` (management frames carry indices).
    pub fn ssid(&self, i: u16) -> Option<&str> {
        self.ssids.get(i as usize).map(|s| s.as_str())
    }

    /// The BSS of `radio`: the AP a station sends through and its SSID,
    /// kept in this one place (a copy, so reading it borrows nothing).
    #[inline]
    pub(crate) fn bss(&self, radio: u32) -> Bss {
        self.radios[radio as usize].bss
    }

    /// The AP a station is associated with now (`None` while it is not).
    pub fn associated_ap(&self, radio: u32) -> Option<u32> {
        match &self.mgmt[radio as usize] {
            MgmtRole::Sta(s) if !s.is_associated() => None,
            _ => self.radios[radio as usize].bss.ap(),
        }
    }
}
