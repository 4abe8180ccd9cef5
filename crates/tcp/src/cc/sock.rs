//! The congestion-relevant part of Linux's `struct tcp_sock`, in packets, and
//! the kernel helpers that act on it (`tcp_slow_start`, `tcp_cong_avoid_ai`,
//! `tcp_packets_in_flight`, ...). Field names follow the kernel so that an
//! algorithm reads like its `net/ipv4/tcp_*.c` source.

/// `TCP_INFINITE_SSTHRESH` (include/net/tcp.h).
pub const TCP_INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// `enum tcp_ca_state` (include/uapi/linux/tcp.h).
#[derive(Clone, Copy, PartialEq, Eq, Debug, PartialOrd, Ord, Hash, Default)]
#[repr(u8)]
pub enum CaState {
    #[default]
    Open = 0,
    Disorder = 1,
    Cwr = 2,
    Recovery = 3,
    Loss = 4,
}

impl CaState {
    pub fn name(self) -> &'static str {
        match self {
            CaState::Open => "Open",
            CaState::Disorder => "Disorder",
            CaState::Cwr => "CWR",
            CaState::Recovery => "Recovery",
            CaState::Loss => "Loss",
        }
    }
}

/// `enum tcp_ca_event` (include/net/tcp.h).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CaEvent {
    /// First transmission when no packet is in flight.
    TxStart,
    /// Congestion window restart after idle.
    CwndRestart,
    /// End of congestion recovery (CWR or Recovery completed).
    CompleteCwr,
    /// Loss timeout.
    Loss,
    EcnNoCe,
    EcnIsCe,
}

/// `struct ack_sample` (include/net/tcp.h): what `pkts_acked` sees.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct AckSample {
    /// Packets newly acknowledged (cumulatively or by SACK).
    pub pkts_acked: u32,
    /// RTT sample in microseconds, negative when this ACK gives none (Karn).
    pub rtt_us: i32,
    /// Packets in flight before this ACK was processed.
    pub in_flight: u32,
}

/// `struct rate_sample` (include/net/tcp.h), for delivery-rate based modules.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct RateSample {
    pub prior_mstamp: u64,
    pub prior_delivered: u32,
    /// Packets delivered over `interval_us` (negative: invalid sample).
    pub delivered: i32,
    pub interval_us: i64,
    pub snd_interval_us: u32,
    pub rcv_interval_us: u32,
    pub rtt_us: i64,
    pub losses: i32,
    pub acked_sacked: u32,
    pub prior_in_flight: u32,
    pub is_app_limited: bool,
    pub is_retrans: bool,
    pub is_ack_delayed: bool,
}

/// Congestion state shared between the endpoint and its algorithm.
#[derive(Clone, Debug)]
pub struct TcpSock {
    pub snd_cwnd: u32,
    pub snd_cwnd_cnt: u32,
    pub snd_cwnd_clamp: u32,
    pub snd_ssthresh: u32,
    /// cwnd before entering recovery (Linux `prior_cwnd`, used by PRR and undo).
    pub prior_cwnd: u32,
    pub prior_ssthresh: u32,
    pub packets_out: u32,
    pub sacked_out: u32,
    pub lost_out: u32,
    pub retrans_out: u32,
    pub ca_state: CaState,
    /// Smoothed RTT in microseconds << 3, as the kernel stores it.
    pub srtt_us: u32,
    pub mss_cache: u32,
    pub snd_una: u32,
    pub snd_nxt: u32,
    /// Microsecond clock (`tcp_mstamp`), set by the endpoint before each hook.
    pub tcp_mstamp: u64,
    /// Jiffies clock at [`TcpSock::hz`] ticks per second, set with `tcp_mstamp`.
    pub jiffies: u32,
    /// Kernel `HZ` (default 1000).
    pub hz: u32,
    /// Jiffies of the last data transmission (`lsndtime`).
    pub lsndtime: u32,
    /// Packets delivered so far (`tp->delivered`).
    pub delivered: u32,
    pub delivered_mstamp: u64,
    /// Nonzero while the sender is application-limited (`tp->app_limited`).
    pub app_limited: u32,
    /// Whether the flow used its whole cwnd recently (`tp->is_cwnd_limited`).
    pub is_cwnd_limited: bool,
    pub max_packets_out: u32,
    /// Pacing rate in bytes per second (`sk->sk_pacing_rate`); 0 = no pacing.
    pub pacing_rate: u64,
    /// Set by a module that wants the endpoint to pace (`sk_pacing_status`).
    pub pacing_requested: bool,
    /// Minimum RTT seen, microseconds (`tcp_min_rtt`), u32::MAX until sampled.
    pub min_rtt_us: u32,
    /// Packets marked lost so far (`tp->lost`), for BBR's policer detection.
    pub lost: u32,
    /// Earliest departure time of the next paced packet, ns on the clock of
    /// `tcp_mstamp * 1000` (`tp->tcp_wstamp_ns`); 0 or a past time = now.
    pub tcp_wstamp_ns: u64,
}

