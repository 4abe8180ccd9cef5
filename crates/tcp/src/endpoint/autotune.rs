//! Receive-buffer autotuning (Dynamic Right-Sizing) as Linux 6.6 does it:
//! the receiver measures how many bytes its application reads per RTT
//! (`tcp_rcv_space_adjust`) and grows the buffer to 2·copied + 16 MSS, more
//! while the sender is still speeding up; the advertised window follows
//! through `rcv_ssthresh` (`tcp_grow_window`) and `window_clamp`.
//!
//! Version followed: Linux 6.6 (net/ipv4/tcp_input.c, tcp_output.c,
//! include/net/tcp.h). 6.6 replaced `tcp_adv_win_scale` by a per-socket
//! `scaling_ratio` learned from skb->len / skb->truesize of received
//! packets. The simulator carries no skb truesize, so the ratio stays at
//! its initial value TCP_DEFAULT_SCALING_RATIO = 128/256: half of the
//! buffer is window, exactly what `tcp_adv_win_scale = 1` (the default
//! from 3.x to 6.5) gave. Memory is counted in payload bytes / ratio, so
//! "free space" is the half-buffer minus the queued payload.
//!
//! Not modelled: memory pressure (`tcp_mem`, `tcp_clamp_window`,
//! `tcp_prune_queue`: a receiver here never drops in-window data), the
//! quick-ACK nudge of `tcp_grow_window` (`icsk_ack.quick |= 1`) and the
//! `__tcp_grow_window` truesize test (every segment is taken to have the
//! ratio's overhead, so the `incr = 2·advmss` branch always applies).

use airtcp_core::Instant;

use super::{Endpoint, MAX_WSCALE};

/// `TCP_RMEM_TO_WIN_SCALE` (include/net/tcp.h): scaling_ratio is in 1/256.
const RMEM_TO_WIN_SCALE: u32 = 8;
/// `TCP_DEFAULT_SCALING_RATIO` = 1 << (TCP_RMEM_TO_WIN_SCALE - 1): 50 %.
const SCALING_RATIO: u64 = 1 << (RMEM_TO_WIN_SCALE - 1);
/// `TCP_INIT_CWND` (include/net/tcp.h): the first measurement assumes the
/// sender starts with ten segments (`tcp_init_buffer_space`).
const TCP_INIT_CWND: u64 = 10;
/// `net.core.rmem_max` default (SK_RMEM_MAX, 212992 on 64-bit): one of the
/// bounds `tcp_select_initial_window` scales the window shift for.
const RMEM_MAX: u64 = 212_992;
/// `tcp_event_data_recv`: only segments of at least 128 bytes grow the window.
const GROW_MIN_LEN: u32 = 128;
/// `TCP_MSS_DEFAULT` (RFC 1122 / include/net/tcp.h): the first `rcv_mss`
/// guess (`tcp_initialize_rcv_mss`).
const TCP_MSS_DEFAULT: u32 = 536;

/// `__tcp_win_from_space`: the window a buffer of `space` bytes supports.
pub(super) fn win_from_space(space: u64) -> u64 {
    (space * SCALING_RATIO) >> RMEM_TO_WIN_SCALE
}

/// `__tcp_space_from_win`: the buffer a window of `win` bytes needs.
fn space_from_win(win: u64) -> u64 {
    (win << RMEM_TO_WIN_SCALE) / SCALING_RATIO
}

/// The window shift `tcp_select_initial_window` picks for an autotuned
/// socket: scaled for the largest buffer it may grow to,
/// clamp(ilog2(max(tcp_rmem[2], rmem_max)) - 15, 0, 14).
pub(super) fn autotune_wscale(rmem_max: u32) -> u8 {
    let space = (rmem_max as u64).max(RMEM_MAX).min((u16::MAX as u64) << MAX_WSCALE);
    (space.ilog2() as i64 - 15).clamp(0, MAX_WSCALE as i64) as u8
}

/// The receive-space state of `struct tcp_sock` (names as there).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RcvSpace {
    /// `sk->sk_rcvbuf`: buffer memory in bytes.
    pub sk_rcvbuf: u32,
    /// `tp->window_clamp`: the largest window we will ever offer.
    pub window_clamp: u32,
    /// `tp->rcv_ssthresh`: the current window ceiling, grown per segment.
    pub rcv_ssthresh: u32,
    /// `rcvq_space.space`: bytes read in the last measured RTT.
    space: u64,
    /// `rcvq_space.seq`: `copied_seq` at the start of the measurement.
    seq: u64,
    /// `rcvq_space.time` in microseconds.
    time_us: u64,
    /// `rcv_rtt_est.rtt_us`, times 8 (0: no estimate yet).
    rtt_us8: u64,
    /// `rcv_rtt_est.seq`: receive offset whose arrival closes the
    /// per-window measurement.
    rtt_seq: u64,
    /// `rcv_rtt_est.time` in microseconds (0: no measurement running).
    rtt_time_us: u64,
    /// `rcv_rtt_last_tsecr`.
    last_tsecr: u32,
    /// `icsk_ack.rcv_mss`: the peer's segment size as we see it
    /// (`tcp_measure_rcv_mss`, in `pushed.rs`).
    pub rcv_mss: u32,
    /// The application read since the last `tcp_rcv_space_adjust`.
    pub read_pending: bool,
}

