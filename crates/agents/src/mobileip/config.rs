//! Configuration of the Mobile IP agents. Defaults name their source; the
//! seed (001) gives none of these values, so they are the RFC's or, where
//! the RFC leaves a choice, a documented one.

use airtcp_core::Duration;

use crate::agent::IfaceId;

/// A home agent (`home_agent.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct HomeAgentConfig {
    /// The home agent's address: registrations are sent to it, tunnels start at it.
    pub addr: [u8; 4],
    /// The home network's (wireless) interface: where mobiles at home are served.
    pub home_iface: IfaceId,
    /// Home addresses of the mobile nodes it serves (RFC 5944 §3.8: a home
    /// agent knows its mobile nodes; others are refused with code 129).
    pub mobiles: Vec<[u8; 4]>,
    /// Longest registration lifetime granted, seconds; a longer request is
    /// accepted with this lifetime (§3.8.3). Default 1800.
    pub max_lifetime: u16,
    /// Largest difference between a timestamp Identification and the home
    /// agent's clock (§5.7.1 suggests 7 seconds). Default 7 s.
    pub max_skew: Duration,
    /// Seconds added to simulation time for the home agent's clock.
    pub clock_offset_s: i64,
    /// Route optimisation: Binding Updates to correspondents whose packets
    /// it tunnels, or that ask (Binding Request) or are named by a Binding
    /// Warning. Default off.
    pub route_opt: bool,
    /// Lifetime of the bindings it hands to correspondents, seconds (never
    /// above the registration's remaining lifetime). Default 10.
    pub bu_lifetime: u16,
    /// At most one unsolicited Binding Update per correspondent and mobile
    /// in this interval (the draft asks for rate limiting). Default 1 s.
    pub bu_min_interval: Duration,
    /// Serve mobiles at home as Wi-TCP's agent: EHO-ACK on the MAC's
    /// delivery failure, EHC-ACK when the mobile registers. Default off.
    pub witcp: bool,
    /// TTL of the outer header of a tunnel (RFC 2003 §3.1). Default 64.
    pub tunnel_ttl: u8,
    /// Agent advertisements (H bit, RFC 5944 §2.1.1) on the home interface
    /// at this interval, so a returning mobile knows it is home; `None`
    /// (default): none, the home network's own router advertises.
    pub advert_interval: Option<Duration>,
    /// Where those go (as a foreign agent's). Default 255.255.255.255.
    pub advert_dst: [u8; 4],
}

impl HomeAgentConfig {
    /// A home agent at `addr` serving `mobiles` on `home_iface`, every other
    /// field at the default named in its doc.
    pub fn new(addr: [u8; 4], home_iface: IfaceId, mobiles: Vec<[u8; 4]>) -> Self {
        HomeAgentConfig {
            addr,
            home_iface,
            mobiles,
            max_lifetime: 1800,
            max_skew: Duration::from_secs(7),
            clock_offset_s: 0,
            route_opt: false,
            bu_lifetime: 10,
            bu_min_interval: Duration::from_secs(1),
            witcp: false,
            tunnel_ttl: 64,
            advert_interval: None,
            advert_dst: [255, 255, 255, 255],
        }
    }
}

/// A foreign agent (`foreign_agent.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct ForeignAgentConfig {
    /// Its address on the visited link, advertised as the care-of address
    /// (a foreign agent care-of address, RFC 5944 §1.7).
    pub addr: [u8; 4],
    /// The interface of the visited (wireless) link.
    pub wireless: IfaceId,
    /// Interval between agent advertisements. RFC 5944 §2.3.1 leaves it to
    /// configuration; default 1 s.
    pub advert_interval: Duration,
    /// Where advertisements go: 255.255.255.255 (default) or 224.0.0.1
    /// (RFC 5944 §2.3.1).
    pub advert_dst: [u8; 4],
    /// Longest registration lifetime accepted, seconds, advertised in the
    /// mobility extension; longer requests are refused with code 69
    /// (§3.7.2.1). Default 1800.
    pub reg_lifetime: u16,
    /// Visitors at most; beyond, code 66 (insufficient resources). Default 64.
    pub max_visitors: usize,
    /// A relayed request with no reply after this long is answered with
    /// code 78, registration timeout (§3.4). Default 7 s.
    pub reg_timeout: Duration,
    /// Smooth handoff and route optimisation: forward packets for a mobile
    /// that moved on (from a Binding Update) and warn its home agent about
    /// correspondents with a stale binding. Default off.
    pub route_opt: bool,
    /// Lifetime of a forwarding pointer when the Binding Update gives 0
    /// seconds is a deletion; this caps a longer one. Default 10 s.
    pub max_forward_lifetime: u16,
    /// Wi-TCP's serving agent for visitors. Default off.
    pub witcp: bool,
    /// TTL of the outer header of a re-tunnelled packet. Default 64.
    pub tunnel_ttl: u8,
}

