//! The sending side of the DCF: frames handed to the MAC, contention
//! after a retune or a probe, the MAC timer, and the head-of-line frame
//! put on the air (RTS, unicast data or broadcast).

use airtcp_core::{Duration, Instant};

use super::{Current, Msdu, Phase};
use crate::frame::{self, FrameKind};
use crate::mac::minstrel::Minstrel;
use crate::mac::{AirFrame, MgmtInfo, RateControl, BROADCAST, NO_HANDLE};
use crate::medium::Wlan;

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
            if let Some(ap) = r.bss.ap() {
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
                    let (me, peer) = (&self.names[radio as usize], &self.names[msdu.dst as usize]);
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

}
