//! Linux profiles: the kernel of today (6.x, the default), Ubuntu 16.04's
//! 4.4 (seed 000's era) and Ubuntu 14.04's 3.16 (seed 003's kernel).
//!
//! Sources are the kernel's own: sysctl defaults from
//! Documentation/networking/ip-sysctl.rst (`net.ipv4.tcp_*`), constants
//! from include/net/tcp.h, behaviour from net/ipv4/tcp_input.c,
//! tcp_output.c, tcp_timer.c and tcp_recovery.c, with the release that
//! brought each. The eras are written as Linux 6.x with what the older
//! kernel lacked or set differently, so the differences are the code.

use airtcp_core::Duration;

use super::Profile;
use crate::cc::{CcAlgorithm, TCP_INFINITE_SSTHRESH};
use crate::config::{EcnMode, LossExitGrowth, PartialAckRto, PushAck, Recovery, RttSamples, RenoSacks, RtoSsthresh, RtoTimer, ShrinkPolicy, TcpConfig, TCP_RMEM, TCP_WMEM};

/// `tcp_rmem` before Linux 5.4 (commit a337531b942b raised the default to
/// 128 KiB): 4096 / 87380 / 6291456 (since 3.6's b49960a05e32 set max 6 MiB).
const TCP_RMEM_PRE_5_4: [u32; 3] = [4096, 87_380, 6_291_456];

