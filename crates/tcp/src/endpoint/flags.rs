//! The vocabulary the steps of the ACK path share: the `FLAG_*` bits that
//! describe one ACK (set in `ack.rs`, read by recovery, undo, TLP and the RTO
//! re-arm) and the recovery flavour in force. Kept in a leaf of its own so
//! that those steps depend on it rather than on each other.

// `flag` bits handed to `cong_control`, values as in net/ipv4/tcp_input.c.
/// The ACK segment carried data (piggybacked ACK).
pub const FLAG_DATA: u32 = 0x01;
/// The ACK changed the peer's advertised window.
pub const FLAG_WIN_UPDATE: u32 = 0x02;
/// The ACK cumulatively acknowledged new data.
pub const FLAG_DATA_ACKED: u32 = 0x04;
/// Some of the newly acknowledged data had been retransmitted (Karn: no RTT sample).
pub const FLAG_RETRANS_DATA_ACKED: u32 = 0x08;
/// The ACK acknowledged our SYN.
pub const FLAG_SYN_ACKED: u32 = 0x10;
/// The ACK newly SACKed data (RFC 2018).
pub const FLAG_DATA_SACKED: u32 = 0x20;
/// The ACK echoed a CE mark (ECE on an ECN connection, RFC 3168 §6.1.2).
pub const FLAG_ECE: u32 = 0x40;
/// Never-retransmitted data at or below the recovery point was cumulatively
/// ACKed or newly SACKed (F-RTO's evidence of a spurious timeout).
pub const FLAG_ORIG_SACK_ACKED: u32 = 0x200;
/// SND.UNA moved forward on this ACK.
pub const FLAG_SND_UNA_ADVANCED: u32 = 0x400;
/// The ACK carried an accepted D-SACK block (RFC 2883).
pub const FLAG_DSACKING_ACK: u32 = 0x800;
/// The D-SACK covers exactly the tail loss probe's retransmission: the
/// original and the probe both arrived (`tcp_dsack_seen`).
pub(super) const FLAG_DSACK_TLP: u32 = 0x20000;
pub(super) const FLAG_ACKED: u32 = FLAG_DATA_ACKED | FLAG_SYN_ACKED;
pub(super) const FLAG_NOT_DUP: u32 = FLAG_DATA | FLAG_WIN_UPDATE | FLAG_ACKED;

/// The three recovery flavours the endpoint implements.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Mode {
    Prr,
    /// ns-3 3.44's PRR (see `ns3_prr.rs`).
    Ns3Prr,
    /// RFC 5681/6582 with window inflation (SACK off).
    Classic,
    /// RFC 6675 (SACK on, Reno/NewReno).
    Sack6675,
    Tahoe,
}

