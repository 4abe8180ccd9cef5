//! Reno on the Linux hooks (net/ipv4/tcp_cong.c: `tcp_reno_ssthresh`,
//! `tcp_reno_cong_avoid`, `tcp_reno_undo_cwnd`).

use super::kernel::{tcp_reno_cong_avoid, tcp_reno_ssthresh, tcp_reno_undo_cwnd};
use super::{CongestionOps, TcpSock};

/// Linux's `reno` module: +1 segment per segment acked in slow start, +1 per
/// window in avoidance, ssthresh = max(cwnd/2, 2). Stateless.
#[derive(Default, Clone, Debug)]
pub struct Reno;

impl CongestionOps for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    /// `tcp_reno_ssthresh`: half the window, at least two packets.
    fn ssthresh(&mut self, tp: &mut TcpSock) -> u32 {
        tcp_reno_ssthresh(tp)
    }

    /// `tcp_reno_cong_avoid`.
    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u32, acked: u32) {
        tcp_reno_cong_avoid(tp, ack, acked)
    }

    /// `tcp_reno_undo_cwnd`: max(cwnd, prior_cwnd).
    fn undo_cwnd(&mut self, tp: &mut TcpSock) -> u32 {
        tcp_reno_undo_cwnd(tp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sock(cwnd: u32, ssthresh: u32) -> TcpSock {
        TcpSock {
            snd_cwnd: cwnd,
            snd_ssthresh: ssthresh,
            max_packets_out: cwnd,
            is_cwnd_limited: true,
            ..Default::default()
        }
    }

    #[test]
    fn reno_ssthresh_halves_with_floor_of_two() {
        assert_eq!(Reno.ssthresh(&mut sock(17, 100)), 8);
        assert_eq!(Reno.ssthresh(&mut sock(3, 100)), 2);
    }

    #[test]
    fn reno_slow_start_crosses_into_avoidance() {
        // cwnd 9, ssthresh 10, 4 packets acked: 1 goes to slow start (-> 10),
        // the remaining 3 are credit toward the next increment at w = 10.
        let mut tp = sock(9, 10);
        Reno.cong_avoid(&mut tp, 0, 4);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (10, 3));
    }

    #[test]
    fn reno_does_not_grow_when_not_cwnd_limited() {
        let mut tp = sock(20, 10);
        tp.is_cwnd_limited = false;
        Reno.cong_avoid(&mut tp, 0, 40);
        assert_eq!(tp.snd_cwnd, 20);
    }
}
