//! Direct tests of the SDN cores, smoltcp style: build the state machine,
//! feed it exact inputs, assert the exact outputs. No simulator.

mod datapath;
mod fabric;
mod controller;
mod table;
mod zwa;
mod e2e;

use airtcp_core::{Packet, Segment, SeqNum, TcpFlags};

pub const CN: [u8; 4] = [10, 0, 0, 1];
pub const MN: [u8; 4] = [10, 0, 9, 2];
pub const CN_PORT: u16 = 5001;
pub const MN_PORT: u16 = 40_000;

/// A CN -> MN data segment: `len` bytes at `seq`, ACKing the MN's `ack`,
/// timestamps `(tsval, tsecr)`.
pub fn data(seq: u32, len: u32, ack: u32, ts: Option<(u32, u32)>) -> Packet {
    let seg = Segment {
        src_port: CN_PORT,
        dst_port: MN_PORT,
        seq: SeqNum(seq),
        ack: SeqNum(ack),
        flags: TcpFlags::ACK,
        window: 1000,
        timestamps: ts,
        payload_len: len,
        ..Default::default()
    };
    Packet::tcp(CN, MN, 63, 0, seg)
}

/// An MN -> CN ACK.
pub fn mn_ack(ack: u32, window: u16) -> Packet {
    let seg = Segment { src_port: MN_PORT, dst_port: CN_PORT, seq: SeqNum(7), ack: SeqNum(ack), flags: TcpFlags::ACK, window, ..Default::default() };
    Packet::tcp(MN, CN, 64, 0, seg)
}