/// Linux 6.x as the kernel runs it with its default sysctls.
pub(super) fn linux() -> TcpConfig {
    TcpConfig {
        profile: "linux",
        // A path property, not a stack one: 1460 = 1500-byte MTU - 40; the
        // kernel sends 1448 with timestamps (scenarios set `mss`).
        mss: 1460,
        initial_cwnd: 10,                            // TCP_INIT_CWND (include/net/tcp.h), since 2.6.39
        initial_ssthresh: TCP_INFINITE_SSTHRESH,     // TCP_INFINITE_SSTHRESH
        rcv_buf: 131_072,                            // unused while autotuned (tcp_rmem[1])
        snd_buf: 131_072,                            // unused while autotuned
        rcv_buf_autotune: true,                      // tcp_moderate_rcvbuf = 1 (tcp_rcv_space_adjust, 2.6.7)
        tcp_rmem: TCP_RMEM,                          // 4096 131072 6291456 (5.4+)
        snd_buf_autotune: true,                      // tcp_sndbuf_expand (no SO_SNDBUF)
        tcp_wmem: TCP_WMEM,                          // 4096 16384 4194304
        nodelay: false,                              // Nagle on unless TCP_NODELAY
        window_update_ack: true, // __tcp_ack_snd_check: an ACK once the read opens the window by an MSS
        push_ack: PushAck::Full,                     // tcp_measure_rcv_mss: PSH on a full segment too, since 6.6
        push_segs: 2,                                // before 4.11: tcp_push of each tcp_min_tso_segs = 2 skb (tcp_tso_autosize, 3.12)
        push_tso: true,                              // __tcp_transmit_skb forces PSH on multi-segment skbs (4.11)
        slow_start_after_idle: true,                 // tcp_slow_start_after_idle = 1
        sack: true,                                  // tcp_sack = 1
        timestamps: true,                            // tcp_timestamps = 1
        rtt_samples: RttSamples::Linux,              // tcp_ack_update_rtt: send times, then new SACKs, then TSecr (3.12)
        window_scaling: true,                        // tcp_window_scaling = 1
        delack_count: 2,                             // __tcp_ack_snd_check: more than one full frame
        delack_timeout: Duration::from_millis(40),   // TCP_DELACK_MIN = HZ/25, the ATO bulk data settles at
        comp_sack_nr: 44,                            // tcp_comp_sack_nr = 44 (SACK compression, 4.18)
        comp_sack_delay: Duration::from_millis(1),   // tcp_comp_sack_delay_ns = 1 ms
        comp_sack_slack: Duration::from_micros(100), // tcp_comp_sack_slack_ns = 100 us (5.10)
        initial_quickacks: 16,                       // TCP_MAX_QUICKACKS (tcp_incr_quickack on first data)
        idle_quickack: true,                         // tcp_event_data_recv: a gap > RTO re-enters quick-ACK mode
        delack_adaptive: true,                       // icsk_ack.ato: tcp_event_data_recv, tcp_send_delayed_ack, tcp_delack_timer_handler
        timer_wheel: true,                           // timer_list timers on the jiffy wheel (kernel/time/timer.c, 4.8)
        initial_rto: Duration::from_secs(1),         // TCP_TIMEOUT_INIT = 1 s since 3.1 (RFC 6298)
        syn_rto: None,                               // TCP_TIMEOUT_INIT as well
        min_rto: Duration::from_millis(200),         // TCP_RTO_MIN
        max_rto: Duration::from_secs(120),           // TCP_RTO_MAX
        clock_granularity: Duration::from_millis(1), // unused by the Linux estimator
        rto_tick: None,                              // high-resolution timers; RTT in us since 4.13
        recovery: Recovery::Prr,                     // PRR (tcp_cwnd_reduction), since 3.2
        dupack_threshold: 3,                         // tcp_reordering = 3
        limited_transmit: true,                      // RFC 3042: in-flight excludes dupacked segments
        rack: true,                                  // tcp_recovery = 1 (RACK; reordering timer 4.10, adaptive reo_wnd 4.18)
        tlp: true,                                   // tcp_early_retrans = 3 (TLP since 3.10)
        frto: true,                                  // tcp_frto = 2 (RFC 5682 SACK-enhanced, rewritten in 3.10)
        frto_nonsack_guard: true,                    // tcp_clean_rtx_queue, since 4.17 (no undo on a non-SACK ACK of a retransmission)
        dsack: true,                                 // tcp_dsack = 1
        undo: true,                                  // tcp_try_undo_* (no switch)
        eifel: true,                                 // tcp_packet_delayed (timestamps)
        ecn: EcnMode::Passive,                       // tcp_ecn = 2, since 2.6.31
        reno_sacks: RenoSacks::ResetOnAdvance,       // tcp_reset_reno_sack
        loss_exit_growth: LossExitGrowth::AllAcked,  // tcp_cong_avoid on the ACK ending Loss
        rto_ssthresh: RtoSsthresh::OncePerWindow,    // tcp_enter_loss
        partial_ack_rto: PartialAckRto::Every,       // tcp_rearm_rto on every ACK of new data
        rto_timer: RtoTimer::Linux,                  // tcp_rtt_estimator + tcp_set_rto
        cc: CcAlgorithm::Cubic,                          // tcp_congestion_control default since 2.6.19
        hz: 250,                                     // kernel/Kconfig.hz default HZ_250 (also this host's 6.x kernel)
        persist_min: Duration::from_millis(200),     // tcp_probe0_base >= TCP_RTO_MIN
        persist_max: Duration::from_secs(120),       // TCP_RTO_MAX
        shrink_policy: ShrinkPolicy::Linux,          // tcp_ack / tcp_ack_probe
        max_retries: 15,                             // tcp_retries2 = 15
        syn_retries: 6,                              // tcp_syn_retries = 6, since 3.7
        ts_granularity: Duration::from_millis(1),    // TCP_TS_HZ = 1000, since 4.13
        msl: Duration::from_secs(1),                 // simulator convention (TIME_WAIT 2 s), see TcpConfig::msl
        witcp: false,
        witcp_max_freeze: None,
        ehn: false,
        freeze: false,
    }
}

