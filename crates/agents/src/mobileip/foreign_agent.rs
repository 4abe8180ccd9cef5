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
//! home address). Advertisements (ICMP type 9, TTL 1, §2.3.1) and replies
//! to visitors also leave by `InjectAt::Egress(wireless)`.
//!
//! Refusals with the RFC's codes (§3.7.2.1): a lifetime above
//! `reg_lifetime` is refused with 69 and the acceptable lifetime in the
//! reply, a care-of address that is not this agent's with 77, a full
//! visitor list with 66; a relayed request unanswered for `reg_timeout`
//! with 78 (§3.7.3.1). Replies are matched to requests by home address and
//! the low 32 bits of the Identification (§3.7.3.1).

use std::collections::BTreeMap;

use airtcp_core::mobileip::{
    adv_flags, AgentAdvert, BindingAck, BindingUpdate, BindingWarning, Ident, MipMsg, RegReply, RegRequest, ReplyCode,
    MIP_PORT,
};
use airtcp_core::{Icmp, Instant, IpPayload, Ipv4Header, Packet};

use super::bindings::Table;
use super::config::ForeignAgentConfig;
use super::out::{addr_value, Out};
use super::witcp::WitcpServer;
use super::{mip_of, mip_packet, secs};
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

    pub fn config(&self) -> &ForeignAgentConfig {
        &self.cfg
    }

    pub fn visitor(&self, home: [u8; 4], now: Instant) -> Option<Visitor> {
        self.visitors.get(&home, now).copied()
    }

    pub fn forwarding(&self, home: [u8; 4], now: Instant) -> Option<Forward> {
        self.forwards.get(&home, now).copied()
    }

    pub fn witcp(&self) -> &WitcpServer {
        &self.witcp
    }

    fn to_visitor(&mut self, home: [u8; 4], port: u16, reply: RegReply) {
        let id = self.out.next_ip_id();
        let p = mip_packet(self.cfg.addr, home, (MIP_PORT, port), id, MipMsg::RegReply(reply));
        self.out.inject(InjectAt::Egress(self.cfg.wireless), p);
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

    fn on_reg_request(&mut self, now: Instant, sport: u16, req: RegRequest) {
        let is_visitor = self.visitors.get(&req.home_addr, now).is_some();
        let code = if req.lifetime > self.cfg.reg_lifetime {
            ReplyCode::FA_LIFETIME_TOO_LONG
        } else if req.coa != self.cfg.addr {
            ReplyCode::FA_INVALID_COA
        } else if !is_visitor && self.visitors.len() >= self.cfg.max_visitors {
            ReplyCode::FA_INSUFFICIENT_RESOURCES
        } else {
            ReplyCode::ACCEPTED
        };
        if code != ReplyCode::ACCEPTED {
            self.n.denied += 1;
            self.out.log("mip_fa_denied", code.0 as u64);
            let lifetime = if code == ReplyCode::FA_LIFETIME_TOO_LONG { self.cfg.reg_lifetime } else { 0 };
            let reply = RegReply { code, lifetime, home_addr: req.home_addr, home_agent: req.home_agent, id: req.id };
            self.to_visitor(req.home_addr, sport, reply);
            return;
        }
        let deadline = now + self.cfg.reg_timeout;
        self.pending.insert(req.home_addr, Pending { home_agent: req.home_agent, id: req.id, port: sport, deadline });
        let id = self.out.next_ip_id();
        let p = mip_packet(self.cfg.addr, req.home_agent, (MIP_PORT, MIP_PORT), id, MipMsg::RegRequest(req));
        self.out.inject(InjectAt::Route, p);
        self.n.relayed_requests += 1;
    }

    fn on_reg_reply(&mut self, now: Instant, reply: RegReply) {
        let home = reply.home_addr;
        let Some(p) = self.pending.get(&home).copied().filter(|p| p.id.lo == reply.id.lo) else {
            self.n.unmatched_replies += 1;
            return;
        };
        self.pending.remove(&home);
        if reply.code.accepted() && reply.lifetime > 0 {
            self.visitors.insert(home, now + secs(reply.lifetime), Visitor { home_agent: p.home_agent, id: p.id });
            self.n.max_visitors = self.n.max_visitors.max(self.visitors.len() as u64);
            self.forwards.remove(&home);
            self.out.log("mip_visitor", addr_value(home));
            // Back at this agent after it froze the host's senders.
            self.witcp.host_back(home, &mut self.out);
        } else if reply.code.accepted() {
            self.visitors.remove(&home);
        }
        self.to_visitor(home, p.port, reply);
        self.n.relayed_replies += 1;
    }

    /// Smooth handoff: the mobile is now at `bu.coa`.
    fn on_binding_update(&mut self, now: Instant, from: [u8; 4], bu: BindingUpdate) {
        let home = bu.home_addr;
        let ha = self.visitors.remove(&home).map(|v| v.home_agent).or(self.forwards.get(&home, now).and_then(|f| f.home_agent));
        if bu.lifetime == 0 {
            self.forwards.remove(&home);
        } else {
            let life = bu.lifetime.min(self.cfg.max_forward_lifetime);
            self.forwards.insert(home, now + secs(life), Forward { coa: bu.coa, home_agent: ha });
        }
        self.out.log("mip_forward_pointer", addr_value(bu.coa));
        if bu.flags & airtcp_core::mobileip::bu_flags::A != 0 {
            let ack = BindingAck { nack: false, home_addr: home, coa: bu.coa, id: bu.id };
            let id = self.out.next_ip_id();
            self.out.inject(InjectAt::Route, mip_packet(self.cfg.addr, from, (MIP_PORT, MIP_PORT), id, MipMsg::BindingAck(ack)));
        }
        // Seed 001, case FA→FA: the old agent thaws the senders it froze.
        self.witcp.host_back(home, &mut self.out);
    }

    /// The previous foreign agent notification of the draft's smooth handoff:
    /// the update a mobile on this link addresses to its previous agent is
    /// sent on from this agent, as the draft (and seed 001) have the new
    /// agent notify the old one.
    fn notify_previous(&mut self, prev: [u8; 4], bu: BindingUpdate) {
        let id = self.out.next_ip_id();
        self.out.inject(InjectAt::Route, mip_packet(self.cfg.addr, prev, (MIP_PORT, MIP_PORT), id, MipMsg::BindingUpdate(bu)));
        self.n.previous_notified += 1;
        self.out.log("mip_previous_fa_notified", addr_value(prev));
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

    /// A packet tunnelled to this agent: deliver, forward, or drop and count.
    fn on_tunnelled(&mut self, now: Instant, pkt: &Packet) -> Verdict {
        let home = pkt.ip.dst;
        let tunnel_src = pkt.net_header().src;
        let mut p = *pkt;
        p.decapsulate();
        let visitor = self.visitors.get(&home, now).is_some();
        let forward = if self.cfg.route_opt { self.forwards.get(&home, now).copied() } else { None };
        if !visitor && forward.is_none() {
            self.n.tunnel_dropped += 1;
            self.out.log("mip_tunnel_drop", addr_value(home));
            return Verdict::Drop;
        }
        // RFC 2003 §3.1: the decapsulated datagram is forwarded, TTL and all.
        if p.ip.ttl <= 1 {
            self.n.ttl_dropped += 1;
            return Verdict::Drop;
        }
        p.ip.ttl -= 1;
        if visitor {
            if self.cfg.witcp {
                self.witcp.to_host(&p);
            }
            self.out.inject(InjectAt::Egress(self.cfg.wireless), p);
            self.n.delivered += 1;
            return Verdict::Stolen;
        }
        let Some(f) = forward else { return Verdict::Drop };
        if f.coa != home {
            let outer = Ipv4Header { src: self.cfg.addr, dst: f.coa, ttl: self.cfg.tunnel_ttl, ip_id: self.out.next_ip_id(), ..Default::default() };
            let _ = p.encapsulate(outer);
        }
        self.out.inject(InjectAt::Route, p);
        self.n.forwarded += 1;
        if let Some(ha) = f.home_agent.filter(|&ha| ha != tunnel_src) {
            self.warn(now, home, pkt.ip.src, ha);
        }
        Verdict::Stolen
    }

    /// Binding Warning to the home agent: correspondent `cn` tunnels to the
    /// old care-of address. At most one per pair and second.
    fn warn(&mut self, now: Instant, home: [u8; 4], cn: [u8; 4], ha: [u8; 4]) {
        if self.warned.get(&(home, cn)).is_some_and(|&t| now.saturating_since(t) < airtcp_core::Duration::from_secs(1)) {
            return;
        }
        self.warned.insert((home, cn), now);
        let w = BindingWarning { home_addr: home, correspondent: cn };
        let id = self.out.next_ip_id();
        self.out.inject(InjectAt::Route, mip_packet(self.cfg.addr, ha, (MIP_PORT, MIP_PORT), id, MipMsg::BindingWarning(w)));
        self.n.binding_warnings += 1;
        self.out.log("mip_binding_warning", addr_value(cn));
    }

    fn expire_pending(&mut self, now: Instant) {
        let due: Vec<[u8; 4]> = self.pending.iter().filter(|(_, p)| p.deadline <= now).map(|(h, _)| *h).collect();
        for home in due {
            let Some(p) = self.pending.remove(&home) else { continue };
            self.n.reg_timeouts += 1;
            let code = ReplyCode::FA_REGISTRATION_TIMEOUT;
            let reply = RegReply { code, lifetime: 0, home_addr: home, home_agent: p.home_agent, id: p.id };
            self.to_visitor(home, p.port, reply);
            self.out.log("mip_fa_denied", code.0 as u64);
        }
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
