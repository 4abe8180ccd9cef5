//! The station side: scanning, authentication, (re)association, beacon
//! tracking and the roaming triggers. One timer per station (`deadline`)
//! covers the phase it is in: the end of a channel dwell, a response
//! timeout, the beacon-loss limit or the next scripted handoff.

use airtcp_core::{Duration, Instant};

use super::state::{MgmtRole, Phase, StaState};
use super::{MgmtEvent, ScanKind, Trigger};
use crate::frame::FrameKind;
use crate::mac::{AirFrame, MgmtInfo, BROADCAST};
use crate::medium::{Wake, Wlan, WlanOutput};

impl Wlan {
    fn sta(&mut self, radio: u32) -> &mut StaState {
        match &mut self.mgmt[radio as usize] {
            MgmtRole::Sta(s) => s,
            _ => unreachable!("station state of a non-station radio"),
        }
    }

    fn emit(&mut self, radio: u32, event: MgmtEvent) {
        self.out.push_back(WlanOutput::Mgmt { radio, event });
    }

    /// Start every station: associated from the start when the scenario
    /// says so (as ns-3's examples begin), else scanning.
    pub(crate) fn start_stations(&mut self) {
        for radio in 0..self.radios.len() as u32 {
            // The declared association, recorded in `bss` by `Wlan::new`.
            let ap = self.bss(radio).ap();
            let MgmtRole::Sta(_) = &self.mgmt[radio as usize] else {
                continue;
            };
            match ap {
                Some(ap) => {
                    let aid = match &mut self.mgmt[ap as usize] {
                        MgmtRole::Ap(a) => a.admit(radio),
                        _ => 0,
                    };
                    self.sta(radio).phase = Phase::Associated;
                    self.emit(
                        radio,
                        MgmtEvent::Associated {
                            ap,
                            aid,
                            reassoc: false,
                        },
                    );
                    self.emit(ap, MgmtEvent::ApAssociated { sta: radio, aid });
                }
                None => {
                    self.mac_disassociated(Instant::ZERO, radio);
                    self.start_scan(Instant::ZERO, radio, Trigger::Startup);
                }
            }
            self.sta_arm(Instant::ZERO, radio);
        }
    }

    /// Put `radio` on `channel`: what it was receiving is lost.
    pub(crate) fn tune(&mut self, now: Instant, radio: u32, channel: u8) {
        let r = &mut self.radios[radio as usize];
        let old = r.spec.channel;
        if old != channel {
            r.spec.channel = channel;
            let a = &mut self.air[radio as usize];
            if a.stop_receiving() {
                self.radios[radio as usize].counters.rx_errors += 1;
            }
            // The old channel's signals leave with it.
            a.epoch = a.epoch.wrapping_add(1);
            a.energy_mw = 0.0;
            a.signals = 0;
            self.refile_channel(radio, old, channel);
            self.mac_retuned(now, radio);
        }
    }

    fn start_scan(&mut self, now: Instant, radio: u32, trigger: Trigger) {
        self.radios[radio as usize].mac.data_allowed = false;
        let s = self.sta(radio);
        s.trigger = trigger;
        s.best = None;
        s.phase = Phase::Scanning {
            idx: 0,
            heard: false,
            extended: false,
        };
        s.target_hit = None;
        self.emit(radio, MgmtEvent::ScanStart { trigger });
        self.scan_channel(now, radio, 0);
    }

    fn scan_channel(&mut self, now: Instant, radio: u32, idx: usize) {
        let ssid = self.bss(radio).ssid();
        let s = self.sta(radio);
        let Some(&ch) = s.spec.channels.get(idx) else {
            return self.end_scan(now, radio);
        };
        let kind = s.spec.scan;
        let dwell = match kind {
            ScanKind::Active => s.spec.min_channel_time,
            ScanKind::Passive => s.spec.passive_dwell,
        };
        s.phase = Phase::Scanning {
            idx,
            heard: false,
            extended: false,
        };
        s.deadline = now + dwell;
        self.tune(now, radio, ch);
        let mark = self.air[radio as usize].busy_starts;
        self.sta(radio).dwell_mark = mark;
        if kind == ScanKind::Active {
            self.mac_probe_access(now, radio);
            self.enqueue_mgmt(
                now,
                radio,
                FrameKind::ProbeReq,
                BROADCAST,
                MgmtInfo {
                    ssid,
                    channel: ch,
                    ..Default::default()
                },
            );
        }
    }