impl Default for TcpSock {
    fn default() -> Self {
        TcpSock {
            snd_cwnd: 10,
            snd_cwnd_cnt: 0,
            snd_cwnd_clamp: u32::MAX,
            snd_ssthresh: TCP_INFINITE_SSTHRESH,
            prior_cwnd: 0,
            prior_ssthresh: 0,
            packets_out: 0,
            sacked_out: 0,
            lost_out: 0,
            retrans_out: 0,
            ca_state: CaState::Open,
            srtt_us: 0,
            mss_cache: 1460,
            snd_una: 0,
            snd_nxt: 0,
            tcp_mstamp: 0,
            jiffies: 0,
            hz: 1000,
            lsndtime: 0,
            delivered: 0,
            delivered_mstamp: 0,
            app_limited: 0,
            is_cwnd_limited: false,
            max_packets_out: 0,
            pacing_rate: 0,
            pacing_requested: false,
            min_rtt_us: u32::MAX,
            lost: 0,
            tcp_wstamp_ns: 0,
        }
    }
}

impl TcpSock {
    /// `tcp_packets_in_flight`: packets_out - left_out + retrans_out.
    pub fn packets_in_flight(&self) -> u32 {
        (self.packets_out + self.retrans_out).saturating_sub(self.sacked_out + self.lost_out)
    }

    /// `tcp_in_slow_start`.
    pub fn in_slow_start(&self) -> bool {
        self.snd_cwnd < self.snd_ssthresh
    }

    /// `tcp_is_cwnd_limited` (Linux 6.x): in slow start, limited if cwnd is
    /// below twice what was in flight; otherwise the flag the endpoint keeps.
    pub fn is_cwnd_limited_now(&self) -> bool {
        if self.in_slow_start() {
            return self.snd_cwnd < 2 * self.max_packets_out;
        }
        self.is_cwnd_limited
    }

    /// `tcp_slow_start`: cwnd += acked up to ssthresh; returns leftover acked.
    pub fn slow_start(&mut self, acked: u32) -> u32 {
        let cwnd = self.snd_cwnd.saturating_add(acked).min(self.snd_ssthresh);
        let acked = acked - (cwnd - self.snd_cwnd).min(acked);
        self.snd_cwnd = cwnd.min(self.snd_cwnd_clamp);
        acked
    }

    /// `tcp_cong_avoid_ai`: cwnd += 1 every `w` acked packets, keeping the
    /// remainder in `snd_cwnd_cnt`.
    pub fn cong_avoid_ai(&mut self, w: u32, acked: u32) {
        let w = w.max(1);
        // If credits accumulated at a higher w, apply them gently now.
        if self.snd_cwnd_cnt >= w {
            self.snd_cwnd_cnt = 0;
            self.snd_cwnd += 1;
        }
        self.snd_cwnd_cnt += acked;
        if self.snd_cwnd_cnt >= w {
            let delta = self.snd_cwnd_cnt / w;
            self.snd_cwnd_cnt -= delta * w;
            self.snd_cwnd += delta;
        }
        self.snd_cwnd = self.snd_cwnd.min(self.snd_cwnd_clamp);
    }

    /// Smoothed RTT in microseconds (undoing the kernel's << 3).
    pub fn srtt(&self) -> u32 {
        self.srtt_us >> 3
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_stops_at_ssthresh_and_returns_leftover() {
        let mut tp = TcpSock { snd_cwnd: 8, snd_ssthresh: 10, ..Default::default() };
        assert_eq!(tp.slow_start(5), 3);
        assert_eq!(tp.snd_cwnd, 10);
    }

    #[test]
    fn cong_avoid_ai_adds_one_per_window() {
        let mut tp = TcpSock { snd_cwnd: 4, snd_ssthresh: 2, ..Default::default() };
        for _ in 0..3 {
            tp.cong_avoid_ai(4, 1);
        }
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (4, 3));
        tp.cong_avoid_ai(4, 1);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (5, 0));
        // Two windows' worth of credit at once.
        tp.cong_avoid_ai(5, 10);
        assert_eq!((tp.snd_cwnd, tp.snd_cwnd_cnt), (7, 0));
    }

    #[test]
    fn in_flight_counts_retransmissions_not_sacked() {
        let tp = TcpSock { packets_out: 10, sacked_out: 3, lost_out: 2, retrans_out: 1, ..Default::default() };
        assert_eq!(tp.packets_in_flight(), 6);
    }
}