/// Ubuntu 16.04's kernel, 4.4: seed 000's era. The seed (ICDCN 2019, run on
/// Mininet-WiFi) names no kernel; Mininet-WiFi's install instructions of
/// 2017-2018 target Ubuntu 14.04/16.04 LTS, and 16.04's 4.4 is the kernel
/// whose 200 ms TCP_RTO_MIN the seed cites.
pub(super) fn linux_4_4() -> TcpConfig {
    TcpConfig {
        profile: "linux-4.4",
        tcp_rmem: TCP_RMEM_PRE_5_4,
        // 4.4's RACK (tcp_recovery.c, new in 4.4) marks losses only when an
        // ACK arrives, with no reordering timer (4.10) and a fixed window;
        // `rack` models the 4.18+ version, so it is off here (see gaps).
        rack: false,
        frto_nonsack_guard: false,                 // came in 4.17
        comp_sack_nr: 0,                           // SACK compression came in 4.18
        push_ack: PushAck::Short,                  // PSH on a full segment came in 6.6
        push_tso: false,                           // forced PSH on TSO skbs came in 4.11
        hz: 250,                                   // Ubuntu's generic kernels: CONFIG_HZ=250
        ts_granularity: Duration::from_millis(4),  // tcp_time_stamp = jiffies before 4.13 (HZ 250)
        ..linux()
    }
}

/// Linux 3.16 (Ubuntu 14.04's HWE kernel; seed 003's "Linux-Generic-3.16 on
/// Ubuntu 14.04").
pub(super) fn linux_3_16() -> TcpConfig {
    TcpConfig {
        profile: "linux-3.16",
        tcp_rmem: TCP_RMEM_PRE_5_4,
        rack: false,                               // RACK came in 4.4
        frto_nonsack_guard: false,                 // came in 4.17
        comp_sack_nr: 0,                           // SACK compression came in 4.18
        push_ack: PushAck::Short,                  // PSH on a full segment came in 6.6
        push_tso: false,                           // forced PSH on TSO skbs came in 4.11
        hz: 250,                                   // Ubuntu's generic kernels: CONFIG_HZ=250
        ts_granularity: Duration::from_millis(4),  // tcp_time_stamp = jiffies before 4.13 (HZ 250)
        ..linux()
    }
}

