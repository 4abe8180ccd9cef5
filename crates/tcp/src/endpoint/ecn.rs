//! Explicit Congestion Notification (RFC 3168) as Linux runs it.
//!
//! * Negotiation (RFC 3168 §6.1.1): an `ecn = on` client puts ECE + CWR on
//!   its SYN (`tcp_ecn_send_syn`); a listener with `ecn != off` that sees
//!   both on a Not-ECT SYN answers with ECE alone (`tcp_ecn_create_request`,
//!   `tcp_ecn_make_synack`); the client keeps ECN only for a SYN-ACK with
//!   ECE and without CWR (`tcp_ecn_rcv_synack`). A retransmitted SYN goes
//!   out without the flags (`tcp_ecn_clear_syn`, `tcp_ecn_fallback = 1`), in
//!   case a middlebox dropped the first for carrying them.
//! * Sending (`tcp_ecn_send`): only new data is ECT(0); pure ACKs, SYNs and
//!   retransmissions are Not-ECT (RFC 3168 §6.1.5: a retransmission must
//!   not be ECT). The first new data segment after a reduction carries CWR
//!   (`TCP_ECN_QUEUE_CWR`); every segment carries ECE while the receiver
//!   owes the echo (`TCP_ECN_DEMAND_CWR`).
//! * Receiving data (`__tcp_ecn_check_ce`): CE sets `DEMAND_CWR` and quick
//!   ACKs the next two segments, so a sender with a tiny cwnd hears soon;
//!   a data segment with CWR ends the echo and is ACKed at once
//!   (`tcp_ecn_accept_cwr`).
//! * Receiving ACKs: ECE is `FLAG_ECE`, which makes the ACK dubious; from
//!   Open or Disorder the sender enters CWR (`tcp_enter_cwr`): ssthresh
//!   from the congestion module, PRR down to it over the next round trip
//!   (`tcp_cwnd_reduction`), once per window because CWR (and Recovery,
//!   Loss) ignore further ECEs; CWR ends once something above the recovery
//!   point is ACKed, so the CWR segment surely arrived
//!   (`tcp_fastretrans_alert`, `tcp_end_cwnd_reduction`).

use airtcp_core::{Ecn, Segment, TcpFlags};

use super::flags::Mode;
use super::Endpoint;
use crate::cc::{CaState, CongestionOps};
use crate::config::EcnMode;

// `tp->ecn_flags` bits, values as in include/net/tcp.h.
/// ECN was negotiated for this connection.
pub(super) const TCP_ECN_OK: u8 = 1;
/// A reduction happened: the next new data segment carries CWR.
pub(super) const TCP_ECN_QUEUE_CWR: u8 = 2;
/// A CE mark arrived: echo ECE until the peer's CWR.
pub(super) const TCP_ECN_DEMAND_CWR: u8 = 4;
/// An ECT or CE data segment arrived at some point.
pub(super) const TCP_ECN_SEEN: u8 = 8;

/// `tcp_enter_quickack_mode(sk, 2)` on CE: "better not delay acks, sender
/// can have a very low cwnd" (`__tcp_ecn_check_ce`).
const CE_QUICKACKS: u32 = 2;

impl Endpoint {
    #[inline]
    pub(super) fn ecn_ok(&self) -> bool {
        self.ecn_flags & TCP_ECN_OK != 0
    }

    /// Whether ECN was negotiated on this connection.
    pub fn ecn_enabled(&self) -> bool {
        self.ecn_ok()
    }

    /// ECE / CWR for our SYN (`tcp_ecn_send_syn`); a retransmitted SYN
    /// drops them (`tcp_ecn_clear_syn`) but the request stands, so a
    /// SYN-ACK to the first SYN still enables ECN.
    pub(super) fn ecn_syn_flags(&mut self) -> TcpFlags {
        if !self.syn_retransmitted {
            self.ecn_flags = if self.cfg.ecn == EcnMode::On { TCP_ECN_OK } else { 0 };
        }
        if self.ecn_ok() && !self.syn_retransmitted {
            TcpFlags::ECE | TcpFlags::CWR
        } else {
            TcpFlags::NONE
        }
    }

    /// ECE for our SYN-ACK when we accepted the peer's request
    /// (`tcp_ecn_make_synack`).
    pub(super) fn ecn_synack_flags(&self) -> TcpFlags {
        if self.ecn_ok() {
            TcpFlags::ECE
        } else {
            TcpFlags::NONE
        }
    }

    /// A listener's answer to the peer's SYN (`tcp_ecn_create_request`):
    /// ECE and CWR both set asks for ECN; an ECT SYN is refused since RFC
    /// 3168 §6.1.1 forbids it, so something on the path is rewriting the
    /// field.
    pub(super) fn ecn_rcv_syn(&mut self, seg: &Segment) {
        let asks = seg.flags.contains(TcpFlags::ECE | TcpFlags::CWR);
        let ok = asks && self.cfg.ecn != EcnMode::Off && !self.rx_ecn.is_ect();
        self.ecn_flags = if ok { TCP_ECN_OK } else { 0 };
    }

