//! One entry per transmitted segment, oldest first (Linux's retransmission
//! queue with its `TCP_SKB_CB(skb)->sacked` bits and `tx` rate snapshot).
//! Segments keep the boundaries of their first transmission, so a
//! retransmission resends exactly the same bytes.

use airtcp_core::Instant;

/// `TCPCB_SACKED_ACKED`: the receiver SACKed this segment (or, without SACK,
/// never set: dupacks are only counted in `TcpSock::sacked_out`).
pub const SACKED: u8 = 1;
/// `TCPCB_LOST`: deemed lost, waiting for (or after) retransmission.
pub const LOST: u8 = 2;
/// `TCPCB_SACKED_RETRANS`: a retransmission is in flight.
pub const RETRANS: u8 = 4;
/// `TCPCB_EVER_RETRANS`: retransmitted at least once (Karn).
pub const EVER_RETRANS: u8 = 8;

#[derive(Clone, Copy, Debug)]
pub struct TxSeg {
    /// Send-space offset of the first byte (0 = ISS, so data starts at 1).
    pub start: u64,
    pub len: u32,
    pub fin: bool,
    pub flags: u8,
    /// Time of the latest (re)transmission.
    pub tx_time: Instant,
    /// `tx.delivered`, `tx.delivered_mstamp`, `tx.first_tx_mstamp`,
    /// `tx.is_app_limited` of net/ipv4/tcp_rate.c, taken at the latest send.
    pub tx_delivered: u32,
    pub tx_delivered_mstamp: u64,
    pub tx_first_tx_mstamp: u64,
    pub tx_app_limited: bool,
}

impl TxSeg {
    /// One past the last sequence offset the segment occupies (FIN counts one).
    pub fn end(&self) -> u64 {
        self.start + self.len as u64 + self.fin as u64
    }
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}
