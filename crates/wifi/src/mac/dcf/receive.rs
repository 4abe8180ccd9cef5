//! The receiving side of the DCF: the end of our own transmission, a
//! frame received (the NAV, the SIFS responses, data delivered or
//! relayed, duplicates), and a failed exchange's retry or drop.

use airtcp_core::{Duration, Instant};

use super::Phase;
use crate::frame::{self, FrameKind};
use crate::mac::{AirFrame, MgmtInfo, BROADCAST, NO_HANDLE};
use crate::medium::{Wlan, WlanOutput};

impl Wlan {
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
        if f.da != radio && r.bss.ap().is_none() && f.da != BROADCAST {
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
    pub(super) fn tx_failed(&mut self, now: Instant, radio: u32) {
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
