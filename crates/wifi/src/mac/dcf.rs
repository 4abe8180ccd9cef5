//! DCF channel access (802.11-2016 10.3.2–10.3.4), computed rather than
//! ticked: a radio with a backoff of k slots that saw the medium go idle at
//! t0 transmits at t0 + IFS + k·slot unless the medium turns busy first, in
//! which case the slots that elapsed are subtracted and the count freezes.
//! So a radio costs an event when something happens to it, not per slot.

mod assoc;
mod carrier;
pub(crate) use carrier::Sense;

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use airtcp_core::{Duration, Instant};

use super::minstrel::Minstrel;
use super::{AirFrame, MacParams, MgmtInfo, RateControl, BROADCAST, NO_HANDLE};

use crate::frame::{self, FrameKind};
use crate::medium::{Wlan, WlanOutput};
use crate::phy::Rate;

/// A frame waiting in the interface queue.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Msdu {
    pub handle: u32,
    pub mpdu_bytes: u32,
    /// Receiver radio (the AP for a station of a BSS) and final destination.
    pub dst: u32,
    pub da: u32,
    pub kind: FrameKind,
    pub info: MgmtInfo,
}

/// The frame at the head of the line with its retry state.
#[derive(Clone, Copy, Debug)]
struct Current {
    msdu: Msdu,
    seq: u16,
    short_retries: u32,
    long_retries: u32,
    /// Whether the data frame itself went out (after a CTS) in this attempt.
    sent_after_cts: bool,
    retry: bool,
    /// Data transmissions of this frame so far, and the rate of the last.
    data_tries: u32,
    rate: Rate,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Nothing on the air from us: contending if there is a frame.
    Idle,
    /// Our RTS, data or broadcast frame is on the air.
    Sending,
    /// Waiting for the CTS or ACK that our frame asked for, until `deadline`
    /// (`Instant::MAX`: a frame was being received at the deadline, and its
    /// end decides).
    AwaitCts {
        deadline: Instant,
    },
    AwaitAck {
        deadline: Instant,
    },
}

/// The MAC state of a radio apart from its carrier sense, backoff and
/// timer, which live in `Sense` (see there why).
pub struct DcfState {
    queue: VecDeque<Msdu>,
    queue_limit: usize,
    /// Management frames go before data (a queue of their own, as drivers
    /// keep management on the highest-priority queue).
    mgmt_q: VecDeque<Msdu>,
    /// Whether data frames may go: a station sends data only while
    /// associated and on its AP's channel.
    pub(crate) data_allowed: bool,
    /// Whether a station is associated (always for an AP or an ad hoc
    /// radio): while not, data frames given to it are dropped (`assoc`).
    associated: bool,
    current: Option<Current>,
    /// A data frame set aside, with its sequence number and retry counts,
    /// while data may not go and management frames wait (a scan started
    /// during its exchange: mac80211 stops the data queues for a scan and
    /// sends the probes): it goes first once data may go again.
    parked: Option<Current>,
    phase: Phase,
    // Whether the medium is busy (physical or virtual carrier sense) and
    // the NAV live in `medium::Air`, beside the physical state every
    // transmission in range updates; the backoff, the idle time, EIFS and
    // the timer in `Sense`.
    /// The medium turned busy exactly when our backoff ended: we transmit
    /// anyway (both stations' slot boundaries coincide; that is a collision).
    committed_at: Instant,
    cw: u32,
    /// A SIFS response (ACK, CTS, or our data after a CTS) and when it goes.
    response: Option<(Instant, AirFrame)>,
    next_seq: u16,
    /// Last sequence number received from each transmitter, for duplicate
    /// detection (802.11-2016 10.3.2.11). Keyed by radio number with a
    /// multiplicative hash (never iterated, so its order cannot leak into
    /// results): an AP looks one up per frame from each of its stations.
    last_seq: FxHashMap<u32, u16>,
    /// Minstrel state per destination (with `RateControl::Minstrel`).
    minstrel: FxHashMap<u32, Minstrel>,
    p: MacParams,
    slot: Duration,
    sifs: Duration,
    /// aRxPHYStartDelay (`Standard::rx_phy_start_delay`).
    phy_start: Duration,
}

