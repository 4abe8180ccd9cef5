//! SACK compression (Linux 4.18 `tcp_comp_sack_nr`, `__tcp_ack_snd_check`):
//! while out-of-order data is queued, a receiver that has sent the first
//! three duplicate ACKs since RCV.NXT last moved holds the next ones for
//! up to min(`comp_sack_delay`, 5 % of its RTT) and sends one ACK with the
//! SACK blocks of all of them. The sender's fast retransmit still gets its
//! three duplicate ACKs at once ("tcp: defer SACK compression after
//! DupThresh", 5.10); what the hold changes is the later SACKs of a
//! recovery, and with them the sender's RTT samples from SACKs.

use airtcp_core::{Duration, Instant};

use super::{Endpoint, TimerKind};

/// `TCP_FASTRETRANS_THRESH`: ACKs sent at once after each RCV.NXT advance.
const DUPTHRESH: u32 = 3;

/// The receiver's compression state (`tp->compressed_ack`,
/// `compressed_ack_rcv_nxt`, `dup_ack_counter`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SackCompress {
    /// ACKs held since the last one sent.
    held: u32,
    /// RCV.NXT when `sent_at_once` was last reset.
    rcv_nxt: u64,
    /// ACKs sent at once at this RCV.NXT while out-of-order data waited.
    sent_at_once: u32,
}

impl Endpoint {
    /// The ACK decision for a segment after which out-of-order data is
    /// queued (`__tcp_ack_snd_check` with the out-of-order queue non-empty):
    /// at once, or held by SACK compression. `grew_window`: the segment
    /// raised the window ceiling, which puts Linux in quick-ACK mode
    /// (`tcp_grow_window` sets `icsk_ack.quick`, and `tcp_data_queue_ofo`
    /// calls it on SACK connections), so it is ACKed at once.
    pub(super) fn ack_out_of_order(&mut self, now: Instant, grew_window: bool) {
        let c = &self.cfg;
        let quick = self.quickacks > 0 || grew_window;
        if c.comp_sack_nr == 0 || !self.sack_ok || quick || self.sack_comp.held >= c.comp_sack_nr {
            self.ack_now = true;
            return;
        }
        let nxt = self.rcv_nxt();
        if self.sack_comp.rcv_nxt != nxt {
            self.sack_comp.rcv_nxt = nxt;
            self.sack_comp.sent_at_once = 0;
        }
        if self.sack_comp.sent_at_once < DUPTHRESH {
            self.sack_comp.sent_at_once += 1;
            self.ack_now = true;
            return;
        }
        self.sack_comp.held += 1;
        if !self.timers.armed(TimerKind::CompressedAck) {
            self.timers.set(TimerKind::CompressedAck, now + self.sack_comp_hold() + self.cfg.comp_sack_slack);
        }
    }

    /// min(`comp_sack_delay`, RTT / 20), the RTT being the receiver's own
    /// estimate (`rcv_rtt_est`), or the smoothed RTT when that is smaller
    /// and known; 0 while neither is.
    fn sack_comp_hold(&self) -> Duration {
        let mut rtt_us8 = self.rs.rtt_us8();
        if self.tp.srtt_us != 0 && (self.tp.srtt_us as u64) < rtt_us8 {
            rtt_us8 = self.tp.srtt_us as u64;
        }
        // rtt_us8 · (1000 >> 3) / 20 ns, as the kernel writes it.
        Duration(self.cfg.comp_sack_delay.0.min(rtt_us8 * 125 / 20))
    }

    /// `tcp_compressed_ack_kick`: the held ACKs go as one (that one is
    /// sent, not compressed: Linux's `TCPAckCompressed` counts the others).
    pub(super) fn on_compressed_ack_timer(&mut self) {
        if self.sack_comp.held > 0 {
            self.sack_comp.held -= 1;
            self.ack_now = true;
        }
    }

    /// `tcp_event_ack_sent`: any ACK sent carries what was held.
    pub(super) fn sack_comp_ack_sent(&mut self) {
        self.stats.acks_compressed += self.sack_comp.held as u64;
        self.sack_comp.held = 0;
        self.timers.stop(TimerKind::CompressedAck);
    }
}