    fn end_scan(&mut self, now: Instant, radio: u32) {
        let current = self.bss(radio).ap();
        let s = self.sta(radio);
        s.target = None;
        let best = s.target_hit.take().or(s.best);
        let (trigger, rssi, hysteresis) = (s.trigger, s.rssi, s.spec.hysteresis_db);
        self.emit(
            radio,
            MgmtEvent::ScanEnd {
                best: best.map(|(ap, dbm, _)| (ap, dbm)),
            },
        );
        let Some((ap, dbm, ch)) = best else {
            // Nothing heard: try again later.
            let s = self.sta(radio);
            if s.phase != Phase::Associated {
                s.phase = Phase::Idle;
                let base = s.spec.rescan_interval;
                let wait = self.rescan_jitter(radio, base);
                self.sta(radio).deadline = now + wait;
            }
            if trigger == Trigger::Signal {
                return self.stay(now, radio);
            }
            return;
        };
        if trigger == Trigger::Signal {
            if let Some(cur) = current {
                if ap == cur || dbm < rssi.unwrap_or(f64::NEG_INFINITY) + hysteresis {
                    return self.stay(now, radio);
                }
                self.emit(radio, MgmtEvent::LinkLost { ap: cur, trigger });
                self.mac_disassociated(now, radio);
            }
        }
        self.authenticate(now, radio, ap, ch, 0);
    }

    /// The wait before scanning again after a scan that found nothing:
    /// uniform in [interval / 2, 3 interval / 2] (mean `interval`), drawn
    /// from the radio's stream. A fixed interval keeps stations that failed
    /// together in lockstep, so they collide again on every rescan; real
    /// supplicants' timers drift apart. (The width of the jitter is our
    /// choice; the standard leaves rescanning to the SME.)
    fn rescan_jitter(&mut self, radio: u32, interval: Duration) -> Duration {
        let half = interval.as_nanos() / 2;
        let extra = self.rng[radio as usize].below(interval.as_nanos().max(1));
        Duration::from_nanos(half + extra)
    }

    /// A signal-triggered scan found nothing better: back to the AP.
    fn stay(&mut self, now: Instant, radio: u32) {
        let Some((ap, ch)) = self.bss(radio).ap_and_channel() else { return };
        let s = self.sta(radio);
        s.phase = Phase::Associated;
        s.next_scan_ok = now + s.spec.rescan_interval;
        s.last_beacon = now;
        self.tune(now, radio, ch);
        self.radios[radio as usize].mac.data_allowed = true;
        self.emit(radio, MgmtEvent::Stayed { ap });
        self.kick(now, radio);
    }

    fn authenticate(&mut self, now: Instant, radio: u32, ap: u32, channel: u8, tries: u32) {
        let ssid = self.bss(radio).ssid();
        let s = self.sta(radio);
        s.phase = Phase::Authenticating { ap, channel };
        s.tries = tries;
        s.deadline = now + s.spec.response_timeout;
        self.tune(now, radio, channel);
        if tries == 0 {
            self.emit(radio, MgmtEvent::AuthStart { ap });
        }
        self.enqueue_mgmt(
            now,
            radio,
            FrameKind::Auth,
            ap,
            MgmtInfo {
                ssid,
                auth_seq: 1,
                ..Default::default()
            },
        );
    }

    fn associate(&mut self, now: Instant, radio: u32, ap: u32, channel: u8, tries: u32) {
        let bss = self.bss(radio);
        // A station that was associated before asks to reassociate.
        let (reassoc, ssid) = (bss.ap().is_some(), bss.ssid());
        let s = self.sta(radio);
        s.phase = Phase::Associating { ap, channel };
        s.tries = tries;
        s.deadline = now + s.spec.response_timeout;
        if tries == 0 {
            self.emit(radio, MgmtEvent::AssocStart { ap, reassoc });
        }
        let kind = if reassoc {
            FrameKind::ReassocReq
        } else {
            FrameKind::AssocReq
        };
        self.enqueue_mgmt(
            now,
            radio,
            kind,
            ap,
            MgmtInfo {
                ssid,
                ..Default::default()
            },
        );
    }

