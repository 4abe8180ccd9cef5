//! Network-coded packets (IP protocol 253, see [`crate::packet::proto::CODED`]).
//!
//! Layout (ours; MORE's header carries the same fields, Chachulski et al.
//! SIGCOMM 2007 §5.1, without a published byte layout):
//!
//! ```text
//! 0        kind (1 data, 2 batch ACK, 3 TCPFender ACK)
//! 1        L, the code vector length (0..=52, MAX_BATCH; 0 for ACKs)
//! 2..4     flow id, big-endian
//! 4..8     batch index (TCPFender ACK: ACK number in packets), big-endian
//! 8..12    tag (TCPFender: TCP sequence number of the releasing segment)
//! 12..12+L code vector, one GF(2^8) coefficient per native packet
//! 12+L..   coded payload, to the end of the datagram (none for ACKs)
//! ```
//!
//! The IPv4 header checksum does not cover the payload and this header has
//! none of its own: MORE relies on the 802.11 FCS, as we do.

use super::{be16, be32, need, WireError};
use crate::coded::{CodeVector, Coded, CodedKind, CODED_HEADER_LEN, MAX_BATCH};

const HEADER_LEN: usize = CODED_HEADER_LEN as usize;

pub(super) fn wire_len(c: &Coded) -> u64 {
    c.len() as u64
}

/// Append header and code vector, then `payload` or, without one, zeros of
/// `c.payload_len` bytes (the simulator carries lengths, not bytes).
pub(super) fn write(c: &Coded, payload: Option<&[u8]>, buf: &mut Vec<u8>) {
    buf.push(c.kind as u8);
    buf.push(c.code.len() as u8);
    buf.extend_from_slice(&c.flow.to_be_bytes());
    buf.extend_from_slice(&c.batch.to_be_bytes());
    buf.extend_from_slice(&c.tag.to_be_bytes());
    buf.extend_from_slice(c.code.as_slice());
    match payload {
        Some(p) => buf.extend_from_slice(p),
        None => buf.resize(buf.len() + c.payload_len as usize, 0),
    }
}

/// Parse the coded packet from `bytes[at]` to the end of `bytes`. Returns
/// the header and where the payload starts.
pub(super) fn parse(bytes: &[u8], at: usize) -> Result<(Coded, usize), WireError> {
    need(bytes, at, HEADER_LEN)?;
    let kind = CodedKind::from_byte(bytes[at]).ok_or(WireError::Malformed { offset: at, what: "coded packet kind (1 data, 2 batch ACK, 3 TCPFender ACK)" })?;
    let len = bytes[at + 1] as usize;
    if len > MAX_BATCH {
        return Err(WireError::Malformed { offset: at + 1, what: "code vector length (at most 52)" });
    }
    let is_ack = kind != CodedKind::Data;
    if is_ack && len != 0 {
        return Err(WireError::Malformed { offset: at + 1, what: "ACK with a code vector" });
    }
    need(bytes, at + HEADER_LEN, len)?;
    let payload_at = at + HEADER_LEN + len;
    let payload_len = bytes.len() - payload_at;
    if is_ack && payload_len != 0 {
        return Err(WireError::Malformed { offset: payload_at, what: "ACK with a payload" });
    }
    let code = CodeVector::from_slice(&bytes[at + HEADER_LEN..payload_at]).expect("length checked above");
    let c = Coded {
        kind,
        flow: be16(bytes, at + 2),
        batch: be32(bytes, at + 4),
        tag: be32(bytes, at + 8),
        code,
        payload_len: payload_len as u16,
    };
    Ok((c, payload_at))
}

#[cfg(test)]
mod tests {
    use super::super::{decode, encode, encode_coded, parse_coded};
    use super::*;
    use crate::packet::{IpPayload, Packet};

    fn data(len: usize, payload_len: u16) -> Coded {
        let mut code = CodeVector::zero(len).unwrap();
        for (i, c) in code.as_mut_slice().iter_mut().enumerate() {
            *c = i as u8 + 1;
        }
        Coded { kind: CodedKind::Data, flow: 7, batch: 0x0102_0304, tag: 0x0a0b_0c0d, code, payload_len }
    }

    fn packet(c: Coded) -> Packet {
        let mut p = Packet::default();
        p.ip.src = [10, 0, 0, 1];
        p.ip.dst = [10, 0, 0, 9];
        p.ip.ttl = 64;
        p.payload = IpPayload::Coded(c);
        p
    }

    #[test]
    fn coded_packet_round_trips_through_ipv4() {
        let p = packet(data(50, 1500));
        let mut buf = Vec::new();
        encode(&p, &mut buf).unwrap();
        assert_eq!(buf.len(), 20 + 12 + 50 + 1500);
        assert_eq!(buf[9], 253);
        assert_eq!(&buf[20..32], &[1, 50, 0, 7, 1, 2, 3, 4, 10, 11, 12, 13]);
        assert_eq!(decode(&buf).unwrap(), p);
    }

    #[test]
    fn real_payload_bytes_are_written_and_returned() {
        let c = data(4, 3);
        let mut buf = Vec::new();
        encode_coded(&c, Some(&[9, 8, 7]), &mut buf);
        let (back, payload) = parse_coded(&buf).unwrap();
        assert_eq!((back, payload), (c, &[9u8, 8, 7][..]));
    }

    #[test]
    fn malformed_coded_headers_name_the_byte() {
        let mut buf = Vec::new();
        encode_coded(&data(4, 0), None, &mut buf);
        let mut bad = buf.clone();
        bad[0] = 9;
        assert_eq!(parse_coded(&bad).unwrap_err().to_string(), "byte 0: malformed coded packet kind (1 data, 2 batch ACK, 3 TCPFender ACK)");
        let mut bad = buf.clone();
        bad[1] = 53;
        assert_eq!(parse_coded(&bad).unwrap_err().to_string(), "byte 1: malformed code vector length (at most 52)");
        let mut bad = buf.clone();
        bad[1] = 10; // vector runs past the end
        assert_eq!(parse_coded(&bad).unwrap_err(), WireError::Truncated { offset: 12, needed: 22, have: 16 });
        assert!(matches!(parse_coded(&buf[..5]), Err(WireError::Truncated { .. })));
        let mut ack = buf.clone();
        ack[0] = 2;
        assert_eq!(parse_coded(&ack).unwrap_err().to_string(), "byte 1: malformed ACK with a code vector");
    }

    use proptest::prelude::*;

    proptest! {
        /// Whatever the bytes, parsing never panics; what parses re-encodes
        /// to the same bytes.
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..120)) {
            if let Ok((c, payload)) = parse_coded(&bytes) {
                let mut again = Vec::new();
                encode_coded(&c, Some(payload), &mut again);
                prop_assert_eq!(again, bytes);
            }
        }

        /// Any header survives the trip through an IPv4 datagram.
        #[test]
        fn any_coded_header_round_trips(kind in 1u8..4, flow in any::<u16>(), batch in any::<u32>(), tag in any::<u32>(),
                                        code in proptest::collection::vec(any::<u8>(), 0..=MAX_BATCH), payload_len in 0u16..1600) {
            let kind = CodedKind::from_byte(kind).unwrap();
            let data = kind == CodedKind::Data;
            let code = CodeVector::from_slice(if data { &code } else { &[] }).unwrap();
            let c = Coded { kind, flow, batch, tag, code, payload_len: if data { payload_len } else { 0 } };
            let p = packet(c);
            let mut buf = Vec::new();
            encode(&p, &mut buf).unwrap();
            prop_assert_eq!(decode(&buf).unwrap(), p);
        }
    }
}
