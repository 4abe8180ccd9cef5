//! Counters kept by an endpoint, with the metric definitions of DESIGN.md.

/// Per-connection counters. All counts are of segments unless named bytes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TcpStats {
    pub segs_sent: u64,
    pub data_segs_sent: u64,
    /// Data segments sent with a sequence number below the highest already sent.
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Retransmissions found lost again by RACK (Linux TCPLostRetransmit).
    pub lost_retransmits: u64,
    /// Bytes of application data acknowledged by the peer.
    pub bytes_acked: u64,
    /// Bytes of application data delivered in order to our application.
    pub bytes_delivered: u64,
    pub segs_received: u64,
    pub dup_acks_received: u64,
    pub window_probes: u64,
    pub rtt_samples: u64,
    /// Sum of RTT samples in microseconds (mean = sum / samples).
    pub rtt_sum_us: u64,
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
}
