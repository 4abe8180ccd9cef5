//! Endpoint configuration. Every constant on which Linux, ns-3 and the RFCs
//! differ is a field here with a documented default.

use airtcp_core::Duration;

/// Loss-recovery behaviour after three duplicate ACKs (or SACK evidence).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Recovery {
    /// Tahoe: fast retransmit, then cwnd = 1 and slow start (no fast recovery).
    Tahoe,
    /// Reno (RFC 5681 §3.2): fast recovery exits on the first ACK that
    /// advances SND.UNA, partial or not.
    Reno,
    /// NewReno (RFC 6582): stay in recovery until the recovery point is
    /// acknowledged, retransmitting on each partial ACK; cwnd inflation/deflation.
    NewReno,
    /// Proportional Rate Reduction (RFC 6937) with NewReno's recovery point:
    /// what Linux and ns-3 (TcpPrrRecovery, the ns-3.44 default) do.
    Prr,
    /// PRR as ns-3 3.44 runs it (TcpPrrRecovery + TcpSocketBase), modelled
    /// for SACK off: a duplicate ACK delivers one segment and, because ns-3
    /// computes cwnd from the pipe before the dupack is counted, releases at
    /// least one new segment; partial ACKs retransmit the head regardless of
    /// cwnd. Details and sources in `endpoint/ns3_prr.rs`.
    Ns3Prr,
}

impl Recovery {
    /// Parse the scenario name (`tahoe`, `reno`, `newreno`, `prr`, `ns3-prr`);
    /// the error lists the known names.
    pub fn from_name(s: &str) -> Result<Self, String> {
        match s {
            "tahoe" => Ok(Recovery::Tahoe),
            "reno" => Ok(Recovery::Reno),
            "newreno" => Ok(Recovery::NewReno),
            "prr" => Ok(Recovery::Prr),
            "ns3-prr" => Ok(Recovery::Ns3Prr),
            other => Err(format!("unknown recovery '{other}' (known: tahoe, reno, newreno, prr, ns3-prr)")),
        }
    }
    /// The scenario name, the inverse of [`Recovery::from_name`].
    pub fn name(self) -> &'static str {
        match self {
            Recovery::Tahoe => "tahoe",
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Prr => "prr",
            Recovery::Ns3Prr => "ns3-prr",
        }
    }
}

/// How the sender reacts when the peer shrinks the window (an ACK whose
/// right edge SND.UNA + SND.WND falls below SND.NXT).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ShrinkPolicy {
    /// Linux, as measured in seed 000 §2.2: SND.UNA advances on every such
    /// ACK, cwnd is untouched, nothing new is sent, and persist mode (zero
    /// window probes, retransmission timer frozen) starts only once the usable
    /// window SND.UNA + SND.WND - SND.NXT is no longer negative.
    Linux,
    /// RFC 9293 §3.8.6.2.2 / RFC 1122 4.2.2.16 reading: a zero window starts
    /// persist mode at once, even with data outstanding.
    Rfc,
}

/// What happens to the duplicate-ACK count without SACK (the "Reno SACKs"
/// that stand for segments known to have left the network).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RenoSacks {
    /// Linux (`tcp_reset_reno_sack`): cleared by every ACK that advances
    /// SND.UNA outside recovery, at recovery exit and at an RTO; counted in
    /// Loss once new data was sent.
    ResetOnAdvance,
    /// ns-3 3.44 (`TcpTxBuffer::AddRenoSack` flags): a dupack flags the
    /// lowest unflagged segment after the head and the flag stays until that
    /// segment is cumulatively ACKed or an RTO clears all; a flag that would
    /// land on the head marks the head lost instead (`DiscardUpTo`). So the
    /// pipe after recovery excludes the dupacked segments, and a dupack soon
    /// after recovery can start the next one at once (`DupAck`: `IsLost(head)`).
    /// Dupacks in Loss are ignored, and only a dupack can start recovery.
    Persist,
}

impl RenoSacks {
    /// Parse the scenario name (`reset`, `persist`); the error lists the known names.
    pub fn from_name(s: &str) -> Result<Self, String> {
        match s {
            "reset" => Ok(RenoSacks::ResetOnAdvance),
            "persist" => Ok(RenoSacks::Persist),
            other => Err(format!("unknown reno_sacks '{other}' (known: reset, persist)")),
        }
    }
    /// The scenario name, the inverse of [`RenoSacks::from_name`].
    pub fn name(self) -> &'static str {
        match self {
            RenoSacks::ResetOnAdvance => "reset",
            RenoSacks::Persist => "persist",
        }
    }
}

/// When a read sends the pending delayed ACK at once (Linux's
/// ICSK_ACK_PUSHED: `tcp_measure_rcv_mss` marks it, `tcp_cleanup_rbuf`
/// sends it when a read leaves the receive queue, out-of-order part
/// included, empty).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PushAck {
    /// Never: only `delack_count`, the timer and window updates send ACKs
    /// (RFC 1122 4.2.3.2; ns-3).
    Off,
    /// A segment shorter than the peer's segment size as measured
    /// (`icsk_ack.rcv_mss`), unless it has the length of the previous one
    /// (then it is the peer's real segment size, `rcv_mss` is lowered to it
    /// and nothing is marked). Every Linux up to 6.5.
    Short,
    /// `Short`, and also a full-sized segment with PSH: the end of the
    /// sender's write, after which the sender may wait for this ACK (Linux
    /// 6.6: "tcp: fix delayed ACKs for MSS boundary condition", posted to
    /// netdev on 1 October 2023; stable kernels of the time took it, 3.16
    /// and 4.4 were no longer maintained).
    Full,
}