const LINUX_SOURCES: &[(&str, &str)] = &[
    ("initial_cwnd", "TCP_INIT_CWND = 10 (include/net/tcp.h), since 2.6.39"),
    ("rcv_buf_autotune, snd_buf_autotune", "tcp_moderate_rcvbuf = 1 (tcp_rcv_space_adjust), tcp_sndbuf_expand; locked by an explicit rcv_buf / snd_buf"),
    ("tcp_rmem", "ip-sysctl.rst: 4096 131072 6291456 since 5.4 (a337531b942b)"),
    ("tcp_wmem", "ip-sysctl.rst: 4096 16384 4194304"),
    ("delack_timeout", "TCP_DELACK_MIN = HZ/25 = 40 ms, the ATO floor bulk data settles at (tcp_event_data_recv)"),
    ("initial_quickacks", "TCP_MAX_QUICKACKS = 16 (tcp_incr_quickack on the first data segment)"),
    ("delack_adaptive", "icsk_ack.ato in jiffies: tcp_event_data_recv (m <= TCP_ATO_MIN/2: ato/2 + TCP_ATO_MIN/2; m < ato: ato/2 + m, at most the RTO), tcp_delack_timer_handler (a timer-sent ACK doubles it, at most the RTO), tcp_send_delayed_ack (above TCP_DELACK_MIN capped at HZ/2 and at usecs_to_jiffies(srtt))"),
    ("timer_wheel", "kernel/time/timer.c calc_wheel_index/calc_index (the non-cascading wheel of 4.8): a timer_list timer d jiffies ahead fires on its level's grid (1, 8, 64, ... jiffies from d = 63, 504, ...) strictly after its expiry; icsk_retransmit_timer (RTO, TLP, RACK reordering, zero-window probe) and icsk_delack_timer are timer_list timers, compressed_ack_timer and pacing_timer hrtimers"),
    ("idle_quickack", "tcp_event_data_recv: in-order data more than icsk_rto after the last calls tcp_incr_quickack(TCP_MAX_QUICKACKS): min(16, rcv_wnd / 2 rcv_mss) quick ACKs"),
    ("push_tso", "__tcp_transmit_skb: 'Force a PSH flag on all (GSO) packets to expedite GRO flush at receiver' when tcp_skb_pcount(skb) > 1 (4.11, 'tcp: force a PSH flag on TSO packets'); tcp_write_xmit cuts the writer's 64 KiB skbs (tcp_xmit_size_goal) into tcp_tso_autosize chunks (sk_pacing_rate >> sk_pacing_shift, plus gso_max_size >> (min_rtt_us >> tcp_tso_rtt_log), at least tcp_min_tso_segs = 2) and of at most half the window (tcp_cwnd_test: 'ensure we have at least 2 GSO packets in flight')"),
    ("push_segs", "tcp_sendmsg pushes (PSH on the last segment of) each skb it appends before waiting for send-buffer space; skbs of tcp_min_tso_segs = 2 segments at rates below ~23 Mb/s (tcp_tso_autosize, since 3.12)"),
    ("push_ack", "tcp_measure_rcv_mss marks the delayed ACK ICSK_ACK_PUSHED for a short segment (always) and for a full one with PSH (6.6, 'tcp: fix delayed ACKs for MSS boundary condition'); tcp_cleanup_rbuf sends it when a read empties the queue"),
    ("rtt_samples", "tcp_ack_update_rtt prefers the skb's send time (us) to TS-ECR and takes a sample from new SACKs (tcp_sacktag_one's first_sackt): 'tcp: prefer packet timing to TS-ECR for RTT' and 'tcp: measure RTT from new SACK', 3.12"),
    ("comp_sack_nr, comp_sack_delay, comp_sack_slack", "tcp_comp_sack_nr = 44, tcp_comp_sack_delay_ns = 1 ms (4.18, 'tcp: add SACK compression'), tcp_comp_sack_slack_ns = 100 us (5.10); __tcp_ack_snd_check sends the first TCP_FASTRETRANS_THRESH = 3 ACKs after each RCV.NXT advance at once ('tcp: defer SACK compression after DupThresh', 5.10)"),
    ("initial_rto", "TCP_TIMEOUT_INIT = 1 s since 3.1 (RFC 6298; 3 s before)"),
    ("min_rto, max_rto", "TCP_RTO_MIN = 200 ms, TCP_RTO_MAX = 120 s (include/net/tcp.h)"),
    ("rto_timer", "tcp_rtt_estimator + tcp_set_rto: RTO = SRTT + max(4·mdev per RTT, TCP_RTO_MIN)"),
    ("recovery", "PRR (tcp_cwnd_reduction, RFC 6937) since 3.2"),
    ("rack", "tcp_recovery = 1: RACK since 4.4, reordering timer 4.10, adaptive window 4.18"),
    ("tlp", "tcp_early_retrans = 3: tail loss probe since 3.10"),
    ("frto", "tcp_frto = 2 (SACK-enhanced F-RTO, RFC 5682), rewritten in 3.10"),
    ("frto_nonsack_guard", "tcp_clean_rtx_queue clears FLAG_ORIG_SACK_ACKED for a non-SACK ACK of retransmitted data: 4.17 ('tcp: prevent bogus FRTO undos with non-SACK flows'); absent in 3.16 and 4.4"),
    ("ecn", "tcp_ecn = 2 (accept, never request) since 2.6.31"),
    ("cc", "cubic, the default tcp_congestion_control since 2.6.19"),
    ("hz", "kernel/Kconfig.hz default HZ_250; this host's 6.x kernel and Ubuntu's generic kernels use 250"),
    ("ts_granularity", "TCP_TS_HZ = 1000 since 4.13; jiffies (4 ms at HZ 250) before"),
    ("syn_retries", "tcp_syn_retries = 6 since 3.7"),
    ("max_retries", "tcp_retries2 = 15"),
    ("persist_min, persist_max", "tcp_probe0_base (>= TCP_RTO_MIN), TCP_RTO_MAX"),
];

