//! Mobile IPv4 control messages as typed values: registration (RFC 5944),
//! route optimisation (Perkins and Johnson, draft-ietf-mobileip-optim-11,
//! "Route Optimization in Mobile IP") and the agent advertisement (RFC 5944
//! §2.1, an ICMP router advertisement with the mobility extension).
//!
//! Agents match on these types; [`crate::wire`] writes and parses their real
//! bytes. Every struct is small and `Copy`, like the rest of [`crate::packet`].
//! Authentication extensions (RFC 5944 §3.5, the draft's Route Optimization
//! Authentication extension) are not modelled: messages are written without
//! extensions, and the decoder refuses extensions it would have to drop.

/// The Mobile IP registration port (RFC 5944 §3.3: "UDP ... destination port
/// 434"); the route-optimisation messages use it too (draft §4).
pub const MIP_PORT: u16 = 434;

/// A 64-bit Identification (RFC 5944 §3.3, §5.7). With timestamp replay
/// protection (§5.7.1) the high half counts seconds and the low half is
/// chosen by the mobile node. Ordered as the 64-bit number.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Ident {
    /// High 32 bits: with timestamp replay protection, the sender's clock in
    /// seconds (RFC 5944 uses NTP seconds; the agents here count from the
    /// run's start plus their `clock_offset_s`).
    pub hi: u32,
    /// Low 32 bits, chosen by the mobile node (the reply copies them to match the request).
    pub lo: u32,
}

impl Ident {
    /// Split a 64-bit Identification into its halves.
    pub fn from_u64(v: u64) -> Ident {
        Ident { hi: (v >> 32) as u32, lo: v as u32 }
    }
    /// The 64-bit Identification as one number.
    pub fn as_u64(self) -> u64 {
        (self.hi as u64) << 32 | self.lo as u64
    }
}

/// Registration Request flag bits (RFC 5944 §3.3): S B D M G r T x.
pub mod reg_flags {
    /// Simultaneous bindings.
    pub const S: u8 = 0x80;
    /// Broadcast datagrams.
    pub const B: u8 = 0x40;
    /// Decapsulation by the mobile node (co-located care-of address).
    pub const D: u8 = 0x20;
    /// Minimal encapsulation (RFC 2004).
    pub const M: u8 = 0x10;
    /// GRE encapsulation.
    pub const G: u8 = 0x08;
    /// Reverse tunnelling (RFC 3024).
    pub const T: u8 = 0x02;
}

/// Registration Request, type 1 (RFC 5944 §3.3). `lifetime` is in seconds:
/// 0 deregisters, 0xffff is infinite.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct RegRequest {
    /// [`reg_flags`] bits.
    pub flags: u8,
    /// Requested lifetime in seconds; 0 deregisters, 0xffff is infinite.
    pub lifetime: u16,
    /// The mobile node's home address.
    pub home_addr: [u8; 4],
    /// Its home agent's address.
    pub home_agent: [u8; 4],
    /// The care-of address to bind (the foreign agent's, or the home address to deregister).
    pub coa: [u8; 4],
    /// Identification, echoed in the reply (replay protection, §5.7).
    pub id: Ident,
}

/// Registration Reply codes (RFC 5944 §3.4). Only the codes the agents use
/// are named; any other byte round-trips as it is.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct ReplyCode(pub u8);

