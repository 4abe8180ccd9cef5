//! CUBIC v2.3 with HyStart, after net/ipv4/tcp_cubic.c (Linux 6.x): the same
//! fixed-point arithmetic (BICTCP_HZ = 2^10 time units, cwnd in packets), the
//! table-based cube root and the jiffies clock (`tp.jiffies` at `tp.hz`).

use super::kernel::{after, fls64, tcp_is_cwnd_limited, tcp_reno_undo_cwnd, usecs_to_jiffies};
use super::sock::AckSample;
use super::{CaEvent, CaState, CcParams, CongestionOps, TcpSock};

/// `BICTCP_BETA_SCALE`: beta is scaled by 1024.
const BICTCP_BETA_SCALE: u32 = 1024;
/// `BICTCP_HZ`: CUBIC's internal time unit is 2^-10 s.
const BICTCP_HZ: u32 = 10;
/// `HYSTART_ACK_TRAIN` / `HYSTART_DELAY` detection bits.
pub const HYSTART_ACK_TRAIN: u32 = 0x1;
pub const HYSTART_DELAY: u32 = 0x2;
/// `HYSTART_MIN_SAMPLES`: RTT samples per round before the delay test.
const HYSTART_MIN_SAMPLES: u8 = 8;
/// `HYSTART_DELAY_MIN` / `HYSTART_DELAY_MAX`, microseconds (4 ms / 16 ms).
const HYSTART_DELAY_MIN: u32 = 4000;
const HYSTART_DELAY_MAX: u32 = 16000;
/// `USEC_PER_MSEC`, the cap of `hystart_ack_delay`.
const USEC_PER_MSEC: u64 = 1000;

/// Kernel module parameters of tcp_cubic with their defaults.
#[derive(Clone, Debug)]
struct Params {
    fast_convergence: bool,
    beta: u32,
    initial_ssthresh: u32,
    tcp_friendliness: bool,
    hystart: bool,
    hystart_detect: u32,
    hystart_low_window: u32,
    hystart_ack_delta_us: u32,
    gso_max_size: u32,
}

/// CUBIC state (`struct bictcp`) plus the precomputed scale factors of
/// `cubictcp_register`.
#[derive(Clone, Debug)]
pub struct Cubic {
    p: Params,
    beta_scale: u32,
    cube_rtt_scale: u32,
    cube_factor: u64,
    /// Increase cwnd by 1 after `cnt` ACKed packets.
    cnt: u32,
    last_max_cwnd: u32,
    last_cwnd: u32,
    last_time: u32,
    bic_origin_point: u32,
    /// Time to origin point from the start of the epoch, in 2^-10 s.
    bic_k: u32,
    /// Minimum RTT seen, microseconds (0 = none yet).
    delay_min: u32,
    /// Jiffies at the start of the epoch (0 = no epoch).
    epoch_start: u32,
    ack_cnt: u32,
    /// Reno-equivalent window for TCP friendliness.
    tcp_cwnd: u32,
    sample_cnt: u8,
    found: bool,
    round_start: u32,
    end_seq: u32,
    last_ack: u32,
    curr_rtt: u32,
}

impl Default for Cubic {
    fn default() -> Self {
        Cubic::new(&CcParams::default()).expect("default CUBIC parameters are valid")
    }
}