const LINUX_GAPS: &[&str] = &[
    "the delayed-ACK timeout adapts as in Linux (`delack_adaptive`) except in interactive (ping-pong) mode, where Linux lets it reach 200 ms (TCP_DELACK_MAX); the simulated applications never answer what they read",
    "quick-ACK mode is entered on the first data (16 segments, fewer when the window is small: rcv_wnd / 2·MSS) and on out-of-window data; here the first 16 segments, and after an idle longer than the RTO (`idle_quickack`)",
    "PSH placement: `push_tso` cuts what one transmission opportunity sends into tcp_tso_autosize chunks; Linux may defer a partial chunk (tcp_tso_should_defer) and retransmits whole skbs of up to a chunk, which here are one-segment retransmissions; the 3.16 and 4.4 profiles keep `push_segs` (PSH on each 2-segment skb the writer pushed)",
    "without SACK, the hold of Recovery and Loss while SND.UNA is exactly the recovery point (tcp_is_non_sack_preventing_reopen) and the rise of the reordering degree, hence of the duplicate-ACK threshold, on a partial undo and when Reno's duplicate count exceeds what is out (tcp_check_sack_reordering, tcp_check_reno_reordering) are not modelled: after a handoff a receiver in quick-ACK mode can draw chains of spurious, undone fast retransmits from a SACK-less sender here (docs/study-sdn-zwa.md)",
    "TSO/GSO, pacing by the fq qdisc, TCP small queues and the internal pacing of `tcp_pacing_ss_ratio` are not modelled",
];

pub(super) const LINUX: Profile = Profile {
    name: "linux",
    title: "Linux 6.x with its default sysctls (the default profile)",
    config: linux,
    sources: LINUX_SOURCES,
    gaps: LINUX_GAPS,
};

pub(super) const LINUX_4_4: Profile = Profile {
    name: "linux-4.4",
    title: "Linux 4.4 (Ubuntu 16.04): seed 000's era",
    config: linux_4_4,
    sources: &[
        ("tcp_rmem", "4096 87380 6291456 before 5.4"),
        ("push_ack", "short: only a segment shorter than rcv_mss marks the ACK pushed (PSH on a full segment came in 6.6)"),
        ("comp_sack_nr", "0: SACK compression came in 4.18"),
        ("rack", "4.4's first RACK marks losses on ACK arrival only (no reordering timer until 4.10, fixed window until 4.18); not modelled, so off"),
        ("hz", "Ubuntu 16.04 generic kernel: CONFIG_HZ=250"),
        ("ts_granularity", "tcp_time_stamp = jiffies before 4.13"),
        ("(choice)", "seed 000 names no kernel; Mininet-WiFi's 2017-2018 instructions target Ubuntu 14.04/16.04 LTS, and 16.04 ships 4.4"),
    ],
    gaps: &[
        "early retransmit (RFC 5827, tcp_early_retrans = 3 with TLP; removed in 4.13 for RACK) is not modelled",
        "4.4's RACK (see sources) is not modelled",
        "FACK (tcp_fack = 1, removed in 4.15) is not modelled: RFC 6675 IsLost stands in",
        "the delayed-ACK and quick-ACK gaps of `linux`",
    ],
};

pub(super) const LINUX_3_16: Profile = Profile {
    name: "linux-3.16",
    title: "Linux 3.16 (Ubuntu 14.04 HWE): seed 003's kernel",
    config: linux_3_16,
    sources: &[
        ("tcp_rmem", "4096 87380 6291456 before 5.4"),
        ("push_ack", "short: only a segment shorter than rcv_mss marks the ACK pushed (PSH on a full segment came in 6.6)"),
        ("comp_sack_nr", "0: SACK compression came in 4.18"),
        ("rack", "RACK came in 4.4"),
        ("hz", "Ubuntu 14.04 generic kernel: CONFIG_HZ=250"),
        ("ts_granularity", "tcp_time_stamp = jiffies before 4.13"),
        ("(choice)", "seed 003: \"Linux-Generic-3.16 on Ubuntu 14.04\""),
    ],
    gaps: &[
        "early retransmit (RFC 5827, on with TLP as tcp_early_retrans = 3 since 3.10) is not modelled",
        "FACK (tcp_fack = 1, loss marking by forward-most SACK, removed in 4.15) is not modelled: RFC 6675 IsLost stands in",
        "the delayed-ACK and quick-ACK gaps of `linux`",
    ],
};
