//! Proportional Rate Reduction as ns-3 3.44 runs it (`TcpPrrRecovery` driven
//! by `TcpSocketBase::DupAck` / `ProcessAck`), selected with
//! `Recovery::Ns3Prr`. It differs from RFC 6937 / Linux `tcp_cwnd_reduction`
//! (`Recovery::Prr`) in ways that matter without SACK:
//!
//! 1. DeliveredData of a duplicate ACK is one SMSS while prr_delivered <
//!    RecoverFS (`DoRecovery(..., isDupAck)`), and a cumulative ACK delivers
//!    every byte it acknowledges, dupacked segments included.
//! 2. RecoverFS is the pipe after the head was marked lost
//!    (`m_recoveryFlightSize = tcb->m_bytesInFlight`), not FlightSize. When
//!    that pipe is empty (everything outstanding was dupacked) the first
//!    step delivers nothing and leaves cwnd as it was.
//! 3. The pipe PRR uses is the value `ReceivedAck` computed *before* the ACK's
//!    own duplicate was counted (`m_bytesInFlight` is refreshed before
//!    `ProcessAck`, `AddRenoSack` runs after), so cwnd = stale pipe + sndcnt
//!    lets a duplicate ACK release sndcnt + 1 segments: without SACK every
//!    duplicate ACK sends at least one new segment and the pipe does not
//!    shrink during recovery.
//! 4. The slow-start reduction bound adds one SMSS only when the ACK covered
//!    a retransmitted segment (`m_isRetransDataAcked`).
//! 5. A partial ACK marks the head lost and retransmits it whatever cwnd says
//!    (`DoRetransmit`), and runs PRR only if it acked a whole segment.
//!
//! 6. Bytes are 32-bit: prr_delivered · ssthresh wraps past 4 GiB·byte, and
//!    the reduction bound compares two unsigned values (see the code).
//!
//! The proportional part is computed in bytes (ceil(prr_delivered ·
//! ssthresh / RecoverFS) with everything in units of SMSS) and cwnd is the
//! whole number of segments it admits, which is what ns-3's sender can use
//! (it sends only when a full segment fits, `SendPendingData`'s SWS check).

use super::Endpoint;

impl Endpoint {
    /// `TcpPrrRecovery::EnterRecovery`: called once the head is marked lost.
    pub(super) fn ns3_prr_enter(&mut self, delivered: u32) {
        let pipe = self.tp.packets_in_flight();
        self.prr_recover_fs = pipe;
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.ns3_prr_step(pipe, delivered, true, false);
    }

    /// `TcpPrrRecovery::DoRecovery` with the pipe the caller saw (`pipe`).
    pub(super) fn ns3_prr_step(&mut self, pipe: u32, delivered: u32, dupack: bool, retrans_acked: bool) {
        let mut delivered = delivered;
        if dupack && self.prr_delivered < self.prr_recover_fs {
            delivered += 1;
        }
        if delivered == 0 {
            return;
        }
        self.prr_delivered += delivered;
        let mss = self.send_mss.max(1) as i64;
        let pipe_b = pipe as i64 * mss;
        let ssthresh_b = (self.cc.ssthresh_bytes(&self.tp) as i64 * mss) / self.tp.mss_cache.max(1) as i64;
        let prr_out_b = self.prr_out as i64 * mss;
        let mut sndcnt_b = if pipe_b > ssthresh_b {
            // RFC 6937: ceil(prr_delivered · ssthresh / RecoverFS) - prr_out,
            // with ns-3's 32-bit product of the two byte counts.
            let num = ((self.prr_delivered as i64 * mss) as u32).wrapping_mul(ssthresh_b as u32) as i64;
            let fs = self.prr_recover_fs.max(1) as i64 * mss;
            (num + fs - 1) / fs - prr_out_b
        } else {
            // PRR-CRB, catching up by at most DeliveredData. ns-3 takes the
            // max of two u32 values, so once more was sent than delivered the
            // wrapped difference wins and the limit is that negative number.
            let mut limit = if self.prr_delivered >= self.prr_out {
                (self.prr_delivered - self.prr_out).max(delivered) as i64 * mss
            } else {
                (self.prr_delivered as i64 - self.prr_out as i64) * mss
            };
            if retrans_acked {
                limit += mss;
            }
            limit.min(ssthresh_b - pipe_b)
        };
        // Force the fast retransmit on entry.
        sndcnt_b = sndcnt_b.max(if self.prr_out > 0 { 0 } else { mss });
        let cwnd = (pipe_b + sndcnt_b).max(0) / mss;
        self.tp.snd_cwnd = cwnd.max(1) as u32;
    }
}