    /// The client's check of the SYN-ACK (`tcp_ecn_rcv_synack`): ECN only
    /// if it carries ECE and not CWR (ECE + CWR is a reflected SYN from a
    /// peer that does not understand the bits, RFC 3168 §6.1.1).
    pub(super) fn ecn_rcv_synack(&mut self, seg: &Segment) {
        if self.ecn_ok() && (!seg.flags.contains(TcpFlags::ECE) || seg.flags.contains(TcpFlags::CWR)) {
            self.ecn_flags &= !TCP_ECN_OK;
        }
    }

    /// ECE on every non-SYN segment while the receiver owes the echo
    /// (`tcp_ecn_send`, last branch).
    #[inline]
    pub(super) fn ecn_echo(&self, seg: &mut Segment) {
        if self.ecn_ok() && self.ecn_flags & TCP_ECN_DEMAND_CWR != 0 {
            seg.flags |= TcpFlags::ECE;
        }
    }

    /// `tcp_ecn_send` for a data segment: new data is ECT(0) and takes a
    /// queued CWR; a retransmission is Not-ECT.
    pub(super) fn ecn_data_sent(&mut self, seg: &mut Segment, new_data: bool) {
        self.tx_ect = false;
        if !self.ecn_ok() || seg.payload_len == 0 || !new_data {
            return;
        }
        self.tx_ect = true;
        if self.ecn_flags & TCP_ECN_QUEUE_CWR != 0 {
            self.ecn_flags &= !TCP_ECN_QUEUE_CWR;
            seg.flags |= TcpFlags::CWR;
            self.stats.cwr_sent += 1;
        }
    }

    /// `tcp_ecn_queue_cwr`: called by every reduction (CWR, Recovery, Loss).
    #[inline]
    pub(super) fn ecn_queue_cwr(&mut self) {
        if self.ecn_ok() {
            self.ecn_flags |= TCP_ECN_QUEUE_CWR;
        }
    }

    /// `tcp_ecn_withdraw_cwr`: an undone reduction owes the peer no CWR.
    #[inline]
    pub(super) fn ecn_withdraw_cwr(&mut self) {
        self.ecn_flags &= !TCP_ECN_QUEUE_CWR;
    }

    /// `tcp_ecn_accept_cwr` for an acceptable data segment: the sender
    /// reduced, stop echoing, and ACK now since its cwnd may be tiny.
    pub(super) fn ecn_accept_cwr(&mut self, seg: &Segment) {
        if seg.flags.contains(TcpFlags::CWR) && seg.payload_len > 0 {
            self.ecn_flags &= !TCP_ECN_DEMAND_CWR;
            self.ack_now = true;
        }
    }

    /// `__tcp_ecn_check_ce` for data accepted in or out of order (called
    /// from `tcp_event_data_recv` and `tcp_data_queue_ofo`).
    pub(super) fn ecn_check_ce(&mut self) {
        if !self.ecn_ok() {
            return;
        }
        match self.rx_ecn {
            Ecn::NotEct => {
                // "If ECT is not set on a segment, and we already seen ECT
                // on a previous segment, it is probably a retransmit":
                // quick ACKs, as for any sign of loss.
                if self.ecn_flags & TCP_ECN_SEEN != 0 {
                    self.quickacks = self.quickacks.max(CE_QUICKACKS);
                }
            }
            Ecn::Ce => {
                self.stats.ecn_ce_received += 1;
                if self.ecn_flags & TCP_ECN_DEMAND_CWR == 0 {
                    self.quickacks = self.quickacks.max(CE_QUICKACKS);
                    self.ecn_flags |= TCP_ECN_DEMAND_CWR;
                }
                self.ecn_flags |= TCP_ECN_SEEN;
            }
            Ecn::Ect0 | Ecn::Ect1 => self.ecn_flags |= TCP_ECN_SEEN,
        }
    }

    /// `tcp_ecn_rcv_ecn_echo`: an ECE on a non-SYN segment of an ECN
    /// connection.
    pub(super) fn ecn_rcv_echo(&mut self, seg: &Segment) -> bool {
        let ece = self.ecn_ok() && seg.flags.contains(TcpFlags::ECE) && !seg.flags.syn();
        if ece {
            self.stats.ecn_ece_received += 1;
        }
        ece
    }

    /// `tcp_enter_cwr`: the congestion module's ssthresh, then PRR toward it
    /// ACK by ACK (`cong_control` in CWR). No undo: a mark is not a
    /// spurious loss. From CWR, Recovery or Loss nothing happens, which is
    /// RFC 3168 §6.1.2's "at most once per window of data".
    pub(super) fn enter_cwr(&mut self) {
        self.tp.prior_ssthresh = 0;
        if self.tp.ca_state >= CaState::Cwr {
            return;
        }
        self.undo_marker = None;
        // tcp_init_cwnd_reduction.
        self.high_seq = self.snd_nxt;
        self.tp.snd_cwnd_cnt = 0;
        self.tp.prior_cwnd = self.tp.snd_cwnd;
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.tp.snd_ssthresh = self.cc.ssthresh(&mut self.tp);
        self.ecn_queue_cwr();
        self.stats.cwr_reductions += 1;
        self.set_ca_state(CaState::Cwr);
        if self.mode() != Mode::Prr && !self.cc.has_cong_control() {
            // Without PRR the RFC 3168 §6.1.2 response: halve cwnd at once
            // (ssthresh is the module's halving), no growth until CWR ends.
            self.tp.snd_cwnd = self.tp.snd_ssthresh.max(1);
        }
    }
}
