//! The AP side: beacons at every target beacon transmission time, answers
//! to probes, open-system authentication, (re)association with AIDs, and
//! the table of associated stations that decides which frames it accepts.

use airtcp_core::Instant;

use super::state::{MgmtRole, WILDCARD_SSID};
use super::MgmtEvent;
use crate::frame::FrameKind;
use crate::mac::{AirFrame, MgmtInfo, BROADCAST};
use crate::medium::{Wake, Wlan, WlanOutput};

impl Wlan {
    /// Whether AP `radio` takes frames from / sends frames to `sta`.
    pub(crate) fn ap_has(&self, radio: u32, sta: u32) -> bool {
        match &self.mgmt[radio as usize] {
            MgmtRole::Ap(a) => a.assoc.contains_key(&sta),
            _ => true,
        }
    }

    /// First beacon of every AP at a random offset within its interval, so
    /// that co-channel APs do not beacon in lockstep.
    pub(crate) fn start_beacons(&mut self) {
        for radio in 0..self.radios.len() as u32 {
            if let MgmtRole::Ap(a) = &self.mgmt[radio as usize] {
                let interval = a.interval.as_nanos().max(1);
                let offset = self.rng[radio as usize].below(interval);
                self.push_wake(Instant::from_nanos(offset), Wake::Beacon { radio });
            }
        }
    }

    /// Target beacon transmission time of AP `radio`.
    pub(crate) fn beacon_due(&mut self, now: Instant, radio: u32) {
        let MgmtRole::Ap(a) = &self.mgmt[radio as usize] else {
            return;
        };
        let (ssid, interval) = (self.bss(radio).ssid(), a.interval);
        let info = MgmtInfo {
            ssid,
            channel: self.radios[radio as usize].spec.channel,
            ..Default::default()
        };
        self.enqueue_mgmt(now, radio, FrameKind::Beacon, BROADCAST, info);
        self.push_wake(now + interval, Wake::Beacon { radio });
    }

    /// A management frame reached AP `radio`.
    pub(crate) fn ap_received(&mut self, now: Instant, radio: u32, f: &AirFrame) {
        let MgmtRole::Ap(a) = &mut self.mgmt[radio as usize] else {
            return;
        };
        let ssid = self.radios[radio as usize].bss.ssid();
        let channel = self.radios[radio as usize].spec.channel;
        let reply = MgmtInfo {
            ssid,
            channel,
            ..Default::default()
        };
        match f.kind {
            FrameKind::ProbeReq if f.info.ssid == ssid || f.info.ssid == WILDCARD_SSID => {
                self.enqueue_mgmt(now, radio, FrameKind::ProbeResp, f.src, reply);
            }
            FrameKind::Auth if f.info.auth_seq == 1 => {
                self.enqueue_mgmt(
                    now,
                    radio,
                    FrameKind::Auth,
                    f.src,
                    MgmtInfo {
                        auth_seq: 2,
                        ..reply
                    },
                );
            }
            FrameKind::AssocReq | FrameKind::ReassocReq if f.info.ssid == ssid => {
                let aid = a.admit(f.src);
                let kind = if f.kind == FrameKind::AssocReq {
                    FrameKind::AssocResp
                } else {
                    FrameKind::ReassocResp
                };
                self.enqueue_mgmt(now, radio, kind, f.src, MgmtInfo { aid, ..reply });
                self.out.push_back(WlanOutput::Mgmt {
                    radio,
                    event: MgmtEvent::ApAssociated { sta: f.src, aid },
                });
            }
            FrameKind::Disassoc | FrameKind::Deauth if a.assoc.remove(&f.src).is_some() => {
                self.out.push_back(WlanOutput::Mgmt {
                    radio,
                    event: MgmtEvent::ApDisassociated { sta: f.src },
                });
            }
            _ => {}
        }
    }

    /// Data from a station AP `radio` does not know: tell it to go away
    /// (802.11-2016 11.3.3, reason 7: class 3 frame from a nonassociated STA).
    pub(crate) fn ap_reject(&mut self, now: Instant, radio: u32, sta: u32) {
        if let MgmtRole::Ap(_) = &self.mgmt[radio as usize] {
            let info = MgmtInfo {
                ssid: self.bss(radio).ssid(),
                reason: 7,
                ..Default::default()
            };
            self.enqueue_mgmt(now, radio, FrameKind::Deauth, sta, info);
        }
    }
}
