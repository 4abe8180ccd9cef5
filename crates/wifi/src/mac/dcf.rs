//! DCF channel access (802.11-2016 10.3.2–10.3.4), computed rather than
//! ticked: a radio with a backoff of k slots that saw the medium go idle at
//! t0 transmits at t0 + IFS + k·slot unless the medium turns busy first, in
//! which case the slots that elapsed are subtracted and the count freezes.
//! So a radio costs an event when something happens to it, not per slot.
//!
//! This file holds what a radio's DCF keeps ([`DcfState`], [`Sense`]); the
//! medium owns one of each per radio, and the behaviour lives in the parts
//! below as methods of the medium, which reach the other radios: `send`
//! (queues, contention, the head-of-line frame), `receive` (responses, the
//! NAV, retries), `carrier` (carrier sense and the backoff's freeze) and
//! `assoc` (what a lost association does to queued data). Keeping the
//! state here, apart from those methods, lets the medium hold it without
//! this file depending back on the medium.

mod assoc;
mod carrier;
mod receive;
mod send;

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use airtcp_core::{Duration, Instant};

use super::minstrel::Minstrel;
use super::{AirFrame, MacParams, MgmtInfo};

use crate::frame::FrameKind;
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

/// A radio's backoff, carrier-sense and timer bookkeeping: what a busy or
/// idle flip of its medium reads and writes. Kept in a dense array beside
/// `medium::Air` rather than in the kilobyte of `DcfState`: on the campus
/// benchmark 82 % of the flips (56 M in 10 s simulated) were at radios with
/// nothing to send, and each touched several cache lines of the radio's
/// MAC state. A flip at a quiet radio now reads this one line and `Air`.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(crate) struct Sense {
    /// When the medium last turned idle (the IFS and backoff count from here).
    pub(crate) idle_since: Instant,
    /// When the MAC timer is armed (`Instant::MAX`: not armed), and the
    /// stamp of its wake (0: none), which tells it from stale ones.
    pub(crate) armed: Instant,
    pub(crate) stamp: u64,
    /// Remaining backoff slots, while a backoff (or post-backoff) is pending.
    pub(crate) backoff: Option<u32>,
    /// The last frame received was in error: defer EIFS instead of DIFS
    /// (802.11-2016 10.3.2.3.7) until a frame is received correctly.
    pub(crate) eifs: bool,
    /// At the last `mac_arm` the MAC was idle with no frame that may
    /// contend and no SIFS response: a flip or a wake then only moves the
    /// (post-)backoff and the NAV timer, which this record holds. Every
    /// change that ends quiet (a frame queued, data allowed again, a
    /// response scheduled, a retune) is followed by `mac_arm` before the
    /// radio's carrier sense is asked again, or clears the flag itself.
    pub(crate) quiet: bool,
    slot: Duration,
    difs: Duration,
    eifs_time: Duration,
}

impl Sense {
    pub(crate) fn new(p: &MacParams) -> Sense {
        let std = p.standard;
        Sense {
            idle_since: Instant::ZERO,
            armed: Instant::MAX,
            stamp: 0,
            backoff: None,
            eifs: false,
            quiet: false,
            slot: std.slot(),
            difs: std.difs(),
            eifs_time: std.eifs(),
        }
    }

    fn ifs(&self) -> Duration {
        if self.eifs {
            self.eifs_time
        } else {
            self.difs
        }
    }

    /// When the backoff ends, if the medium stays idle.
    #[inline]
    pub(crate) fn backoff_end(&self) -> Option<Instant> {
        let k = self.backoff?;
        Some(self.idle_since + self.ifs() + self.slot.saturating_mul(k as u64))
    }

    /// The medium turned busy at `now`: subtract the whole slots that
    /// elapsed after the IFS from the backoff (it freezes there).
    #[inline]
    fn freeze(&mut self, now: Instant) {
        if let Some(k) = self.backoff {
            let start = self.idle_since + self.ifs();
            if now > start {
                let slots = whole_slots(now.saturating_since(start).as_nanos(), self.slot.as_nanos()) as u32;
                self.backoff = Some(k.saturating_sub(slots));
            }
        }
    }
}

/// `elapsed / slot` (a slot of 0 counts as 1). Every standard's slot is
/// 9 or 20 µs: dividing by those as constants is a multiplication, where
/// a division by the run-time value stalled each freeze of a backoff (a
/// few million per simulated second on a campus).
#[inline]
fn whole_slots(elapsed: u64, slot: u64) -> u64 {
    match slot {
        9_000 => elapsed / 9_000,
        20_000 => elapsed / 20_000,
        s => elapsed / s.max(1),
    }
}

#[cfg(test)]
mod tests {
    use super::whole_slots;

    #[test]
    fn whole_slots_is_the_plain_quotient() {
        for slot in [9_000u64, 20_000, 13_000, 0] {
            for elapsed in [0u64, 1, 8_999, 9_000, 9_001, 19_999, 20_000, 180_017, 9_000 * 1_023 + 8_999, u64::MAX] {
                assert_eq!(whole_slots(elapsed, slot), elapsed / slot.max(1), "{elapsed} / {slot}");
            }
        }
    }
}
