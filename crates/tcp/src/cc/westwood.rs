//! TCP Westwood+ after net/ipv4/tcp_westwood.c (Mascolo et al., MobiCom
//! 2001; Grieco & Mascolo, CCR 2004): Reno probing, but after a loss the
//! window is set from the bandwidth estimate times the minimum RTT instead of
//! being halved. Bandwidth is bytes per jiffy, RTTs are jiffies, exactly as
//! in the kernel, so the estimate depends on `tp.hz`.

use super::kernel::{tcp_reno_cong_avoid, tcp_reno_ssthresh, tcp_reno_undo_cwnd, usecs_to_jiffies};
use super::sock::AckSample;
use super::{CaEvent, CongestionOps, TcpSock, CA_ACK_SLOWPATH};

/// `struct westwood`.
#[derive(Clone, Debug, Default)]
pub struct Westwood {
    /// First, lightly smoothed estimate (bytes per jiffy).
    bw_ns_est: u32,
    /// Bandwidth estimate (bytes per jiffy).
    bw_est: u32,
    /// Jiffies at the start of the current RTT window.
    rtt_win_sx: u32,
    /// Bytes acknowledged in the current window.
    bk: u32,
    snd_una: u32,
    cumul_ack: u32,
    /// Bytes already credited for duplicate ACKs.
    accounted: u32,
    /// Last RTT sample, jiffies.
    rtt: u32,
    /// Minimum RTT, jiffies.
    rtt_min: u32,
    first_ack: bool,
    reset_rtt_min: bool,
}

impl Westwood {
    /// Bandwidth estimate in bytes per jiffy.
    pub fn bw_est(&self) -> u32 {
        self.bw_est
    }
    /// Minimum RTT in jiffies.
    pub fn rtt_min(&self) -> u32 {
        self.rtt_min
    }

    /// `TCP_WESTWOOD_RTT_MIN` (HZ/20, 50 ms): shortest filter window.
    fn rtt_win_min(hz: u32) -> u32 {
        hz / 20
    }

    /// `westwood_filter`: the first sample fills the filter, later ones go
    /// through two 7/8 EWMA stages (`westwood_do_filter`).
    fn filter(&mut self, delta: u32) {
        let sample = self.bk / delta.max(1);
        if self.bw_ns_est == 0 && self.bw_est == 0 {
            self.bw_ns_est = sample;
            self.bw_est = self.bw_ns_est;
        } else {
            self.bw_ns_est = do_filter(self.bw_ns_est, sample);
            self.bw_est = do_filter(self.bw_est, self.bw_ns_est);
        }
    }

    /// `westwood_update_window`: close the window once it is longer than
    /// max(rtt, 50 ms) and feed the filter.
    fn update_window(&mut self, tp: &TcpSock) {
        let delta = tp.jiffies.wrapping_sub(self.rtt_win_sx) as i32;
        // Fix the mismatch between tp.snd_una and w.snd_una on the first sample.
        if self.first_ack {
            self.snd_una = tp.snd_una;
            self.first_ack = false;
        }
        // Compared as u32 in the kernel (max_t(u32, ...) promotes delta).
        if self.rtt != 0 && (delta as u32) > self.rtt.max(Self::rtt_win_min(tp.hz)) {
            self.filter(delta as u32);
            self.bk = 0;
            self.rtt_win_sx = tp.jiffies;
        }
    }

    /// `update_rtt_min`.
    fn update_rtt_min(&mut self) {
        if self.reset_rtt_min {
            self.rtt_min = self.rtt;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt.min(self.rtt_min);
        }
    }

    /// `westwood_fast_bw`: header-predicted ACK, snd_una simply advanced.
    fn fast_bw(&mut self, tp: &TcpSock) {
        self.update_window(tp);
        self.bk = self.bk.wrapping_add(tp.snd_una.wrapping_sub(self.snd_una));
        self.snd_una = tp.snd_una;
        self.update_rtt_min();
    }

