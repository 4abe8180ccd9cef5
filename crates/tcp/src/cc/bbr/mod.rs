//! BBR v1 after net/ipv4/tcp_bbr.c (Cardwell et al., ACM Queue 2016), in
//! the kernel's fixed point: bandwidth in packets/us << 24 (BW_SCALE), gains
//! in 1/256 (BBR_SCALE). BBR replaces cong_avoid and the PRR reduction with
//! [`CongestionOps::cong_control`] and asks the endpoint to pace at
//! `tp.pacing_rate` bytes per second.

mod minmax;

use airtcp_core::RngStream;

use super::kernel::{after, before, msecs_to_jiffies, TCP_INIT_CWND};
use super::{CaEvent, CaState, CcParams, CongestionOps, RateSample, TcpSock};
pub use minmax::{Minmax, MinmaxSample};

/// `BW_SCALE`: rate unit is packets/us << 24 (~715 bps at 1500 B).
const BW_SCALE: u32 = 24;
const BW_UNIT: u64 = 1 << BW_SCALE;
/// `BBR_SCALE`: gains and fractions are scaled by 256.
const BBR_SCALE: u32 = 8;
/// `BBR_UNIT`: 1.0 in BBR's fixed point; gains such as [`Bbr::pacing_gain`] are
/// multiples of it (2.885 in STARTUP is 739/256).
pub const BBR_UNIT: u32 = 1 << BBR_SCALE;

/// `CYCLE_LEN`: phases of the PROBE_BW gain cycle.
const CYCLE_LEN: u32 = 8;
/// `bbr_bw_rtts`: window of the max-bw filter, in rounds.
const BBR_BW_RTTS: u32 = CYCLE_LEN + 2;
/// `bbr_min_rtt_win_sec`: window of the min_rtt filter.
const BBR_MIN_RTT_WIN_SEC: u32 = 10;
/// `bbr_probe_rtt_mode_ms`: minimum time at 4 packets in PROBE_RTT.
const BBR_PROBE_RTT_MODE_MS: u32 = 200;
/// `bbr_min_tso_rate` (bits/s): below it, 1-packet TSO bursts.
const BBR_MIN_TSO_RATE: u64 = 1_200_000;
/// `bbr_pacing_margin_percent`: pace 1% below the estimated bandwidth.
const BBR_PACING_MARGIN_PERCENT: u64 = 1;
/// `bbr_high_gain` = 2/ln(2) = 2.885 (+1 to round up): 739/256.
pub const BBR_HIGH_GAIN: u32 = BBR_UNIT * 2885 / 1000 + 1;
/// `bbr_drain_gain` = 1/high_gain: 88/256.
pub const BBR_DRAIN_GAIN: u32 = BBR_UNIT * 1000 / 2885;
/// `bbr_cwnd_gain`: 2.0.
pub const BBR_CWND_GAIN: u32 = BBR_UNIT * 2;
/// `bbr_pacing_gain[]`: probe 5/4, drain 3/4, then cruise at 1.0 six times.
pub const BBR_PACING_GAIN: [u32; CYCLE_LEN as usize] =
    [BBR_UNIT * 5 / 4, BBR_UNIT * 3 / 4, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT];
/// `bbr_cycle_rand`: the first PROBE_BW phase is drawn from 7 of the 8.
const BBR_CYCLE_RAND: u64 = 7;
/// `bbr_cwnd_min_target`: 4 packets.
const BBR_CWND_MIN_TARGET: u32 = 4;
/// `bbr_full_bw_thresh`: bw must grow 25% per round to stay in STARTUP...
const BBR_FULL_BW_THRESH: u32 = BBR_UNIT * 5 / 4;
/// `bbr_full_bw_cnt`: ...for 3 rounds.
const BBR_FULL_BW_CNT: u32 = 3;
/// `bbr_lt_intvl_min_rtts`: minimum rounds of a long-term sampling interval.
const BBR_LT_INTVL_MIN_RTTS: u32 = 4;
/// `bbr_lt_loss_thresh`: 50/256 ~ 20% loss makes an interval "lossy".
const BBR_LT_LOSS_THRESH: u32 = 50;
/// `bbr_lt_bw_ratio`: intervals within 1/8 of each other are "consistent".
const BBR_LT_BW_RATIO: u32 = BBR_UNIT / 8;
/// `bbr_lt_bw_diff`: or within 4 kbit/s (in bytes/s).
const BBR_LT_BW_DIFF: u64 = 4000 / 8;
/// `bbr_lt_bw_max_rtts`: rounds to use lt_bw once policing is detected.
const BBR_LT_BW_MAX_RTTS: u32 = 48;
/// `bbr_extra_acked_gain`: 1.0.
const BBR_EXTRA_ACKED_GAIN: u32 = BBR_UNIT;
/// `bbr_extra_acked_win_rtts`: window of the extra_acked max filter.
const BBR_EXTRA_ACKED_WIN_RTTS: u32 = 5;
/// `bbr_ack_epoch_acked_reset_thresh`: 2^20.
const BBR_ACK_EPOCH_ACKED_RESET_THRESH: u32 = 1 << 20;
/// `bbr_extra_acked_max_us`: aggregation cwnd capped at 100 ms of bw.
const BBR_EXTRA_ACKED_MAX_US: u64 = 100 * 1000;
/// `SK_DEFAULT_PACING_SHIFT` (sock_init_data): 10, i.e. ~1 ms of data.
const SK_PACING_SHIFT: u32 = 10;
/// `GSO_LEGACY_MAX_SIZE` (65536) - 1 - `MAX_TCP_HEADER` (320 on a typical
/// x86_64 distro kernel: L1_CACHE_ALIGN(128 + MAX_HEADER 176)).
const TSO_BYTES_CAP: u64 = 65536 - 1 - 320;
const USEC_PER_SEC: u64 = 1_000_000;
const USEC_PER_MSEC: u64 = 1000;