impl PushAck {
    /// Parse the scenario name (`off`, `short`, `full`); the error lists the known names.
    pub fn from_name(s: &str) -> Result<Self, String> {
        match s {
            "off" => Ok(PushAck::Off),
            "short" => Ok(PushAck::Short),
            "full" => Ok(PushAck::Full),
            other => Err(format!("unknown push_ack '{other}' (known: off, short, full)")),
        }
    }
    /// The scenario name, the inverse of [`PushAck::from_name`].
    pub fn name(self) -> &'static str {
        match self {
            PushAck::Off => "off",
            PushAck::Short => "short",
            PushAck::Full => "full",
        }
    }
}

/// Where an ACK's RTT sample comes from (Linux `tcp_ack_update_rtt`
/// against RFC 7323's RTTM).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RttSamples {
    /// The echoed timestamp whenever timestamps are on (RFC 7323 §4: RTTM
    /// on every ACK that advances SND.UNA), else the send time of the
    /// oldest newly acknowledged never-retransmitted segment (Karn). ns-3's
    /// `TcpSocketBase::EstimateRtt`; only ACKs of new data give samples.
    Timestamps,
    /// Linux since 3.12 (Yuchung Cheng's "tcp: prefer packet timing to
    /// TS-ECR for RTT" and "tcp: measure RTT from new SACK", 2013): the
    /// sender's own send time of the oldest newly cumulatively acknowledged
    /// never-retransmitted segment, in microseconds; failing that, of the
    /// lowest newly SACKed never-retransmitted one, so a duplicate ACK that
    /// SACKs new data is a sample too; the echoed timestamp only when
    /// neither exists and the ACK advances SND.UNA (an ACK of a
    /// retransmission).
    Linux,
}

impl RttSamples {
    /// Parse the scenario name (`timestamps`, `linux`); the error lists the known names.
    pub fn from_name(s: &str) -> Result<Self, String> {
        match s {
            "timestamps" => Ok(RttSamples::Timestamps),
            "linux" => Ok(RttSamples::Linux),
            other => Err(format!("unknown rtt_samples '{other}' (known: timestamps, linux)")),
        }
    }
    /// The scenario name, the inverse of [`RttSamples::from_name`].
    pub fn name(self) -> &'static str {
        match self {
            RttSamples::Timestamps => "timestamps",
            RttSamples::Linux => "linux",
        }
    }
}

/// Explicit Congestion Notification (RFC 3168) as Linux's
/// `net.ipv4.tcp_ecn` sysctl (Documentation/networking/ip-sysctl.rst).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum EcnMode {
    /// 0: never request ECN, refuse a peer's request (ns-3 3.44's default
    /// `UseEcn = Off`).
    Off,
    /// 1: request ECN on our SYN (ECE + CWR, `tcp_ecn_send_syn`) and accept
    /// a peer's request.
    On,
    /// 2, the kernel default: accept a peer's request (`tcp_ecn_create_request`
    /// answers with ECE on the SYN-ACK) but never request it. Two such ends
    /// never use ECN.
    Passive,
}

impl EcnMode {
    /// The sysctl's number or a name.
    pub fn from_name(s: &str) -> Result<Self, String> {
        match s {
            "0" | "off" => Ok(EcnMode::Off),
            "1" | "on" => Ok(EcnMode::On),
            "2" | "passive" => Ok(EcnMode::Passive),
            other => Err(format!("unknown ecn '{other}' (known: 0/off, 1/on, 2/passive)")),
        }
    }
    /// From the number a `net.ipv4.tcp_ecn` value or a `sysctl` dump holds; the
    /// error names the accepted values.
    pub fn from_sysctl(n: i64) -> Result<Self, String> {
        match n {
            0 => Ok(EcnMode::Off),
            1 => Ok(EcnMode::On),
            2 => Ok(EcnMode::Passive),
            other => Err(format!("ecn = {other} is not a tcp_ecn mode (0 off, 1 on, 2 passive)")),
        }
    }
    /// The sysctl value.
    pub fn sysctl(self) -> u8 {
        match self {
            EcnMode::Off => 0,
            EcnMode::On => 1,
            EcnMode::Passive => 2,
        }
    }
    /// The scenario name (`off`, `on`, `passive`).
    pub fn name(self) -> &'static str {
        match self {
            EcnMode::Off => "off",
            EcnMode::On => "on",
            EcnMode::Passive => "passive",
        }
    }
}

/// How much the ACK that ends Loss (RTO recovery) may grow cwnd.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LossExitGrowth {
    /// Linux: `cong_avoid` with everything the ACK delivered.
    AllAcked,
    /// ns-3 3.44 `ProcessAck` (CA_LOSS -> CA_OPEN): only the segments above
    /// the recovery point, `(ack - m_recover) / SMSS`, usually none.
    BeyondRecoveryPoint,
}

impl LossExitGrowth {
    /// Parse the scenario name (`all-acked`, `beyond-recovery-point`).
    pub fn from_name(s: &str) -> Result<Self, String> {
        match s {
            "all-acked" => Ok(LossExitGrowth::AllAcked),
            "beyond-recovery-point" => Ok(LossExitGrowth::BeyondRecoveryPoint),
            other => Err(format!("unknown loss_exit_growth '{other}' (known: all-acked, beyond-recovery-point)")),
        }
    }
    /// The scenario name, the inverse of [`LossExitGrowth::from_name`].
    pub fn name(self) -> &'static str {
        match self {
            LossExitGrowth::AllAcked => "all-acked",
            LossExitGrowth::BeyondRecoveryPoint => "beyond-recovery-point",
        }
    }
}

