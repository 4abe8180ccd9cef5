//! The standards as written: RFC 5681 (congestion control), RFC 6298 (the
//! retransmission timer), RFC 6675 (SACK loss recovery) with RFC 6582's
//! NewReno when the peer offers no SACK, RFC 3042 limited transmit (RFC
//! 5681 §3.2 recommends it) and RFC 2018/7323 options. Nothing the RFCs
//! leave to implementations (F-RTO, undo, TLP, RACK, ECN) is on.

use airtcp_core::Duration;

use super::Profile;
use crate::cc::{CcAlgorithm, TCP_INFINITE_SSTHRESH};
use crate::config::{EcnMode, LossExitGrowth, PartialAckRto, PushAck, Recovery, RttSamples, RenoSacks, RtoSsthresh, RtoTimer, ShrinkPolicy, TcpConfig, TCP_RMEM, TCP_WMEM};

pub(super) fn rfc() -> TcpConfig {
    TcpConfig {
        profile: "rfc",
        mss: 1460,
        initial_cwnd: 3,                             // RFC 5681 §3.1 eq. 1: 3·SMSS for 1095 < SMSS <= 2190
        initial_ssthresh: TCP_INFINITE_SSTHRESH,     // RFC 5681 §3.1: "arbitrarily high"
        rcv_buf: 131_072,
        snd_buf: 131_072,
        rcv_buf_autotune: false,
        tcp_rmem: TCP_RMEM,                          // unused
        snd_buf_autotune: false,
        tcp_wmem: TCP_WMEM,                          // unused
        nodelay: false,                              // RFC 1122 4.2.3.4: Nagle SHOULD be implemented
        window_update_ack: true, // RFC 1122 4.2.3.3: a window update once the window opens by an MSS
        push_ack: PushAck::Off, // RFC 1122 4.2.3.2: by count and timer only
        push_tso: false,                             // PSH as push_segs says
        push_segs: 0,
        slow_start_after_idle: true,                 // RFC 5681 §4.1
        sack: true,                                  // RFC 2018, needed by RFC 6675
        timestamps: true,                            // RFC 7323
        rtt_samples: RttSamples::Timestamps,         // RFC 7323 §4 RTTM
        window_scaling: true,                        // RFC 7323
        delack_count: 2,                             // RFC 5681 §4.2: at least every second full-sized segment
        delack_timeout: Duration::from_millis(200),  // RFC 5681 §4.2: "MUST be generated within 500 ms"; 200 ms as customary
        comp_sack_nr: 0,                             // RFC 5681 4.2: out-of-order data ACKed at once
        comp_sack_delay: Duration::from_millis(1),   // unused
        comp_sack_slack: Duration::from_micros(100), // unused
        initial_quickacks: 0,                        // no such rule
        delack_adaptive: false,                      // RFC 1122 4.2.3.2: a fixed bound
        timer_wheel: false,                          // timers at their exact deadlines
        idle_quickack: false,                        // no such rule
        initial_rto: Duration::from_secs(1),         // RFC 6298 (2.1)
        syn_rto: None,
        min_rto: Duration::from_secs(1),             // RFC 6298 (2.4)
        max_rto: Duration::from_secs(60),            // RFC 6298 (2.5): at least 60 s
        clock_granularity: Duration::from_millis(1), // RFC 6298's G, a 1 ms clock
        rto_tick: None,
        recovery: Recovery::NewReno,                 // RFC 6675 with SACK, RFC 6582 without
        dupack_threshold: 3,                         // RFC 5681 §3.2, RFC 6675 DupThresh
        limited_transmit: true,                      // RFC 3042 (RFC 5681 §3.2 SHOULD)
        rack: false,
        tlp: false,
        frto: false,
        frto_nonsack_guard: true, // unused without F-RTO
        dsack: false,
        undo: false,
        eifel: false,
        ecn: EcnMode::Off,
        reno_sacks: RenoSacks::ResetOnAdvance,
        loss_exit_growth: LossExitGrowth::AllAcked,
        rto_ssthresh: RtoSsthresh::OncePerWindow,    // RFC 5681 §3.1 eq. 4, not again for a retransmitted segment
        partial_ack_rto: PartialAckRto::Every,       // RFC 6298 (5.3)
        rto_timer: RtoTimer::Rfc6298,
        cc: CcAlgorithm::Reno,                           // RFC 5681 slow start and congestion avoidance
        hz: 1000,                                    // only the modules see it
        persist_min: Duration::from_secs(1),         // RFC 9293 3.8.6.1: the RTO
        persist_max: Duration::from_secs(60),
        shrink_policy: ShrinkPolicy::Rfc,            // RFC 9293 3.8.6.2.2
        max_retries: 15,                             // RFC 1122 4.2.3.5: R2 of at least 100 s
        syn_retries: 6,
        ts_granularity: Duration::from_millis(1),
        msl: Duration::from_secs(1),
        witcp: false,
        witcp_max_freeze: None,
        ehn: false,
        freeze: false,
    }
}

pub(super) const RFC: Profile = Profile {
    name: "rfc",
    title: "RFC 5681 / 6298 / 6675 (6582 without SACK) as written",
    config: rfc,
    sources: &[
        ("initial_cwnd", "RFC 5681 §3.1 equation 1 for the 1460-byte MSS (RFC 6928's IW 10 is experimental)"),
        ("initial_rto, min_rto, max_rto, clock_granularity", "RFC 6298 (2.1), (2.4), (2.5); G a 1 ms clock"),
        ("recovery", "RFC 6675 with SACK, RFC 6582 NewReno (and its guard against a second fast retransmit in one window) without"),
        ("delack_count, delack_timeout", "RFC 5681 §4.2 (RFC 1122 4.2.3.2): every second full-sized segment, within 500 ms"),
        ("limited_transmit", "RFC 3042, recommended by RFC 5681 §3.2"),
        ("shrink_policy", "RFC 9293 3.8.6.2.2 / RFC 1122 4.2.2.16"),
    ],
    gaps: &["the delayed-ACK timeout has only an upper bound in the RFCs; 200 ms is the customary value"],
};
