//! The seam between the network and what carries its frames: every medium
//! (a point-to-point link, constant-rate or trace-driven; the 802.11 WLAN;
//! the point-to-point cells of `[wifi] medium = "p2p"`) is a [`Medium`],
//! and the network holds them all in one list of [`super::AnyMedium`].
//!
//! A medium is sans-IO: the network offers it frames ([`Medium::send`]),
//! asks when it next has something to do ([`Medium::poll_timeout`]), lets
//! time pass ([`Medium::handle_timeout`]) and collects what it reports
//! ([`Medium::poll_output`]). The network keeps the event queue's entries
//! for it (one event kind, `Ev::Medium`, for every medium's timers) and
//! the frames themselves: a medium holds slab indices only.
//!
//! What a medium says back is its own vocabulary (`Verdict`, `Output`),
//! because the two families say different things: a link hands a frame
//! over for good when it arrives and reports where a transmission started
//! (for its capture); a radio medium keeps a frame until its MAC releases
//! it, may deliver it to several radios, and reports management steps,
//! retry drops and captures. The network has one adapter per vocabulary
//! (the link path in `fast.rs`, the radio path in `wireless.rs`); the radio
//! media share theirs, [`RadioMedium`].
//!
//! Dispatch is static: `AnyMedium` (`any_medium.rs`, with the 802.11
//! WLAN's adapter) is an enum, so the link's path (the simulator's
//! innermost loop) is a discriminant test and then the inlined link code,
//! as it was before media shared a seam.

use airtcp_core::{Ecn, Instant};
use airtcp_wifi::mac::MacCounters;
use airtcp_wifi::medium::WlanOutput;

/// A frame offered to a medium: `frame` (slab index) of `ip_bytes` from
/// attachment `from` toward attachment `to`. A link's attachments are its
/// ends (0: the scenario's `a`, 1: `b`) and `to` is implied (the other
/// end); a radio medium's attachments are its radios, `to` a radio or
/// `airtcp_wifi::mac::BROADCAST`. `ecn` is the codepoint of the header
/// queues act on; a marking queue sets it to CE.
pub struct Tx<'a> {
    pub from: u32,
    pub to: u32,
    pub frame: u32,
    pub ip_bytes: u32,
    pub ecn: &'a mut Ecn,
}

/// What carries frames between the interfaces attached to it.
pub trait Medium {
    /// What offering a frame returns.
    type Verdict;
    /// What the medium reports after `handle_timeout`.
    type Output;
    /// Entries the network may keep in the event queue for this medium at
    /// once: a link has two independent heads (data one way, ACKs the
    /// other), so one entry per head; a radio medium has one clock.
    fn timer_slots(&self) -> usize;
    /// Work due at the start of the run (a WLAN's beacons and first scans,
    /// the cells' first associations); reported through `poll_output`.
    fn start(&mut self) {}
    /// Offer a frame at `now`.
    fn send(&mut self, now: Instant, tx: Tx<'_>) -> Self::Verdict;
    /// Earliest instant at which `handle_timeout` has something to do.
    fn poll_timeout(&self) -> Option<Instant>;
    /// Advance to `now`: what falls due by then becomes output.
    fn handle_timeout(&mut self, now: Instant);
    /// Next report, in order.
    fn poll_output(&mut self) -> Option<Self::Output>;
}

/// A radio medium: attachments are radios, some of them access points (or
/// base stations), and what it reports is [`WlanOutput`]. `send` answers
/// whether the radio's queue took the frame (if not, the caller frees it).
pub trait RadioMedium: Medium<Verdict = bool, Output = WlanOutput> {
    fn is_ap(&self, radio: u32) -> bool;
    /// The radio a frame from `from` meant for radio `da` is handed to: the
    /// link-layer next hop (the 802.11 WLAN sends a station's frames to the
    /// AP it is associated with).
    fn next_hop(&self, _from: u32, da: u32) -> u32 {
        da
    }
    /// Data frames in `radio`'s MAC (queued, on the air or awaiting a retry).
    fn mac_queue_len(&self, radio: u32) -> usize;
    fn radio_count(&self) -> usize;
    fn counters(&self, radio: u32) -> &MacCounters;
    /// A station's received signal over the run (empty where not modelled).
    fn signal_series(&self, radio: u32) -> &[(Instant, f32)];
    /// The AP (base station) `radio` is attached to at `end`, the run's end.
    fn ap_at_end(&self, radio: u32, end: Instant) -> Option<u32>;
}

/// A radio medium behind a pointer: the network's radio path is rare next
/// to the link path, and one vtable serves both radio media.
pub type DynRadio = dyn RadioMedium;