impl ReplyCode {
    /// 0: registration accepted (§3.4).
    pub const ACCEPTED: ReplyCode = ReplyCode(0);
    /// 1: accepted, but simultaneous mobility bindings unsupported (§3.4).
    pub const ACCEPTED_NO_SIMULTANEOUS: ReplyCode = ReplyCode(1);
    /// 64: denied by the foreign agent, reason unspecified (§3.4).
    pub const FA_UNSPECIFIED: ReplyCode = ReplyCode(64);
    /// 66: denied by the foreign agent, insufficient resources (§3.4).
    pub const FA_INSUFFICIENT_RESOURCES: ReplyCode = ReplyCode(66);
    /// 69: denied by the foreign agent, requested Lifetime too long (§3.4,
    /// §3.7.2: the FA's validity checks; this model's reply carries the
    /// largest lifetime the FA accepts, which its mobile node retries with).
    pub const FA_LIFETIME_TOO_LONG: ReplyCode = ReplyCode(69);
    /// 70: denied by the foreign agent, poorly formed Request (§3.4).
    pub const FA_POORLY_FORMED: ReplyCode = ReplyCode(70);
    /// 77: denied by the foreign agent, invalid care-of address (§3.4).
    pub const FA_INVALID_COA: ReplyCode = ReplyCode(77);
    /// 78: denied by the foreign agent, registration timeout (§3.4).
    pub const FA_REGISTRATION_TIMEOUT: ReplyCode = ReplyCode(78);
    /// 128: denied by the home agent, reason unspecified (§3.4).
    pub const HA_UNSPECIFIED: ReplyCode = ReplyCode(128);
    /// 129: denied by the home agent, administratively prohibited (§3.4).
    pub const HA_ADMIN_PROHIBITED: ReplyCode = ReplyCode(129);
    /// 133: denied by the home agent, registration Identification mismatch
    /// (§3.4, §3.8.3, §5.7).
    pub const HA_ID_MISMATCH: ReplyCode = ReplyCode(133);
    /// 134: denied by the home agent, poorly formed Request (§3.4).
    pub const HA_POORLY_FORMED: ReplyCode = ReplyCode(134);
    /// 136: denied by the home agent, unknown home agent address (§3.4).
    pub const HA_UNKNOWN_HOME_AGENT: ReplyCode = ReplyCode(136);

    /// Codes 0 and 1 accept the registration (§3.4).
    pub fn accepted(self) -> bool {
        self.0 <= 1
    }
    /// Codes 64-127 are the foreign agent's refusals (§3.4).
    pub fn denied_by_fa(self) -> bool {
        (64..128).contains(&self.0)
    }
}

/// Registration Reply, type 3 (RFC 5944 §3.4).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct RegReply {
    /// Accepted, or why not.
    pub code: ReplyCode,
    /// Granted lifetime in seconds (for code 69, the longest the foreign agent accepts).
    pub lifetime: u16,
    /// The mobile node's home address.
    pub home_addr: [u8; 4],
    /// Its home agent's address.
    pub home_agent: [u8; 4],
    /// The request's Identification (the home agent may rewrite the high half, §3.8.3).
    pub id: Ident,
}

/// Binding Warning, type 16 (draft-ietf-mobileip-optim-11, "Binding Warning
/// Message"): sent by an agent that tunnelled a packet on stale information,
/// asking `target` (normally the mobile node's home agent) to send a Binding
/// Update to the correspondent `correspondent` that still uses it.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct BindingWarning {
    /// The mobile node the warning is about.
    pub home_addr: [u8; 4],
    /// The node whose binding is out of date and needs an update (the draft's
    /// "Target Node Address").
    pub correspondent: [u8; 4],
}

/// Binding Request, type 17 (draft, "Binding Request Message"): a
/// correspondent asks the home agent for the mobile node's binding.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct BindingRequest {
    /// The mobile node whose binding is asked for.
    pub home_addr: [u8; 4],
    /// Identification, echoed in the Binding Update that answers.
    pub id: Ident,
}

/// Binding Update flag bits (draft, "Binding Update Message"): A I M G.
pub mod bu_flags {
    /// Acknowledge: a Binding Acknowledge is requested.
    pub const A: u8 = 0x80;
    /// Identification present.
    pub const I: u8 = 0x40;
    /// Minimal encapsulation.
    pub const M: u8 = 0x20;
    /// GRE encapsulation.
    pub const G: u8 = 0x10;
}

/// Binding Update, type 18 (draft, "Binding Update Message"): the binding
/// `home_addr` → `coa` for `lifetime` seconds (0: delete the binding). Sent
/// by the home agent to correspondents, and by the mobile node's new foreign
/// agent to its previous one (smooth handoff, draft §"Smooth Handoff").
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct BindingUpdate {
    /// [`bu_flags`] bits.
    pub flags: u8,
    /// Binding lifetime in seconds; 0 deletes the binding.
    pub lifetime: u16,
    /// The mobile node's home address.
    pub home_addr: [u8; 4],
    /// Its current care-of address.
    pub coa: [u8; 4],
    /// Identification, echoed in a Binding Acknowledge.
    pub id: Ident,
}