impl DcfState {
    pub(crate) fn new(p: &MacParams) -> DcfState {
        let std = p.standard;
        let phy_start = std.rx_phy_start_delay(p.preamble);
        DcfState {
            queue: VecDeque::with_capacity(p.queue_limit.min(1024) as usize),
            queue_limit: p.queue_limit as usize,
            mgmt_q: VecDeque::with_capacity(4),
            data_allowed: true,
            associated: true,
            current: None,
            parked: None,
            phase: Phase::Idle,
            committed_at: Instant::MAX,
            cw: p.cw_min,
            response: None,
            next_seq: 0,
            last_seq: FxHashMap::default(),
            minstrel: FxHashMap::default(),
            slot: std.slot(),
            sifs: std.sifs(),
            phy_start,
            p: p.clone(),
        }
    }

    /// Whether there is a frame that may contend now.
    fn has_frame(&self) -> bool {
        match self.current {
            Some(c) => {
                c.msdu.kind != FrameKind::Data || self.data_allowed || !self.mgmt_q.is_empty()
            }
            None => {
                !self.mgmt_q.is_empty()
                    || (self.data_allowed && (self.parked.is_some() || !self.queue.is_empty()))
            }
        }
    }

    /// Idle with no frame that may contend and no SIFS response: the
    /// state in which carrier sense needs nothing of this struct
    /// (`Sense::quiet`).
    pub(crate) fn is_quiet(&self) -> bool {
        self.response.is_none() && self.phase == Phase::Idle && !self.has_frame()
    }

    pub fn queue_len(&self) -> usize {
        self.queue.len()
            + self.current.is_some_and(|c| c.msdu.kind == FrameKind::Data) as usize
            + self.parked.is_some() as usize
    }
}

impl Wlan {
    /// Hand data frame `handle` (an IP datagram of `ip_bytes`) to `radio`'s
    /// MAC toward radio `da` (`BROADCAST` for all). Returns false when the
    /// interface queue is full: the caller keeps (and frees) the frame.
    pub fn enqueue(
        &mut self,
        now: Instant,
        radio: u32,
        handle: u32,
        ip_bytes: u32,
        da: u32,
    ) -> bool {
        let r = &mut self.radios[radio as usize];
        if !r.mac.associated {
            // mac80211's ieee80211_tx_h_check_assoc (see `assoc`).
            r.counters.not_associated_drops += 1;
            return false;
        }
        if r.mac.queue_len() >= r.mac.queue_limit {
            r.counters.queue_drops += 1;
            return false;
        }
        if self.is_ap[radio as usize] && da != BROADCAST && !self.ap_has(radio, da) {
            // Class 3 frames only to associated stations (802.11-2016 11.3.3).
            self.radios[radio as usize].counters.not_associated_drops += 1;
            return false;
        }
        let r = &mut self.radios[radio as usize];
        r.counters.enqueued += 1;
        r.mac.queue.push_back(Msdu {
            handle,
            mpdu_bytes: frame::data_mpdu_len(ip_bytes),
            dst: da,
            da,
            kind: FrameKind::Data,
            info: MgmtInfo::default(),
        });
        self.kick(now, radio);
        true
    }

    /// Queue management frame `kind` from `radio` to `dst` (`BROADCAST`:
    /// beacons, probe requests) ahead of data.
    pub(crate) fn enqueue_mgmt(
        &mut self,
        now: Instant,
        radio: u32,
        kind: FrameKind,
        dst: u32,
        info: MgmtInfo,
    ) {
        let bytes = crate::mgmt::mgmt_mpdu_len(
            kind,
            self.ssids
                .get(info.ssid as usize)
                .map_or(0, |s| s.len() as u32),
        );
        self.radios[radio as usize].mac.mgmt_q.push_back(Msdu {
            handle: NO_HANDLE,
            mpdu_bytes: bytes,
            dst,
            da: dst,
            kind,
            info,
        });
        self.kick(now, radio);
    }

