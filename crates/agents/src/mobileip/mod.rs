//! Mobile IPv4 (RFC 5944) with route optimisation (Perkins and Johnson,
//! draft-ietf-mobileip-optim-11) and Wi-TCP (seed 001), as sans-IO agents.
//!
//! One agent per role, one file per agent:
//!
//! - [`HomeAgent`] (`home_agent.rs`): registration processing (identification
//!   check, lifetime limit), the binding table with lifetimes, proxy reception
//!   of the home addresses it serves and IP-in-IP tunnelling (RFC 2003) to
//!   the care-of address; with route optimisation, Binding Updates to
//!   correspondents.
//! - [`ForeignAgent`] (`foreign_agent/`: advertisements and hooks in `mod.rs`,
//!   registration in `relay.rs`, tunnels in `tunnel.rs`, smooth handoff in
//!   `handoff.rs`): periodic agent advertisements,
//!   relaying registrations, the visitor list, decapsulation and delivery;
//!   smooth handoff (forwarding pointers from a Binding Update, Binding
//!   Warnings).
//! - [`MobileNode`] (`mobile_node.rs`): movement detection from
//!   advertisements and link events, registration with retransmission,
//!   the Binding Update to its previous foreign agent.
//! - [`Correspondent`] (`correspondent.rs`): the binding cache, tunnelling
//!   straight to the care-of address.
//! - `witcp.rs`: what the serving agent (home agent for a mobile at home,
//!   foreign agent for a visitor) knows of each TCP connection to the host,
//!   and the EHO-ACK / EHC-ACK it builds from that.
//! - `bindings.rs`: a table of entries with expiry times (binding table,
//!   visitor list, binding cache, forwarding pointers); `out.rs`: the
//!   injection and log queues every agent shares; `config.rs`.
//!
//! Placement (see each agent): control messages are stolen at `Ingress` or
//! `LocalIn`; a tunnel's entry steals the packet and injects the
//! encapsulated one at `InjectAt::Route`; the foreign agent decapsulates
//! tunnelled packets for its visitors itself (at `Ingress`, before the node
//! would) and delivers them with `InjectAt::Egress(wireless)`, since the
//! node has no route to a visitor's home address.
//!
//! Time enters only as `now`; every table is a `BTreeMap`, so the order of
//! timers and of generated messages is fixed.
//!
//! # Driving them from a network (what the simulator integration needs)
//!
//! - A home agent on the home network's router / base station
//!   (`home_iface`: its interface on the home link), a foreign agent on each
//!   foreign base station (`wireless`: its access-point interface), a
//!   mobile node agent on the mobile (`wireless`: its station interface; its
//!   TCP endpoints keep the home address), a correspondent agent on a fixed
//!   host when route optimisation is on. All are plain [`crate::Agent`]s and
//!   [`crate::AnyAgent`] variants.
//! - Node events: `TxFailed { iface, dst }` at the home and foreign agents
//!   (the MAC gave up on a frame to `dst` at its retry limit: Wi-TCP's
//!   EHO-ACK); `Associated` / `LinkLost` at the mobile (movement hints).
//! - The network must let a limited broadcast (255.255.255.255, the
//!   advertisement's default destination) reach the mobile's ingress hooks,
//!   and must carry a foreign agent's `InjectAt::Egress(wireless)` packet
//!   addressed to a visitor's home address to that associated station,
//!   although the address is not in the foreign subnet (RFC 5944 §4.2.2:
//!   the foreign agent delivers to its visitors on the link, without ARP).

mod bindings;
pub mod config;
mod correspondent;
mod foreign_agent;
mod home_agent;
mod mobile_node;
mod out;
mod witcp;

#[cfg(test)]
mod tests;

pub use config::{CorrespondentConfig, ForeignAgentConfig, HomeAgentConfig, MobileNodeConfig};
pub use correspondent::Correspondent;
pub use foreign_agent::ForeignAgent;
pub use home_agent::HomeAgent;
pub use mobile_node::{MobileNode, MobileState};
pub use witcp::WitcpServer;

use airtcp_core::mobileip::{Ident, MipMsg, MIP_PORT};
use airtcp_core::{Duration, Instant, Packet, Udp, UdpMsg};

/// TTL of the packets the agents originate (Linux's default, `ip_default_ttl`).
pub const AGENT_TTL: u8 = 64;

/// Seconds of the agents' time-of-day clock: simulation time plus a fixed
/// offset, as the high half of a timestamp Identification (RFC 5944 §5.7.1).
pub(crate) fn clock_secs(now: Instant, offset_s: i64) -> u32 {
    ((now.as_nanos() / 1_000_000_000) as i64 + offset_s) as u32
}

/// A lifetime in seconds as a duration.
pub(crate) fn secs(s: u16) -> Duration {
    Duration::from_secs(s as u64)
}

/// A Mobile IP message in a UDP datagram.
pub(crate) fn mip_packet(src: [u8; 4], dst: [u8; 4], ports: (u16, u16), ip_id: u16, msg: MipMsg) -> Packet {
    let udp = Udp { src_port: ports.0, dst_port: ports.1, msg: UdpMsg::Mip(msg) };
    Packet::udp(src, dst, AGENT_TTL, ip_id, udp)
}

/// The Mobile IP message of a datagram to or from port 434, if any.
pub(crate) fn mip_of(pkt: &Packet) -> Option<(MipMsg, u16)> {
    match pkt.payload {
        airtcp_core::IpPayload::Udp(Udp { src_port, dst_port, msg: UdpMsg::Mip(m) })
            if src_port == MIP_PORT || dst_port == MIP_PORT =>
        {
            Some((m, src_port))
        }
        _ => None,
    }
}

/// An Identification from the clock: seconds, and a counter below.
pub(crate) fn ident(now: Instant, offset_s: i64, counter: u32) -> Ident {
    Ident { hi: clock_secs(now, offset_s), lo: counter }
}
