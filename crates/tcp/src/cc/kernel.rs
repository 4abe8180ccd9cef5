//! Kernel helpers that congestion modules call but that are not part of
//! `struct tcp_sock` itself: sequence comparisons, jiffies conversions and the
//! shared Reno hooks of net/ipv4/tcp_cong.c. Kept here so every module uses
//! one definition, as the kernel does.

use super::{CaState, TcpSock};

/// `TCP_INIT_CWND` (include/net/tcp.h).
pub const TCP_INIT_CWND: u32 = 10;

/// `before(seq1, seq2)` (include/net/tcp.h): modular u32 comparison.
#[inline]
pub fn before(seq1: u32, seq2: u32) -> bool {
    (seq1.wrapping_sub(seq2) as i32) < 0
}

/// `after(seq2, seq1)`.
#[inline]
pub fn after(seq1: u32, seq2: u32) -> bool {
    before(seq2, seq1)
}

/// `fls64`: 1-based index of the most significant set bit, 0 for 0.
#[inline]
pub fn fls64(x: u64) -> u32 {
    64 - x.leading_zeros()
}

/// `usecs_to_jiffies`: rounds up, as the kernel does (for HZ dividing 10^6
/// this is exactly `(u + USEC_PER_SEC/HZ - 1) / (USEC_PER_SEC/HZ)`).
#[inline]
pub fn usecs_to_jiffies(us: u32, hz: u32) -> u32 {
    ((us as u64 * hz as u64).div_ceil(1_000_000)).min(u32::MAX as u64) as u32
}

/// `msecs_to_jiffies`: rounds up.
#[inline]
pub fn msecs_to_jiffies(ms: u32, hz: u32) -> u32 {
    ((ms as u64 * hz as u64).div_ceil(1_000)).min(u32::MAX as u64) as u32
}

/// `tcp_is_cwnd_limited` as in Linux >= 5.19 (commit "tcp: fix
/// tcp_is_cwnd_limited" moved the flag test first): limited if the endpoint
/// says so, or, in slow start, if cwnd is below twice the largest flight.
#[inline]
pub fn tcp_is_cwnd_limited(tp: &TcpSock) -> bool {
    if tp.is_cwnd_limited {
        return true;
    }
    if tp.in_slow_start() {
        return tp.snd_cwnd < 2u32.saturating_mul(tp.max_packets_out);
    }
    false
}

/// `tcp_in_cwnd_reduction`: CWR or Recovery.
#[inline]
pub fn tcp_in_cwnd_reduction(tp: &TcpSock) -> bool {
    matches!(tp.ca_state, CaState::Cwr | CaState::Recovery)
}

/// `tcp_current_ssthresh`: during a reduction the target itself, otherwise
/// at least 3/4 of the current window.
#[inline]
pub fn tcp_current_ssthresh(tp: &TcpSock) -> u32 {
    if tcp_in_cwnd_reduction(tp) {
        tp.snd_ssthresh
    } else {
        tp.snd_ssthresh.max((tp.snd_cwnd >> 1) + (tp.snd_cwnd >> 2))
    }
}

/// `tcp_reno_ssthresh`: half the window, at least two packets.
#[inline]
pub fn tcp_reno_ssthresh(tp: &TcpSock) -> u32 {
    (tp.snd_cwnd >> 1).max(2)
}

/// `tcp_reno_cong_avoid`.
pub fn tcp_reno_cong_avoid(tp: &mut TcpSock, _ack: u32, mut acked: u32) {
    if !tcp_is_cwnd_limited(tp) {
        return;
    }
    // In "safe" area, increase.
    if tp.in_slow_start() {
        acked = tp.slow_start(acked);
        if acked == 0 {
            return;
        }
    }
    // In dangerous area, increase slowly.
    let w = tp.snd_cwnd;
    tp.cong_avoid_ai(w, acked);
}

/// `tcp_reno_undo_cwnd`: max(cwnd, prior_cwnd).
#[inline]
pub fn tcp_reno_undo_cwnd(tp: &TcpSock) -> u32 {
    tp.snd_cwnd.max(tp.prior_cwnd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jiffies_conversions_round_up() {
        assert_eq!(usecs_to_jiffies(0, 1000), 0);
        assert_eq!(usecs_to_jiffies(1, 1000), 1);
        assert_eq!(usecs_to_jiffies(1000, 1000), 1);
        assert_eq!(usecs_to_jiffies(1001, 1000), 2);
        assert_eq!(usecs_to_jiffies(100_000, 250), 25);
        assert_eq!(usecs_to_jiffies(100_001, 250), 26);
        assert_eq!(msecs_to_jiffies(200, 1000), 200);
        assert_eq!(msecs_to_jiffies(200, 300), 60);
    }

    #[test]
    fn sequence_comparisons_wrap() {
        assert!(after(5, 0xffff_fff0));
        assert!(before(0xffff_fff0, 5));
        assert!(!after(7, 7));
    }

    #[test]
    fn cwnd_limited_flag_wins_even_in_slow_start() {
        let tp = TcpSock {
            snd_cwnd: 40,
            snd_ssthresh: 100,
            max_packets_out: 10,
            is_cwnd_limited: true,
            ..Default::default()
        };
        assert!(tcp_is_cwnd_limited(&tp));
        let tp = TcpSock { is_cwnd_limited: false, ..tp };
        assert!(!tcp_is_cwnd_limited(&tp));
        let tp = TcpSock { max_packets_out: 21, ..tp };
        assert!(tcp_is_cwnd_limited(&tp));
    }

    #[test]
    fn current_ssthresh_keeps_three_quarters_outside_reduction() {
        let mut tp = TcpSock { snd_cwnd: 40, snd_ssthresh: 10, ..Default::default() };
        assert_eq!(tcp_current_ssthresh(&tp), 30);
        tp.ca_state = CaState::Recovery;
        assert_eq!(tcp_current_ssthresh(&tp), 10);
    }
}