    /// The radio switched channel (a scan or a roam). As ns-3's
    /// `ChannelAccessManager::NotifySwitchingStartNow`, the NAV and the
    /// backoff of the old channel are dropped and contention starts afresh;
    /// an exchange under way is over (its ACK or CTS cannot come here), and
    /// a data frame that may not go now is set aside so that the scan's
    /// probes and the authentication go first (mac80211 stops the data
    /// queues while it scans). Without this a probe request waited behind
    /// a data frame's retries and missed its channel's dwell.
    pub(crate) fn mac_retuned(&mut self, now: Instant, radio: u32) {
        let ri = radio as usize;
        self.air[ri].nav_until = now;
        self.air[ri].rts_nav = Instant::ZERO;
        let r = &mut self.radios[ri];
        let m = &mut r.mac;
        let s = &mut self.sense[ri];
        // The carrier sense below must not take the quiet path on state
        // this function changes; `kick` re-arms and sets it anew.
        s.quiet = false;
        let mut stale = None;
        if m.phase != Phase::Sending {
            m.phase = Phase::Idle;
            if m.current.is_some_and(|c| c.msdu.kind == FrameKind::Data) && !m.data_allowed {
                if m.associated {
                    m.parked = m.current.take();
                } else {
                    stale = m.current.take();
                }
            }
            m.committed_at = Instant::MAX;
            s.idle_since = now;
            s.stamp = 0;
            s.armed = Instant::MAX;
            // The switch ends like a busy period (as ns-3's
            // ChannelAccessManager treats its end): the radio has not seen
            // this channel idle for DIFS, so its next frame, whether a
            // management frame in the middle of its attempts or the scan's
            // probe request, contends with a fresh backoff (10.3.4.3)
            // instead of going at once. Stations that retune together (a
            // simultaneous start) thus spread their probes over the window
            // rather than colliding on every one.
            let cw = m.cw;
            s.backoff = Some(self.rng[ri].below(cw as u64 + 1) as u32);
        }
        if let Some(c) = stale {
            self.keep_unless_disassociated(radio, c);
        }
        self.mac_medium_changed(now, radio);
        self.kick(now, radio);
    }

    /// Active scanning, 802.11-2016 11.1.4.3.2 steps a) and b): on a
    /// channel the station has just come to, it listens (ProbeDelay) and
    /// sends its probe request through the basic access procedure. The
    /// station has not sensed this channel idle for DIFS, so it counts
    /// DIFS from now and then a fresh random backoff from [0, CW] (as
    /// after a busy medium, 10.3.4.3) rather than going at once: stations
    /// that start scanning together spread their probes over the window
    /// instead of colliding on every one. Only an idle MAC (no exchange
    /// of its own under way) is touched.
    pub(crate) fn mac_probe_access(&mut self, now: Instant, radio: u32) {
        let ri = radio as usize;
        let m = &mut self.radios[ri].mac;
        if m.current.is_some() || m.phase != Phase::Idle {
            return;
        }
        let cw = m.cw;
        let s = &mut self.sense[ri];
        s.idle_since = s.idle_since.max(now);
        s.backoff = Some(self.rng[ri].below(cw as u64 + 1) as u32);
        s.quiet = false;
    }

    /// A frame became eligible: start contending if the MAC was idle
    /// (802.11-2016 10.3.4.3: a frame that finds the medium busy invokes
    /// the backoff; one that finds it idle for DIFS goes at once).
    pub(crate) fn kick(&mut self, now: Instant, radio: u32) {
        let busy = self.air[radio as usize].mac_busy;
        let r = &mut self.radios[radio as usize];
        let m = &mut r.mac;
        let s = &mut self.sense[radio as usize];
        if m.current.is_none() && m.phase == Phase::Idle && m.has_frame() {
            // 802.11-2016 10.3.4.3: a frame that finds the medium busy
            // invokes the backoff; one that finds it idle for DIFS goes now.
            if busy {
                if s.backoff.unwrap_or(0) == 0 {
                    let cw = m.cw;
                    s.backoff = Some(self.rng[radio as usize].below(cw as u64 + 1) as u32);
                }
            } else if s.backoff.is_none() || s.backoff_end().is_some_and(|t| t < now) {
                s.backoff = Some(0);
            }
        }
        self.mac_arm(now, radio);
    }

