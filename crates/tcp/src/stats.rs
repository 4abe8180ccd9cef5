//! Counters kept by an endpoint, with the metric definitions of DESIGN.md.

/// Per-connection counters. All counts are of segments unless named bytes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TcpStats {
    /// Segments sent of every kind (data, pure ACKs, SYN, FIN, probes).
    pub segs_sent: u64,
    /// Segments sent that carried payload, retransmissions included.
    pub data_segs_sent: u64,
    /// Data segments sent with a sequence number below the highest already sent.
    pub retransmissions: u64,
    /// Retransmission-timer expiries (RTOs).
    pub timeouts: u64,
    /// Fast retransmits: recoveries entered on duplicate ACKs, SACK or RACK
    /// evidence (not RTOs).
    pub fast_retransmits: u64,
    /// Retransmissions found lost again by RACK (Linux TCPLostRetransmit).
    pub lost_retransmits: u64,
    /// Tail loss probes sent, new data or the last segment again (Linux
    /// `TCPLossProbes`).
    pub tlp_probes_sent: u64,
    /// Probes that repaired a loss: the ACK went beyond the probe without a
    /// D-SACK for it, so cwnd was reduced (Linux `TCPLossProbeRecovery`).
    pub tlp_recoveries: u64,
    /// RACK reordering-timer expiries that marked a segment lost (RFC 8985
    /// §6.3; Linux `tcp_rack_reo_timeout` has no counter of its own).
    pub rack_reo_timeouts: u64,
    /// ACKs showing a never-retransmitted hole filled below SACKed data
    /// (Linux `TCPSACKReorder`, `tp->reord_seen`).
    pub reordering_seen: u64,
    /// Bytes of application data acknowledged by the peer.
    pub bytes_acked: u64,
    /// Bytes of application data delivered in order to our application.
    pub bytes_delivered: u64,
    /// Segments received of every kind.
    pub segs_received: u64,
    /// Duplicate ACKs received: ACKs with no data, no window update, no new
    /// acknowledgement and no D-SACK (Linux `tcp_ack`'s `num_dupack`).
    pub dup_acks_received: u64,
    /// ACKs of out-of-order data held by SACK compression and merged into
    /// a later ACK (Linux `TCPAckCompressed`).
    pub acks_compressed: u64,
    /// Zero-window probes sent by the persist timer.
    pub window_probes: u64,
    /// RTT samples taken: ACKs that yielded one (by Karn's rule, by the
    /// timestamp echo, or with `rtt_samples = "linux"` by a new SACK).
    pub rtt_samples: u64,
    /// Sum of RTT samples in microseconds (mean = sum / samples).
    pub rtt_sum_us: u64,
    /// Smallest RTT sample in microseconds; 0 before the first sample.
    pub rtt_min_us: u64,
    /// RTOs that F-RTO found spurious (Linux `TCPSpuriousRTOs`).
    pub spurious_rtos_detected: u64,
    /// Loss (RTO) recoveries undone: by F-RTO, Eifel or D-SACK evidence
    /// while in Loss (Linux `TCPLossUndo`).
    pub loss_undos: u64,
    /// Fast recoveries undone at recovery exit or on a partial ACK (Linux
    /// `TCPFullUndo` + `TCPPartialUndo`).
    pub recovery_undos: u64,
    /// Reductions undone because D-SACKs covered every retransmission
    /// (Linux `TCPDSACKUndo`).
    pub dsack_undos: u64,
    /// ACKs carrying a D-SACK block that was accepted (Linux
    /// `TCPDSACKRecv` + `TCPDSACKOfoRecv`, dubious ones excluded).
    pub dsacks_received: u64,
    /// ACKs we sent carrying a D-SACK block (Linux `TCPDSACKOldSent` +
    /// `TCPDSACKOfoSent`).
    pub dsacks_sent: u64,
    /// Data segments received whose bytes were all or partly received
    /// before (counted whether or not D-SACK is on): what the peer
    /// retransmitted, or the network duplicated, needlessly.
    pub dup_data_segs_received: u64,
    /// Receiver: data segments that arrived CE-marked on an ECN connection
    /// (Linux counts none; `ss -i` shows the `ecnseen` flag only).
    pub ecn_ce_received: u64,
    /// Sender: ACKs carrying ECE on an ECN connection (the echo repeats
    /// until our CWR arrives, so this exceeds the marks).
    pub ecn_ece_received: u64,
    /// Sender: entries into CWR (`tcp_enter_cwr` from Open or Disorder),
    /// i.e. window reductions an ECE caused.
    pub cwr_reductions: u64,
    /// Sender: segments sent with CWR set.
    pub cwr_sent: u64,
    /// Largest window we advertised, in bytes (after scaling).
    pub rcv_wnd_max: u64,
    /// Times receive-buffer autotuning grew the buffer (`tcp_rcv_space_adjust`).
    pub rcvbuf_grows: u64,
    /// Largest autotuned receive buffer, in bytes of buffer memory (the
    /// window is half of it); 0 when it never grew.
    pub rcvbuf_max: u64,
    /// Largest send buffer `tcp_sndbuf_expand` set, in bytes; 0 for a fixed buffer.
    pub sndbuf_max: u64,
    /// Sub-MSS segments Nagle held back (each held tail counted once).
    pub nagle_deferrals: u64,
    /// Congestion-window restarts after idle (`tcp_cwnd_restart`).
    pub cwnd_restarts: u64,
    /// Wi-TCP: EHO-ACKs that froze the sender.
    pub witcp_freezes: u64,
    /// Wi-TCP: resumptions (EHC-ACK, or the `witcp_max_freeze` guard).
    pub witcp_resumes: u64,
    /// Wi-TCP: resumptions forced by `witcp_max_freeze`.
    pub witcp_forced_thaws: u64,
    /// Wi-TCP: signals ignored (beyond SND.MAX, EHO while frozen, EHC while not).
    pub witcp_ignored: u64,
    /// Wi-TCP: total time frozen, nanoseconds (T_IDEAL of seed 001 eq. 4, summed).
    pub witcp_frozen_ns: u64,
    /// Explicit handover notifications obeyed (`TcpConfig::ehn`).
    pub ehn_received: u64,
    /// Freeze-TCP (receiver): handoff warnings that started a zero window.
    pub freeze_zwas: u64,
    /// Freeze-TCP (receiver): TR-ACKs sent on reconnection.
    pub freeze_tr_acks: u64,
}
