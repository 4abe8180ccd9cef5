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
    /// Normal state: no duplicate ACKs, SACKs or suspected loss (`TCP_CA_Open`).
    #[default]
    Open = 0,
    /// Duplicate ACKs or SACKs seen, not yet enough to call a loss (`TCP_CA_Disorder`).
    Disorder = 1,
    /// cwnd being reduced after ECN-Echo or local congestion (`TCP_CA_CWR`).
    Cwr = 2,
    /// Fast recovery after a loss detected by duplicate ACKs/SACK (`TCP_CA_Recovery`).
    Recovery = 3,
    /// After a retransmission timeout: everything outstanding deemed lost (`TCP_CA_Loss`).
    Loss = 4,
}

impl CaState {
    /// Short name for the run's event log (`Open`, `Disorder`, `CWR`,
    /// `Recovery`, `Loss`).
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
    /// ECN: an ACK without CE after CE ones (`CA_EVENT_ECN_NO_CE`, DCTCP's); the
    /// endpoint never raises it, it is here to keep the kernel's enum.
    EcnNoCe,
    /// ECN: a CE-marked packet after unmarked ones (`CA_EVENT_ECN_IS_CE`, DCTCP's);
    /// the endpoint never raises it, it is here to keep the kernel's enum.
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
    /// `tp.delivered_mstamp` (us) when the sample's reference segment was sent:
    /// the start of the ACK-side interval.
    pub prior_mstamp: u64,
    /// `tp.delivered` (packets) when the reference segment was sent.
    pub prior_delivered: u32,
    /// Packets delivered over `interval_us` (negative: invalid sample).
    pub delivered: i32,
    /// Sample interval in microseconds: max of the send and ACK intervals;
    /// -1 when invalid (no reference, or shorter than min_rtt).
    pub interval_us: i64,
    /// Send-side interval (us): first to last transmission of the delivered data.
    pub snd_interval_us: u32,
    /// ACK-side interval (us): from `prior_mstamp` to this ACK.
    pub rcv_interval_us: u32,
    /// RTT of this ACK in microseconds (the `ca_rtt`), -1 when Karn's rule gives none.
    pub rtt_us: i64,
    /// Packets newly marked lost by this ACK.
    pub losses: i32,
    /// Packets newly delivered (cumulatively acked or SACKed) by this ACK.
    pub acked_sacked: u32,
    /// Packets in flight before this ACK was processed.
    pub prior_in_flight: u32,
    /// Whether the reference segment was sent while the sender was
    /// application-limited, so a low rate says nothing about the path.
    pub is_app_limited: bool,
    /// Whether the reference segment was ever retransmitted.
    pub is_retrans: bool,
    /// Whether the ACK was delayed by the receiver; the endpoint does not detect
    /// delayed ACKs, so this stays false (kept for the kernel's shape).
    pub is_ack_delayed: bool,
}

/// Congestion state shared between the endpoint and its algorithm.
#[derive(Clone, Debug)]
pub struct TcpSock {
    /// Congestion window in packets (segments of `mss_cache` bytes).
    pub snd_cwnd: u32,
    /// Acks counted towards the next +1 of cwnd in avoidance (`tcp_cong_avoid_ai`).
    pub snd_cwnd_cnt: u32,
    /// Upper bound on cwnd in packets (`u32::MAX`: none).
    pub snd_cwnd_clamp: u32,
    /// Slow-start threshold in packets; [`TCP_INFINITE_SSTHRESH`] until the first loss.
    pub snd_ssthresh: u32,
    /// cwnd before entering recovery (Linux `prior_cwnd`, used by PRR and undo).
    pub prior_cwnd: u32,
    /// ssthresh to restore on undo (`tcp_undo_cwnd_reduction`); 0 = the
    /// reduction may not be undone (after ECN-Echo).
    pub prior_ssthresh: u32,
    /// Packets sent and not cumulatively acknowledged.
    pub packets_out: u32,
    /// Packets SACKed (or, without SACK, counted by duplicate ACKs).
    pub sacked_out: u32,
    /// Packets marked lost and not yet retransmitted or acknowledged.
    pub lost_out: u32,
    /// Retransmitted packets still in flight.
    pub retrans_out: u32,
    /// Congestion state the endpoint's recovery machine is in.
    pub ca_state: CaState,
    /// Smoothed RTT in microseconds << 3, as the kernel stores it.
    pub srtt_us: u32,
    /// Sender MSS in bytes (`mss_cache`): the packet of every packet count here.
    pub mss_cache: u32,
    /// First unacknowledged sequence number, low 32 bits (for `after`/`before`).
    pub snd_una: u32,
    /// Next sequence number to send, low 32 bits (HyStart and Vegas rounds end at it).
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
    /// Microsecond clock value when `delivered` last grew (`tp->delivered_mstamp`).
    pub delivered_mstamp: u64,
    /// Nonzero while the sender is application-limited (`tp->app_limited`).
    pub app_limited: u32,
    /// Whether the flow used its whole cwnd recently (`tp->is_cwnd_limited`).
    pub is_cwnd_limited: bool,
    /// Most packets in flight during the current window (`tp->max_packets_out`),
    /// for `tcp_is_cwnd_limited`.
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
