//! The foreign agent (RFC 5944 §2.3, §3.7, §4.2.2): agent advertisements on
//! the visited link, relaying registrations between mobile and home agent,
//! the visitor list, and delivery of tunnelled packets to visitors; with
//! route optimisation, the smooth handoff of draft-ietf-mobileip-optim-11:
//! as the new agent, it sends the Binding Update a mobile on its link
//! addresses to its previous agent on from its own address (the draft's
//! previous foreign agent notification); as the old agent, a Binding
//! Update installs a forwarding pointer: packets still tunnelled here are
//! re-tunnelled to the new care-of address, and the home agent is warned
//! about each correspondent that still uses this one. With Wi-TCP, the
//! serving agent of its
//! visitors (EHO-ACK on the MAC's delivery failure, EHC-ACK when the
//! Binding Update arrives or the visitor registers here again).
//!
//! Hooks: `Ingress` on every interface. On the wireless interface it takes
//! the visitors' registration requests; anywhere it takes the replies and
//! Binding Updates addressed to it and the tunnelled packets whose outer
//! destination is its address, which it decapsulates itself and delivers
//! with `InjectAt::Egress(wireless)` (the node has no route to a visitor's
//! home address). Advertisements (ICMP type 9, TTL 1 as §2.1 requires) and replies
//! to visitors also leave by `InjectAt::Egress(wireless)`.
//!
//! Refusals with the RFC's codes (§3.7.2.1): a lifetime above
//! `reg_lifetime` is refused with 69 and the acceptable lifetime in the
//! reply, a care-of address that is not this agent's with 77, a full
//! visitor list with 66; a relayed request unanswered for `reg_timeout`
//! with 78 (§3.4). Replies are matched to requests by home address and
//! the low 32 bits of the Identification (§3.7.3.1).

mod handoff;
mod relay;
mod tunnel;

use std::collections::BTreeMap;

use airtcp_core::mobileip::{adv_flags, AgentAdvert, Ident, MipMsg};
use airtcp_core::{Icmp, Instant, IpPayload, Ipv4Header, Packet};

use super::bindings::Table;
use super::config::ForeignAgentConfig;
use super::out::{addr_value, Out};
use super::witcp::WitcpServer;
use super::mip_of;
use crate::agent::{Agent, AgentLog, Hook, HookMask, IfaceId, InjectAt, Injection, NodeEvent, Verdict};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Visitor {
    pub home_agent: [u8; 4],
    pub id: Ident,
}

#[derive(Clone, Copy, Debug)]
struct Pending {
    home_agent: [u8; 4],
    id: Ident,
    /// The mobile's UDP source port, for the reply.
    port: u16,
    deadline: Instant,
}

/// Where packets for a mobile that moved on go (smooth handoff).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Forward {
    pub coa: [u8; 4],
    pub home_agent: Option<[u8; 4]>,
}

#[derive(Default)]
struct Counters {
    adverts: u64,
    relayed_requests: u64,
    relayed_replies: u64,
    denied: u64,
    reg_timeouts: u64,
    unmatched_replies: u64,
    delivered: u64,
    forwarded: u64,
    binding_warnings: u64,
    previous_notified: u64,
    tunnel_dropped: u64,
    ttl_dropped: u64,
    visitors_expired: u64,
    max_visitors: u64,
}

/// A foreign agent (see the module docs): advertisements, relayed
/// registrations, visitors, and with route optimisation forwarding pointers.
pub struct ForeignAgent {
    cfg: ForeignAgentConfig,
    out: Out,
    visitors: Table<Visitor>,
    pending: BTreeMap<[u8; 4], Pending>,
    forwards: Table<Forward>,
    /// Last Binding Warning per (home address, correspondent).
    warned: BTreeMap<([u8; 4], [u8; 4]), Instant>,
    next_advert: Instant,
    seq: u16,
    witcp: WitcpServer,
    n: Counters,
}

impl ForeignAgent {
    /// The first advertisement goes out at the first timeout (time 0 if the
    /// driver asks at once).
    pub fn new(cfg: ForeignAgentConfig) -> ForeignAgent {
        ForeignAgent {
            cfg,
            out: Out::default(),
            visitors: Table::default(),
            pending: BTreeMap::new(),
            forwards: Table::default(),
            warned: BTreeMap::new(),
            next_advert: Instant::ZERO,
            seq: 0,
            witcp: WitcpServer::new(),
            n: Counters::default(),
        }
    }

    /// The configuration it was built with.
    pub fn config(&self) -> &ForeignAgentConfig {
        &self.cfg
    }

    /// The visitor entry of home address `home` if its registration is live at `now`.
    pub fn visitor(&self, home: [u8; 4], now: Instant) -> Option<Visitor> {
        self.visitors.get(&home, now).copied()
    }

    /// The forwarding pointer for `home` (smooth handoff) if live at `now`.
    pub fn forwarding(&self, home: [u8; 4], now: Instant) -> Option<Forward> {
        self.forwards.get(&home, now).copied()
    }

    /// The Wi-TCP state of its visitors' connections (which hosts are frozen).
    pub fn witcp(&self) -> &WitcpServer {
        &self.witcp
    }