impl Cubic {
    /// Build with module parameters; rejects values the kernel arithmetic
    /// cannot take (division by zero in `cubictcp_register`).
    pub fn new(params: &CcParams) -> Result<Self, String> {
        let beta = params.cubic_beta.unwrap_or(717);
        if beta == 0 || beta >= BICTCP_BETA_SCALE {
            return Err(format!("cubic beta must be in 1..=1023 (scaled by 1024), got {beta}"));
        }
        let bic_scale = params.cubic_bic_scale.unwrap_or(41);
        if bic_scale == 0 || bic_scale > 100_000 {
            return Err(format!("cubic bic_scale must be in 1..=100000, got {bic_scale}"));
        }
        let hystart_detect = params.cubic_hystart_detect.unwrap_or(HYSTART_ACK_TRAIN | HYSTART_DELAY);
        if hystart_detect > 3 {
            return Err(format!("cubic hystart_detect must be 0..=3 (1 ack train, 2 delay), got {hystart_detect}"));
        }
        let p = Params {
            fast_convergence: params.cubic_fast_convergence.unwrap_or(true),
            beta,
            initial_ssthresh: params.cubic_initial_ssthresh.unwrap_or(0),
            tcp_friendliness: params.cubic_tcp_friendliness.unwrap_or(true),
            hystart: params.cubic_hystart.unwrap_or(true),
            hystart_detect,
            hystart_low_window: params.cubic_hystart_low_window.unwrap_or(16),
            hystart_ack_delta_us: params.cubic_hystart_ack_delta_us.unwrap_or(2000),
            gso_max_size: params.gso_max_size.unwrap_or(0),
        };
        // cubictcp_register: beta_scale = 8*(1024+beta)/3/(1024-beta),
        // cube_rtt_scale = bic_scale*10, cube_factor = 2^40 / (bic_scale*10).
        let beta_scale = 8 * (BICTCP_BETA_SCALE + beta) / 3 / (BICTCP_BETA_SCALE - beta);
        let cube_rtt_scale = bic_scale * 10;
        let cube_factor = (1u64 << (10 + 3 * BICTCP_HZ)) / (bic_scale as u64 * 10);
        Ok(Cubic {
            p,
            beta_scale,
            cube_rtt_scale,
            cube_factor,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            bic_origin_point: 0,
            bic_k: 0,
            delay_min: 0,
            epoch_start: 0,
            ack_cnt: 0,
            tcp_cwnd: 0,
            sample_cnt: 0,
            found: false,
            round_start: 0,
            end_seq: 0,
            last_ack: 0,
            curr_rtt: 0,
        })
    }

    /// W_max of the last epoch (after fast convergence).
    pub fn last_max_cwnd(&self) -> u32 {
        self.last_max_cwnd
    }
    /// Whether HyStart has found its exit point this slow start.
    pub fn hystart_found(&self) -> bool {
        self.found
    }
    /// Minimum RTT seen by CUBIC, microseconds.
    pub fn delay_min(&self) -> u32 {
        self.delay_min
    }