    /// A radio's MAC timer fired.
    pub(crate) fn mac_wake(&mut self, now: Instant, radio: u32) {
        let ri = radio as usize;
        self.sense[ri].armed = Instant::MAX;
        if self.sense[ri].quiet {
            debug_assert!(self.radios[ri].mac.is_quiet(), "radio {radio} not quiet");
            // Nothing to send and no response: the wake can only be the
            // NAV's expiry (below), and needs nothing of the MAC state.
            if self.air[ri].mac_busy && self.air[ri].nav_until <= now {
                self.mac_medium_changed(now, radio);
            }
            self.quiet_arm(now, radio);
            return;
        }
        // A SIFS response goes regardless of carrier sense (10.3.2.3.3).
        if let Some((at, f)) = self.radios[ri].mac.response {
            if at <= now {
                self.radios[ri].mac.response = None;
                let air = self.radios[ri].mac.p.airtime(f.rate, f.bytes);
                if f.kind == FrameKind::Data {
                    self.radios[ri].mac.phase = Phase::Sending;
                    self.radios[ri].counters.data_tx += 1;
                }
                self.start_tx(now, f, air);
                self.mac_arm(now, radio);
                return;
            }
        }
        match self.radios[ri].mac.phase {
            Phase::AwaitCts { deadline } | Phase::AwaitAck { deadline } if deadline <= now => {
                if self.air[ri].receiving() {
                    // A frame is arriving: its end decides (it may be the response).
                    let m = &mut self.radios[ri].mac;
                    m.phase = match m.phase {
                        Phase::AwaitCts { .. } => Phase::AwaitCts {
                            deadline: Instant::MAX,
                        },
                        _ => Phase::AwaitAck {
                            deadline: Instant::MAX,
                        },
                    };
                } else {
                    self.tx_failed(now, radio);
                }
            }
            Phase::Idle => {
                let m = &self.radios[ri].mac;
                let due = self.sense[ri].backoff_end();
                let go = m.has_frame()
                    && (m.committed_at == now
                        || (!self.air[ri].mac_busy && due.is_some_and(|t| t <= now)));
                if go {
                    self.radios[ri].mac.committed_at = Instant::MAX;
                    self.sense[ri].backoff = None;
                    self.transmit_head(now, radio);
                }
            }
            _ => {}
        }
        if self.air[ri].mac_busy && self.air[ri].nav_until <= now {
            // A NAV that just expired: the medium may be idle again (it was
            // busy only by the NAV when nothing is on the air).
            self.mac_medium_changed(now, radio);
        }
        self.mac_arm(now, radio);
    }

