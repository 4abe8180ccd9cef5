//! IPv4 prefixes and the automatic address plan.
//!
//! Every point-to-point link is a subnet. A scenario may declare it
//! (`subnet`, `addr_a`, `addr_b`); otherwise link `i` gets the /30 at
//! 10.0.0.0 + 4·i with `a` = .1 and `b` = .2, the numbering a router
//! configuration would use for a serial link (RFC 3021 allows /31; /30 keeps
//! network and broadcast addresses as most stacks expect). A node's primary
//! address, the one its flows use, is the address of its first interface.

use std::fmt;

/// An IPv4 prefix `addr/len` with the host bits cleared.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Prefix {
    pub addr: u32,
    pub len: u8,
}

impl Prefix {
    /// `addr` with the bits beyond `len` cleared (`len` is clamped to 32).
    pub fn new(addr: u32, len: u8) -> Prefix {
        let len = len.min(32);
        Prefix { addr: addr & mask(len), len }
    }

    #[inline]
    pub fn contains(&self, a: u32) -> bool {
        a & mask(self.len) == self.addr
    }

    /// The default route.
    pub const ANY: Prefix = Prefix { addr: 0, len: 0 };

    /// Parse "a.b.c.d/len"; host bits must be zero so a typo is not silently
    /// widened into another subnet.
    pub fn parse(s: &str) -> Result<Prefix, String> {
        let (a, l) = s.split_once('/').ok_or_else(|| format!("\"{s}\" is not a prefix a.b.c.d/len"))?;
        let addr = parse_addr(a)?;
        let len: u8 = l.parse().map_err(|_| format!("\"{s}\": prefix length \"{l}\" is not a number 0..32"))?;
        if len > 32 {
            return Err(format!("\"{s}\": prefix length {len} is above 32"));
        }
        let p = Prefix::new(addr, len);
        if p.addr != addr {
            return Err(format!("\"{s}\" has host bits set (the subnet is {p})"));
        }
        Ok(p)
    }
}

impl fmt::Display for Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", fmt_addr(self.addr), self.len)
    }
}

#[inline]
pub fn mask(len: u8) -> u32 {
    if len == 0 {
        0
    } else {
        u32::MAX << (32 - len.min(32))
    }
}

pub fn parse_addr(s: &str) -> Result<u32, String> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 4 {
        return Err(format!("\"{s}\" is not an IPv4 address a.b.c.d"));
    }
    let mut v = 0u32;
    for p in parts {
        let b: u8 = p.parse().map_err(|_| format!("\"{s}\" is not an IPv4 address a.b.c.d"))?;
        v = v << 8 | b as u32;
    }
    Ok(v)
}

pub fn fmt_addr(a: u32) -> String {
    let b = a.to_be_bytes();
    format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3])
}

#[inline]
pub fn to_u32(a: [u8; 4]) -> u32 {
    u32::from_be_bytes(a)
}

#[inline]
pub fn to_bytes(a: u32) -> [u8; 4] {
    a.to_be_bytes()
}

/// The automatic plan: link `i` is 10.0.0.0 + 4i /30, `a` = .1, `b` = .2.
/// 10.0.0.0/8 holds 2^22 such links.
pub fn auto_link_subnet(link: usize) -> (Prefix, u32, u32) {
    let base = (10u32 << 24) + 4 * link as u32;
    (Prefix::new(base, 30), base + 1, base + 2)
}

/// Most links the automatic plan can number inside 10.0.0.0/8.
pub const MAX_AUTO_LINKS: usize = 1 << 22;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_parse_contains_and_display() {
        let p = Prefix::parse("192.168.4.0/22").unwrap();
        assert!(p.contains(parse_addr("192.168.7.255").unwrap()));
        assert!(!p.contains(parse_addr("192.168.8.0").unwrap()));
        assert_eq!(p.to_string(), "192.168.4.0/22");
        assert!(Prefix::ANY.contains(0xdead_beef));
    }

    #[test]
    fn prefix_with_host_bits_is_refused() {
        assert_eq!(Prefix::parse("10.0.0.1/30").unwrap_err(), "\"10.0.0.1/30\" has host bits set (the subnet is 10.0.0.0/30)");
        assert!(Prefix::parse("10.0.0.0/33").is_err());
        assert!(Prefix::parse("10.0.0/8").is_err());
        assert!(Prefix::parse("10.0.0.256/32").is_err());
    }

    #[test]
    fn auto_plan_numbers_links_in_slash_30s() {
        let (p, a, b) = auto_link_subnet(3);
        assert_eq!(p.to_string(), "10.0.0.12/30");
        assert_eq!((fmt_addr(a), fmt_addr(b)), ("10.0.0.13".into(), "10.0.0.14".into()));
        let (p, _, _) = auto_link_subnet(MAX_AUTO_LINKS - 1);
        assert_eq!(p.to_string(), "10.255.255.252/30");
    }
}
