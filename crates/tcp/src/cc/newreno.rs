//! NewReno congestion control as RFC 5681 specifies it and ns-3's
//! `TcpNewReno` (ns-3.44 src/internet/model/tcp-congestion-ops.cc) implements
//! it — distinct from Linux's `reno` module (net/ipv4/tcp_cong.c):
//!
//! | | RFC 5681 / ns-3 `newreno` | Linux `reno` |
//! |---|---|---|
//! | slow start | cwnd += min(N, SMSS) per ACK of new data (§3.1 eq. 2): +1 segment per ACK | +1 per segment acked |
//! | avoidance | cwnd += SMSS·SMSS/cwnd per ACK (§3.1 eq. 3), in bytes | +1 per cwnd segments acked |
//! | ssthresh | max(FlightSize/2, 2·SMSS) (§3.1 eq. 4) | max(cwnd/2, 2) |
//! | cwnd-limited check | none | `tcp_is_cwnd_limited` |
//!
//! With delayed ACKs (one ACK per two segments) the per-ACK rules make
//! NewReno grow half as fast as Linux Reno in both phases.
//!
//! The hooks are packet based while RFC 5681 and ns-3 count bytes, so the
//! module keeps the sub-segment parts itself: `frac` is the part of the byte
//! window beyond `snd_cwnd` segments (each avoidance ACK adds
//! max(1, SMSS²/cwnd_bytes) bytes, the integer truncation of ns-3's
//! `static_cast<uint32_t>(adder)`), and `ssth_rem` the half segment of an odd
//! FlightSize / 2. The endpoint sends whole segments (`snd_cwnd`), which is
//! also all ns-3 sends (a segment goes only when a full SMSS of window is
//! free). When the endpoint sets cwnd itself the fraction is dropped, except
//! that cwnd = ssthresh (recovery exit) takes ssthresh's half segment along.
//!
//! FlightSize for eq. 4 is `tcp_packets_in_flight`: the outstanding segments
//! minus those duplicate ACKs (or SACKs) showed to have left the network and
//! those deemed lost, plus retransmissions. On the third duplicate ACK the
//! endpoint counts the head as outstanding (`recovery_ssthresh`), which gives
//! the window before limited transmit (RFC 5681 §3.2 step 2 keeps
//! limited-transmit data out) and ns-3's `BytesInFlight () + SMSS`; at an RTO
//! it is the in-flight data before everything is marked lost, ns-3's
//! `inFlightBeforeRto` (small if the RTO hits while in Loss).
//! ns-3 keeps ssthresh in bytes, so an odd FlightSize gives it half a segment
//! more (e.g. 9500 bytes for 19 segments where this module says 9).

use super::{CaState, CongestionOps, TcpSock};

/// RFC 5681 NewReno in the byte-counting shape of ns-3's `TcpNewReno` (see the
/// module docs for how it differs from Linux `reno`); it keeps the sub-segment
/// remainders that ns-3's byte-based cwnd and ssthresh would carry.
#[derive(Default, Clone, Debug)]
pub struct NewReno {
    /// Bytes of avoidance growth not yet worth a whole segment.
    frac: u32,
    /// cwnd after our last update, to notice changes made by the endpoint.
    last_cwnd: u32,
    /// Bytes of ssthresh below one segment (FlightSize odd), valid while
    /// `snd_ssthresh == ssth_val`.
    ssth_rem: u32,
    ssth_val: u32,
    /// The endpoint is about to set cwnd (Recovery/Loss entered or Recovery
    /// left), so `frac` no longer belongs to it.
    reset: bool,
}

impl NewReno {
    /// ssthresh in bytes, with the half segment of an odd FlightSize.
    pub fn ssthresh_bytes(&self, tp: &TcpSock) -> u64 {
        let rem = if tp.snd_ssthresh == self.ssth_val { self.ssth_rem } else { 0 };
        tp.snd_ssthresh as u64 * tp.mss_cache as u64 + rem as u64
    }
}