/// When an RTO lowers ssthresh (RFC 5681 §3.1: not when the segment was
/// already resent by the retransmission timer).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RtoSsthresh {
    /// Linux `tcp_enter_loss`: from Open/Disorder, after the recovery point
    /// was reached, or in Loss before any retransmission since the last ACK
    /// of new data; an RTO during fast recovery keeps the reduced ssthresh.
    OncePerWindow,
    /// ns-3 3.44 `ReTxTimeout`: every RTO, from the pipe before the RTO. Its
    /// guard `congState != CA_LOSS || !IsHeadRetransmitted ()` runs after
    /// `SetSentListLost` has cleared every retransmitted flag, so it always
    /// holds: an RTO during fast recovery halves ssthresh again, and
    /// back-to-back RTOs in Loss take it to max(pipe/2, 2) each time.
    Always,
}

impl RtoSsthresh {
    /// Parse the scenario name (`once-per-window`, `always`).
    pub fn from_name(s: &str) -> Result<Self, String> {
        match s {
            "once-per-window" => Ok(RtoSsthresh::OncePerWindow),
            "always" => Ok(RtoSsthresh::Always),
            other => Err(format!("unknown rto_ssthresh '{other}' (known: once-per-window, always)")),
        }
    }
    /// The scenario name, the inverse of [`RtoSsthresh::from_name`].
    pub fn name(self) -> &'static str {
        match self {
            RtoSsthresh::OncePerWindow => "once-per-window",
            RtoSsthresh::Always => "always",
        }
    }
}

/// Which ACKs restart the retransmission timer during fast recovery.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PartialAckRto {
    /// Linux and RFC 6298 §5.3: every ACK of new data (RFC 6582 §4's
    /// "Slow-but-Steady" variant).
    Every,
    /// RFC 6582 §3.2 step 5 ("Impatient"): only the first partial ACK of a
    /// recovery; ns-3 3.44 `ProcessAck` calls `NewAck (ack, m_isFirstPartialAck)`.
    FirstOnly,
}

impl PartialAckRto {
    /// Parse the scenario name (`every`, `first-only`).
    pub fn from_name(s: &str) -> Result<Self, String> {
        match s {
            "every" => Ok(PartialAckRto::Every),
            "first-only" => Ok(PartialAckRto::FirstOnly),
            other => Err(format!("unknown partial_ack_rto '{other}' (known: every, first-only)")),
        }
    }
    /// The scenario name, the inverse of [`PartialAckRto::from_name`].
    pub fn name(self) -> &'static str {
        match self {
            PartialAckRto::Every => "every",
            PartialAckRto::FirstOnly => "first-only",
        }
    }
}

/// How the retransmission timer is computed and armed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RtoTimer {
    /// RFC 6298 §2: RTO = max(SRTT + max(G, 4·RTTVAR), min_rto), restarted
    /// only by ACKs of new data (§5.3). ns-3 3.44 `TcpSocketBase` does this.
    Rfc6298,
    /// Linux `tcp_rtt_estimator` / `tcp_set_rto`: RTO = SRTT + RTTVAR where
    /// RTTVAR is the per-RTT maximum of 4·mdev but never below `min_rto`
    /// (TCP_RTO_MIN), so RTO >= SRTT + 200 ms; and the timer restarts when
    /// the head of the retransmission queue is retransmitted
    /// (`tcp_xmit_retransmit_queue`). Behind a full buffer SRTT is steady,
    /// RTTVAR shrinks and the RFC timer expires before a fast retransmission
    /// can come back; the Linux one does not.
    Linux,
}

impl RtoTimer {
    /// Parse the scenario name (`rfc6298`, `linux`).
    pub fn from_name(s: &str) -> Result<Self, String> {
        match s {
            "rfc6298" => Ok(RtoTimer::Rfc6298),
            "linux" => Ok(RtoTimer::Linux),
            other => Err(format!("unknown rto_timer '{other}' (known: rfc6298, linux)")),
        }
    }
    /// The scenario name, the inverse of [`RtoTimer::from_name`].
    pub fn name(self) -> &'static str {
        match self {
            RtoTimer::Rfc6298 => "rfc6298",
            RtoTimer::Linux => "linux",
        }
    }
}

/// `net.ipv4.tcp_rmem` defaults since Linux 5.4 (commit a337531b942b, "tcp:
/// up initial rmem to 128KB and SYN rwin to around 64KB").
pub const TCP_RMEM: [u32; 3] = [4096, 131_072, 6_291_456];
/// `net.ipv4.tcp_wmem` defaults (Documentation/networking/ip-sysctl.rst).
pub const TCP_WMEM: [u32; 3] = [4096, 16_384, 4_194_304];

