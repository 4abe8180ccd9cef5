//! Mobile IP messages on UDP port 434: Registration Request and Reply
//! (RFC 5944 §3.3, §3.4) and the route-optimisation messages of
//! draft-ietf-mobileip-optim-11 (Binding Warning 16, Request 17, Update 18,
//! Acknowledge 19). Fixed parts only: extensions are neither written nor
//! accepted (see [`crate::mobileip`]).
//!
//! Layouts (bytes from the start of the UDP payload):
//!
//! ```text
//! Request (1):  0 type | 1 flags S B D M G r T x | 2 lifetime | 4 home address
//!               8 home agent | 12 care-of address | 16 Identification (8)
//! Reply (3):    0 type | 1 code | 2 lifetime | 4 home address | 8 home agent
//!               12 Identification (8)
//! Warning (16): 0 type | 1 reserved (3) | 4 home address | 8 target node
//! Request (17): 0 type | 1 reserved (3) | 4 home address | 8 Identification
//! Update (18):  0 type | 1 flags A I M G + reserved | 2 lifetime
//!               4 home address | 8 care-of address | 12 Identification
//! Ack (19):     0 type | 1 N + reserved | 2 reserved (2) | 4 home address
//!               8 care-of address | 12 Identification
//! ```

use super::{be16, be32, WireError};
use crate::mobileip::{
    mip_type, BindingAck, BindingRequest, BindingUpdate, BindingWarning, Ident, MipMsg, RegReply, RegRequest, ReplyCode,
    MIP_PORT,
};

/// The N (negative acknowledgement) bit of a Binding Acknowledge.
const BACK_N: u8 = 0x80;

fn put_ident(buf: &mut Vec<u8>, id: Ident) {
    buf.extend_from_slice(&id.hi.to_be_bytes());
    buf.extend_from_slice(&id.lo.to_be_bytes());
}

/// Append the message; exactly `m.len()` bytes.
pub(super) fn write(m: &MipMsg, buf: &mut Vec<u8>) {
    let t = m.msg_type();
    match *m {
        MipMsg::RegRequest(r) => {
            buf.push(t);
            buf.push(r.flags);
            buf.extend_from_slice(&r.lifetime.to_be_bytes());
            buf.extend_from_slice(&r.home_addr);
            buf.extend_from_slice(&r.home_agent);
            buf.extend_from_slice(&r.coa);
            put_ident(buf, r.id);
        }
        MipMsg::RegReply(r) => {
            buf.extend_from_slice(&[t, r.code.0]);
            buf.extend_from_slice(&r.lifetime.to_be_bytes());
            buf.extend_from_slice(&r.home_addr);
            buf.extend_from_slice(&r.home_agent);
            put_ident(buf, r.id);
        }
        MipMsg::BindingWarning(w) => {
            buf.extend_from_slice(&[t, 0, 0, 0]);
            buf.extend_from_slice(&w.home_addr);
            buf.extend_from_slice(&w.correspondent);
        }
        MipMsg::BindingRequest(r) => {
            buf.extend_from_slice(&[t, 0, 0, 0]);
            buf.extend_from_slice(&r.home_addr);
            put_ident(buf, r.id);
        }
        MipMsg::BindingUpdate(u) => {
            buf.extend_from_slice(&[t, u.flags]);
            buf.extend_from_slice(&u.lifetime.to_be_bytes());
            buf.extend_from_slice(&u.home_addr);
            buf.extend_from_slice(&u.coa);
            put_ident(buf, u.id);
        }
        MipMsg::BindingAck(a) => {
            buf.extend_from_slice(&[t, if a.nack { BACK_N } else { 0 }, 0, 0]);
            buf.extend_from_slice(&a.home_addr);
            buf.extend_from_slice(&a.coa);
            put_ident(buf, a.id);
        }
    }
}

/// Whether a datagram between these ports may carry a Mobile IP message:
/// requests go to 434, replies come from it (RFC 5944 §3.3, §3.4).
pub(super) fn on_mip_port(src_port: u16, dst_port: u16) -> bool {
    src_port == MIP_PORT || dst_port == MIP_PORT
}

