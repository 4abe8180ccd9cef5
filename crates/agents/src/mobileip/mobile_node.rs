//! The mobile node (RFC 5944 §2.4, §3.6): movement detection from agent
//! advertisements and link events, registration through a foreign agent
//! (or deregistration with its home agent when back home), retransmission,
//! and with route optimisation the smooth-handoff Binding Update to its
//! previous foreign agent.
//!
//! Movement detection (§2.4.2.1, lifetime-based, lazy): the first agent
//! heard becomes the current one; advertisements from it renew it for their
//! Lifetime; others are ignored while it lasts. When its advertisement
//! lifetime runs out, or the link layer reports a new association or a lost
//! link (`NodeEvent::Associated` / `LinkLost` on the wireless interface,
//! which §2.4.2 allows as a hint), the next advertisement heard decides.
//!
//! Registration (§3.6.1): a request from the home address to the foreign
//! agent's address with its care-of address, lifetime min(configured,
//! advertised); back home, a deregistration (lifetime 0, care-of address =
//! home address) straight to the home agent (§3.6.1). Each request gets a
//! fresh timestamp Identification (§5.7.1: the clock's seconds above, a
//! counter below). No reply: retransmission with doubling timeout (§3.6.3),
//! `retx_max` times. Reply 133: the clock is resynchronised from the
//! reply's high 32 bits and the request repeated; 69: repeated with the
//! lifetime the agent offered; other refusals end the attempt. Accepted
//! registrations are renewed at 90 % of the granted lifetime.
//!
//! The smooth-handoff Binding Update (draft-ietf-mobileip-optim-11) has the
//! new foreign agent notify the previous one on the mobile's behalf; the
//! draft carries the request for it as a Previous Foreign Agent
//! Notification extension of the registration request. Extensions are not
//! modelled, so the mobile sends the update itself right after its request,
//! addressed to the previous agent; the new foreign agent takes it on the
//! wireless link and sends it on from its own address (`foreign_agent.rs`),
//! so the old agent hears from the new one as in the draft and the seed.
//! Back home (no foreign agent to relay it) the update goes out as it is.
//!
//! Everything goes out with `InjectAt::Egress(wireless)`: to the agent on
//! the link, whatever the node's routes say.

use airtcp_core::mobileip::{BindingUpdate, Ident, MipMsg, RegReply, RegRequest, ReplyCode, MIP_PORT};
use airtcp_core::{Duration, Icmp, Instant, IpPayload, Packet};

use super::config::MobileNodeConfig;
use super::out::{addr_value, Out};
use super::witcp::WitcpServer;
use super::{clock_secs, ident, mip_of, mip_packet, secs};
use crate::agent::{Agent, AgentLog, Hook, HookMask, IfaceId, InjectAt, Injection, NodeEvent, Verdict};

/// The agent currently heard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Heard {
    addr: [u8; 4],
    coa: [u8; 4],
    home: bool,
    reg_lifetime: u16,
    expires: Instant,
}

#[derive(Clone, Copy, Debug)]
struct Pending {
    req: RegRequest,
    dst: [u8; 4],
    deadline: Instant,
    timeout: Duration,
    retries: u32,
}

/// Where the mobile node stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MobileState {
    /// No registration known yet (before the first advertisement).
    Unknown,
    /// A request is outstanding through (or to) `agent`.
    Registering {
        /// The foreign agent relaying the request, or the home agent when
        /// registering directly.
        agent: [u8; 4],
    },
    /// Registered with care-of address `coa` until `until`.
    Registered {
        /// The care-of address the home agent tunnels to.
        coa: [u8; 4],
        /// When the granted lifetime runs out.
        until: Instant,
    },
    /// At home, deregistered.
    AtHome,
}

#[derive(Default)]
struct Counters {
    adverts: u64,
    movements: u64,
    requests: u64,
    retransmissions: u64,
    accepted: u64,
    denied: u64,
    resyncs: u64,
    gave_up: u64,
    binding_updates: u64,
}

/// A mobile node's Mobile IP client (see the module docs): movement
/// detection from advertisements, registration with retries, renewal.
pub struct MobileNode {
    cfg: MobileNodeConfig,
    out: Out,
    heard: Option<Heard>,
    pending: Option<Pending>,
    /// Care-of address registered, and until when (the home address at home).
    registered: Option<([u8; 4], Instant)>,
    /// The foreign agent of the last accepted registration away from home.
    prev_fa: Option<[u8; 4]>,
    renew_at: Option<Instant>,
    clock_offset_s: i64,
    counter: u32,
    /// With `ehn`: the host's TCP connections, as the serving agents follow
    /// them for Wi-TCP, to number the notifications.
    conns: WitcpServer,
    n: Counters,
}

