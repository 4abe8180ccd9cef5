//! The agent advertisement (RFC 5944 §2.1): an ICMP Router Advertisement
//! (RFC 1256 §3, type 9) followed by the Mobility Agent Advertisement
//! extension (RFC 5944 §2.1.1, type 16).
//!
//! ```text
//! 0 type 9 | 1 code 0/16 | 2 checksum | 4 Num Addrs | 5 Addr Entry Size (2)
//! 6 lifetime | 8 (router address, preference level) x Num Addrs
//! then: 0 ext type 16 | 1 length 6 + 4N | 2 sequence | 4 registration lifetime
//!       6 flags R B H F M G r T | 7 reserved | 8 care-of addresses x N
//! ```
//!
//! The model holds at most one router address and
//! [`crate::mobileip::MAX_ADV_COAS`] care-of addresses, and no other
//! extension (prefix lengths, padding); the decoder refuses what it cannot
//! hold rather than dropping it.

use super::{be16, be32, WireError};
use crate::mobileip::{AgentAdvert, MAX_ADV_COAS};

pub(super) const ROUTER_ADVERT: u8 = 9;
/// RFC 5944 §2.1: code 16, "does not route common traffic".
const CODE_MOBILITY_ONLY: u8 = 16;
/// RFC 5944 §2.1.1.
const EXT_MOBILITY_AGENT: u8 = 16;
/// RFC 1256 §3: two 32-bit words per router entry.
const ADDR_ENTRY_WORDS: u8 = 2;

/// Append the message from the type byte on, checksum left zero for the caller.
pub(super) fn write(a: &AgentAdvert, buf: &mut Vec<u8>) {
    let code = if a.mobility_only { CODE_MOBILITY_ONLY } else { 0 };
    buf.extend_from_slice(&[ROUTER_ADVERT, code, 0, 0, a.router.is_some() as u8, ADDR_ENTRY_WORDS]);
    buf.extend_from_slice(&a.ra_lifetime.to_be_bytes());
    if let Some((addr, pref)) = a.router {
        buf.extend_from_slice(&addr);
        buf.extend_from_slice(&pref.to_be_bytes());
    }
    let coas = a.coas();
    buf.extend_from_slice(&[EXT_MOBILITY_AGENT, 6 + 4 * coas.len() as u8]);
    buf.extend_from_slice(&a.seq.to_be_bytes());
    buf.extend_from_slice(&a.reg_lifetime.to_be_bytes());
    buf.extend_from_slice(&[a.flags, 0]);
    for c in coas {
        buf.extend_from_slice(c);
    }
}

