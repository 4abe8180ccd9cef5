//! What an M-TCP supervisor host knows of one connection to a mobile host,
//! and the ACK numbering it derives from it.

use airtcp_core::{SeqNum, Segment, TcpFlags};

pub(crate) fn after(a: SeqNum, b: SeqNum) -> bool {
    a.diff(b) > 0
}

/// One connection, keyed by the mobile → fixed host direction.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Conn {
    /// The mobile's next sequence number (what its ACKs carry).
    pub seq: SeqNum,
    /// The mobile's highest cumulative ACK, whose last byte is withheld.
    pub ack: SeqNum,
    /// The mobile's last advertised window (raw field).
    pub window: u16,
    /// The mobile's last `(TSval, TSecr)`.
    pub ts: Option<(u32, u32)>,
    /// The first data byte the agent saw going to the mobile (or, seen first
    /// from the mobile, its ACK number then): ACKs not beyond it acknowledge
    /// no data the agent forwarded (a handshake's) and pass unchanged.
    pub first_ack: SeqNum,
    /// The highest ACK number forwarded to the fixed host so far.
    pub fwd_ack: SeqNum,
    /// The fixed host sent its FIN: nothing is withheld from then on.
    pub fin_to_mobile: bool,
    /// The mobile sent its own data or a FIN: not a bulk receiver, left alone.
    pub mobile_sends: bool,
    /// The sender was frozen (a zero-window ACK sent) and not released yet.
    pub frozen: bool,
}

impl Conn {
    pub(crate) fn from_mobile(seg: &Segment) -> Conn {
        Conn {
            seq: seg.seq + seg.seq_len(),
            ack: seg.ack,
            window: seg.window,
            ts: seg.timestamps,
            first_ack: seg.ack,
            fwd_ack: seg.ack,
            fin_to_mobile: false,
            mobile_sends: false,
            frozen: false,
        }
    }

    /// First seen on the fixed host's data: nothing known of the mobile's
    /// side yet but its sequence number (the data's ACK number).
    pub(crate) fn from_first_data(seg: &Segment) -> Conn {
        Conn {
            seq: seg.ack,
            ack: seg.seq,
            window: 0,
            ts: None,
            first_ack: seg.seq,
            fwd_ack: seg.seq,
            fin_to_mobile: false,
            mobile_sends: false,
            frozen: false,
        }
    }

    /// Whether this ACK number loses its last byte on the way to the
    /// sender: once data was acknowledged, while the transfer is one way
    /// (fixed host to mobile) and until the fixed host's FIN (a withheld FIN
    /// would hold the close back).
    ///
    /// Liveness: the rewritten ACK must still acknowledge something new.
    /// Where withholding would leave the sender without progress (the
    /// mobile's ACK of a 1-byte retransmission of the withheld byte, which a
    /// new supervisor knows nothing about; a one-segment window whose only
    /// segment was ACKed a byte short), the ACK passes whole.
    pub(crate) fn may_withhold(&self, ack: SeqNum) -> bool {
        !self.fin_to_mobile && !self.mobile_sends && after(ack, self.first_ack) && after(ack - 1, self.fwd_ack)
    }

    /// The ACK the supervisor sends for the mobile: the full cumulative ACK
    /// it withheld a byte of, with window `window`.
    pub(crate) fn ack_segment(&self, src_port: u16, dst_port: u16, window: u16) -> Segment {
        Segment {
            src_port,
            dst_port,
            seq: self.seq,
            ack: self.ack,
            flags: TcpFlags::ACK,
            window,
            timestamps: self.ts,
            ..Default::default()
        }
    }
}
