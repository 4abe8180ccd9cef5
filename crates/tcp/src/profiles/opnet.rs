//! OPNET Modeler's TCP model as seed 004 configured it (2003). The
//! seed's "TCP parameters" table is the source of every value it lists;
//! the rest is marked as an assumption. OPNET's source is not public, so
//! "Timer Granularity 0.5" follows OPNET's documented attribute (the
//! precision RTTs are measured with) and its observed effect (a 1 s RTO
//! retransmits about 1.5 s after the loss): `rto_tick`.

use airtcp_core::Duration;

use super::Profile;
use crate::cc::{CcAlgorithm, TCP_INFINITE_SSTHRESH};
use crate::config::{EcnMode, LossExitGrowth, PartialAckRto, PushAck, Recovery, RttSamples, RenoSacks, RtoSsthresh, RtoTimer, ShrinkPolicy, TcpConfig, TCP_RMEM, TCP_WMEM};

pub(super) fn opnet_2003() -> TcpConfig {
    TcpConfig {
        profile: "opnet-2003",
        mss: 2264,                                   // table: Maximum Segment Size (bytes) 2264
        initial_cwnd: 1,                             // not in the table (assumption: RFC 2581's 1 segment)
        initial_ssthresh: TCP_INFINITE_SSTHRESH,
        rcv_buf: 8760,                               // table: Receiver Buffer Size (bytes) 8760
        snd_buf: 65_535,                             // not in the table (assumption)
        rcv_buf_autotune: false,
        tcp_rmem: TCP_RMEM,                          // unused
        snd_buf_autotune: false,
        tcp_wmem: TCP_WMEM,                          // unused
        nodelay: true,                               // table: Nagle SWS Algorithm Disabled
        window_update_ack: true, // the seed's table is silent; the RFC 1122 4.2.3.3 window update
        push_ack: PushAck::Off, // the seed's table: segment/clock based delayed ACK only
        push_tso: false,                             // PSH as push_segs says
        push_segs: 0,
        slow_start_after_idle: true,                 // not in the table (RFC 2581 §4.1)
        sack: false,                                 // table: Selective Ack (SACK) Disabled
        timestamps: false,                           // not in the table; no RFC 1323 options
        rtt_samples: RttSamples::Timestamps,         // no timestamps: Karn on segment send times
        window_scaling: false,                       // not in the table; 8760-byte buffer needs none
        delack_count: 2,                             // table: Delayed Ack Mechanism Segment/Clock Based
        delack_timeout: Duration::from_millis(200),  // table: Maximum Ack Delay 0.2
        comp_sack_nr: 0,                             // out-of-order data ACKed at once (RFC 2581)
        comp_sack_delay: Duration::from_millis(1),   // unused
        comp_sack_slack: Duration::from_micros(100), // unused
        initial_quickacks: 0,
        delack_adaptive: false,                      // fixed delayed-ACK timer
        timer_wheel: false,                          // timers at their exact deadlines
        idle_quickack: false,                        // no such rule
        initial_rto: Duration::from_secs(1),         // table: Initial RTO 1.0
        syn_rto: None,
        min_rto: Duration::from_millis(500),         // table: Minimum RTO 0.5
        max_rto: Duration::from_secs(64),            // table: Maximum RTO 64
        clock_granularity: Duration::ZERO,           // no RFC 6298 G term: RTO = SRTT + 4·RTTVAR (table: RTT Deviation Coefficient 4.0)
        rto_tick: Some(Duration::from_millis(500)),  // table: Timer Granularity 0.5
        recovery: Recovery::Reno,                    // table: Fast Retransmit / Fast Recovery Enabled
        dupack_threshold: 3,
        limited_transmit: false,                     // not in the table (RFC 3042 postdates the model)
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
        rto_ssthresh: RtoSsthresh::OncePerWindow,
        partial_ack_rto: PartialAckRto::Every,
        rto_timer: RtoTimer::Rfc6298,                // table: RTT Gain 0.125, Deviation Gain 0.25 (RFC 6298's alpha, beta)
        cc: CcAlgorithm::Reno,
        hz: 1000,                                    // only the modules see it
        persist_min: Duration::from_secs(1),         // table: Persist Timeout 1.0
        persist_max: Duration::from_secs(64),        // the Maximum RTO
        shrink_policy: ShrinkPolicy::Rfc,
        max_retries: 15,                             // table: Retransmission Threshold Attempt Based (count not given)
        syn_retries: 6,
        ts_granularity: Duration::from_millis(1),    // unused (no timestamps)
        msl: Duration::from_secs(1),
        witcp: false,
        witcp_max_freeze: None,
        ehn: false,
        freeze: false,
    }
}

pub(super) const OPNET_2003: Profile = Profile {
    name: "opnet-2003",
    title: "OPNET Modeler's TCP as seed 004's table sets it",
    config: opnet_2003,
    sources: &[
        ("(table)", "seed 004, \"TCP parameters\": MSS 2264, receiver buffer 8760, delayed ACK segment/clock based with maximum ACK delay 0.2, fast retransmit and fast recovery enabled, SACK disabled, Nagle disabled, Karn enabled, initial / minimum / maximum RTO 1.0 / 0.5 / 64, RTT gain 0.125, deviation gain 0.25, deviation coefficient 4.0, timer granularity 0.5, persist timeout 1.0"),
        ("rto_tick", "OPNET's \"Timer Granularity\" is the precision of RTT measurement; with 0.5 s a 1 s RTO retransmits about 1.5 s after the loss (OPNET TCP model user guide; moleman.tistory.com's measurements)"),
        ("clock_granularity", "0: OPNET's RTO is SRTT + 4·RTTVAR, with no RFC 6298 G term"),
        ("initial_cwnd, limited_transmit, snd_buf, timestamps, window_scaling", "not in the table (assumptions)"),
    ],
    gaps: &[
        "the delayed ACK is \"segment/clock based\": OPNET's ACK timer runs on its own clock; here it is a 200 ms timer started by the first unacknowledged segment",
        "the number of retransmission attempts (\"attempt based\") is not in the seed's table",
    ],
};