/// `enum bbr_mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BbrMode {
    /// Ramp up sending rate rapidly to fill the pipe.
    #[default]
    Startup,
    /// Drain the queue created during startup.
    Drain,
    /// Discover and share bandwidth: pace around the estimate.
    ProbeBw,
    /// Cut inflight to the minimum to probe min_rtt.
    ProbeRtt,
}

impl BbrMode {
    /// The kernel's `enum bbr_mode` name without its `BBR_` prefix
    /// (`STARTUP`, `DRAIN`, `PROBE_BW`, `PROBE_RTT`), for traces.
    pub fn name(self) -> &'static str {
        match self {
            BbrMode::Startup => "STARTUP",
            BbrMode::Drain => "DRAIN",
            BbrMode::ProbeBw => "PROBE_BW",
            BbrMode::ProbeRtt => "PROBE_RTT",
        }
    }
}

/// `struct bbr`.
#[derive(Clone, Debug)]
pub struct Bbr {
    rng: RngStream,
    min_rtt_us: u32,
    /// Jiffies of `min_rtt_us`.
    min_rtt_stamp: u32,
    /// Jiffies when PROBE_RTT may end (0 = not yet at 4 packets).
    probe_rtt_done_stamp: u32,
    /// Max recent delivery rate, packets/us << 24, windowed over rounds.
    bw: Minmax,
    /// Packet-timed rounds elapsed.
    rtt_cnt: u32,
    /// `tp.delivered` at the end of the current round.
    next_rtt_delivered: u32,
    /// Start of the current gain-cycle phase (us).
    cycle_mstamp: u64,
    mode: BbrMode,
    prev_ca_state: CaState,
    packet_conservation: bool,
    round_start: bool,
    idle_restart: bool,
    probe_rtt_round_done: bool,
    lt_is_sampling: bool,
    /// 7-bit field in the kernel.
    lt_rtt_cnt: u32,
    lt_use_bw: bool,
    lt_bw: u32,
    lt_last_delivered: u32,
    /// Milliseconds (delivered_mstamp / 1000, truncated to u32).
    lt_last_stamp: u32,
    lt_last_lost: u32,
    pacing_gain: u32,
    cwnd_gain: u32,
    full_bw_reached: bool,
    /// 2-bit field in the kernel.
    full_bw_cnt: u32,
    /// 3-bit field in the kernel.
    cycle_idx: u32,
    has_seen_rtt: bool,
    prior_cwnd: u32,
    full_bw: u32,
    ack_epoch_mstamp: u64,
    extra_acked: [u16; 2],
    /// 20-bit field in the kernel.
    ack_epoch_acked: u32,
    /// 5-bit field in the kernel.
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
}

impl Default for Bbr {
    fn default() -> Self {
        Bbr::new(&CcParams::default())
    }
}

impl Bbr {
    /// A fresh BBR whose random PROBE_BW start phase comes from the stream
    /// `tcp.cc.bbr` under `params.rng_seed`.
    pub fn new(params: &CcParams) -> Self {
        Bbr::with_rng(RngStream::new(params.rng_seed.unwrap_or(0), "tcp.cc.bbr"))
    }

    /// Draw from `rng` from now on; call before the connection starts (BBR
    /// draws its PROBE_BW phase when it enters PROBE_BW).
    pub fn set_rng(&mut self, rng: RngStream) {
        self.rng = rng;
    }