impl RcvSpace {
    /// `rcv_rtt_est.rtt_us`: the receiver's RTT estimate in µs << 3 (0
    /// before the first measurement).
    pub(super) fn rtt_us8(&self) -> u64 {
        self.rtt_us8
    }
}

impl Endpoint {
    /// Buffer state before the handshake (`tcp_select_initial_window`): the
    /// SYN's window is the half-buffer of `tcp_rmem[1]` rounded down to
    /// whole segments, at most 65535 (unscaled); `rcv_ssthresh` starts there.
    pub(super) fn rcv_space_init(&mut self) {
        let rs = &mut self.rs;
        rs.sk_rcvbuf = self.cfg.tcp_rmem[1];
        let mss = self.cfg.mss as u64;
        let mut space = win_from_space(rs.sk_rcvbuf as u64);
        if space > mss {
            space -= space % mss;
        }
        let rcv_wnd = space.min(u16::MAX as u64) as u32;
        rs.rcv_ssthresh = rcv_wnd;
        rs.window_clamp = ((u16::MAX as u64) << self.rcv_wscale) as u32;
        rs.rcv_mss = TCP_MSS_DEFAULT.min(self.cfg.mss);
    }

    /// Window the SYN / SYN-ACK offers (never scaled, RFC 7323 §2.2).
    pub(super) fn syn_window(&self) -> u32 {
        if self.cfg.rcv_buf_autotune {
            self.rs.rcv_ssthresh
        } else {
            self.cfg.rcv_buf.min(u16::MAX as u32)
        }
    }

    /// `tcp_init_buffer_space` at ESTABLISHED: the clamp becomes the full
    /// space, less one segment held back (`tcp_app_win` = 31 reserves
    /// nothing else), and the first measurement expects an initial window
    /// of data per RTT.
    pub(super) fn rcv_space_established(&mut self, now: Instant) {
        if !self.cfg.rcv_buf_autotune {
            return;
        }
        let advmss = self.cfg.mss;
        let rcv_wnd = self.rcv_adv.saturating_sub(self.rcv_nxt());
        let rs = &mut self.rs;
        // The shift is final now: the peer may not have agreed to scaling.
        rs.window_clamp = rs.window_clamp.min(((u16::MAX as u64) << self.rcv_wscale) as u32);
        let maxwin = win_from_space(rs.sk_rcvbuf as u64) as u32;
        if rs.window_clamp >= maxwin {
            rs.window_clamp = maxwin;
        }
        if rs.window_clamp > 2 * advmss && rs.window_clamp + advmss > maxwin {
            rs.window_clamp = (2 * advmss).max(maxwin.saturating_sub(advmss));
        }
        rs.rcv_ssthresh = rs.rcv_ssthresh.min(rs.window_clamp);
        rs.space = (rs.rcv_ssthresh as u64).min(rcv_wnd).min(TCP_INIT_CWND * advmss as u64);
        rs.seq = self.rcv.read;
        rs.time_us = now.as_micros();
    }

    /// The buffer's whole window (`tcp_full_space`), or the fixed `rcv_buf`.
    pub(super) fn rcv_full_space(&self) -> u64 {
        if self.cfg.rcv_buf_autotune {
            win_from_space(self.rs.sk_rcvbuf as u64).min(self.rs.window_clamp as u64)
        } else {
            self.cfg.rcv_buf as u64
        }
    }

    /// Payload held in the receive buffer: unread plus out of order
    /// (`sk_rmem_alloc` in payload bytes).
    fn rcv_queued(&self) -> u64 {
        self.rcv.unread() + self.rcv.ooo.iter().map(|&(a, b)| b - a).sum::<u64>()
    }

    /// The window an autotuned receiver offers now (`__tcp_select_window`'s
    /// min(free space, rcv_ssthresh)); SWS avoidance and the never-shrink
    /// rule are applied by the caller, as for a fixed buffer.
    pub(super) fn autotune_window(&self) -> u64 {
        let free = self.rcv_full_space().saturating_sub(self.rcv_queued());
        free.min(self.rs.rcv_ssthresh as u64)
    }

    /// In-window data arrived (`tcp_event_data_recv` and the timestamp
    /// sample of `tcp_rcv_established`): RTT measurement and window growth.
    /// The RTT is measured whatever the buffer (Linux measures it for SACK
    /// compression's hold too); the window grows only when autotuned.
    /// Returns whether the window ceiling grew: Linux's `tcp_grow_window`
    /// then sets `icsk_ack.quick`, so this segment is ACKed at once.
    pub(super) fn rcv_space_on_data(&mut self, now: Instant, len: u32, in_order: bool) -> bool {
        self.rcv_rtt_measure_ts(now, len);
        if in_order {
            self.rcv_rtt_measure(now);
        }
        self.cfg.rcv_buf_autotune && len >= GROW_MIN_LEN && self.grow_window(len)
    }