impl CongestionOps for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    /// RFC 5681 eq. 4: max(FlightSize / 2, 2·SMSS), FlightSize being the
    /// outstanding segments not known to have left the network.
    fn ssthresh(&mut self, tp: &mut TcpSock) -> u32 {
        let flight = tp.packets_in_flight();
        let (val, rem) = if flight / 2 >= 2 { (flight / 2, (flight % 2) * tp.mss_cache / 2) } else { (2, 0) };
        self.ssth_val = val;
        self.ssth_rem = rem;
        val
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u32, acked: u32) {
        if acked == 0 {
            return;
        }
        let mss = tp.mss_cache.max(1) as u64;
        let ssth_rem = if tp.snd_ssthresh == self.ssth_val { self.ssth_rem } else { 0 };
        if self.reset || tp.snd_cwnd != self.last_cwnd {
            self.frac = if tp.snd_cwnd == tp.snd_ssthresh { ssth_rem } else { 0 };
            self.reset = false;
        }
        let ssthresh = tp.snd_ssthresh as u64 * mss + ssth_rem as u64;
        let mut cwnd = tp.snd_cwnd as u64 * mss + self.frac as u64;
        let mut acked = acked;
        if cwnd < ssthresh {
            // RFC 5681 eq. 2 with full-sized segments: one SMSS per ACK, even
            // past ssthresh (ns-3 TcpNewReno::SlowStart does not clamp).
            cwnd += mss;
            acked -= 1;
        }
        if cwnd >= ssthresh && acked > 0 {
            // RFC 5681 eq. 3, once per ACK whatever it acknowledged.
            cwnd += (mss * mss / cwnd.max(1)).max(1);
        }
        tp.snd_cwnd = ((cwnd / mss).min(u32::MAX as u64) as u32).min(tp.snd_cwnd_clamp);
        self.frac = (cwnd % mss) as u32;
        self.last_cwnd = tp.snd_cwnd;
    }

    fn set_state(&mut self, tp: &mut TcpSock, new_state: CaState) {
        let leaving_reduction = matches!(tp.ca_state, CaState::Recovery | CaState::Cwr) && new_state == CaState::Open;
        if matches!(new_state, CaState::Recovery | CaState::Loss) || leaving_reduction {
            self.reset = true;
        }
    }

    /// RFC 5681/6582 define no undo; ns-3 has none either.
    fn undo_cwnd(&mut self, tp: &mut TcpSock) -> u32 {
        tp.snd_cwnd
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sock(cwnd: u32, ssthresh: u32) -> TcpSock {
        TcpSock { snd_cwnd: cwnd, snd_ssthresh: ssthresh, mss_cache: 1000, ..Default::default() }
    }

    #[test]
    fn slow_start_adds_one_segment_per_ack_not_per_segment() {
        let mut cc = NewReno::default();
        let mut tp = sock(1, u32::MAX >> 1);
        let mut seq = Vec::new();
        for acked in [1, 2, 2, 2, 1] {
            cc.cong_avoid(&mut tp, 0, acked);
            seq.push(tp.snd_cwnd);
        }
        assert_eq!(seq, [2, 3, 4, 5, 6]);
    }

    #[test]
    fn slow_start_crossing_ssthresh_spends_the_rest_on_avoidance() {
        // cwnd 9, ssthresh 10, an ACK for 2 segments: +1 (slow start) -> 10,
        // then one avoidance step of 1000*1000/10000 = 100 bytes.
        let mut cc = NewReno::default();
        let mut tp = sock(9, 10);
        cc.cong_avoid(&mut tp, 0, 2);
        assert_eq!((tp.snd_cwnd, cc.frac), (10, 100));
        // A single-segment ACK at cwnd 9 -> 10 has nothing left for avoidance.
        let mut cc = NewReno::default();
        let mut tp = sock(9, 10);
        cc.cong_avoid(&mut tp, 0, 1);
        assert_eq!((tp.snd_cwnd, cc.frac), (10, 0));
    }

    #[test]
    fn avoidance_adds_smss_squared_over_cwnd_bytes_per_ack() {
        // cwnd 10 segments = 10000 bytes: adders 100, 99 (at 10100 bytes),
        // 98 (10199), 97 (10297), 96 (10394), 95 (10490), 94 (10585),
        // 93 (10679), 92 (10772), 92 (10864), 91 (10956) -> 11047 bytes.
        let mut cc = NewReno::default();
        let mut tp = sock(10, 5);
        let mut cwnds = Vec::new();
        for _ in 0..11 {
            cc.cong_avoid(&mut tp, 0, 2);
            cwnds.push(tp.snd_cwnd);
        }
        assert_eq!(cwnds, [10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 11]);
        assert_eq!(cc.frac, 47);
        // The number of segments an ACK covers does not matter.
        let mut a = NewReno::default();
        let mut b = NewReno::default();
        let (mut ta, mut tb) = (sock(20, 5), sock(20, 5));
        a.cong_avoid(&mut ta, 0, 1);
        b.cong_avoid(&mut tb, 0, 7);
        assert_eq!((ta.snd_cwnd, a.frac), (tb.snd_cwnd, b.frac));
        assert_eq!(a.frac, 50);
    }

    #[test]
    fn cwnd_set_by_the_endpoint_drops_the_fraction() {
        let mut cc = NewReno::default();
        let mut tp = sock(10, 5);
        cc.cong_avoid(&mut tp, 0, 1);
        assert_eq!(cc.frac, 100);
        tp.snd_cwnd = 4; // e.g. recovery exit: cwnd = ssthresh
        tp.snd_ssthresh = 4;
        cc.cong_avoid(&mut tp, 0, 1);
        assert_eq!((tp.snd_cwnd, cc.frac), (4, 250));
    }

    #[test]
    fn odd_flight_keeps_half_a_segment_of_ssthresh() {
        // FlightSize 7: ssthresh 3500 bytes. Recovery exit sets cwnd = 3, which
        // is 3500 bytes here, and avoidance adds 10^6/3500 = 285 bytes.
        let mut cc = NewReno::default();
        let mut tp = sock(10, 100);
        tp.packets_out = 7;
        tp.snd_ssthresh = cc.ssthresh(&mut tp);
        assert_eq!((tp.snd_ssthresh, cc.ssth_rem), (3, 500));
        tp.snd_cwnd = 3;
        cc.cong_avoid(&mut tp, 0, 5);
        assert_eq!((tp.snd_cwnd, cc.frac), (3, 785));
        // After an RTO (cwnd 1) slow start runs while cwnd < 3500 bytes:
        // 1 -> 2 -> 3 -> 4 segments, then avoidance.
        tp.snd_cwnd = 1;
        let mut seq = Vec::new();
        for _ in 0..4 {
            cc.cong_avoid(&mut tp, 0, 1);
            seq.push((tp.snd_cwnd, cc.frac));
        }
        assert_eq!(seq, [(2, 0), (3, 0), (4, 0), (4, 250)]);
    }

    #[test]
    fn recovery_exit_to_the_same_cwnd_still_drops_the_fraction() {
        let mut cc = NewReno::default();
        let mut tp = sock(2, 2);
        cc.cong_avoid(&mut tp, 0, 1);
        assert_eq!((tp.snd_cwnd, cc.frac), (2, 500));
        tp.ca_state = CaState::Open;
        cc.set_state(&mut tp, CaState::Recovery);
        tp.ca_state = CaState::Recovery;
        cc.set_state(&mut tp, CaState::Open);
        tp.ca_state = CaState::Open;
        // Recovery ends with cwnd = ssthresh = 2, as it was before.
        cc.cong_avoid(&mut tp, 0, 1);
        assert_eq!((tp.snd_cwnd, cc.frac), (2, 500));
    }

    #[test]
    fn ssthresh_is_half_the_flight_with_a_floor_of_two() {
        let mut cc = NewReno::default();
        let mut tp = sock(40, 100);
        tp.packets_out = 21;
        tp.sacked_out = 2;
        assert_eq!(cc.ssthresh(&mut tp), 9);
        tp.lost_out = 10;
        tp.retrans_out = 1;
        assert_eq!(cc.ssthresh(&mut tp), 5);
        tp.packets_out = 3;
        tp.sacked_out = 0;
        assert_eq!(cc.ssthresh(&mut tp), 2);
    }

    #[test]
    fn no_growth_without_newly_acked_data_and_no_cwnd_limited_check() {
        let mut cc = NewReno::default();
        let mut tp = sock(20, 10);
        cc.cong_avoid(&mut tp, 0, 0);
        assert_eq!((tp.snd_cwnd, cc.frac), (20, 0));
        tp.is_cwnd_limited = false;
        cc.cong_avoid(&mut tp, 0, 1);
        assert_eq!(cc.frac, 50);
    }
}