/// Everything an [`crate::Endpoint`] needs to know before it starts: the
/// constants on which Linux, ns-3 and the RFCs differ, each with its source
/// and default. [`TcpConfig::default`] is a Linux sender; the profiles in
/// `crate::profiles` and [`TcpConfig::with_ns3_behaviour`] adjust it.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// The named profile (`crate::profiles`) this configuration starts
    /// from, for the record (summary.json); "" when built in code from
    /// [`TcpConfig::default`]. The endpoint never reads it.
    pub profile: &'static str,
    /// Sender maximum segment size in payload bytes.
    pub mss: u32,
    /// Initial congestion window in segments (RFC 6928 / Linux: 10; ns-3: 10).
    pub initial_cwnd: u32,
    /// Initial ssthresh in segments (Linux/ns-3: unlimited).
    pub initial_ssthresh: u32,
    /// Receive buffer in bytes: the most the advertised window can be, when
    /// the buffer is fixed (`rcv_buf_autotune = false`). This is the value a
    /// program passes to `setsockopt(SO_RCVBUF)`: Linux doubles it into
    /// `sk_rcvbuf` and `tcp_win_from_space` halves it back, so the window
    /// limit is this number.
    pub rcv_buf: u32,
    /// Send buffer in bytes of unacknowledged and unsent application data,
    /// when the buffer is fixed (`snd_buf_autotune = false`).
    pub snd_buf: u32,
    /// Receive-buffer autotuning, Linux's Dynamic Right-Sizing
    /// (`tcp_rcv_space_adjust`, `net.ipv4.tcp_moderate_rcvbuf = 1`): the
    /// buffer starts at `tcp_rmem[1]` and grows towards `tcp_rmem[2]` with
    /// the bytes the application reads per receiver RTT; `rcv_buf` is then
    /// unused. Linux turns it off for a socket whose program set SO_RCVBUF
    /// (`SOCK_RCVBUF_LOCK`), and a scenario that gives `rcv_buf` does the
    /// same. Off here because a `TcpConfig` always carries a `rcv_buf`; the
    /// scenario's Linux profile turns it on. ns-3 3.44's `TcpSocketBase`
    /// has a fixed `RcvBufSize`.
    pub rcv_buf_autotune: bool,
    /// `net.ipv4.tcp_rmem` = [min, default, max] in bytes of buffer memory
    /// (Linux 5.4+ defaults 4096 / 131072 / 6291456); half of it is window
    /// (`tcp_win_from_space`, see `endpoint/autotune.rs`).
    pub tcp_rmem: [u32; 3],
    /// Send-buffer growth with cwnd (`tcp_sndbuf_expand`): the buffer
    /// starts at `tcp_wmem[1]` and grows to twice the data of
    /// max(cwnd, IW) full-size segments (in Linux's worst-case per-segment
    /// memory), up to `tcp_wmem[2]`; `snd_buf` is then unused. Linux turns
    /// it off once a program sets SO_SNDBUF (`SOCK_SNDBUF_LOCK`), and a
    /// scenario that gives `snd_buf` does the same. Off here for the same
    /// reason as `rcv_buf_autotune`; on in the scenario's Linux profile.
    pub snd_buf_autotune: bool,
    /// `net.ipv4.tcp_wmem` = [min, default, max] in bytes (Linux defaults
    /// 4096 / 16384 / 4194304).
    pub tcp_wmem: [u32; 3],
    /// TCP_NODELAY: false (the Linux default) runs Nagle's algorithm (RFC
    /// 896) in Linux's Minshall form (`tcp_nagle_check`,
    /// `tcp_minshall_check`): a sub-MSS segment waits while an earlier
    /// sub-MSS segment is unacknowledged. A segment carrying FIN never
    /// waits. ns-3 3.44's `TcpSocket::TcpNoDelay` defaults to true.
    pub nodelay: bool,
    /// Restart cwnd after idle (RFC 5681 §4.1, Linux `tcp_cwnd_restart`,
    /// `net.ipv4.tcp_slow_start_after_idle = 1`): new data after more than
    /// an RTO without sending halves cwnd per RTO idle, down to
    /// min(cwnd, IW). ns-3 3.44's `TcpSocketBase` never restarts cwnd.
    pub slow_start_after_idle: bool,
    /// Offer and accept SACK (RFC 2018, Linux `net.ipv4.tcp_sack = 1`); used only
    /// when both SYNs carry SACK-permitted. Default on; Linux and ns-3 agree.
    pub sack: bool,
    /// Offer and accept the timestamp option (RFC 7323 §3, Linux
    /// `net.ipv4.tcp_timestamps = 1`), which gives RTT samples on retransmitted
    /// data and Eifel detection. Default on; Linux and ns-3 agree.
    pub timestamps: bool,
    /// Where an ACK's RTT sample comes from. See [`RttSamples`].
    pub rtt_samples: RttSamples,
    /// Offer window scaling (RFC 7323); the shift is the smallest that covers `rcv_buf`.
    pub window_scaling: bool,
    /// ACK every `delack_count`-th full segment (RFC 1122: 2). 1 disables delayed ACK.
    /// Above 2 it only shows when `window_update_ack` is off or the
    /// application reads slower than the data arrives: a read that opens
    /// the window by min(2·MSS, buffer/2) ACKs at once (see
    /// `window_update_ack`), which with an application that keeps up is
    /// every second full segment, as on Linux.
    pub delack_count: u32,
    /// Send an ACK when the application's read opens the advertised window
    /// by at least min(2·MSS, buffer/2) (RFC 1122 4.2.3.3 receiver SWS
    /// avoidance; Linux `__tcp_cleanup_rbuf`). Off: reads never cause an
    /// ACK and `delack_count` / `delack_timeout` alone pace them, as in a
    /// stack without a receive buffer to drain (ns-2's `Agent/TCPSink`
    /// family, whose sink consumes data on arrival).
    pub window_update_ack: bool,
    /// Which in-order segments mark the pending delayed ACK "pushed", so
    /// that the application's read that leaves nothing queued sends it at
    /// once (Linux `tcp_measure_rcv_mss` sets ICSK_ACK_PUSHED,
    /// `tcp_cleanup_rbuf` sends the ACK). See [`PushAck`].
    pub push_ack: PushAck,
    /// Which data segments the sender marks PSH: 0 every one; n > 0 the
    /// one that ends the data written so far and every one that ends a
    /// group of n full segments of the stream. Linux marks the last
    /// segment of each skb a write pushes, and a bulk writer blocked on a
    /// full send buffer pushes each skb it appends (`tcp_push` before
    /// `sk_stream_wait_memory`); below about 23 Mb/s an skb holds
    /// `tcp_min_tso_segs` = 2 segments (`tcp_tso_autosize`, since 3.12),
    /// so every second segment has PSH (a capture of Linux 6.18 at 10 Mb/s
    /// shows it every 2 or 3 segments). A receiver with
    /// `push_ack = "full"` ACKs such a segment when it has read it.
    pub push_segs: u32,
    /// Linux 4.11+ (`__tcp_transmit_skb`, "tcp: force a PSH flag on TSO
    /// packets"): PSH on the last segment of every transmitted chunk of
    /// more than one new segment, chunks of `tcp_tso_autosize` segments
    /// and of at most half the window (`tcp_cwnd_test`) cut from what one transmission opportunity sends; `push_segs` then
    /// plays no part (the 64 KiB skbs of today's writer end rarely).
    pub push_tso: bool,
    /// Delayed-ACK timer (ns-3: 200 ms; Linux: 40 ms min, adaptive).
    pub delack_timeout: Duration,
    /// SACK compression (Linux `net.ipv4.tcp_comp_sack_nr`, 4.18): while
    /// out-of-order data is queued, the receiver sends the first three ACKs
    /// after each advance of RCV.NXT at once (5.10: "tcp: defer SACK
    /// compression after DupThresh") and then holds further ones, up to
    /// this many, for `comp_sack_delay` (`__tcp_ack_snd_check`).
    /// 0: every out-of-order segment is ACKed at once (RFC 5681 §4.2).
    pub comp_sack_nr: u32,
    /// Longest hold of a compressed SACK (`tcp_comp_sack_delay_ns`, 1 ms);
    /// the hold is the smaller of this and 5 % of the receiver's RTT
    /// estimate.
    pub comp_sack_delay: Duration,
    /// Slack of the compressed-ACK timer (`tcp_comp_sack_slack_ns`,
    /// 100 µs, 5.10): an hrtimer range, which fires at its end unless the
    /// CPU wakes earlier; the model fires it at the end.
    pub comp_sack_slack: Duration,
    /// In-order data segments ACKed immediately once the connection is
    /// established, before delayed ACK applies. Default 0 (RFC 1122 4.2.3.2
    /// has no such rule). ns-3: 1 — `ProcessSynRcvd`/`ProcessSynSent` set
    /// `m_delAckCount = m_delAckMaxCount` ("always respond to first data
    /// packet"). Linux instead starts in quickack mode (up to 16 segments,
    /// `tcp_incr_quickack`), which this field only approximates.
    pub initial_quickacks: u32,
    /// Re-enter quick-ACK mode when in-order data arrives after a gap
    /// longer than the receiver's RTO (Linux `tcp_event_data_recv`: "too
    /// long gap, apparently sender failed to restart window, so that we
    /// send ACKs quickly", `tcp_incr_quickack`): the next min(16, receive
    /// window / 2·MSS) segments are ACKed at once. Every Linux; not ns-3.
    pub idle_quickack: bool,
    /// Linux's adaptive delayed-ACK timeout (`icsk_ack.ato` in jiffies,
    /// `tcp_event_data_recv` / `tcp_send_delayed_ack` /
    /// `tcp_delack_timer_handler`): `delack_timeout` is its floor; a timer
    /// that had to fire doubles it, capped by the receiver's SRTT rounded
    /// up to a jiffy. Off: a fixed `delack_timeout` from the held segment.
    /// Every Linux; not ns-3.
    pub delack_adaptive: bool,
    /// Linux's jiffy timers (retransmission, loss probe, RACK reordering,
    /// persist, delayed ACK) fire on the kernel's timer wheel at `hz`:
    /// whole jiffies ahead, then the jiffy after (8 jiffies' grid from 63
    /// jiffies ahead, 64 from 504, ...), never early (kernel/time/timer.c
    /// `calc_wheel_index`, 4.8+). Off: at the exact deadline.
    pub timer_wheel: bool,
    /// RFC 6298 initial RTO (RFC 6298: 1 s; ns-3: 1 s).
    pub initial_rto: Duration,
    /// Retransmission timeout of SYN / SYN-ACK, doubled per retry; None =
    /// `initial_rto` (RFC 6298 §2.1 and Linux TCP_TIMEOUT_INIT: 1 s). ns-3:
    /// `TcpSocket::ConnTimeout` = 3 s, doubled per retry (`SendEmptyPacket`).
    pub syn_rto: Option<Duration>,
    /// Lower bound on RTO (RFC 6298: 1 s; Linux: 200 ms; ns-3: 1 s).
    pub min_rto: Duration,
    /// Upper bound on RTO (RFC 6298 allows >= 60 s; Linux TCP_RTO_MAX: 120 s).
    pub max_rto: Duration,
    /// Clock granularity G in RTO = SRTT + max(G, 4·RTTVAR) (ns-3: 1 ms).
    pub clock_granularity: Duration,
    /// A coarse timer tick, as BSD's 500 ms slow timer and OPNET's "Timer
    /// Granularity" apply it (`endpoint/rtt.rs`, `endpoint/timers.rs`):
    /// every RTT sample is rounded up to whole ticks (at least one), and the
    /// retransmission timer fires only on a tick boundary (the first at or
    /// after its deadline). `None` (default): no tick, samples and timers at
    /// the simulator's resolution.
    pub rto_tick: Option<Duration>,
    /// Loss-recovery algorithm after duplicate ACKs or SACK evidence. Default
    /// [`Recovery::Prr`] (Linux); [`Recovery::Ns3Prr`] in the ns-3 behaviour.
    pub recovery: Recovery,
    /// Duplicate-ACK threshold (RFC 5681: 3).
    pub dupack_threshold: u32,
    /// RFC 3042 limited transmit (ns-3 default: on).
    pub limited_transmit: bool,
    /// RACK loss detection (RFC 8985 §6), for SACK connections: a segment
    /// is lost once one sent after it was delivered and a reordering window
    /// has passed, which also finds lost retransmissions, in Recovery and
    /// in Loss. The window adapts as Linux `tcp_rack_reo_wnd` (min_rtt/4
    /// once reordering was seen or before DupThresh SACKs, scaled up on
    /// D-SACKs), and a reordering timer fires for segments not yet due
    /// (`tcp_rack_reo_timeout`). Default on: Linux since 4.18
    /// (net.ipv4.tcp_recovery = 1, TCP_RACK_LOSS_DETECTION). Inactive
    /// without SACK and with `Recovery::Ns3Prr` (ns-3 3.44 has no RACK).
    pub rack: bool,
    /// Tail loss probe (RFC 8985 §7, Linux `tcp_schedule_loss_probe` /
    /// `tcp_send_loss_probe`, net.ipv4.tcp_early_retrans = 3): in Open or
    /// CWR with data outstanding, 2·SRTT after the last send (capped at the
    /// RTO) one segment goes out — new data if the window admits it, else
    /// the highest one again — so a tail loss is repaired by fast recovery
    /// instead of the RTO; a probe that repaired a loss reduces cwnd
    /// (`tcp_process_tlp_ack`). Linux needs SACK for it. Default on
    /// (Linux); off in [`TcpConfig::with_ns3_behaviour`] and inactive with
    /// `Recovery::Ns3Prr` (ns-3 3.44 has no TLP).
    pub tlp: bool,
    /// F-RTO (RFC 5682 with Linux's SACK-enhanced variant, `tcp_frto = 2`):
    /// after an RTO the next ACKs decide whether the timeout was spurious
    /// (never-retransmitted data acknowledged after new data went out); if
    /// so Loss ends and cwnd / ssthresh are restored (`tcp_process_loss`,
    /// `tcp_try_undo_loss(sk, true)`). Default on (Linux). ns-3 3.44 has no
    /// F-RTO: off in [`TcpConfig::with_ns3_behaviour`].
    pub frto: bool,
    /// Without SACK, a cumulative ACK that covers an RTO's retransmission
    /// does not count as acknowledging never-retransmitted data, so F-RTO
    /// does not undo the timeout on it (Linux 4.17, `tcp_clean_rtx_queue`:
    /// "tcp: prevent bogus FRTO undos with non-SACK flows"). Without the
    /// guard, segments the receiver held behind the hole look like
    /// originals that arrived after the timeout: F-RTO undoes a real loss,
    /// restores a cwnd below what is outstanding and, with no duplicate ACK
    /// left to come, waits for the next RTO. Off in the 3.16 and 4.4
    /// profiles, which predate it.
    pub frto_nonsack_guard: bool,
    /// Receiver generates D-SACK blocks (RFC 2883) for duplicate segments
    /// (`tcp_dsack_set` / `tcp_dsack_extend`, Linux `tcp_dsack = 1`); only on
    /// SACK connections. Default on (Linux). Off for ns-3 (see
    /// [`TcpConfig::with_ns3_behaviour`]).
    pub dsack: bool,
    /// Undo of a window reduction that proves unnecessary, the
    /// `tcp_try_undo_*` family: at recovery exit (`tcp_try_undo_recovery`),
    /// on a partial ACK (`tcp_try_undo_partial`), in Loss
    /// (`tcp_try_undo_loss`) and when D-SACKs show every retransmission was
    /// a duplicate (`tcp_try_undo_dsack`); restores cwnd through the module's
    /// `undo_cwnd` hook and ssthresh from `prior_ssthresh`. F-RTO's own undo
    /// belongs to `frto`. Default on (Linux has no switch for it). Off for ns-3.
    pub undo: bool,
    /// Eifel detection (RFC 3522, Linux `tcp_packet_delayed`): an ACK whose
    /// TSecr predates the first retransmission was caused by an original
    /// transmission, so the retransmission was unnecessary and `undo` may
    /// act. Needs timestamps. Default on (Linux). Off for ns-3.
    pub eifel: bool,
    /// ECN negotiation (RFC 3168 §6.1.1) as `net.ipv4.tcp_ecn`. Once both
    /// SYNs agree, new data goes out ECT(0), a CE mark makes the receiver
    /// echo ECE until the sender's CWR, and an ECE puts the sender into CWR
    /// (one `ssthresh` reduction per window, PRR down to it). Default
    /// `Passive` (2, the kernel's). ns-3 3.44's `UseEcn` defaults to Off:
    /// off in [`TcpConfig::with_ns3_behaviour`].
    pub ecn: EcnMode,
    /// Duplicate-ACK bookkeeping without SACK (default Linux).
    pub reno_sacks: RenoSacks,
    /// cwnd growth on the ACK that ends Loss (default Linux).
    pub loss_exit_growth: LossExitGrowth,
    /// Whether an RTO recomputes ssthresh (default Linux).
    pub rto_ssthresh: RtoSsthresh,
    /// Retransmission-timer restarts on partial ACKs (default Linux).
    pub partial_ack_rto: PartialAckRto,
    /// RTO formula and restarts (default RFC 6298, as ns-3; `Linux` for a
    /// Linux sender).
    pub rto_timer: RtoTimer,
    /// The congestion-control algorithm (named by `cc::BUILTIN_NAMES`).
    pub cc: crate::cc::CcAlgorithm,
    /// Kernel HZ for the jiffies clock the modules see (Linux default 1000).
    pub hz: u32,
    /// First persist (zero-window probe) interval lower bound (Linux TCP_RTO_MIN 200 ms).
    pub persist_min: Duration,
    /// Persist interval upper bound (Linux TCP_RTO_MAX: 120 s).
    pub persist_max: Duration,
    /// Sender's reaction to a shrunk window (default [`ShrinkPolicy::Linux`];
    /// seed 000's zero-window ACKs during handoff rely on it).
    pub shrink_policy: ShrinkPolicy,
    /// Retransmissions of one segment before the connection is aborted
    /// (Linux tcp_retries2 = 15; ns-3 DataRetries = 6).
    pub max_retries: u32,
    /// SYN retransmissions before giving up (Linux tcp_syn_retries = 6).
    pub syn_retries: u32,
    /// Timestamp clock tick (Linux: 1 ms).
    pub ts_granularity: Duration,
    /// Maximum segment lifetime; TIME_WAIT lasts 2·MSL (RFC 9293 §3.4.2).
    /// Default 1 s (TIME_WAIT 2 s) is deliberately short: RFC 9293 suggests
    /// 2 min and Linux holds TIME_WAIT for a fixed 60 s (TCP_TIMEWAIT_LEN),
    /// but nothing in a simulated run reuses the port pair, and a long
    /// TIME_WAIT would only keep the event queue alive.
    pub msl: Duration,
    /// Wi-TCP sender (seed 001, `endpoint/witcp.rs`): obey EHO-ACK / EHC-ACK
    /// signals (TCP option 253, ExID 0x5754) by freezing and restoring cwnd
    /// and ssthresh. Default off: the option is then ignored, as by any
    /// unmodified stack.
    pub witcp: bool,
    /// With `witcp`: resume on our own after this long frozen without an
    /// EHC-ACK. Default `None` (the paper waits for the EHC-ACK indefinitely).
    pub witcp_max_freeze: Option<Duration>,
    /// Explicit handover notification sender (the seed's \[8\],
    /// `endpoint/ehn.rs`): on an ACK carrying the EHN signal, reset the
    /// retransmission timer and resend from its acknowledgement number at
    /// once. Default off: the signal is then an ordinary ACK.
    pub ehn: bool,
    /// Freeze-TCP receiver (Goff et al., INFOCOM 2000; `endpoint/freeze.rs`):
    /// the driver may call `Endpoint::freeze` when its radio predicts a
    /// handoff and `unfreeze` on reconnection. Default off.
    pub freeze: bool,
}