    /// Leave the current AP (T0 of a handoff) and look for another.
    fn leave(&mut self, now: Instant, radio: u32, trigger: Trigger) {
        if let Some(ap) = self.bss(radio).ap() {
            self.emit(radio, MgmtEvent::LinkLost { ap, trigger });
        }
        self.mac_disassociated(now, radio);
        self.start_scan(now, radio, trigger);
    }

    /// The station's timer.
    pub(crate) fn sta_wake(&mut self, now: Instant, radio: u32) {
        let bss = self.bss(radio);
        let s = self.sta(radio);
        s.deadline = Instant::MAX;
        match s.phase {
            Phase::Idle => {
                let away = std::mem::take(&mut self.sta(radio).away);
                self.start_scan(
                    now,
                    radio,
                    if away {
                        Trigger::Scripted
                    } else {
                        Trigger::Failed
                    },
                )
            }
            Phase::Scanning {
                idx,
                heard,
                extended,
            } => {
                // 11.1.4.3.2 e): stay until MaxChannelTime when the
                // medium was busy (CCA) before MinChannelTime, not only
                // when a response came: answers to a crowd of probes
                // take the AP longer than MinChannelTime to send.
                let busy = self.air[radio as usize].busy_starts != self.sta(radio).dwell_mark;
                let heard = heard || busy;
                let s = self.sta(radio);
                let extra = s
                    .spec
                    .max_channel_time
                    .saturating_sub(s.spec.min_channel_time);
                if heard && !extended && s.spec.scan == ScanKind::Active && extra > Duration::ZERO {
                    // A response came within MinChannelTime: stay until MaxChannelTime.
                    s.phase = Phase::Scanning {
                        idx,
                        heard,
                        extended: true,
                    };
                    s.deadline = now + extra;
                    return self.sta_arm(now, radio);
                }
                self.scan_channel(now, radio, idx + 1);
            }
            Phase::Authenticating { ap, channel } => {
                let (tries, max) = (s.tries + 1, s.spec.max_tries);
                if tries < max {
                    self.authenticate(now, radio, ap, channel, tries);
                } else {
                    self.start_scan(now, radio, Trigger::Failed);
                }
            }
            Phase::Associating { ap, channel } => {
                let (tries, max) = (s.tries + 1, s.spec.max_tries);
                if tries < max {
                    self.associate(now, radio, ap, channel, tries);
                } else {
                    self.start_scan(now, radio, Trigger::Failed);
                }
            }
            Phase::Associated => {
                let script = s.spec.scripted.get(s.next_script).copied();
                if let (Some((at, _)), Some(lead)) = (script, s.spec.handoff_warning) {
                    if s.warned_script <= s.next_script && Instant(at.0.saturating_sub(lead.0)) <= now {
                        s.warned_script = s.next_script + 1;
                        if let Some(ap) = bss.ap() {
                            self.emit(radio, MgmtEvent::HandoffWarning { ap, trigger: Trigger::Scripted });
                        }
                    }
                }
                loop {
                    let s = self.sta(radio);
                    if s.spec.warn_at.get(s.next_warn).is_none_or(|&w| w > now) {
                        break;
                    }
                    s.next_warn += 1;
                    if let Some(ap) = bss.ap() {
                        self.emit(radio, MgmtEvent::HandoffWarning { ap, trigger: Trigger::Scripted });
                    }
                }
                if let Some((at, target)) = script {
                    if at <= now {
                        let s = self.sta(radio);
                        s.next_script += 1;
                        s.target = target;
                        let ssid = bss.ssid();
                        if let Some(ap) = bss.ap() {
                            // Say goodbye on the old channel (reason 8:
                            // leaving the BSS), then scan once it is out.
                            s.phase = Phase::Leaving;
                            s.trigger = Trigger::Scripted;
                            self.emit(
                                radio,
                                MgmtEvent::LinkLost {
                                    ap,
                                    trigger: Trigger::Scripted,
                                },
                            );
                            // mac80211 drops what was queued before it
                            // sends the disassociation (mac::dcf::assoc).
                            self.mac_disassociated(now, radio);
                            self.enqueue_mgmt(
                                now,
                                radio,
                                FrameKind::Disassoc,
                                ap,
                                MgmtInfo {
                                    ssid,
                                    reason: 8,
                                    ..Default::default()
                                },
                            );
                        }
                        return self.sta_arm(now, radio);
                    }
                }
                if self.beacon_lost(now, radio) {
                    self.leave(now, radio, Trigger::BeaconLoss);
                }
            }
            Phase::Leaving => {}
        }
        self.sta_arm(now, radio);
    }