impl MobileNode {
    /// A mobile node that has heard no agent yet ([`MobileState::Unknown`]).
    pub fn new(cfg: MobileNodeConfig) -> MobileNode {
        let clock_offset_s = cfg.clock_offset_s;
        MobileNode {
            cfg,
            out: Out::default(),
            heard: None,
            pending: None,
            registered: None,
            prev_fa: None,
            renew_at: None,
            clock_offset_s,
            counter: 0,
            conns: WitcpServer::new(),
            n: Counters::default(),
        }
    }

    /// The configuration it was built with.
    pub fn config(&self) -> &MobileNodeConfig {
        &self.cfg
    }

    /// Where the registration stands now.
    pub fn state(&self) -> MobileState {
        match (self.pending, self.registered) {
            (Some(p), _) => MobileState::Registering { agent: p.dst },
            (None, Some((coa, _))) if coa == self.cfg.home_addr => MobileState::AtHome,
            (None, Some((coa, until))) => MobileState::Registered { coa, until },
            (None, None) => MobileState::Unknown,
        }
    }

    fn fresh_id(&mut self, now: Instant) -> Ident {
        self.counter = self.counter.wrapping_add(1);
        ident(now, self.clock_offset_s, self.counter)
    }

    fn send(&mut self, dst: [u8; 4], msg: MipMsg) {
        let id = self.out.next_ip_id();
        let p = mip_packet(self.cfg.home_addr, dst, (self.cfg.port, MIP_PORT), id, msg);
        self.out.inject(InjectAt::Egress(self.cfg.wireless), p);
    }

    /// Send (or resend, with a fresh Identification) a request to `dst`.
    fn request(&mut self, now: Instant, dst: [u8; 4], mut req: RegRequest, timeout: Duration, retries: u32) {
        req.id = self.fresh_id(now);
        self.pending = Some(Pending { req, dst, deadline: now + timeout, timeout, retries });
        self.n.requests += 1;
        self.send(dst, MipMsg::RegRequest(req));
    }

    fn register_with(&mut self, now: Instant, h: Heard) {
        let base = RegRequest { home_addr: self.cfg.home_addr, home_agent: self.cfg.home_agent, ..Default::default() };
        let (dst, req) = if h.home {
            (self.cfg.home_agent, RegRequest { lifetime: 0, coa: self.cfg.home_addr, ..base })
        } else {
            (h.addr, RegRequest { lifetime: self.cfg.lifetime.min(h.reg_lifetime), coa: h.coa, ..base })
        };
        self.request(now, dst, req, self.cfg.retx_initial, 0);
        if self.cfg.smooth_handoff {
            if let Some(prev) = self.prev_fa.filter(|&f| f != h.addr) {
                let coa = if h.home { self.cfg.home_addr } else { h.coa };
                let bu = BindingUpdate { flags: 0, lifetime: self.cfg.forward_lifetime, home_addr: self.cfg.home_addr, coa, id: req_id(&self.pending) };
                self.send(prev, MipMsg::BindingUpdate(bu));
                self.n.binding_updates += 1;
                self.out.log("mip_smooth_handoff", addr_value(prev));
            }
        }
    }

    fn on_advert(&mut self, now: Instant, src: [u8; 4], adv: &airtcp_core::mobileip::AgentAdvert) {
        self.n.adverts += 1;
        let expires = now + secs(adv.ra_lifetime);
        if let Some(h) = self.heard.as_mut() {
            if h.addr == src {
                h.expires = expires;
            }
            return;
        }
        let home = adv.is_home_agent() && src == self.cfg.home_agent;
        let Some(&coa) = adv.coas().first().or(home.then_some(&self.cfg.home_addr)) else { return };
        let h = Heard { addr: src, coa, home, reg_lifetime: adv.reg_lifetime, expires };
        self.heard = Some(h);
        self.n.movements += 1;
        self.out.log("mip_agent_heard", addr_value(src));
        if home && self.registered.is_none() {
            // Started at home: nothing to deregister.
            self.registered = Some((self.cfg.home_addr, now));
            return;
        }
        let already = match self.registered {
            Some((c, until)) => c == h.coa && (home || until > now),
            None => false,
        };
        if self.cfg.ehn && self.registered.is_some() && !already {
            // The seed's [8]: notify as soon as the new agent is heard. Not
            // when the agent the host is registered with is heard again
            // after its advertisement lifetime lapsed (broadcast adverts
            // lost on a busy 802.11 cell, RFC 5944 §2.4.2's movement
            // detection): no handover took place.
            self.conns.handover_notify(self.cfg.home_addr, &mut self.out);
        }
        if !already || self.pending.is_some() {
            self.register_with(now, h);
        }
    }