    /// Send the head-of-line frame: RTS, unicast data or broadcast.
    fn transmit_head(&mut self, now: Instant, radio: u32) {
        let ri = radio as usize;
        let r = &mut self.radios[ri];
        let m = &mut r.mac;
        if m.current.is_some_and(|c| c.msdu.kind == FrameKind::Data)
            && !m.data_allowed
            && !m.mgmt_q.is_empty()
        {
            m.parked = m.current.take();
        }
        if m.current.is_none() && m.mgmt_q.is_empty() && m.data_allowed && m.parked.is_some() {
            m.current = m.parked.take();
        }
        if m.current.is_none() {
            let next = match m.mgmt_q.pop_front() {
                Some(x) => Some(x),
                None if m.data_allowed => m.queue.pop_front(),
                None => None,
            };
            let Some(msdu) = next else { return };
            let seq = m.next_seq;
            m.next_seq = (m.next_seq + 1) & 0x0fff;
            let rate = m.p.data_rate;
            m.current = Some(Current {
                msdu,
                seq,
                short_retries: 0,
                long_retries: 0,
                sent_after_cts: false,
                retry: false,
                data_tries: 0,
                rate,
            });
        }
        let cur = m.current.expect("head frame");
        let p = &m.p;
        let std = p.standard;
        let mut msdu = cur.msdu;
        if msdu.kind == FrameKind::Data && msdu.dst != BROADCAST {
            // A station sends everything to its AP; a frame for the DS (an
            // AP's own address) is for the AP it is associated with now.
            if let Some(ap) = r.spec.ap {
                msdu.dst = ap;
                if self.is_ap[msdu.da as usize] {
                    msdu.da = ap;
                }
            }
        }
        let r = &mut self.radios[ri];
        let m = &mut r.mac;
        let p = &m.p;
        let info = msdu.info;
        if msdu.kind != FrameKind::Data {
            r.counters.mgmt_tx += 1;
        }
        let (f, air) = if msdu.dst == BROADCAST {
            if msdu.kind == FrameKind::Data {
                r.counters.broadcast_tx += 1;
            }
            let rate = p.broadcast_rate;
            let f = AirFrame {
                kind: msdu.kind,
                src: radio,
                dst: BROADCAST,
                da: BROADCAST,
                bytes: msdu.mpdu_bytes,
                nav: Duration::ZERO,
                seq: cur.seq,
                retry: false,
                handle: msdu.handle,
                rate,
                info,
            };
            (f, p.airtime(rate, msdu.mpdu_bytes))
        } else if msdu.kind != FrameKind::Data {
            let rate = p.broadcast_rate;
            let ack = p.airtime(std.control_rate(rate), frame::ACK_LEN);
            let f = AirFrame {
                kind: msdu.kind,
                src: radio,
                dst: msdu.dst,
                da: msdu.dst,
                bytes: msdu.mpdu_bytes,
                nav: m.sifs.saturating_add(ack),
                seq: cur.seq,
                retry: cur.retry,
                handle: NO_HANDLE,
                rate,
                info,
            };
            (f, p.airtime(rate, msdu.mpdu_bytes))
        } else {
            let data_rate = match p.rate_control {
                RateControl::Constant => p.data_rate,
                RateControl::Minstrel => {
                    let (std, pre, seed) = (p.standard, p.preamble, self.seed);
                    let (me, peer) = (&self.names[ri], &self.names[msdu.dst as usize]);
                    let mc = m.minstrel.entry(msdu.dst).or_insert_with(|| {
                        let purpose = format!("minstrel.{peer}");
                        let rng = airtcp_core::RngStream::component(seed, "radio", me, &purpose);
                        Minstrel::new(std, std.rates(), pre, 1536, rng)
                    });
                    mc.rate_for(now, cur.data_tries)
                }
            };
            m.current = Some(Current {
                rate: data_rate,
                ..cur
            });
            let p = &m.p;
            let ctrl = std.control_rate(data_rate);
            let ack = p.airtime(ctrl, frame::ACK_LEN);
            let data_air = p.airtime(data_rate, msdu.mpdu_bytes);
            if msdu.mpdu_bytes > p.rts_threshold {
                r.counters.rts_tx += 1;
                let cts = p.airtime(ctrl, frame::CTS_LEN);
                let nav = m
                    .sifs
                    .saturating_mul(3)
                    .saturating_add(cts)
                    .saturating_add(data_air)
                    .saturating_add(ack);
                let f = AirFrame {
                    kind: FrameKind::Rts,
                    src: radio,
                    dst: msdu.dst,
                    da: msdu.da,
                    bytes: frame::RTS_LEN,
                    nav,
                    seq: cur.seq,
                    retry: cur.retry,
                    handle: msdu.handle,
                    rate: ctrl,
                    info,
                };
                (f, p.airtime(ctrl, frame::RTS_LEN))
            } else {
                r.counters.data_tx += 1;
                let f = AirFrame {
                    kind: FrameKind::Data,
                    src: radio,
                    dst: msdu.dst,
                    da: msdu.da,
                    bytes: msdu.mpdu_bytes,
                    nav: m.sifs.saturating_add(ack),
                    seq: cur.seq,
                    retry: cur.retry,
                    handle: msdu.handle,
                    rate: data_rate,
                    info,
                };
                (f, data_air)
            }
        };
        if cur.retry {
            r.counters.retries += 1;
        }
        let rate = m.current.map_or(cur.rate, |c| c.rate);
        m.current = Some(Current { msdu, rate, ..cur });
        m.phase = Phase::Sending;
        self.start_tx(now, f, air);
    }