    /// Whether `beacon_loss` beacon intervals passed without a beacon.
    fn beacon_lost(&mut self, now: Instant, radio: u32) -> bool {
        let interval = self.beacon_interval_of(radio);
        let s = self.sta(radio);
        let limit = interval
            .saturating_mul(s.spec.beacon_loss as u64)
            .saturating_add(Duration::from_nanos(interval.as_nanos() / 2));
        now >= s.last_beacon + limit
    }

    fn beacon_interval_of(&self, radio: u32) -> Duration {
        let ap = match &self.mgmt[radio as usize] {
            MgmtRole::Sta(_) => self.bss(radio).ap(),
            _ => None,
        };
        match ap.map(|a| &self.mgmt[a as usize]) {
            Some(MgmtRole::Ap(a)) => a.interval,
            _ => Duration::from_micros(102_400),
        }
    }

    /// Arm the station's timer at its next instant of interest.
    pub(crate) fn sta_arm(&mut self, now: Instant, radio: u32) {
        let interval = self.beacon_interval_of(radio);
        let beacons_enabled = match self.bss(radio).ap() {
            Some(ap) => matches!(self.mgmt[ap as usize], MgmtRole::Ap(_)),
            None => false,
        };
        let s = self.sta(radio);
        let mut t = s.deadline;
        if s.phase == Phase::Associated {
            if let Some(&w) = s.spec.warn_at.get(s.next_warn) {
                t = t.min(w.max(now));
            }
            if let Some(&(at, _)) = s.spec.scripted.get(s.next_script) {
                t = t.min(at.max(now));
                if let (Some(lead), true) = (s.spec.handoff_warning, s.warned_script <= s.next_script) {
                    t = t.min(Instant(at.0.saturating_sub(lead.0)).max(now));
                }
            }
            if beacons_enabled {
                let limit = interval
                    .saturating_mul(s.spec.beacon_loss as u64)
                    .saturating_add(Duration::from_nanos(interval.as_nanos() / 2));
                t = t.min(s.last_beacon + limit);
            }
        }
        // Every beacon moves the beacon-loss deadline a little later: a
        // wake pushed each time would leave thousands of stale entries in
        // the heap of a campus (one per station per beacon interval).
        s.want = t;
        if t != Instant::MAX && (s.armed == Instant::MAX || t < s.armed) {
            s.armed = t;
            let stamp = self.push_wake(t, Wake::Mgmt { radio });
            self.sta(radio).stamp = stamp;
        }
    }

    /// The station's pending wake fired: run the timer if it is due,
    /// or move the wake to the time the station wants now.
    pub(crate) fn sta_timer(&mut self, now: Instant, radio: u32) {
        let s = self.sta(radio);
        s.armed = Instant::MAX;
        if s.want > now {
            if s.want != Instant::MAX {
                let t = s.want;
                s.armed = t;
                let stamp = self.push_wake(t, Wake::Mgmt { radio });
                self.sta(radio).stamp = stamp;
            }
            return;
        }
        self.sta_wake(now, radio);
    }

    /// Whether station `radio` takes probe responses addressed to others
    /// now: it asked to (`StaSpec::overhear_probe_responses`) and scans.
    pub(crate) fn overhears_probe_responses(&self, radio: u32) -> bool {
        matches!(&self.mgmt[radio as usize], MgmtRole::Sta(s) if s.spec.overhear_probe_responses && matches!(s.phase, Phase::Scanning { .. }))
    }