    fn advertise(&mut self, now: Instant) {
        let interval_s = self.cfg.advert_interval.as_nanos().div_ceil(1_000_000_000);
        let mut adv = AgentAdvert {
            mobility_only: false,
            // RFC 1256 §4.1: lifetime three times the advertisement interval.
            ra_lifetime: (3 * interval_s).clamp(1, u16::MAX as u64) as u16,
            router: Some((self.cfg.addr, 0)),
            seq: self.seq,
            reg_lifetime: self.cfg.reg_lifetime,
            flags: adv_flags::R | adv_flags::F,
            ..Default::default()
        };
        adv.push_coa(self.cfg.addr);
        // §2.3.2: 0 after boot, then up to 0xffff, wrapping to 256.
        self.seq = if self.seq == u16::MAX { 256 } else { self.seq + 1 };
        let ip = Ipv4Header { src: self.cfg.addr, dst: self.cfg.advert_dst, ttl: 1, ip_id: self.out.next_ip_id(), ..Default::default() };
        let p = Packet { ip, outer: None, payload: IpPayload::Icmp(Icmp::AgentAdvert(adv)) };
        self.out.inject(InjectAt::Egress(self.cfg.wireless), p);
        self.n.adverts += 1;
        self.next_advert = now + self.cfg.advert_interval;
    }

    /// A Mobile IP message addressed to the agent (not a request). True when handled.
    fn on_control(&mut self, now: Instant, pkt: &Packet) -> bool {
        match mip_of(pkt) {
            Some((MipMsg::RegReply(r), _)) => self.on_reg_reply(now, r),
            Some((MipMsg::BindingUpdate(bu), _)) if self.cfg.route_opt => self.on_binding_update(now, pkt.ip.src, bu),
            _ => return false,
        }
        true
    }

}

impl Agent for ForeignAgent {
    fn kind(&self) -> &'static str {
        "foreign_agent"
    }

    fn hooks(&self) -> HookMask {
        HookMask::INGRESS | HookMask::LOCAL_IN
    }

    fn on_packet(&mut self, now: Instant, hook: Hook, iface: IfaceId, pkt: &mut Packet) -> Verdict {
        if hook == Hook::LocalIn {
            return if pkt.outer.is_none() && self.on_control(now, pkt) { Verdict::Stolen } else { Verdict::Accept };
        }
        if hook != Hook::Ingress {
            return Verdict::Accept;
        }
        if pkt.outer.is_some() {
            return if pkt.net_header().dst == self.cfg.addr { self.on_tunnelled(now, pkt) } else { Verdict::Accept };
        }
        if iface == self.cfg.wireless {
            if let Some((MipMsg::RegRequest(req), sport)) = mip_of(pkt) {
                if pkt.ip.dst == self.cfg.addr || pkt.ip.dst == self.cfg.advert_dst {
                    self.on_reg_request(now, sport, req);
                    return Verdict::Stolen;
                }
            }
            if let Some((MipMsg::BindingUpdate(bu), _)) = mip_of(pkt) {
                if self.cfg.route_opt && bu.home_addr == pkt.ip.src && pkt.ip.dst != self.cfg.addr {
                    self.notify_previous(pkt.ip.dst, bu);
                    return Verdict::Stolen;
                }
            }
            if self.cfg.witcp && self.visitors.get(&pkt.ip.src, now).is_some() {
                self.witcp.from_host(pkt);
            }
            return Verdict::Accept;
        }
        if pkt.ip.dst == self.cfg.addr && self.on_control(now, pkt) {
            return Verdict::Stolen;
        }
        Verdict::Accept
    }

    fn poll_injection(&mut self) -> Option<Injection> {
        self.out.pop_injection()
    }

    fn poll_timeout(&self) -> Option<Instant> {
        let pending = self.pending.values().map(|p| p.deadline).min();
        [Some(self.next_advert), pending, self.visitors.next_expiry(), self.forwards.next_expiry()].into_iter().flatten().min()
    }

    fn handle_timeout(&mut self, now: Instant) {
        if self.next_advert <= now {
            self.advertise(now);
        }
        self.expire_pending(now);
        for (home, _) in self.visitors.expire(now) {
            self.n.visitors_expired += 1;
            self.out.log("mip_visitor_expired", addr_value(home));
        }
        self.forwards.expire(now);
    }

    /// The MAC lost a visitor: Wi-TCP's EHO-ACK.
    fn on_node_event(&mut self, now: Instant, ev: NodeEvent) {
        if let NodeEvent::TxFailed { iface, dst } = ev {
            if self.cfg.witcp && iface == self.cfg.wireless && self.visitors.get(&dst, now).is_some() {
                self.witcp.host_lost(dst, &mut self.out);
            }
        }
    }

    fn poll_log(&mut self) -> Option<AgentLog> {
        self.out.pop_log()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("adverts_sent", self.n.adverts),
            ("requests_relayed", self.n.relayed_requests),
            ("replies_relayed", self.n.relayed_replies),
            ("requests_denied", self.n.denied),
            ("registration_timeouts", self.n.reg_timeouts),
            ("unmatched_replies", self.n.unmatched_replies),
            ("delivered", self.n.delivered),
            ("forwarded", self.n.forwarded),
            ("binding_warnings_sent", self.n.binding_warnings),
            ("previous_agents_notified", self.n.previous_notified),
            ("tunnel_dropped", self.n.tunnel_dropped),
            ("tunnel_ttl_dropped", self.n.ttl_dropped),
            ("visitors_expired", self.n.visitors_expired),
            ("max_visitors", self.n.max_visitors),
            ("eho_sent", self.witcp.eho_sent),
            ("ehc_sent", self.witcp.ehc_sent),
        ]
    }

    /// Visitors now.
    fn gauge(&self) -> Option<u64> {
        Some(self.visitors.len() as u64)
    }
}
