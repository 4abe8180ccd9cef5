//! The simulator's view of a TCP/IPv4 packet: every header field that TCP
//! behaviour depends on, and the payload's length but not its bytes.
//! [`crate::packet::Packet`] carries it inside IPv4; [`crate::wire`] turns
//! one into real bytes for captures.

use crate::seq::SeqNum;

/// At most four SACK blocks fit in 40 option bytes; three when timestamps are on
/// (RFC 2018 §3).
pub const MAX_SACK_BLOCKS: usize = 4;
/// The TCP data offset field counts 32-bit words in 4 bits: at most 60 bytes
/// of header, 40 of options (RFC 9293 §3.1).
pub const MAX_TCP_OPTIONS_LEN: usize = 40;

/// Wi-TCP's handover signals (seed 001, Bonde, Jharia and Shrivastav), sent
/// by the agent serving a mobile host inside an otherwise ordinary ACK.
/// Discriminants are the option's data byte.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum WiTcp {
    /// Exclusive Handover ACK: the host is gone; freeze.
    Eho = 1,
    /// Exclusive Handover Completion ACK: the host is reachable again; resume.
    Ehc = 2,
    /// Explicit Handover Notification (the seed's \[8\], Izumikawa, Yamaguchi
    /// and Katto, WCNC 2004): sent by the mobile host itself once it hears
    /// a new agent; the sender resets its retransmission timer and sends
    /// again from the acknowledgement number. Carried by the same
    /// experimental option so one encoder and decoder serve both schemes.
    Ehn = 3,
}

impl WiTcp {
    /// The signal for the option's data byte; `None` for an unknown value,
    /// which the decoder then ignores as a stack ignores an unknown option.
    pub fn from_byte(b: u8) -> Option<WiTcp> {
        match b {
            1 => Some(WiTcp::Eho),
            2 => Some(WiTcp::Ehc),
            3 => Some(WiTcp::Ehn),
            _ => None,
        }
    }
}

/// The experiment identifier of the Wi-TCP option: TCP option kind 253
/// (RFC 4727 experimental), 16-bit ExID after the length (RFC 6994 §3).
/// 0x5754 is ASCII "WT"; it is *not* IANA-registered (RFC 6994 §5 asks
/// deployed experiments to register; this one lives in simulations and
/// captures only). The option is 5 bytes, kind 253, length 5, ExID, the
/// [`WiTcp`] byte, written after three NOPs so the options stay word-aligned.
pub const WITCP_EXID: u16 = 0x5754;

/// TCP header flags, bit positions as on the wire (RFC 9293 §3.1).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    /// No more data from the sender; occupies one sequence number.
    pub const FIN: TcpFlags = TcpFlags(0x01);
    /// Synchronise sequence numbers (connection open); occupies one sequence number.
    pub const SYN: TcpFlags = TcpFlags(0x02);
    /// Reset the connection.
    pub const RST: TcpFlags = TcpFlags(0x04);
    /// Push: deliver buffered data to the application.
    pub const PSH: TcpFlags = TcpFlags(0x08);
    /// The acknowledgement field is significant.
    pub const ACK: TcpFlags = TcpFlags(0x10);
    /// The urgent pointer is significant (never set by airtcp's endpoints).
    pub const URG: TcpFlags = TcpFlags(0x20);
    /// ECN-Echo: the receiver saw a CE mark (RFC 3168 §6.1); on a SYN, ECN requested.
    pub const ECE: TcpFlags = TcpFlags(0x40);
    /// Congestion Window Reduced: the sender reacted to ECE (RFC 3168 §6.1).
    pub const CWR: TcpFlags = TcpFlags(0x80);
    /// No flag set.
    pub const NONE: TcpFlags = TcpFlags(0);

    /// Whether every flag of `other` is set in `self`.
    pub fn contains(self, other: TcpFlags) -> bool {
        self.0 & other.0 == other.0
    }
    /// Whether FIN is set.
    pub fn fin(self) -> bool {
        self.contains(Self::FIN)
    }
    /// Whether SYN is set.
    pub fn syn(self) -> bool {
        self.contains(Self::SYN)
    }
    /// Whether RST is set.
    pub fn rst(self) -> bool {
        self.contains(Self::RST)
    }
    /// Whether ACK is set.
    pub fn ack(self) -> bool {
        self.contains(Self::ACK)
    }
}

impl std::ops::BitOr for TcpFlags {
    type Output = TcpFlags;
    fn bitor(self, o: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | o.0)
    }
}
impl std::ops::BitOrAssign for TcpFlags {
    fn bitor_assign(&mut self, o: TcpFlags) {
        self.0 |= o.0;
    }
}