    /// A management frame reached station `radio` at `rx_dbm`.
    pub(crate) fn sta_received(&mut self, now: Instant, radio: u32, f: &AirFrame, rx_dbm: f64) {
        let bss = self.bss(radio);
        if f.info.ssid != bss.ssid() {
            return;
        }
        let s = self.sta(radio);
        match (f.kind, s.phase) {
            (FrameKind::Beacon, Phase::Associated) if bss.ap() == Some(f.src) => {
                let r = match s.rssi {
                    Some(r) => r + (rx_dbm - r) / 8.0,
                    None => rx_dbm,
                };
                s.rssi = Some(r);
                s.last_beacon = now;
                s.signal.push((now, rx_dbm as f32));
                // A crossing: the EWMA was at or above the level earlier in
                // this association (right after a roam the new AP may still
                // be below it: no warning for that).
                let th = s.spec.warning_threshold_dbm.unwrap_or(f64::NEG_INFINITY);
                s.signal_armed |= r >= th;
                let warn = s.signal_armed && !s.signal_warned && r < th;
                if warn {
                    s.signal_warned = true;
                    self.emit(radio, MgmtEvent::HandoffWarning { ap: f.src, trigger: Trigger::Signal });
                }
                let s = self.sta(radio);
                let low =
                    s.spec.roam_threshold_dbm.is_some_and(|th| r < th) && now >= s.next_scan_ok;
                if low {
                    self.start_scan(now, radio, Trigger::Signal);
                }
                self.sta_arm(now, radio);
            }
            (FrameKind::Beacon | FrameKind::ProbeResp, Phase::Scanning { idx, extended, .. }) => {
                let cand = (f.src, rx_dbm, f.info.channel);
                if s.best.is_none_or(|b| rx_dbm > b.1) {
                    s.best = Some(cand);
                }
                if s.target == Some(f.src) {
                    s.target_hit = Some(cand);
                }
                s.phase = Phase::Scanning {
                    idx,
                    heard: true,
                    extended,
                };
            }
            (FrameKind::Auth, Phase::Authenticating { ap, channel })
                if f.src == ap && f.info.auth_seq == 2 && f.info.status == 0 =>
            {
                self.emit(radio, MgmtEvent::Authenticated { ap });
                self.associate(now, radio, ap, channel, 0);
                self.sta_arm(now, radio);
            }
            (FrameKind::AssocResp | FrameKind::ReassocResp, Phase::Associating { ap, channel })
                if f.src == ap && f.info.status == 0 =>
            {
                let reassoc = f.kind == FrameKind::ReassocResp;
                self.radios[radio as usize].bss.join(ap, channel);
                let s = self.sta(radio);
                s.phase = Phase::Associated;
                s.rssi = Some(rx_dbm);
                s.last_beacon = now;
                s.deadline = Instant::MAX;
                s.next_scan_ok = now + s.spec.rescan_interval;
                s.signal_warned = false;
                s.signal_armed = false;
                // Oracle warnings that fell while unassociated are stale.
                while s.spec.warn_at.get(s.next_warn).is_some_and(|&w| w <= now) {
                    s.next_warn += 1;
                }
                self.mac_associated(radio);
                self.emit(
                    radio,
                    MgmtEvent::Associated {
                        ap,
                        aid: f.info.aid,
                        reassoc,
                    },
                );
                self.kick(now, radio);
                self.sta_arm(now, radio);
            }
            (FrameKind::Deauth | FrameKind::Disassoc, Phase::Associated)
                if bss.ap() == Some(f.src) =>
            {
                self.leave(now, radio, Trigger::Kicked);
                self.sta_arm(now, radio);
            }
            _ => {}
        }
    }

    /// Our management frame `kind` left (acknowledged, sent, or dropped).
    pub(crate) fn sta_mgmt_done(&mut self, now: Instant, radio: u32, kind: FrameKind) {
        if let MgmtRole::Sta(s) = &self.mgmt[radio as usize] {
            if kind == FrameKind::Disassoc && s.phase == Phase::Leaving {
                let away = s
                    .next_script
                    .checked_sub(1)
                    .and_then(|k| s.spec.scripted_away.get(k))
                    .copied()
                    .unwrap_or(Duration::ZERO);
                if away > Duration::ZERO {
                    // Away for the set period, then the scripted scan.
                    let s = self.sta(radio);
                    s.phase = Phase::Idle;
                    s.away = true;
                    s.deadline = now + away;
                    self.sta_arm(now, radio);
                    return;
                }
                self.start_scan(now, radio, Trigger::Scripted);
                self.sta_arm(now, radio);
            }
        }
    }

    /// A station's beacon signal samples.
    pub fn signal_series(&self, radio: u32) -> &[(Instant, f32)] {
        match &self.mgmt[radio as usize] {
            MgmtRole::Sta(s) => &s.signal,
            _ => &[],
        }
    }
}
