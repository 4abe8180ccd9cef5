//! What a station's MAC does with its data frames when it loses its
//! association, modelled on Linux mac80211 (read in net/mac80211/mlme.c and
//! tx.c):
//!
//! - **Frames queued for the old AP are dropped at the disassociation.**
//!   `ieee80211_set_disassoc` turns the carrier off, waits for the
//!   transmission under way (`synchronize_net`), then calls
//!   `ieee80211_flush_queues(local, sdata, true)` — *drop* — before it sends
//!   the deauthentication or disassociation frame ("drop any frame before
//!   deauth/disassoc … we should not insist sending these frames which can
//!   take time and delay the disconnection and possible the roaming"), and
//!   `sta_info_flush` then destroys the AP's station entry with its
//!   per-station queues. So nothing queued toward the old AP survives to be
//!   sent after the station reassociates.
//! - **Data given to a station while it is not associated is dropped.**
//!   `ieee80211_tx_h_check_assoc` drops a unicast data frame whose receiver
//!   is not an associated station (`!test_sta_flag(tx->sta,
//!   WLAN_STA_ASSOC)`: "dropped data frame to not associated station"), and
//!   with the carrier off the interface's queue discipline is the no-op one
//!   that discards what it is given.
//!
//! A scan while still associated (a signal-triggered one that may stay)
//! is not a disassociation: mac80211 only stops the data queues for it
//! (`ieee80211_offchannel_stop_vifs`) and sends what waited afterwards; that
//! is the `parked` frame and `data_allowed` of `DcfState`.

use airtcp_core::Instant;

use super::{Current, Msdu, Phase};
use crate::frame::FrameKind;
use crate::mac::NO_HANDLE;
use crate::medium::{Wlan, WlanOutput};

impl Wlan {
    /// Station `radio` lost its association (left, was kicked, lost the
    /// beacons, or roams to another AP): no data may go, and every data
    /// frame it holds is dropped, except one on the air now, whose exchange
    /// ends as it would (`synchronize_net`: the transmission finishes) and
    /// which is dropped then if it needs a retry.
    pub(crate) fn mac_disassociated(&mut self, now: Instant, radio: u32) {
        let m = &mut self.radios[radio as usize].mac;
        m.associated = false;
        m.data_allowed = false;
        let mut dropped = std::mem::take(&mut m.queue);
        if let Some(p) = m.parked.take() {
            dropped.push_front(p.msdu);
        }
        if m.phase == Phase::Idle && m.current.is_some_and(|c| c.msdu.kind == FrameKind::Data) {
            let c = m.current.take().expect("checked above");
            dropped.push_front(c.msdu);
            self.new_backoff(radio, true);
        }
        for msdu in dropped.drain(..) {
            self.flush_data_frame(radio, msdu);
        }
        // The queue's storage is kept (no allocation at the next frames).
        self.radios[radio as usize].mac.queue = dropped;
        self.kick(now, radio);
    }

    /// The station is associated again: its data may be queued and sent.
    pub(crate) fn mac_associated(&mut self, radio: u32) {
        let m = &mut self.radios[radio as usize].mac;
        m.associated = true;
        m.data_allowed = true;
    }

    /// A data frame that would wait (set aside, or retried) while its
    /// station is not associated: dropped instead (see the module doc).
    /// Returns the frame back when the station is associated.
    pub(super) fn keep_unless_disassociated(&mut self, radio: u32, cur: Current) -> Option<Current> {
        if cur.msdu.kind != FrameKind::Data || self.radios[radio as usize].mac.associated {
            return Some(cur);
        }
        self.flush_data_frame(radio, cur.msdu);
        None
    }

    fn flush_data_frame(&mut self, radio: u32, msdu: Msdu) {
        self.radios[radio as usize].counters.disassoc_flushed += 1;
        if msdu.handle != NO_HANDLE {
            self.out.push_back(WlanOutput::Released { handle: msdu.handle, radio });
        }
    }
}