impl Default for TcpConfig {
    /// Defaults follow the ns-3 anchor where ns-3 and Linux disagree on a
    /// timer (RFC 6298 min RTO of 1 s, 200 ms delayed ACK), and Linux for
    /// everything a congestion module sees.
    fn default() -> Self {
        TcpConfig {
            profile: "",
            mss: 1460,
            initial_cwnd: 10,
            initial_ssthresh: crate::cc::TCP_INFINITE_SSTHRESH,
            rcv_buf: 131_072,
            snd_buf: 131_072,
            rcv_buf_autotune: false,
            tcp_rmem: TCP_RMEM,
            snd_buf_autotune: false,
            tcp_wmem: TCP_WMEM,
            nodelay: false,
            slow_start_after_idle: true,
            sack: true,
            timestamps: true,
            rtt_samples: RttSamples::Timestamps,
            window_scaling: true,
            delack_count: 2,
            window_update_ack: true,
            push_ack: PushAck::Off,
            push_segs: 0,
            push_tso: false,
            delack_timeout: Duration::from_millis(200),
            comp_sack_nr: 0,
            comp_sack_delay: Duration::from_millis(1),
            comp_sack_slack: Duration::from_micros(100),
            initial_quickacks: 0,
            idle_quickack: false,
            delack_adaptive: false,
            timer_wheel: false,
            initial_rto: Duration::from_secs(1),
            syn_rto: None,
            min_rto: Duration::from_secs(1),
            max_rto: Duration::from_secs(60),
            clock_granularity: Duration::from_millis(1),
            rto_tick: None,
            recovery: Recovery::Prr,
            dupack_threshold: 3,
            limited_transmit: true,
            rack: true,
            tlp: true,
            frto: true,
            frto_nonsack_guard: true,
            dsack: true,
            undo: true,
            eifel: true,
            ecn: EcnMode::Passive,
            reno_sacks: RenoSacks::ResetOnAdvance,
            loss_exit_growth: LossExitGrowth::AllAcked,
            rto_ssthresh: RtoSsthresh::OncePerWindow,
            partial_ack_rto: PartialAckRto::Every,
            rto_timer: RtoTimer::Rfc6298,
            cc: crate::cc::CcAlgorithm::Reno,
            hz: 1000,
            persist_min: Duration::from_millis(200),
            persist_max: Duration::from_secs(60),
            shrink_policy: ShrinkPolicy::Linux,
            max_retries: 15,
            syn_retries: 6,
            ts_granularity: Duration::from_millis(1),
            msl: Duration::from_secs(1),
            witcp: false,
            witcp_max_freeze: None,
            ehn: false,
            freeze: false,
        }
    }
}