/// Binding Acknowledge, type 19 (draft, "Binding Acknowledge Message").
/// `nack`: the update was refused (the draft's N bit).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct BindingAck {
    /// The update was refused (the draft's N bit).
    pub nack: bool,
    /// Home address of the update acknowledged.
    pub home_addr: [u8; 4],
    /// Care-of address of the update acknowledged.
    pub coa: [u8; 4],
    /// Identification of the update acknowledged.
    pub id: Ident,
}

/// A Mobile IP message on UDP port 434.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MipMsg {
    /// Registration Request, type 1.
    RegRequest(RegRequest),
    /// Registration Reply, type 3.
    RegReply(RegReply),
    /// Binding Warning, type 16.
    BindingWarning(BindingWarning),
    /// Binding Request, type 17.
    BindingRequest(BindingRequest),
    /// Binding Update, type 18.
    BindingUpdate(BindingUpdate),
    /// Binding Acknowledge, type 19.
    BindingAck(BindingAck),
}

/// Message type numbers (RFC 5944 §3.3, §3.4; draft-ietf-mobileip-optim-11).
pub mod mip_type {
    /// Registration Request (RFC 5944 §3.3).
    pub const REG_REQUEST: u8 = 1;
    /// Registration Reply (RFC 5944 §3.4).
    pub const REG_REPLY: u8 = 3;
    /// Binding Warning (draft-ietf-mobileip-optim-11).
    pub const BINDING_WARNING: u8 = 16;
    /// Binding Request (draft-ietf-mobileip-optim-11).
    pub const BINDING_REQUEST: u8 = 17;
    /// Binding Update (draft-ietf-mobileip-optim-11).
    pub const BINDING_UPDATE: u8 = 18;
    /// Binding Acknowledge (draft-ietf-mobileip-optim-11).
    pub const BINDING_ACK: u8 = 19;
}

impl MipMsg {
    /// The type byte.
    pub fn msg_type(&self) -> u8 {
        match self {
            MipMsg::RegRequest(_) => mip_type::REG_REQUEST,
            MipMsg::RegReply(_) => mip_type::REG_REPLY,
            MipMsg::BindingWarning(_) => mip_type::BINDING_WARNING,
            MipMsg::BindingRequest(_) => mip_type::BINDING_REQUEST,
            MipMsg::BindingUpdate(_) => mip_type::BINDING_UPDATE,
            MipMsg::BindingAck(_) => mip_type::BINDING_ACK,
        }
    }

    /// Length of the fixed part, which is all we write (no extensions).
    pub fn len_for_type(t: u8) -> Option<u32> {
        Some(match t {
            // type, flags, lifetime, 3 addresses, 8-byte Identification.
            mip_type::REG_REQUEST => 24,
            // type, code, lifetime, 2 addresses, Identification.
            mip_type::REG_REPLY => 20,
            // type, 3 reserved, home address, target address.
            mip_type::BINDING_WARNING => 12,
            // type, 3 reserved, home address, Identification.
            mip_type::BINDING_REQUEST => 16,
            // type, flags, lifetime, home address, care-of address, Identification.
            mip_type::BINDING_UPDATE => 20,
            // type, N + reserved, 2 reserved, home address, care-of address, Identification.
            mip_type::BINDING_ACK => 20,
            _ => return None,
        })
    }

    /// Bytes after the UDP header.
    pub fn len(&self) -> u32 {
        MipMsg::len_for_type(self.msg_type()).unwrap_or(0)
    }