    fn on_reply(&mut self, now: Instant, r: RegReply) {
        let Some(p) = self.pending.filter(|p| p.req.id.lo == r.id.lo && r.home_addr == self.cfg.home_addr) else { return };
        if r.code.accepted() {
            self.pending = None;
            self.n.accepted += 1;
            let until = now + secs(r.lifetime);
            self.registered = Some((p.req.coa, until));
            if p.req.coa == self.cfg.home_addr || r.lifetime == 0 {
                self.prev_fa = None;
                self.renew_at = None;
            } else {
                self.prev_fa = Some(p.dst);
                self.renew_at = Some(now + Duration(secs(r.lifetime).0 / 10 * 9));
            }
            self.out.log("mip_registered", addr_value(p.req.coa));
            return;
        }
        self.out.log("mip_reg_denied", r.code.0 as u64);
        match r.code {
            ReplyCode::HA_ID_MISMATCH => {
                // §5.7.1: take the home agent's time from the reply.
                self.clock_offset_s += r.id.hi as i64 - clock_secs(now, self.clock_offset_s) as i64;
                self.n.resyncs += 1;
                self.request(now, p.dst, p.req, p.timeout, p.retries);
            }
            ReplyCode::FA_LIFETIME_TOO_LONG if r.lifetime > 0 && r.lifetime < p.req.lifetime => {
                let req = RegRequest { lifetime: r.lifetime, ..p.req };
                self.request(now, p.dst, req, p.timeout, p.retries);
            }
            _ => {
                self.pending = None;
                self.n.denied += 1;
            }
        }
    }
}

fn req_id(p: &Option<Pending>) -> Ident {
    p.map(|p| p.req.id).unwrap_or_default()
}

impl Agent for MobileNode {
    fn kind(&self) -> &'static str {
        "mobile_node"
    }

    fn hooks(&self) -> HookMask {
        let base = HookMask::INGRESS | HookMask::LOCAL_IN;
        if self.cfg.ehn {
            base | HookMask::EGRESS
        } else {
            base
        }
    }

    fn on_packet(&mut self, now: Instant, hook: Hook, iface: IfaceId, pkt: &mut Packet) -> Verdict {
        if self.cfg.ehn && pkt.outer.is_none() {
            match hook {
                Hook::Egress if pkt.ip.src == self.cfg.home_addr => self.conns.from_host(pkt),
                Hook::LocalIn if pkt.ip.dst == self.cfg.home_addr => self.conns.to_host(pkt),
                _ => {}
            }
        }
        if pkt.outer.is_some() || !matches!(hook, Hook::Ingress | Hook::LocalIn) {
            return Verdict::Accept;
        }
        if let IpPayload::Icmp(Icmp::AgentAdvert(adv)) = pkt.payload {
            if iface == self.cfg.wireless {
                self.on_advert(now, pkt.ip.src, &adv);
            }
            return Verdict::Stolen;
        }
        if let Some((MipMsg::RegReply(r), _)) = mip_of(pkt) {
            if pkt.ip.dst == self.cfg.home_addr {
                self.on_reply(now, r);
                return Verdict::Stolen;
            }
        }
        Verdict::Accept
    }

    fn poll_injection(&mut self) -> Option<Injection> {
        self.out.pop_injection()
    }

    fn poll_timeout(&self) -> Option<Instant> {
        [self.heard.map(|h| h.expires), self.pending.map(|p| p.deadline), self.renew_at].into_iter().flatten().min()
    }

    fn handle_timeout(&mut self, now: Instant) {
        if self.heard.is_some_and(|h| h.expires <= now) {
            self.heard = None;
            self.out.log("mip_agent_lost", 0);
        }
        if let Some(p) = self.pending.filter(|p| p.deadline <= now) {
            if p.retries < self.cfg.retx_max {
                self.n.retransmissions += 1;
                let timeout = p.timeout.saturating_mul(2);
                self.request(now, p.dst, p.req, timeout, p.retries + 1);
            } else {
                self.pending = None;
                self.n.gave_up += 1;
                self.out.log("mip_reg_gave_up", addr_value(p.dst));
            }
        }
        if self.renew_at.is_some_and(|t| t <= now) {
            self.renew_at = None;
            if let (Some(h), None) = (self.heard, self.pending) {
                self.register_with(now, h);
            }
        }
    }

    /// A new association or a lost link: the current agent is no longer
    /// assumed; the next advertisement decides (§2.4.2).
    fn on_node_event(&mut self, _now: Instant, ev: NodeEvent) {
        match ev {
            NodeEvent::Associated { iface, .. } | NodeEvent::LinkLost { iface } if iface == self.cfg.wireless => {
                self.heard = None;
            }
            _ => {}
        }
    }

    fn poll_log(&mut self) -> Option<AgentLog> {
        self.out.pop_log()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("adverts_heard", self.n.adverts),
            ("movements", self.n.movements),
            ("requests_sent", self.n.requests),
            ("retransmissions", self.n.retransmissions),
            ("registrations_accepted", self.n.accepted),
            ("registrations_denied", self.n.denied),
            ("clock_resyncs", self.n.resyncs),
            ("gave_up", self.n.gave_up),
            ("binding_updates_sent", self.n.binding_updates),
            ("ehn_sent", self.conns.ehn_sent),
        ]
    }
}