    /// `bictcp_reset`: zero everything up to `unused` in `struct bictcp`
    /// (the HyStart round fields are left to `bictcp_hystart_reset`).
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.bic_origin_point = 0;
        self.bic_k = 0;
        self.delay_min = 0;
        self.epoch_start = 0;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.found = false;
    }

    /// `bictcp_hystart_reset`: start a HyStart round at `snd_nxt`.
    fn hystart_reset(&mut self, tp: &TcpSock) {
        let now = tp.tcp_mstamp as u32; // bictcp_clock_us
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = tp.snd_nxt;
        self.curr_rtt = u32::MAX;
        self.sample_cnt = 0;
    }

    /// `bictcp_update`: recompute `cnt` from the cubic curve and the Reno
    /// estimate, at most once per jiffy.
    fn update(&mut self, tp: &TcpSock, cwnd: u32, acked: u32) {
        let hz = tp.hz.max(1);
        let now = tp.jiffies;
        self.ack_cnt = self.ack_cnt.wrapping_add(acked);

        if self.last_cwnd == cwnd && (now.wrapping_sub(self.last_time) as i32) <= (hz / 32) as i32 {
            return;
        }

        // The cubic function can update cnt at most once per jiffy; on every
        // reduction epoch_start is zeroed, forcing a recalculation.
        if !(self.epoch_start != 0 && now == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = now;

            if self.epoch_start == 0 {
                self.epoch_start = now; // record beginning
                self.ack_cnt = acked; // start counting
                self.tcp_cwnd = cwnd; // sync with cubic
                if self.last_max_cwnd <= cwnd {
                    self.bic_k = 0;
                    self.bic_origin_point = cwnd;
                } else {
                    // K = cbrt((wmax - cwnd) * rtt / c) in 2^-10 s.
                    self.bic_k = cubic_root(self.cube_factor.wrapping_mul((self.last_max_cwnd - cwnd) as u64));
                    self.bic_origin_point = self.last_max_cwnd;
                }
            }

            // t = (now - epoch_start + delay_min in jiffies) in 2^-10 s.
            let mut t = (now.wrapping_sub(self.epoch_start) as i32) as i64 as u64;
            t = t.wrapping_add(usecs_to_jiffies(self.delay_min, hz) as u64);
            t <<= BICTCP_HZ;
            t /= hz as u64;

            let k = self.bic_k as u64;
            let offs = k.abs_diff(t);
            // c/rtt * (t-K)^3, 64-bit with the kernel's wrap-around.
            let delta = ((self.cube_rtt_scale as u64).wrapping_mul(offs).wrapping_mul(offs).wrapping_mul(offs)
                >> (10 + 3 * BICTCP_HZ)) as u32;
            let bic_target = if t < k {
                self.bic_origin_point.wrapping_sub(delta)
            } else {
                self.bic_origin_point.wrapping_add(delta)
            };

            self.cnt = if bic_target > cwnd { cwnd / (bic_target - cwnd) } else { 100u32.wrapping_mul(cwnd) };

            // Initial growth may be too conservative while bw is unknown.
            if self.last_max_cwnd == 0 && self.cnt > 20 {
                self.cnt = 20; // increase cwnd 5% per RTT
            }
        }

        // tcp_friendliness: follow Reno's AIMD(1, beta) rate if faster.
        if self.p.tcp_friendliness {
            let delta = cwnd.wrapping_mul(self.beta_scale) >> 3;
            // Same as `while (ack_cnt > delta) { ack_cnt -= delta; tcp_cwnd++; }`.
            if delta > 0 && self.ack_cnt > delta {
                let n = (self.ack_cnt - 1) / delta;
                self.ack_cnt -= n * delta;
                self.tcp_cwnd = self.tcp_cwnd.wrapping_add(n);
            }
            if self.tcp_cwnd > cwnd {
                let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
                if self.cnt > max_cnt {
                    self.cnt = max_cnt;
                }
            }
        }

        // At most 1 packet per 2 ACKed: 1.5x per RTT.
        self.cnt = self.cnt.max(2);
    }

    /// `hystart_ack_delay`: TSO/GRO cushion, min(1 ms, gso_max_size*4 s/rate).
    fn hystart_ack_delay(&self, tp: &TcpSock) -> u32 {
        let rate = tp.pacing_rate;
        if rate == 0 {
            return 0;
        }
        USEC_PER_MSEC.min(self.p.gso_max_size as u64 * 4 * 1_000_000 / rate) as u32
    }

    /// `hystart_update`: ack-train and delay-increase exit detection.
    fn hystart_update(&mut self, tp: &mut TcpSock, delay: u32) {
        if after(tp.snd_una, self.end_seq) {
            self.hystart_reset(tp);
        }
        // HyStart triggers only above hystart_low_window.
        if tp.snd_cwnd < self.p.hystart_low_window {
            return;
        }
        if self.p.hystart_detect & HYSTART_ACK_TRAIN != 0 {
            let now = tp.tcp_mstamp as u32;
            // First detection parameter: ACK-train length.
            if (now.wrapping_sub(self.last_ack) as i32) <= self.p.hystart_ack_delta_us as i32 {
                self.last_ack = now;
                let mut threshold = self.delay_min.wrapping_add(self.hystart_ack_delay(tp));
                // Pacing may delay packets up to RTT/2 during slow start;
                // without pacing the train triggers past delay_min/2.
                if !tp.pacing_requested {
                    threshold >>= 1;
                }
                if (now.wrapping_sub(self.round_start) as i32) > threshold as i32 {
                    self.found = true;
                    tp.snd_ssthresh = tp.snd_cwnd;
                }
            }
        }
        if self.p.hystart_detect & HYSTART_DELAY != 0 {
            // Minimum delay of the first HYSTART_MIN_SAMPLES of the round.
            if self.curr_rtt > delay {
                self.curr_rtt = delay;
            }
            if self.sample_cnt < HYSTART_MIN_SAMPLES {
                self.sample_cnt += 1;
            } else {
                let thresh = (self.delay_min >> 3).clamp(HYSTART_DELAY_MIN, HYSTART_DELAY_MAX);
                if self.curr_rtt > self.delay_min.wrapping_add(thresh) {
                    self.found = true;
                    tp.snd_ssthresh = tp.snd_cwnd;
                }
            }
        }
    }
}

