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
}
