//! Every medium of a network in one type, [`AnyMedium`] (static dispatch
//! over the implementations of [`Medium`]), and the 802.11 WLAN's adapter
//! to the seam (the crate `airtcp-wifi` knows nothing of it).

use airtcp_core::Instant;
use airtcp_wifi::mac::MacCounters;
use airtcp_wifi::medium::{Wlan, WlanOutput};

use super::cells::Cells;
use super::channel::PointToPoint;
use super::medium::{DynRadio, Medium, RadioMedium, Tx};

/// Every medium of a network. Links stay inline (they are most of a
/// network's media and the hot path); the radio media are boxed.
// Links inline on purpose: boxing them would add a pointer chase to every
// packet's path; the rare radio media are the boxed ones.
#[allow(clippy::large_enum_variant)]
pub enum AnyMedium {
    Link(PointToPoint),
    Wlan(Box<Wlan>),
    Cells(Box<Cells>),
}

impl AnyMedium {
    #[inline]
    pub fn poll_timeout(&self) -> Option<Instant> {
        match self {
            AnyMedium::Link(c) => c.poll_timeout(),
            AnyMedium::Wlan(w) => Medium::poll_timeout(&**w),
            AnyMedium::Cells(c) => Medium::poll_timeout(&**c),
        }
    }

    #[inline]
    pub fn timer_slots(&self) -> usize {
        match self {
            AnyMedium::Link(c) => c.timer_slots(),
            AnyMedium::Wlan(w) => w.timer_slots(),
            AnyMedium::Cells(c) => c.timer_slots(),
        }
    }

    /// Offer a frame to a radio medium (false: not queued, or not a radio
    /// medium). Static dispatch: the radio path runs per frame.
    #[inline]
    pub fn radio_send(&mut self, now: Instant, tx: Tx<'_>) -> bool {
        match self {
            AnyMedium::Link(_) => false,
            AnyMedium::Wlan(w) => Medium::send(&mut **w, now, tx),
            AnyMedium::Cells(c) => Medium::send(&mut **c, now, tx),
        }
    }

    /// Next report of a radio medium (none from a link).
    #[inline]
    pub fn radio_output(&mut self) -> Option<WlanOutput> {
        match self {
            AnyMedium::Link(_) => None,
            AnyMedium::Wlan(w) => Medium::poll_output(&mut **w),
            AnyMedium::Cells(c) => Medium::poll_output(&mut **c),
        }
    }

    /// Advance a medium to `now`.
    #[inline]
    pub fn handle_timeout(&mut self, now: Instant) {
        match self {
            AnyMedium::Link(c) => c.handle_timeout(now),
            AnyMedium::Wlan(w) => Medium::handle_timeout(&mut **w, now),
            AnyMedium::Cells(c) => Medium::handle_timeout(&mut **c, now),
        }
    }

    /// The link-layer next hop of a frame from radio `from` for radio `da`
    /// ([`RadioMedium::next_hop`]).
    #[inline]
    pub fn radio_next_hop(&self, from: u32, da: u32) -> u32 {
        match self {
            AnyMedium::Link(_) => da,
            AnyMedium::Wlan(w) => RadioMedium::next_hop(&**w, from, da),
            AnyMedium::Cells(c) => RadioMedium::next_hop(&**c, from, da),
        }
    }

    /// The radio medium, if this is one, for its rarer questions.
    #[inline]
    pub fn radio(&self) -> Option<&DynRadio> {
        match self {
            AnyMedium::Link(_) => None,
            AnyMedium::Wlan(w) => Some(&**w),
            AnyMedium::Cells(c) => Some(&**c),
        }
    }

    #[inline]
    pub fn radio_mut(&mut self) -> Option<&mut DynRadio> {
        match self {
            AnyMedium::Link(_) => None,
            AnyMedium::Wlan(w) => Some(&mut **w),
            AnyMedium::Cells(c) => Some(&mut **c),
        }
    }

    /// The 802.11 medium, for what only it models: monitor-mode captures
    /// (radiotap needs its PHY), per-link frame counts of a mesh.
    #[inline]
    pub fn wlan(&self) -> Option<&Wlan> {
        match self {
            AnyMedium::Wlan(w) => Some(w),
            _ => None,
        }
    }

    #[inline]
    pub fn wlan_mut(&mut self) -> Option<&mut Wlan> {
        match self {
            AnyMedium::Wlan(w) => Some(w),
            _ => None,
        }
    }

    /// The point-to-point cells, if this is them.
    #[inline]
    pub fn cells_mut(&mut self) -> Option<&mut Cells> {
        match self {
            AnyMedium::Cells(c) => Some(c),
            _ => None,
        }
    }

    /// The point-to-point link, if this is one.
    #[inline(always)]
    pub fn link(&mut self) -> Option<&mut PointToPoint> {
        match self {
            AnyMedium::Link(c) => Some(c),
            _ => None,
        }
    }
}

/// The 802.11 WLAN (crate `airtcp-wifi`) behind the seam: its own methods
/// under the seam's names.
impl Medium for Wlan {
    type Verdict = bool;
    type Output = WlanOutput;