    /// Our transmission of `f` ended.
    pub(crate) fn mac_tx_done(&mut self, now: Instant, radio: u32, f: &AirFrame) {
        let ri = radio as usize;
        let m = &mut self.radios[ri].mac;
        match f.kind {
            FrameKind::Ack | FrameKind::Cts => {}
            FrameKind::Rts => {
                m.phase = Phase::AwaitCts {
                    deadline: now + m.sifs + m.slot + m.phy_start,
                }
            }
            _ if f.dst == BROADCAST => {
                // No ACK and no retry for group frames (10.3.6): done.
                m.current = None;
                m.phase = Phase::Idle;
                if f.handle != NO_HANDLE {
                    self.out.push_back(WlanOutput::Released {
                        handle: f.handle,
                        radio,
                    });
                }
                self.new_backoff(radio, true);
                if f.kind.is_mgmt() {
                    self.mgmt_done(now, radio, f.kind);
                }
            }
            _ => {
                if f.kind == FrameKind::Data {
                    if let Some(c) = m.current.as_mut() {
                        c.data_tries += 1;
                    }
                }
                m.phase = Phase::AwaitAck {
                    deadline: now + m.sifs + m.slot + m.phy_start,
                };
            }
        }
        self.mac_arm(now, radio);
    }

    /// Radio `radio` finished receiving `f` (`ok`: decoded correctly).
    pub(crate) fn mac_received(
        &mut self,
        now: Instant,
        radio: u32,
        f: &AirFrame,
        ok: bool,
        rx_dbm: f64,
    ) {
        let ri = radio as usize;
        // A quiet MAC (`Sense::quiet`) is idle: most receivers of a frame
        // are, and need not read their MAC state for it.
        let awaiting = if self.sense[ri].quiet {
            debug_assert!(self.radios[ri].mac.is_quiet(), "radio {radio} not quiet");
            Phase::Idle
        } else {
            self.radios[ri].mac.phase
        };
        if !ok {
            self.radios[ri].counters.rx_errors += 1;
            self.sense[ri].eifs = true;
            self.settle_await(now, radio, awaiting);
            return;
        }
        self.sense[ri].eifs = false;
        let for_me = f.dst == radio;
        let expected = for_me
            && matches!(
                (f.kind, awaiting),
                (FrameKind::Cts, Phase::AwaitCts { .. }) | (FrameKind::Ack, Phase::AwaitAck { .. })
            );
        if !expected {
            // Some other frame ended where our CTS/ACK was due: the exchange failed.
            self.settle_await(now, radio, awaiting);
        }
        if !for_me && f.dst != BROADCAST {
            // Virtual carrier sense (10.3.2.4): the frame's Duration sets the NAV.
            let full = now + f.nav;
            let m = &self.radios[ri].mac;
            // An RTS's NAV may be reset if no frame starts within
            // NAVTimeout = 2 x aSIFSTime + CTS_Time + aRxPHYStartDelay +
            // 2 x aSlotTime after it (10.3.2.4; CTS_Time at the RTS's
            // rate): its CTS did not come, the medium is free. Until then
            // the NAV runs to the timeout; a frame starting in time
            // restores the whole of it (`Wlan::signal_starts`).
            let check = now + m.sifs + m.sifs + m.p.airtime(f.rate, frame::CTS_LEN) + m.phy_start + m.slot + m.slot;
            let a = &mut self.air[ri];
            if f.kind == FrameKind::Rts && full > check && a.nav_until < full {
                a.nav_until = a.nav_until.max(check);
                a.rts_nav = full;
                a.rts_check = check;
            } else {
                a.nav_until = a.nav_until.max(full);
            }
            self.mac_medium_changed(now, radio);
            if f.kind == FrameKind::ProbeResp && self.overhears_probe_responses(radio) {
                self.mgmt_received(now, radio, f, rx_dbm);
            }
            return;
        }
        match f.kind {
            FrameKind::Data => self.receive_data(now, radio, f),
            k if k.is_mgmt() && (f.dst == BROADCAST || self.accept_unicast(now, radio, f)) => {
                self.mgmt_received(now, radio, f, rx_dbm);
            }
            FrameKind::Rts => {
                let m = &self.radios[ri].mac;
                if self.air[ri].nav_until <= now && m.response.is_none() {
                    let ctrl = f.rate;
                    let cts_air = m.p.airtime(ctrl, frame::CTS_LEN);
                    let nav = f.nav.saturating_sub(m.sifs).saturating_sub(cts_air);
                    let cts = AirFrame {
                        kind: FrameKind::Cts,
                        src: radio,
                        dst: f.src,
                        da: f.src,
                        bytes: frame::CTS_LEN,
                        nav,
                        seq: 0,
                        retry: false,
                        handle: NO_HANDLE,
                        rate: ctrl,
                        info: MgmtInfo::default(),
                    };
                    let at = now + m.sifs;
                    self.radios[ri].mac.response = Some((at, cts));
                }
            }
            FrameKind::Cts if matches!(awaiting, Phase::AwaitCts { .. }) => {
                let r = &mut self.radios[ri];
                r.counters.cts_rx += 1;
                let m = &mut r.mac;
                let mut cur = m.current.expect("awaiting CTS for a frame");
                cur.sent_after_cts = true;
                cur.short_retries = 0;
                m.current = Some(cur);
                let ctrl = m.p.standard.control_rate(cur.rate);
                let ack = m.p.airtime(ctrl, frame::ACK_LEN);
                let data = AirFrame {
                    kind: FrameKind::Data,
                    src: radio,
                    dst: cur.msdu.dst,
                    da: cur.msdu.da,
                    bytes: cur.msdu.mpdu_bytes,
                    nav: m.sifs.saturating_add(ack),
                    seq: cur.seq,
                    retry: cur.retry,
                    handle: cur.msdu.handle,
                    rate: cur.rate,
                    info: MgmtInfo::default(),
                };
                m.response = Some((now + m.sifs, data));
                m.phase = Phase::Sending;
            }
            FrameKind::Ack if matches!(awaiting, Phase::AwaitAck { .. }) => {
                let r = &mut self.radios[ri];
                r.counters.acked += 1;
                let cur = r.mac.current.take().expect("awaiting ACK for a frame");
                r.mac.phase = Phase::Idle;
                if cur.msdu.kind == FrameKind::Data {
                    if let Some(mc) = r.mac.minstrel.get_mut(&cur.msdu.dst) {
                        mc.report(now, cur.rate, true);
                        mc.frame_done(now);
                    }
                }
                if cur.msdu.handle != NO_HANDLE {
                    self.out.push_back(WlanOutput::Released {
                        handle: cur.msdu.handle,
                        radio,
                    });
                }
                self.new_backoff(radio, true);
                if cur.msdu.kind.is_mgmt() {
                    self.mgmt_done(now, radio, cur.msdu.kind);
                }
            }
            _ => {}
        }
        self.mac_arm(now, radio);
    }