/// Parse the UDP payload at `bytes[at..]` (to the end of `bytes`) as a Mobile
/// IP message. `Ok(None)`: the type byte is not one we model (or the payload
/// is empty), so the datagram stays opaque. A known type must be exactly its
/// fixed length, with reserved bits zero where the formats say so.
pub(super) fn parse(bytes: &[u8], at: usize) -> Result<Option<MipMsg>, WireError> {
    let b = &bytes[at..];
    let Some(&t) = b.first() else { return Ok(None) };
    let Some(want) = MipMsg::len_for_type(t) else { return Ok(None) };
    let want = want as usize;
    if b.len() < want {
        return Err(WireError::Truncated { offset: at, needed: at + want, have: bytes.len() });
    }
    if b.len() > want {
        return Err(WireError::Malformed {
            offset: at + want,
            what: "Mobile IP message: extensions after the fixed part are not supported",
        });
    }
    let addr = |o: usize| [b[o], b[o + 1], b[o + 2], b[o + 3]];
    let ident = |o: usize| Ident { hi: be32(b, o), lo: be32(b, o + 4) };
    let reserved_zero = |range: std::ops::Range<usize>, what| match range.clone().find(|&i| b[i] != 0) {
        Some(i) => Err(WireError::Malformed { offset: at + i, what }),
        None => Ok(()),
    };
    let msg = match t {
        mip_type::REG_REQUEST => MipMsg::RegRequest(RegRequest {
            flags: b[1],
            lifetime: be16(b, 2),
            home_addr: addr(4),
            home_agent: addr(8),
            coa: addr(12),
            id: ident(16),
        }),
        mip_type::REG_REPLY => MipMsg::RegReply(RegReply {
            code: ReplyCode(b[1]),
            lifetime: be16(b, 2),
            home_addr: addr(4),
            home_agent: addr(8),
            id: ident(12),
        }),
        mip_type::BINDING_WARNING => {
            reserved_zero(1..4, "Binding Warning: reserved bytes not zero")?;
            MipMsg::BindingWarning(BindingWarning { home_addr: addr(4), correspondent: addr(8) })
        }
        mip_type::BINDING_REQUEST => {
            reserved_zero(1..4, "Binding Request: reserved bytes not zero")?;
            MipMsg::BindingRequest(BindingRequest { home_addr: addr(4), id: ident(8) })
        }
        mip_type::BINDING_UPDATE => MipMsg::BindingUpdate(BindingUpdate {
            flags: b[1],
            lifetime: be16(b, 2),
            home_addr: addr(4),
            coa: addr(8),
            id: ident(12),
        }),
        _ => {
            if b[1] & !BACK_N != 0 {
                return Err(WireError::Malformed { offset: at + 1, what: "Binding Acknowledge: reserved bits not zero" });
            }
            reserved_zero(2..4, "Binding Acknowledge: reserved bytes not zero")?;
            MipMsg::BindingAck(BindingAck { nack: b[1] & BACK_N != 0, home_addr: addr(4), coa: addr(8), id: ident(12) })
        }
    };
    Ok(Some(msg))
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{encoded, fix_checksums, mip_packet};
    use super::super::{decode, WireError};
    use super::*;
    use crate::mobileip::{bu_flags, reg_flags};

    fn request() -> MipMsg {
        MipMsg::RegRequest(RegRequest {
            flags: reg_flags::T,
            lifetime: 1800,
            home_addr: [10, 0, 1, 2],
            home_agent: [10, 0, 1, 1],
            coa: [10, 0, 2, 1],
            id: Ident { hi: 0xaabbccdd, lo: 7 },
        })
    }

    #[test]
    fn registration_request_bytes() {
        let pkt = mip_packet(request());
        let b = encoded(&pkt);
        assert_eq!(b.len(), 20 + 8 + 24);
        assert_eq!(&b[28..32], &[1, 0x02, 0x07, 0x08], "type 1, T flag, lifetime 1800");
        assert_eq!(&b[32..44], &[10, 0, 1, 2, 10, 0, 1, 1, 10, 0, 2, 1]);
        assert_eq!(&b[44..52], &[0xaa, 0xbb, 0xcc, 0xdd, 0, 0, 0, 7]);
        let (ip, rest) = etherparse::Ipv4Header::from_slice(&b).unwrap();
        let (udp, payload) = etherparse::UdpHeader::from_slice(rest).unwrap();
        assert_eq!(udp.checksum, udp.calc_checksum_ipv4(&ip, payload).unwrap());
        assert_eq!(decode(&b).unwrap(), pkt);
    }

    #[test]
    fn every_message_round_trips_at_its_length() {
        let id = Ident { hi: 1, lo: 2 };
        let (h, c) = ([10, 0, 1, 2], [10, 0, 3, 1]);
        let msgs = [
            request(),
            MipMsg::RegReply(RegReply {
                code: ReplyCode::HA_ID_MISMATCH,
                lifetime: 0,
                home_addr: h,
                home_agent: [10, 0, 1, 1],
                id,
            }),
            MipMsg::BindingWarning(BindingWarning { home_addr: h, correspondent: [10, 9, 9, 9] }),
            MipMsg::BindingRequest(BindingRequest { home_addr: h, id }),
            MipMsg::BindingUpdate(BindingUpdate { flags: bu_flags::A | bu_flags::I, lifetime: 60, home_addr: h, coa: c, id }),
            MipMsg::BindingAck(BindingAck { nack: true, home_addr: h, coa: c, id }),
        ];
        let lens = [24, 20, 12, 16, 20, 20];
        for (m, len) in msgs.into_iter().zip(lens) {
            assert_eq!(m.len(), len);
            let pkt = mip_packet(m);
            let b = encoded(&pkt);
            assert_eq!(b.len() as u32, 28 + len);
            assert_eq!(b[28], m.msg_type());
            assert_eq!(decode(&b).unwrap(), pkt, "{m:?}");
        }
    }

    #[test]
    fn unknown_type_on_port_434_stays_opaque() {
        use crate::packet::{IpPayload, UdpMsg};
        let mut pkt = mip_packet(request());
        let mut b = encoded(&pkt);
        b[28] = 2; // no type 2 in RFC 5944
        fix_checksums(&mut b, 0);
        if let IpPayload::Udp(u) = &mut pkt.payload {
            u.msg = UdpMsg::Opaque { len: 24 };
        }
        let got = decode(&b).unwrap();
        assert_eq!(got.payload, pkt.payload);
    }

    #[test]
    fn malformed_messages_name_the_offset() {
        // A request cut short: the UDP and IP lengths say 20 payload bytes.
        let b = encoded(&mip_packet(request()));
        let mut v = b[..48].to_vec();
        v[3] = 48;
        v[24..26].copy_from_slice(&28u16.to_be_bytes());
        fix_checksums(&mut v, 0);
        assert_eq!(decode(&v), Err(WireError::Truncated { offset: 28, needed: 52, have: 48 }));

        // An extension after the fixed part.
        let mut v = b.clone();
        v.extend_from_slice(&[32, 2, 0, 0]);
        v[3] = 56;
        v[24..26].copy_from_slice(&36u16.to_be_bytes());
        fix_checksums(&mut v, 0);
        let e = decode(&v).unwrap_err();
        assert!(matches!(e, WireError::Malformed { offset: 52, .. }), "{e}");
        assert!(e.to_string().starts_with("byte 52: malformed Mobile IP message"), "{e}");

        // Reserved bits of a Binding Acknowledge.
        let ack = MipMsg::BindingAck(BindingAck::default());
        let mut v = encoded(&mip_packet(ack));
        v[29] = 0x01;
        fix_checksums(&mut v, 0);
        assert!(matches!(decode(&v), Err(WireError::Malformed { offset: 29, .. })));
        let warn = MipMsg::BindingWarning(BindingWarning::default());
        let mut v = encoded(&mip_packet(warn));
        v[31] = 9;
        fix_checksums(&mut v, 0);
        assert!(matches!(decode(&v), Err(WireError::Malformed { offset: 31, .. })));
    }
}
