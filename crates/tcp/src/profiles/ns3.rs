//! ns-3 3.44's `TcpSocketBase` with the anchor's TcpNewReno: what the
//! ns-3 anchor scenarios (`recovery = "ns3-prr"`) run. Every switch is the
//! one [`TcpConfig::with_ns3_behaviour`] documents with the ns-3 code path
//! it models; the attribute defaults are /work/shared/anchors' dump of
//! ns-3.44 (`ns3_defaults.md`).

use airtcp_core::Duration;

use super::Profile;
use crate::cc::{CcAlgorithm, TCP_INFINITE_SSTHRESH};
use crate::config::{EcnMode, LossExitGrowth, PartialAckRto, PushAck, Recovery, RttSamples, RenoSacks, RtoSsthresh, RtoTimer, ShrinkPolicy, TcpConfig, TCP_RMEM, TCP_WMEM};

pub(super) fn ns3() -> TcpConfig {
    TcpConfig {
        profile: "ns3",
        mss: 1460,                                   // a path property (ns-3's SegmentSize default is 536)
        initial_cwnd: 10,                            // TcpSocket::InitialCwnd = 10
        initial_ssthresh: TCP_INFINITE_SSTHRESH,     // TcpSocket::InitialSlowStartThreshold = UINT32_MAX
        rcv_buf: 131_072,                            // TcpSocket::RcvBufSize = 131072
        snd_buf: 131_072,                            // TcpSocket::SndBufSize = 131072
        rcv_buf_autotune: false,                     // fixed buffers
        tcp_rmem: TCP_RMEM,                          // unused (no autotuning)
        snd_buf_autotune: false,
        tcp_wmem: TCP_WMEM,                          // unused
        nodelay: true,                               // TcpSocket::TcpNoDelay = true
        window_update_ack: true, // unchanged from the ns-3 anchor runs that validate this profile
        push_ack: PushAck::Off, // ns-3's TcpSocketBase ACKs by count and timer only
        push_tso: false,                             // PSH as push_segs says
        push_segs: 0,
        slow_start_after_idle: false,                // TcpSocketBase never restarts cwnd
        sack: true,                                  // TcpSocketBase::Sack = true
        timestamps: true,                            // TcpSocketBase::Timestamp = true
        rtt_samples: RttSamples::Timestamps,         // TcpSocketBase::EstimateRtt: TSecr when on
        window_scaling: true,                        // TcpSocketBase::WindowScaling = true
        delack_count: 2,                             // TcpSocket::DelAckCount = 2
        delack_timeout: Duration::from_millis(200),  // TcpSocket::DelAckTimeout = 200 ms
        comp_sack_nr: 0,                             // TcpSocketBase ACKs out-of-order data at once
        comp_sack_delay: Duration::from_millis(1),   // unused
        comp_sack_slack: Duration::from_micros(100), // unused
        initial_quickacks: 1,                        // ProcessSynRcvd: "always respond to first data packet"
        delack_adaptive: false,                      // no such rule: DelAckTimeout is fixed
        timer_wheel: false,                          // timers at their exact deadlines
        idle_quickack: false,                        // no such rule
        initial_rto: Duration::from_secs(1),         // RttEstimator::InitialEstimation = 1 s
        syn_rto: Some(Duration::from_secs(3)),       // TcpSocket::ConnTimeout = 3 s
        min_rto: Duration::from_secs(1),             // TcpSocketBase::MinRto = 1 s
        max_rto: Duration::from_secs(60),            // RFC 6298 (2.5) bound ns-3 applies
        clock_granularity: Duration::from_millis(1), // TcpSocketBase::ClockGranularity = 1 ms
        rto_tick: None,
        recovery: Recovery::Ns3Prr,                  // TcpPrrRecovery, the 3.44 default
        dupack_threshold: 3,                         // TcpSocketBase::ReTxThreshold = 3
        limited_transmit: true,                      // TcpSocketBase::LimitedTransmit = true
        rack: true,                                  // inactive with Ns3Prr (ns-3 has no RACK)
        tlp: false,                                  // no TLP
        frto: false,                                 // no F-RTO
        frto_nonsack_guard: true, // unused without F-RTO
        dsack: false,                                // TcpRxBuffer reports no D-SACK
        undo: false,                                 // no undo of a reduction
        eifel: false,
        ecn: EcnMode::Off,                           // TcpSocketBase::UseEcn = Off
        reno_sacks: RenoSacks::Persist,              // TcpTxBuffer::AddRenoSack
        loss_exit_growth: LossExitGrowth::BeyondRecoveryPoint, // ProcessAck CA_LOSS -> CA_OPEN
        rto_ssthresh: RtoSsthresh::Always,           // ReTxTimeout
        partial_ack_rto: PartialAckRto::FirstOnly,   // NewAck (ack, m_isFirstPartialAck)
        rto_timer: RtoTimer::Rfc6298,                // RttMeanDeviation + TcpSocketBase
        cc: CcAlgorithm::NewReno,                        // the anchor's TcpNewReno (3.44's SocketType default is TcpCubic)
        hz: 1000,                                    // only the modules see it
        persist_min: Duration::from_millis(200),     // unused by ns-3's own persist (TcpSocketBase::PersistTimeout 6 s is not modelled)
        persist_max: Duration::from_secs(60),
        shrink_policy: ShrinkPolicy::Linux,
        max_retries: 15,
        syn_retries: 6,                              // TcpSocket::ConnCount = 6
        ts_granularity: Duration::from_millis(1),
        msl: Duration::from_secs(1),
        witcp: false,
        witcp_max_freeze: None,
        ehn: false,
        freeze: false,
    }
}

pub(super) const NS3: Profile = Profile {
    name: "ns3",
    title: "ns-3 3.44 TcpSocketBase with TcpNewReno (what `recovery = \"ns3-prr\"` selects)",
    config: ns3,
    sources: &[
        ("(all)", "TcpConfig::with_ns3_behaviour (crates/tcp/src/config.rs) and the ns-3.44 attribute dump in the ns-3 anchor (ns3_defaults.md)"),
        ("recovery", "TcpPrrRecovery as ns-3.44 runs it (endpoint/ns3_prr.rs)"),
        ("cc", "the anchor runs ns3::TcpNewReno; ns-3.44's default SocketType is TcpCubic"),
        ("syn_rto", "TcpSocket::ConnTimeout = 3 s"),
        ("rack", "left on but inactive: ns3-prr recovery never runs RACK (ns-3 3.44 has none)"),
        ("max_retries", "TcpSocket::DataRetries = 6 is not applied (15 kept, as the anchor scenarios have)"),
    ],
    gaps: &[
        "ns-3's TcpCubic (its 3.44 default) differs from Linux's cubic module; use `cc = \"cubic\"` knowingly",
        "the persist timer (TcpSocketBase::PersistTimeout 6 s) and DataRetries = 6 are not modelled",
    ],
};
