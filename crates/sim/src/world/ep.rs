//! The two kinds of TCP end a host can run: the Linux-style [`Endpoint`]
//! or one end of an ns-2 agent pair (`profile = "ns2-*"`). The hosts, the
//! applications and the report call the same few socket-like methods on both.

use airtcp_core::{Ecn, Instant, Segment};
use airtcp_tcp::{Endpoint, Event, Probe, State, TcpStats};

use super::ns2host::Ns2Host;

/// The Linux endpoint is held inline (the hot path of every run); the
/// smaller ns-2 end is boxed so the enum costs no more than before.
#[allow(clippy::large_enum_variant)]
pub(crate) enum HostEp {
    Linux(Endpoint),
    Ns2(Box<Ns2Host>),
}

impl HostEp {
    #[inline]
    pub fn handle_segment_ecn(&mut self, now: Instant, seg: &Segment, ecn: Ecn) {
        match self {
            HostEp::Linux(e) => e.handle_segment_ecn(now, seg, ecn),
            HostEp::Ns2(n) => n.handle_segment(now, seg),
        }
    }

    /// Freeze-TCP is a Linux-endpoint feature only.
    pub fn freeze_enabled(&self) -> bool {
        matches!(self, HostEp::Linux(e) if e.config().freeze)
    }

    pub fn freeze(&mut self, now: Instant) -> bool {
        match self {
            HostEp::Linux(e) => e.freeze(now),
            HostEp::Ns2(_) => false,
        }
    }

    pub fn unfreeze(&mut self, now: Instant) -> bool {
        match self {
            HostEp::Linux(e) => e.unfreeze(now),
            HostEp::Ns2(_) => false,
        }
    }

    pub fn connect(&mut self, now: Instant) {
        match self {
            HostEp::Linux(e) => e.connect(now),
            HostEp::Ns2(n) => n.connect(),
        }
    }

    #[inline]
    pub fn poll_timeout(&self) -> Option<Instant> {
        match self {
            HostEp::Linux(e) => e.poll_timeout(),
            HostEp::Ns2(n) => n.poll_timeout(),
        }
    }

    pub fn handle_timeout(&mut self, now: Instant) {
        match self {
            HostEp::Linux(e) => e.handle_timeout(now),
            HostEp::Ns2(n) => n.handle_timeout(now),
        }
    }

    #[inline]
    pub fn poll_event(&mut self) -> Option<Event> {
        match self {
            HostEp::Linux(e) => e.poll_event(),
            HostEp::Ns2(n) => n.poll_event(),
        }
    }

    #[inline]
    pub fn has_events(&self) -> bool {
        match self {
            HostEp::Linux(e) => e.has_events(),
            HostEp::Ns2(n) => n.has_events(),
        }
    }

    #[inline]
    pub fn poll_transmit_ecn(&mut self, now: Instant) -> Option<(Segment, Ecn)> {
        match self {
            HostEp::Linux(e) => e.poll_transmit_ecn(now),
            HostEp::Ns2(n) => n.poll_transmit(now).map(|s| (s, Ecn::NotEct)),
        }
    }

    pub fn stats(&self) -> &TcpStats {
        match self {
            HostEp::Linux(e) => e.stats(),
            HostEp::Ns2(n) => n.stats(),
        }
    }

    pub fn probe(&self) -> Probe {
        match self {
            HostEp::Linux(e) => e.probe(),
            HostEp::Ns2(n) => n.probe(),
        }
    }

    pub fn close(&mut self) {
        if let HostEp::Linux(e) = self {
            e.close()
        }
    }

    #[inline]
    pub fn send(&mut self, bytes: u64) -> u64 {
        match self {
            HostEp::Linux(e) => e.send(bytes),
            HostEp::Ns2(n) => n.send(bytes),
        }
    }

    #[inline]
    pub fn send_capacity(&self) -> u64 {
        match self {
            HostEp::Linux(e) => e.send_capacity(),
            HostEp::Ns2(n) => n.send_capacity(),
        }
    }

    #[inline]
    pub fn recv(&mut self, max: u64) -> Option<(u64, u64)> {
        match self {
            HostEp::Linux(e) => e.recv(max),
            HostEp::Ns2(n) => n.recv(max),
        }
    }

    pub fn ecn_enabled(&self) -> bool {
        matches!(self, HostEp::Linux(e) if e.ecn_enabled())
    }

    /// ns-2's one-way agents have no connection state: always Established.
    pub fn state(&self) -> State {
        match self {
            HostEp::Linux(e) => e.state(),
            HostEp::Ns2(_) => State::Established,
        }
    }
}
