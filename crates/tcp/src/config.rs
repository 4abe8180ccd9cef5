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
}

impl Recovery {
    pub fn from_name(s: &str) -> Result<Self, String> {
        match s {
            "tahoe" => Ok(Recovery::Tahoe),
            "reno" => Ok(Recovery::Reno),
            "newreno" => Ok(Recovery::NewReno),
            "prr" => Ok(Recovery::Prr),
            other => Err(format!("unknown recovery '{other}' (known: tahoe, reno, newreno, prr)")),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Recovery::Tahoe => "tahoe",
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Prr => "prr",
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

#[derive(Clone, Debug)]
pub struct TcpConfig {
    /// Sender maximum segment size in payload bytes.
    pub mss: u32,
    /// Initial congestion window in segments (RFC 6928 / Linux: 10; ns-3: 10).
    pub initial_cwnd: u32,
    /// Initial ssthresh in segments (Linux/ns-3: unlimited).
    pub initial_ssthresh: u32,
    /// Receive buffer in bytes: the most the advertised window can be.
    pub rcv_buf: u32,
    /// Send buffer in bytes.
    pub snd_buf: u32,
    pub sack: bool,
    pub timestamps: bool,
    /// Offer window scaling (RFC 7323); the shift is the smallest that covers `rcv_buf`.
    pub window_scaling: bool,
    /// ACK every `delack_count`-th full segment (RFC 1122: 2). 1 disables delayed ACK.
    pub delack_count: u32,
    /// Delayed-ACK timer (ns-3: 200 ms; Linux: 40 ms min, adaptive).
    pub delack_timeout: Duration,
    /// RFC 6298 initial RTO (RFC 6298: 1 s; ns-3: 1 s).
    pub initial_rto: Duration,
    /// Lower bound on RTO (RFC 6298: 1 s; Linux: 200 ms; ns-3: 1 s).
    pub min_rto: Duration,
    /// Upper bound on RTO (RFC 6298 allows >= 60 s; Linux TCP_RTO_MAX: 120 s).
    pub max_rto: Duration,
    /// Clock granularity G in RTO = SRTT + max(G, 4·RTTVAR) (ns-3: 1 ms).
    pub clock_granularity: Duration,
    pub recovery: Recovery,
    /// Duplicate-ACK threshold (RFC 5681: 3).
    pub dupack_threshold: u32,
    /// RFC 3042 limited transmit (ns-3 default: on).
    pub limited_transmit: bool,
    /// Congestion control module name (see `cc::BUILTIN_NAMES`).
    pub cc: String,
    /// Kernel HZ for the jiffies clock the modules see (Linux default 1000).
    pub hz: u32,
    /// First persist (zero-window probe) interval lower bound (Linux TCP_RTO_MIN 200 ms).
    pub persist_min: Duration,
    /// Persist interval upper bound (Linux TCP_RTO_MAX: 120 s).
    pub persist_max: Duration,
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
}

impl Default for TcpConfig {
    /// Defaults follow the ns-3 anchor where ns-3 and Linux disagree on a
    /// timer (RFC 6298 min RTO of 1 s, 200 ms delayed ACK), and Linux for
    /// everything a congestion module sees.
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            initial_cwnd: 10,
            initial_ssthresh: crate::cc::TCP_INFINITE_SSTHRESH,
            rcv_buf: 131_072,
            snd_buf: 131_072,
            sack: true,
            timestamps: true,
            window_scaling: true,
            delack_count: 2,
            delack_timeout: Duration::from_millis(200),
            initial_rto: Duration::from_secs(1),
            min_rto: Duration::from_secs(1),
            max_rto: Duration::from_secs(60),
            clock_granularity: Duration::from_millis(1),
            recovery: Recovery::Prr,
            dupack_threshold: 3,
            limited_transmit: true,
            cc: "newreno".to_string(),
            hz: 1000,
            persist_min: Duration::from_millis(200),
            persist_max: Duration::from_secs(60),
            shrink_policy: ShrinkPolicy::Linux,
            max_retries: 15,
            syn_retries: 6,
            ts_granularity: Duration::from_millis(1),
            msl: Duration::from_secs(1),
        }
    }
}

impl TcpConfig {
    /// Checks the values a scenario file could get wrong; the message names the field.
    pub fn validate(&self) -> Result<(), String> {
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
        if self.hz == 0 || 1_000_000_000 % self.hz as u64 != 0 {
            return Err(format!("hz = {} must divide 1e9 (e.g. 100, 250, 1000)", self.hz));
        }
        crate::cc::CongestionControl::from_name(&self.cc).map(|_| ())
    }
}