    /// A data frame for `radio` (or broadcast) arrived correctly.
    fn receive_data(&mut self, now: Instant, radio: u32, f: &AirFrame) {
        let ri = radio as usize;
        if f.dst == BROADCAST {
            self.out.push_back(WlanOutput::Delivered {
                handle: f.handle,
                radio,
            });
            return;
        }
        if !self.accept_unicast(now, radio, f) {
            return;
        }
        if self.is_ap[ri] && !self.ap_has(radio, f.src) {
            // Data from a station that is not associated: dropped, and
            // the station told so (11.3.3).
            self.radios[ri].counters.not_associated_drops += 1;
            self.ap_reject(now, radio, f.src);
            return;
        }
        let r = &mut self.radios[ri];
        r.counters.rx_data += 1;
        if f.da != radio && r.spec.ap.is_none() && f.da != BROADCAST {
            self.out.push_back(WlanOutput::Relay {
                handle: f.handle,
                radio,
                da: f.da,
            });
        } else {
            self.out.push_back(WlanOutput::Delivered {
                handle: f.handle,
                radio,
            });
        }
    }

    /// A unicast data or management frame for `radio` arrived: schedule the
    /// ACK after SIFS and tell whether it is new (not a retransmission of
    /// the last frame from that transmitter, 802.11-2016 10.3.2.11).
    fn accept_unicast(&mut self, now: Instant, radio: u32, f: &AirFrame) -> bool {
        let r = &mut self.radios[radio as usize];
        let m = &mut r.mac;
        let ack = AirFrame {
            kind: FrameKind::Ack,
            src: radio,
            dst: f.src,
            da: f.src,
            bytes: frame::ACK_LEN,
            nav: Duration::ZERO,
            seq: 0,
            retry: false,
            handle: NO_HANDLE,
            rate: m.p.standard.control_rate(f.rate),
            info: MgmtInfo::default(),
        };
        m.response = Some((now + m.sifs, ack));
        let dup = f.retry && m.last_seq.get(&f.src) == Some(&f.seq);
        m.last_seq.insert(f.src, f.seq);
        if dup {
            r.counters.rx_duplicates += 1;
        }
        !dup
    }

