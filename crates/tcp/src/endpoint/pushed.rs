//! The receiver's "pushed" delayed ACK (Linux `tcp_measure_rcv_mss` and
//! `tcp_cleanup_rbuf`, net/ipv4/tcp_input.c and tcp.c): some in-order
//! segments mark the pending delayed ACK ICSK_ACK_PUSHED, and then the
//! application's read that leaves nothing queued sends it at once instead
//! of waiting for a second segment or the timer. Which segments mark it is
//! `TcpConfig::push_ack`: before Linux 6.6 a segment shorter than the
//! peer's segment size (the end of a write that did not fill a segment);
//! since 6.6 also a full-sized one with PSH (the end of a write that did).
//!
//! The same measurement keeps `rcv_mss`, the receiver's estimate of the
//! peer's segment size: the largest segment seen (at most our advertised
//! MSS), or a shorter length seen twice in a row.
//!
//! Not modelled: interactive ("ping-pong") mode, in which Linux needs two
//! short segments (ICSK_ACK_PUSHED2) before a read sends the ACK; the
//! simulated applications never answer what they read.

use airtcp_core::{Segment, TcpFlags};

use super::{Endpoint, TimerKind};
use crate::config::PushAck;

/// `TCP_MSS_DEFAULT` (include/net/tcp.h): a segment at least this long
/// (with its TCP header) is a real segment-size candidate.
const TCP_MSS_DEFAULT: u32 = 536;
/// `TCP_MIN_MSS` (include/net/tcp.h): without PSH/FIN/URG/SYN a segment of
/// this many bytes or more is taken to be full-sized.
const TCP_MIN_MSS: u32 = 88;
/// Length of the fixed TCP header.
const TCP_HEADER: u32 = 20;
/// `TCPOLEN_TSTAMP_ALIGNED`: the timestamp option every segment carries
/// once negotiated (part of `tp->tcp_header_len`).
const TSTAMP_ALIGNED: u32 = 12;

impl Endpoint {
    /// `tcp_measure_rcv_mss` for an in-order data segment.
    pub(super) fn measure_rcv_mss(&mut self, seg: &Segment) {
        let lss = self.last_seg_size;
        self.last_seg_size = 0;
        let len = seg.payload_len;
        if len >= self.rs.rcv_mss {
            self.rs.rcv_mss = len.min(self.cfg.mss);
            if self.cfg.push_ack == PushAck::Full && seg.flags.contains(TcpFlags::PSH) {
                self.mark_ack_pushed();
            }
            return;
        }
        // Shorter than the estimate: compare lengths free of the SACK
        // blocks' jitter (segment plus header, less the invariant header).
        let with_header = len + seg.header_len();
        let remnant = seg.flags.contains(TcpFlags::PSH) || seg.flags.fin();
        if with_header >= TCP_MSS_DEFAULT + TCP_HEADER || (with_header >= TCP_MIN_MSS + TCP_HEADER && !remnant) {
            let invariant = TCP_HEADER + if self.ts_ok { TSTAMP_ALIGNED } else { 0 };
            let len = with_header.saturating_sub(invariant);
            self.last_seg_size = len;
            if len == lss {
                self.rs.rcv_mss = len;
                return;
            }
        }
        if self.cfg.push_ack != PushAck::Off {
            self.mark_ack_pushed();
        }
    }

    fn mark_ack_pushed(&mut self) {
        self.ack_pushed = true;
    }

    /// `tcp_cleanup_rbuf` after a read: a pushed delayed ACK still pending
    /// goes out once nothing is left queued, in order or out of order
    /// (`sk_rmem_alloc` counts both).
    pub(super) fn ack_pushed_on_read(&mut self) {
        let scheduled = self.delack_segs > 0 || self.timers.armed(TimerKind::DelayedAck);
        if self.ack_pushed && scheduled && self.rcv.unread() == 0 && self.rcv.ooo.is_empty() {
            self.ack_now = true;
        }
    }
}