/// `cubic_root`: cube root of `a` by table lookup on the top bits and one
/// Newton-Raphson step (average error ~0.195%, per the kernel comment).
pub fn cubic_root(a: u64) -> u32 {
    // cbrt(x) MSB values for x MSB values in [0..63] (Willy Tarreau's table):
    // v = cbrt(x << 18) - 1, cbrt(x) = (v[x] + 10) >> 6.
    const V: [u8; 64] = [
        0, 54, 54, 54, 118, 118, 118, 118, //
        123, 129, 134, 138, 143, 147, 151, 156, //
        157, 161, 164, 168, 170, 173, 176, 179, //
        181, 185, 187, 190, 192, 194, 197, 199, //
        200, 202, 204, 206, 209, 211, 213, 215, //
        217, 219, 221, 222, 224, 225, 227, 229, //
        231, 232, 234, 236, 237, 239, 240, 242, //
        244, 245, 246, 248, 250, 251, 252, 254, //
    ];
    let b = fls64(a);
    if b < 7 {
        // a in [0..63]
        return (V[a as usize] as u32 + 35) >> 6;
    }
    let b = ((b * 84) >> 8) - 1;
    let shift = (a >> (b * 3)) as usize;
    let mut x = ((V[shift] as u32 + 10) << b) >> 6;
    // x_{k+1} = (2 x_k + a / x_k^2) / 3, with x*(x-1) and *341>>10 as in the kernel.
    let div = (x as u64).wrapping_mul(x.wrapping_sub(1) as u64);
    let q = a.checked_div(div).unwrap_or(0) as u32;
    x = x.wrapping_mul(2).wrapping_add(q);
    x.wrapping_mul(341) >> 10
}

impl CongestionOps for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    /// `cubictcp_init`.
    fn init(&mut self, tp: &mut TcpSock) {
        self.reset();
        if self.p.hystart {
            self.hystart_reset(tp);
        }
        if !self.p.hystart && self.p.initial_ssthresh != 0 {
            tp.snd_ssthresh = self.p.initial_ssthresh;
        }
    }

    /// `cubictcp_recalc_ssthresh`.
    fn ssthresh(&mut self, tp: &mut TcpSock) -> u32 {
        let cwnd = tp.snd_cwnd;
        self.epoch_start = 0; // end of epoch
                              // Wmax and fast convergence.
        if cwnd < self.last_max_cwnd && self.p.fast_convergence {
            self.last_max_cwnd = cwnd.wrapping_mul(BICTCP_BETA_SCALE + self.p.beta) / (2 * BICTCP_BETA_SCALE);
        } else {
            self.last_max_cwnd = cwnd;
        }
        (cwnd.wrapping_mul(self.p.beta) / BICTCP_BETA_SCALE).max(2)
    }

    /// `cubictcp_cong_avoid`.
    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u32, mut acked: u32) {
        if !tcp_is_cwnd_limited(tp) {
            return;
        }
        if tp.in_slow_start() {
            acked = tp.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        let cwnd = tp.snd_cwnd;
        self.update(tp, cwnd, acked);
        let cnt = self.cnt;
        tp.cong_avoid_ai(cnt, acked);
    }

    /// `cubictcp_state`: an RTO forgets the curve and restarts HyStart.
    fn set_state(&mut self, tp: &mut TcpSock, new_state: CaState) {
        if new_state == CaState::Loss {
            self.reset();
            self.hystart_reset(tp);
        }
    }

    /// `cubictcp_cwnd_event`: after idle, shift the epoch so the curve
    /// resumes where it left off.
    fn cwnd_event(&mut self, tp: &mut TcpSock, ev: CaEvent) {
        if ev == CaEvent::TxStart {
            let now = tp.jiffies;
            let delta = now.wrapping_sub(tp.lsndtime) as i32;
            if self.epoch_start != 0 && delta > 0 {
                self.epoch_start = self.epoch_start.wrapping_add(delta as u32);
                if after(self.epoch_start, now) {
                    self.epoch_start = now;
                }
            }
        }
    }

    /// `cubictcp_acked`: delay_min and HyStart.
    fn pkts_acked(&mut self, tp: &mut TcpSock, sample: &AckSample) {
        // Some calls are for duplicates without timestamps.
        if sample.rtt_us < 0 {
            return;
        }
        // Discard delay samples right after fast recovery.
        if self.epoch_start != 0 && (tp.jiffies.wrapping_sub(self.epoch_start) as i32) < tp.hz as i32 {
            return;
        }
        let delay = (sample.rtt_us as u32).max(1);
        // First call or link delay decreases.
        if self.delay_min == 0 || self.delay_min > delay {
            self.delay_min = delay;
        }
        if !self.found && tp.in_slow_start() && self.p.hystart {
            self.hystart_update(tp, delay);
        }
    }

    /// `tcp_reno_undo_cwnd` (Linux 6.x CUBIC no longer keeps its own undo).
    fn undo_cwnd(&mut self, tp: &mut TcpSock) -> u32 {
        tcp_reno_undo_cwnd(tp)
    }
}

#[cfg(test)]
#[path = "cubic_tests.rs"]
mod tests;