    /// We were waiting for a CTS/ACK past its deadline and some other frame
    /// (or an error) came instead: the exchange failed.
    fn settle_await(&mut self, now: Instant, radio: u32, awaiting: Phase) {
        if let Phase::AwaitCts {
            deadline: Instant::MAX,
        }
        | Phase::AwaitAck {
            deadline: Instant::MAX,
        } = awaiting
        {
            self.tx_failed(now, radio);
        }
    }

    /// No CTS or ACK came (802.11-2016 10.3.4.3): count a retry, double the
    /// window, or drop the frame at the retry limit.
    fn tx_failed(&mut self, now: Instant, radio: u32) {
        let ri = radio as usize;
        let r = &mut self.radios[ri];
        r.counters.failed_tx += 1;
        let m = &mut r.mac;
        let was_rts = matches!(m.phase, Phase::AwaitCts { .. });
        m.phase = Phase::Idle;
        // The timeout counts as busy time: the backoff starts after it plus
        // an IFS, as ns-3's ChannelAccessManager does with its
        // last-ACK/CTS-timeout ends (and Bianchi's Tc with the timeout in).
        let s = &mut self.sense[ri];
        s.idle_since = s.idle_since.max(now);
        let Some(mut cur) = m.current else { return };
        if was_rts || !cur.sent_after_cts {
            cur.short_retries += 1;
        } else {
            cur.long_retries += 1;
        }
        let mc = if cur.msdu.kind == FrameKind::Data {
            m.minstrel.get_mut(&cur.msdu.dst)
        } else {
            None
        };
        let dropping =
            cur.short_retries >= m.p.short_retry_limit || cur.long_retries >= m.p.long_retry_limit;
        if let Some(mc) = mc {
            // A failed RTS says nothing about the data rate.
            if !was_rts {
                mc.report(now, cur.rate, false);
            }
            if dropping {
                mc.frame_done(now);
            }
        }
        cur.sent_after_cts = false;
        if cur.short_retries >= m.p.short_retry_limit || cur.long_retries >= m.p.long_retry_limit {
            m.current = None;
            r.counters.retry_drops += 1;
            let msdu = cur.msdu;
            if msdu.handle != NO_HANDLE {
                self.out.push_back(WlanOutput::RetryDrop {
                    handle: msdu.handle,
                    radio,
                    dst: msdu.dst,
                });
                self.out.push_back(WlanOutput::Released {
                    handle: msdu.handle,
                    radio,
                });
            }
            self.new_backoff(radio, true);
            if msdu.kind.is_mgmt() {
                self.mgmt_done(now, radio, msdu.kind);
            }
        } else {
            cur.retry = true;
            m.cw = ((m.cw + 1) * 2 - 1).min(m.p.cw_max);
            let keep = self.keep_unless_disassociated(radio, cur);
            self.radios[ri].mac.current = keep;
            self.new_backoff(radio, keep.is_none());
        }
    }
}