impl TcpConfig {
    /// ns-3 3.44's TcpSocketBase behaviour where it differs from Linux / the
    /// RFCs (each field documents the ns-3 source it follows); everything
    /// else is [`TcpConfig::default`].
    pub fn ns3() -> Self {
        TcpConfig::default().with_ns3_behaviour()
    }

    /// This configuration with every ns-3 3.44 behaviour switch set (the
    /// scenario parameters — MSS, buffers, timers — are left alone).
    ///
    /// ns-3 3.44's `TcpSocketBase` has neither F-RTO nor any undo of a
    /// reduction (no Eifel, no D-SACK undo: `ReTxTimeout` and `EnterRecovery`
    /// never look back), and its receive buffer reports only out-of-order
    /// blocks (no D-SACK), so `frto`, `undo`, `eifel` and `dsack` are off;
    /// nor does it send tail loss probes (`tlp` off). Its
    /// `TcpSocketBase::UseEcn` defaults to Off, so `ecn` is too. Its buffers
    /// are fixed (`RcvBufSize`, `SndBufSize`), `TcpNoDelay` defaults to true
    /// and it has no cwnd restart after idle.
    pub fn with_ns3_behaviour(self) -> Self {
        TcpConfig {
            ecn: EcnMode::Off,
            tlp: false,
            rcv_buf_autotune: false,
            snd_buf_autotune: false,
            nodelay: true,
            slow_start_after_idle: false,
            frto: false,
            frto_nonsack_guard: true,
            dsack: false,
            undo: false,
            eifel: false,
            initial_quickacks: 1,
            recovery: Recovery::Ns3Prr,
            reno_sacks: RenoSacks::Persist,
            loss_exit_growth: LossExitGrowth::BeyondRecoveryPoint,
            rto_ssthresh: RtoSsthresh::Always,
            partial_ack_rto: PartialAckRto::FirstOnly,
            syn_rto: Some(Duration::from_secs(3)),
            ..self
        }
    }