impl ForeignAgentConfig {
    /// A foreign agent at `addr` on the visited link `wireless`, every other
    /// field at the default named in its doc.
    pub fn new(addr: [u8; 4], wireless: IfaceId) -> Self {
        ForeignAgentConfig {
            addr,
            wireless,
            advert_interval: Duration::from_secs(1),
            advert_dst: [255, 255, 255, 255],
            reg_lifetime: 1800,
            max_visitors: 64,
            reg_timeout: Duration::from_secs(7),
            route_opt: false,
            max_forward_lifetime: 10,
            witcp: false,
            tunnel_ttl: 64,
        }
    }
}

/// A mobile node (`mobile_node.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct MobileNodeConfig {
    /// Its permanent address on the home network (RFC 5944 §1.6): the one its
    /// TCP connections use wherever it is.
    pub home_addr: [u8; 4],
    /// Address of its home agent, where registration requests go.
    pub home_agent: [u8; 4],
    /// Its wireless interface.
    pub wireless: IfaceId,
    /// Registration lifetime requested, seconds (capped by the agent's
    /// advertised limit). Default 1800.
    pub lifetime: u16,
    /// First registration retransmission timeout, doubled at each retry
    /// (RFC 5944 §3.6.3). Default 1 s.
    pub retx_initial: Duration,
    /// Retransmissions before giving up on an agent. Default 5.
    pub retx_max: u32,
    /// Seconds added to simulation time for the mobile's clock (a skewed
    /// clock makes the home agent answer 133, and the mobile resynchronise).
    pub clock_offset_s: i64,
    /// Smooth handoff: after registering through a new agent, send a Binding
    /// Update to the previous foreign agent. Default off.
    pub smooth_handoff: bool,
    /// Lifetime of that Binding Update (the forwarding pointer), seconds. Default 10.
    pub forward_lifetime: u16,
    /// UDP source port of its registration requests. Default 434.
    pub port: u16,
    /// Explicit handover notification (the seed's \[8\]): on hearing a new
    /// agent, send each TCP peer an ACK carrying the EHN signal. Default off.
    pub ehn: bool,
}

impl MobileNodeConfig {
    /// A mobile node with home address `home_addr`, registering with
    /// `home_agent` over `wireless`; every other field at the default named in its doc.
    pub fn new(home_addr: [u8; 4], home_agent: [u8; 4], wireless: IfaceId) -> Self {
        MobileNodeConfig {
            home_addr,
            home_agent,
            wireless,
            lifetime: 1800,
            retx_initial: Duration::from_secs(1),
            retx_max: 5,
            clock_offset_s: 0,
            smooth_handoff: false,
            forward_lifetime: 10,
            port: 434,
            ehn: false,
        }
    }
}

/// A correspondent node with a binding cache (`correspondent.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct CorrespondentConfig {
    /// Its own address: the source of its tunnels and messages.
    pub addr: [u8; 4],
    /// Ask the home agent (Binding Request to the home address) when a
    /// binding used since its update has this long left. Default 1 s;
    /// `None`: let bindings lapse.
    pub refresh_before: Option<Duration>,
    /// TTL of the outer header of its tunnels. Default 64.
    pub tunnel_ttl: u8,
}

impl CorrespondentConfig {
    /// A correspondent at `addr` that refreshes bindings 1 s before they lapse.
    pub fn new(addr: [u8; 4]) -> Self {
        CorrespondentConfig { addr, refresh_before: Some(Duration::from_secs(1)), tunnel_ttl: 64 }
    }
}