    /// A fresh BBR drawing from the given stream.
    pub fn with_rng(rng: RngStream) -> Self {
        Bbr {
            rng,
            min_rtt_us: 0,
            min_rtt_stamp: 0,
            probe_rtt_done_stamp: 0,
            bw: Minmax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_mstamp: 0,
            mode: BbrMode::Startup,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            round_start: false,
            idle_restart: false,
            probe_rtt_round_done: false,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0,
            lt_last_delivered: 0,
            lt_last_stamp: 0,
            lt_last_lost: 0,
            pacing_gain: 0,
            cwnd_gain: 0,
            full_bw_reached: false,
            full_bw_cnt: 0,
            cycle_idx: 0,
            has_seen_rtt: false,
            prior_cwnd: 0,
            full_bw: 0,
            ack_epoch_mstamp: 0,
            extra_acked: [0; 2],
            ack_epoch_acked: 0,
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
        }
    }

    /// The state machine's current mode.
    pub fn mode(&self) -> BbrMode {
        self.mode
    }
    /// Pacing gain in 1/256 units ([`BBR_UNIT`] = 1.0).
    pub fn pacing_gain(&self) -> u32 {
        self.pacing_gain
    }
    /// cwnd gain in 1/256 units ([`BBR_UNIT`] = 1.0).
    pub fn cwnd_gain(&self) -> u32 {
        self.cwnd_gain
    }
    /// Phase of the 8-phase PROBE_BW gain cycle (0..8).
    pub fn cycle_idx(&self) -> u32 {
        self.cycle_idx
    }
    /// Windowed minimum RTT in microseconds (10 s window, `bbr_min_rtt_win_sec`);
    /// `u32::MAX` until the first sample.
    pub fn min_rtt_us(&self) -> u32 {
        self.min_rtt_us
    }
    /// Whether STARTUP saw the bandwidth stop growing (3 rounds under +25 %),
    /// which ends STARTUP for good.
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }
    /// Packet-timed rounds elapsed (`rtt_cnt`), the clock of the max-bw filter.
    pub fn rtt_cnt(&self) -> u32 {
        self.rtt_cnt
    }
    /// Whether the long-term (policer) bandwidth estimate is in use (`lt_use_bw`).
    pub fn lt_use_bw(&self) -> bool {
        self.lt_use_bw
    }
    /// `bbr_max_bw`: windowed max delivery rate, packets/us << 24.
    pub fn max_bw(&self) -> u32 {
        self.bw.get()
    }
    /// `bbr_bw`: the model's bandwidth (lt_bw while policed).
    pub fn bw(&self) -> u32 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    /// `bbr_extra_acked`.
    fn extra_acked(&self) -> u16 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    /// `bbr_rate_bytes_per_sec`: rate * mss * gain, with the 1% margin.
    fn rate_bytes_per_sec(tp: &TcpSock, rate: u64, gain: u32) -> u64 {
        let mut rate = rate.wrapping_mul(tp.mss_cache as u64);
        rate = rate.wrapping_mul(gain as u64);
        rate >>= BBR_SCALE;
        rate = rate.wrapping_mul(USEC_PER_SEC / 100 * (100 - BBR_PACING_MARGIN_PERCENT));
        rate >> BW_SCALE
    }

    /// `bbr_bw_to_pacing_rate` (`sk_max_pacing_rate` is unlimited).
    fn bw_to_pacing_rate(tp: &TcpSock, bw: u32, gain: u32) -> u64 {
        Self::rate_bytes_per_sec(tp, bw as u64, gain)
    }

    /// `bbr_init_pacing_rate_from_rtt`: high_gain * cwnd / srtt (or 1 ms).
    fn init_pacing_rate_from_rtt(&mut self, tp: &mut TcpSock) {
        let rtt_us = if tp.srtt_us != 0 {
            self.has_seen_rtt = true;
            (tp.srtt_us >> 3).max(1)
        } else {
            USEC_PER_MSEC as u32 // nominal default RTT
        };
        let bw = tp.snd_cwnd as u64 * BW_UNIT / rtt_us as u64;
        tp.pacing_rate = Self::rate_bytes_per_sec(tp, bw, BBR_HIGH_GAIN);
    }

    /// `bbr_set_pacing_rate`: never slow down in STARTUP.
    fn set_pacing_rate(&mut self, tp: &mut TcpSock, bw: u32, gain: u32) {
        let rate = Self::bw_to_pacing_rate(tp, bw, gain);
        if !self.has_seen_rtt && tp.srtt_us != 0 {
            self.init_pacing_rate_from_rtt(tp);
        }
        if self.full_bw_reached || rate > tp.pacing_rate {
            tp.pacing_rate = rate;
        }
    }

    /// `bbr_min_tso_segs`.
    fn min_tso_segs(tp: &TcpSock) -> u32 {
        if tp.pacing_rate < (BBR_MIN_TSO_RATE >> 3) {
            1
        } else {
            2
        }
    }

    /// `bbr_tso_segs_goal`: ~1 ms of data per burst, at most 127 packets.
    fn tso_segs_goal(tp: &TcpSock) -> u32 {
        let bytes = (tp.pacing_rate >> SK_PACING_SHIFT).min(TSO_BYTES_CAP) as u32;
        let segs = (bytes / tp.mss_cache.max(1)).max(Self::min_tso_segs(tp));
        segs.min(0x7f)
    }

    /// `bbr_save_cwnd`: remember the last known good cwnd.
    fn save_cwnd(&mut self, tp: &TcpSock) {
        if self.prev_ca_state < CaState::Recovery && self.mode != BbrMode::ProbeRtt {
            self.prior_cwnd = tp.snd_cwnd;
        } else {
            // Loss recovery or PROBE_RTT have temporarily cut cwnd.
            self.prior_cwnd = self.prior_cwnd.max(tp.snd_cwnd);
        }
    }

    /// `bbr_bdp`: ceil(bw * min_rtt * gain), TCP_INIT_CWND without an RTT.
    fn bdp(&self, bw: u32, gain: u32) -> u32 {
        if self.min_rtt_us == u32::MAX {
            return TCP_INIT_CWND;
        }
        let w = bw as u64 * self.min_rtt_us as u64;
        (w.wrapping_mul(gain as u64) >> BBR_SCALE).div_ceil(BW_UNIT) as u32
    }

    /// `bbr_quantization_budget`: room for 3 TSO bursts, even, +2 in the
    /// probing phase.
    fn quantization_budget(&self, tp: &TcpSock, mut cwnd: u32) -> u32 {
        cwnd = cwnd.wrapping_add(3 * Self::tso_segs_goal(tp));
        cwnd = cwnd.wrapping_add(1) & !1;
        if self.mode == BbrMode::ProbeBw && self.cycle_idx == 0 {
            cwnd = cwnd.wrapping_add(2);
        }
        cwnd
    }

    /// `bbr_inflight`.
    fn inflight(&self, tp: &TcpSock, bw: u32, gain: u32) -> u32 {
        let inflight = self.bdp(bw, gain);
        self.quantization_budget(tp, inflight)
    }

    /// `bbr_packets_in_net_at_edt`: inflight minus what the bottleneck will
    /// drain before the next paced departure (`tp.tcp_wstamp_ns`).
    fn packets_in_net_at_edt(&self, tp: &TcpSock, inflight_now: u32) -> u32 {
        let now_ns = tp.tcp_mstamp.wrapping_mul(1000);
        let edt_ns = tp.tcp_wstamp_ns.max(now_ns);
        let interval_us = (edt_ns - now_ns) / 1000;
        let interval_delivered = ((self.bw() as u64).wrapping_mul(interval_us) >> BW_SCALE) as u32;
        let mut inflight_at_edt = inflight_now;
        if self.pacing_gain > BBR_UNIT {
            // Increasing inflight: include the EDT skb.
            inflight_at_edt = inflight_at_edt.wrapping_add(Self::tso_segs_goal(tp));
        }
        inflight_at_edt.saturating_sub(interval_delivered)
    }

    /// `bbr_ack_aggregation_cwnd`.
    fn ack_aggregation_cwnd(&self) -> u32 {
        if BBR_EXTRA_ACKED_GAIN != 0 && self.full_bw_reached {
            let max_aggr_cwnd = ((self.bw() as u64 * BBR_EXTRA_ACKED_MAX_US) / BW_UNIT) as u32;
            let aggr_cwnd = (BBR_EXTRA_ACKED_GAIN * self.extra_acked() as u32) >> BBR_SCALE;
            return aggr_cwnd.min(max_aggr_cwnd);
        }
        0
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: packet conservation in the
    /// first round of Recovery, restore prior_cwnd when it ends. Returns the
    /// new cwnd and whether conservation applies.
    fn set_cwnd_to_recover_or_restore(&mut self, tp: &TcpSock, rs: &RateSample, acked: u32) -> (u32, bool) {
        let prev_state = self.prev_ca_state;
        let state = tp.ca_state;
        let mut cwnd = tp.snd_cwnd;

        // An ACK for P packets releases at most 2P: first deduct losses.
        if rs.losses > 0 {
            cwnd = (cwnd as i32).wrapping_sub(rs.losses).max(1) as u32;
        }
        if state == CaState::Recovery && prev_state != CaState::Recovery {
            // First round of Recovery: packet conservation.
            self.packet_conservation = true;
            self.next_rtt_delivered = tp.delivered; // start round now
                                                    // Cut unused cwnd from app behaviour, TSQ or TSO deferral.
            cwnd = tp.packets_in_flight().wrapping_add(acked);
        } else if prev_state >= CaState::Recovery && state < CaState::Recovery {
            // Exiting loss recovery: restore the cwnd saved before it.
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;

        if self.packet_conservation {
            return (cwnd.max(tp.packets_in_flight().wrapping_add(acked)), true);
        }
        (cwnd, false)
    }

    /// `bbr_set_cwnd`: slow-start toward the target, or snap down to it once
    /// the pipe is full.
    fn set_cwnd(&mut self, tp: &mut TcpSock, rs: &RateSample, acked: u32, bw: u32, gain: u32) {
        let mut cwnd = tp.snd_cwnd;
        if acked != 0 {
            let (c, conserving) = self.set_cwnd_to_recover_or_restore(tp, rs, acked);
            cwnd = c;
            if !conserving {
                let mut target_cwnd = self.bdp(bw, gain);
                // Extra ACKed data that seems due to aggregation.
                target_cwnd = target_cwnd.wrapping_add(self.ack_aggregation_cwnd());
                target_cwnd = self.quantization_budget(tp, target_cwnd);
                if self.full_bw_reached {
                    // Only cut cwnd once the pipe was filled.
                    cwnd = cwnd.wrapping_add(acked).min(target_cwnd);
                } else if cwnd < target_cwnd || tp.delivered < TCP_INIT_CWND {
                    cwnd = cwnd.wrapping_add(acked);
                }
                cwnd = cwnd.max(BBR_CWND_MIN_TARGET);
            }
        }
        tp.snd_cwnd = cwnd.min(tp.snd_cwnd_clamp); // global cap
        if self.mode == BbrMode::ProbeRtt {
            // Drain the queue, refresh min_rtt.
            tp.snd_cwnd = tp.snd_cwnd.min(BBR_CWND_MIN_TARGET);
        }
    }

    /// `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(&self, tp: &TcpSock, rs: &RateSample) -> bool {
        let is_full_length = tcp_stamp_us_delta(tp.delivered_mstamp, self.cycle_mstamp) > self.min_rtt_us as i64;
        // Gain 1.0 paces at the estimate: just use wall-clock time.
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(tp, rs.prior_in_flight);
        let bw = self.max_bw();
        // Gain > 1 probes until inflight reaches gain*BDP (or losses).
        if self.pacing_gain > BBR_UNIT {
            return is_full_length && (rs.losses != 0 || inflight >= self.inflight(tp, bw, self.pacing_gain));
        }
        // Gain < 1 drains until inflight falls to the BDP.
        is_full_length || inflight <= self.inflight(tp, bw, BBR_UNIT)
    }

    /// `bbr_advance_cycle_phase`.
    fn advance_cycle_phase(&mut self, tp: &TcpSock) {
        self.cycle_idx = (self.cycle_idx + 1) & (CYCLE_LEN - 1);
        self.cycle_mstamp = tp.delivered_mstamp;
    }

    /// `bbr_update_cycle_phase`.
    fn update_cycle_phase(&mut self, tp: &TcpSock, rs: &RateSample) {
        if self.mode == BbrMode::ProbeBw && self.is_next_cycle_phase(tp, rs) {
            self.advance_cycle_phase(tp);
        }
    }

    /// `bbr_reset_probe_bw_mode`: random start phase, never the 3/4 drain.
    fn reset_probe_bw_mode(&mut self, tp: &TcpSock) {
        self.mode = BbrMode::ProbeBw;
        self.cycle_idx = CYCLE_LEN - 1 - self.rng.below(BBR_CYCLE_RAND) as u32;
        self.advance_cycle_phase(tp); // flip to next phase of gain cycle
    }

    /// `bbr_reset_mode`.
    fn reset_mode(&mut self, tp: &TcpSock) {
        if !self.full_bw_reached {
            self.mode = BbrMode::Startup;
        } else {
            self.reset_probe_bw_mode(tp);
        }
    }

    /// `bbr_reset_lt_bw_sampling_interval`.
    fn reset_lt_bw_sampling_interval(&mut self, tp: &TcpSock) {
        self.lt_last_stamp = (tp.delivered_mstamp / USEC_PER_MSEC) as u32;
        self.lt_last_delivered = tp.delivered;
        self.lt_last_lost = tp.lost;
        self.lt_rtt_cnt = 0;
    }

    /// `bbr_reset_lt_bw_sampling`.
    fn reset_lt_bw_sampling(&mut self, tp: &TcpSock) {
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_bw_sampling_interval(tp);
    }

    /// `bbr_lt_bw_interval_done`: two consistent lossy intervals = policer.
    fn lt_bw_interval_done(&mut self, tp: &TcpSock, bw: u32) {
        if self.lt_bw != 0 {
            let diff = (bw as i32).wrapping_sub(self.lt_bw as i32).unsigned_abs();
            if diff.wrapping_mul(BBR_UNIT) <= BBR_LT_BW_RATIO.wrapping_mul(self.lt_bw)
                || Self::rate_bytes_per_sec(tp, diff as u64, BBR_UNIT) <= BBR_LT_BW_DIFF
            {
                // All criteria met: we are policed.
                self.lt_bw = ((bw as u64 + self.lt_bw as u64) >> 1) as u32; // avg 2 intervals
                self.lt_use_bw = true;
                self.pacing_gain = BBR_UNIT; // try to avoid drops
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval(tp);
    }

    /// `bbr_lt_bw_sampling`: token-bucket policer detection.
    fn lt_bw_sampling(&mut self, tp: &TcpSock, rs: &RateSample) {
        if self.lt_use_bw {
            // Already using lt_bw: stop after bbr_lt_bw_max_rtts rounds.
            if self.mode == BbrMode::ProbeBw && self.round_start {
                self.lt_rtt_cnt = (self.lt_rtt_cnt + 1) & 0x7f;
                if self.lt_rtt_cnt >= BBR_LT_BW_MAX_RTTS {
                    self.reset_lt_bw_sampling(tp);
                    self.reset_probe_bw_mode(tp);
                }
            }
            return;
        }
        // Wait for the first loss, to let the policer exhaust its tokens.
        if !self.lt_is_sampling {
            if rs.losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval(tp);
            self.lt_is_sampling = true;
        }
        // Reset if we run out of data, to avoid underestimates.
        if rs.is_app_limited {
            self.reset_lt_bw_sampling(tp);
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt = (self.lt_rtt_cnt + 1) & 0x7f;
        }
        if self.lt_rtt_cnt < BBR_LT_INTVL_MIN_RTTS {
            return; // interval needs to be longer
        }
        if self.lt_rtt_cnt > 4 * BBR_LT_INTVL_MIN_RTTS {
            self.reset_lt_bw_sampling(tp); // interval too long
            return;
        }
        // End the interval on a loss (tokens exhausted).
        if rs.losses == 0 {
            return;
        }
        let lost = tp.lost.wrapping_sub(self.lt_last_lost);
        let delivered = tp.delivered.wrapping_sub(self.lt_last_delivered);
        // Loss rate lost/delivered must reach lt_loss_thresh.
        if delivered == 0 || (lost << BBR_SCALE) < BBR_LT_LOSS_THRESH.wrapping_mul(delivered) {
            return;
        }
        let t = ((tp.delivered_mstamp / USEC_PER_MSEC) as u32).wrapping_sub(self.lt_last_stamp);
        if (t as i32) < 1 {
            return; // less than one ms, wait
        }
        if t >= u32::MAX / USEC_PER_MSEC as u32 {
            self.reset_lt_bw_sampling(tp); // interval too long
            return;
        }
        let t = t * USEC_PER_MSEC as u32;
        let bw = (delivered as u64 * BW_UNIT) / t as u64;
        self.lt_bw_interval_done(tp, bw as u32);
    }

    /// `bbr_update_bw`: round accounting and the max-bw filter.
    fn update_bw(&mut self, tp: &TcpSock, rs: &RateSample) {
        self.round_start = false;
        if rs.delivered < 0 || rs.interval_us <= 0 {
            return; // not a valid observation
        }
        // Have we reached the next round?
        if !before(rs.prior_delivered, self.next_rtt_delivered) {
            self.next_rtt_delivered = tp.delivered;
            self.rtt_cnt = self.rtt_cnt.wrapping_add(1);
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(tp, rs);

        let bw = ((rs.delivered as u64 * BW_UNIT) / rs.interval_us as u64) as u32;
        // App-limited samples only count if they raise the estimate.
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.running_max(BBR_BW_RTTS, self.rtt_cnt, bw);
        }
    }

    /// `bbr_update_ack_aggregation`: excess ACKed beyond bw * epoch.
    fn update_ack_aggregation(&mut self, tp: &TcpSock, rs: &RateSample) {
        if BBR_EXTRA_ACKED_GAIN == 0 || rs.acked_sacked == 0 || rs.delivered < 0 || rs.interval_us <= 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
            if self.extra_acked_win_rtts >= BBR_EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch_us = tcp_stamp_us_delta(tp.delivered_mstamp, self.ack_epoch_mstamp) as u32;
        let mut expected_acked = ((self.bw() as u64 * epoch_us as u64) / BW_UNIT) as u32;
        // Reset the epoch if the ACK rate is below expected or the epoch is
        // very old.
        if self.ack_epoch_acked <= expected_acked
            || self.ack_epoch_acked.wrapping_add(rs.acked_sacked) >= BBR_ACK_EPOCH_ACKED_RESET_THRESH
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = tp.delivered_mstamp;
            expected_acked = 0;
        }
        self.ack_epoch_acked = self.ack_epoch_acked.wrapping_add(rs.acked_sacked).min(0xfffff);
        let extra_acked = self.ack_epoch_acked.wrapping_sub(expected_acked).min(tp.snd_cwnd);
        // Stored in a u16 as in the kernel.
        if extra_acked > self.extra_acked[self.extra_acked_win_idx] as u32 {
            self.extra_acked[self.extra_acked_win_idx] = extra_acked as u16;
        }
    }

    /// `bbr_check_full_bw_reached`: 3 rounds without 25% growth.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let bw_thresh = ((self.full_bw as u64 * BBR_FULL_BW_THRESH as u64) >> BBR_SCALE) as u32;
        if self.max_bw() >= bw_thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt = (self.full_bw_cnt + 1) & 3;
        self.full_bw_reached = self.full_bw_cnt >= BBR_FULL_BW_CNT;
    }

    /// `bbr_check_drain`.
    fn check_drain(&mut self, tp: &mut TcpSock) {
        if self.mode == BbrMode::Startup && self.full_bw_reached {
            self.mode = BbrMode::Drain; // drain the queue we created
            tp.snd_ssthresh = self.inflight(tp, self.max_bw(), BBR_UNIT);
        }
        // Fall through to check whether in-flight is already small.
        if self.mode == BbrMode::Drain
            && self.packets_in_net_at_edt(tp, tp.packets_in_flight()) <= self.inflight(tp, self.max_bw(), BBR_UNIT)
        {
            self.reset_probe_bw_mode(tp); // queue is drained
        }
    }

    /// `bbr_check_probe_rtt_done`.
    fn check_probe_rtt_done(&mut self, tp: &mut TcpSock) {
        if !(self.probe_rtt_done_stamp != 0 && after(tp.jiffies, self.probe_rtt_done_stamp)) {
            return;
        }
        self.min_rtt_stamp = tp.jiffies; // wait a while until PROBE_RTT
        tp.snd_cwnd = tp.snd_cwnd.max(self.prior_cwnd);
        self.reset_mode(tp);
    }

    /// `bbr_update_min_rtt`: 10 s min filter and PROBE_RTT.
    fn update_min_rtt(&mut self, tp: &mut TcpSock, rs: &RateSample) {
        let filter_expired =
            after(tp.jiffies, self.min_rtt_stamp.wrapping_add(BBR_MIN_RTT_WIN_SEC.wrapping_mul(tp.hz)));
        if rs.rtt_us >= 0 && (rs.rtt_us < self.min_rtt_us as i64 || (filter_expired && !rs.is_ack_delayed)) {
            self.min_rtt_us = rs.rtt_us as u32;
            self.min_rtt_stamp = tp.jiffies;
        }

        if BBR_PROBE_RTT_MODE_MS > 0 && filter_expired && !self.idle_restart && self.mode != BbrMode::ProbeRtt {
            self.mode = BbrMode::ProbeRtt; // dip, drain queue
            self.save_cwnd(tp); // note cwnd so we can restore it
            self.probe_rtt_done_stamp = 0;
        }

        if self.mode == BbrMode::ProbeRtt {
            // Ignore low-rate samples during this mode.
            let v = tp.delivered.wrapping_add(tp.packets_in_flight());
            tp.app_limited = if v != 0 { v } else { 1 };
            // Hold min inflight for max(200 ms, 1 round).
            if self.probe_rtt_done_stamp == 0 && tp.packets_in_flight() <= BBR_CWND_MIN_TARGET {
                self.probe_rtt_done_stamp = tp.jiffies.wrapping_add(msecs_to_jiffies(BBR_PROBE_RTT_MODE_MS, tp.hz));
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = tp.delivered;
            } else if self.probe_rtt_done_stamp != 0 {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(tp);
                }
            }
        }
        // Restart after idle ends only once we process a new S/ACK for data.
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        match self.mode {
            BbrMode::Startup => {
                self.pacing_gain = BBR_HIGH_GAIN;
                self.cwnd_gain = BBR_HIGH_GAIN;
            }
            BbrMode::Drain => {
                self.pacing_gain = BBR_DRAIN_GAIN; // slow, to drain
                self.cwnd_gain = BBR_HIGH_GAIN; // keep cwnd
            }
            BbrMode::ProbeBw => {
                self.pacing_gain = if self.lt_use_bw { BBR_UNIT } else { BBR_PACING_GAIN[self.cycle_idx as usize] };
                self.cwnd_gain = BBR_CWND_GAIN;
            }
            BbrMode::ProbeRtt => {
                self.pacing_gain = BBR_UNIT;
                self.cwnd_gain = BBR_UNIT;
            }
        }
    }

    /// `bbr_update_model`.
    fn update_model(&mut self, tp: &mut TcpSock, rs: &RateSample) {
        self.update_bw(tp, rs);
        self.update_ack_aggregation(tp, rs);
        self.update_cycle_phase(tp, rs);
        self.check_full_bw_reached(rs);
        self.check_drain(tp);
        self.update_min_rtt(tp, rs);
        self.update_gains();
    }
}