    fn timer_slots(&self) -> usize {
        1
    }

    fn start(&mut self) {
        Wlan::start(self)
    }

    fn send(&mut self, now: Instant, tx: Tx<'_>) -> bool {
        self.enqueue(now, tx.from, tx.frame, tx.ip_bytes, tx.to)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        Wlan::poll_timeout(self)
    }

    fn handle_timeout(&mut self, now: Instant) {
        Wlan::handle_timeout(self, now)
    }

    fn poll_output(&mut self) -> Option<WlanOutput> {
        Wlan::poll_output(self)
    }
}

impl RadioMedium for Wlan {
    fn is_ap(&self, radio: u32) -> bool {
        Wlan::is_ap(self, radio)
    }

    /// A station hands its frames to the AP it is associated with (To-DS,
    /// 802.11-2016 9.2.4.1.4), not to another AP of the ESS that the route
    /// computation happened to reach it through: that AP would only relay
    /// it over the air.
    fn next_hop(&self, from: u32, da: u32) -> u32 {
        if da != airtcp_wifi::mac::BROADCAST && !Wlan::is_ap(self, from) && Wlan::is_ap(self, da) {
            if let Some(ap) = self.associated_ap(from) {
                return ap;
            }
        }
        da
    }

    fn mac_queue_len(&self, radio: u32) -> usize {
        Wlan::mac_queue_len(self, radio)
    }

    fn radio_count(&self) -> usize {
        Wlan::radio_count(self)
    }

    fn counters(&self, radio: u32) -> &MacCounters {
        Wlan::counters(self, radio)
    }

    fn signal_series(&self, radio: u32) -> &[(Instant, f32)] {
        Wlan::signal_series(self, radio)
    }

    fn ap_at_end(&self, radio: u32, _end: Instant) -> Option<u32> {
        self.associated_ap(radio)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use airtcp_core::Ecn;
    use crate::link::{LinkDir, QueueLimit, RateModel, Verdict};
    use crate::network::cells::{CellParams, CellRadio};
    use airtcp_core::Duration;

    /// Offer one frame from attachment 0 toward attachment 1 and run the
    /// medium to quiet through the seam alone; returns when it went quiet.
    fn offer_and_drain<M: Medium>(m: &mut M, frame: u32) -> (M::Verdict, Vec<M::Output>, Instant) {
        let verdict = m.send(Instant::ZERO, Tx { from: 0, to: 1, frame, ip_bytes: 1000, ecn: &mut Ecn::NotEct });
        let mut out = Vec::new();
        let mut last = Instant::ZERO;
        while let Some(t) = m.poll_timeout() {
            m.handle_timeout(t);
            last = t;
            out.extend(std::iter::from_fn(|| m.poll_output()));
        }
        (verdict, out, last)
    }

    #[test]
    fn link_delivers_through_the_seam_after_transmission_and_delay() {
        // 8 Mb/s: 1000 bytes (+ 2 of PPP) take 1002 us; 10 ms propagation.
        let dir = || LinkDir::new(RateModel::Constant { bps: 8_000_000 }, Duration::from_millis(10), QueueLimit::Packets(10), 2);
        let mut link = AnyMedium::Link(PointToPoint::new(dir(), dir()));
        assert_eq!(link.timer_slots(), 2);
        assert!(link.radio().is_none());
        let (verdict, out, at) = offer_and_drain(link.link().unwrap(), 7);
        assert!(matches!(verdict, Verdict::Delivered { .. }));
        assert_eq!(out, vec![crate::network::Delivery { frame: 7, end: 1, ip_bytes: 1000 }]);
        assert_eq!(at, Instant::ZERO + Duration::from_micros(11_002));
    }

    #[test]
    fn cells_deliver_through_the_seam_then_release() {
        // Radio 0 a base station, radio 1 a station in its cell; 8 Mb/s, 1 ms.
        let radios = vec![CellRadio { is_ap: true, queue_limit: 10, timeline: Vec::new() }, CellRadio::station(10, Some(0), &[])];
        let mut cells = Cells::new(CellParams { bps: 8_000_000, delay: Duration::from_millis(1), attempts: 7 }, radios);
        let (queued, out, at) = offer_and_drain(&mut cells, 3);
        assert!(queued);
        assert!(matches!(out[..], [WlanOutput::Delivered { handle: 3, radio: 1 }, WlanOutput::Released { handle: 3, radio: 0 }]), "{out:?}");
        assert_eq!(at, Instant::ZERO + Duration::from_micros(2_000));
        let any = AnyMedium::Cells(Box::new(cells));
        assert_eq!(any.timer_slots(), 1);
        let r = any.radio().unwrap();
        assert!(r.is_ap(0) && !r.is_ap(1));
        assert_eq!(r.next_hop(1, 0), 0);
        assert_eq!(r.ap_at_end(1, Instant::ZERO + Duration::from_secs(1)), Some(0));
        assert_eq!(r.counters(1).rx_data, 1);
    }
}