    /// `westwood_acked_count`: bytes this ACK stands for, crediting one MSS
    /// per duplicate ACK and taking that credit back from the cumulative ACK
    /// that follows.
    fn acked_count(&mut self, tp: &TcpSock) -> u32 {
        let mss = tp.mss_cache;
        self.cumul_ack = tp.snd_una.wrapping_sub(self.snd_una);
        // cumul_ack 0: a dupack, snd_una did not move.
        if self.cumul_ack == 0 {
            self.accounted = self.accounted.wrapping_add(mss);
            self.cumul_ack = mss;
        }
        if self.cumul_ack > mss {
            // Partial or delayed ACK.
            if self.accounted >= self.cumul_ack {
                self.accounted -= self.cumul_ack;
                self.cumul_ack = mss;
            } else {
                self.cumul_ack -= self.accounted;
                self.accounted = 0;
            }
        }
        self.snd_una = tp.snd_una;
        self.cumul_ack
    }

    /// `tcp_westwood_bw_rttmin`: BDP in packets, at least 2.
    pub fn bw_rttmin(&self, tp: &TcpSock) -> u32 {
        (self.bw_est.wrapping_mul(self.rtt_min) / tp.mss_cache.max(1)).max(2)
    }
}

/// `westwood_do_filter`: (7a + b) / 8.
#[inline]
fn do_filter(a: u32, b: u32) -> u32 {
    (a.wrapping_mul(7).wrapping_add(b)) >> 3
}

impl CongestionOps for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    /// `tcp_westwood_init`: RTTs start at TCP_WESTWOOD_INIT_RTT (20*HZ).
    fn init(&mut self, tp: &mut TcpSock) {
        self.bk = 0;
        self.bw_ns_est = 0;
        self.bw_est = 0;
        self.accounted = 0;
        self.cumul_ack = 0;
        self.reset_rtt_min = true;
        self.rtt = 20u32.wrapping_mul(tp.hz);
        self.rtt_min = self.rtt;
        self.rtt_win_sx = tp.jiffies;
        self.snd_una = tp.snd_una;
        self.first_ack = true;
    }

    fn ssthresh(&mut self, tp: &mut TcpSock) -> u32 {
        tcp_reno_ssthresh(tp)
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u32, acked: u32) {
        tcp_reno_cong_avoid(tp, ack, acked)
    }

    /// `tcp_westwood_event`: on COMPLETE_CWR both ssthresh and cwnd become
    /// bw*rtt_min; on LOSS only ssthresh (the endpoint sets cwnd to 1).
    fn cwnd_event(&mut self, tp: &mut TcpSock, ev: CaEvent) {
        match ev {
            CaEvent::CompleteCwr => {
                tp.snd_ssthresh = self.bw_rttmin(tp);
                tp.snd_cwnd = tp.snd_ssthresh;
            }
            CaEvent::Loss => {
                tp.snd_ssthresh = self.bw_rttmin(tp);
                // Update rtt_min when the next ACK arrives.
                self.reset_rtt_min = true;
            }
            _ => {}
        }
    }

    /// `tcp_westwood_ack`.
    fn in_ack_event(&mut self, tp: &mut TcpSock, flags: u32) {
        if flags & CA_ACK_SLOWPATH != 0 {
            self.update_window(tp);
            let n = self.acked_count(tp);
            self.bk = self.bk.wrapping_add(n);
            self.update_rtt_min();
            return;
        }
        self.fast_bw(tp);
    }

    /// `tcp_westwood_pkts_acked`: keep the last RTT sample, in jiffies.
    fn pkts_acked(&mut self, tp: &mut TcpSock, sample: &AckSample) {
        if sample.rtt_us > 0 {
            self.rtt = usecs_to_jiffies(sample.rtt_us as u32, tp.hz);
        }
    }

    fn undo_cwnd(&mut self, tp: &mut TcpSock) -> u32 {
        tcp_reno_undo_cwnd(tp)
    }
}

#[cfg(test)]
#[path = "westwood_tests.rs"]
mod tests;