impl std::fmt::Debug for TcpFlags {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const NAMES: [(TcpFlags, &str); 8] = [
            (TcpFlags::SYN, "S"),
            (TcpFlags::FIN, "F"),
            (TcpFlags::RST, "R"),
            (TcpFlags::PSH, "P"),
            (TcpFlags::ACK, "."),
            (TcpFlags::URG, "U"),
            (TcpFlags::ECE, "E"),
            (TcpFlags::CWR, "W"),
        ];
        for (flag, name) in NAMES {
            if self.contains(flag) {
                f.write_str(name)?;
            }
        }
        Ok(())
    }
}

/// A TCP segment. `window` is the raw 16-bit header field: scaling by the
/// negotiated shift is the endpoint's business, exactly as on the wire.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Segment {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Sequence number of the first byte (or of the SYN/FIN).
    pub seq: SeqNum,
    /// Acknowledgement number: next byte expected (valid with ACK set).
    pub ack: SeqNum,
    /// Header flags.
    pub flags: TcpFlags,
    /// Raw 16-bit window field, unscaled (see the type's docs).
    pub window: u16,
    /// MSS option (SYN only).
    pub mss: Option<u16>,
    /// Window-scale option shift (SYN only, RFC 7323 §2).
    pub wscale: Option<u8>,
    /// SACK-permitted option (SYN only).
    pub sack_permitted: bool,
    /// Timestamps option `(TSval, TSecr)` (RFC 7323 §3).
    pub timestamps: Option<(u32, u32)>,
    /// SACK blocks `[left, right)`; only the first `sack_len` are meaningful.
    pub sack_blocks: [(SeqNum, SeqNum); MAX_SACK_BLOCKS],
    /// How many entries of `sack_blocks` are in use.
    pub sack_len: u8,
    /// Payload length in bytes (the simulator carries no payload bytes).
    pub payload_len: u32,
    /// Wi-TCP signal option (kind 253, ExID [`WITCP_EXID`]).
    pub witcp: Option<WiTcp>,
}

impl Segment {
    /// Sequence space the segment occupies: payload plus one each for SYN and FIN.
    pub fn seq_len(&self) -> u32 {
        self.payload_len + self.flags.syn() as u32 + self.flags.fin() as u32
    }

    /// The SACK blocks in use, `[left, right)` each.
    pub fn sacks(&self) -> &[(SeqNum, SeqNum)] {
        &self.sack_blocks[..self.sack_len as usize]
    }

    /// Append a SACK block; false (and nothing added) when the options have no
    /// room left ([`Segment::max_sack_blocks`]).
    pub fn push_sack(&mut self, left: SeqNum, right: SeqNum) -> bool {
        if (self.sack_len as usize) < self.max_sack_blocks() {
            self.sack_blocks[self.sack_len as usize] = (left, right);
            self.sack_len += 1;
            true
        } else {
            false
        }
    }

    /// How many SACK blocks fit beside the other options (RFC 2018 §3).
    pub fn max_sack_blocks(&self) -> usize {
        if self.timestamps.is_some() {
            3
        } else {
            MAX_SACK_BLOCKS
        }
    }

    /// TCP option bytes including padding, laid out as Linux lays them out:
    /// MSS (4), NOP+NOP+TS (12) or SACK-permitted+TS packed into 12,
    /// NOP+NOP+SACK-permitted (4) without TS, NOP+WS (4), NOP+NOP+SACK (4 + 8n),
    /// then the Wi-TCP option as NOP×3 + 5 bytes (8), which Linux never sends.
    pub fn options_len(&self) -> u32 {
        let mut n = 0;
        if self.mss.is_some() {
            n += 4;
        }
        if self.timestamps.is_some() {
            n += 12;
        } else if self.sack_permitted {
            n += 4;
        }
        if self.wscale.is_some() {
            n += 4;
        }
        if self.sack_len > 0 {
            n += 4 + 8 * self.sack_len as u32;
        }
        if self.witcp.is_some() {
            n += 8;
        }
        n
    }

    /// TCP header length in bytes (20 + options).
    pub fn header_len(&self) -> u32 {
        20 + self.options_len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_blocks_limited_by_timestamps() {
        let mut seg = Segment { timestamps: Some((0, 0)), ..Default::default() };
        for i in 0..4 {
            let pushed = seg.push_sack(SeqNum(i * 10), SeqNum(i * 10 + 5));
            assert_eq!(pushed, i < 3);
        }
        assert_eq!(seg.sacks().len(), 3);
        assert_eq!(seg.header_len(), 20 + 12 + 4 + 24);
    }

    #[test]
    fn syn_and_fin_take_sequence_space() {
        let seg = Segment { flags: TcpFlags::SYN | TcpFlags::FIN, payload_len: 3, ..Default::default() };
        assert_eq!(seg.seq_len(), 5);
    }
}