    /// `tcp_rcv_rtt_update`: with timestamps a 1/8 EWMA; per-window
    /// samples (`win_dep`) only ever lower the estimate, because a window
    /// can take longer than an RTT to fill when the sender has nothing to send.
    fn rcv_rtt_update(&mut self, sample_us: u64, win_dep: bool) {
        let rs = &mut self.rs;
        if rs.rtt_us8 == 0 {
            rs.rtt_us8 = sample_us << 3;
        } else if !win_dep {
            rs.rtt_us8 = (rs.rtt_us8 as i64 + sample_us as i64 - (rs.rtt_us8 >> 3) as i64).max(1) as u64;
        } else {
            rs.rtt_us8 = rs.rtt_us8.min(sample_us << 3);
        }
    }

    /// `tcp_rcv_rtt_measure`: time for RCV.NXT to reach the window edge
    /// advertised when the measurement started.
    fn rcv_rtt_measure(&mut self, now: Instant) {
        let now_us = now.as_micros();
        let nxt = self.rcv_nxt();
        if self.rs.rtt_time_us != 0 {
            if nxt < self.rs.rtt_seq {
                return;
            }
            let delta = now_us.saturating_sub(self.rs.rtt_time_us).max(1);
            self.rcv_rtt_update(delta, true);
        }
        self.rs.rtt_seq = self.rcv_adv.max(nxt);
        self.rs.rtt_time_us = now_us.max(1);
    }

    /// `tcp_rcv_rtt_measure_ts`: the peer echoes the TSval of one of our
    /// ACKs; a full-sized segment carrying a new echo gives an RTT sample.
    fn rcv_rtt_measure_ts(&mut self, now: Instant, len: u32) {
        let Some(ecr) = self.rcv_tsecr.filter(|&e| e != 0) else { return };
        if ecr == self.rs.last_tsecr {
            return;
        }
        self.rs.last_tsecr = ecr;
        if len < self.rs.rcv_mss {
            return;
        }
        let delta = self.ts_now(now).wrapping_sub(ecr);
        if (delta as i32) < 0 {
            return;
        }
        let gran_us = (self.cfg.ts_granularity.as_nanos() / 1_000).max(1);
        self.rcv_rtt_update(delta.max(1) as u64 * gran_us, false);
    }

    /// `tcp_grow_window`: raise `rcv_ssthresh` by two segments per segment
    /// received, up to what the clamp and the free space allow.
    fn grow_window(&mut self, len: u32) -> bool {
        let limit = (self.rcv_full_space().saturating_sub(self.rcv_queued())).min(self.rs.window_clamp as u64);
        let room = limit as i64 - self.rs.rcv_ssthresh as i64;
        if room <= 0 {
            return false;
        }
        let incr = (2 * self.cfg.mss).max(2 * len) as i64;
        self.rs.rcv_ssthresh += room.min(incr) as u32;
        true
    }

    /// `tcp_rcv_space_adjust`, run for reads since the last call (Linux
    /// calls it from `tcp_recvmsg`; here the read is timed by the next
    /// `poll_transmit`, which the driver calls right after reading).
    pub(super) fn rcv_space_adjust(&mut self, now: Instant) {
        self.rs.read_pending = false;
        if !self.cfg.rcv_buf_autotune {
            return;
        }
        let now_us = now.as_micros();
        let rs = self.rs;
        if rs.rtt_us8 == 0 || now_us.saturating_sub(rs.time_us) < rs.rtt_us8 >> 3 {
            return;
        }
        let copied = self.rcv.read - rs.seq;
        if copied > rs.space {
            let advmss = self.cfg.mss as u64;
            // Twice what was read (losses) plus a cushion, and twice the
            // growth again for a sender still in slow start.
            let mut rcvwin = (copied << 1) + 16 * advmss;
            let grow = rcvwin * (copied - rs.space) / rs.space.max(1);
            rcvwin += grow << 1;
            let rcvbuf = space_from_win(rcvwin).min(self.cfg.tcp_rmem[2] as u64) as u32;
            if rcvbuf > self.rs.sk_rcvbuf {
                self.rs.sk_rcvbuf = rcvbuf;
                let max = (u16::MAX as u64) << self.rcv_wscale;
                self.rs.window_clamp = win_from_space(rcvbuf as u64).min(max) as u32;
                self.stats.rcvbuf_grows += 1;
                self.stats.rcvbuf_max = self.stats.rcvbuf_max.max(rcvbuf as u64);
            }
            self.rs.space = copied;
        }
        self.rs.seq = self.rcv.read;
        self.rs.time_us = now_us;
    }
}