    /// Checks the values a scenario file could get wrong; the message names the field.
    pub fn validate(&self) -> Result<(), String> {
        if self.comp_sack_delay.0.saturating_add(self.comp_sack_slack.0) > Duration::from_secs(1).0 {
            return Err(format!(
                "comp_sack_delay + comp_sack_slack = {} ms holds an out-of-order ACK longer than 1 s (Linux: 1 ms + 0.1 ms)",
                (self.comp_sack_delay.0 + self.comp_sack_slack.0) as f64 / 1e6
            ));
        }
        if self.mss < 1 || self.mss > 65_495 {
            return Err(format!("mss = {} is outside 1..=65495", self.mss));
        }
        if self.initial_cwnd == 0 {
            return Err("initial_cwnd must be at least 1 segment".into());
        }
        if self.rcv_buf < self.mss {
            return Err(format!("rcv_buf = {} is smaller than one mss ({})", self.rcv_buf, self.mss));
        }
        if self.snd_buf == 0 {
            return Err("snd_buf must be positive".into());
        }
        let [rmin, rdef, rmax] = self.tcp_rmem;
        if rmin == 0 || rmin > rdef || rdef > rmax {
            return Err(format!("tcp_rmem = [{rmin}, {rdef}, {rmax}] must be positive and ordered min <= default <= max"));
        }
        if self.rcv_buf_autotune && (rdef / 2) < self.mss {
            return Err(format!("tcp_rmem default {rdef} leaves a window (half of it) below one mss ({})", self.mss));
        }
        let [wmin, wdef, wmax] = self.tcp_wmem;
        if wmin == 0 || wmin > wdef || wdef > wmax {
            return Err(format!("tcp_wmem = [{wmin}, {wdef}, {wmax}] must be positive and ordered min <= default <= max"));
        }
        if self.delack_count == 0 {
            return Err("delack_count must be at least 1 (1 = no delayed ACK)".into());
        }
        if self.min_rto > self.max_rto {
            return Err(format!("min_rto {} exceeds max_rto {}", self.min_rto, self.max_rto));
        }
        if self.initial_rto == Duration::ZERO {
            return Err("initial_rto must be positive".into());
        }
        if self.dupack_threshold == 0 {
            return Err("dupack_threshold must be at least 1".into());
        }
        if self.ts_granularity == Duration::ZERO {
            return Err("ts_granularity must be positive (Linux: 1 ms)".into());
        }
        if self.clock_granularity > self.max_rto {
            return Err(format!("clock_granularity {} exceeds max_rto {}", self.clock_granularity, self.max_rto));
        }
        if self.persist_min > self.persist_max {
            return Err(format!("persist_min {} exceeds persist_max {}", self.persist_min, self.persist_max));
        }
        if self.rto_tick == Some(Duration::ZERO) {
            return Err("rto_tick must be positive (leave it unset for no tick)".into());
        }
        if let Some(t) = self.rto_tick.filter(|t| *t > self.max_rto) {
            return Err(format!("rto_tick {t} exceeds max_rto {}", self.max_rto));
        }
        if self.witcp_max_freeze == Some(Duration::ZERO) {
            return Err("witcp_max_freeze must be positive (leave it unset for no limit)".into());
        }
        if self.hz == 0 || 1_000_000_000 % self.hz as u64 != 0 {
            return Err(format!("hz = {} must divide 1e9 (e.g. 100, 250, 1000)", self.hz));
        }
        Ok(())
    }
}