/// Parse the advertisement occupying all of `m` (the ICMP message, checksum
/// verified), which starts at offset `at` of the input.
pub(super) fn parse(m: &[u8], at: usize) -> Result<AgentAdvert, WireError> {
    let bad = |o: usize, what| Err(WireError::Malformed { offset: at + o, what });
    let mobility_only = match m[1] {
        0 => false,
        CODE_MOBILITY_ONLY => true,
        code => return Err(WireError::UnsupportedIcmp { offset: at, icmp_type: ROUTER_ADVERT, code }),
    };
    let n_addrs = m[4] as usize;
    if n_addrs > 1 {
        return bad(4, "router advertisement: more than one router address is not modelled");
    }
    if m[5] != ADDR_ENTRY_WORDS {
        return bad(5, "router advertisement: address entry size must be 2 words (RFC 1256)");
    }
    let ext = 8 + 8 * n_addrs;
    let need = |len: usize| {
        if m.len() < len {
            Err(WireError::Truncated { offset: at + m.len().min(ext), needed: at + len, have: at + m.len() })
        } else {
            Ok(())
        }
    };
    need(ext + 8)?;
    let router = (n_addrs == 1).then(|| ([m[8], m[9], m[10], m[11]], be32(m, 12) as i32));
    if m[ext] != EXT_MOBILITY_AGENT {
        return bad(ext, "agent advertisement: expected the mobility agent extension (type 16)");
    }
    let len = m[ext + 1] as usize;
    if len < 6 || (len - 6) % 4 != 0 {
        return bad(ext + 1, "mobility agent extension: length must be 6 + 4 per care-of address");
    }
    if (len - 6) / 4 > MAX_ADV_COAS {
        return bad(ext + 1, "mobility agent extension: more care-of addresses than modelled");
    }
    need(ext + 2 + len)?;
    if m.len() > ext + 2 + len {
        return bad(ext + 2 + len, "agent advertisement: bytes after the mobility agent extension");
    }
    if m[ext + 7] != 0 {
        return bad(ext + 7, "mobility agent extension: reserved byte not zero");
    }
    let mut a = AgentAdvert {
        mobility_only,
        ra_lifetime: be16(m, 6),
        router,
        seq: be16(m, ext + 2),
        reg_lifetime: be16(m, ext + 4),
        flags: m[ext + 6],
        ..Default::default()
    };
    for c in m[ext + 8..ext + 2 + len].chunks_exact(4) {
        a.push_coa([c[0], c[1], c[2], c[3]]);
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{encoded, fix_checksums, icmp_packet};
    use super::super::{decode, WireError};
    use crate::mobileip::{adv_flags, AgentAdvert};
    use crate::packet::Icmp;

    fn fa_advert() -> AgentAdvert {
        let mut a = AgentAdvert {
            mobility_only: true,
            ra_lifetime: 9000,
            router: Some(([10, 0, 2, 1], 0)),
            seq: 257,
            reg_lifetime: 1800,
            flags: adv_flags::R | adv_flags::F,
            ..Default::default()
        };
        a.push_coa([10, 0, 2, 1]);
        a
    }

    #[test]
    fn foreign_agent_advertisement_bytes() {
        let pkt = icmp_packet(Icmp::AgentAdvert(fa_advert()));
        let b = encoded(&pkt);
        assert_eq!(b.len(), 20 + 8 + 8 + 12);
        assert_eq!(&b[20..22], &[9, 16]);
        assert_eq!(&b[24..28], &[1, 2, 0x23, 0x28], "one address, entry size 2, lifetime 9000");
        assert_eq!(&b[28..36], &[10, 0, 2, 1, 0, 0, 0, 0]);
        assert_eq!(&b[36..48], &[16, 10, 1, 1, 0x07, 0x08, 0x90, 0, 10, 0, 2, 1]);
        let (_, rest) = etherparse::Ipv4Header::from_slice(&b).unwrap();
        let (h, data) = etherparse::Icmpv4Header::from_slice(rest).unwrap();
        assert_eq!(h.checksum, h.icmp_type.calc_checksum(data));
        assert_eq!(decode(&b).unwrap(), pkt);
    }

    #[test]
    fn home_agent_advertisement_without_router_or_coa_round_trips() {
        let a = AgentAdvert { ra_lifetime: 3, flags: adv_flags::H, seq: 0, ..Default::default() };
        let pkt = icmp_packet(Icmp::AgentAdvert(a));
        let b = encoded(&pkt);
        assert_eq!(b.len(), 20 + 16);
        assert_eq!(decode(&b).unwrap(), pkt);
    }

    #[test]
    fn malformed_advertisements_name_the_offset() {
        let b = encoded(&icmp_packet(Icmp::AgentAdvert(fa_advert())));
        let damage = |i: usize, v: u8| {
            let mut x = b.clone();
            x[i] = v;
            fix_checksums(&mut x, 0);
            decode(&x).unwrap_err()
        };
        assert!(matches!(damage(24, 2), WireError::Malformed { offset: 24, .. }));
        assert!(matches!(damage(25, 3), WireError::Malformed { offset: 25, .. }));
        assert!(matches!(damage(36, 19), WireError::Malformed { offset: 36, .. }));
        assert!(matches!(damage(37, 7), WireError::Malformed { offset: 37, .. }));
        assert!(matches!(damage(37, 6), WireError::Malformed { offset: 44, .. }));
        assert!(matches!(damage(37, 14), WireError::Truncated { .. }));
        assert!(matches!(damage(43, 1), WireError::Malformed { offset: 43, .. }));
        assert_eq!(damage(21, 5), WireError::UnsupportedIcmp { offset: 20, icmp_type: 9, code: 5 });
        let e = damage(36, 19);
        assert_eq!(
            e.to_string(),
            "byte 36: malformed agent advertisement: expected the mobility agent extension (type 16)"
        );
    }
}