/// `tcp_stamp_us_delta`: t1 - t0, at least 0.
#[inline]
fn tcp_stamp_us_delta(t1: u64, t0: u64) -> i64 {
    (t1.wrapping_sub(t0) as i64).max(0)
}

impl CongestionOps for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    /// `bbr_init`.
    fn init(&mut self, tp: &mut TcpSock) {
        self.prior_cwnd = 0;
        tp.snd_ssthresh = super::TCP_INFINITE_SSTHRESH;
        self.rtt_cnt = 0;
        self.next_rtt_delivered = tp.delivered;
        self.prev_ca_state = CaState::Open;
        self.packet_conservation = false;

        self.probe_rtt_done_stamp = 0;
        self.probe_rtt_round_done = false;
        self.min_rtt_us = tp.min_rtt_us;
        self.min_rtt_stamp = tp.jiffies;

        self.bw.reset(self.rtt_cnt, 0); // init max bw to 0

        self.has_seen_rtt = false;
        self.init_pacing_rate_from_rtt(tp);

        self.round_start = false;
        self.idle_restart = false;
        self.full_bw_reached = false;
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.cycle_mstamp = 0;
        self.cycle_idx = 0;
        self.reset_lt_bw_sampling(tp);
        self.mode = BbrMode::Startup;

        self.ack_epoch_mstamp = tp.tcp_mstamp;
        self.ack_epoch_acked = 0;
        self.extra_acked_win_rtts = 0;
        self.extra_acked_win_idx = 0;
        self.extra_acked = [0; 2];

        // SK_PACING_NONE -> SK_PACING_NEEDED.
        tp.pacing_requested = true;
    }

    /// `bbr_ssthresh`: save cwnd for when recovery ends or is undone; the
    /// threshold itself is not changed.
    fn ssthresh(&mut self, tp: &mut TcpSock) -> u32 {
        self.save_cwnd(tp);
        tp.snd_ssthresh
    }

    /// Never called: BBR has `cong_control`.
    fn cong_avoid(&mut self, _tp: &mut TcpSock, _ack: u32, _acked: u32) {}

    /// `bbr_set_state`: an RTO ends the round and counts as a loss sample.
    fn set_state(&mut self, tp: &mut TcpSock, new_state: CaState) {
        if new_state == CaState::Loss {
            let rs = RateSample { losses: 1, ..Default::default() };
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0;
            self.round_start = true; // treat RTO like end of a round
            self.lt_bw_sampling(tp, &rs);
        }
    }

    /// `bbr_cwnd_event`: restarting from idle while app-limited.
    fn cwnd_event(&mut self, tp: &mut TcpSock, ev: CaEvent) {
        if ev == CaEvent::TxStart && tp.app_limited != 0 {
            self.idle_restart = true;
            self.ack_epoch_mstamp = tp.tcp_mstamp;
            self.ack_epoch_acked = 0;
            // Pace at the estimate if we need no more speed.
            if self.mode == BbrMode::ProbeBw {
                let bw = self.bw();
                self.set_pacing_rate(tp, bw, BBR_UNIT);
            } else if self.mode == BbrMode::ProbeRtt {
                self.check_probe_rtt_done(tp);
            }
        }
    }

    /// `bbr_undo_cwnd`: spurious slow-down, reset full-pipe detection.
    fn undo_cwnd(&mut self, tp: &mut TcpSock) -> u32 {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.reset_lt_bw_sampling(tp);
        tp.snd_cwnd
    }

    fn has_cong_control(&self) -> bool {
        true
    }

    /// `bbr_main`.
    fn cong_control(&mut self, tp: &mut TcpSock, _ack: u32, _flag: u32, rs: &RateSample) {
        self.update_model(tp, rs);
        let bw = self.bw();
        let pacing_gain = self.pacing_gain;
        self.set_pacing_rate(tp, bw, pacing_gain);
        let cwnd_gain = self.cwnd_gain;
        self.set_cwnd(tp, rs, rs.acked_sacked, bw, cwnd_gain);
    }
}

#[cfg(test)]
mod tests;
