//! The explicit handover notification sender (the seed's reference [8]:
//! Izumikawa, Yamaguchi and Katto, "An Efficient TCP with Explicit
//! Handover Notification for Mobile Networks", WCNC 2004), the baseline
//! seed 001 compares Wi-TCP with.
//!
//! As seed 001 §2 and §7 describe it: the *mobile host* sends an ACK with
//! the EHN indication as soon as it hears the advertisement of its new
//! agent; the sender, on that ACK, resets its retransmission timer and
//! adjusts its sending window to the sequence number the notification
//! carries. Here that is:
//!
//! - the notification is the host's own cumulative ACK, so an
//!   acknowledgement beyond SND.UNA (ACKs lost in the handover) is taken as
//!   an ordinary ACK first;
//! - the retransmission back-off and retry count are cleared (the RTO is
//!   the SRTT/RTTVAR one again, RFC 6298 §5.7's fresh start) and the timer
//!   restarts from it;
//! - everything still unacknowledged is marked lost and sent again at once
//!   from the acknowledgement number (go-back-N), under the window as it
//!   stands: unlike Wi-TCP, nothing was frozen before the handover, so a
//!   timeout the sender already took during the disconnection keeps its
//!   reduction (the scheme removes the idle wait for the backed-off timer,
//!   not the window loss).
//!
//! The sender kept sending into the disconnection until then, which is
//! the waste seed 001 §7 holds against this scheme.

use airtcp_core::{Instant, Segment};

use super::Endpoint;
use crate::event::Event;

impl Endpoint {
    pub(super) fn on_ehn(&mut self, now: Instant, seg: &Segment) {
        self.stats.ehn_received += 1;
        if self.snd_off(seg.ack) > self.snd_una as i64 {
            let plain = Segment { witcp: None, ..*seg };
            self.on_synchronized(now, &plain);
        }
        self.rtt.backoff = 0;
        self.retries = 0;
        let lost = self.resend_in_flight(now);
        self.events.push_back(Event::HandoverNotified { lost });
        self.update_persist(now);
    }
}
