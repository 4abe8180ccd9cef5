//! TCP Vegas after net/ipv4/tcp_vegas.c (Brakmo & Peterson, IEEE JSAC 1995):
//! once per RTT compare the expected window cwnd*baseRTT/minRTT with cwnd and
//! keep the backlog `diff` between alpha and beta packets.

use super::kernel::{after, tcp_current_ssthresh, tcp_reno_cong_avoid, tcp_reno_ssthresh, tcp_reno_undo_cwnd};
use super::sock::AckSample;
use super::{CaEvent, CaState, CcParams, CongestionOps, TcpSock};

const RTT_INF: u32 = 0x7fff_ffff;

/// `struct vegas` (net/ipv4/tcp_vegas.h) and the module parameters.
#[derive(Clone, Debug)]
pub struct Vegas {
    /// Lower bound of packets queued in the network (default 2).
    alpha: u32,
    /// Upper bound of packets queued (default 4).
    beta: u32,
    /// Slow-start exit threshold (default 1).
    gamma: u32,
    doing_vegas_now: bool,
    /// RTT samples in the current RTT (u16 in the kernel).
    cnt_rtt: u16,
    /// Minimum RTT (us + 1) in the current RTT.
    min_rtt: u32,
    /// Minimum RTT (us + 1) ever (since init/restart).
    base_rtt: u32,
    /// snd_nxt when the current RTT started.
    beg_snd_nxt: u32,
}

impl Default for Vegas {
    fn default() -> Self {
        Vegas::new(&CcParams::default())
    }
}

impl Vegas {
    /// Vegas with the module parameters `alpha`, `beta`, `gamma` from `p` (kernel
    /// defaults 2, 4, 1 packets when unset).
    pub fn new(p: &CcParams) -> Self {
        Vegas {
            alpha: p.vegas_alpha.unwrap_or(2),
            beta: p.vegas_beta.unwrap_or(4),
            gamma: p.vegas_gamma.unwrap_or(1),
            doing_vegas_now: false,
            cnt_rtt: 0,
            min_rtt: 0,
            base_rtt: 0,
            beg_snd_nxt: 0,
        }
    }

    /// Minimum RTT since init or restart, in microseconds + 1 (the kernel adds 1
    /// so that a 0 us sample still counts); 0x7fffffff from `init` until the
    /// first sample.
    pub fn base_rtt_us(&self) -> u32 {
        self.base_rtt
    }

    /// `vegas_enable`: start sampling at the next send window.
    fn enable(&mut self, tp: &TcpSock) {
        self.doing_vegas_now = true;
        self.beg_snd_nxt = tp.snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt = RTT_INF;
    }

    /// `tcp_vegas_init`.
    fn reinit(&mut self, tp: &TcpSock) {
        self.base_rtt = RTT_INF;
        self.enable(tp);
    }
}

impl CongestionOps for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn init(&mut self, tp: &mut TcpSock) {
        self.reinit(tp);
    }

    fn ssthresh(&mut self, tp: &mut TcpSock) -> u32 {
        tcp_reno_ssthresh(tp)
    }

    /// `tcp_vegas_cong_avoid`.
    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u32, acked: u32) {
        if !self.doing_vegas_now {
            tcp_reno_cong_avoid(tp, ack, acked);
            return;
        }
        if after(ack, self.beg_snd_nxt) {
            // Once-per-RTT adjustment; the next RTT ends at today's snd_nxt.
            self.beg_snd_nxt = tp.snd_nxt;
            if self.cnt_rtt <= 2 {
                // Only delayed-ACK samples so far: behave like Reno.
                tcp_reno_cong_avoid(tp, ack, acked);
            } else {
                let rtt = self.min_rtt.max(1);
                let base = self.base_rtt.max(1);
                // Expected window at the actual rate: cwnd * baseRTT / rtt.
                let target_cwnd = (tp.snd_cwnd as u64 * base as u64) / rtt as u64;
                // "Diff" of the Arizona papers, in packets (u32 arithmetic).
                let diff = tp.snd_cwnd.wrapping_mul(rtt.wrapping_sub(base)) / base;

                if diff > self.gamma && tp.in_slow_start() {
                    // Going too fast: leave slow start at the actual rate
                    // (+1 against integer truncation).
                    tp.snd_cwnd = tp.snd_cwnd.min((target_cwnd as u32).wrapping_add(1));
                    tp.snd_ssthresh = tp.snd_ssthresh.min(tp.snd_cwnd); // tcp_vegas_ssthresh
                } else if tp.in_slow_start() {
                    tp.slow_start(acked);
                } else if diff > self.beta {
                    // Too fast: slow down.
                    tp.snd_cwnd = tp.snd_cwnd.wrapping_sub(1);
                    tp.snd_ssthresh = tp.snd_ssthresh.min(tp.snd_cwnd);
                } else if diff < self.alpha {
                    // Not enough packets in the network: speed up.
                    tp.snd_cwnd = tp.snd_cwnd.wrapping_add(1);
                }
                // else: just right, hold.

                if tp.snd_cwnd < 2 {
                    tp.snd_cwnd = 2;
                } else if tp.snd_cwnd > tp.snd_cwnd_clamp {
                    tp.snd_cwnd = tp.snd_cwnd_clamp;
                }
                tp.snd_ssthresh = tcp_current_ssthresh(tp);
            }
            // Wipe the slate clean for the next RTT.
            self.cnt_rtt = 0;
            self.min_rtt = RTT_INF;
        } else if tp.in_slow_start() {
            // Normal slow start between Vegas decisions.
            tp.slow_start(acked);
        }
    }

    /// `tcp_vegas_state`.
    fn set_state(&mut self, tp: &mut TcpSock, new_state: CaState) {
        if new_state == CaState::Open {
            self.enable(tp);
        } else {
            self.doing_vegas_now = false;
        }
    }

    /// `tcp_vegas_cwnd_event`.
    fn cwnd_event(&mut self, tp: &mut TcpSock, ev: CaEvent) {
        if ev == CaEvent::CwndRestart || ev == CaEvent::TxStart {
            self.reinit(tp);
        }
    }

    /// `tcp_vegas_pkts_acked`.
    fn pkts_acked(&mut self, _tp: &mut TcpSock, sample: &AckSample) {
        if sample.rtt_us < 0 {
            return;
        }
        // Never allow zero rtt or baseRTT.
        let vrtt = (sample.rtt_us as u32).wrapping_add(1);
        if vrtt < self.base_rtt {
            self.base_rtt = vrtt;
        }
        self.min_rtt = self.min_rtt.min(vrtt);
        self.cnt_rtt = self.cnt_rtt.wrapping_add(1);
    }

    fn undo_cwnd(&mut self, tp: &mut TcpSock) -> u32 {
        tcp_reno_undo_cwnd(tp)
    }
}

#[cfg(test)]
#[path = "vegas_tests.rs"]
mod tests;
