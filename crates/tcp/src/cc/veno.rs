//! TCP Veno after net/ipv4/tcp_veno.c (Fu & Liew, IEEE JSAC 2003): Vegas'
//! backlog estimate `diff` decides whether a loss was random (cut to 4/5) or
//! congestive (cut to 1/2), and slows additive increase to every other RTT
//! in the congestive region.
//!
//! Kernel quirks kept on purpose (they shape Veno's behaviour on lossy links):
//! - `minrtt` is reset to 0x7fffffff at the end of *every* `cong_avoid` call,
//!   not once per RTT, so `diff` is computed from the RTT samples of the
//!   current ACK only. An ACK without an RTT sample (Karn) therefore sees
//!   `minrtt = 0x7fffffff`, a target window of ~0 and `diff = 2*cwnd`,
//!   i.e. "congestive".
//! - `cntrtt` is never reset (the reset is commented out in the kernel): once
//!   three samples have ever been taken Veno never falls back to Reno, except
//!   that the u16 counter wraps after 65536 samples.
//! - `diff` keeps the value of the last `cong_avoid` call while in Recovery or
//!   Loss, which is what `ssthresh` reads.

use super::kernel::{tcp_is_cwnd_limited, tcp_reno_cong_avoid, tcp_reno_undo_cwnd};
use super::sock::AckSample;
use super::{CaEvent, CaState, CongestionOps, TcpSock};

/// `V_PARAM_SHIFT`: Veno's fixed point has one fractional bit.
const V_PARAM_SHIFT: u32 = 1;
/// `beta = 3 << V_PARAM_SHIFT`: backlog of 3 packets separates the regions.
const BETA: u32 = 3 << V_PARAM_SHIFT;
const RTT_INF: u32 = 0x7fff_ffff;

/// `struct veno`.
#[derive(Clone, Debug)]
pub struct Veno {
    doing_veno_now: bool,
    /// RTT samples taken (u16 like the kernel; never reset).
    cntrtt: u16,
    /// Minimum RTT (us + 1) since the last `cong_avoid` call.
    minrtt: u32,
    /// Minimum of all RTT samples (us + 1) since the last init/restart.
    basertt: u32,
    /// Whether the next every-other-RTT step increases cwnd.
    inc: bool,
    /// Backlog estimate `cwnd - cwnd*basertt/minrtt`, scaled by 2.
    diff: u32,
}

impl Default for Veno {
    /// The kernel zeroes `icsk_ca_priv` before `init`.
    fn default() -> Self {
        Veno { doing_veno_now: false, cntrtt: 0, minrtt: 0, basertt: 0, inc: false, diff: 0 }
    }
}

impl Veno {
    /// Backlog estimate of the last `cong_avoid` call, in half packets.
    pub fn diff(&self) -> u32 {
        self.diff
    }
    /// Minimum RTT since init or restart, in microseconds + 1 (kernel encoding).
    pub fn basertt_us(&self) -> u32 {
        self.basertt
    }

    /// `veno_enable`.
    fn enable(&mut self) {
        self.doing_veno_now = true;
        self.minrtt = RTT_INF;
    }

    /// `tcp_veno_init` (also run on TX_START / CWND_RESTART).
    fn reinit(&mut self) {
        self.basertt = RTT_INF;
        self.inc = true;
        self.enable();
    }
}

impl CongestionOps for Veno {
    fn name(&self) -> &'static str {
        "veno"
    }

    fn init(&mut self, _tp: &mut TcpSock) {
        self.reinit();
    }

    /// `tcp_veno_ssthresh`: 4/5 for a random loss (backlog below beta),
    /// 1/2 for a congestive one.
    fn ssthresh(&mut self, tp: &mut TcpSock) -> u32 {
        if self.diff < BETA {
            (tp.snd_cwnd.wrapping_mul(4) / 5).max(2)
        } else {
            (tp.snd_cwnd >> 1).max(2)
        }
    }

    /// `tcp_veno_cong_avoid`.
    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u32, mut acked: u32) {
        if !self.doing_veno_now {
            tcp_reno_cong_avoid(tp, ack, acked);
            return;
        }
        // Limited by the application.
        if !tcp_is_cwnd_limited(tp) {
            return;
        }
        if self.cntrtt <= 2 {
            // Not enough RTT samples yet: behave like Reno.
            tcp_reno_cong_avoid(tp, ack, acked);
        } else {
            let rtt = self.minrtt;
            let mut target_cwnd = tp.snd_cwnd as u64 * self.basertt as u64;
            target_cwnd <<= V_PARAM_SHIFT;
            target_cwnd /= rtt.max(1) as u64;
            self.diff = (tp.snd_cwnd << V_PARAM_SHIFT).wrapping_sub(target_cwnd as u32);

            let mut done = false;
            if tp.in_slow_start() {
                acked = tp.slow_start(acked);
                if acked == 0 {
                    done = true;
                }
            }
            if !done {
                if self.diff < BETA {
                    // Non-congestive: +1 per RTT.
                    let w = tp.snd_cwnd;
                    tp.cong_avoid_ai(w, acked);
                } else if tp.snd_cwnd_cnt >= tp.snd_cwnd {
                    // Congestive: +1 every other RTT.
                    if self.inc && tp.snd_cwnd < tp.snd_cwnd_clamp {
                        tp.snd_cwnd += 1;
                        self.inc = false;
                    } else {
                        self.inc = true;
                    }
                    tp.snd_cwnd_cnt = 0;
                } else {
                    tp.snd_cwnd_cnt = tp.snd_cwnd_cnt.wrapping_add(acked);
                }
            }
            if tp.snd_cwnd < 2 {
                tp.snd_cwnd = 2;
            } else if tp.snd_cwnd > tp.snd_cwnd_clamp {
                tp.snd_cwnd = tp.snd_cwnd_clamp;
            }
        }
        // Wipe the slate clean for the next RTT (kernel: cntrtt is *not* reset).
        self.minrtt = RTT_INF;
    }

    /// `tcp_veno_state`.
    fn set_state(&mut self, _tp: &mut TcpSock, new_state: CaState) {
        if new_state == CaState::Open {
            self.enable();
        } else {
            self.doing_veno_now = false;
        }
    }

    /// `tcp_veno_cwnd_event`: restart after idle forgets basertt.
    fn cwnd_event(&mut self, _tp: &mut TcpSock, ev: CaEvent) {
        if ev == CaEvent::CwndRestart || ev == CaEvent::TxStart {
            self.reinit();
        }
    }

    /// `tcp_veno_pkts_acked`: RTT sampling (never zero: rtt + 1).
    fn pkts_acked(&mut self, _tp: &mut TcpSock, sample: &AckSample) {
        if sample.rtt_us < 0 {
            return;
        }
        let vrtt = (sample.rtt_us as u32).wrapping_add(1);
        if vrtt < self.basertt {
            self.basertt = vrtt;
        }
        self.minrtt = self.minrtt.min(vrtt);
        self.cntrtt = self.cntrtt.wrapping_add(1);
    }

    fn undo_cwnd(&mut self, tp: &mut TcpSock) -> u32 {
        tcp_reno_undo_cwnd(tp)
    }
}

#[cfg(test)]
#[path = "veno_tests.rs"]
mod tests;