    /// Always false: every message has a fixed part (here for clippy's
    /// `len_without_is_empty`).
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Mobility Agent Advertisement extension flags (RFC 5944 §2.1.1):
/// R B H F M G r T.
pub mod adv_flags {
    /// Registration required (even with a co-located care-of address).
    pub const R: u8 = 0x80;
    /// Busy: no more registrations accepted.
    pub const B: u8 = 0x40;
    /// The agent is a home agent on this link.
    pub const H: u8 = 0x20;
    /// The agent is a foreign agent on this link.
    pub const F: u8 = 0x10;
    /// Minimal encapsulation supported.
    pub const M: u8 = 0x08;
    /// GRE encapsulation supported.
    pub const G: u8 = 0x04;
    /// Reverse tunnelling supported (RFC 3024).
    pub const T: u8 = 0x01;
}

/// At most this many care-of addresses per advertisement in the model (the
/// RFC allows more; one per foreign agent is what the seed's topology needs).
pub const MAX_ADV_COAS: usize = 2;

/// An agent advertisement (RFC 5944 §2.1): an ICMP Router Advertisement
/// (RFC 1256, type 9) with at most one router address and a Mobility Agent
/// Advertisement extension (type 16).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct AgentAdvert {
    /// ICMP code 16: the agent routes no common traffic (RFC 5944 §2.1);
    /// code 0 otherwise.
    pub mobility_only: bool,
    /// Router Advertisement lifetime in seconds (RFC 1256).
    pub ra_lifetime: u16,
    /// One router address and its preference level (RFC 1256), or none
    /// (RFC 5944 §2.1: Num Addrs may be 0 for a foreign agent).
    pub router: Option<([u8; 4], i32)>,
    /// Sequence number: 0 after boot, then 256 onwards (§2.1.1, §2.3.2).
    pub seq: u16,
    /// Longest registration lifetime the agent accepts, seconds (§2.1.1).
    pub reg_lifetime: u16,
    /// [`adv_flags`] bits (R B H F M G r T).
    pub flags: u8,
    /// Care-of address slots; only the first `n_coas` are meaningful (see [`AgentAdvert::coas`]).
    pub coas: [[u8; 4]; MAX_ADV_COAS],
    /// How many of `coas` are in use.
    pub n_coas: u8,
}

impl AgentAdvert {
    /// ICMP type, code, checksum, Num Addrs, Addr Entry Size, Lifetime.
    pub const RA_HEADER_LEN: u32 = 8;
    /// Mobility extension without care-of addresses: type, length, sequence,
    /// registration lifetime, flags, reserved.
    pub const EXT_FIXED_LEN: u32 = 8;

    /// The care-of addresses advertised.
    pub fn coas(&self) -> &[[u8; 4]] {
        &self.coas[..(self.n_coas as usize).min(MAX_ADV_COAS)]
    }

    /// Add a care-of address; false when full.
    pub fn push_coa(&mut self, a: [u8; 4]) -> bool {
        if (self.n_coas as usize) < MAX_ADV_COAS {
            self.coas[self.n_coas as usize] = a;
            self.n_coas += 1;
            true
        } else {
            false
        }
    }

    /// ICMP message length, header included.
    pub fn len(&self) -> u32 {
        Self::RA_HEADER_LEN + 8 * self.router.is_some() as u32 + Self::EXT_FIXED_LEN + 4 * self.coas().len() as u32
    }

    /// Always false: an advertisement has at least its headers (here for
    /// clippy's `len_without_is_empty`).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Whether the F bit says the sender is a foreign agent on this link.
    pub fn is_foreign_agent(&self) -> bool {
        self.flags & adv_flags::F != 0
    }
    /// Whether the H bit says the sender is a home agent on this link.
    pub fn is_home_agent(&self) -> bool {
        self.flags & adv_flags::H != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ident_orders_as_the_64_bit_number() {
        let a = Ident::from_u64(0x0000_0001_ffff_ffff);
        let b = Ident::from_u64(0x0000_0002_0000_0000);
        assert!(a < b);
        assert_eq!(b.as_u64(), 0x2_0000_0000);
        assert_eq!(a, Ident { hi: 1, lo: u32::MAX });
    }

    #[test]
    fn reply_codes_classify() {
        assert!(ReplyCode::ACCEPTED.accepted() && ReplyCode::ACCEPTED_NO_SIMULTANEOUS.accepted());
        assert!(ReplyCode::FA_LIFETIME_TOO_LONG.denied_by_fa());
        assert!(!ReplyCode::HA_ID_MISMATCH.denied_by_fa() && !ReplyCode::HA_ID_MISMATCH.accepted());
    }

    #[test]
    fn advert_length_counts_router_and_coas() {
        let mut a = AgentAdvert { router: Some(([10, 0, 2, 1], 0)), ..Default::default() };
        assert_eq!(a.len(), 8 + 8 + 8);
        assert!(a.push_coa([10, 0, 2, 1]) && a.push_coa([10, 0, 2, 2]) && !a.push_coa([1, 1, 1, 1]));
        assert_eq!(a.len(), 32);
        assert_eq!(a.coas().len(), 2);
    }
}
